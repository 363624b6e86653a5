// Shared helpers of the op family files: a small registration DSL (params, attr defaults) and the
// struct-info inference building blocks (tensor accessors, axis normalization, broadcasting).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/arith.h"
#include "ir/op.h"

// Propagates the error of a Status-returning expression.
#define RLX_TRY_OK(expr)                                \
  do {                                                  \
    auto rlx_status_ = (expr);                          \
    if (!rlx_status_.ok()) return std::move(rlx_status_.error()); \
  } while (0)

namespace rlx::ops {

// ---------------------------------------------------------------- registration DSL
using Conv = OpParam::Conv;
OpParam arg(std::string name, Conv c = OpParam::AnyExpr);
OpParam optArg(std::string name, Conv c = OpParam::AnyExpr);
OpParam varArgs(std::string name, Conv c = OpParam::AnyExpr);
OpParam attr(std::string name, Conv c, Attr def);  // attr with a default (null Attr = None)
OpParam reqAttr(std::string name, Conv c);         // attr the caller must give

// Attr default values.
inline Attr aInt(int64_t v) { return AttrValue::integer(v); }
inline Attr aInts(const std::vector<int64_t>& v) { return AttrValue::ints(v); }
inline Attr aStr(std::string v) { return AttrValue::str(std::move(v)); }
inline Attr aBool(bool v) { return AttrValue::boolean(v); }
inline Attr aReal(double v) { return AttrValue::real(v); }
Attr aDType(const char* s);  // "float32"; "void" for the unset out_dtype
inline Attr aNone() { return Attr(); }

// Edits a freshly built (unshared) call: attr normalization such as padding expansion.
using FixupFn = std::function<Status(Call& call)>;

// Fluent definition of one op; done() registers it.
class OpDef {
 public:
  explicit OpDef(std::string name);
  OpDef& attrs(std::string typeKey);
  OpDef& params(std::vector<OpParam> p);
  OpDef& attrOrder(std::vector<std::string> order);
  OpDef& infer(InferFn f);
  OpDef& build(BuildFn f);
  OpDef& fixup(FixupFn f);  // the generic builder followed by f
  OpDef& pattern(OpPattern p);
  OpDef& impure();
  OpDef& doc(std::string d);
  void done();

 private:
  OpInfo info_;
};

// The schema-driven builder (op_registry.cc); custom builders call it and then adjust the call.
Result<Ref<Call>> buildGeneric(const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs);
// PyValue conversions shared with custom builders (ctx names the parameter in errors).
Result<Expr> toExpr(const PyValue& v, const std::string& ctx);  // numbers → R.prim_value, lists → Tuple
Result<Expr> toShapeExpr(const PyValue& v, const std::string& ctx);
Result<Expr> toPrimValue(const PyValue& v, const std::string& ctx);
Result<std::vector<int64_t>> toInts(const PyValue& v, const std::string& ctx);  // int or list of ints
Result<StructInfo> toSInfo(const PyValue& v, const std::string& ctx);  // SInfo, or a list → TupleSInfo
Expr makeScalarConst(double v, DataType t);
// Generic Python value → attr conversion (ints, floats, strings, lists, dicts, exprs).
Result<Attr> pyToAttr(const PyValue& v, const std::string& ctx);
// Binds TVMScript values to named Python parameters for custom builders: positional first, then
// keywords. The first `required` names must be given; `sinfo_args` is accepted when allowed.
// Unset parameters are null. Errors: unknown keyword (with suggestion), duplicates, too many.
Result<std::vector<const PyValue*>> bindPy(const std::string& label, const std::vector<std::string>& names, size_t required, const std::vector<PyValue>& args, const std::vector<std::pair<std::string, PyValue>>& kwargs);
// Wraps a call's input list the way TVM's _wrap_inline_arg_tuple does (single expr → 1-tuple).
Result<Expr> wrapArgTuple(const PyValue& v, const std::string& ctx);
// A callee given as a Python string becomes an ExternFunc.
Result<Expr> calleeExpr(const PyValue& v, const std::string& ctx);
// Sets or adds attr field `key` of a call built by buildGeneric.
void setAttr(Call& call, const std::string& key, Attr v);

// ---------------------------------------------------------------- diagnostics
std::string opLabel(const Call& call);  // "R.nn.conv2d"
Error opError(const Call& call, const std::string& msg);  // "R.nn.conv2d: msg"
std::string primStr(const PrimExpr& e);
std::string shapeStr(const std::vector<PrimExpr>& dims);  // "(2, n)"
std::string sinfoStr(const StructInfo& s);

// ---------------------------------------------------------------- attr access
const Attr* findAttr(const Call& call, std::string_view key);  // null when absent
bool attrIsNone(const Call& call, std::string_view key);
int64_t attrInt(const Call& call, std::string_view key, int64_t def = 0);
bool attrBool(const Call& call, std::string_view key, bool def = false);
double attrReal(const Call& call, std::string_view key, double def = 0);
std::string attrString(const Call& call, std::string_view key, std::string def = {});
DataType attrDType(const Call& call, std::string_view key);  // void when absent
std::vector<int64_t> attrInts(const Call& call, std::string_view key);  // int → [int]
std::optional<std::vector<int64_t>> attrOptInts(const Call& call, std::string_view key);
// Whether `call` is R.permute_dims swapping exactly the last two axes of its (>= 2-D) input.
bool swapsLastTwoAxes(const Call& call);

// ---------------------------------------------------------------- struct info access
using TensorRef = Ref<TensorSInfo>;
Status checkArgCount(const Call& call, size_t lo, size_t hi);
Result<TensorRef> tensorArg(const Call& call, size_t i, const char* name);
// The tensors of a tuple argument (a Tuple expr or any expr with tuple struct info).
Result<std::vector<TensorRef>> tensorTupleArg(const Call& call, size_t i, const char* name);
// Shape-typed argument: its ShapeSInfo (error when the arg is not a shape).
Result<Ref<ShapeSInfo>> shapeArg(const Call& call, size_t i, const char* name);
// The PrimValue/prim-typed arg's known value (null when unknown).
PrimExpr primArgValue(const Call& call, size_t i);
// PrimValues of a tuple argument when all are known, else nullopt.
std::optional<std::vector<PrimExpr>> primTupleArg(const Call& call, size_t i);

StructInfo makeTensor(std::vector<PrimExpr> dims, DataType t, const std::string& vdev);
StructInfo makeTensorNdim(DataType t, int ndim, const std::string& vdev);
StructInfo makeShape(std::vector<PrimExpr> dims);
// Same shape and vdevice as `t`, dtype replaced.
StructInfo withDType(const TensorRef& t, DataType d);
// The shape of `t` re-expressed with new dims if known, else by ndim.
StructInfo likeTensor(const TensorRef& t, const std::optional<std::vector<PrimExpr>>& dims, DataType d, int ndim);

// ---------------------------------------------------------------- shape arithmetic
inline PrimExpr i64(int64_t v) { return intImm(v); }
bool isConstInt(const PrimExpr& e, int64_t v);
std::optional<int64_t> asConst(const PrimExpr& e);
PrimExpr shapeProduct(const std::vector<PrimExpr>& dims);
PrimExpr ceilDiv(const PrimExpr& a, const PrimExpr& b);
// True when a != b is provable (both known constants that differ).
bool provablyDifferent(const PrimExpr& a, const PrimExpr& b);

// The permutation from a layout of distinct axis letters ("NHWC", "OIHW") to `canonical`:
// perm[k] = position in `layout` of canonical axis k. Packed layouts ("NCHW4c") are an error.
Result<std::vector<int>> layoutPerm(const Call& call, const std::string& layout, const std::string& canonical, const char* what);
// A layout that may pack an axis ("NCHW4c": C split into C // 4 and an inner c of 4, TVM's
// BijectiveLayout), mapped onto a canonical layout of its primal axes ("NCHW").
struct LayoutMap {
  size_t rank = 0;            // axes of the layout
  std::vector<int> primal;    // per canonical axis: its position in the layout
  std::vector<int> inner;     // per canonical axis: the position of its packed inner axis, or -1
  std::vector<int64_t> factor;  // per canonical axis: the inner axis' size (1 when not packed)
  std::vector<PrimExpr> forward(const std::vector<PrimExpr>& dims) const;    // layout -> canonical
  std::vector<PrimExpr> backward(const std::vector<PrimExpr>& canon) const;  // canonical -> layout
};
Result<LayoutMap> layoutMap(const Call& call, const std::string& layout, const std::string& canonical, const char* what);
Result<int> normalizeAxis(const Call& call, int ndim, int64_t axis);
Result<std::vector<int>> normalizeAxes(const Call& call, int ndim, const std::vector<int64_t>& axes);
// Numpy broadcasting; nullopt when a symbolic pair cannot be decided.
Result<std::optional<std::vector<PrimExpr>>> broadcastShapes(const Call& call, const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b, const char* nameA, const char* nameB);
// Equal dtypes or void when either is unknown; error when both are known and differ.
Result<DataType> binaryDType(const Call& call, DataType a, DataType b, const char* nameA, const char* nameB);
Result<std::string> unifyVDevice(const Call& call, const std::string& a, const std::string& b);
// The dtype of a Tensor or Prim struct info (void otherwise).
DataType dtypeOfSInfo(const StructInfo& s);
// Struct info of an expression that may not be normalized yet (a nested call built by the parser):
// its own sinfo, else the op's inference on (recursively probed) args; R.Object when unknown.
StructInfo probeSInfo(const Expr& e, int depth = 8);

// Common inference rules.
Result<StructInfo> inferUnaryArith(const Call& call, bool requireFloat);
Result<StructInfo> inferSameAsArg0(const Call& call);

}  // namespace rlx::ops
