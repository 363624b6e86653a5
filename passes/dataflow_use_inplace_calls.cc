// DataflowUseInplaceCalls: TVM's relax.transform.DataflowUseInplaceCalls. Inside dataflow blocks, a
// call of add / subtract / multiply / divide / nn.silu / nn.relu whose result has exactly the shape
// and dtype of an argument that dies at that call becomes R.call_tir_inplace of the op's legalized
// kernel rewritten to write that argument's buffer (<kernel>_inplace). Why: the result needs no new
// allocation. An argument "dies" when it is a dataflow var not used later in the block and nothing
// that may share its storage (an alias, a tuple holding it, a view, the result of an unknown call
// it was passed to) is used later; function parameters and values from outside the block are
// never overwritten. Shapes must be provably equal (symbolic dims too); broadcasting into the
// larger argument is fine, into the smaller one is not.
// Before: `z = R.add(x, y); a = R.add(z, y)`  (z used only there)
// After:  `a = R.call_tir_inplace(cls.add_inplace, (z, y), out_sinfo=..., inplace_indices=[0])`.
//
// Liveness and alias analysis follow TVM's (per block; a tuple index is not a use of the tuple, its
// element aliases are tracked instead). Two safety checks of later TVM are included: views
// (reshape, expand_dims, permute_dims, ...) alias their input, and the overwritten argument must be a
// var sharing no storage with the call's other arguments (TVM v0.23 could write into a constant).
// rlx adds two: a tuple used later keeps its elements alive (TVM v0.23 overwrites `a` in
// `t = (a, x); b = R.add(a, a)` when only t is used after), and a call_tir of a kernel with the
// reshape pattern is a view of its input (the build's RewriteDataflowReshape makes it one).
// When both arguments qualify, the last one is used, as TVM's choice comes out on libstdc++.
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith.h"
#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"
#include "parser/build_tir.h"
#include "passes/legalize/legalize.h"
#include "passes/op_builder.h"
#include "passes/registry.h"
#include "passes/reshape_pattern.h"
#include "passes/tir_merge.h"

namespace rlx {

namespace {

bool supportsInplace(const std::string& op) {
  static const std::set<std::string> ops = {"relax.add", "relax.subtract", "relax.multiply", "relax.divide", "relax.nn.silu", "relax.nn.relu"};
  return ops.count(op) > 0;
}

// Ops whose result may share storage with their first argument.
bool isViewOp(const std::string& op) {
  static const std::set<std::string> ops = {"relax.expand_dims", "relax.squeeze",    "relax.reshape",     "relax.permute_dims",
                                            "relax.flatten",     "relax.nn.batch_flatten", "relax.memory.view", "relax.memory.ensure_zero_offset"};
  return ops.count(op) > 0;
}

// ---------------------------------------------------------------- liveness

// Per var: the index of the binding defining it (-1: defined before the block) and of its last use
// (the block's size: live after the block, as every non-dataflow var is).
struct LiveRange {
  int start, end;
};
using Liveness = std::unordered_map<const Var*, LiveRange>;

std::vector<const Var*> usedVars(const Expr& value) {
  std::vector<const Var*> out;
  if (value.is<Function>()) {
    for (auto& v : freeVars(value)) out.push_back(v.get());
  } else if (!value.is<TupleGetItem>()) {  // indexing a tuple is not a use of it (its fields' aliases are tracked)
    walkExpr(value, [&](const Expr& e) {
      if (auto v = e.as<Var>()) out.push_back(v.get());
    });
  }
  return out;
}

Liveness analyzeLiveness(const BindingBlock& block) {
  Liveness live;
  int n = int(block.bindings.size());
  for (int i = n - 1; i >= 0; --i) {
    auto& b = block.bindings[size_t(i)];
    for (const Var* v : usedVars(b->value))
      if (!live.count(v)) live[v] = {-1, v->isDataflow() ? i : n};
    const Var* def = b->var.get();
    auto it = live.find(def);
    if (it == live.end()) live[def] = {i, def->isDataflow() ? i : n};
    else it->second.start = i;
  }
  return live;
}

// ---------------------------------------------------------------- alias analysis

// Each var maps to the abstract storage locations it may hold (-1: unknown, from outside the
// block); a location that is a tuple maps to the location sets of its fields.
using LocSet = std::set<int>;
struct Aliases {
  std::unordered_map<const Var*, LocSet> vars;
  std::map<int, std::vector<LocSet>> tuples;
};

class AliasAnalyzer {
 public:
  explicit AliasAnalyzer(const IRModule& mod) : mod_(mod) {}
  Aliases analyze(const BindingBlock& block) {
    for (auto& b : block.bindings) out_.vars[b->var.get()] = aliasesOf(b->value, b->var);
    return std::move(out_);
  }

 private:
  int fresh() { return next_++; }

  void freshTuple(int loc, const TupleSInfo& t) {
    std::vector<LocSet> fields;
    for (auto& f : t.fields) {
      int field = fresh();
      fields.push_back({field});
      if (auto nested = f.as<TupleSInfo>()) freshTuple(field, *nested);
    }
    out_.tuples[loc] = std::move(fields);
  }

  // Adds `locs` to every field of tuple `loc`, nested tuples included.
  void addToFields(int loc, const LocSet& locs, std::set<int>& seen) {
    auto it = out_.tuples.find(loc);
    if (it == out_.tuples.end() || !seen.insert(loc).second) return;
    for (size_t i = 0; i < it->second.size(); ++i) {
      LocSet field = it->second[i];
      for (int m : field) addToFields(m, locs, seen);
      out_.tuples[loc][i].insert(locs.begin(), locs.end());
    }
  }

  // `loc` and, when it is a tuple, every location its fields may hold (recursively).
  void capture(LocSet& into, int loc) {
    if (!into.insert(loc).second) return;
    auto it = out_.tuples.find(loc);
    if (it == out_.tuples.end()) return;
    std::vector<LocSet> fields = it->second;
    for (auto& f : fields)
      for (int m : f) capture(into, m);
  }

  // A call whose callee is unknown: its result may be fresh or any of its arguments (or parts of
  // them), and a tuple result's fields may be any of those too.
  LocSet mysteryCall(const Call& call, const VarRef& bound, bool skipFirst) {
    LocSet out;
    int res = fresh();
    if (auto t = bound->sinfo ? bound->sinfo.as<TupleSInfo>() : nullptr) freshTuple(res, *t);
    capture(out, res);
    for (size_t i = skipFirst ? 1 : 0; i < call.args.size(); ++i)
      for (int a : aliasesOf(call.args[i], bound)) capture(out, a);
    std::set<int> seen;
    addToFields(res, out, seen);
    return out;
  }

  LocSet aliasesOf(const Expr& value, const VarRef& bound) {
    if (value.is<Constant>() || value.is<PrimValue>() || value.is<Function>()) return {fresh()};
    if (auto v = value.as<Var>()) {
      auto it = out_.vars.find(v.get());
      return it == out_.vars.end() ? LocSet{-1} : it->second;
    }
    if (auto t = value.as<Tuple>()) {
      int loc = fresh();
      std::vector<LocSet> fields;
      for (auto& f : t->fields) fields.push_back(aliasesOf(f, bound));
      out_.tuples[loc] = std::move(fields);
      return {loc};
    }
    if (auto g = value.as<TupleGetItem>()) {
      LocSet tuple = aliasesOf(g->tuple, bound);
      if (tuple.count(-1)) return {-1};
      LocSet out;
      for (int m : tuple) {
        auto it = out_.tuples.find(m);
        if (it != out_.tuples.end() && int(it->second.size()) > g->index) out.insert(it->second[size_t(g->index)].begin(), it->second[size_t(g->index)].end());
      }
      return out;
    }
    if (auto c = value.as<Call>()) {
      if (!c->op || c->op->kind() != NodeKind::Op) return mysteryCall(*c, bound, false);
      const std::string& op = c->opName();
      if (op == "relax.call_pure_packed") return mysteryCall(*c, bound, true);
      if (op == "relax.call_tir") {
        // A kernel that only copies its input in order becomes a view (RewriteDataflowReshape).
        if (auto input = reshapeInput(*c)) return aliasesOf(input, bound);
        int loc = fresh();
        if (!c->sinfoArgs.empty() && c->sinfoArgs[0])
          if (auto t = c->sinfoArgs[0].as<TupleSInfo>()) freshTuple(loc, *t);
        return {loc};
      }
      if (isViewOp(op) && !c->args.empty()) return aliasesOf(c->args[0], bound);
      int loc = fresh();
      if (auto t = bound->sinfo ? bound->sinfo.as<TupleSInfo>() : nullptr) freshTuple(loc, *t);
      return {loc};
    }
    return {};
  }

  // The input of a call_tir whose kernel has the reshape pattern, else null.
  Expr reshapeInput(const Call& c) const {
    if (c.args.size() < 2) return nullptr;
    auto gv = c.args[0].as<GlobalVar>();
    auto f = gv ? mod_.lookup(gv->name).as<PrimFunc>() : nullptr;
    if (!f || !hasReshapePattern(*f)) return nullptr;
    if (auto t = c.args[1].as<Tuple>()) return t->fields.empty() ? nullptr : t->fields[0];
    return nullptr;
  }

  const IRModule& mod_;
  Aliases out_;
  int next_ = 0;
};

// ---------------------------------------------------------------- in-place opportunities

// Whether `arg` has exactly the shape (provably, dim by dim) and dtype of the result `out`.
bool exactMatch(const StructInfo& out, const StructInfo& arg) {
  auto o = out ? out.as<TensorSInfo>() : nullptr;
  auto a = arg ? arg.as<TensorSInfo>() : nullptr;
  if (!o || !a || o->dtype.isVoid() || !o->dims() || !a->dims() || o->dtype != a->dtype) return false;
  auto& od = *o->dims();
  auto& ad = *a->dims();
  if (od.size() != ad.size()) return false;
  for (size_t i = 0; i < od.size(); ++i)
    if (!proveEqual(od[i], ad[i])) return false;
  return true;
}

class Opportunities {
 public:
  Opportunities(const BindingBlock& block, const IRModule& mod) : live_(analyzeLiveness(block)), alias_(AliasAnalyzer(mod).analyze(block)) {}

  // The argument of binding i's call to compute in place, or -1.
  int argFor(const BindingBlock& block, int i) const {
    auto& b = block.bindings[size_t(i)];
    auto c = b->value.as<Call>();
    if (!c || !c->op || c->op->kind() != NodeKind::Op || !supportsInplace(c->opName())) return -1;
    for (int j = int(c->args.size()) - 1; j >= 0; --j)
      if (exactMatch(b->var->sinfo, sinfoOf(c->args[size_t(j)])) && diesHere(c->args[size_t(j)], i) && disjointFromOthers(*c, j)) return j;
    return -1;
  }

 private:
  LocSet aliasesOf(const Expr& e) const {
    auto v = e.as<Var>();
    if (!v) return {-1};
    auto it = alias_.vars.find(v.get());
    return it == alias_.vars.end() ? LocSet{-1} : it->second;
  }

  // Collects the location sets of tuple `loc`'s fields (recursively); false when one is unknown.
  bool fieldSets(int loc, std::vector<LocSet>& sets, std::set<int>& seen) const {
    auto it = alias_.tuples.find(loc);
    if (it == alias_.tuples.end() || !seen.insert(loc).second) return true;
    for (auto& field : it->second) {
      if (field.count(-1)) return false;
      sets.push_back(field);
      for (int m : field)
        if (!fieldSets(m, sets, seen)) return false;
    }
    return true;
  }

  // `target` is not used after binding i and no var live after it may share its storage.
  bool diesHere(const Expr& target, int i) const {
    if (auto t = target.as<Tuple>()) {
      for (auto& f : t->fields)
        if (!diesHere(f, i)) return false;
      return true;
    }
    auto v = target.as<Var>();
    if (!v) return true;
    if (auto it = live_.find(v.get()); it != live_.end() && it->second.end > i) return false;
    auto a = alias_.vars.find(v.get());
    if (a == alias_.vars.end() || a->second.count(-1)) return false;
    std::vector<LocSet> check = {a->second};
    std::set<int> seen;
    for (int loc : a->second)
      if (!fieldSets(loc, check, seen)) return false;
    for (auto& [other, range] : live_) {
      if (other == v.get() || range.start > i || range.end <= i) continue;
      auto oa = alias_.vars.find(other);
      if (oa == alias_.vars.end()) continue;
      // What the other var reaches: its locations and, through tuples, their fields' (a tuple used
      // later keeps its elements; TVM v0.23 looks at the tuple's own location only).
      LocSet reach;
      for (int loc : oa->second) reachable(loc, reach);
      for (int loc : reach)
        for (auto& s : check)
          if (s.count(loc)) return false;
    }
    return true;
  }

  void reachable(int loc, LocSet& into) const {
    if (!into.insert(loc).second) return;
    auto it = alias_.tuples.find(loc);
    if (it == alias_.tuples.end()) return;
    for (auto& field : it->second)
      for (int m : field) reachable(m, into);
  }

  // Argument j is a var sharing no storage with the call's other arguments (the same var twice,
  // add(z, z), is fine).
  bool disjointFromOthers(const Call& c, int j) const {
    if (!c.args[size_t(j)].is<Var>()) return false;
    LocSet mine = aliasesOf(c.args[size_t(j)]);
    if (mine.count(-1)) return false;
    for (size_t k = 0; k < c.args.size(); ++k) {
      if (int(k) == j || c.args[k].same(c.args[size_t(j)])) continue;
      for (int loc : aliasesOf(c.args[k]))
        if (mine.count(loc)) return false;
    }
    return true;
  }

  Liveness live_;
  Aliases alias_;
};

// ---------------------------------------------------------------- the rewrite

// `f` with output parameter `out` (a buffer param) removed and its buffer replaced by the buffer
// of parameter `in` everywhere: the kernel then writes its result over that input.
PrimFuncRef writeIntoParam(const PrimFunc& f, size_t out, size_t in) {
  const BufferRef* outBuf = f.bufferOf(f.params[out]);
  const BufferRef* inBuf = f.bufferOf(f.params[in]);
  if (!outBuf || !inBuf) return nullptr;
  tir_merge::Substituter sub;
  sub.buffers[outBuf->get()] = *inBuf;
  sub.vars[f.params[out].get()] = f.params[in];
  if ((*outBuf)->data && (*inBuf)->data) sub.vars[(*outBuf)->data.get()] = (*inBuf)->data;
  PrimFuncRef nf = copyPrimFunc(f);
  nf->body = sub.stmt(f.body);
  nf->params.erase(nf->params.begin() + long(out));
  for (auto it = nf->bufferMap.begin(); it != nf->bufferMap.end(); ++it)
    if (it->first == f.params[out]) {
      nf->bufferMap.erase(it);
      break;
    }
  nf->sinfo = primFuncSInfo(*nf);
  return nf;
}

class InplaceRewriter : public ExprMutator {
 public:
  explicit InplaceRewriter(IRModuleRef& mod) : mod_(mod) {}

 protected:
  BlockRef visitBlock(const BlockRef& b) override {
    if (!b->isDataflow()) return ExprMutator::visitBlock(b);
    Opportunities found(*b, *mod_);
    std::vector<BindingRef> bindings;
    bool changed = false;
    for (size_t i = 0; i < b->bindings.size(); ++i) {
      auto& x = b->bindings[i];
      BindingRef nb;
      int arg = found.argFor(*b, int(i));
      if (arg >= 0)
        if (Expr call = inplaceCall(*x->value.as<Call>(), size_t(arg))) {
          nb = make<Binding>(x->var, call, x->castSInfo);
          nb->span = x->span;
        }
      if (!nb) nb = visitBinding(x);
      if (!nb) {
        changed = true;
        continue;
      }
      changed |= !nb.same(x);
      bindings.push_back(nb);
    }
    if (!changed) return b;
    if (bindings.empty()) return nullptr;
    return make<BindingBlock>(std::move(bindings), true);
  }

 private:
  struct Kernel {
    PrimFuncRef key;  // built with positional names, for comparing kernels
    GlobalVarRef gvar;
  };

  // R.call_tir_inplace of the op's kernel writing into argument `arg`; null when the op's
  // legalization does not give a kernel with that argument as a buffer parameter.
  Expr inplaceCall(const Call& c, size_t arg) {
    const legalize::Entry* entry = legalize::findRule(c.opName());
    if (!entry || !entry->rule || (entry->fold && entry->fold(c))) return nullptr;
    legalize::Ctx canon(c, true), ctx(c);
    std::vector<te::Tensor> canonOuts = entry->rule(canon), outs = entry->rule(ctx);
    if (canonOuts.size() != 1 || outs.size() != 1) return nullptr;
    PrimFuncRef canonLegal = canon.kb.build(canon.inputs, canonOuts), legal = ctx.kb.build(ctx.inputs, outs);
    if (!primFuncFreeVars(*legal).empty()) return nullptr;  // scalar params passed by tir_vars: not for in-place kernels
    // The kernel parameter the argument is passed to (scalar constants are folded into kernels).
    size_t param = ctx.tirArgs.size();
    if (arg < ctx.tirArgs.size() && ctx.tirArgs[arg].same(c.args[arg])) param = arg;
    else
      for (size_t i = 0; i < ctx.tirArgs.size(); ++i)
        if (ctx.tirArgs[i].same(c.args[arg])) param = param == ctx.tirArgs.size() ? i : ctx.tirArgs.size() + 1;
    if (param >= ctx.tirArgs.size() || ctx.inputs.size() != ctx.tirArgs.size() || canon.inputs.size() != ctx.inputs.size()) return nullptr;
    size_t out = ctx.inputs.size();
    if (out >= legal->params.size() || out >= canonLegal->params.size()) return nullptr;
    PrimFuncRef canonInplace = writeIntoParam(*canonLegal, out, param), inplace = writeIntoParam(*legal, out, param);
    if (!canonInplace || !inplace) return nullptr;
    // Named as TVM names them: the legalized kernel's name (add, add1 when add is taken) + _inplace.
    std::string base = canon.kernelName.empty() ? entry->kernelName : canon.kernelName;
    std::string legalName = nameFor(legalNames_, canonLegal, legal, base, true);
    std::string name = nameFor(inplaceKernels_, canonInplace, inplace, legalName + "_inplace", false);
    GlobalVarRef gv;
    if (auto* e = mod_->find(name)) gv = e->gvar;
    if (!gv) {
      gv = make<GlobalVar>(name);
      gv->sinfo = inplace->sinfo;
      mod_ = withFunction(mod_, gv, inplace);
      inplaceKernels_.push_back({canonInplace, gv});
    }
    PyValue outSInfo;
    outSInfo.kind = PyValue::SInfo;
    outSInfo.sinfo = c.sinfo;
    Expr call = build::call("call_tir_inplace", {build::e(gv), build::e(tupleOf(ctx.tirArgs)), build::ints({int64_t(param)}), outSInfo});
    BlockBuilder bb;
    bb.beginBlock(true);
    auto normalized = bb.normalize(call);
    return normalized.ok() ? normalized.value() : nullptr;
  }

  // The name of a kernel equal to `own`: a module function equal to it, one this pass made, or a
  // fresh one from `base` (base, base1, ...). `reserve`: the kernel is not added to the module
  // (TVM adds its legalized kernels for the length of the pass), only its name is taken.
  std::string nameFor(std::vector<Kernel>& made, const PrimFuncRef& key, const PrimFuncRef& own, const std::string& base, bool reserve) {
    for (auto& k : made)
      if (structuralEqual(k.key, key)) return k.gvar->name;
    for (auto& e : mod_->functions)
      if (e.func.is<PrimFunc>() && structuralEqual(e.func, own)) return e.gvar->name;
    std::string name = base;
    for (int i = 1; mod_->find(name) || reserved_.count(name); ++i) name = base + std::to_string(i);
    if (reserve) {
      reserved_.insert(name);
      made.push_back({key, make<GlobalVar>(name)});
    }
    return name;
  }

  IRModuleRef& mod_;
  std::vector<Kernel> legalNames_, inplaceKernels_;
  std::set<std::string> reserved_;
};

}  // namespace

Result<Pass> createDataflowUseInplaceCallsPass(PassOptions&) {
  return Pass({"DataflowUseInplaceCalls", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    InplaceRewriter rewriter(out);  // one for the module: kernels and names are shared by its functions
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name)) continue;
      Expr f = rewriter.mutate(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
