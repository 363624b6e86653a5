// VM values: constructors, accessors, descriptions for error messages, and the bridge to the
// reference evaluator's values (used for inputs, printing and numerics checks).
#include "runtime/value.h"

#include <fmt/format.h>

#include "ir/eval.h"

namespace rlx::vm {

Value Value::ofInt(int64_t v) { Value r; r.kind = Int; r.i = v; return r; }
Value Value::ofFloat(double v) { Value r; r.kind = Float; r.f = v; return r; }
Value Value::ofDType(DataType t) { Value r; r.kind = DType; r.dt = t; return r; }
Value Value::ofFunc(int64_t index) { Value r; r.kind = Func; r.i = index; return r; }
Value Value::ofStr(std::string s) { Value r; r.kind = Str; r.obj = new StrObj(std::move(s)); return r; }
Value Value::ofTensor(NDArrayRef a) { Value r; r.kind = Tensor; r.array = std::move(a); return r; }
Value Value::ofStorage(NDArrayRef bytes) { Value r; r.kind = Storage; r.array = std::move(bytes); return r; }
Value Value::ofTuple(std::vector<Value> fields) { Value r; r.kind = Tuple; r.obj = new TupleObj(std::move(fields)); return r; }
Value Value::ofClosure(int64_t func, std::vector<Value> captured) {
  Value r;
  r.kind = Closure;
  r.obj = new ClosureObj(func, std::move(captured));
  return r;
}
Value Value::ofObject(Ref<RtObject> o) {
  Value r;
  r.kind = Object;
  r.obj = std::move(o);
  return r;
}
Value Value::ofShape(const std::vector<int64_t>& dims) {
  Value r;
  r.kind = Shape;
  r.array = new NDArray(DataType::int64(), {int64_t(dims.size())});
  std::copy(dims.begin(), dims.end(), r.array->as<int64_t>());
  return r;
}

const std::string& Value::str() const { return static_cast<const StrObj*>(obj.get())->value; }
const std::vector<Value>& Value::fields() const { return static_cast<const TupleObj*>(obj.get())->fields; }
int64_t Value::closureFunc() const { return static_cast<const ClosureObj*>(obj.get())->func; }
const std::vector<Value>& Value::closureCaptured() const { return static_cast<const ClosureObj*>(obj.get())->captured; }
std::vector<int64_t> Value::shapeDims() const { return std::vector<int64_t>(shapeData(), shapeData() + shapeSize()); }

namespace {
std::string dimsText(const int64_t* d, size_t n) {
  std::string s = "(";
  for (size_t k = 0; k < n; ++k) s += (k ? ", " : "") + std::to_string(d[k]);
  return s + (n == 1 ? ",)" : ")");
}
}  // namespace

std::string Value::describe() const {
  switch (kind) {
    case Null: return "null";
    case Int: return fmt::format("the integer {}", i);
    case Float: return fmt::format("the float {}", f);
    case DType: return fmt::format("the dtype {}", dt.str());
    case Func: return "a function";
    case Str: return "a string";
    case Tensor: return fmt::format("a {} tensor of shape {}", array->dtype.str(), dimsText(array->shape.data(), array->shape.size()));
    case Storage: return fmt::format("a storage block of {} bytes", array->shape[0]);
    case Shape: return fmt::format("the shape {}", dimsText(shapeData(), size_t(shapeSize())));
    case Tuple: return fmt::format("a tuple of {} fields", fields().size());
    case Closure: return "a closure";
    case Object: return obj->describe();
  }
  return "a value";
}

Value fromEvalValue(const rlx::Value& v) {
  switch (v.kind) {
    case rlx::Value::Tensor: return Value::ofTensor(v.tensor);
    case rlx::Value::Shape: return Value::ofShape(v.shape);
    case rlx::Value::Prim: return v.dtype.isFloat() ? Value::ofFloat(v.f) : Value::ofInt(v.i);
    case rlx::Value::Str: return Value::ofStr(v.str);
    case rlx::Value::DType: return Value::ofDType(v.dtype);
    case rlx::Value::Tuple: {
      std::vector<Value> fields;
      for (auto& f : v.fields) fields.push_back(fromEvalValue(f));
      return Value::ofTuple(std::move(fields));
    }
    case rlx::Value::Closure: break;  // the evaluator's closures do not cross into the VM
  }
  return Value();
}

bool toEvalValue(const Value& v, rlx::Value& out, std::string& error) {
  switch (v.kind) {
    case Value::Int: out = rlx::Value::ofInt(v.i); return true;
    case Value::Float: out = rlx::Value::ofFloat(v.f); return true;
    case Value::DType: out = rlx::Value::ofDType(v.dt); return true;
    case Value::Str: out = rlx::Value::ofStr(v.str()); return true;
    case Value::Tensor: out = rlx::Value::ofTensor(v.array); return true;
    case Value::Shape: out = rlx::Value::ofShape(v.shapeDims()); return true;
    case Value::Tuple: {
      std::vector<rlx::Value> fields(v.fields().size());
      for (size_t k = 0; k < fields.size(); ++k)
        if (!toEvalValue(v.fields()[k], fields[k], error)) return false;
      out = rlx::Value::ofTuple(std::move(fields));
      return true;
    }
    default: error = fmt::format("{} has no value outside the VM", v.describe()); return false;
  }
}

}  // namespace rlx::vm
