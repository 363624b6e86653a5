// TIR half of the well-formedness verifier ([V9], see verifier.h): scoping of variables and
// buffers inside a PrimFunc, and block iter vars against their BlockRealize bindings.
#include <unordered_set>

#include "ir/tir.h"
#include "ir/verifier.h"

namespace rlx {
namespace {

class TirVerifier {
 public:
  TirVerifier(const std::string& name, std::vector<Error>& out, std::vector<Ref<PrimVar>>* freeOut = nullptr)
      : name_(name), out_(out), free_(freeOut) {}

  void run(const PrimFunc& f) {
    curSpan_ = f.span;
    for (auto& p : f.params) defineVar(p.get());
    // buffer_map (T.match_buffer / T.Buffer params) binds the buffer and every var in its layout.
    // The bindings happen together: `flat: (n * m,)` may use n and m that a later buffer `(n, m)`
    // binds (TVM's LegalizeOps emits such kernels), so bare vars are bound before any is checked.
    for (auto& [param, buf] : f.bufferMap)
      if (buf) bindLayoutVars(*buf);
    for (auto& [param, buf] : f.bufferMap)
      if (buf) defineBuffer(*buf, /*bindsLayoutVars=*/true);
    if (f.body) visitStmt(f.body);
  }

 private:
  const std::string& name_;
  std::vector<Error>& out_;
  std::vector<Ref<PrimVar>>* free_;  // when set, undefined vars are collected here instead of reported
  Span curSpan_;
  std::vector<const PrimVar*> varStack_;
  std::unordered_set<const PrimVar*> vars_;
  std::vector<const Buffer*> bufStack_;
  std::unordered_set<const Buffer*> bufs_;
  std::unordered_set<const void*> reported_;

  void error(const std::string& msg, const void* node) {
    if (node && !reported_.insert(node).second) return;
    out_.emplace_back("[V9] " + msg + " (in prim_func '" + name_ + "')", curSpan_);
  }

  void defineVar(const PrimVar* v) {
    if (v && vars_.insert(v).second) varStack_.push_back(v);
  }
  // Scopes: loops, lets and blocks end their vars (and a block its buffers) when they close.
  struct Mark {
    size_t vars, bufs;
  };
  Mark mark() const { return {varStack_.size(), bufStack_.size()}; }
  void release(Mark m) {
    for (size_t i = m.vars; i < varStack_.size(); ++i) vars_.erase(varStack_[i]);
    varStack_.resize(m.vars);
    for (size_t i = m.bufs; i < bufStack_.size(); ++i) bufs_.erase(bufStack_[i]);
    bufStack_.resize(m.bufs);
  }

  void bindLayoutVars(const Buffer& b) {
    auto bind = [&](const PrimExpr& e) {
      if (auto v = e ? e.as<PrimVar>() : Ref<PrimVar>()) defineVar(v.get());
    };
    for (auto& d : b.shape) bind(d);
    for (auto& st : b.strides) bind(st);
    bind(b.elemOffset);
  }

  void defineBuffer(const Buffer& b, bool bindsLayoutVars) {
    if (b.data) defineVar(b.data.get());
    auto layout = [&](const PrimExpr& e) {
      if (!e) return;
      if (bindsLayoutVars) {
        if (auto v = e.as<PrimVar>()) return defineVar(v.get());
      }
      visitPrim(e);
    };
    for (auto& d : b.shape) layout(d);
    for (auto& s : b.strides) layout(s);
    layout(b.elemOffset);
    if (bufs_.insert(&b).second) bufStack_.push_back(&b);
  }

  void useBuffer(const BufferRef& b) {
    if (!b) return;
    if (!bufs_.count(b.get())) error("buffer '" + b->name + "' is used but not defined in scope", b.get());
  }

  void visitRegion(const BufferRegion& r) {
    useBuffer(r.buffer);
    for (auto& rg : r.region) {
      visitPrim(rg.min);
      visitPrim(rg.extent);
    }
  }

  void visitPrim(const PrimExpr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::PrimVar: {
        auto* v = static_cast<const PrimVar*>(e.get());
        if (vars_.count(v)) return;
        if (!free_) return error("variable '" + v->name + "' is used but not defined in scope", v);
        if (reported_.insert(v).second) free_->push_back(e.as<PrimVar>());
        return;
      }
      case NodeKind::Not:
        return visitPrim(static_cast<const PrimNot&>(*e).a);
      case NodeKind::Select: {
        auto& s = static_cast<const Select&>(*e);
        visitPrim(s.cond);
        visitPrim(s.trueValue);
        return visitPrim(s.falseValue);
      }
      case NodeKind::Cast:
        return visitPrim(static_cast<const Cast&>(*e).value);
      case NodeKind::PrimCall:
        for (auto& a : static_cast<const PrimCall&>(*e).args) visitPrim(a);
        return;
      case NodeKind::BufferLoad: {
        auto& l = static_cast<const BufferLoad&>(*e);
        useBuffer(l.buffer);
        for (auto& i : l.indices) visitPrim(i);
        return;
      }
      case NodeKind::PrimLet: {
        auto& l = static_cast<const PrimLet&>(*e);
        visitPrim(l.value);
        Mark m = mark();
        defineVar(l.var.get());
        visitPrim(l.body);
        return release(m);
      }
      case NodeKind::Ramp: {
        auto& r = static_cast<const Ramp&>(*e);
        visitPrim(r.base);
        return visitPrim(r.stride);
      }
      case NodeKind::Broadcast:
        return visitPrim(static_cast<const Broadcast&>(*e).value);
      default:
        if (auto b = e.as<PrimBinary>()) {
          visitPrim(b->a);
          visitPrim(b->b);
        }
        return;  // IntImm, FloatImm, TirStringImm
    }
  }

  void visitStmt(const Stmt& s) {
    if (!s) return;
    Span saved = curSpan_;
    if (s->span.known()) curSpan_ = s->span;
    switch (s->kind()) {
      case NodeKind::BufferStore: {
        auto& st = static_cast<const BufferStore&>(*s);
        useBuffer(st.buffer);
        visitPrim(st.value);
        for (auto& i : st.indices) visitPrim(i);
        break;
      }
      case NodeKind::SeqStmt:
        for (auto& x : static_cast<const SeqStmt&>(*s).seq) visitStmt(x);
        break;
      case NodeKind::For: {
        auto& f = static_cast<const For&>(*s);
        visitPrim(f.min);
        visitPrim(f.extent);
        Mark m = mark();
        defineVar(f.loopVar.get());
        visitStmt(f.body);
        release(m);
        break;
      }
      case NodeKind::IfThenElse: {
        auto& i = static_cast<const IfThenElse&>(*s);
        visitPrim(i.cond);
        visitStmt(i.thenCase);
        visitStmt(i.elseCase);
        break;
      }
      case NodeKind::LetStmt: {
        auto& l = static_cast<const LetStmt&>(*s);
        visitPrim(l.value);
        Mark m = mark();
        defineVar(l.var.get());
        visitStmt(l.body);
        release(m);
        break;
      }
      case NodeKind::Evaluate:
        visitPrim(static_cast<const Evaluate&>(*s).value);
        break;
      case NodeKind::AssertStmt: {
        auto& a = static_cast<const AssertStmt&>(*s);
        visitPrim(a.cond);
        visitPrim(a.message);
        visitStmt(a.body);
        break;
      }
      case NodeKind::BlockRealize: {
        auto& r = static_cast<const BlockRealize&>(*s);
        for (auto& v : r.iterValues) visitPrim(v);
        visitPrim(r.predicate);
        if (r.block && r.block->iterVars.size() != r.iterValues.size())
          error("block '" + r.block->name + "' has " + std::to_string(r.block->iterVars.size()) + " iter vars but " + std::to_string(r.iterValues.size()) + " bound values", r.block.get());
        visitStmt(r.block);
        break;
      }
      case NodeKind::TirBlock:
        visitBlock(static_cast<const TirBlock&>(*s));
        break;
      default:
        break;
    }
    curSpan_ = saved;
  }

  void visitBlock(const TirBlock& b) {
    Mark m = mark();
    // Iter var domains are evaluated outside the block; the vars themselves only exist inside it.
    for (auto& iv : b.iterVars) {
      visitPrim(iv.dom.min);
      visitPrim(iv.dom.extent);
    }
    for (auto& iv : b.iterVars) defineVar(iv.var.get());
    for (auto& a : b.allocBuffers)
      if (a) defineBuffer(*a, /*bindsLayoutVars=*/false);
    for (auto& mb : b.matchBuffers) {
      visitRegion(mb.source);
      if (mb.buffer) defineBuffer(*mb.buffer, /*bindsLayoutVars=*/true);
    }
    for (auto& r : b.reads) visitRegion(r);
    for (auto& w : b.writes) visitRegion(w);
    visitStmt(b.init);
    visitStmt(b.body);
    release(m);
  }
};

}  // namespace

void verifyPrimFunc(const PrimFunc& func, const std::string& name, std::vector<Error>& out) {
  TirVerifier(name, out).run(func);
}

std::vector<Ref<PrimVar>> primFuncFreeVars(const PrimFunc& func) {
  std::vector<Error> errors;
  std::vector<Ref<PrimVar>> out;
  TirVerifier("", errors, &out).run(func);
  return out;
}

}  // namespace rlx
