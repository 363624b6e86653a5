// The packed functions ops legalize to (TVM's FCallPacked): relax.run.print and
// relax.run.assert_op (Python-style "{}" formats), relax.run.unique and relax.run.nonzero.
#include <fmt/format.h>

#include "ir/block_builder.h"
#include "ir/eval.h"
#include "ir/op.h"

#include "runtime/format.h"
#include "runtime/vm.h"

namespace rlx::vm {

namespace {

// Python's str.format for the "{}" and "{N}" fields the format strings use ("{{" escapes).
std::string pyFormat(const std::string& format, const Value* values, int64_t n) {
  std::string out;
  int64_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    size_t close = c == '{' ? format.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += c;
      continue;
    }
    std::string field = format.substr(i + 1, close - i - 1);
    int64_t index = field.empty() ? next++ : std::atoll(field.c_str());
    out += index >= 0 && index < n ? formatValue(values[index]) : "{" + field + "}";
    i = close;
  }
  return out;
}

const std::string& formatArg(const Value& v, const char* fn) {
  if (v.kind != Value::Str) throwVMError(fmt::format("{}: the format must be a string, got {}", fn, v.describe()));
  return v.str();
}

// relax.run.print(format, values...).
Value print(VirtualMachine& vm, const Value* args, int64_t n) {
  if (n < 1) throwVMError("relax.run.print expects a format string");
  const std::string& format = formatArg(args[0], "relax.run.print");
  std::string text = format.empty() ? "" : pyFormat(format, args + 1, n - 1);
  if (format.empty())
    for (int64_t k = 1; k < n; ++k) text += (k > 1 ? " " : "") + formatValue(args[k]);
  vm.print(text + "\n");
  return Value();
}

// relax.run.assert_op(condition, format, values...): a false condition fails the run.
Value assertOp(VirtualMachine&, const Value* args, int64_t n) {
  if (n < 2) throwVMError("relax.run.assert_op expects a condition and a format string");
  const Value& c = args[0];
  bool ok;
  if (c.kind == Value::Int) ok = c.i != 0;
  else if (c.kind == Value::Tensor && c.array->numel() == 1) ok = c.array->getDouble(0) != 0;
  else throwVMError(fmt::format("R.assert_op: the condition must be a scalar, got {}", c.describe()));
  if (!ok) {
    const std::string& format = formatArg(args[1], "relax.run.assert_op");
    throwVMError("assertion failed: " + (format.empty() ? std::string("R.assert_op") : pyFormat(format, args + 2, n - 2)));
  }
  return Value();
}

// A concrete argument as an expression, so that the op's struct info can be inferred from it.
Expr asArgument(const rlx::Value& v) {
  if (v.kind == rlx::Value::Tensor) {
    auto c = make<Constant>(v.tensor);
    std::vector<PrimExpr> dims;
    for (auto d : v.tensor->shape) dims.push_back(intImm(d));
    c->sinfo = tensorSInfo(dims, v.tensor->dtype);
    return c;
  }
  if (v.kind == rlx::Value::Prim) return make<PrimValue>(v.dtype.isFloat() ? floatImm(v.f, v.dtype) : intImm(v.i, v.dtype));
  if (v.kind == rlx::Value::DType) {
    auto d = make<DataTypeImm>(v.dtype);
    d->sinfo = objectSInfo();
    return d;
  }
  if (v.kind == rlx::Value::Shape) {
    std::vector<PrimExpr> dims;
    for (auto d : v.shape) dims.push_back(intImm(d));
    return make<ShapeExpr>(dims);
  }
  if (v.kind == rlx::Value::Tuple && v.fields.empty()) {  // an absent optional argument
    auto t = make<Tuple>(std::vector<Expr>{});
    t->sinfo = voidSInfo();
    return t;
  }
  return nullptr;
}

// An op whose result shape depends on its input's values (unique, nonzero, non-maximum
// suppression) has no kernel: like TVM's numpy-backed relax.run.* functions it runs host code,
// here the reference evaluator's, on a call whose struct info is inferred from the values.
PackedFn evaluatorOf(const std::string& opName) {
  return [opName](VirtualMachine&, const Value* args, int64_t n) -> Value {
    const EvalFn* fn = findEval(opName);
    if (!fn) throwVMError("no host implementation of " + opName);
    std::vector<rlx::Value> in;
    std::vector<Expr> exprs;
    for (int64_t k = 0; k < n; ++k) {
      rlx::Value v;
      std::string err;
      if (!toEvalValue(args[k], v, err)) throwVMError(opName + ": argument " + std::to_string(k) + ": " + err);
      Expr e = asArgument(v);
      if (!e) throwVMError(opName + ": argument " + std::to_string(k) + " is " + v.describe() + ", not a tensor or scalar");
      exprs.push_back(e);
      in.push_back(std::move(v));
    }
    Call call(opRef(opName), exprs, nullptr, {});
    auto sinfo = inferCallSInfo(call);
    if (!sinfo) throwVMError(sinfo.error().message);
    call.sinfo = *sinfo;
    auto out = (*fn)(call, in);
    if (!out) throwVMError(out.error().message);
    return fromEvalValue(*out);
  };
}

}  // namespace

void registerRunBuiltins() {
  registerPackedFunction("relax.run.print", print);
  registerPackedFunction("relax.run.assert_op", assertOp);
  registerPackedFunction("relax.run.unique", evaluatorOf("relax.unique"));
  registerPackedFunction("relax.run.nonzero", evaluatorOf("relax.nonzero"));
  registerPackedFunction("relax.run.all_class_non_max_suppression", evaluatorOf("relax.vision.all_class_non_max_suppression"));
  // R.memory.view's legalization (TVM's): the bytes reinterpreted as another shape / dtype.
  registerPackedFunction("runtime.TVMArrayCreateView", evaluatorOf("relax.memory.view"));
}

}  // namespace rlx::vm
