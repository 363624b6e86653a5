// AttrValue constructors and dictionary-attr helpers.
// Dictionary attrs keep keys sorted so printing is deterministic (TVM prints them sorted too).
#include "ir/attrs.h"

#include <algorithm>

#include "ir/expr.h"

namespace rlx {

AttrValue::~AttrValue() = default;

Attr AttrValue::boolean(bool v) {
  auto a = make<AttrValue>(Bool);
  a->b = v;
  return a;
}
Attr AttrValue::integer(int64_t v) {
  auto a = make<AttrValue>(Int);
  a->i = v;
  return a;
}
Attr AttrValue::real(double v) {
  auto a = make<AttrValue>(Double);
  a->d = v;
  return a;
}
Attr AttrValue::str(std::string v) {
  auto a = make<AttrValue>(Str);
  a->s = std::move(v);
  return a;
}
Attr AttrValue::dtypeOf(DataType t) {
  auto a = make<AttrValue>(DType);
  a->dtype = t;
  return a;
}
Attr AttrValue::array_(std::vector<Attr> v) {
  auto a = make<AttrValue>(Array);
  a->array = std::move(v);
  return a;
}
Attr AttrValue::ints(const std::vector<int64_t>& v) {
  std::vector<Attr> items;
  items.reserve(v.size());
  for (auto x : v) items.push_back(integer(x));
  return array_(std::move(items));
}
Attr AttrValue::map_(std::vector<std::pair<std::string, Attr>> v) {
  std::stable_sort(v.begin(), v.end(), [](auto& x, auto& y) { return x.first < y.first; });
  auto a = make<AttrValue>(Map);
  a->map = std::move(v);
  return a;
}
Attr AttrValue::primOf(PrimExpr e) {
  auto a = make<AttrValue>(Prim);
  a->prim = std::move(e);
  return a;
}
Attr AttrValue::exprOf(Ref<ExprNode> e) {
  auto a = make<AttrValue>(Expr);
  a->expr = std::move(e);
  return a;
}

Attr AttrValue::ctor(std::string callee, std::vector<Attr> args) {
  auto a = make<AttrValue>(Ctor);
  a->s = std::move(callee);
  a->array = std::move(args);
  return a;
}

AttrsRef makeDictAttrs(std::vector<std::pair<std::string, Attr>> fields) {
  std::stable_sort(fields.begin(), fields.end(), [](auto& x, auto& y) { return x.first < y.first; });
  auto a = make<Attrs>();
  a->typeKey = "ir.DictAttrs";
  a->fields = std::move(fields);
  return a;
}

AttrsRef withDictAttr(const AttrsRef& attrs, const std::string& key, Attr value) {
  std::vector<std::pair<std::string, Attr>> fields;
  if (attrs) fields = attrs->fields;
  bool found = false;
  for (auto& [k, v] : fields)
    if (k == key) {
      v = value;
      found = true;
    }
  if (!found) fields.emplace_back(key, std::move(value));
  return makeDictAttrs(std::move(fields));
}

std::optional<int64_t> attrInt(const AttrsRef& a, std::string_view key) {
  if (!a) return std::nullopt;
  auto* v = a->find(key);
  if (!v || !*v) return std::nullopt;
  if ((*v)->kind == AttrValue::Int) return (*v)->i;
  if ((*v)->kind == AttrValue::Bool) return (*v)->b ? 1 : 0;
  return std::nullopt;
}

std::vector<int64_t> intsOf(const Attr& a) {
  std::vector<int64_t> out;
  if (!a) return out;
  if (a->kind == AttrValue::Int) return {a->i};
  if (a->kind == AttrValue::Array)
    for (auto& x : a->array) {
      if (!x) continue;
      if (x->kind == AttrValue::Int) out.push_back(x->i);
      else if (x->kind == AttrValue::Prim) {
        if (auto c = asIntImm(x->prim)) out.push_back(c->value);
      }
    }
  return out;
}

std::vector<int64_t> attrInts(const AttrsRef& a, std::string_view key) {
  const Attr* v = a ? a->find(key) : nullptr;
  return v ? intsOf(*v) : std::vector<int64_t>{};
}

std::optional<std::string> attrStr(const AttrsRef& a, std::string_view key) {
  if (!a) return std::nullopt;
  auto* v = a->find(key);
  if (!v || !*v || (*v)->kind != AttrValue::Str) return std::nullopt;
  return (*v)->s;
}

}  // namespace rlx
