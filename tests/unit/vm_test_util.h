// Shared helpers for the VM tests: random inputs for a function's parameters (symbolic dims
// given values), closeness of results, and running a module through the compiler and VM.
#pragma once
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ir/arith.h"
#include "ir/eval.h"
#include "ir/eval_function.h"
#include "ir/struct_info.h"
#include "runtime/codegen.h"
#include "runtime/runner.h"
#include "runtime/vm.h"

namespace rlx::testing {

// Random inputs for the params of `func`: symbolic dims take their value from `syms` (by name),
// dims of ndim-only annotations are 3. Floats are drawn from [lo, 1); with lo >= 0, integers from
// {0, 1, 2} (valid indices for take/gather), else from [-5, 5].
inline std::vector<Value> randomInputs(const Function& func, const std::map<std::string, int64_t>& syms, uint32_t seed, double lo = -1) {
  std::mt19937 rng(seed);
  std::vector<Value> out;
  auto dimValue = [&](const PrimExpr& d) -> int64_t {
    if (auto c = constInt(d)) return *c;
    if (auto v = d.as<PrimVar>()) return syms.at(v->name);
    return 3;
  };
  for (auto& p : func.params) {
    if (auto prim = sinfoOf(p).as<PrimSInfo>()) {  // R.Prim: its symbolic value, else a small number
      if (prim->dtype.isFloat()) out.push_back(Value::ofFloat(0.5, prim->dtype));
      else out.push_back(Value::ofInt(prim->value ? dimValue(prim->value) : 2, prim->dtype));
      continue;
    }
    if (auto sh = sinfoOf(p).as<ShapeSInfo>()) {
      std::vector<int64_t> dims;
      for (int k = 0; k < sh->ndim; ++k) dims.push_back(sh->values ? dimValue((*sh->values)[size_t(k)]) : 3);
      out.push_back(Value::ofShape(dims));
      continue;
    }
    auto t = sinfoOf(p).as<TensorSInfo>();
    std::vector<int64_t> shape;
    if (t && t->dims())
      for (auto& d : *t->dims()) {
        if (auto c = constInt(d)) shape.push_back(*c);
        else if (auto v = d.as<PrimVar>()) shape.push_back(syms.at(v->name));
      }
    else if (t && t->ndim > 0)
      shape.assign(size_t(t->ndim), 3);
    auto a = make<NDArray>(t ? t->dtype : DataType::float32(), shape);
    for (int64_t i = 0; i < a->numel(); ++i) {
      if (a->dtype.isFloat()) a->setDouble(i, std::uniform_real_distribution<double>(lo, 1)(rng));
      else if (a->dtype.isBool()) a->setInt(i, int64_t(rng() & 1));
      else a->setInt(i, lo >= 0 ? std::uniform_int_distribution<int64_t>(0, 2)(rng) : std::uniform_int_distribution<int64_t>(-5, 5)(rng));
    }
    out.push_back(Value::ofTensor(a));
  }
  return out;
}

// "" when equal (integers exactly; floats within tol relative to the tensor's largest magnitude,
// since float32 sums of hundreds of terms carry absolute errors of that scale), else the first difference.
inline std::string compareValues(const Value& a, const Value& b, double tol = 1e-4, const std::string& path = "result") {
  if (a.kind != b.kind) return path + ": " + a.describe() + " vs " + b.describe();
  if (a.kind == Value::Tuple) {
    if (a.fields.size() != b.fields.size()) return path + ": tuple sizes differ";
    for (size_t k = 0; k < a.fields.size(); ++k) {
      auto d = compareValues(a.fields[k], b.fields[k], tol, path + "[" + std::to_string(k) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.kind != Value::Tensor) return a.describe() == b.describe() ? "" : path + ": " + a.describe() + " vs " + b.describe();
  if (a.tensor->shape != b.tensor->shape || a.tensor->dtype != b.tensor->dtype) return path + ": " + a.describe() + " vs " + b.describe();
  double scale = 1;
  if (b.tensor->dtype.isFloat())
    for (int64_t i = 0; i < b.tensor->numel(); ++i)
      if (std::isfinite(b.tensor->getDouble(i))) scale = std::max(scale, std::fabs(b.tensor->getDouble(i)));
  for (int64_t i = 0; i < a.tensor->numel(); ++i) {
    if (a.tensor->dtype.isFloat()) {
      double x = a.tensor->getDouble(i), y = b.tensor->getDouble(i);
      if ((std::isnan(x) && std::isnan(y)) || x == y) continue;  // equal infinities too
      if (!(std::fabs(x - y) <= tol * scale)) return path + "[" + std::to_string(i) + "]: " + std::to_string(x) + " vs " + std::to_string(y);
    } else if (a.tensor->getInt(i) != b.tensor->getInt(i)) {
      return path + "[" + std::to_string(i) + "]: " + std::to_string(a.tensor->getInt(i)) + " vs " + std::to_string(b.tensor->getInt(i));
    }
  }
  return "";
}

// Compiles a fully lowered module and runs `func`; the error text on failure.
inline Result<Value> runOnVM(const IRModule& lowered, const std::string& func, const std::vector<Value>& inputs, vm::VMOptions options = {}) {
  RLX_TRY(exec, vm::compileModule(lowered));
  RLX_TRY(machine, vm::VirtualMachine::load(exec, options));
  std::vector<vm::Value> args;
  for (auto& v : inputs) args.push_back(vm::fromEvalValue(v));
  RLX_TRY(out, machine->invoke(func, args));
  Value result;
  std::string err;
  if (!vm::toEvalValue(out, result, err)) return Error(err);
  return result;
}

// What `func` of `mod` computes on the VM with compiled kernels after lowering `mod` with the
// runner's `pipeline` ("build", "build_fused"), as `rlx run` does.
inline Result<Value> runBuilt(const IRModuleRef& mod, const std::string& pipeline, const std::string& func, const std::vector<Value>& inputs) {
  RLX_TRY(prepared, prepareModule(mod, pipeline, {}));
  std::vector<vm::Value> args;
  for (auto& v : inputs) args.push_back(vm::fromEvalValue(v));
  RLX_TRY(out, prepared.machine->invoke(func, args));
  Value result;
  std::string err;
  if (!vm::toEvalValue(out, result, err)) return Error(err);
  return result;
}

}  // namespace rlx::testing
