// OptimizeLayoutTransform (TVM v0.23's): a layout_transform whose input is another layout_transform
// and whose index map undoes the first one's reads the first one's input instead; bindings left
// unused go. Before: `b = lt(x, i -> (i // 4, i % 4)); c = lt(b, (a0, a1) -> (a0 * 4 + a1,))`
// After: `c = x`. The maps must provably compose to the identity: symbolically, or, for static
// shapes up to 4096 elements, at every index. Padding (pad_value) and axis separators block it.
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

struct IndexMap {
  std::vector<Ref<PrimVar>> params;
  std::vector<PrimExpr> results;
};

// The index map of a plain layout_transform call (no padding, no axis separators).
std::optional<IndexMap> plainIndexMap(const Expr& e) {
  auto c = e.as<Call>();
  if (!c || c->opName() != "relax.layout_transform" || c->args.size() != 1) return std::nullopt;
  if (auto* pad = ops::findAttr(*c, "pad_value"); pad && *pad) return std::nullopt;
  for (const char* key : {"axis_separators", "input_axis_separators"})
    if (auto* sep = ops::findAttr(*c, key); sep && *sep && !(*sep)->array.empty()) return std::nullopt;
  auto* m = ops::findAttr(*c, "index_map");
  if (!m || !*m || (*m)->array.size() != 2) return std::nullopt;
  IndexMap out;
  for (auto& p : (*m)->array[0]->array) {
    auto v = p && p->kind == AttrValue::Prim ? p->prim.as<PrimVar>() : Ref<PrimVar>();
    if (!v) return std::nullopt;
    out.params.push_back(v);
  }
  for (auto& r : (*m)->array[1]->array) {
    if (!r || r->kind != AttrValue::Prim) return std::nullopt;
    out.results.push_back(r->prim);
  }
  return out;
}

// second(first(idx)) for symbolic or constant idx; empty when the arities do not fit.
std::optional<std::vector<PrimExpr>> compose(const IndexMap& first, const IndexMap& second, const std::vector<PrimExpr>& idx) {
  if (idx.size() != first.params.size() || first.results.size() != second.params.size()) return std::nullopt;
  PrimVarMap in, mid;
  for (size_t k = 0; k < idx.size(); ++k) in[first.params[k].get()] = idx[k];
  for (size_t k = 0; k < first.results.size(); ++k) mid[second.params[k].get()] = primSubstitute(first.results[k], in);
  std::vector<PrimExpr> out;
  for (auto& r : second.results) out.push_back(primSubstitute(r, mid));
  return out;
}

bool composesToIdentity(const IndexMap& first, const IndexMap& second, const Expr& input) {
  std::vector<PrimExpr> vars(first.params.begin(), first.params.end());
  auto sym = compose(first, second, vars);
  if (!sym || sym->size() != vars.size()) return false;
  bool proven = true;
  for (size_t k = 0; k < vars.size(); ++k) proven = proven && proveEqual((*sym)[k], vars[k]);
  if (proven) return true;
  // Static shapes: check every index (the simplifier does not know every div/mod identity).
  auto t = sinfoOf(input).as<TensorSInfo>();
  if (!t || !t->dims() || t->dims()->size() != vars.size()) return false;
  std::vector<int64_t> extents;
  int64_t total = 1;
  for (auto& d : *t->dims()) {
    auto c = constInt(d);
    if (!c || *c < 0) return false;
    extents.push_back(*c);
    total *= *c;
    if (total > 4096) return false;
  }
  std::vector<int64_t> idx(extents.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    std::vector<PrimExpr> at;
    for (size_t k = 0; k < idx.size(); ++k) at.push_back(intImm(idx[k], vars[k]->dtype));
    auto got = compose(first, second, at);
    for (size_t k = 0; k < idx.size(); ++k)
      if (constInt((*got)[k]) != idx[k]) return false;
    for (size_t k = idx.size(); k-- > 0;) {  // next index, last dim fastest
      if (++idx[k] < extents[k]) break;
      idx[k] = 0;
    }
  }
  return true;
}

class TransformPairRemover : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef& binding, const Expr& value) override {
    auto outer = plainIndexMap(value);
    if (!outer) return nullptr;
    Expr innerCall = boundValue(value.as<Call>()->args[0]);
    auto inner = plainIndexMap(innerCall);
    if (!inner) return nullptr;
    Expr input = innerCall.as<Call>()->args[0];
    if (!sinfoEqual(sinfoOf(input), sinfoOf(binding->var))) return nullptr;
    return composesToIdentity(*inner, *outer, input) ? input : nullptr;
  }
};

}  // namespace

Result<Pass> createOptimizeLayoutTransformPass(PassOptions&) {
  return makeRewriteCallPassSubstitutingAliases({"OptimizeLayoutTransform", 0, {}}, [](const Ref<Function>&) -> std::unique_ptr<BindingRewriter> { return std::make_unique<TransformPairRemover>(); });
}

}  // namespace rlx
