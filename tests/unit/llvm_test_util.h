// Helpers of the LLVM kernel tests (test_llvm_kernels.cc, test_llvm_gemm.cc, test_llvm_transpose.cc): Relax bindings
// lowered to PrimFuncs, random arguments, and the JIT checked against the TIR interpreter.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "parser/parser.h"
#include "tests/unit/parse_prim.h"
#include "passes/registry.h"
#include "runtime/jit.h"

namespace rlx {

// A float array of `shape` with uniform values in [-scale, scale) from `seed`.
inline NDArrayRef filled(DataType t, std::vector<int64_t> shape, uint32_t seed, double scale = 2) {
  auto a = make<NDArray>(t, std::move(shape));
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, std::uniform_real_distribution<double>(-scale, scale)(rng));
  return a;
}

inline NDArrayRef copyOf(const NDArrayRef& a) {
  auto c = make<NDArray>(a->dtype, a->shape);
  std::memcpy(c->data(), a->data(), a->nbytes());
  return c;
}

inline NDArrayRef zeros(std::vector<int64_t> shape, DataType t = DataType::float32()) { return make<NDArray>(t, std::move(shape)); }

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
// Vector widths follow the host: LLVM prefers 256-bit vectors on Intel AVX-512 parts, 512 on Zen 5.
inline bool matches(const std::string& s, const std::string& pattern) { return std::regex_search(s, std::regex(pattern)); }

// The PrimFuncs of `main(params) { bindings }` after `pipeline` (LegalizeOps, FuseOps and FuseTIR).
inline std::vector<PrimFuncRef> lower(const std::string& params, const std::string& bindings,
                                      const std::string& pipeline = "LegalizeOps,AnnotateTIROpPattern,FuseOps,FuseTIR") {
  std::string text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(" + params + "):\n        with R.dataflow():\n" + bindings +
                     "            R.output(gv)\n        return gv\n";
  DiagnosticEngine diag;
  auto mod = parseModule(text, "kernel.relax", diag);
  INFO(text << diag.render());
  REQUIRE(mod);
  auto passes = parsePipeline(pipeline);
  REQUIRE(passes.ok());
  auto out = runSequential(passes.value(), mod, PassContext());
  REQUIRE(out.ok());
  std::vector<PrimFuncRef> fs;
  for (auto& e : out.value()->functions)
    if (auto f = e.func.as<PrimFunc>()) fs.push_back(f);
  return fs;
}

// Random arrays for `f`'s buffers, every symbolic dim taking the value `sym`.
inline std::vector<TirArg> argsFor(const PrimFunc& f, int64_t sym, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<TirArg> args;
  for (auto& [param, buf] : f.bufferMap) {
    std::vector<int64_t> shape;
    for (auto& d : buf->shape) shape.push_back(asIntImm(d) ? asIntImm(d)->value : sym);
    auto a = make<NDArray>(buf->dtype, shape);
    for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, std::uniform_real_distribution<double>(-2, 2)(rng));
    args.push_back(a);
  }
  return args;
}

// Runs `f` through the interpreter and the JIT on copies of `args`; "" when both succeed and every
// array ends up the same, else the difference: integers exactly, NaN and infinities alike, floats
// within `tol` relative to max(1, |y|) (a negative `tol`: a few ulps of the dtype).
inline std::string agree(const PrimFuncRef& f, const std::vector<TirArg>& args, double tol = -1) {
  std::vector<TirArg> mine = args;
  for (auto& a : mine)
    if (a.kind == TirArg::Array) {
      auto c = make<NDArray>(a.array->dtype, a.array->shape);
      std::memcpy(c->data(), a.array->data(), a.array->nbytes());
      a.array = c;
    }
  auto st = runPrimFunc(*f, args);
  if (!st.ok()) return "runPrimFunc: " + st.error().message;
  auto kernel = compileKernel(f, "agree");
  if (!kernel.ok()) return "compileKernel: " + kernel.error().message;
  auto run = runKernel(**kernel, *f, mine);
  if (!run.ok()) return "runKernel: " + run.error().message;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != TirArg::Array) continue;
    const NDArray &want = *args[i].array, &got = *mine[i].array;
    DataType t = want.dtype;
    double eps = tol >= 0 ? tol : t.bits == 64 ? 1e-12 : t.bits == 16 ? 2e-3 : 2e-6;
    for (int64_t j = 0; j < want.numel(); ++j) {
      double x = got.getDouble(j), y = want.getDouble(j);
      bool ok = !t.isFloat() ? got.getInt(j) == want.getInt(j) : std::isnan(y) ? std::isnan(x) : std::isinf(y) ? x == y : std::fabs(x - y) <= eps * std::max(1.0, std::fabs(y));
      if (!ok) return "argument " + std::to_string(i) + " element " + std::to_string(j) + ": jit " + std::to_string(x) + ", interpreter " + std::to_string(y);
    }
  }
  return "";
}

// The first function of a module's text, a PrimFunc.
inline PrimFuncRef firstPrimFunc(const std::string& text) { return parsePrim(text); }

}  // namespace rlx
