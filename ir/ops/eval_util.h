// Building blocks of the reference evaluator's op implementations (ir/ops/eval_*.cc): output
// allocation from inferred struct info, index iteration, broadcasting, typed element access.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/eval.h"
#include "ir/ops/infer_util.h"

namespace rlx::ops {

using Shape = std::vector<int64_t>;

// Row-major strides of `shape` (in elements).
Shape stridesOf(const Shape& shape);
int64_t numelOf(const Shape& shape);
// Calls fn(index, flat) for every index of `shape` in row-major order (once for a 0-d shape,
// never when a dim is 0). `index` is reused between calls.
void forEachIndex(const Shape& shape, const std::function<void(const Shape& index, int64_t flat)>& fn);
// Flat offset into a tensor of `inShape` for an index of the (broadcast) output shape: dims are
// right-aligned, size-1 input dims repeat.
int64_t broadcastOffset(const Shape& outIndex, const Shape& inShape, const Shape& inStrides);
// Numpy broadcast of two shapes (error text names the op).
Result<Shape> broadcastShape(const Call& call, const Shape& a, const Shape& b);

// The static shape/dtype of the call's inferred result (error when symbolic or not a tensor).
Result<Shape> resultShape(const Call& call);
Result<DataType> resultDType(const Call& call);
// A fresh tensor for the call's tensor result (shape and dtype from its inferred struct info),
// or for field `field` of a tuple result.
Result<NDArrayRef> allocResult(const Call& call);
Result<NDArrayRef> allocResultField(const Call& call, size_t field);
NDArrayRef allocTensor(DataType t, Shape shape);
// Results past this size are refused: folding them would only bloat the module, and a shape built
// from bad input must give an error, never an allocation failure.
constexpr int64_t kMaxResultBytes = int64_t(1) << 30;
// allocTensor guarded for shapes computed from argument values: a negative dimension or a result
// over kMaxResultBytes is an error naming the op.
Result<NDArrayRef> newTensor(const Call& call, DataType t, const Shape& shape);

// Argument accessors with errors naming the op and the parameter.
Result<NDArrayRef> tensorValue(const Call& call, const std::vector<Value>& args, size_t i, const char* name);
Result<std::vector<NDArrayRef>> tensorTupleValue(const Call& call, const std::vector<Value>& args, size_t i, const char* name);
Result<Shape> shapeValue(const Call& call, const std::vector<Value>& args, size_t i, const char* name);
Result<Value> primValueArg(const Call& call, const std::vector<Value>& args, size_t i, const char* name);
// Errors for evaluators: "R.op: msg".
Error evalError(const Call& call, const std::string& msg);
// The single argument unchanged, whatever its kind (identity ops: grad markers, stop_lift_params,
// annotate_sharding, ...); an error unless there is exactly one argument.
Result<Value> evalSameValue(const Call& call, const std::vector<Value>& args);

// The extents an op with an optional `axis` attr works along, and that axis: axis=None views x
// flattened (dims {numel}, axis 0), otherwise x's shape with the attr normalized (an error when out
// of range). Used by take, take_backward and repeat.
struct AxisDims {
  Shape dims;
  int axis = 0;
};
Result<AxisDims> axisOrFlattened(const Call& call, const NDArray& x);

// Element access in the widest type of the dtype's family: floats as double, integers as int64
// (bool as 0/1). Stores round/truncate into the element type (integers wrap like C casts).
inline bool isFloatTensor(const NDArray& t) { return t.dtype.isFloat(); }

// Applies fn elementwise over numpy-broadcast inputs into `out` (whose shape is the broadcast
// shape): `fd` when the computation dtype is float, `fi` when integral (may be null: then fd).
using BinaryF = std::function<double(double, double)>;
using BinaryI = std::function<int64_t(int64_t, int64_t)>;
void broadcastBinary(const NDArray& a, const NDArray& b, NDArray& out, bool computeInFloat, const BinaryF& fd, const BinaryI& fi);
// Applies fn elementwise: float path when the input is float, else integer path.
using UnaryF = std::function<double(double)>;
using UnaryI = std::function<int64_t(int64_t)>;
void mapUnary(const NDArray& in, NDArray& out, const UnaryF& fd, const UnaryI& fi);

// A copy of `t` converted to dtype `to` (float → int truncates toward zero and saturates NaN/inf
// to 0/extremes deterministically; to bool is != 0).
NDArrayRef castTensor(const NDArray& t, DataType to);
// A 0-d tensor holding a prim value (for ops that mix tensors and prim values).
NDArrayRef scalarTensor(const Value& prim);

// Normalizes a possibly negative axis against ndim (no error: callers validated via inference).
inline int normAxis(int64_t axis, int ndim) { return int(axis < 0 ? axis + ndim : axis); }

}  // namespace rlx::ops
