// Attribute values of calls, functions and modules: a small tagged value tree (ints, floats, strings,
// dtypes, arrays, maps, typed PrimExprs, Relax expressions), printed the way TVM prints attrs.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "ir/object.h"
#include "ir/prim_expr.h"

namespace rlx {

class ExprNode;
class AttrValue;
using Attr = Ref<AttrValue>;  // null = Python None

class AttrValue final : public Object {
 public:
  // Ctor: a script-level constructor call kept as written, `s` the callee and `array` the arguments
  // (e.g. I.vdevice({...}, 0, "global") in module global infos).
  enum Kind : uint8_t { Bool, Int, Double, Str, DType, Array, Map, Prim, Expr, Ctor };
  explicit AttrValue(Kind k) : Object(NodeKind::AttrValue), kind(k) {}
  ~AttrValue() override;
  static bool classOf(NodeKind k) { return k == NodeKind::AttrValue; }

  Kind kind;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;        // Str
  DataType dtype;       // DType
  std::vector<Attr> array;
  std::vector<std::pair<std::string, Attr>> map;  // kept sorted by key
  PrimExpr prim;        // Prim: a typed FloatImm/IntImm/expression, printed with its type
  Ref<ExprNode> expr;   // Expr: a Relax expression (e.g. R.shape([1]))

  static Attr boolean(bool v);
  static Attr integer(int64_t v);
  static Attr real(double v);
  static Attr str(std::string v);
  static Attr dtypeOf(DataType t);
  static Attr array_(std::vector<Attr> v);
  static Attr ints(const std::vector<int64_t>& v);
  static Attr map_(std::vector<std::pair<std::string, Attr>> v);  // sorts by key
  static Attr primOf(PrimExpr e);
  static Attr exprOf(Ref<ExprNode> e);
  static Attr ctor(std::string callee, std::vector<Attr> args);
};

// An attrs object: fields in declaration order (op attrs) or sorted by key (DictAttrs).
class Attrs final : public Object {
 public:
  Attrs() : Object(NodeKind::Attrs) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Attrs; }
  std::string typeKey;  // "ir.DictAttrs" for dictionaries, else the op's attrs struct name
  std::vector<std::pair<std::string, Attr>> fields;

  const Attr* find(std::string_view key) const {
    for (auto& [k, v] : fields)
      if (k == key) return &v;
    return nullptr;
  }
  bool isDict() const { return typeKey == "ir.DictAttrs"; }
};
using AttrsRef = Ref<Attrs>;

AttrsRef makeDictAttrs(std::vector<std::pair<std::string, Attr>> fields);  // sorts by key
// Returns a copy of `attrs` (or a new dict) with key set to value, keeping key order sorted.
AttrsRef withDictAttr(const AttrsRef& attrs, const std::string& key, Attr value);

// Accessors that tolerate absent fields.
std::optional<int64_t> attrInt(const AttrsRef& a, std::string_view key);
std::optional<std::string> attrStr(const AttrsRef& a, std::string_view key);
// An int, or an array's int and constant-PrimExpr elements, as a list (empty when absent).
std::vector<int64_t> intsOf(const Attr& a);
std::vector<int64_t> attrInts(const AttrsRef& a, std::string_view key);

}  // namespace rlx
