// The evaluator registry and the bridge between constant Relax expressions and concrete Values.
// Op implementations live in ir/ops/eval_*.cc, one file per op family.
#include "ir/eval.h"

#include <fmt/format.h>

#include <map>

#include "ir/block_builder.h"
#include "ir/op.h"

namespace rlx {

// ---------------------------------------------------------------- Value
Value Value::ofTensor(NDArrayRef t) { Value v; v.kind = Tensor; v.tensor = std::move(t); return v; }
Value Value::ofTuple(std::vector<Value> f) { Value v; v.kind = Tuple; v.fields = std::move(f); return v; }
Value Value::ofShape(std::vector<int64_t> s) { Value v; v.kind = Shape; v.shape = std::move(s); return v; }
Value Value::ofInt(int64_t x, DataType t) { Value v; v.kind = Prim; v.dtype = t; v.i = x; v.f = double(x); return v; }
Value Value::ofFloat(double x, DataType t) { Value v; v.kind = Prim; v.dtype = t; v.f = x; return v; }
Value Value::ofStr(std::string s) { Value v; v.kind = Str; v.str = std::move(s); return v; }
Value Value::ofDType(DataType t) { Value v; v.kind = DType; v.dtype = t; return v; }
Value Value::ofClosure(std::shared_ptr<const ClosureData> c) { Value v; v.kind = Closure; v.closure = std::move(c); return v; }

double Value::primDouble() const { return dtype.isFloat() ? f : double(i); }
int64_t Value::primInt() const { return dtype.isFloat() ? int64_t(f) : i; }

std::string Value::describe() const {
  switch (kind) {
    case Tensor: {
      std::string dims;
      for (size_t k = 0; k < tensor->shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(tensor->shape[k]);
      if (tensor->shape.size() == 1) dims += ",";
      return fmt::format("a {} tensor of shape ({})", tensor->dtype.str(), dims);
    }
    case Tuple: return fmt::format("a tuple of {} values", fields.size());
    case Shape: return "a shape";
    case Prim: return fmt::format("a {} prim value", dtype.str());
    case Str: return "a string";
    case DType: return "a dtype";
    case Closure: return "a closure";
  }
  return "a value";
}

// ---------------------------------------------------------------- registry
namespace {

struct EvalRegistry {
  std::map<std::string, EvalFn, std::less<>> fns;
  bool initialized = false;
};

EvalRegistry& evalRegistry() {
  static EvalRegistry r;
  if (!r.initialized) {
    r.initialized = true;  // first: the family functions call registerEval
    registerElementwiseEvals();
    registerCreateEvals();
    registerManipulateEvals();
    registerReduceEvals();
    registerNNEvals();
    registerStructuralEvals();
    registerGradEvals();
    registerMemoryEvals();
  }
  return r;
}

}  // namespace

void registerEval(std::string opName, EvalFn fn) {
  RLX_CHECK(findOp(opName) != nullptr);  // evaluators only for registered ops
  evalRegistry().fns[std::move(opName)] = std::move(fn);
}

const EvalFn* findEval(std::string_view opName) {
  auto& r = evalRegistry();
  auto it = r.fns.find(opName);
  return it == r.fns.end() ? nullptr : &it->second;
}

Result<Value> evaluateCall(const Call& call, const std::vector<Value>& args) {
  const std::string& name = call.opName();
  const EvalFn* fn = findEval(name);
  std::string label = name.empty() ? "this callee" : "R." + name.substr(name.find('.') + 1);
  if (!fn) return Error(fmt::format("{} has no reference evaluator", label));
  if (args.size() != call.args.size()) return Error(fmt::format("{}: evaluator got {} values for {} arguments", label, args.size(), call.args.size()));
  return (*fn)(call, args);
}

Result<Value> evaluateOp(const std::string& opName, const std::vector<Value>& args, AttrsRef attrs, std::vector<StructInfo> sinfoArgs) {
  if (!findOp(opName)) return Error(fmt::format("unknown op '{}'", opName));
  std::vector<Expr> exprs;
  for (auto& a : args) exprs.push_back(valueToExpr(a));
  Expr call = makeCall(opName, std::move(exprs), std::move(attrs), std::move(sinfoArgs));
  BlockBuilder bb;
  RLX_TRY(normalized, bb.normalize(call));
  auto c = normalized.as<Call>();
  if (!c) return Error(fmt::format("{}: normalization did not keep a call", opName));
  return evaluateCall(*c, args);
}

// ---------------------------------------------------------------- Expr <-> Value
std::optional<Value> constantValue(const Expr& e) {
  if (!e) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::Constant:
      return Value::ofTensor(e.as<Constant>()->data);
    case NodeKind::Tuple: {
      std::vector<Value> fields;
      for (auto& f : e.as<Tuple>()->fields) {
        auto v = constantValue(f);
        if (!v) return std::nullopt;
        fields.push_back(std::move(*v));
      }
      return Value::ofTuple(std::move(fields));
    }
    case NodeKind::ShapeExpr: {
      std::vector<int64_t> dims;
      for (auto& d : e.as<ShapeExpr>()->values) {
        auto imm = d.as<IntImm>();
        if (!imm) return std::nullopt;
        dims.push_back(imm->value);
      }
      return Value::ofShape(std::move(dims));
    }
    case NodeKind::PrimValue: {
      const PrimExpr& p = e.as<PrimValue>()->value;
      if (auto imm = p.as<IntImm>()) return Value::ofInt(imm->value, imm->dtype);
      if (auto imm = p.as<FloatImm>()) return Value::ofFloat(imm->value, imm->dtype);
      return std::nullopt;
    }
    case NodeKind::StringImm:
      return Value::ofStr(e.as<StringImm>()->value);
    case NodeKind::DataTypeImm:
      return Value::ofDType(e.as<DataTypeImm>()->value);
    default:
      return std::nullopt;
  }
}

Expr valueToExpr(const Value& v) {
  Expr out;
  switch (v.kind) {
    case Value::Tensor: {
      std::vector<PrimExpr> dims;
      for (auto d : v.tensor->shape) dims.push_back(intImm(d));
      out = make<Constant>(v.tensor);
      out->sinfo = tensorSInfo(std::move(dims), v.tensor->dtype);
      return out;
    }
    case Value::Tuple: {
      std::vector<Expr> fields;
      std::vector<StructInfo> sinfos;
      for (auto& f : v.fields) {
        fields.push_back(valueToExpr(f));
        if (!fields.back()) return nullptr;
        sinfos.push_back(fields.back()->sinfo);
      }
      out = make<Tuple>(std::move(fields));
      out->sinfo = make<TupleSInfo>(std::move(sinfos));
      return out;
    }
    case Value::Shape: {
      std::vector<PrimExpr> dims;
      for (auto d : v.shape) dims.push_back(intImm(d));
      out = make<ShapeExpr>(dims);
      out->sinfo = make<ShapeSInfo>(std::move(dims), 0);
      return out;
    }
    case Value::Prim: {
      PrimExpr p = v.dtype.isFloat() ? floatImm(v.f, v.dtype) : intImm(v.i, v.dtype);
      out = make<PrimValue>(p);
      out->sinfo = make<PrimSInfo>(v.dtype, p);
      return out;
    }
    case Value::Str:
      out = make<StringImm>(v.str);
      out->sinfo = objectSInfo();
      return out;
    case Value::DType:
      out = make<DataTypeImm>(v.dtype);
      out->sinfo = objectSInfo();
      return out;
    case Value::Closure:
      return nullptr;  // a function value has no constant expression
  }
  return out;
}

}  // namespace rlx
