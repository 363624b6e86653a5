// SplitLayoutRewritePreproc (TVM v0.23's): a PrimFunc whose root block starts with statements made
// of blocks annotated "meta_schedule.layout_rewrite_preproc" (MetaSchedule's rewrite of a
// layout-free weight into a packed buffer) is split in two: <kernel>_weight_prepack runs those
// blocks (parameters: the weights they read, then the packed buffers they write) and
// <kernel>_prepacked the rest, reading the packed buffers as parameters in place of the weights.
// Each R.call_tir of the kernel becomes a call of the prepack kernel on the weights and a call of
// the compute kernel on its result, so that LiftTransformParams can move the packing out of the
// model's run. Both copies keep the kernel's attrs but "layout_free_buffers" (global_symbol gets
// their suffix); the annotation goes. Then, as in TVM (a Sequential with it), DeadCodeElimination
// runs: unused bindings go and functions no public function reaches.
// Before: `gv = R.call_tir(cls.f, (x, w), ...)`, f = {W_rewrite[...] = W[...] (annotated); Out = X + W_rewrite}
// After:  `lv = R.call_tir(cls.f_weight_prepack, (w,), out_sinfo=R.Tensor((4, 4, 56, 56)))`
//         `lv1 = R.call_tir(cls.f_prepacked, (x, lv), ...)`, `gv = lv1`
// Kernels without the annotation are left alone (TVM also requires every other kernel's body to
// be a root block); a kernel whose annotated blocks do not fit the form above is an error.
#include <algorithm>
#include <map>
#include <set>

#include "ir/arith.h"
#include "passes/binding_rewriter.h"
#include "passes/call_graph.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"

namespace rlx {

namespace {

constexpr const char* kPreproc = "meta_schedule.layout_rewrite_preproc";

bool truthy(const Attr& a) {
  if (!a) return false;
  switch (a->kind) {
    case AttrValue::Bool: return a->b;
    case AttrValue::Int: return a->i == 1;
    case AttrValue::Prim: return constInt(a->prim) == 1;
    default: return false;
  }
}

bool isPreprocBlock(const TirBlock& b) {
  const Attr* a = b.annotations ? b.annotations->find(kPreproc) : nullptr;
  return a && truthy(*a);
}

AttrsRef withoutAttr(const AttrsRef& attrs, const std::string& key) {
  if (!attrs || !attrs->find(key)) return attrs;
  std::vector<std::pair<std::string, Attr>> kept;
  for (auto& f : attrs->fields)
    if (f.first != key) kept.push_back(f);
  if (kept.empty()) return nullptr;
  auto out = make<Attrs>();
  out->typeKey = attrs->typeKey;
  out->fields = std::move(kept);
  return out;
}

// The blocks of `s` in TVM's visiting order (a block after the blocks inside it).
void collectBlocks(const Stmt& s, std::vector<const TirBlock*>& out) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) collectBlocks(x, out);
      break;
    case NodeKind::For: collectBlocks(static_cast<const For&>(*s).body, out); break;
    case NodeKind::IfThenElse:
      collectBlocks(static_cast<const IfThenElse&>(*s).thenCase, out);
      collectBlocks(static_cast<const IfThenElse&>(*s).elseCase, out);
      break;
    case NodeKind::LetStmt: collectBlocks(static_cast<const LetStmt&>(*s).body, out); break;
    case NodeKind::AssertStmt: collectBlocks(static_cast<const AssertStmt&>(*s).body, out); break;
    case NodeKind::BlockRealize: {
      const TirBlock& b = *static_cast<const BlockRealize&>(*s).block;
      collectBlocks(b.init, out);
      collectBlocks(b.body, out);
      out.push_back(&b);
      break;
    }
    default: break;
  }
}

// `s` with the preproc annotation removed from its blocks (only blocks and what holds them change).
Stmt stripAnnotation(const Stmt& s) {
  if (!s) return s;
  switch (s->kind()) {
    case NodeKind::SeqStmt: {
      std::vector<Stmt> seq;
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) seq.push_back(stripAnnotation(x));
      auto out = make<SeqStmt>(std::move(seq));
      out->span = s->span;
      return out;
    }
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      auto out = make<For>();
      out->loopVar = f.loopVar, out->min = f.min, out->extent = f.extent, out->loopKind = f.loopKind, out->body = stripAnnotation(f.body);
      out->threadTag = f.threadTag, out->annotations = f.annotations, out->span = f.span;
      return out;
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      auto out = make<IfThenElse>(i.cond, stripAnnotation(i.thenCase), stripAnnotation(i.elseCase));
      out->span = i.span;
      return out;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      auto out = make<LetStmt>(l.var, l.value, stripAnnotation(l.body));
      out->span = l.span;
      return out;
    }
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      auto out = make<AssertStmt>(a.cond, a.message, stripAnnotation(a.body));
      out->span = a.span;
      return out;
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      const TirBlock& b = *r.block;
      auto blk = make<TirBlock>();
      blk->name = b.name, blk->iterVars = b.iterVars, blk->reads = b.reads, blk->writes = b.writes;
      blk->init = stripAnnotation(b.init), blk->body = stripAnnotation(b.body), blk->allocBuffers = b.allocBuffers, blk->matchBuffers = b.matchBuffers;
      blk->annotations = withoutAttr(b.annotations, kPreproc), blk->span = b.span;
      auto out = make<BlockRealize>();
      out->iterValues = r.iterValues, out->predicate = r.predicate, out->block = blk, out->span = r.span;
      return out;
    }
    default: return s;
  }
}

Stmt rootBlock(std::vector<Stmt> stmts, std::vector<BufferRef> allocs) {
  auto root = make<TirBlock>();
  root->name = "root";
  root->body = stmts.size() == 1 ? stmts[0] : Stmt(make<SeqStmt>(std::move(stmts)));
  root->allocBuffers = std::move(allocs);
  auto out = make<BlockRealize>();
  out->predicate = boolImm(true);
  out->block = root;
  return out;
}

struct RewriteInfo {
  size_t param;        // the weight's parameter position
  BufferRef pre, post;  // the weight's buffer, the packed buffer
};

struct Split {
  PrimFuncRef prepack, compute;
  std::vector<RewriteInfo> infos;
  GlobalVarRef prepackGv, computeGv;  // set when first called
};

// Both halves keep the kernel's attrs but layout_free_buffers; a global_symbol gets the suffix.
AttrsRef splitAttrs(const AttrsRef& attrs, const std::string& suffix) {
  AttrsRef out = withoutAttr(attrs, "layout_free_buffers");
  if (auto gs = attrStr(out, "global_symbol")) out = withDictAttr(out, "global_symbol", AttrValue::str(*gs + suffix));
  return out;
}

// Splits `f` (named `name`) when it has preproc blocks; nullopt when it has none.
Result<std::optional<Split>> splitKernel(const std::string& name, const PrimFunc& f) {
  std::vector<const TirBlock*> all;
  collectBlocks(f.body, all);
  if (std::none_of(all.begin(), all.end(), [](const TirBlock* b) { return isPreprocBlock(*b); })) return std::optional<Split>();
  std::string where = "kernel \"" + name + "\"";
  auto realize = f.body.as<BlockRealize>();
  if (!realize) return Error(where + ": its body must be a root block holding the layout rewrite blocks and the compute");
  const TirBlock& root = *realize->block;
  std::vector<Stmt> items;
  if (auto seq = root.body.as<SeqStmt>()) items = seq->seq;
  else items.push_back(root.body);
  Split out;
  std::vector<Stmt> preproc, compute;
  for (auto& item : items) {
    std::vector<const TirBlock*> blocks;
    collectBlocks(item, blocks);
    if (blocks.empty()) return Error(where + ": a statement of its root block holds no block");
    bool isPre = isPreprocBlock(*blocks[0]);
    for (auto* b : blocks) {
      if (isPreprocBlock(*b) != isPre)
        return Error(where + ": block \"" + b->name + "\" is " + (isPre ? "not " : "") + "a layout rewrite block but shares a loop nest with " + (isPre ? "" : "no ") + "layout rewrite blocks");
      if (!isPre) continue;
      if (b->reads.size() != 1 || b->writes.size() != 1) return Error(where + ": layout rewrite block \"" + b->name + "\" must read one buffer and write one");
      if (!b->allocBuffers.empty() || !b->matchBuffers.empty()) return Error(where + ": layout rewrite block \"" + b->name + "\" must not allocate or match buffers");
      const BufferRef& pre = b->reads[0].buffer;
      std::optional<size_t> param;
      for (size_t k = 0; k < f.params.size() && !param; ++k)
        if (auto* buf = f.bufferOf(f.params[k]); buf && buf->get() == pre.get()) param = k;
      if (!param) return Error(where + ": layout rewrite block \"" + b->name + "\" reads \"" + pre->name + "\", which is not a parameter");
      out.infos.push_back({*param, pre, b->writes[0].buffer});
    }
    (isPre ? preproc : compute).push_back(stripAnnotation(item));
  }
  if (items.size() == 1 && !preproc.empty()) return Error(where + ": it has only layout rewrite blocks (no compute after them)");
  // The prepack kernel: weights in, packed buffers out.
  auto pp = make<PrimFunc>();
  for (bool post : {false, true})
    for (auto& info : out.infos) {
      const BufferRef& buf = post ? info.post : info.pre;
      auto handle = make<PrimVar>(buf->name, DataType::handle());
      pp->params.push_back(handle);
      pp->bufferMap.emplace_back(handle, buf);
    }
  pp->body = rootBlock(preproc, {});
  pp->attrs = splitAttrs(f.attrs, "_weight_prepack");
  pp->sinfo = f.sinfo;
  pp->span = f.span;
  out.prepack = pp;
  // The compute kernel: the packed buffers stand for the weights; they are no longer allocated.
  auto cp = copyPrimFunc(f);
  for (auto& info : out.infos)
    for (auto& [p, b] : cp->bufferMap)
      if (p == f.params[info.param]) b = info.post;
  std::vector<BufferRef> allocs;
  for (auto& a : root.allocBuffers)
    if (std::none_of(out.infos.begin(), out.infos.end(), [&](const RewriteInfo& i) { return i.post.get() == a.get(); })) allocs.push_back(a);
  cp->body = rootBlock(compute, allocs);
  cp->attrs = splitAttrs(f.attrs, "_prepacked");
  out.compute = cp;
  return std::optional<Split>(std::move(out));
}

struct ModuleState {
  std::map<std::string, Split> splits;  // by kernel name
  std::set<std::string> names;
  std::vector<std::pair<GlobalVarRef, Expr>> added;

  GlobalVarRef add(const std::string& base, Expr func) {
    std::string name = base;
    for (int n = 1; names.count(name); ++n) name = base + std::to_string(n);
    names.insert(name);
    auto gv = make<GlobalVar>(name);
    added.emplace_back(gv, std::move(func));
    return gv;
  }
};

class CallSplitter : public BindingRewriter {
 public:
  explicit CallSplitter(ModuleState& st) : st_(st) {}
  Status status = okStatus();

 protected:
  Expr rewriteValue(const BindingRef& binding, const Expr& value) override {
    if (!status.ok()) return nullptr;
    auto c = value.as<Call>();
    if (!c || c->opName() != "relax.call_tir" || c->args.size() < 2) return nullptr;
    auto gv = c->args[0].as<GlobalVar>();
    auto it = gv ? st_.splits.find(gv->name) : st_.splits.end();
    if (it == st_.splits.end()) return nullptr;
    auto r = rewrite(*c, gv->name, it->second);
    if (!r.ok()) {
      Error e = r.error();
      if (!e.span.known()) e.span = binding->span.known() ? binding->span : c->span;
      status = e;
      return nullptr;
    }
    return r.value();
  }

 private:
  Result<Expr> rewrite(const Call& c, const std::string& name, Split& split) {
    std::string where = "the call of \"" + name + "\"";
    auto args = c.args[1].as<Tuple>();
    if (!args) return Error(where + " does not pass its arguments as a tuple");
    std::vector<StructInfo> packed;
    std::vector<Expr> weights;
    for (auto& info : split.infos) {
      if (info.param >= args->fields.size()) return Error(where + ": the layout rewrite reads buffer " + std::to_string(info.param) + ", which is not an input of the call");
      weights.push_back(args->fields[info.param]);
      std::vector<PrimExpr> dims;  // int64, as TVM's ShapeExpr makes TIR's int32 extents
      for (auto& d : info.post->shape) {
        auto* imm = asIntImm(d);
        if (!imm) return Error(where + ": the packed buffer \"" + info.post->name + "\" has a symbolic shape (not supported, as in TVM)");
        dims.push_back(intImm(imm->value));
      }
      packed.push_back(tensorSInfo(dims, info.post->dtype));
    }
    if (!split.prepackGv) {
      split.prepackGv = st_.add(name + "_weight_prepack", split.prepack);
      split.computeGv = st_.add(name + "_prepacked", split.compute);
    }
    StructInfo packedSInfo = packed.size() == 1 ? packed[0] : StructInfo(make<TupleSInfo>(packed));
    Expr pre = bind(make<Call>(c.op, std::vector<Expr>{split.prepackGv, make<Tuple>(weights)}, nullptr, std::vector<StructInfo>{packedSInfo}));
    std::vector<Expr> fields = args->fields;
    for (size_t k = 0; k < split.infos.size(); ++k) fields[split.infos[k].param] = split.infos.size() == 1 ? pre : Expr(make<TupleGetItem>(pre, int(k)));
    std::vector<Expr> callArgs = c.args;  // tir_vars, if any, stay
    callArgs[0] = split.computeGv;
    callArgs[1] = make<Tuple>(fields);
    return bind(make<Call>(c.op, callArgs, c.attrs, c.sinfoArgs));
  }

  ModuleState& st_;
};

}  // namespace

Result<Pass> createSplitLayoutRewritePreprocPass(PassOptions&) {
  return Pass({"SplitLayoutRewritePreproc", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    ModuleState st;
    for (auto& e : mod->functions) {
      st.names.insert(e.gvar->name);
      auto f = e.func.as<PrimFunc>();
      if (!f) continue;
      RLX_TRY(split, splitKernel(e.gvar->name, *f));
      if (split) st.splits.emplace(e.gvar->name, std::move(*split));
    }
    IRModuleRef out = mod;
    if (!st.splits.empty()) {
      for (auto& e : mod->functions) {
        if (!e.func.is<Function>() || !ctx.inScope(e.gvar->name)) continue;
        CallSplitter splitter(st);
        Expr f = splitter.mutate(e.func);
        if (!splitter.status.ok()) return splitter.status.error();
        if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
      }
      for (auto& [gv, f] : st.added) out = withFunction(out, gv, f);
    }
    // TVM's pass is Sequential(split, DeadCodeElimination()): entries are the public functions.
    return eliminateDeadCode(out, {});
  });
}

}  // namespace rlx
