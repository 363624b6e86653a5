// ConvertToDataflow(min_size=2): TVM's relax.transform.ConvertToDataflow. Groups runs of at least
// `min_size` consecutive dataflow-safe bindings that sit outside dataflow blocks into dataflow
// blocks, so that later dataflow-only passes (fusion, DCE inside blocks, ...) can see them.
// A binding is dataflow-safe unless its value is an If or an impure call; runs never cross those.
// Existing dataflow blocks join the run around them (a single pure binding next to a dataflow block
// is merged into it, as in TVM).
//
// Why the second step: TVM follows the extraction with CanonicalizeBindings, which is what turns the
// Vars of the new blocks that are used only inside their own block into DataflowVars (the rest stay
// Vars and become the block's R.output), and inlines vars bound to constants at their uses. We
// perform exactly those two parts of that canonicalization here so the printed result matches TVM's.
// (CanonicalizeBindings' removal of trivial `y = x` bindings is not performed: this pass never
// creates such bindings; run CanonicalizeBindings for it.)
//
// Preconditions: a normalized module (every If branch and function body a SeqExpr).
// Before:                          After:
//   z = R.add(x, y)                  with R.dataflow():
//   w = R.multiply(z, y)                 z = R.add(x, y)        # DataflowVar
//   _ = R.print(format="hi")             w = R.multiply(z, y)
//   return w                             R.output(w)
//                                    _ = R.print(format="hi")
//                                    return w
#include <unordered_map>

#include "ir/expr_mutator.h"
#include "ir/op.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// TVM's IsImpureCall: ops by their purity attribute, other callees by their Callable purity.
bool isImpureCall(const Call& c) {
  if (auto op = c.op.as<Op>()) return !op->info->pure;
  if (auto fs = sinfoOf(c.op).as<FuncSInfo>()) return !fs->isPure;
  return true;  // callees without Callable struct info: assume the worst
}

bool isDataflowSafe(const Binding& b) {
  const Expr& v = b.value;
  if (v->kind() == NodeKind::If) return false;
  if (auto c = v.as<Call>()) return !isImpureCall(*c);
  return true;
}

// Step 1: regroup the bindings of every SeqExpr (including those inside If branches and nested
// functions, which the base mutator reaches first).
class DataflowExtractor : public ExprMutator {
 public:
  explicit DataflowExtractor(size_t minSize) : minSize_(minSize) {}

 protected:
  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    Expr body = mutate(s->body);
    bool changed = !body.same(s->body);
    std::vector<BlockRef> blocks;
    std::vector<BindingRef> plain, run;
    bool inRun = false;
    bool runHasDataflow = false;  // the run holds bindings of a pre-existing dataflow block

    auto flushPlain = [&] {
      if (!plain.empty()) blocks.push_back(make<BindingBlock>(std::move(plain), false));
      plain.clear();
    };
    // Ends the current run: big enough runs become a dataflow block, short ones fall back to
    // plain bindings. A run carrying an original dataflow block always stays dataflow because
    // its DataflowVars may not live outside one (TVM would demote it; that IR is ill-formed).
    auto endRun = [&] {
      if (run.size() >= minSize_ || runHasDataflow) {
        flushPlain();
        blocks.push_back(make<BindingBlock>(std::move(run), true));
      } else {
        plain.insert(plain.end(), run.begin(), run.end());
      }
      run.clear();
      inRun = false;
      runHasDataflow = false;
    };

    for (auto& b : s->blocks) {
      BlockRef nb = visitBlock(b);
      changed |= !nb.same(b);
      if (!nb) continue;
      if (nb->isDataflow()) {
        inRun = true;
        runHasDataflow = true;
        run.insert(run.end(), nb->bindings.begin(), nb->bindings.end());
        continue;
      }
      for (auto& binding : nb->bindings) {
        if (isDataflowSafe(*binding)) {
          inRun = true;
          run.push_back(binding);
        } else {
          if (inRun) endRun();
          plain.push_back(binding);
        }
      }
    }
    if (inRun) endRun();
    flushPlain();

    // Unchanged when the regrouping reproduced the original block structure.
    if (!changed && blocks.size() == s->blocks.size()) {
      bool same = true;
      for (size_t i = 0; i < blocks.size() && same; ++i)
        same = blocks[i]->isDataflow() == s->blocks[i]->isDataflow() && blocks[i]->bindings.size() == s->blocks[i]->bindings.size();
      if (same) return s;
    }
    auto out = make<SeqExpr>(std::move(blocks), body);
    out->sinfo = s->sinfo;
    out->span = s->span;
    return out;
  }

 private:
  size_t minSize_;
};

// Step 2 analysis (CanonicalizeBindings' planner, restricted to what step 1 needs): which Vars
// defined in dataflow blocks are used outside their home block, and which vars hold constants.
class UsePlanner {
 public:
  std::unordered_map<const Var*, const BindingBlock*> home;  // Vars (not DataflowVars) defined in dataflow blocks
  std::unordered_map<const Var*, const BindingBlock*> defBlock;
  std::unordered_map<const Var*, bool> usedOutside;
  std::unordered_map<const Var*, Expr> constants;

  void visit(const Expr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: {
        auto v = static_cast<const Var*>(e.get());
        auto it = defBlock.find(v);
        // Used outside any dataflow block, or in a block other than its own.
        if (!current_ || !current_->isDataflow() || (it != defBlock.end() && it->second != current_)) usedOutside[v] = true;
        return;
      }
      case NodeKind::Call: {
        auto c = e.as<Call>();
        visit(c->op);
        for (auto& a : c->args) visit(a);
        return;
      }
      case NodeKind::Tuple:
        for (auto& f : e.as<Tuple>()->fields) visit(f);
        return;
      case NodeKind::TupleGetItem:
        visit(e.as<TupleGetItem>()->tuple);
        return;
      case NodeKind::If: {
        auto i = e.as<If>();
        visit(i->cond);
        visit(i->thenBranch);
        visit(i->elseBranch);
        return;
      }
      case NodeKind::SeqExpr: {
        // Nested sequences (If branches) start outside any block, as in TVM.
        auto s = e.as<SeqExpr>();
        const BindingBlock* saved = current_;
        for (auto& b : s->blocks) {
          current_ = b.get();
          for (auto& binding : b->bindings) {
            visit(binding->value);
            keepShapeVars(sinfoOf(binding->var));
            const Var* v = binding->var.get();
            defBlock[v] = b.get();
            if (b->isDataflow() && !binding->var->isDataflow()) home[v] = b.get();
            if (binding->value->kind() == NodeKind::Constant) constants[v] = binding->value;
          }
        }
        current_ = nullptr;
        visit(s->body);
        current_ = saved;
        return;
      }
      case NodeKind::Function: {
        // A nested function's uses of outer vars are free vars: they count as used outside.
        const BindingBlock* saved = current_;
        current_ = nullptr;
        visit(e.as<Function>()->body);
        current_ = saved;
        return;
      }
      default:
        return;
    }
  }

 private:
  // A var named in another var's struct info (R.Tensor(lv2, ...)) stays a Var: the struct info may
  // travel out of the block with the var that carries it, where a DataflowVar would be out of scope.
  void keepShapeVars(const StructInfo& s) {
    if (auto t = s.as<TensorSInfo>()) {
      if (auto v = t->shape.as<Var>()) usedOutside[v.get()] = true;
    } else if (auto tu = s.as<TupleSInfo>()) {
      for (auto& f : tu->fields) keepShapeVars(f);
    }
  }

  const BindingBlock* current_ = nullptr;
};

// Step 2 rewrite: Var -> DataflowVar at definitions and uses, constants inlined at uses.
class Canonicalizer : public ExprMutator {
 public:
  explicit Canonicalizer(const UsePlanner& plan) : plan_(plan) {
    for (auto& [v, block] : plan.home) {
      if (plan.usedOutside.count(v)) continue;
      auto nv = make<Var>(v->name, v->sinfo, true);
      nv->span = v->span;
      renamed_[v] = nv;
      varMap[v] = nv;
    }
    for (auto& [v, c] : plan.constants) varMap[v] = c;
  }

 protected:
  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    VarRef var = b->var;
    if (auto it = renamed_.find(var.get()); it != renamed_.end()) var = it->second;
    if (var.same(b->var) && value.same(b->value)) return b;
    auto nb = make<Binding>(var, value, b->castSInfo);
    nb->span = b->span;
    return nb;
  }

 private:
  const UsePlanner& plan_;
  std::unordered_map<const Var*, VarRef> renamed_;
};

}  // namespace

Result<Pass> createConvertToDataflowPass(PassOptions& options) {
  int64_t minSize = options.integer("min_size").value_or(2);
  if (minSize < 1) return Error("ConvertToDataflow: min_size must be at least 1, got " + std::to_string(minSize));
  return makeFunctionPass({"ConvertToDataflow", 0, {}}, [minSize](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    DataflowExtractor extract(static_cast<size_t>(minSize));
    Expr out = extract.mutate(func);
    UsePlanner plan;
    plan.visit(out);
    Canonicalizer canon(plan);
    return canon.mutate(out);
  });
}

}  // namespace rlx
