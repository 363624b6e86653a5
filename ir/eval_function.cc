// Function-level reference evaluation: an environment of Relax vars and symbolic vars, one
// binding at a time; op calls go to evaluateCall, kernels to runPrimFunc.
#include "ir/eval_function.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "ir/arith.h"
#include "ir/block_builder.h"
#include "ir/struct_info.h"
#include "ir/tir_eval.h"

namespace rlx {

StructInfo valueSInfo(const Value& v) {
  switch (v.kind) {
    case Value::Tensor: {
      std::vector<PrimExpr> dims;
      for (auto d : v.tensor->shape) dims.push_back(intImm(d));
      return tensorSInfo(std::move(dims), v.tensor->dtype);
    }
    case Value::Shape: {
      std::vector<PrimExpr> dims;
      for (auto d : v.shape) dims.push_back(intImm(d));
      return make<ShapeSInfo>(std::move(dims), int(v.shape.size()));
    }
    case Value::Prim: return make<PrimSInfo>(v.dtype, v.dtype.isFloat() ? PrimExpr() : intImm(v.i, v.dtype));
    case Value::Tuple: {
      std::vector<StructInfo> fields;
      for (auto& f : v.fields) fields.push_back(valueSInfo(f));
      return make<TupleSInfo>(std::move(fields));
    }
    default: return objectSInfo();
  }
}

// A function value: a nested Relax function with the values of the outer vars and symbolic vars
// it may read, or a module function by name; `trailing` are R.make_closure's captured values, passed
// after the call's own arguments (as LambdaLift lifts captures to trailing parameters).
struct ClosureData {
  FunctionRef func;          // a nested function, or null
  std::string global;        // a module function's name when func is null
  const Var* self = nullptr;  // the var a nested function is bound to (recursive local functions)
  std::unordered_map<const Object*, Value> vars;
  PrimVarMap syms;
  std::vector<Value> trailing;
};

namespace {

constexpr int kMaxDepth = 2000;

// Whether an argument value may be bound to a parameter of struct info `s` without matching
// shapes: a closure fits a callable or an object parameter.
bool closureFits(const Value& v, const StructInfo& s) {
  return v.kind == Value::Closure && (s.as<FuncSInfo>() || s.as<ObjectSInfo>());
}

class FunctionEvaluator {
 public:
  FunctionEvaluator(const IRModule& mod, int depth) : mod_(mod), depth_(depth) {}

  Result<Value> run(const Function& f, const std::string& name, const std::vector<Value>& args) {
    if (args.size() != f.params.size())
      return Error(fmt::format("{} takes {} arguments, got {}", name, f.params.size(), args.size()));
    for (size_t k = 0; k < args.size(); ++k) {
      if (args[k].kind == Value::Closure && !closureFits(args[k], sinfoOf(f.params[k])))
        return Error(fmt::format("{}: argument {} ({}) is a closure, but its annotation is not R.Callable", name, k, f.params[k]->name));
      if (args[k].kind != Value::Closure && !sinfoMatch(sinfoOf(f.params[k]), valueSInfo(args[k]), syms_))
        return Error(fmt::format("{}: argument {} ({}) is {}, which does not match its annotation", name, k, f.params[k]->name, args[k].describe()));
      vars_[f.params[k].get()] = args[k];
    }
    return eval(f.body);
  }

  // Calls a function value: the nested function in its captured environment, or the module
  // function with the closure's captured values appended to the arguments.
  Result<Value> callClosure(const Value& callee, std::vector<Value> args, const Expr& at) {
    if (callee.kind != Value::Closure) return Error(fmt::format("cannot call {}", callee.describe()), at->span);
    if (depth_ >= kMaxDepth) return Error(fmt::format("call depth exceeds {} (unbounded recursion?)", kMaxDepth), at->span);
    const ClosureData& c = *callee.closure;
    args.insert(args.end(), c.trailing.begin(), c.trailing.end());
    FunctionEvaluator inner(mod_, depth_ + 1);
    if (c.func) {
      inner.vars_ = c.vars;
      inner.syms_ = c.syms;
      if (c.self) inner.vars_[c.self] = callee;
      return inner.run(*c.func, c.self ? c.self->name : "a local function", args);
    }
    auto fn = mod_.lookup(c.global).as<Function>();
    if (!fn) return Error(fmt::format("the closure's function {} is not a Relax function of the module", c.global), at->span);
    return inner.run(*fn, c.global, args);
  }

 private:
  Result<int64_t> evalPrim(const PrimExpr& e) {
    auto c = constInt(primSubstitute(e, syms_));
    if (!c) return Error("a symbolic value is not bound by the arguments");
    return *c;
  }

  Result<Value> eval(const Expr& e) {
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: {
        auto it = vars_.find(e.get());
        if (it == vars_.end()) return Error(fmt::format("{} has no value", e.as<Var>()->name), e->span);
        return it->second;
      }
      case NodeKind::ShapeExpr: {
        std::vector<int64_t> dims;
        for (auto& v : e.as<ShapeExpr>()->values) {
          RLX_TRY(d, evalPrim(v));
          dims.push_back(d);
        }
        return Value::ofShape(std::move(dims));
      }
      case NodeKind::PrimValue: {
        auto& v = e.as<PrimValue>()->value;
        if (auto f = v.as<FloatImm>()) return Value::ofFloat(f->value, v->dtype);
        RLX_TRY(i, evalPrim(v));
        return Value::ofInt(i, v->dtype);
      }
      case NodeKind::Tuple: {
        std::vector<Value> fields;
        for (auto& f : e.as<Tuple>()->fields) {
          RLX_TRY(v, eval(f));
          fields.push_back(std::move(v));
        }
        return Value::ofTuple(std::move(fields));
      }
      case NodeKind::TupleGetItem: {
        auto t = e.as<TupleGetItem>();
        RLX_TRY(v, eval(t->tuple));
        if (v.kind != Value::Tuple || t->index < 0 || size_t(t->index) >= v.fields.size())
          return Error(fmt::format("cannot take field {} of {}", t->index, v.describe()), e->span);
        return v.fields[size_t(t->index)];
      }
      case NodeKind::SeqExpr: {
        auto s = e.as<SeqExpr>();
        for (auto& block : s->blocks)
          for (auto& b : block->bindings) RLX_TRY_STATUS(bind(*b));
        return eval(s->body);
      }
      case NodeKind::If: {
        auto i = e.as<If>();
        RLX_TRY(c, eval(i->cond));
        bool taken;
        if (c.kind == Value::Prim) taken = c.primDouble() != 0;
        else if (c.kind == Value::Tensor && c.tensor->numel() == 1) taken = c.tensor->getDouble(0) != 0;
        else return Error(fmt::format("an if condition must be a scalar, got {}", c.describe()), i->cond->span);
        return eval(taken ? i->thenBranch : i->elseBranch);
      }
      case NodeKind::Call: return call(e);
      case NodeKind::Function: {  // a closure over the current environment
        auto data = std::make_shared<ClosureData>();
        data->func = e.as<Function>();
        data->vars = vars_;
        data->syms = syms_;
        return Value::ofClosure(std::move(data));
      }
      case NodeKind::GlobalVar: {
        auto g = e.as<GlobalVar>();
        if (!mod_.lookup(g->name).as<Function>()) break;
        auto data = std::make_shared<ClosureData>();
        data->global = g->name;
        return Value::ofClosure(std::move(data));
      }
      default: break;
    }
    if (auto v = constantValue(e)) return *v;
    return Error(fmt::format("the reference evaluator cannot evaluate {}", nodeKindName(e->kind())), e->span);
  }

  Status bind(const Binding& b) {
    RLX_TRY(v, eval(b.value));
    if (v.kind == Value::Closure && b.value.as<Function>()) {  // a local function may call itself
      auto data = std::make_shared<ClosureData>(*v.closure);
      data->self = b.var.get();
      v = Value::ofClosure(std::move(data));
    }
    if (b.castSInfo && v.kind == Value::Closure && !closureFits(v, b.castSInfo))
      return Error(fmt::format("match_cast of {}: a closure does not match the cast", b.var->name), b.span);
    if (b.castSInfo && v.kind != Value::Closure && !sinfoMatch(b.castSInfo, valueSInfo(v), syms_))
      return Error(fmt::format("match_cast of {}: {} does not match the cast", b.var->name, v.describe()), b.span);
    vars_[b.var.get()] = std::move(v);
    return okStatus();
  }

  // A fresh zero tensor for each tensor of a (static after substitution) output struct info.
  Result<Value> allocate(const StructInfo& s, const Expr& at) {
    if (auto t = s.as<TupleSInfo>()) {
      std::vector<Value> fields;
      for (auto& f : t->fields) {
        RLX_TRY(v, allocate(f, at));
        fields.push_back(std::move(v));
      }
      return Value::ofTuple(std::move(fields));
    }
    auto t = s.as<TensorSInfo>();
    if (!t || !t->dims()) return Error("a kernel output needs a tensor struct info with a known shape", at->span);
    std::vector<int64_t> dims;
    for (auto& d : *t->dims()) {
      RLX_TRY(v, evalPrim(d));
      dims.push_back(v);
    }
    return Value::ofTensor(new NDArray(t->dtype, std::move(dims)));
  }

  static void flatten(const Value& v, std::vector<TirArg>& out) {
    if (v.kind == Value::Tuple) {
      for (auto& f : v.fields) flatten(f, out);
    } else if (v.kind == Value::Tensor) {
      out.emplace_back(v.tensor);
    } else if (v.kind == Value::Prim) {
      if (v.dtype.isFloat()) out.emplace_back(v.f);
      else out.emplace_back(v.i);
    } else if (v.kind == Value::Shape) {
      for (auto d : v.shape) out.emplace_back(d);
    }
  }

  Status runKernel(const Expr& callee, const std::vector<TirArg>& args, const Expr& at, TirArg* result = nullptr) {
    auto g = callee.as<GlobalVar>();
    auto pf = g ? mod_.lookup(g->name).as<PrimFunc>() : Ref<PrimFunc>();
    if (!pf) return Error("the kernel of a call_tir must be a PrimFunc of the module", at->span);
    Status st = runPrimFunc(*pf, args, result);
    if (!st.ok()) return Error(fmt::format("kernel {}: {}", g->name, st.error().message), at->span);
    return okStatus();
  }

  Result<Value> call(const Expr& e) {
    auto c = e.as<Call>();
    std::vector<Value> args;
    for (auto& a : c->args) {
      if ((a.as<GlobalVar>() && !mod_.lookup(a.as<GlobalVar>()->name).as<Function>()) || a.as<ExternFunc>()) {
        args.push_back(Value::ofStr(""));  // a kernel or packed function: read from c->args below
        continue;
      }
      RLX_TRY(v, eval(a));
      args.push_back(std::move(v));
    }
    if (auto g = c->op.as<GlobalVar>()) {
      Expr f = mod_.lookup(g->name);
      if (auto fn = f.as<Function>()) {
        if (depth_ >= kMaxDepth) return Error(fmt::format("call depth exceeds {} (unbounded recursion?)", kMaxDepth), e->span);
        FunctionEvaluator inner(mod_, depth_ + 1);
        return inner.run(*fn, g->name, args);
      }
      std::vector<TirArg> tirArgs;  // a destination-passing kernel call (after CallTIRRewrite)
      for (auto& a : args) flatten(a, tirArgs);
      TirArg result(int64_t(0));
      RLX_TRY_STATUS(runKernel(c->op, tirArgs, e, &result));
      auto pf = f.as<PrimFunc>();
      if (pf && !pf->retType.isVoid())  // a host function's T.ret value (ComputePrimValue)
        return result.kind == TirArg::Float ? Value::ofFloat(result.f, pf->retType) : Value::ofInt(result.i, pf->retType);
      return Value::ofTuple({});
    }
    if (c->op.as<Var>()) {  // a call through a var holding a function value
      RLX_TRY(callee, eval(c->op));
      return callClosure(callee, std::move(args), e);
    }
    const std::string& op = c->opName();
    if (op == "relax.make_closure") {
      auto g = c->args.at(0).as<GlobalVar>();
      if (!g || !mod_.lookup(g->name).as<Function>()) return Error("R.make_closure needs a Relax function of the module", e->span);
      auto data = std::make_shared<ClosureData>();
      data->global = g->name;
      data->trailing = args.at(1).fields;
      return Value::ofClosure(std::move(data));
    }
    if (op == "relax.invoke_closure" || op == "relax.invoke_pure_closure") return callClosure(args.at(0), args.at(1).fields, e);
    if (op == "relax.call_tir" || op == "relax.call_tir_inplace") {
      std::vector<TirArg> tirArgs;
      flatten(args[1], tirArgs);
      Value out;
      if (op == "relax.call_tir") {
        RLX_TRY(o, allocate(sinfoSubstitute(c->sinfoArgs.at(0), syms_), e));
        out = o;
        flatten(out, tirArgs);
      }
      if (c->args.size() > 2) flatten(args[2], tirArgs);
      RLX_TRY_STATUS(runKernel(c->args[0], tirArgs, e));
      if (op == "relax.call_tir_inplace") {  // outputs are the inputs at inplace_indices
        auto idx = c->attrs ? c->attrs->find("inplace_indices") : nullptr;
        std::vector<Value> outs;
        if (idx && *idx)
          for (auto& i : (*idx)->array) outs.push_back(args[1].fields.at(size_t(i->i)));
        return outs.size() == 1 ? outs[0] : Value::ofTuple(std::move(outs));
      }
      return out;
    }
    if (op == "relax.builtin.alloc_tensor") return allocate(sinfoSubstitute(sinfoOf(e), syms_), e);
    if (!c->op.as<Op>()) return Error("the reference evaluator cannot call closures or packed functions", e->span);
    // A copy of the call whose result struct info is static under the current symbolic bindings.
    std::vector<StructInfo> sinfoArgs;
    for (auto& s : c->sinfoArgs) sinfoArgs.push_back(sinfoSubstitute(s, syms_));
    auto concrete = make<Call>(c->op, c->args, c->attrs, std::move(sinfoArgs));
    concrete->sinfo = sinfoSubstitute(sinfoOf(e), syms_);
    concrete->span = e->span;
    auto r = evaluateCall(*concrete, args);
    if (!r.ok() && !staticSInfo(concrete->sinfo)) {
      // A result shape only the argument values decide (R.zeros of a shape parameter): inferred
      // again from the arguments as constants.
      std::vector<Expr> constArgs;
      for (auto& a : args) constArgs.push_back(a.kind == Value::Closure ? Expr() : valueToExpr(a));
      bool all = std::all_of(constArgs.begin(), constArgs.end(), [](const Expr& x) { return bool(x); });
      auto byValue = make<Call>(c->op, std::move(constArgs), c->attrs, concrete->sinfoArgs);
      if (auto inferred = all ? inferCallSInfo(*byValue) : Result<StructInfo>(Error("")); inferred.ok()) {
        concrete->sinfo = inferred.value();
        r = evaluateCall(*concrete, args);
      }
    }
    if (!r.ok()) return std::move(r.error().at(e->span));
    return r;
  }

  // Whether every tensor in `s` has a known shape of constant dims.
  static bool staticSInfo(const StructInfo& s) {
    if (auto t = s.as<TensorSInfo>()) {
      if (!t->dims()) return false;
      for (auto& d : *t->dims())
        if (!d.as<IntImm>()) return false;
      return true;
    }
    if (auto t = s.as<TupleSInfo>())
      for (auto& f : t->fields)
        if (!staticSInfo(f)) return false;
    return true;
  }

  const IRModule& mod_;
  int depth_;
  std::unordered_map<const Object*, Value> vars_;
  PrimVarMap syms_;
};

}  // namespace

Result<Value> evaluateFunction(const IRModule& mod, const std::string& name, const std::vector<Value>& args) {
  auto f = mod.lookup(name).as<Function>();
  if (!f) return Error(fmt::format("the module has no Relax function named \"{}\"", name));
  FunctionEvaluator ev(mod, 0);
  return ev.run(*f, name, args);
}

}  // namespace rlx
