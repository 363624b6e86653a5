// LowerRuntimeBuiltin: the ops the VM runs as builtins become calls of those builtins, as TVM's
// relax.transform.LowerRuntimeBuiltin does (VM codegen only knows calls of functions and builtins):
//   memory.alloc_storage(size, dev, scope, dtype) -> vm.alloc_storage(size, dev, "uint8", scope)
//   memory.alloc_tensor -> vm.alloc_tensor; memory.kill_storage / kill_tensor -> vm.kill_object
//   vm.call_tir_dyn(f, (args)) -> "vm.builtin.call_tir_dyn"(f, args...) returning R.Tuple()
//   reshape / shape_of / tensor_to_shape / shape_to_tensor -> "vm.builtin.<name>"(args...) with the call's struct info
//   make_closure(f, (args)) -> "vm.builtin.make_closure"(f, args...) returning R.Object
//   invoke_closure(c, (args)) -> R.call_builtin_with_ctx("vm.builtin.invoke_closure", (c, args...))
//   call_py_func(name, args) -> "vm.builtin.call_py_func"((name, args)); memory.ensure_zero_offset
//   -> "vm.builtin.ensure_zero_offset" (its FLowerBuiltin).
// Precondition: LowerAllocTensor ran. TVM rejects a leftover R.builtin.alloc_tensor; we leave it
// as it is, so the pass applies to any module (the REPL and the corpus test run it anywhere).
// Before: `lv = R.reshape(x, R.shape([2, 3]))`; after: `lv = R.call_packed("vm.builtin.reshape", x,
// R.shape([2, 3]), sinfo_args=(R.Tensor((2, 3), dtype="float32"),))`.
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

Expr builtinCall(const std::string& name, std::vector<Expr> args, StructInfo ret, AttrsRef attrs = nullptr) {
  return make<Call>(make<ExternFunc>(name), std::move(args), std::move(attrs), std::vector<StructInfo>{std::move(ret)});
}

// The callee followed by the fields of the tuple argument (f, (a, b)) -> (f, a, b).
std::optional<std::vector<Expr>> flattenArgs(const Call& c) {
  auto t = c.args.size() == 2 ? c.args[1].as<Tuple>() : Ref<Tuple>();
  if (!t) return std::nullopt;
  std::vector<Expr> out{c.args[0]};
  out.insert(out.end(), t->fields.begin(), t->fields.end());
  return out;
}

class Lowerer : public BindingRewriter {
 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || !c->op || c->op->kind() != NodeKind::Op) return nullptr;
    const std::string& op = c->opName();
    const auto& a = c->args;
    if (op == "relax.memory.alloc_storage" && a.size() == 4)
      return makeCall("relax.vm.alloc_storage", {a[0], a[1], make<DataTypeImm>(DataType(DataType::UInt, 8)), a[2]});
    if (op == "relax.memory.alloc_tensor" && (a.size() == 4 || a.size() == 5)) return makeCall("relax.vm.alloc_tensor", a);
    if ((op == "relax.memory.kill_storage" || op == "relax.memory.kill_tensor") && a.size() == 1) return makeCall("relax.vm.kill_object", a);
    if (op == "relax.vm.call_tir_dyn") {
      auto args = flattenArgs(*c);
      return args ? builtinCall("vm.builtin.call_tir_dyn", *args, voidSInfo()) : nullptr;
    }
    if (op == "relax.reshape" && a.size() == 2 && sinfoOf(a[1]).is<ShapeSInfo>()) return builtinCall("vm.builtin.reshape", a, c->sinfo);
    if (op == "relax.shape_of" && a.size() == 1) return builtinCall("vm.builtin.shape_of", a, c->sinfo);
    if (op == "relax.tensor_to_shape" && a.size() == 1) return builtinCall("vm.builtin.tensor_to_shape", a, c->sinfo);
    if (op == "relax.shape_to_tensor" && a.size() == 1) return builtinCall("vm.builtin.shape_to_tensor", a, c->sinfo);
    if (op == "relax.memory.ensure_zero_offset" && a.size() == 1) return builtinCall("vm.builtin.ensure_zero_offset", a, c->sinfo);
    if (op == "relax.make_closure") {
      auto args = flattenArgs(*c);
      return args ? builtinCall("vm.builtin.make_closure", *args, objectSInfo()) : nullptr;
    }
    if (op == "relax.invoke_closure") {
      auto args = flattenArgs(*c);
      if (!args) return nullptr;
      return makeCall("relax.call_builtin_with_ctx", {make<ExternFunc>("vm.builtin.invoke_closure"), make<Tuple>(*args)}, nullptr, {objectSInfo()});
    }
    if (op == "relax.call_py_func" && a.size() == 2)
      return make<Call>(make<ExternFunc>("vm.builtin.call_py_func"), std::vector<Expr>{make<Tuple>(a)}, c->attrs, c->sinfoArgs);
    return nullptr;
  }
};

}  // namespace

Result<Pass> createLowerRuntimeBuiltinPass(PassOptions&) { return makeMutatorPass<Lowerer>({"LowerRuntimeBuiltin", 0, {}}); }

}  // namespace rlx
