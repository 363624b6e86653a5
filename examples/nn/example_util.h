// Shared steps of the rlx::nn examples: seeded random weights, writing an export as a .relax file
// (+ constants sidecar) and a safetensors weight file, re-parsing it, and comparing results.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/nn/jit.h"
#include "ir/eval_function.h"
#include "ir/safetensors.h"
#include "ir/structural_equal.h"
#include "parser/parser.h"
#include "printer/module_file.h"

namespace example {

using namespace rlx;

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T check(Result<T> r, const std::string& step) {
  if (!r.ok()) die(step + ": " + r.error().message + (r.error().hint.empty() ? "" : " (" + r.error().hint + ")"));
  return std::move(r.value());
}
inline void check(const Status& s, const std::string& step) {
  if (!s.ok()) die(step + ": " + s.error().message);
}

inline NDArrayRef uniform(std::mt19937& rng, std::vector<int64_t> shape, float scale) {
  auto a = make<NDArray>(DataType::float32(), std::move(shape));
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < a->numel(); ++i) a->as<float>()[i] = dist(rng);
  return a;
}

// Every parameter gets uniform(-scale, scale) data, in parameter order from one seeded generator.
inline void fillRandom(nn::Module& m, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  for (auto& [name, p] : m.namedParameters()) check(p->setData(uniform(rng, p->shape(), scale)), "binding " + name);
}

// Writes `ex` to `path` (TVMScript, large constants in the sidecar) and the weights to
// <base>.params.safetensors under the names the parameters have in the file (BindParams reads
// them so), re-parses the file and checks it equals the export structurally. Returns the re-parsed module.
inline IRModuleRef saveAndReload(const nn::Exported& ex, const std::string& path) {
  check(writeModuleFile(ex.module, path), "writing " + path);
  DiagnosticEngine diag;
  auto parsed = parseFile(path, diag);
  if (!parsed) die("re-parsing " + path + ":\n" + diag.render());
  auto eq = structuralEqual(ex.module, parsed);
  if (!eq.equal) die("the re-parsed " + path + " differs from the export at " + eq.path);
  std::printf("wrote %s; re-parsed: structurally equal to the export\n", path.c_str());
  // The printed parameter names (fc1.weight prints as fc1_weight) are the last params of a method.
  const Function* f = nullptr;
  for (auto& entry : parsed->functions)
    if (auto fn = entry.func.as<Function>(); fn && fn->params.size() >= ex.params.size()) f = fn.get();
  if (!f) die("no function of " + path + " takes the parameters");
  std::vector<safetensors::Entry> weights;
  size_t first = f->params.size() - ex.params.size();
  for (size_t i = 0; i < ex.params.size(); ++i) weights.push_back({f->params[first + i]->name, ex.params[i].param->data()});
  std::string base = path.substr(0, path.size() - std::string(".relax").size());
  check(safetensors::write(base + ".params.safetensors", weights), "writing the weights");
  std::printf("wrote %s.params.safetensors (%zu tensors)\n", base.c_str(), weights.size());
  return parsed;
}

// The parameters as evaluator values, in signature order.
inline std::vector<rlx::Value> paramValues(const nn::Exported& ex) {
  std::vector<rlx::Value> out;
  for (auto& p : ex.params) out.push_back(rlx::Value::ofTensor(p.param->data()));
  return out;
}

inline rlx::Value toEval(const vm::Value& v) {
  rlx::Value out;
  std::string err;
  if (!vm::toEvalValue(v, out, err)) die("converting a VM value: " + err);
  return out;
}

inline double maxAbsDiff(const NDArray& a, const NDArray& b) {
  if (a.shape != b.shape || a.dtype != b.dtype) die("comparing tensors of different shapes or dtypes");
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, std::fabs(a.getDouble(i) - b.getDouble(i)));
  return m;
}

}  // namespace example
