// RemoveUnusedOutputs: a private function returning a tuple stops returning the fields no caller
// reads (TVM's pass). Why: the work producing them becomes dead in the callee, and DCE removes it.
// A field counts as read when some caller takes `t[i]` of the call's result (through any chain of
// aliases); any other use of the tuple reads all fields. The callee returns the fields still read
// (one field alone, not a 1-tuple); each call becomes a tuple of the new result's parts, with a
// NaN R.prim_value where a dropped field was, and CanonicalizeBindings plus DeadCodeElimination
// fold the `t[i]` accesses and drop what is left unused.
// Before: `def f(): return (a, b)` (private) and `y = f(); z = y[0]`   After: `def f(): return a`, `z = f()`.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "passes/registry.h"
#include "passes/signature_change.h"

namespace rlx {

namespace {

// Which fields of each candidate's result some caller reads.
class UsageCollector {
 public:
  explicit UsageCollector(std::map<std::string, std::vector<bool>> masks) : masks_(std::move(masks)) {}
  std::map<std::string, std::vector<bool>> masks() const { return masks_; }

  void visit(const Expr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar:
        if (auto* mask = calleeMask(e))
          for (size_t i = 0; i < mask->size(); ++i) (*mask)[i] = true;
        break;
      case NodeKind::TupleGetItem: {
        auto& t = static_cast<const TupleGetItem&>(*e);
        if (auto* mask = calleeMask(t.tuple)) {
          if (t.index >= 0 && size_t(t.index) < mask->size()) (*mask)[size_t(t.index)] = true;
        } else {
          visit(t.tuple);
        }
        break;
      }
      case NodeKind::Call: {
        auto& c = static_cast<const Call&>(*e);
        visit(c.op);
        for (auto& a : c.args) visit(a);
        break;
      }
      case NodeKind::Tuple:
        for (auto& f : static_cast<const Tuple&>(*e).fields) visit(f);
        break;
      case NodeKind::If: {
        auto& i = static_cast<const If&>(*e);
        visit(i.cond);
        visit(i.thenBranch);
        visit(i.elseBranch);
        break;
      }
      case NodeKind::SeqExpr: {
        auto& s = static_cast<const SeqExpr&>(*e);
        for (auto& block : s.blocks)
          for (auto& b : block->bindings) {
            visit(b->value);
            bound_[b->var.get()] = b->value;
          }
        visit(s.body);
        break;
      }
      case NodeKind::Function: visit(static_cast<const Function&>(*e).body); break;
      default: break;
    }
  }

 private:
  std::map<std::string, std::vector<bool>> masks_;
  std::unordered_map<const Var*, Expr> bound_;

  // The usage mask of the candidate whose call `e` is (after following aliases), if any.
  std::vector<bool>* calleeMask(Expr e) {
    if (!sinfoOf(e).is<TupleSInfo>()) return nullptr;
    for (int depth = 0; depth < 1000; ++depth) {
      auto v = e.as<Var>();
      if (!v) break;
      auto it = bound_.find(v.get());
      if (it == bound_.end()) break;
      e = it->second;
    }
    auto call = e.as<Call>();
    if (!call) return nullptr;
    auto gv = call->op.as<GlobalVar>();
    if (!gv) return nullptr;
    auto it = masks_.find(gv->name);
    return it == masks_.end() ? nullptr : &it->second;
  }
};

// The callee returning only the fields in `mask`.
FunctionRef shrinkCallee(const FunctionRef& f, const std::vector<bool>& mask) {
  auto seq = f->body.as<SeqExpr>();
  auto retTuple = f->retSInfo.as<TupleSInfo>();
  auto previous = make<Var>("previous_outputs", f->retSInfo);
  std::vector<BindingRef> bindings{make<Binding>(previous, seq->body)};
  std::vector<Expr> outputs;
  for (size_t i = 0; i < mask.size(); ++i) {
    if (!mask[i]) continue;
    auto item = make<TupleGetItem>(previous, int(i));
    item->sinfo = retTuple->fields[i];
    auto v = make<Var>("output", item->sinfo);
    bindings.push_back(make<Binding>(v, item));
    outputs.push_back(v);
  }
  Expr result = outputs.size() == 1 ? outputs[0] : tupleOf(outputs);
  std::vector<BlockRef> blocks = seq->blocks;
  if (!blocks.empty() && !blocks.back()->isDataflow()) {
    auto merged = blocks.back()->bindings;
    merged.insert(merged.end(), bindings.begin(), bindings.end());
    blocks.back() = make<BindingBlock>(std::move(merged), false);
  } else {
    blocks.push_back(make<BindingBlock>(std::move(bindings), false));
  }
  auto body = make<SeqExpr>(std::move(blocks), result);
  body->sinfo = sinfoOf(result);
  body->span = seq->span;
  return rebuildFunction(*f, f->params, body, sinfoOf(result));
}

}  // namespace

Result<Pass> createRemoveUnusedOutputsPass(PassOptions&) {
  return Pass({"RemoveUnusedOutputs", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    std::map<std::string, std::vector<bool>> candidates;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f || isPublicFunction(*f) || !f->body.is<SeqExpr>()) continue;
      if (auto t = f->retSInfo.as<TupleSInfo>()) candidates[e.gvar->name] = std::vector<bool>(t->fields.size(), false);
    }
    if (candidates.empty()) return mod;
    UsageCollector usage(std::move(candidates));
    for (auto& e : mod->functions)
      if (e.func->kind() == NodeKind::Function) usage.visit(e.func);
    std::map<std::string, CalleeChange> changes;
    for (auto& [name, mask] : usage.masks()) {
      if (std::all_of(mask.begin(), mask.end(), [](bool b) { return b; })) continue;
      CalleeChange change;
      change.func = shrinkCallee(mod->lookup(name).as<Function>(), mask);
      change.rewriteCall = [mask](const Call& call, const GlobalVarRef& gvar, const CalleeChange::Bind& bind) -> Expr {
        size_t used = std::count(mask.begin(), mask.end(), true);
        Expr newCall = bind(make<Call>(gvar, call.args, call.attrs, call.sinfoArgs));
        std::vector<Expr> fields;
        int next = 0;
        for (bool m : mask) {
          if (!m) fields.push_back(make<PrimValue>(floatImm(std::nan(""), DataType::float64())));
          else if (used == 1) fields.push_back(newCall);
          else fields.push_back(make<TupleGetItem>(newCall, next++));
        }
        return make<Tuple>(std::move(fields));
      };
      changes[name] = std::move(change);
    }
    if (changes.empty()) return mod;
    return canonicalizeAndEliminate(applyCalleeChanges(mod, changes));
  });
}

}  // namespace rlx
