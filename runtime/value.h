// The values a VM register holds: integers, floats, dtypes, strings, tensors (views into storage),
// storage blocks, shapes, tuples, closures and function references — one small tagged struct.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/ndarray.h"
#include "ir/object.h"

namespace rlx {
struct Value;
}

namespace rlx::vm {

// Base of the heap objects only the VM creates (tuples, strings, closures). Reference counted
// like IR nodes; kept apart from Object so the IR's node-kind list stays the IR's.
class RtObject {
 public:
  RtObject() = default;
  RtObject(const RtObject&) = delete;
  RtObject& operator=(const RtObject&) = delete;
  virtual ~RtObject() = default;
  // For error messages of values of kind Object ("a KV cache of 3 rows").
  virtual std::string describe() const { return "an object"; }
  void incRef() const { ++refs_; }
  void decRef() const {
    if (--refs_ == 0) delete this;
  }

 private:
  mutable uint32_t refs_ = 0;
};

struct Value {
  enum Kind : uint8_t { Null, Int, Float, DType, Func, Str, Tensor, Storage, Shape, Tuple, Closure, Object };
  Kind kind = Null;
  union {
    int64_t i = 0;  // Int (bool included), Func (function table index), Storage (the VM's block index)
    double f;       // Float
    DataType dt;    // DType
  };
  NDArrayRef array;  // Tensor; Storage (a uint8 array); Shape (an int64 vector)
  Ref<RtObject> obj;  // Str, Tuple, Closure, Object

  Value() {}
  static Value ofInt(int64_t v);
  static Value ofFloat(double v);
  static Value ofDType(DataType t);
  static Value ofFunc(int64_t index);
  static Value ofStr(std::string s);
  static Value ofTensor(NDArrayRef a);
  static Value ofStorage(NDArrayRef bytes);
  static Value ofShape(const std::vector<int64_t>& dims);
  static Value ofTuple(std::vector<Value> fields);
  static Value ofClosure(int64_t func, std::vector<Value> captured);
  // An opaque runtime object builtins create and take back (R.Object values: a KV cache).
  static Value ofObject(Ref<RtObject> o);

  // Accessors for a value known to be of that kind (the callers check kind first).
  const std::string& str() const;
  const std::vector<Value>& fields() const;
  const int64_t* shapeData() const { return array->as<int64_t>(); }
  int64_t shapeSize() const { return array->shape[0]; }
  std::vector<int64_t> shapeDims() const;
  int64_t closureFunc() const;
  const std::vector<Value>& closureCaptured() const;

  // "a float32 tensor of shape (2, 3)", "a shape (2, 3)", "a tuple of 2 fields", ...
  std::string describe() const;
};

class TupleObj final : public RtObject {
 public:
  explicit TupleObj(std::vector<Value> f) : fields(std::move(f)) {}
  std::vector<Value> fields;
};

class StrObj final : public RtObject {
 public:
  explicit StrObj(std::string v) : value(std::move(v)) {}
  std::string value;
};

class ClosureObj final : public RtObject {
 public:
  ClosureObj(int64_t f, std::vector<Value> c) : func(f), captured(std::move(c)) {}
  int64_t func;
  std::vector<Value> captured;
};

// Conversions to and from the reference evaluator's values (inputs, outputs, oracles).
Value fromEvalValue(const rlx::Value& v);
// Errors (as a message) for values the evaluator has no form for (storage, closures, functions).
bool toEvalValue(const Value& v, rlx::Value& out, std::string& error);

}  // namespace rlx::vm
