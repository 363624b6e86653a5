// What an op converter sees and uses: the node's inputs (Relax values with what is statically known
// about them), its attributes with defaults, and emission helpers that bind, infer and fold calls.
// Converters register per (domain, op type, since versions); see registry.cc for dispatch.
#pragma once
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/onnx/proto.h"
#include "ir/block_builder.h"
#include "ir/op.h"
#include "passes/op_builder.h"

namespace rlx::onnx {

using build::KwArgs;

// A converter's complaint about its node (bad attribute, unsupported case); the importer adds the
// node's name, op type and the file.
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& message);

// One ONNX value in the graph: a Relax expression (null for an absent optional input), plus, for
// 1-D integer tensors that carry shapes, the symbolic value of each element when known (the
// "shape value": known ints, symbolic dims, or nothing = only known at run time).
struct OValue {
  Expr expr;
  std::optional<std::vector<PrimExpr>> elems;
  NDArrayRef known;  // the value of an initializer kept as a parameter (for shape logic)
  // The graph inputs this value is computed from (empty for constants): a converter that needs
  // the value at import names them as inputs to specialize on.
  std::vector<std::string> fromInputs;
  bool present() const { return bool(expr); }
};

class GraphImporter;

class NodeCtx {
 public:
  NodeCtx(GraphImporter& g, const ::onnx::NodeProto& n, int since, int opset, std::vector<OValue> inputs);
  const ::onnx::NodeProto& node;
  int since;  // the since_version of the schema this node follows
  int opset;  // the model's opset for the node's domain

  // ---- inputs
  size_t numInputs() const { return inputs_.size(); }
  bool has(size_t i) const { return i < inputs_.size() && inputs_[i].present(); }
  const OValue& in(size_t i) const;
  Expr x(size_t i) const { return in(i).expr; }
  // Struct info of input i as a tensor (fails when it is not one).
  const TensorSInfo& tensor(size_t i) const;
  int ndim(size_t i) const;               // fails when unknown
  DataType dtype(size_t i) const;
  std::vector<PrimExpr> dims(size_t i) const;  // fails when unknown
  // Dim k of input i (k < 0 counts from the end); fails when the input has no such dim.
  PrimExpr dim(size_t i, int64_t k) const;
  // The array of a constant input, or null.
  NDArrayRef constant(size_t i) const;
  // The integer elements of a constant input (any rank), or nullopt.
  std::optional<std::vector<int64_t>> constInts(size_t i) const;
  std::vector<int64_t> requireInts(size_t i, const char* what) const;
  std::optional<double> constScalar(size_t i) const;
  // The elements of a 1-D integer input as PrimExprs: known ints, symbolic dims, or, for a value
  // only known at run time (of known length), fresh size vars bound by tensor_to_shape + match_cast.
  std::optional<std::vector<PrimExpr>> shapeValue(size_t i);
  // The elements of input i when known at import (a shape value's, or a constant's), without
  // shapeValue's run-time fallback.
  std::optional<std::vector<PrimExpr>> knownValue(size_t i) const;
  // Whether an element of a shape value is only known at run time (see shapeValue).
  bool isRunTimeDim(const PrimExpr& e) const;

  // ---- attributes
  bool hasAttr(const char* name) const;
  int64_t i(const char* name, int64_t def) const;
  std::optional<int64_t> iOpt(const char* name) const;
  double f(const char* name, double def) const;
  std::string s(const char* name, const std::string& def) const;
  std::vector<int64_t> ints(const char* name, std::vector<int64_t> def = {}) const;
  std::optional<std::vector<int64_t>> intsOpt(const char* name) const;
  // A per-axis attribute (strides, pads, ...): `count` copies of `def` when absent, and a failure
  // when present with another number of values.
  std::vector<int64_t> ints(const char* name, size_t count, int64_t def) const;
  std::vector<double> floats(const char* name) const;
  const ::onnx::AttributeProto* attr(const char* name) const;
  NDArrayRef tensorAttr(const char* name) const;

  // ---- building
  // R.<name>(args, kwargs) through the op schema, normalized and bound to a fresh var; folded to
  // a constant at import time when every argument is constant.
  Expr op(const std::string& name, std::vector<PyValue> args, KwArgs kwargs = {});
  // Binds an arbitrary expression (tuple item, shape expr...); leaves come back unchanged.
  Expr emit(const Expr& e);
  Expr constant(NDArrayRef a) const;
  Expr scalar(double v, DataType t) const;
  Expr ints64(const std::vector<int64_t>& v) const;  // a 1-D int64 constant
  // A tensor input converted to dtype t (no-op when it already is).
  Expr cast(const Expr& e, DataType t);
  GraphImporter& graph() { return g_; }

 private:
  GraphImporter& g_;
  std::vector<OValue> inputs_;
};

// Shorthands for converters.
inline PyValue ex(Expr e) { return PyValue::ofExpr(std::move(e)); }
using build::b;
using build::f;
using build::i;
using build::ints;
using build::s;
PyValue primValue(PrimExpr e);
// A conv or pool's ONNX pads (all begins, then all ends) after its auto_pad attribute, for the
// spatial sizes `in` (ops_nn.cc).
std::vector<int64_t> padsOf(NodeCtx& c, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& dilations);
// A dim that must be a known int at import (`what` names it in the error).
int64_t knownDim(const PrimExpr& e, const char* what);
// (B, S, heads * D) -> (B, heads, S, D), for the attention ops (ops_attention.cc).
Expr splitHeads(NodeCtx& c, Expr x, int64_t heads);
// ONNX's Cast of `x` to `t` (ops_shape.cc): R.astype, composed with a where on |x| where ONNX's
// conversion differs from it (ir/minifloat.h): saturate=1 maps e5m2's infinities to ±max,
// saturate=0 turns values past the largest into inf or NaN; float8_e8m0fnu's round_mode "down"
// and "nearest" (R.astype rounds up).
Expr castAs(NodeCtx& c, const Expr& x, DataType t, bool saturate = true, const std::string& roundMode = "up");
// An ONNX axis in [-rank, rank) as a non-negative one; out of range fails the node.
int64_t normAxis(int64_t axis, int64_t rank);
Expr shapeExpr(const std::vector<PrimExpr>& dims);
// A 1-D int64 tensor holding `elems` (ops_shape.cc): a constant when all are ints, else built from
// a shape; the value carries the elements.
OValue shapeTensor(NodeCtx& c, const std::vector<PrimExpr>& elems);
StructInfo sinfoOfExpr(const Expr& e);
const TensorSInfo* tensorInfo(const Expr& e);

// Converters return the node's outputs in order (fewer than declared = the rest are absent).
using Outputs = std::vector<OValue>;
using Converter = std::function<Outputs(NodeCtx&)>;
// Registers `fn` for (domain, opType) at the given since versions (empty = every version the ONNX
// schema history lists for that op: only for ops whose revisions changed types, not semantics).
void registerConverter(const std::string& domain, const std::string& opType, std::vector<int> sinceVersions, Converter fn);
inline void onnxOp(const std::string& opType, std::vector<int> versions, Converter fn) { registerConverter("", opType, std::move(versions), std::move(fn)); }

// One per family file (ops_*.cc).
void registerElementwiseConverters();
void registerMathConverters();
void registerShapeConverters();
void registerTensorConverters();
void registerReduceConverters();
void registerNNConverters();
void registerLossConverters();
void registerSequenceConverters();
void registerControlConverters();
void registerRecurrentConverters();
void registerQuantizeConverters();
void registerAttentionConverters();
void registerMiscConverters();
void registerTrainingConverters();
void registerDataDependentConverters();
void registerResizeConverters();
void registerContribConverters();
void registerSignalConverters();

}  // namespace rlx::onnx
