// FuseOps: TVM's relax.transform.FuseOps. Builds the graph of each function's bindings (call_tir
// kernels carry the "op_pattern" AnnotateTIROpPattern gave them; other calls are opaque),
// partitions it with the dominator-based rules (passes/graph_partitioner.h), and moves every group
// of two or more dataflow bindings into a private Relax function `fused_<kernels>` marked
// {"Primitive": True}, called where the group's last binding was. Why: FuseTIR then turns each
// group into one kernel, so intermediates never reach memory the VM allocates.
// Naming and order follow TVM: parameters are the group's free inputs in first-use order (named
// after the var, `param_<i>` for constants), outputs are gv, gv1, ... inside and fresh lv/gv vars
// outside; equal grouped functions are shared; symbolic vars the parameters do not define become
// a trailing `tir_vars` shape parameter. fuse_opt_level=0 fuses nothing.
// Before: lv = call_tir(matmul, (x, w)); lv1 = call_tir(add, (lv, b)); gv = call_tir(relu, (lv1,))
// After:  gv = cls.fused_matmul_add_relu(x, w, b), the three bindings moved into that function.
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"
#include "passes/function_outliner.h"
#include "passes/graph_partitioner.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using fusion::PatternKind;

constexpr size_t kMaxFusedOps = 256;

bool isCallTIR(const Expr& e) {
  auto c = e.as<Call>();
  return c && c->opName() == "relax.call_tir";
}


// ---------------------------------------------------------------- graph
// TVM's GraphCreator: one node per param, binding and constant-like leaf, in definition order.
class GraphCreator {
 public:
  GraphCreator(const IRModule& mod, fusion::ForwardGraph& g, std::unordered_map<const Object*, size_t>& index) : mod_(mod), g_(g), index_(index) {}

  void addFunction(const Function& f) {
    for (auto& p : f.params) {
      size_t n = newNode(p.get());
      g_.nodes[n].externRef = true;
    }
    // Params after "num_input" are packed weights; reading them stays opaque (TVM), so weight
    // unpacking at the top of a function does not fuse into the ops that use it.
    packedParams_.clear();
    if (auto numInput = attrInt(f.attrs, "num_input"))
      for (size_t i = size_t(std::max<int64_t>(*numInput, 0)); i < f.params.size(); ++i) packedParams_.insert(f.params[i].get());
    auto seq = f.body.as<SeqExpr>();
    if (!seq) return;
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) addBinding(*b);
  }

 private:
  const IRModule& mod_;
  fusion::ForwardGraph& g_;
  std::unordered_map<const Object*, size_t>& index_;
  std::unordered_set<const Object*> packedParams_;

  size_t newNode(const Object* key) {
    size_t n = g_.nodes.size();
    g_.nodes.emplace_back();
    index_[key] = n;
    return n;
  }

  void addBinding(const Binding& b) {
    std::vector<size_t> inputs;
    PatternKind pattern = fusion::kOpaque;
    if (b.isMatchCast()) {
      // A match_cast node stands alone: its value is not an input edge (as in TVM).
    } else if (auto c = b.value.as<Call>()) {
      std::vector<Expr> args = c->args;
      if (isCallTIR(b.value) && c->args.size() >= 2) {
        auto callee = c->args[0].as<GlobalVar>();
        auto prim = callee ? mod_.lookup(callee->name).as<PrimFunc>() : nullptr;
        if (auto kind = prim ? attrInt(prim->attrs, "op_pattern") : std::optional<int64_t>()) pattern = PatternKind(*kind);
        auto tuple = c->args[1].as<Tuple>();
        args = tuple ? tuple->fields : std::vector<Expr>{};
      }
      for (auto& a : args) collectLeaf(a, inputs);
    } else if (auto t = b.value.as<TupleGetItem>()) {
      pattern = packedParams_.count(t->tuple.get()) ? fusion::kOpaque : fusion::kInjective;
      collectLeaf(t->tuple, inputs);
    } else {
      walkExpr(b.value, [&](const Expr& e) {
        if (e.is<Var>() || e.is<Constant>()) collectLeaf(e, inputs);
      });
    }
    size_t n = newNode(b.var.get());
    g_.nodes[n].pattern = pattern;
    g_.nodes[n].externRef = !b.isMatchCast() && !b.var->isDataflow();
    for (size_t in : inputs) g_.nodes[in].outputs.push_back({n, pattern});
  }

  // Leaves get a node on first sight (constants, shapes, ...: opaque, never fused).
  void collectLeaf(const Expr& e, std::vector<size_t>& out) {
    if (auto t = e.as<Tuple>()) {
      for (auto& f : t->fields) collectLeaf(f, out);
      return;
    }
    if (!isLeafExpr(e) || e.as<GlobalVar>() || e.as<ExternFunc>() || e.as<Op>()) return;  // globals, extern functions, ops
    auto it = index_.find(e.get());
    out.push_back(it != index_.end() ? it->second : newNode(e.get()));
  }
};

}  // namespace

Result<Pass> createFuseOpsPass(PassOptions& options) {
  int level = int(options.integer("fuse_opt_level").value_or(-1));
  int64_t maxDepth = options.integer("max_depth").value_or(int64_t(kMaxFusedOps));
  if (maxDepth < 1) return Error("FuseOps: max_depth must be at least 1, got " + std::to_string(maxDepth));
  return Pass({"FuseOps", 0, {}}, [level, maxDepth](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    fusion::ForwardGraph graph;
    fusion::Grouping grouping;
    GraphCreator creator(*mod, graph, grouping.index);
    for (auto& e : mod->functions)
      if (fusion::isFusionTarget(e.func)) creator.addFunction(*e.func.as<Function>());
    grouping.part = fusion::partitionGraph(graph, level == -1 ? ctx.optLevel : level, size_t(maxDepth));
    return fusion::outlineGroups(mod, grouping);
  });
}

}  // namespace rlx
