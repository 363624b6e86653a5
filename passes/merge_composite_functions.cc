// MergeCompositeFunctions: TVM's relax.transform.MergeCompositeFunctions. Groups the calls of
// composite functions (FuseOpsByPattern's output) in `main` by codegen: a call joins the group of
// an argument's producer when both go to the same codegen and the join makes no cycle (no other
// argument's group depends on that group); each group becomes a public function
// <fused name>_<codegen> with {Codegen, global_symbol} whose composite calls call local copies of
// the composite functions (without Primitive), so an external codegen gets self-contained regions.
// Unused functions are removed afterwards, as in TVM. Why: one offloaded call per region instead
// of one per matched op. A module without composite calls in main is returned unchanged.
// Before: lv = cls.conv(x, w) [Composite "dnnl.conv2d"]; gv = cls.relu(lv) [Composite "dnnl.relu"]
// After:  gv = cls.fused_relax_conv_relu_dnnl(x, w), a Codegen "dnnl" function calling both.
#include <set>
#include <unordered_map>

#include "ir/expr_walk.h"
#include "passes/call_graph.h"
#include "passes/composite.h"
#include "passes/function_outliner.h"

namespace rlx {

namespace {

// TVM's CompositeGroupsBuilder over union-find groups with a codegen and the groups they depend
// on (directly or not); maps are keyed by representatives.
class CompositeGroups {
 public:
  CompositeGroups(const IRModule& mod, fusion::Grouping& g) : mod_(mod), g_(g) {}
  std::string error;

  bool build(const Function& f) {
    for (auto& p : f.params) add(p.get());
    auto seq = f.body.as<SeqExpr>();
    if (!seq) return false;
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) visit(*b);
    return any_;
  }

  void finish() {
    g_.part.root.resize(parent_.size());
    for (size_t i = 0; i < parent_.size(); ++i) g_.part.root[i] = find(i);
    g_.part.size = size_;
    for (auto& [root, cg] : codegen_)
      if (find(root) == root) g_.attrs[root] = {{"Codegen", AttrValue::str(cg)}};
  }

 private:
  const IRModule& mod_;
  fusion::Grouping& g_;
  std::vector<size_t> parent_, size_;
  std::unordered_map<size_t, std::string> codegen_;
  std::unordered_map<size_t, std::set<size_t>> deps_;
  bool any_ = false;

  size_t add(const Object* key) {
    size_t n = parent_.size();
    parent_.push_back(n);
    size_.push_back(1);
    g_.index[key] = n;
    return n;
  }
  size_t find(size_t n) {
    while (parent_[n] != n) n = parent_[n] = parent_[parent_[n]];
    return n;
  }
  std::string codegenOfGroup(size_t root) const {
    auto it = codegen_.find(root);
    return it == codegen_.end() ? std::string() : it->second;
  }
  std::string codegenOfCallee(const Expr& op) {
    auto gv = op.as<GlobalVar>();
    auto f = gv ? mod_.lookup(gv->name).as<Function>() : nullptr;
    auto composite = f ? attrStr(f->attrs, "Composite") : std::nullopt;
    if (!composite) return {};
    std::string cg = codegenOfComposite(*composite);
    if (cg.empty() && error.empty()) error = "composite function " + gv->name + " has Composite \"" + *composite + "\", which does not start with a codegen and a dot";
    return cg;
  }

  // The groups of the vars a value uses (params and earlier bindings).
  std::vector<size_t> argGroups(const std::vector<Expr>& args) {
    std::vector<size_t> out;
    for (auto& a : args)
      walkExpr(a, [&](const Expr& e) {
        if (auto v = e.as<Var>(); v && g_.index.count(v.get())) out.push_back(find(g_.index.at(v.get())));
      });
    return out;
  }

  void merge(size_t from, size_t to) {
    from = find(from), to = find(to);
    if (from == to) return;
    parent_[from] = to;
    size_[to] += size_[from];
    auto& d = deps_[to];
    d.insert(deps_[from].begin(), deps_[from].end());
    deps_.erase(from);
    for (auto& [k, set] : deps_)
      if (set.erase(from)) set.insert(to);
    d.erase(to);
  }

  void visit(const Binding& b) {
    size_t n = add(b.var.get());
    auto c = b.value.as<Call>();
    std::vector<size_t> args = c ? argGroups(c->args) : argGroups({b.value});
    std::string cg = c ? codegenOfCallee(c->op) : std::string();
    if (!cg.empty()) {
      any_ = true;
      std::set<size_t> parentDeps;
      for (size_t a : args) parentDeps.insert(deps_[a].begin(), deps_[a].end());
      std::vector<size_t> toMerge;
      for (size_t a : args)
        if (codegenOfGroup(a) == cg && !parentDeps.count(a) && std::find(toMerge.begin(), toMerge.end(), a) == toMerge.end()) toMerge.push_back(a);
      if (toMerge.empty()) {
        codegen_[n] = cg;
      } else {
        size_t root = toMerge[0];
        parent_[n] = root;
        size_[root] += 1;
        for (size_t i = 1; i < toMerge.size(); ++i) merge(toMerge[i], root);
        n = find(root);
      }
    }
    size_t root = find(n);
    for (size_t a : args) {
      a = find(a);
      if (a == root) continue;
      auto& d = deps_[root];
      d.insert(a);
      for (size_t x : deps_[a]) d.insert(x);
    }
  }
};

// Calls of composite globals inside a Codegen function become calls of local copies, bound once
// per function before their first use (TVM's CompositeInliner), so the region is self-contained.
Expr inlineComposites(const IRModule& mod, const Function& f) {
  auto seq = f.body.as<SeqExpr>();
  if (!seq) return Expr();
  std::unordered_map<std::string, VarRef> locals;
  std::vector<BlockRef> blocks;
  bool changed = false;
  for (auto& block : seq->blocks) {
    std::vector<BindingRef> out;
    for (auto& b : block->bindings) {
      auto c = b->value.as<Call>();
      auto gv = c ? c->op.as<GlobalVar>() : nullptr;
      auto callee = gv ? mod.lookup(gv->name).as<Function>() : nullptr;
      if (!callee || !attrStr(callee->attrs, "Composite")) {
        out.push_back(b);
        continue;
      }
      auto& local = locals[gv->name];
      if (!local) {
        auto copy = localCompositeCopy(callee);
        local = make<Var>(gv->name, copy->sinfo, false);
        out.push_back(make<Binding>(local, copy));
      }
      auto call = make<Call>(local, c->args, c->attrs, c->sinfoArgs);
      call->sinfo = c->sinfo;
      call->span = c->span;
      auto nb = make<Binding>(b->var, call, b->castSInfo);
      nb->span = b->span;
      out.push_back(nb);
      changed = true;
    }
    blocks.push_back(make<BindingBlock>(std::move(out), block->isDataflow()));
  }
  if (!changed) return Expr();
  auto nseq = make<SeqExpr>(std::move(blocks), seq->body);
  nseq->sinfo = seq->sinfo;
  return nseq;
}

}  // namespace

Result<Pass> createMergeCompositeFunctionsPass(PassOptions&) {
  return Pass({"MergeCompositeFunctions", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    auto* main = mod->find("main");
    auto f = main ? main->func.as<Function>() : nullptr;
    if (!f || !fusion::isFusionTarget(main->func)) return mod;
    fusion::Grouping grouping;
    CompositeGroups groups(*mod, grouping);
    bool any = groups.build(*f);
    if (!groups.error.empty()) return Error("MergeCompositeFunctions: " + groups.error);
    if (!any) return mod;
    groups.finish();
    IRModuleRef out = fusion::outlineGroups(mod, grouping);
    for (auto& e : std::vector<IRModule::Entry>(out->functions)) {
      auto g = e.func.as<Function>();
      if (!g || !attrStr(g->attrs, "Codegen")) continue;
      Expr body = inlineComposites(*mod, *g);
      auto sym = attrStr(g->attrs, "global_symbol");
      if (!body && sym == e.gvar->name) continue;
      auto nf = make<Function>(g->params, body ? body : g->body, g->retSInfo, g->isPure, withDictAttr(g->attrs, "global_symbol", AttrValue::str(e.gvar->name)));
      nf->sinfo = g->sinfo;
      nf->span = g->span;
      out = withFunction(out, e.gvar, nf);
    }
    return keepFunctions(out, reachableFunctions(out, {"main"}));
  });
}

}  // namespace rlx
