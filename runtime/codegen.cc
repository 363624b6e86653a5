// Relax -> bytecode: params in registers 0..n-1, a fresh register per binding, leaves as
// immediates / constant-pool entries, If as If+Goto with patched offsets, kernels by name.
#include "runtime/codegen.h"

#include <fmt/format.h>

#include <unordered_map>

#include "ir/arith.h"
#include "ir/attrs.h"
#include "ir/tir.h"

namespace rlx::vm {

namespace {

struct CodegenError {
  Error error;
};

[[noreturn]] void fail(std::string message, const Expr& at, std::string hint = {}) {
  throw CodegenError{Error(std::move(message), at ? at->span : Span{}, std::move(hint))};
}

class FunctionCompiler {
 public:
  FunctionCompiler(ExecBuilder& b, const IRModule& mod, std::string name) : b_(b), mod_(mod), name_(std::move(name)) {}

  void compile(const Function& f) {
    std::vector<std::string> params;
    for (auto& p : f.params) {
      regs_[p.get()] = nextReg_++;
      params.push_back(p->name);
    }
    b_.beginFunction(name_, params);
    int64_t result = toRegister(f.body);
    b_.emitRet(result);
    b_.endFunction(nextReg_);
  }

 private:
  int64_t newReg() { return nextReg_++; }

  int64_t builtin(const std::string& name) { return b_.declareFunction(name, FuncInfo::Packed); }

  // The function-table index a GlobalVar names: a VM function for Relax functions, a kernel entry
  // for PrimFuncs.
  int64_t globalFunc(const GlobalVar& g, const Expr& at) {
    Expr f = mod_.lookup(g.name);
    if (!f) fail(fmt::format("{} is not a function of the module", g.name), at);
    if (f.as<Function>()) return b_.declareFunction(g.name, FuncInfo::VMFunc);
    if (auto pf = f.as<PrimFunc>()) {
      b_.exec().kernels[g.name] = pf;
      return b_.declareFunction(g.name, FuncInfo::Packed);
    }
    if (auto ext = f.as<ExternFunc>()) return b_.declareFunction(ext->symbol, FuncInfo::Packed);
    fail(fmt::format("{} cannot be called", g.name), at);
  }

  // An argument word for a leaf; non-leaves are computed into a register first.
  Arg arg(const Expr& e) {
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: {
        auto it = regs_.find(e.get());
        if (it == regs_.end()) fail(fmt::format("variable {} is used before it is defined", e.as<Var>()->name), e);
        return Arg::make(Arg::Register, it->second);
      }
      case NodeKind::Constant: return Arg::make(Arg::ConstIdx, b_.constant(Value::ofTensor(e.as<Constant>()->data)));
      case NodeKind::ShapeExpr: {
        std::vector<int64_t> dims;
        for (auto& v : e.as<ShapeExpr>()->values) {
          auto c = constInt(v);
          if (!c) fail("a symbolic shape reached the bytecode compiler", e, "VMShapeLower turns symbolic shapes into vm.builtin.make_shape calls");
          dims.push_back(*c);
        }
        return Arg::make(Arg::ConstIdx, b_.constant(Value::ofShape(dims)));
      }
      case NodeKind::PrimValue: {
        const PrimExpr& v = e.as<PrimValue>()->value;
        if (auto f = v.as<FloatImm>()) return Arg::make(Arg::ConstIdx, b_.constant(Value::ofFloat(f->value)));
        auto c = constInt(v);
        if (!c) fail("a symbolic R.prim_value reached the bytecode compiler", e, "VMShapeLower turns symbolic values into vm.builtin.make_prim_value calls");
        if (*c > -kMaxImmediate && *c < kMaxImmediate) return Arg::make(Arg::Immediate, *c);
        return Arg::make(Arg::ConstIdx, b_.constant(Value::ofInt(*c)));
      }
      case NodeKind::StringImm: return Arg::make(Arg::ConstIdx, b_.constant(Value::ofStr(e.as<StringImm>()->value)));
      case NodeKind::DataTypeImm: return Arg::make(Arg::ConstIdx, b_.constant(Value::ofDType(e.as<DataTypeImm>()->value)));
      case NodeKind::GlobalVar: return Arg::make(Arg::FuncIdx, globalFunc(*e.as<GlobalVar>(), e));
      case NodeKind::ExternFunc: return Arg::make(Arg::FuncIdx, builtin(e.as<ExternFunc>()->symbol));
      default: return Arg::make(Arg::Register, toRegister(e));
    }
  }

  std::vector<Arg> args(const std::vector<Expr>& es) {
    std::vector<Arg> out;
    for (auto& e : es) out.push_back(arg(e));
    return out;
  }

  // Emits `e` and returns the register holding its value.
  int64_t toRegister(const Expr& e) {
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: return arg(e).value();
      case NodeKind::SeqExpr: return seq(*e.as<SeqExpr>());
      case NodeKind::Call: return call(e, newReg());
      case NodeKind::If: return ifElse(*e.as<If>());
      case NodeKind::Tuple: {
        int64_t dst = newReg();
        b_.emitCall(builtin("vm.builtin.make_tuple"), args(e.as<Tuple>()->fields), dst);
        return dst;
      }
      case NodeKind::TupleGetItem: {
        auto t = e.as<TupleGetItem>();
        int64_t dst = newReg();
        b_.emitCall(builtin("vm.builtin.tuple_getitem"), {arg(t->tuple), Arg::make(Arg::Immediate, t->index)}, dst);
        return dst;
      }
      case NodeKind::Function: fail("a nested function reached the bytecode compiler", e, "LambdaLift lifts nested functions to module functions");
      default: {  // a constant leaf: copied into a register (a return value, an alias binding)
        int64_t dst = newReg();
        b_.emitCall(builtin("vm.builtin.copy"), {arg(e)}, dst);
        return dst;
      }
    }
  }

  int64_t seq(const SeqExpr& s) {
    for (auto& block : s.blocks)
      for (auto& binding : block->bindings) bind(*binding);
    return toRegister(s.body);
  }

  void bind(const Binding& binding) {
    const Expr& v = binding.value;
    int64_t reg;
    if (v.as<Var>()) {
      // An alias gets its own register (TVM does the same): kill_object on one must not null the other.
      reg = newReg();
      b_.emitCall(builtin("vm.builtin.copy"), {arg(v)}, reg);
    } else if (v.as<Call>()) {
      reg = call(v, isVoidSInfo(sinfoOf(v)) ? kVoidRegister : newReg());
    } else {
      reg = toRegister(v);
    }
    regs_[binding.var.get()] = reg;
  }

  int64_t call(const Expr& e, int64_t dst) {
    auto c = e.as<Call>();
    const Expr& callee = c->op;
    if (auto g = callee.as<GlobalVar>()) {
      b_.emitCall(globalFunc(*g, e), args(c->args), dst);
      return dst;
    }
    if (auto ext = callee.as<ExternFunc>()) {
      b_.emitCall(builtin(ext->symbol), args(c->args), dst);
      return dst;
    }
    if (callee.as<Var>()) {
      std::vector<Arg> a{Arg::make(Arg::Register, kVMRegister), arg(callee)};
      for (auto& x : args(c->args)) a.push_back(x);
      b_.emitCall(builtin("vm.builtin.invoke_closure"), a, dst);
      return dst;
    }
    const std::string& op = c->opName();
    auto withVM = [&](const std::string& fn, std::vector<Arg> rest) {
      rest.insert(rest.begin(), Arg::make(Arg::Register, kVMRegister));
      b_.emitCall(builtin(fn), rest, dst);
      return dst;
    };
    if (op == "relax.vm.alloc_storage") return withVM("vm.builtin.alloc_storage", args(c->args));
    if (op == "relax.vm.alloc_tensor") {
      std::vector<Expr> first4(c->args.begin(), c->args.begin() + std::min<size_t>(4, c->args.size()));
      b_.emitCall(builtin("vm.builtin.alloc_tensor"), args(first4), dst);
      return dst;
    }
    if (op == "relax.vm.kill_object") {
      const Expr& obj = c->args[0];
      int64_t reg = arg(obj).kind() == Arg::Register ? arg(obj).value() : kVoidRegister;
      b_.emitCall(builtin("vm.builtin.null_value"), {}, reg);
      return kVoidRegister;
    }
    if (op == "relax.null_value") {
      b_.emitCall(builtin("vm.builtin.null_value"), {}, dst);
      return dst;
    }
    if (op == "relax.call_builtin_with_ctx") {
      std::string fn;
      if (auto ext = c->args[0].as<ExternFunc>()) fn = ext->symbol;
      else if (auto s = c->args[0].as<StringImm>()) fn = s->value;
      else fail("R.call_builtin_with_ctx needs the builtin's name", e);
      std::vector<Expr> rest;
      if (c->args.size() > 1) {
        if (auto t = c->args[1].as<Tuple>()) rest = t->fields;
        else rest.push_back(c->args[1]);
      }
      return withVM(fn, args(rest));
    }
    fail(fmt::format("{} reached the bytecode compiler (in function {})", "R." + op.substr(op.rfind("relax.") == 0 ? 6 : 0), name_), e,
         "run the build pipeline first (rlx run and :run do): LegalizeOps lowers ops to kernels, the later passes lower the rest");
  }

  int64_t ifElse(const If& i) {
    int64_t cond = newReg();
    b_.emitCall(builtin("vm.builtin.read_if_cond"), {arg(i.cond)}, cond);
    int64_t ifInstr = b_.emitIf(cond, 0);
    int64_t merge = newReg();
    int64_t thenReg = toRegister(i.thenBranch);
    b_.emitCall(builtin("vm.builtin.copy"), {Arg::make(Arg::Register, thenReg)}, merge);
    int64_t gotoInstr = b_.emitGoto(0);
    b_.patchOffset(ifInstr, b_.nextInstr() - ifInstr);
    int64_t elseReg = toRegister(i.elseBranch);
    b_.emitCall(builtin("vm.builtin.copy"), {Arg::make(Arg::Register, elseReg)}, merge);
    b_.patchOffset(gotoInstr, b_.nextInstr() - gotoInstr);
    return merge;
  }

  ExecBuilder& b_;
  const IRModule& mod_;
  std::string name_;
  std::unordered_map<const Object*, int64_t> regs_;
  int64_t nextReg_ = 0;
};

}  // namespace

Result<std::shared_ptr<Executable>> compileModule(const IRModule& mod) {
  ExecBuilder b;
  try {
    for (auto& entry : mod.functions)
      if (auto f = entry.func.as<Function>()) FunctionCompiler(b, mod, entry.gvar->name).compile(*f);
  } catch (CodegenError& e) {
    return std::move(e.error);
  }
  return std::make_shared<Executable>(std::move(b.exec()));
}

}  // namespace rlx::vm
