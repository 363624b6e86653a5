// CombineParallelMatmul: merges matmuls that share their left operand into one matmul against the
// concatenated right operands, split back afterwards (TVM's relax CombineParallelMatmul, default
// check_fn); CombineParallelDense is Relay's name for it with a branch minimum (3 by default).
// Why: one large GEMM (the Q/K/V projections of attention) uses the machine better than several.
// Per dataflow block and left operand x, the branches are `m_i = R.matmul(x, w_i)`, optionally
// followed by `R.add(m_i, b_i)` and an activation (relu, gelu, gelu_tanh, silu) — fused into the
// combined computation only when every branch has them alike (the same bias rank, the same
// activation); otherwise they stay after the split. Branches are grouped by the rank of w_i; a
// group merges when its w_i have provably equal batch dims (all but the last two), w_i is at least
// 2-D, the results share a dtype, and at most one w_i has a symbolic last dim (it goes last). Then
//   lv = R.concat((w_0, w_1, ...), axis=-1 of w); lv1 = R.matmul(x, lv, out_dtype=<result dtype>)
//   [lv2 = R.add(lv1, R.concat((b_0, b_1, ...), axis=-1 of b))] [activation]
//   s = R.split(..., indices_or_sections=<running widths>, axis=-1 of the result); out_i = s[i]
// placed where the first branch was. A bias is fused only when its last dim is its branch's width
// (a broadcast bias cannot be concatenated). Unused bindings are removed afterwards.
#include <algorithm>
#include <map>

#include "ir/arith.h"
#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "passes/combine_parallel.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

const char* const kActivations[] = {"relax.nn.relu", "relax.nn.gelu", "relax.nn.gelu_tanh", "relax.nn.silu"};

const std::vector<PrimExpr>* dimsOf(const Expr& e) {
  auto t = sinfoOf(e).as<TensorSInfo>();
  return t ? t->dims() : nullptr;
}

// One matmul and what follows it in its block.
struct Branch {
  VarRef matmul, add, addAct, directAct;  // bound vars (null when absent)
  Expr lhs, rhs, bias;
  std::string addActOp, directActOp;
  int biasNdim = -1;
  DataType dtype;
};

class MatmulCombiner {
 public:
  explicit MatmulCombiner(int64_t minBranches) : minBranches_(std::max<int64_t>(minBranches, 2)) {}

  std::vector<ParallelCombination> plan(const BindingBlock& block) const {
    // The first binding (in block order) that applies `op` to var v, by v.
    std::map<std::pair<const Var*, std::string>, size_t> firstUse;
    for (size_t k = 0; k < block.bindings.size(); ++k) {
      auto c = block.bindings[k]->value.as<Call>();
      if (!c || block.bindings[k]->isMatchCast()) continue;
      for (auto& a : c->args)
        if (auto v = a.as<Var>()) firstUse.emplace(std::make_pair(v.get(), c->opName()), k);
    }
    auto use = [&](const VarRef& v, const std::string& op) -> const Binding* {
      auto it = firstUse.find({v.get(), op});
      return it == firstUse.end() ? nullptr : block.bindings[it->second].get();
    };

    std::vector<const Var*> lhsOrder;
    std::map<const Var*, std::vector<Branch>> groups;
    for (auto& b : block.bindings) {
      auto c = b->value.as<Call>();
      if (b->isMatchCast() || !c || c->opName() != "relax.matmul" || c->args.size() != 2) continue;
      auto x = c->args[0].as<Var>();
      auto out = sinfoOf(b->var).as<TensorSInfo>();
      if (!x || !c->args[1].as<Var>() || !out || out->dtype.isVoid()) continue;
      Branch br;
      br.matmul = b->var;
      br.lhs = c->args[0];
      br.rhs = c->args[1];
      br.dtype = out->dtype;
      if (const Binding* add = use(b->var, "relax.add")) {
        auto ac = add->value.as<Call>();
        Expr other = ac->args[0].get() == b->var.get() ? ac->args[1] : ac->args[0];
        if (other.get() != b->var.get() && (other.is<Var>() || other.is<Constant>())) {
          br.add = add->var;
          br.bias = other;
          if (auto bt = sinfoOf(other).as<TensorSInfo>()) br.biasNdim = bt->ndim;
          for (auto* act : kActivations)
            if (const Binding* a = use(add->var, act)) {
              br.addAct = a->var;
              br.addActOp = act;
              break;
            }
        }
      }
      for (auto* act : kActivations)
        if (const Binding* a = use(b->var, act)) {
          br.directAct = a->var;
          br.directActOp = act;
          break;
        }
      if (!groups.count(x.get())) lhsOrder.push_back(x.get());
      groups[x.get()].push_back(br);
    }

    std::vector<ParallelCombination> out;
    for (auto* x : lhsOrder) {
      auto& branches = groups[x];
      if (int64_t(branches.size()) < minBranches_) continue;
      // What every branch has alike gets fused (TVM's branch info); an add of two branches is no bias.
      auto isBranch = [&](const Expr& v) {
        return std::any_of(branches.begin(), branches.end(), [&](const Branch& b) { return b.matmul.get() == v.get(); });
      };
      bool useBias = std::all_of(branches.begin(), branches.end(), [&](const Branch& b) {
        return b.add && b.biasNdim >= 1 && b.biasNdim == branches[0].biasNdim && !isBranch(b.bias);
      });
      std::string act;
      if (useBias && std::all_of(branches.begin(), branches.end(), [&](const Branch& b) { return b.addAct && b.addActOp == branches[0].addActOp; }))
        act = branches[0].addActOp;
      if (!useBias && std::all_of(branches.begin(), branches.end(), [&](const Branch& b) { return b.directAct && b.directActOp == branches[0].directActOp; }))
        act = branches[0].directActOp;
      std::map<size_t, std::vector<const Branch*>> byRank;
      bool shapesKnown = true;
      for (auto& b : branches) {
        auto d = dimsOf(b.rhs);
        if (!d) shapesKnown = false;
        else byRank[d->size()].push_back(&b);
      }
      if (!shapesKnown) continue;
      for (auto& [rank, members] : byRank)
        if (auto combo = combine(rank, members, useBias, act)) out.push_back(*combo);
    }
    return out;
  }

 private:
  std::optional<ParallelCombination> combine(size_t rank, std::vector<const Branch*> members, bool useBias, const std::string& act) const {
    if (rank < 2 || members.size() < 2) return std::nullopt;
    auto& first = *dimsOf(members[0]->rhs);
    for (auto* m : members) {
      auto& d = *dimsOf(m->rhs);
      for (size_t k = 0; k + 2 < rank; ++k)
        if (!proveEqual(d[k], first[k])) return std::nullopt;  // batch dims differ: none of them merge
    }
    // Static widths first; one symbolic width at most, last (split needs constant indices).
    auto width = [&](const Branch* b) { return dimsOf(b->rhs)->back(); };
    std::stable_sort(members.begin(), members.end(), [&](const Branch* a, const Branch* b) { return !asIntImm(width(a)) < !asIntImm(width(b)); });
    auto dyn = std::find_if(members.begin(), members.end(), [&](const Branch* b) { return !asIntImm(width(b)); });
    if (dyn != members.end()) members.erase(dyn + 1, members.end());
    if (int64_t(members.size()) < minBranches_) return std::nullopt;
    for (auto* m : members)
      if (m->dtype != members[0]->dtype) return std::nullopt;
    if (useBias) {
      auto b0 = dimsOf(members[0]->bias);
      for (auto* m : members) {
        auto bd = dimsOf(m->bias);
        if (!bd || !b0 || bd->size() != b0->size() || !proveEqual(bd->back(), width(m))) return std::nullopt;
        for (size_t k = 0; k + 1 < bd->size(); ++k)
          if (!proveEqual((*bd)[k], (*b0)[k])) return std::nullopt;
      }
    }
    std::vector<Expr> rhs, bias;
    std::vector<int64_t> sections;
    int64_t running = 0;
    ParallelCombination combo;
    for (size_t k = 0; k < members.size(); ++k) {
      rhs.push_back(members[k]->rhs);
      if (useBias) bias.push_back(members[k]->bias);
      if (k + 1 < members.size()) sections.push_back(running += asIntImm(width(members[k]))->value);
      const Branch& b = *members[k];
      combo.outputs.push_back(!act.empty() ? (useBias ? b.addAct : b.directAct) : useBias ? b.add : b.matmul);
    }
    const Expr& lhs = members[0]->lhs;
    auto lhsSInfo = sinfoOf(lhs).as<TensorSInfo>();
    if (!lhsSInfo || lhsSInfo->ndim < 1) return std::nullopt;
    Expr out = call("matmul", {e(lhs), e(call("concat", {e(make<Tuple>(rhs))}, {{"axis", i(int64_t(rank) - 1)}}))},
                    {{"out_dtype", s(members[0]->dtype.str())}});
    if (useBias) out = call("add", {e(out), e(call("concat", {e(make<Tuple>(bias))}, {{"axis", i(int64_t(dimsOf(bias[0])->size()) - 1)}}))});
    if (!act.empty()) out = call(act.substr(std::string("relax.").size()), {e(out)});
    int64_t axis = std::max<int64_t>(lhsSInfo->ndim, int64_t(rank)) - 1;
    combo.combined = call("split", {e(out), ints(sections)}, {{"axis", i(axis)}});
    return combo;
  }

  int64_t minBranches_;
};

// CombineParallelMatmul takes TVM's options (only check_fn, a Python callback text cannot express);
// CombineParallelDense takes Relay's min_num_branches.
Result<Pass> makeCombinePass(const char* name, int optLevel, PassOptions& options, std::optional<int64_t> defaultMin) {
  int64_t minBranches = defaultMin ? options.integer("min_num_branches").value_or(*defaultMin) : 2;
  if (minBranches < 1) return Error(std::string(name) + ": min_num_branches must be at least 1");
  MatmulCombiner combiner(minBranches);
  return makeFunctionPass({name, optLevel, {}}, [combiner](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    return combineParallelBranches(func, [&](const BindingBlock& b) { return combiner.plan(b); });
  });
}

}  // namespace

Result<Pass> createCombineParallelMatmulPass(PassOptions& options) { return makeCombinePass("CombineParallelMatmul", 0, options, std::nullopt); }
Result<Pass> createCombineParallelDensePass(PassOptions& options) { return makeCombinePass("CombineParallelDense", 4, options, 3); }

}  // namespace rlx
