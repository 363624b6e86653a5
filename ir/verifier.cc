// Relax half of the well-formedness verifier ([V1]–[V8], see verifier.h); TIR lives in
// verifier_tir.cc. One walk per function keeps var scopes, symbolic-var scopes and the error list.
#include "ir/verifier.h"

#include <algorithm>
#include <unordered_set>

#include "ir/arith.h"
#include "ir/block_builder.h"
#include "ir/flat_map.h"
#include "ir/struct_info.h"

namespace rlx {
namespace {

class RelaxVerifier {
 public:
  RelaxVerifier(const IRModule& mod, const VerifyOptions& opts, std::vector<Error>& out) : mod_(mod), opts_(opts), out_(out) {}

  void verifyFunction(const Function& f, const std::string& name) {
    fnName_ = name;
    reported_.clear();
    visitFunction(f);
  }

 private:
  const IRModule& mod_;
  const VerifyOptions& opts_;
  std::vector<Error>& out_;
  std::string fnName_;
  Span curSpan_;  // span of the binding being checked: uses of a var carry its definition's span

  // Relax var scope: a stack of defined vars with marks, plus a set for O(1) lookup.
  std::vector<const Var*> varStack_;
  std::vector<size_t> varMarks_;
  // One entry per var ever bound in the module, with what is known of it (one table, not a set
  // per fact: at 100k bindings each table probe is a cache miss).
  enum : uint8_t {
    kBound = 1,    // [V3]: bound once already
    kInScope = 2,  // visible now
    kRetired = 4,  // [V2]: a dataflow var whose block has ended
  };
  FlatMap<const Var*, uint8_t> varState_;
  // Symbolic vars: defined for the rest of the function once seen (TVM scopes them per function).
  std::vector<const PrimVar*> symStack_;
  std::vector<size_t> symMarks_;
  FlatSet<const PrimVar*> symDefined_;
  std::vector<Ref<PrimVar>> varsScratch_;  // symbolic vars of the struct info being checked
  // One report per (invariant, node) so a var used ten times before definition is one error.
  std::unordered_set<std::string> reported_;

  void error(const std::string& id, const std::string& msg, Span span, const void* node = nullptr) {
    if (node) {
      std::string key = id + std::to_string(reinterpret_cast<uintptr_t>(node));
      if (!reported_.insert(key).second) return;
    }
    out_.emplace_back("[" + id + "] " + msg + " (in function '" + fnName_ + "')", span.known() ? span : curSpan_);
  }

  void pushScope() { varMarks_.push_back(varStack_.size()); }
  void popScope() {
    size_t mark = varMarks_.back();
    varMarks_.pop_back();
    for (size_t i = mark; i < varStack_.size(); ++i)
      if (uint8_t* s = varState_.find(varStack_[i])) *s &= uint8_t(~kInScope);
    varStack_.resize(mark);
  }

  // Defines a Relax var (param or binding), checking [V3].
  void defineVar(const VarRef& v, Span span) {
    bool inserted;
    uint8_t& s = varState_.emplace(v.get(), inserted);
    if (s & kBound) error("V3", "variable '" + v->name + "' is bound more than once", span, v.get());
    s |= kBound | kInScope;
    varStack_.push_back(v.get());
  }

  void useVar(const Var& v) {
    const uint8_t* s = varState_.find(&v);
    if (s && (*s & kInScope)) return;
    if (v.isDataflow() && s && (*s & kRetired)) {
      error("V2", "dataflow variable '" + v.name + "' is used outside its dataflow block", curSpan_, &v);
      return;
    }
    error("V1", "variable '" + v.name + "' is used before it is defined", curSpan_, &v);
  }

  void defineSym(const PrimVar* v) {
    if (symDefined_.insert(v)) symStack_.push_back(v);
  }
  void defineSymsOf(const StructInfo& s) {
    std::vector<Ref<PrimVar>> vars;
    if (s) sinfoCollectVars(s, vars);
    for (auto& v : vars) defineSym(v.get());
  }
  void checkPrim(const PrimExpr& e, const char* where) {
    if (!e) return;
    auto& vars = varsScratch_;
    vars.clear();
    collectVars(e, vars);
    for (auto& v : vars)
      if (!symDefined_.count(v.get()))
        error("V5", "symbolic variable '" + v->name + "' is used in " + where + " before it is defined", curSpan_, v.get());
  }
  // [V5] for symbolic vars and [V1] for a shape var (R.Tensor(s, ...)) inside a struct info: the
  // struct info of `of` when given, else `where` says whose it is.
  void checkSInfo(const StructInfo& s, const char* where, const Var* of = nullptr) {
    if (!s) return;
    auto& vars = varsScratch_;
    vars.clear();
    collectFreeSymVars(s, vars);
    for (auto& v : vars)
      if (!symDefined_.count(v.get()))
        error("V5", "symbolic variable '" + v->name + "' is used in " + (of ? "the struct info of '" + of->name + "'" : std::string(where)) + " before it is defined", curSpan_, v.get());
    visitSInfoExprs(s);
  }
  // [V10] R.call_tir(f, args, out_sinfo): the tensors passed (args, then the outputs) agree with
  // f's buffers in number, rank and every extent that is known on both sides (buffer shape vars
  // take the extents of the first tensor that names them).
  void checkCallTir(const Call& c) {
    const std::string& op = c.opName();
    if ((op != "relax.call_tir" && op != "relax.call_tir_with_grad") || c.args.size() < 2 || c.sinfoArgs.empty()) return;
    auto gv = c.args[0].as<GlobalVar>();
    if (!gv) return;
    auto f = mod_.lookup(gv->name).as<PrimFunc>();
    if (!f) return;
    std::vector<StructInfo> tensors;
    if (auto t = c.args[1].as<Tuple>()) {
      for (auto& a : t->fields) tensors.push_back(sinfoOf(a));
    } else if (auto ts = sinfoOf(c.args[1]).as<TupleSInfo>()) {
      tensors = ts->fields;
    } else {
      tensors.push_back(sinfoOf(c.args[1]));
    }
    if (auto outs = c.sinfoArgs[0].as<TupleSInfo>()) tensors.insert(tensors.end(), outs->fields.begin(), outs->fields.end());
    else tensors.push_back(c.sinfoArgs[0]);
    // R.Prim arguments are the kernel's scalar params, not buffers.
    tensors.erase(std::remove_if(tensors.begin(), tensors.end(), [](const StructInfo& s) { return s && s.is<PrimSInfo>(); }), tensors.end());
    std::vector<const Buffer*> buffers;
    for (auto& p : f->params)
      if (auto* b = f->bufferOf(p)) buffers.push_back(b->get());
    if (buffers.size() != tensors.size()) {
      error("V10", "R.call_tir passes " + std::to_string(tensors.size()) + " tensors (arguments and outputs) but '" + gv->name + "' takes " +
                       std::to_string(buffers.size()) + " buffers", c.span, &c);
      return;
    }
    PrimVarMap bound;
    for (size_t i = 0; i < buffers.size(); ++i) {
      auto t = tensors[i].as<TensorSInfo>();
      if (!t) continue;
      const auto& shape = buffers[i]->shape;
      std::string which = i + 1 < buffers.size() || tensors.size() == 1 ? "tensor " + std::to_string(i) : "the output";
      if (t->ndim >= 0 && size_t(t->ndim) != shape.size()) {
        error("V10", "R.call_tir: " + which + " has " + std::to_string(t->ndim) + " dimensions but buffer '" + buffers[i]->name + "' of '" + gv->name + "' has " +
                         std::to_string(shape.size()), c.span, &c);
        return;
      }
      auto dims = t->dims();
      if (!dims) continue;
      for (size_t k = 0; k < shape.size() && k < dims->size(); ++k) {
        const PrimExpr& want = shape[k];
        if (want->kind() == NodeKind::PrimVar && !bound.count(static_cast<const PrimVar*>(want.get()))) {
          bound[static_cast<const PrimVar*>(want.get())] = (*dims)[k];
          continue;
        }
        auto w = constInt(simplify(primSubstitute(want, bound)));
        auto h = constInt((*dims)[k]);
        if (w && h && *w != *h) {
          error("V10", "R.call_tir: dimension " + std::to_string(k) + " of " + which + " is " + std::to_string(*h) + " but buffer '" + buffers[i]->name + "' of '" +
                           gv->name + "' has " + std::to_string(*w), c.span, &c);
          return;
        }
      }
    }
  }

  // The symbolic vars a struct info uses from its context: a function type binds the vars its
  // parameters name directly (R.Prim(value=i), R.Tensor((n,))), as its signature would.
  static void collectFreeSymVars(const StructInfo& s, std::vector<Ref<PrimVar>>& out) {
    if (!s) return;
    if (auto t = s.as<TupleSInfo>()) {
      for (auto& f : t->fields) collectFreeSymVars(f, out);
      return;
    }
    auto f = s.as<FuncSInfo>();
    if (!f) return sinfoCollectVars(s, out);
    std::vector<Ref<PrimVar>> inner;
    std::unordered_set<const PrimVar*> bound;
    if (f->params)
      for (auto& p : *f->params) {
        if (auto ps = p.as<PrimSInfo>(); ps && ps->value && ps->value->kind() == NodeKind::PrimVar) bound.insert(static_cast<const PrimVar*>(ps->value.get()));
        if (auto ts = p.as<TensorSInfo>(); ts && ts->dims())
          for (auto& d : *ts->dims())
            if (d->kind() == NodeKind::PrimVar) bound.insert(static_cast<const PrimVar*>(d.get()));
        if (auto ss = p.as<ShapeSInfo>(); ss && ss->values)
          for (auto& d : *ss->values)
            if (d->kind() == NodeKind::PrimVar) bound.insert(static_cast<const PrimVar*>(d.get()));
        collectFreeSymVars(p, inner);
      }
    collectFreeSymVars(f->ret, inner);
    for (auto& v : inner)
      if (!bound.count(v.get())) out.push_back(v);
  }
  void visitSInfoExprs(const StructInfo& s) {
    switch (s->kind()) {
      case NodeKind::TensorSInfo:
        if (auto v = static_cast<const TensorSInfo&>(*s).shape.as<Var>()) useVar(*v);
        break;
      case NodeKind::TupleSInfo:
        for (auto& f : static_cast<const TupleSInfo&>(*s).fields)
          if (f) visitSInfoExprs(f);
        break;
      default:
        break;
    }
  }

  void visitFunction(const Function& f) {
    pushScope();
    symMarks_.push_back(symStack_.size());
    Span saved = curSpan_;
    curSpan_ = f.span;
    for (auto& p : f.params) {
      if (p->isDataflow()) error("V2", "function parameter '" + p->name + "' is a dataflow variable", p->span, p.get());
      defineVar(p, p->span.known() ? p->span : f.span);
      defineSymsOf(p->sinfo);
    }
    // [V7] force_pure is a promise about a pure function's impure body; on an impure one it is a
    // contradiction TVM rejects.
    if (f.attrs)
      if (auto* fp = f.attrs->find("relax.force_pure"); fp && *fp) {
        bool on = (*fp)->kind == AttrValue::Bool ? (*fp)->b : (*fp)->kind == AttrValue::Int ? (*fp)->i != 0 : false;
        if (on && !f.isPure) error("V7", "'relax.force_pure' is set on a function that is not pure", f.span);
      }
    if (!f.body) {
      error("V7", "function has no body", f.span);
    } else {
      if (f.body->kind() != NodeKind::SeqExpr) error("V7", std::string("function body is a ") + nodeKindName(f.body->kind()) + ", not a SeqExpr", f.body->span);
      visitExpr(f.body);
      curSpan_ = f.span;
      // The declared return struct info is not compared with the body's: TVM's well-formed check
      // does not (its tests declare `-> R.Tensor` over a returned tuple, and keep it).
      if (f.retSInfo) checkSInfo(f.retSInfo, "the return struct info");
    }
    for (size_t i = symMarks_.back(); i < symStack_.size(); ++i) symDefined_.erase(symStack_[i]);
    symStack_.resize(symMarks_.back());
    symMarks_.pop_back();
    popScope();
    curSpan_ = saved;
  }

  Span bodySpan(const Function& f) {
    if (auto seq = f.body.as<SeqExpr>(); seq && seq->body && seq->body->span.known()) return seq->body->span;
    return f.span;
  }

  void visitSeq(const SeqExpr& seq) {
    pushScope();
    for (auto& block : seq.blocks) {
      if (!block) continue;
      std::vector<const Var*> dataflowVars;
      for (auto& b : block->bindings) {
        visitBinding(*b, block->isDataflow());
        if (b->var && b->var->isDataflow()) dataflowVars.push_back(b->var.get());
      }
      // A dataflow block's DataflowVars die with it; only its output (plain) vars stay visible.
      for (auto* v : dataflowVars) {
        bool inserted;
        uint8_t& s = varState_.emplace(v, inserted);
        s = uint8_t((s & ~kInScope) | kRetired);
      }
    }
    Span saved = curSpan_;
    if (seq.body && seq.body->span.known()) curSpan_ = seq.body->span;
    if (seq.body) visitExpr(seq.body);
    curSpan_ = saved;
    popScope();
  }

  void visitBinding(const Binding& b, bool inDataflow) {
    Span saved = curSpan_;
    if (b.span.known()) curSpan_ = b.span;
    else if (b.var && b.var->span.known()) curSpan_ = b.var->span;
    // A local function may call itself: its binding var is in scope inside its own body.
    bool recursiveFunction = b.var && b.value && b.value->kind() == NodeKind::Function && !b.isMatchCast();
    if (recursiveFunction) defineVar(b.var, curSpan_);
    if (b.value) visitExpr(b.value);
    if (b.isMatchCast()) {
      // Vars first seen in the target are defined by the cast itself (that is how they get bound).
      defineSymsOf(b.castSInfo);
      visitSInfoExprs(b.castSInfo);
    }
    if (!b.var) {
      curSpan_ = saved;
      return;
    }
    checkSInfo(b.var->sinfo, nullptr, b.var.get());
    checkBindingSInfo(b);
    if (b.var->isDataflow() && !inDataflow)
      error("V2", "dataflow variable '" + b.var->name + "' is bound outside a dataflow block", curSpan_, b.var.get());
    if (!recursiveFunction) defineVar(b.var, curSpan_);
    curSpan_ = saved;
  }

  // [V4]: the annotation may forget facts inference proved; adding facts, or symbolic extents it
  // cannot prove, is a runtime-checked refinement TVM accepts, so only strict mode rejects it.
  void checkBindingSInfo(const Binding& b) {
    StructInfo have = b.var->sinfo;
    if (!have) return;
    StructInfo inferred = b.isMatchCast() ? b.castSInfo : inferSInfo(b.value);
    if (!inferred) return;
    if (sinfoIsBaseOf(have, inferred)) return;
    // Non-strict: any claim a run-time check could confirm stands (TVM's kFailL0 rule).
    if (!opts_.strictAnnotations && !b.isMatchCast() && !sinfoNeverBaseOf(have, inferred)) return;
    error("V4", "the struct info of '" + b.var->name + "' is not compatible with the struct info inferred for its " + (b.isMatchCast() ? "match_cast target" : "value"), curSpan_, b.var.get());
  }

  // The struct info inference gives for `e` from its parts (null when it cannot say).
  StructInfo inferSInfo(const Expr& e) {
    if (!e) return nullptr;
    switch (e->kind()) {
      case NodeKind::Call: {
        auto r = inferCallSInfo(static_cast<const Call&>(*e));
        if (!r.ok()) {
          error("V4", "struct info inference fails for a call: " + r.error().message, e->span, e.get());
          return nullptr;
        }
        return r.value();
      }
      case NodeKind::Tuple: {
        std::vector<StructInfo> fields;
        for (auto& f : static_cast<const Tuple&>(*e).fields) {
          auto s = inferSInfo(f);
          if (!s) return nullptr;
          fields.push_back(s);
        }
        return make<TupleSInfo>(std::move(fields));
      }
      case NodeKind::TupleGetItem: {
        auto& t = static_cast<const TupleGetItem&>(*e);
        auto ts = inferSInfo(t.tuple).as<TupleSInfo>();
        if (!ts || t.index < 0 || size_t(t.index) >= ts->fields.size()) return nullptr;
        return ts->fields[size_t(t.index)];
      }
      case NodeKind::SeqExpr:
        return inferSInfo(static_cast<const SeqExpr&>(*e).body);
      case NodeKind::If: {
        auto& i = static_cast<const If&>(*e);
        auto a = inferSInfo(i.thenBranch), b = inferSInfo(i.elseBranch);
        return a && b ? sinfoLCA(a, b) : nullptr;
      }
      case NodeKind::Function: {
        auto& f = static_cast<const Function&>(*e);
        std::vector<StructInfo> params;
        for (auto& p : f.params) params.push_back(sinfoOf(p));
        return make<FuncSInfo>(std::move(params), f.retSInfo ? f.retSInfo : objectSInfo(), f.isPure);
      }
      default:
        return e->sinfo;  // leaves: the normalizer's answer is the definition
    }
  }

  void visitExpr(const Expr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar:
        useVar(static_cast<const Var&>(*e));
        break;
      case NodeKind::GlobalVar: {
        auto& g = static_cast<const GlobalVar&>(*e);
        if (!mod_.find(g.name)) error("V6", "global function '" + g.name + "' is referenced but not defined in the module", e->span, e.get());
        break;
      }
      case NodeKind::Tuple:
        for (auto& f : static_cast<const Tuple&>(*e).fields) visitExpr(f);
        break;
      case NodeKind::TupleGetItem:
        visitExpr(static_cast<const TupleGetItem&>(*e).tuple);
        break;
      case NodeKind::Call: {
        auto& c = static_cast<const Call&>(*e);
        visitExpr(c.op);
        for (auto& a : c.args) visitExpr(a);
        for (auto& s : c.sinfoArgs) checkSInfo(s, "a call's sinfo_args");
        checkCallTir(c);
        break;
      }
      case NodeKind::ShapeExpr:
        for (auto& v : static_cast<const ShapeExpr&>(*e).values) checkPrim(v, "a shape");
        break;
      case NodeKind::PrimValue:
        checkPrim(static_cast<const PrimValue&>(*e).value, "a prim value");
        break;
      case NodeKind::If: {
        auto& i = static_cast<const If&>(*e);
        visitExpr(i.cond);
        checkCondition(i);
        visitExpr(i.thenBranch);
        visitExpr(i.elseBranch);
        break;
      }
      case NodeKind::SeqExpr:
        visitSeq(static_cast<const SeqExpr&>(*e));
        break;
      case NodeKind::Function:
        visitFunction(static_cast<const Function&>(*e));
        break;
      default:
        break;  // Constant, StringImm, DataTypeImm, Op, ExternFunc, PrimFunc: nothing to use
    }
  }

  // [V8] The VM branches on a scalar boolean; anything else has no truth value.
  void checkCondition(const If& i) {
    StructInfo s = sinfoOf(i.cond);
    bool ok = false;
    if (auto t = s.as<TensorSInfo>()) ok = (t->ndim == 0 || t->ndim == -1) && (t->dtype.isBool() || t->dtype.isVoid());
    else if (auto p = s.as<PrimSInfo>()) ok = p->dtype.isBool();
    if (!ok) error("V8", "the if condition is not a boolean scalar", i.cond->span.known() ? i.cond->span : i.span, i.cond.get());
  }
};

}  // namespace

std::vector<Error> verifyModule(const IRModuleRef& mod, const VerifyOptions& opts) {
  std::vector<Error> out;
  if (!mod) return out;
  RelaxVerifier relax(*mod, opts, out);
  std::unordered_set<std::string> names;
  for (auto& entry : mod->functions) {
    const std::string& name = entry.gvar ? entry.gvar->name : std::string("<unnamed>");
    if (!names.insert(name).second)
      out.emplace_back("[V6] function '" + name + "' is defined more than once in the module", entry.func ? entry.func->span : Span{});
    if (!entry.func) continue;
    // A Relax function's global_symbol is the name it is exported as: another function's name
    // would make two functions answer to it (TVM's well-formed check; it lets PrimFuncs share one).
    const AttrsRef* attrs = nullptr;
    if (auto f = entry.func.as<Function>()) attrs = &f->attrs;
    if (attrs && *attrs)
      if (const Attr* sym = (*attrs)->find("global_symbol"); sym && *sym && (*sym)->kind == AttrValue::Str && (*sym)->s != name)
        for (auto& other : mod->functions)
          if (other.gvar && other.gvar->name == (*sym)->s && other.func.get() != entry.func.get())
            out.emplace_back("[V6] function '" + name + "' is exported as \"" + (*sym)->s + "\", the name of another function of the module", entry.func->span);
    if (auto f = entry.func.as<Function>()) relax.verifyFunction(*f, name);
    else if (auto pf = entry.func.as<PrimFunc>()) verifyPrimFunc(*pf, name, out);
  }
  return out;
}

}  // namespace rlx
