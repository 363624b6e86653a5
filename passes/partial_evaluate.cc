// PartialEvaluate: Relay's online partial evaluator with Relax semantics (TVM Relax has none):
// every function is evaluated at compile time as far as what it computes is known, and the rest
// is kept (residual code). Relay's version modelled references and ADTs; Relax has neither, so
// what is known is: constants, R.prim_value / R.shape with constant values, strings, dtypes,
// tuples of those, symbolic vars of known value, local functions with the values they capture
// (closures), and module functions used as values.
//
// Why: specializing a function on the arguments it is called with, and unrolling what that makes
// static, leaves straight-line code the other passes (fusion, memory planning) handle.
//
// Each Relax function of the module is walked binding by binding, knowing nothing of its
// parameters; in order:
//  - a pure op call on known arguments is evaluated (FoldConstant's rules and evaluators, but in
//    every block), R.shape_of of a known shape too; the var's uses get the constant;
//  - R.prim_value / R.shape of symbolic vars of known value become constants;
//  - R.If with a known condition becomes the taken branch (its bindings join the block);
//    otherwise both branches are evaluated, each with what is known before the R.If;
//  - R.match_cast of a value whose struct info proves the cast (a known shape, a static one)
//    binds the cast's symbolic vars to their values and becomes an alias;
//  - a call of a known local function or closure (outside dataflow blocks) is unfolded: the body
//    is evaluated in place, its captured values and the arguments known (a recursive local
//    function only when some argument is known);
//  - a call of a module Relax function (not a kernel: Primitive, Composite, Codegen functions and
//    PrimFuncs stay calls) with at least one known argument is specialized: a private copy
//    <name>_spec (then _spec1, ...) without the known parameters, evaluated with them known, one
//    copy per function and set of known values; a copy whose result is known and which does
//    nothing else disappears, the call becoming its value. A call passing a closure is unfolded
//    instead (the closure's captured values live in the caller).
//  - recursion that becomes static is unrolled: a call of a function being specialized or
//    unfolded, with known arguments, is unfolded in place, at most max_depth (default 8) times
//    nested per function, and only where control does not depend on run-time values. Otherwise
//    (inside a residual R.If, or past the bound) it calls the copy made for the same known values
//    if there is one (a specialized loop calling itself), else the original function with its
//    known arguments as constants: the code stays right, and running the pass again continues
//    the unrolling from there. At most 64 copies are made of one function.
//  - impure calls (R.print, R.call_packed, impure functions) are never evaluated or dropped and
//    keep their order (a specialized impure function keeps its effects in the copy).
// Finally unused pure bindings go (as FoldConstant), and private functions no longer called are
// removed. Not done: specializing on tensor shapes alone, partially known tensors, loops other
// than recursion.
// Before: `def pow(x, n: R.Prim(value="n")): if n == 0: r = ones else: r = x * pow(x, n - 1)`
//         `def main(x): y = cls.pow(x, R.prim_value(2))`
// After:  `def pow_spec(x): a = x * <ones constant>; b = x * a; return b`
//         `def main(x): y = cls.pow_spec(x)`   (pow, no longer called, is gone)
#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/eval.h"
#include "ir/eval_function.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/op.h"
#include "ir/structural_equal.h"
#include "ir/struct_info.h"
#include "passes/copy_with_new_vars.h"
#include "passes/cps_form.h"
#include "passes/emitting_mutator.h"
#include "passes/fold_constant.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"
#include "passes/signature_change.h"
#include "passes/symbolic_vars.h"

namespace rlx {

namespace {

constexpr int kMaxCopiesPerFunction = 64;

bool isKernelLike(const Function& f) { return f.attrs && (f.attrs->find("Primitive") || f.attrs->find("Composite") || f.attrs->find("Codegen")); }
bool isPublic(const Function& f) { return f.attrs && f.attrs->find("global_symbol"); }

// ---------------------------------------------------------------- what is known
struct Env;
struct ClosureInfo {
  FunctionRef fn;
  std::shared_ptr<const Env> env;  // what was known where it was defined
  const Var* self = nullptr;        // its binding var (recursive local functions)
};

struct Known {
  enum Kind { Dynamic, Const, Closure, Func, Tuple } kind = Dynamic;
  Expr residual;  // what residual code writes for the value: a var in scope, or a constant
  std::shared_ptr<const ClosureInfo> closure;
  std::string func;
  std::vector<Known> fields;

  bool known() const { return kind != Dynamic; }
  bool holdsClosure() const {
    if (kind == Closure) return true;
    for (auto& f : fields)
      if (f.holdsClosure()) return true;
    return false;
  }
};

struct Env {
  std::unordered_map<const Var*, Known> vars;
  PrimVarMap syms;
};

// A known value a module-level copy can be specialized on: one that does not live in the caller's
// scope (a constant, a module function).
bool specializable(const Known& k) { return k.kind == Known::Const || k.kind == Known::Func; }

Known dynamicOf(const Expr& e) {
  Known k;
  k.residual = e;
  return k;
}

Known constOf(const Expr& e) {
  Known k;
  k.kind = Known::Const;
  k.residual = e;
  return k;
}

// A memo key for a known value ("" when it cannot key a specialization).
std::string keyOf(const Known& k) {
  switch (k.kind) {
    case Known::Const: {
      auto v = constantValue(k.residual);
      if (!v) return "";
      std::ostringstream os;
      std::function<void(const Value&)> put = [&](const Value& x) {
        switch (x.kind) {
          case Value::Tensor:
            os << "T" << x.tensor->dtype.str() << "[";
            for (auto d : x.tensor->shape) os << d << ",";
            os << "]";
            if (x.tensor->numel() <= 64)
              for (int64_t i = 0; i < x.tensor->numel(); ++i) os << x.tensor->getDouble(i) << ";";
            else
              os << "@" << static_cast<const void*>(x.tensor.get());
            break;
          case Value::Prim: os << "P" << x.dtype.str() << ":" << x.primDouble(); break;
          case Value::Shape:
            os << "S";
            for (auto d : x.shape) os << d << ",";
            break;
          case Value::Str: os << "s" << x.str.size() << ":" << x.str; break;
          case Value::DType: os << "d" << x.dtype.str(); break;
          case Value::Tuple:
            os << "(";
            for (auto& f : x.fields) put(f), os << "|";
            os << ")";
            break;
          case Value::Closure: os << "?"; break;
        }
      };
      put(*v);
      return os.str();
    }
    case Known::Func: return "F" + k.func;
    case Known::Tuple: {
      std::string s = "(";
      for (auto& f : k.fields) s += (f.known() ? keyOf(f) : std::string("_")) + "|";
      return s + ")";
    }
    default: return "";
  }
}


// The return struct info TVM's normalizer gives a function with this body and annotation.
StructInfo returnSInfo(const StructInfo& annotation, const Expr& body, const std::vector<VarRef>& params) {
  StructInfo fromBody = eraseToSignature(sinfoOf(body), params);
  if (annotation && !sinfoIsBaseOf(annotation, fromBody)) return annotation;
  return fromBody;
}

// ---------------------------------------------------------------- the evaluator
class PartialEvaluator {
 public:
  PartialEvaluator(const IRModuleRef& mod, int maxDepth) : mod_(mod), maxDepth_(maxDepth) {
    for (auto& e : mod->functions) taken_.insert(e.gvar->name);
  }

  std::vector<std::pair<GlobalVarRef, FunctionRef>> copies;  // specialized copies, in creation order

  // Evaluates module function `f` knowing nothing of its parameters.
  FunctionRef evaluateFunction(const FunctionRef& f) {
    Frame frame;
    frame.fresh = false;
    frame.keepDataflow = true;
    names_.clear();
    collectNames(f);
    Env env;
    for (auto& p : f->params) env.vars[p.get()] = dynamicOf(p);
    BlockCollector out;
    Frame* saved = frame_;
    frame_ = &frame;
    Known result = evalSeq(f->body, env, out);
    frame_ = saved;
    auto body = out.finish(result.residual);
    auto fn = make<Function>(f->params, body, returnSInfo(f->retSInfo, body, f->params), f->isPure, f->attrs);
    fn->span = f->span;
    auto cleaned = removeAllUnused(fn).as<Function>();
    std::vector<StructInfo> ps;
    for (auto& p : cleaned->params) ps.push_back(sinfoOf(p));
    cleaned->sinfo = make<FuncSInfo>(ps, cleaned->retSInfo, cleaned->isPure);
    return cleaned;
  }

 private:
  struct Frame {
    bool fresh = true;          // bindings get new vars (the code is a copy)
    bool keepDataflow = false;  // dataflow blocks stay (the top level of a function body)
    int dynamicDepth = 0;       // residual R.If branches around the code, in this function (copy)
  };
  struct Memo {
    GlobalVarRef gvar;   // the copy, or null when its result is known
    Known value;         // the result when the copy disappeared
  };

  IRModuleRef mod_;
  int maxDepth_;
  std::set<std::string> taken_;  // module function names
  std::set<std::string> names_;  // var names of the function being built
  Frame* frame_ = nullptr;
  std::map<std::string, int> active_;            // unfoldings / specializations in progress, per function
  std::map<const Function*, int> activeLocal_;   // the same for local functions
  std::map<std::string, Memo> memo_;
  std::map<std::string, int> copyCount_;

  void collectNames(const FunctionRef& f) { rlx::collectNames(f, names_); }

  StructInfo subst(const StructInfo& s, const Env& env) const {
    if (!s || env.syms.empty()) return s;
    StructInfo out = sinfoSubstitute(s, env.syms);
    return sinfoEqual(out, s) ? s : out;
  }

  // The var binding `v` becomes in residual code.
  VarRef residualVar(const VarRef& v, const Env& env, bool inDataflowBlock) {
    bool dataflow = inDataflowBlock && v->isDataflow();  // R.output vars stay vars
    StructInfo s = subst(v->sinfo, env);
    if (!frame_->fresh && s.same(v->sinfo) && dataflow == v->isDataflow()) return v;
    auto nv = make<Var>(frame_->fresh ? freshName(v->name, names_) : v->name, s, dataflow);
    nv->span = v->span;
    return nv;
  }

  // ------------------------------------------------------------ residual expressions
  class Residualizer : public ExprMutator {
   public:
    Residualizer(const Env& env) : env_(env) {}

   protected:
    Expr visitVar(const Ref<Var>& v) override {
      auto it = env_.vars.find(v.get());
      return it == env_.vars.end() ? Expr(v) : it->second.residual;
    }
    Expr visitLeaf(const Expr& e) override {
      if (env_.syms.empty()) return e;
      if (auto s = e.as<ShapeExpr>()) {
        std::vector<PrimExpr> values;
        for (auto& v : s->values) values.push_back(primSubstitute(v, env_.syms));
        auto out = make<ShapeExpr>(values);
        out->sinfo = make<ShapeSInfo>(std::move(values), 0);
        out->span = e->span;
        return out;
      }
      if (auto p = e.as<PrimValue>()) {
        auto out = make<PrimValue>(primSubstitute(p->value, env_.syms));
        out->sinfo = make<PrimSInfo>(p->value->dtype, out->value);
        out->span = e->span;
        return out;
      }
      return e;
    }
    Expr visitCall(const Ref<Call>& c) override {
      Expr out = ExprMutator::visitCall(c);
      if (env_.syms.empty()) return out;
      auto call = out.as<Call>();
      std::vector<StructInfo> sargs;
      for (auto& s : call->sinfoArgs) sargs.push_back(sinfoSubstitute(s, env_.syms));
      auto copy = make<Call>(call->op, call->args, call->attrs, std::move(sargs));
      copy->sinfo = sinfoSubstitute(sinfoOf(c), env_.syms);
      copy->span = c->span;
      return copy;
    }
    Expr visitTuple(const Ref<Tuple>& t) override {
      Expr out = ExprMutator::visitTuple(t);
      if (out.same(t)) return out;
      std::vector<StructInfo> fs;
      for (auto& f : out.as<Tuple>()->fields) fs.push_back(sinfoOf(f));
      out->sinfo = make<TupleSInfo>(std::move(fs));
      return out;
    }

   private:
    const Env& env_;
  };

  Expr residualize(const Expr& e, const Env& env) {
    Residualizer r(env);
    return r.mutate(e);
  }

  // ------------------------------------------------------------ atoms
  Known evalAtom(const Expr& e, const Env& env) {
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: {
        auto it = env.vars.find(e.as<Var>().get());
        return it == env.vars.end() ? dynamicOf(e) : it->second;
      }
      case NodeKind::Constant:
      case NodeKind::StringImm:
      case NodeKind::DataTypeImm: return constOf(e);
      case NodeKind::PrimValue:
      case NodeKind::ShapeExpr: {
        Expr r = residualize(e, env);
        return constantValue(r) ? constOf(r) : dynamicOf(r);
      }
      case NodeKind::GlobalVar: {
        Known k = dynamicOf(e);
        if (mod_->lookup(e.as<GlobalVar>()->name).as<Function>()) {
          k.kind = Known::Func;
          k.func = e.as<GlobalVar>()->name;
        }
        return k;
      }
      case NodeKind::Tuple: {
        Known k;
        std::vector<Expr> fields;
        bool allConst = true;
        for (auto& f : e.as<Tuple>()->fields) {
          k.fields.push_back(evalAtom(f, env));
          fields.push_back(k.fields.back().residual);
          allConst = allConst && k.fields.back().kind == Known::Const;
        }
        k.residual = tupleOf(std::move(fields));
        k.kind = allConst ? Known::Const : Known::Tuple;
        if (allConst) k.fields.clear();
        return k;
      }
      default: return dynamicOf(residualize(e, env));
    }
  }

  static bool truthy(const Known& k, bool& value) {
    if (k.kind != Known::Const) return false;
    auto v = constantValue(k.residual);
    if (!v) return false;
    if (v->kind == Value::Prim) value = v->primDouble() != 0;
    else if (v->kind == Value::Tensor && v->tensor->numel() == 1) value = v->tensor->getDouble(0) != 0;
    else return false;
    return true;
  }

  // ------------------------------------------------------------ bodies
  Known evalSeq(const Expr& body, Env& env, BlockCollector& out) {
    auto seq = body.as<SeqExpr>();
    if (!seq) return evalAtom(body, env);
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) evalBinding(b, block->isDataflow() && frame_->keepDataflow, env, out);
    return evalAtom(seq->body, env);
  }

  // Emits `var = value` for binding `b` and records what is known of var.
  void emit(const BindingRef& b, const Expr& value, Known knowledge, bool dataflow, Env& env, BlockCollector& out, const StructInfo& cast = nullptr) {
    VarRef var = residualVar(b->var, env, dataflow);
    auto nb = make<Binding>(var, value, cast);
    nb->span = b->span;
    out.add(nb, dataflow);
    knowledge.residual = var;
    env.vars[b->var.get()] = std::move(knowledge);
  }

  void evalBinding(const BindingRef& b, bool dataflow, Env& env, BlockCollector& out) {
    const Expr& value = b->value;
    if (b->isMatchCast()) return evalMatchCast(b, dataflow, env, out);
    switch (value->kind()) {
      case NodeKind::Call: return evalCall(b, dataflow, env, out);
      case NodeKind::If: return evalIf(b, env, out);
      case NodeKind::Function: {
        auto info = std::make_shared<ClosureInfo>();
        info->fn = value.as<Function>();
        info->self = b->var.get();
        Known k;
        k.kind = Known::Closure;
        VarRef var = residualVar(b->var, env, false);
        k.residual = var;
        env.vars[b->var.get()] = k;  // before the snapshot: the closure may call itself
        info->env = std::make_shared<Env>(env);
        k.closure = info;
        env.vars[b->var.get()] = k;
        Expr fn = residualize(value, env);
        if (frame_->fresh) fn = copyWithNewVars(fn);
        auto nb = make<Binding>(var, fn);
        nb->span = b->span;
        out.add(nb, false);
        return;
      }
      case NodeKind::TupleGetItem: {
        auto t = value.as<TupleGetItem>();
        Known tuple = evalAtom(t->tuple, env);
        Known field;
        if (tuple.kind == Known::Tuple && t->index >= 0 && size_t(t->index) < tuple.fields.size()) field = tuple.fields[size_t(t->index)];
        if (tuple.kind == Known::Const)
          if (auto lit = tuple.residual.as<Tuple>(); lit && t->index >= 0 && size_t(t->index) < lit->fields.size()) {
            env.vars[b->var.get()] = constOf(lit->fields[size_t(t->index)]);
            return;
          }
        if (field.kind == Known::Const) {
          env.vars[b->var.get()] = field;
          return;
        }
        Known knowledge = field.known() ? field : Known();
        return emit(b, residualize(value, env), knowledge, dataflow, env, out);
      }
      default: {
        Known k = evalAtom(value, env);
        if (k.kind == Known::Const) {
          env.vars[b->var.get()] = k;
          return;
        }
        Known knowledge = k;
        return emit(b, k.residual, knowledge, dataflow, env, out);
      }
    }
  }

  void evalMatchCast(const BindingRef& b, bool dataflow, Env& env, BlockCollector& out) {
    Known v = evalAtom(b->value, env);
    StructInfo valueSInfo = sinfoOf(v.residual);  // NOLINT: shadows rlx::valueSInfo below
    if (auto c = constantValue(v.residual)) valueSInfo = rlx::valueSInfo(*c);
    PrimVarMap trial = env.syms;
    StructInfo cast = subst(b->castSInfo, env);
    // The cast is proven when the value's static struct info matches it with every symbolic var
    // it defines getting a constant.
    bool proven = sinfoMatch(cast, valueSInfo, trial);
    if (proven)
      for (auto& [var, val] : trial)
        if (!env.syms.count(var) && !val.as<IntImm>()) proven = false;
    if (proven && sinfoIsBaseOf(subst(b->castSInfo, Env{{}, trial}), valueSInfo)) {
      env.syms = std::move(trial);
      if (v.kind == Known::Const) {
        env.vars[b->var.get()] = v;
        return;
      }
      return emit(b, v.residual, v, dataflow, env, out);
    }
    emit(b, v.residual, Known(), dataflow, env, out, cast);
  }

  void evalIf(const BindingRef& b, Env& env, BlockCollector& out) {
    auto i = b->value.as<If>();
    Known cond = evalAtom(i->cond, env);
    bool taken;
    if (truthy(cond, taken)) {
      Frame frame = *frame_;
      frame.keepDataflow = false;
      Frame* saved = frame_;
      frame_ = &frame;
      Known r = evalSeq(taken ? i->thenBranch : i->elseBranch, env, out);
      frame_ = saved;
      return bindResult(b, r, env, out);
    }
    auto branch = [&](const Expr& seq) {
      Env inner = env;
      BlockCollector branchOut;
      Frame frame = *frame_;
      frame.keepDataflow = false;
      ++frame.dynamicDepth;
      Frame* saved = frame_;
      frame_ = &frame;
      Known r = evalSeq(seq, inner, branchOut);
      frame_ = saved;
      return branchOut.finish(r.residual);
    };
    auto thenSeq = branch(i->thenBranch);
    auto elseSeq = branch(i->elseBranch);
    auto residual = make<If>(cond.residual, thenSeq, elseSeq);
    residual->sinfo = sinfoLCA(sinfoOf(thenSeq), sinfoOf(elseSeq));
    residual->span = i->span;
    emit(b, residual, Known(), false, env, out);
  }

  // ------------------------------------------------------------ calls
  void evalCall(const BindingRef& b, bool dataflow, Env& env, BlockCollector& out) {
    auto c = b->value.as<Call>();
    std::vector<Known> args;
    for (auto& a : c->args) args.push_back(evalAtom(a, env));
    if (auto op = c->op.as<Op>()) {
      Expr residual = residualize(c, env);
      if (op->info->pure) {
        Expr folded = fold(residual.as<Call>());
        if (!folded.same(residual)) {
          env.vars[b->var.get()] = constOf(folded);
          return;
        }
      }
      return emit(b, residual, Known(), dataflow, env, out);
    }
    Known callee = evalAtom(c->op, env);
    if (callee.kind == Known::Closure && callee.closure && !dataflow) {
      if (auto r = unfoldClosure(callee, args, out)) return bindResult(b, *r, env, out);
    }
    if (callee.kind == Known::Func) {
      auto fn = mod_->lookup(callee.func).as<Function>();
      if (fn && !isKernelLike(*fn)) {
        if (auto r = callFunction(callee.func, fn, args, dataflow, out)) {
          if (r->kind == Known::Const || !r->residual.as<Call>()) return bindResult(b, *r, env, out, dataflow);
          return emit(b, r->residual, Known(), dataflow, env, out);
        }
      }
    }
    emit(b, residualize(c, env), Known(), dataflow, env, out);
  }

  // The var of an unfolded call or a taken branch stands for the result: its constant or the var
  // holding it (outside dataflow blocks, where any var in scope may be used); else an alias.
  void bindResult(const BindingRef& b, const Known& r, Env& env, BlockCollector& out, bool dataflow = false) {
    auto v = r.residual.as<Var>();
    if (r.kind == Known::Const || (v && !v->isDataflow() && !dataflow)) {
      env.vars[b->var.get()] = r;
      return;
    }
    emit(b, r.residual, r, dataflow, env, out);
  }

  Expr fold(const Ref<Call>& call) {
    if (call->opName() == "relax.call_tir") return foldCallTIR(call, mod_);
    if (call->opName() == "relax.shape_of") return foldShapeOf(call);
    for (auto& a : call->args)
      if (!constantValue(a)) return call;
    // The arguments are constants: the result's struct info is static once re-inferred.
    auto concrete = make<Call>(call->op, call->args, call->attrs, call->sinfoArgs);
    auto s = inferCallSInfo(*concrete);
    if (!s.ok()) return call;
    concrete->sinfo = s.value();
    concrete->span = call->span;
    Expr folded = foldOpCall(concrete);
    return folded.same(concrete) ? Expr(call) : folded;
  }

  // A call of module function `name`: specialized, unfolded or left (nullopt).
  std::optional<Known> callFunction(const std::string& name, const FunctionRef& fn, const std::vector<Known>& args, bool dataflow, BlockCollector& out) {
    bool anyKnown = false, closures = false;
    for (auto& a : args) {
      anyKnown |= specializable(a);
      closures |= a.holdsClosure();
    }
    if ((!anyKnown && !closures) || args.size() != fn->params.size()) return std::nullopt;
    if (closures || active_[name] > 0) {
      // Unrolling stops at the bound, and where control depends on run-time values (a recursive
      // call inside a residual R.If would unroll into ever more branches). There a copy made for
      // the same known values (the one being built, say) is called, else the function itself.
      if (dataflow || active_[name] >= maxDepth_ || (active_[name] > 0 && frame_->dynamicDepth > 0))
        return closures ? std::nullopt : specialize(name, fn, args, /*reuseOnly=*/true);
      ++active_[name];
      Env inner;
      std::optional<Known> r = unfold(*fn, inner, args, out);
      --active_[name];
      return r;
    }
    return specialize(name, fn, args, false);
  }

  // Evaluates `fn`'s body in place (inner: what is known besides the arguments).
  std::optional<Known> unfold(const Function& fn, Env& inner, const std::vector<Known>& args, BlockCollector& out) {
    if (args.size() != fn.params.size()) return std::nullopt;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!sinfoMatch(fn.params[i]->sinfo, sinfoOf(args[i].residual), inner.syms)) return std::nullopt;
      inner.vars[fn.params[i].get()] = args[i];
    }
    Frame frame;
    frame.fresh = true;
    frame.keepDataflow = false;
    frame.dynamicDepth = frame_->dynamicDepth;
    Frame* saved = frame_;
    frame_ = &frame;
    Known r = evalSeq(fn.body, inner, out);
    frame_ = saved;
    return r;
  }

  std::optional<Known> unfoldClosure(const Known& callee, const std::vector<Known>& args, BlockCollector& out) {
    const ClosureInfo& c = *callee.closure;
    int& depth = activeLocal_[c.fn.get()];
    if (depth >= maxDepth_) return std::nullopt;
    bool anyKnown = false;
    for (auto& a : args) anyKnown |= a.known();
    // A recursive local function is unrolled only on known arguments (else the first level would
    // be copied for nothing), and its recursive calls only where control is static.
    if (c.self && callsItself(c) && (!anyKnown || (depth > 0 && frame_->dynamicDepth > 0))) return std::nullopt;
    Env inner = *c.env;
    if (c.self) inner.vars[c.self] = callee;  // the snapshot was taken before the closure was complete
    ++depth;
    std::optional<Known> r = unfold(*c.fn, inner, args, out);
    --activeLocal_[c.fn.get()];
    return r;
  }

  static bool callsItself(const ClosureInfo& c) {
    bool found = false;
    walkExpr(c.fn->body, [&](const Expr& e) { found |= e.get() == c.self; });
    return found;
  }

  // A call of the copy of `name` specialized on the known arguments (reuseOnly: only one made
  // already, or being made).
  std::optional<Known> specialize(const std::string& name, const FunctionRef& fn, const std::vector<Known>& args, bool reuseOnly) {
    std::string key = name + "(";
    for (auto& a : args) {
      std::string k = specializable(a) ? keyOf(a) : "_";
      if (k.empty()) return std::nullopt;
      key += k + ",";
    }
    key += ")";
    std::vector<Expr> dynamicArgs;
    for (auto& a : args)
      if (!specializable(a)) dynamicArgs.push_back(a.residual);
    auto call = [&](const GlobalVarRef& g) {
      auto c = make<Call>(g, dynamicArgs);
      c->sinfo = g->sinfo.as<FuncSInfo>()->ret;
      return dynamicOf(c);
    };
    if (auto it = memo_.find(key); it != memo_.end()) return it->second.gvar ? call(it->second.gvar) : it->second.value;
    if (reuseOnly || copyCount_[name] >= kMaxCopiesPerFunction) return std::nullopt;
    ++copyCount_[name];

    // The copy's parameters are the unknown ones; the known ones define symbolic vars.
    Env inner;
    std::vector<VarRef> params;
    std::vector<StructInfo> paramSInfo;
    for (size_t i = 0; i < args.size(); ++i) {
      const VarRef& p = fn->params[i];
      if (!specializable(args[i])) continue;
      Known k = args[i];
      if (k.kind == Known::Func) k.residual = mod_->find(k.func)->gvar;  // not the caller's var
      StructInfo s = sinfoOf(k.residual);
      if (auto v = constantValue(k.residual)) s = valueSInfo(*v);
      if (!sinfoMatch(p->sinfo, s, inner.syms)) {
        --copyCount_[name];
        return std::nullopt;
      }
      inner.vars[p.get()] = k;
    }
    // Names: the copy's own, its first var of each name keeping it.
    std::set<std::string> savedNames = std::move(names_);
    names_.clear();
    for (auto& v : usedSymbols(fn)) names_.insert(v->name);
    for (size_t i = 0; i < args.size(); ++i) {
      if (specializable(args[i])) continue;
      const VarRef& p = fn->params[i];
      names_.insert(p->name);
      auto np = make<Var>(p->name, subst(p->sinfo, inner), false);
      np->span = p->span;
      params.push_back(np);
      paramSInfo.push_back(np->sinfo);
      inner.vars[p.get()] = dynamicOf(np);
    }
    auto gvar = make<GlobalVar>(freshName(name + "_spec", taken_));
    StructInfo ret = subst(fn->retSInfo, inner);
    gvar->sinfo = make<FuncSInfo>(paramSInfo, ret, fn->isPure);
    memo_[key] = {gvar, Known()};

    Frame frame;
    frame.fresh = true;
    frame.keepDataflow = true;
    frame.dynamicDepth = 0;
    Frame* saved = frame_;
    frame_ = &frame;
    ++active_[name];
    BlockCollector bodyOut;
    Known r = evalSeq(fn->body, inner, bodyOut);
    --active_[name];
    frame_ = saved;
    names_ = std::move(savedNames);

    auto body = bodyOut.finish(r.residual);
    auto copy = make<Function>(params, body, returnSInfo(ret, body, params), fn->isPure, withoutDictAttr(fn->attrs, "global_symbol"));
    copy->span = fn->span;
    auto cleaned = removeAllUnused(copy).as<Function>();
    cleaned->sinfo = make<FuncSInfo>(paramSInfo, cleaned->retSInfo, cleaned->isPure);
    auto seq = cleaned->body.as<SeqExpr>();
    if (r.kind == Known::Const && seq && seq->blocks.empty()) {  // nothing left to do at run time
      memo_[key] = {nullptr, r};
      --copyCount_[name];
      taken_.erase(gvar->name);
      return r;
    }
    gvar->sinfo = cleaned->sinfo;
    copies.push_back({gvar, cleaned});
    return call(gvar);
  }

};

// The functions `e` refers to.
std::set<std::string> references(const Expr& e) {
  std::set<std::string> out;
  walkExpr(e, [&](const Expr& x) {
    if (auto g = x.as<GlobalVar>()) out.insert(g->name);
  });
  return out;
}

Result<IRModuleRef> partialEvaluate(const IRModuleRef& mod, int maxDepth) {
  PartialEvaluator pe(mod, maxDepth);
  auto out = make<IRModule>();
  out->attrs = mod->attrs;
  out->globalInfos = mod->globalInfos;
  bool changed = false;
  for (auto& e : mod->functions) {
    auto f = e.func.as<Function>();
    if (!f || isKernelLike(*f)) {
      out->functions.push_back(e);
      continue;
    }
    FunctionRef g = pe.evaluateFunction(f);
    if (structuralEqual(g, f, true)) {
      out->functions.push_back(e);
      continue;
    }
    changed = true;
    out->functions.push_back({e.gvar, g});
  }
  for (auto& [gvar, fn] : pe.copies) out->functions.push_back({gvar, fn});
  changed |= !pe.copies.empty();
  // Private functions the pass left without callers go; the others stay.
  std::set<std::string> referencedBefore;
  for (auto& e : mod->functions)
    for (auto& r : references(e.func))
      if (r != e.gvar->name) referencedBefore.insert(r);
  std::set<std::string> live;
  std::vector<std::string> work;
  for (auto& e : out->functions) {
    auto f = e.func.as<Function>();
    bool root = !f || isPublic(*f) || (!referencedBefore.count(e.gvar->name) && mod->find(e.gvar->name));
    if (root) work.push_back(e.gvar->name);
  }
  while (!work.empty()) {
    std::string n = work.back();
    work.pop_back();
    if (!live.insert(n).second) continue;
    for (auto& r : references(out->lookup(n))) work.push_back(r);
  }
  std::vector<IRModule::Entry> kept;
  for (auto& e : out->functions) {
    if (live.count(e.gvar->name)) kept.push_back(e);
    else changed = true;
  }
  if (!changed) return mod;
  out->functions = std::move(kept);
  return IRModuleRef(out);
}

}  // namespace

Result<Pass> createPartialEvaluatePass(PassOptions& options) {
  int64_t maxDepth = options.integer("max_depth").value_or(8);
  if (maxDepth < 0) return Error(fmt::format("PartialEvaluate: max_depth must be 0 or more, not {}", maxDepth));
  return Pass({"PartialEvaluate", 1, {}}, [maxDepth](const IRModuleRef& mod, const PassContext&) { return partialEvaluate(mod, int(maxDepth)); });
}

}  // namespace rlx
