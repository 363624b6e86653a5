// The operator registry: every Relax op is data — its TVMScript parameter schema (which Python
// parameters become Call args and which become attrs, in printed order, with defaults), its
// struct-info inference, fusion pattern and purity. Ops are defined in ir/ops/<family>.cc.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/expr.h"

namespace rlx {

class IRModule;

// A TVMScript call argument as written, before the op decides what it means: Python literals and
// containers, or already-built Relax expressions / PrimExprs (e.g. `n`, `T.float32(0.5)`).
struct PyValue {
  // Ctor: a TVMScript object constructor `s(items...)` kept as an attribute (T.index_map's lambda
  // as [[vars], [results]]).
  enum Kind : uint8_t { None, Bool, Int, Float, Str, List, Tuple, Dict, Expr, Prim, SInfo, Ctor };
  Kind kind = None;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<PyValue> items;                         // List, Tuple, Ctor (s: the callee)
  std::vector<std::pair<std::string, PyValue>> dict;  // Dict (keys as written)
  rlx::Expr expr;                                     // Expr
  PrimExpr prim;                                      // Prim
  StructInfo sinfo;                                   // SInfo: R.Tensor(...), R.Object, ...
  Span span;

  // Special members are out of line: the dict holds PyValues, so the type is incomplete here.
  PyValue();
  ~PyValue();
  PyValue(const PyValue&);
  PyValue(PyValue&&) noexcept;
  PyValue& operator=(const PyValue&);
  PyValue& operator=(PyValue&&) noexcept;

  static PyValue none(Span s = {}) { PyValue v; v.span = s; return v; }
  static PyValue ofExpr(rlx::Expr e, Span s = {}) { PyValue v; v.kind = Expr; v.expr = std::move(e); v.span = s; return v; }
  static PyValue ofInt(int64_t x, Span s = {}) { PyValue v; v.kind = Int; v.i = x; v.span = s; return v; }
  static PyValue ofStr(std::string x, Span s = {}) { PyValue v; v.kind = Str; v.s = std::move(x); v.span = s; return v; }
  std::string describe() const;  // "an int", "a list", "a Relax expression", ... for error messages
};

// Operator fusion pattern kinds (TVM's OpPatternKind values).
enum class OpPattern : int { ElemWise = 0, Broadcast = 1, Injective = 2, CommReduce = 3, OutEWiseFusable = 4, Tuple = 7, Opaque = 8 };

// How one Python parameter of an op maps onto the Call.
struct OpParam {
  enum Role : uint8_t {
    Arg,          // a Relax expression argument: Call.args (Python values converted, see `conv`)
    OptionalArg,  // like Arg, but None/absent means "not passed" (no arg appended)
    VarArgs,      // *args: every remaining positional value becomes an Arg
    Attr,         // an attrs field (printed as a kwarg in declaration order)
  };
  // What Python values are accepted and how they are converted.
  enum Conv : uint8_t {
    AnyExpr,      // Relax expr; a Python tuple/list of exprs becomes a Relax Tuple
    TupleOfExpr,  // Relax Tuple (a single expr is NOT wrapped)
    ShapeArg,     // ShapeExpr: R.shape([..]), or a Python list/tuple of ints/PrimExprs, or a Shape-typed var
    PrimArg,      // PrimValue: a Python number/bool or PrimExpr becomes R.prim_value(..)
    PrimTuple,    // Tuple of PrimValues from a Python list/tuple of numbers/PrimExprs (strided_slice axes)
    ConstArg,     // Relax expr; a Python number becomes R.const(v, <dtype of first tensor arg or default>)
    DTypeArg,     // DataTypeImm from a dtype string or R.dtype(..)
    StrArg,       // StringImm from a Python string or R.str(..)
    // attrs
    IntAttr, OptIntAttr, BoolAttr, DoubleAttr, OptDoubleAttr, StrAttr, OptStrAttr, DTypeAttr,
    IntArrayAttr,     // int or list of ints → array (e.g. axis=1 → [1])
    OptIntArrayAttr,  // like IntArrayAttr, None allowed
    IntOrIntArrayAttr,  // kept as written: int stays int, list stays list (split's indices_or_sections)
    PrimArrayAttr,    // list of PrimExprs / ints printed bare (e.g. output_size with symbolic dims)
    FloatArrayAttr,   // list of floats stored as typed FloatImms (resize2d roi)
    AnyAttr,          // passed through as an AttrValue converted generically
  };
  std::string name;
  Role role = Arg;
  Conv conv = AnyExpr;
  std::optional<rlx::Attr> defaultValue;  // for attrs/optional args; nullopt = required (None is Attr{})
  bool hasDefault = false;
};

struct OpInfo;
// Struct-info inference: given the normalized call (args already have struct info), the inferred
// struct info of the result, or an Error explaining the mismatch (the caller adds the span).
using InferFn = std::function<Result<StructInfo>(const Call& call)>;
// Custom builder for ops whose TVMScript form does not fit the schema (call_tir, print, ...).
using BuildFn = std::function<Result<Expr>(const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs)>;

struct OpInfo {
  std::string name;        // "relax.nn.conv2d"
  std::string attrsType;   // "relax.attrs.Conv2DAttrs"; "" when the op has no attrs
  std::vector<OpParam> params;
  // Attrs field declaration order when it differs from the Python parameter order of `params`
  // (e.g. pooling: Python (pool_size, strides, padding, dilation), attrs (.., dilation, padding)).
  std::vector<std::string> attrOrder;
  InferFn infer;
  BuildFn build;           // null = the generic schema-driven builder
  OpPattern pattern = OpPattern::Opaque;
  bool pure = true;
  std::string doc;         // one line
  // Printed name: "R." + name without the "relax." prefix.
  std::string scriptName() const;
};

// Registry lookups. Names are full ("relax.add").
const OpInfo* findOp(std::string_view name);
const std::vector<const OpInfo*>& allOps();  // sorted by name
OpRef opRef(std::string_view name);          // the shared Op node (RLX_CHECKs the name exists)
// Suggests the closest registered op name (for "did you mean").
std::string suggestOp(std::string_view name);

// Builds a Call of `op` from TVMScript arguments using op.build or the schema; the result has no
// struct info yet (the normalizer infers it).
Result<Expr> buildOpCall(const OpInfo& op, std::vector<PyValue> args, std::vector<std::pair<std::string, PyValue>> kwargs);


// Registration, used by ir/ops/*.cc through the table each family file exports.
void registerOp(OpInfo info);
// Each family file defines one of these; op_registry.cc calls them all once, in order.
void registerStructuralOps();
void registerUnaryOps();
void registerBinaryOps();
void registerCreateOps();
void registerManipulateOps();
void registerIndexOps();
void registerLinalgOps();
void registerStatisticalOps();
void registerSearchOps();
void registerNNOps();
void registerImageOps();
void registerMemoryOps();
void registerDistributedOps();

}  // namespace rlx
