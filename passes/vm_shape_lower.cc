// VMShapeLower: lowers symbolic shapes to VM builtins over a per-function int64 shape heap, as
// TVM v0.23's relax.transform.VMShapeLower does (error context strings included: the VM prints
// them). Why: the VM has no symbolic arithmetic; after this pass every ShapeExpr / PrimValue left
// is constant and every struct-info promise is checked at run time.
// Preconditions: the last Relax pass before codegen (after LowerRuntimeBuiltin, ComputePrimValue);
// functions with local functions are left alone (TVM refuses them: run LambdaLift first), and so
// are functions already lowered (they start with the shape heap), which keeps the pass idempotent.
// Per function:
//  1. slots (shape_slots.h): every distinct symbolic PrimExpr gets a heap slot;
//     `shape_heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(K),))`
//     (or R.null_value() when K is 0);
//  2. parameters are checked (check_tensor_info / check_shape_info / check_prim_value_info /
//     check_tuple_info / check_func_info) and matched: `vm.builtin.match_shape(x, heap, ndim,
//     code, value, ...)` with codes 0 AssertEqualToImm, 1 StoreToHeap, 2 NoOp, 3 AssertEqualToLoad
//     (match_prim_value for prim values); composites whose vars are now known are computed by a
//     generated `shape_func` PrimFunc, then the postponed (NoOp) matches are asserted;
//  3. the body: each match_cast is checked the same way (only what its value's struct info does not
//     already prove); each symbolic R.shape / R.prim_value becomes `vm.builtin.make_shape(heap,
//     ndim, code, value, ...)` / `vm.builtin.make_prim_value` with codes 0 UseImm, 1 LoadShape;
//  4. the returned value is checked against the return struct info.
// Before: `def main(x: R.Tensor(("n",), "float32")): ... R.shape([n * 2]) ...`
// After:  `shape_heap = ...alloc_shape_heap((R.prim_value(2),))`, check_tensor_info(x, 1, "float32"),
//         match_shape(x, shape_heap, 1, 1, 0) (store n), `cls.shape_func(shape_heap)` (H[1] = H[0] * 2),
//         `gv = R.call_packed("vm.builtin.make_shape", shape_heap, 1, 1, 1)`.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"
#include "passes/registry.h"
#include "passes/shape_slots.h"
#include "printer/printer.h"

namespace rlx {

namespace {

// runtime/vm builtin codes (TVM's MatchShapeCode and MakeShapeCode).
enum MatchShapeCode : int64_t { kAssertEqualToImm = 0, kStoreToHeap = 1, kNoOp = 2, kAssertEqualToLoad = 3 };
enum MakeShapeCode : int64_t { kUseImm = 0, kLoadShape = 1 };

// A shape (or prim value) to match against a pattern once the slots it needs are known.
struct MatchTodo {
  Expr input;
  std::vector<PrimExpr> pattern;
  std::string errCtx;
};

bool isShapeHeapBinding(const BindingRef& b) {
  auto c = b->value.as<Call>();
  return b->var->name == "shape_heap" && c && (c->opName() == "relax.null_value" || c->opName() == "relax.call_builtin_with_ctx");
}

bool hasLocalFunction(const Function& f) {
  bool found = false;
  walkExpr(f.body, [&](const Expr& e) { found |= e->kind() == NodeKind::Function; });
  return found;
}

// Consecutive blocks of the same kind become one (TVM's normalizer); empty ones go.
std::vector<BlockRef> mergeBlocks(const std::vector<BlockRef>& blocks) {
  std::vector<BlockRef> out;
  for (auto& b : blocks) {
    if (!b || b->bindings.empty()) continue;
    if (!out.empty() && out.back()->isDataflow() == b->isDataflow()) {
      std::vector<BindingRef> all = out.back()->bindings;
      all.insert(all.end(), b->bindings.begin(), b->bindings.end());
      out.back() = make<BindingBlock>(std::move(all), b->isDataflow());
    } else {
      out.push_back(b);
    }
  }
  return out;
}

class ShapeLowerer : public ExprMutator {
 public:
  explicit ShapeLowerer(IRModuleRef& mod) : mod_(mod) {}

  Result<Expr> lower(const GlobalVarRef& gvar, const Ref<Function>& func) {
    RLX_TRY(slots, ShapeSlots::collect(*func));
    slots_ = std::move(slots);
    varMap.clear();
    readyVars_.clear();
    error_.reset();
    gvarName_ = gvar->name;

    // Parameters.
    beginFrame(false);
    builder_.addBinding(shapeHeapBinding());
    std::vector<MatchTodo> todos;
    size_t numInput = size_t(attrInt(func->attrs, "num_input").value_or(int64_t(func->params.size())));
    for (size_t i = 0; i < func->params.size(); ++i) {
      auto& p = func->params[i];
      std::string ctx = fmt::format("ErrorContext(fn={}, loc=param[{}], param={}, annotation={}) ", gvar->name, i, p->name, printStructInfo(p->sinfo));
      checkMatchCast(p->sinfo, p, true, i >= numInput, ctx, todos);
    }
    matchInRounds(todos);
    BlockRef params = endFrame();

    // Body.
    auto seq = lowerSeq(func->body.as<SeqExpr>());

    // Return value.
    beginFrame(false);
    todos.clear();
    checkMatchCast(func->retSInfo, seq->body, false, false, fmt::format("ErrorContext(fn={}, loc=return, annotation={}) ", gvar->name, printStructInfo(func->retSInfo)), todos);
    runMatch(todos, true);
    BlockRef ret = endFrame();
    if (error_) return *error_;

    std::vector<BlockRef> blocks = {params};
    blocks.insert(blocks.end(), seq->blocks.begin(), seq->blocks.end());
    blocks.push_back(ret);
    auto body = make<SeqExpr>(mergeBlocks(blocks), seq->body);
    body->sinfo = seq->sinfo;
    auto out = make<Function>(func->params, body, func->retSInfo, func->isPure, func->attrs);
    out->sinfo = func->sinfo;
    out->span = func->span;
    return Expr(out);
  }

 protected:
  Expr visitLeaf(const Expr& e) override {
    if (auto s = e.as<ShapeExpr>()) {
      bool constant = true;
      for (auto& v : s->values) constant &= bool(asIntImm(v));
      if (constant) return e;
      std::vector<Expr> args = {heap_, primValue(int64_t(s->values.size()))};
      for (auto& v : s->values) makeShapeArg(v, args);
      return packed("vm.builtin.make_shape", std::move(args), make<ShapeSInfo>(std::nullopt, int(s->values.size())));
    }
    if (auto p = e.as<PrimValue>()) {
      if (p->value->kind() == NodeKind::IntImm || p->value->kind() == NodeKind::FloatImm) return e;
      std::vector<Expr> args = {heap_};
      makeShapeArg(p->value, args);
      return packed("vm.builtin.make_prim_value", std::move(args), sinfoOf(e));
    }
    return e;
  }

  Expr visitCall(const Ref<Call>& c) override { return renormalize(ExprMutator::visitCall(c), c); }
  Expr visitTuple(const Ref<Tuple>& t) override { return renormalize(ExprMutator::visitTuple(t), t); }
  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override { return renormalize(ExprMutator::visitTupleGetItem(t), t); }

  Expr visitIf(const Ref<If>& i) override {
    Expr cond = mutate(i->cond);
    if (!cond.same(i->cond)) cond = normalizeArg(cond);
    Expr a = lowerSeq(i->thenBranch.as<SeqExpr>()), b = lowerSeq(i->elseBranch.as<SeqExpr>());
    if (cond.same(i->cond) && a.same(i->thenBranch) && b.same(i->elseBranch)) return i;
    auto out = make<If>(cond, a, b);
    out->span = i->span;
    return normalize(out, i);
  }

  Expr visitSeqExpr(const Ref<SeqExpr>& s) override { return lowerSeq(s); }

  BlockRef visitBlock(const BlockRef& b) override {
    beginFrame(b->isDataflow());
    for (auto& binding : b->bindings) lowerBinding(binding);
    BlockRef out = endFrame();
    bool same = out && out->bindings.size() == b->bindings.size();
    for (size_t i = 0; same && i < b->bindings.size(); ++i) same = out->bindings[i].same(b->bindings[i]);
    return same ? b : out;
  }

 private:
  // ---- frames: a block being built, with TVM's per-block memo of bound arguments
  void beginFrame(bool dataflow) {
    builder_.beginBlock(dataflow);
    memo_.emplace_back();
  }
  BlockRef endFrame() {
    memo_.pop_back();
    return builder_.endBlock();
  }

  void fail(std::string message) {
    if (!error_) error_ = Error(std::move(message));
  }

  // Normalizes a node this pass built. A tensor whose inferred shape is one of the new shape vars
  // keeps only its ndim (as R.vm.alloc_tensor infers it): the var may be local to a dataflow
  // block, and ndim is all the VM needs.
  Expr normalize(const Expr& e, const Expr& fallback) {
    auto n = builder_.normalize(e);
    if (!n.ok()) {
      fail(n.error().message);
      return fallback;
    }
    n.value()->sinfo = withoutShapeVars(n.value()->sinfo);
    return n.value();
  }

  static StructInfo withoutShapeVars(const StructInfo& s) {
    if (auto t = s.as<TensorSInfo>(); t && t->shape && t->shape.is<Var>()) return make<TensorSInfo>(Expr(), t->dtype, t->ndim, t->vdevice);
    if (auto tup = s.as<TupleSInfo>()) {
      std::vector<StructInfo> fields;
      bool changed = false;
      for (auto& f : tup->fields) {
        fields.push_back(withoutShapeVars(f));
        changed |= !fields.back().same(f);
      }
      if (changed) return make<TupleSInfo>(std::move(fields));
    }
    return s;
  }
  // A value the mutator rebuilt (a fresh node) gets its struct info re-inferred and its non-leaf
  // args bound, as TVM's normalizer does after every mutation.
  Expr renormalize(const Expr& e, const Expr& old) {
    if (e.same(old)) return e;
    if (e->kind() == NodeKind::Call || e->kind() == NodeKind::Tuple || e->kind() == NodeKind::TupleGetItem) e->sinfo = nullptr;
    return normalize(e, old);
  }

  // A call argument: leaves and tuples stay; anything else is bound once per block (nested
  // t[i][j] reuse the binding of t[i]).
  Expr normalizeArg(const Expr& e) {
    if (isLeafExpr(e) || e->kind() == NodeKind::Tuple) return e;
    for (auto& [key, var] : memo_.back())
      if (key.same(e)) return var;
    Expr value = e;
    if (auto g = e.as<TupleGetItem>()) {
      Expr tuple = normalizeArg(g->tuple);
      if (!tuple.same(g->tuple)) value = make<TupleGetItem>(tuple, g->index);
    } else if (auto c = e.as<Call>()) {
      std::vector<Expr> args;
      for (auto& a : c->args) args.push_back(normalizeArg(a));
      value = make<Call>(c->op, std::move(args), c->attrs, c->sinfoArgs);
    }
    value = normalize(value, e);
    auto var = builder_.emit(value, "", e->span);
    if (!var.ok()) {
      fail(var.error().message);
      return e;
    }
    memo_.back().emplace_back(e, var.value());
    return var.value();
  }

  Expr packed(const std::string& symbol, std::vector<Expr> args, StructInfo ret) {
    auto callee = make<ExternFunc>(symbol);
    callee->sinfo = make<FuncSInfo>(std::nullopt, objectSInfo(), false);
    return make<Call>(callee, std::move(args), nullptr, std::vector<StructInfo>{std::move(ret)});
  }

  // Emits `_ = call` (a check, a match, a shape_func call).
  void emitVoid(const Expr& call) {
    auto& c = static_cast<const Call&>(*call);
    std::vector<Expr> args;
    for (auto& a : c.args) args.push_back(normalizeArg(a));
    Expr value = normalize(make<Call>(c.op, std::move(args), c.attrs, c.sinfoArgs), call);
    auto var = make<Var>("_", sinfoOf(value), builder_.inDataflow());
    builder_.addBinding(make<Binding>(var, value));
  }

  BindingRef shapeHeapBinding() {
    Expr call;
    StructInfo s;
    if (slots_.size() > 0) {
      s = make<TensorSInfo>(Expr(), DataType::int64(), 1);
      auto sizeTuple = make<Tuple>(std::vector<Expr>{primValue(slots_.size())});
      auto callee = make<ExternFunc>("vm.builtin.alloc_shape_heap");
      call = make<Call>(opRef("relax.call_builtin_with_ctx"), std::vector<Expr>{callee, sizeTuple}, nullptr, std::vector<StructInfo>{s});
    } else {
      s = objectSInfo();
      call = make<Call>(opRef("relax.null_value"), std::vector<Expr>{});
    }
    call = normalize(call, call);
    heap_ = make<Var>("shape_heap", s);
    return make<Binding>(heap_, call);
  }

  // ---- bindings
  void lowerBinding(const BindingRef& b) {
    if (b->isMatchCast()) {
      Expr value = renormalize(mutate(b->value), b->value);
      std::vector<MatchTodo> todos;
      checkMatchCast(b->castSInfo, value, false, false, fmt::format("ErrorContext(match_cast, struct_info={}) ", printStructInfo(b->castSInfo)), todos);
      matchInRounds(todos);
    }
    Expr value = mutate(b->value);
    if (value.same(b->value)) {
      builder_.addBinding(b);
      return;
    }
    value = renormalize(value, b->value);
    VarRef var = b->var;
    if (!b->isMatchCast() && !sinfoEqual(sinfoOf(value), var->sinfo)) {
      var = make<Var>(var->name, sinfoOf(value), var->isDataflow());
      var->span = b->var->span;
      varMap[b->var.get()] = var;
    }
    auto nb = make<Binding>(var, value, b->castSInfo);
    nb->span = b->span;
    builder_.addBinding(nb);
  }

  Ref<SeqExpr> lowerSeq(const Ref<SeqExpr>& s) {
    std::vector<BlockRef> blocks;
    bool changed = false;
    for (auto& b : s->blocks) {
      BlockRef nb = visitBlock(b);
      changed |= !nb.same(b);
      blocks.push_back(nb);
    }
    // A result that became a call (a symbolic R.shape) is bound, as TVM's normalizer does.
    beginFrame(false);
    Expr body = mutate(s->body);
    if (!body.same(s->body)) body = normalizeArg(normalize(body, s->body));
    BlockRef prologue = endFrame();
    if (prologue) blocks.push_back(prologue);
    if (!changed && !prologue && body.same(s->body)) return s;
    auto out = make<SeqExpr>(mergeBlocks(blocks), body);
    out->sinfo = body.same(s->body) ? s->sinfo : sinfoOf(body);
    out->span = s->span;
    return out;
  }

  // ---- shapes from the heap
  void makeShapeArg(const PrimExpr& e, std::vector<Expr>& args) {
    if (auto c = asIntImm(e)) {
      args.push_back(primValue(kUseImm));
      args.push_back(primValue(c->value));
      return;
    }
    ShapeSlot* slot = slots_.find(e);
    if (!slot || !slot->computed) fail(fmt::format("PrimExpr {} in function {} has not been computed", printPrimExpr(e), gvarName_));
    args.push_back(primValue(kLoadShape));
    args.push_back(primValue(slot ? slot->index : 0));
  }

  // ---- matching
  // Match, compute the composites the newly stored vars unlock, then assert what had to wait.
  void matchInRounds(const std::vector<MatchTodo>& todos) {
    std::vector<MatchTodo> outstanding = runMatch(todos, false);
    emitOutstandingCompute();
    runMatch(outstanding, true);
  }

  std::pair<int64_t, Expr> matchArg(const PrimExpr& e, bool requireComputed) {
    if (auto c = asIntImm(e)) return {kAssertEqualToImm, primValue(c->value)};
    ShapeSlot* slot = slots_.find(e);
    if (!slot) {
      fail(fmt::format("PrimExpr {} has no shape heap slot", printPrimExpr(e)));
      return {kNoOp, primValue(0)};
    }
    if (slot->computed) return {kAssertEqualToLoad, primValue(slot->index)};
    if (requireComputed) fail(fmt::format("PrimExpr {} is not computed", printPrimExpr(e)));
    if (e.is<PrimVar>()) {
      slot->computed = true;
      readyVars_.push_back(slot->index);
      return {kStoreToHeap, primValue(slot->index)};
    }
    return {kNoOp, primValue(0)};
  }

  // Emits one match per item; returns the items with NoOp entries (composites not yet computed).
  std::vector<MatchTodo> runMatch(const std::vector<MatchTodo>& todos, bool requireComputed) {
    std::vector<MatchTodo> outstanding;
    for (auto& item : todos) {
      bool prim = sinfoOf(item.input).is<PrimSInfo>();
      std::vector<Expr> args = {item.input, heap_};
      if (!prim) args.push_back(primValue(int64_t(item.pattern.size())));
      bool allNop = true, anyNop = false;
      for (auto& e : item.pattern) {
        auto [code, value] = matchArg(e, requireComputed);
        allNop &= code == kNoOp;
        anyNop |= code == kNoOp;
        args.push_back(primValue(code));
        args.push_back(value);
      }
      if (anyNop) outstanding.push_back(item);
      args.push_back(str(item.errCtx));
      if (!allNop) emitVoid(packed(prim ? "vm.builtin.match_prim_value" : "vm.builtin.match_shape", std::move(args), voidSInfo()));
    }
    return outstanding;
  }

  void emitOutstandingCompute() {
    std::vector<int> toCompute;
    for (int v : readyVars_)
      for (int user : slots_[v].users)
        if (--slots_[user].outstanding == 0) toCompute.push_back(user);
    readyVars_.clear();
    if (toCompute.empty()) return;
    for (int i : toCompute) slots_[i].computed = true;
    GlobalVarRef gv = addFunction(makeShapeFunc(slots_, toCompute), "shape_func");
    emitVoid(make<Call>(gv, std::vector<Expr>{heap_}));
  }

  // The module's structurally equal PrimFunc, or a new one named base, base1, ... (TVM's builder).
  GlobalVarRef addFunction(const PrimFuncRef& func, const std::string& base) {
    for (auto& e : mod_->functions)
      if (e.func->kind() == NodeKind::PrimFunc && structuralEqual(e.func, func)) return e.gvar;
    std::string name;
    do {
      int& n = nameCounts_[base];
      name = n ? base + std::to_string(n) : base;
      ++n;
    } while (mod_->find(name));
    auto gv = make<GlobalVar>(name);
    gv->sinfo = primFuncSInfo();
    mod_ = withFunction(mod_, gv, func);
    return gv;
  }

  static Expr str(const std::string& s) {
    auto e = make<StringImm>(s);
    e->sinfo = objectSInfo();
    return e;
  }
  static Expr dtypeImm(DataType t) {
    auto e = make<DataTypeImm>(t);
    e->sinfo = objectSInfo();
    return e;
  }

  // ---- run-time checks of a value against struct info (TVM's CheckMatchCast)
  // always: check even what the value's struct info proves (parameters: callers are not trusted);
  // dynamicOnly: skip tensors of static shape (weights after num_input).
  void checkMatchCast(const StructInfo& s, const Expr& value, bool always, bool dynamicOnly, const std::string& ctx, std::vector<MatchTodo>& todos) {
    StructInfo have = sinfoOf(value);
    if (!always && sinfoIsBaseOf(s, have)) return;
    if (auto p = s.as<PrimSInfo>()) {
      if (always || !sinfoIsBaseOf(make<PrimSInfo>(p->dtype), have)) emitVoid(packed("vm.builtin.check_prim_value_info", {value, dtypeImm(p->dtype), str(ctx)}, voidSInfo()));
      if (p->value) todos.push_back({value, {p->value}, ctx});
    } else if (auto sh = s.as<ShapeSInfo>()) {
      if (always || !sinfoIsBaseOf(make<ShapeSInfo>(std::nullopt, sh->ndim), have)) emitVoid(packed("vm.builtin.check_shape_info", {value, primValue(sh->ndim), str(ctx)}, voidSInfo()));
      if (sh->values) todos.push_back({value, *sh->values, ctx});
    } else if (auto t = s.as<TensorSInfo>()) {
      const std::vector<PrimExpr>* dims = t->dims();
      if (dynamicOnly && dims && std::all_of(dims->begin(), dims->end(), [](const PrimExpr& d) { return bool(asIntImm(d)); })) return;
      if (always || !sinfoIsBaseOf(make<TensorSInfo>(Expr(), t->dtype, t->ndim), have))
        emitVoid(packed("vm.builtin.check_tensor_info", {value, primValue(t->ndim), dtypeImm(t->dtype), str(ctx)}, voidSInfo()));
      if (dims) todos.push_back({value, *dims, ctx});
      else if (t->shape) fail("Cannot handle Tensor shape pattern where a var appears multiple times");
    } else if (auto tup = s.as<TupleSInfo>()) {
      auto haveTuple = have.as<TupleSInfo>();
      if (haveTuple && haveTuple->fields.size() != tup->fields.size()) fail(ctx + " during match-cast we find tuple size mismatch");
      if (always || !haveTuple) emitVoid(packed("vm.builtin.check_tuple_info", {value, primValue(int64_t(tup->fields.size())), str(ctx)}, voidSInfo()));
      for (size_t i = 0; i < tup->fields.size(); ++i) checkMatchCast(tup->fields[i], tupleItem(value, int(i)), always, dynamicOnly, ctx, todos);
    } else if (s.is<FuncSInfo>()) {
      if (!always && have.is<FuncSInfo>()) return;
      emitVoid(packed("vm.builtin.check_func_info", {value, str(ctx)}, voidSInfo()));
    }
  }

  // Field i of a tuple value: the field itself, t[i], or the run-time builtin for an untyped value.
  // A declared tuple longer than the value's (an annotation only checked at run time) reads the
  // missing fields through the builtin, which reports the bad index when it runs.
  Expr tupleItem(const Expr& value, int i) {
    if (auto t = value.as<Tuple>(); t && size_t(i) < t->fields.size()) return t->fields[size_t(i)];
    if (auto ts = sinfoOf(value).as<TupleSInfo>(); ts && size_t(i) < ts->fields.size()) {
      auto item = make<TupleGetItem>(value, i);
      item->sinfo = ts->fields[size_t(i)];
      return item;
    }
    Expr call = packed("vm.builtin.tuple_getitem", {value, primValue(i)}, objectSInfo());
    call->sinfo = objectSInfo();
    return call;
  }

  IRModuleRef& mod_;
  BlockBuilder builder_;  // one per pass run: fresh gv names count across functions, as in TVM
  ShapeSlots slots_;
  VarRef heap_;
  std::vector<int> readyVars_;  // vars stored by the last matches, not yet propagated
  std::vector<std::vector<std::pair<Expr, Expr>>> memo_;
  std::unordered_map<std::string, int> nameCounts_;
  std::optional<Error> error_;
  std::string gvarName_;
};

}  // namespace

Result<Pass> createVMShapeLowerPass(PassOptions&) {
  return Pass({"VMShapeLower", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    ShapeLowerer lowerer(out);
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f || !ctx.inScope(e.gvar->name) || hasLocalFunction(*f)) continue;
      auto seq = f->body.as<SeqExpr>();
      if (!seq || (!seq->blocks.empty() && !seq->blocks[0]->bindings.empty() && isShapeHeapBinding(seq->blocks[0]->bindings[0]))) continue;
      RLX_TRY(g, lowerer.lower(e.gvar, f));
      out = withFunction(out, e.gvar, g);
    }
    return out;
  });
}

}  // namespace rlx
