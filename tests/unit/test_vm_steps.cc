// The VM's prepared call steps: compiled-kernel argument checks, alloc_tensor views reused across
// call sites of one storage block, malformed bytecode rejected at load, small loops kept inline.
#include <catch2/catch.hpp>

#include "parser/parser.h"
#include "runtime/jit.h"
#include "runtime/runner.h"
#include "vm_test_util.h"

using namespace rlx;
using namespace rlx::testing;

namespace {

IRModuleRef parseText(const std::string& text) {
  DiagnosticEngine diag;
  auto mod = parseModule(text, "vm_steps_test.py", diag);
  INFO(diag.render());
  REQUIRE(mod);
  return mod;
}

// add(x, y, z): z = x + y on (4,) float32.
const char* kAdd = R"(
    @T.prim_func(private=True)
    def add(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(4),), "float32"), z: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": True})
        for i in range(T.int64(4)):
            with T.block("z"):
                vi = T.axis.spatial(T.int64(4), i)
                z[vi] = x[vi] + y[vi]
)";

std::string moduleWith(const std::string& relaxFunctions) { return std::string("@I.ir_module\nclass Module:") + kAdd + relaxFunctions; }

PrimFuncRef addKernel() {
  auto mod = parseText(moduleWith(""));
  return mod->lookup("add").as<PrimFunc>();
}

vm::Value tensor(DataType t, std::vector<double> v) {
  auto a = make<NDArray>(t, std::vector<int64_t>{int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a->setDouble(int64_t(i), v[i]);
  return vm::Value::ofTensor(a);
}

std::vector<double> flat(const vm::Value& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.array->numel(); ++i) out.push_back(v.array->getDouble(i));
  return out;
}

// The message of the VMError a kernel call throws ("" when it succeeds).
std::string callError(const vm::Kernel& k, std::vector<vm::Value> args) {
  std::vector<const vm::Value*> refs;
  for (auto& a : args) refs.push_back(&a);
  try {
    k.call(refs.data(), int64_t(refs.size()));
  } catch (const vm::VMError& e) {
    return e.message;
  }
  return "";
}

}  // namespace

TEST_CASE("vm steps: a compiled kernel still rejects wrong arguments by name, kind, dtype and dim", "[vm]") {
  for (bool interpret : {false, true}) {
    INFO((interpret ? "interpreted" : "compiled"));
    auto k = vm::Kernel::create("add", addKernel(), interpret);
    REQUIRE(k.ok());
    REQUIRE((*k)->compiled() == !interpret);
    auto f32 = DataType::float32();
    auto out = tensor(f32, {0, 0, 0, 0});
    CHECK(callError(**k, {tensor(f32, {1, 2, 3, 4}), tensor(f32, {10, 20, 30, 40}), out}) == "");
    CHECK(flat(out) == std::vector<double>{11, 22, 33, 44});
    CHECK(callError(**k, {tensor(f32, {1, 2, 3, 4}), tensor(DataType::float64(), {1, 2, 3, 4}), out}) ==
          "kernel add: argument 1 (y_handle) must be a float32 tensor, got a float64 tensor of shape (4,)");
    CHECK(callError(**k, {vm::Value::ofInt(3), tensor(f32, {1, 2, 3, 4}), out}) == "kernel add: argument 0 (x_handle) must be a tensor, got the integer 3");
    CHECK(callError(**k, {tensor(f32, {1, 2, 3, 4}), out}) == "kernel add takes 3 arguments but was called with 2");
    // Every argument is checked, the last one too.
    CHECK(callError(**k, {tensor(f32, {1, 2, 3, 4}), tensor(f32, {1, 2, 3, 4}), tensor(DataType::int32(), {0, 0, 0, 0})}) ==
          "kernel add: argument 2 (z_handle) must be a float32 tensor, got a int32 tensor of shape (4,)");
    if (!interpret) CHECK(callError(**k, {tensor(f32, {1, 2, 3}), tensor(f32, {1, 2, 3, 4}), out}) == "kernel add: buffer 'x' dim 0 does not match the declared 4");
  }
}

TEST_CASE("vm steps: mismatched inputs of a lowered chain are errors naming the parameter and dimension", "[vm]") {
  auto mod = parseText(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((4,), dtype="float32") = R.add(x, y)
            b: R.Tensor((4,), dtype="float32") = R.add(a, y)
            c: R.Tensor((4,), dtype="float32") = R.add(b, y)
            R.output(c)
        return c
)");
  auto prepared = prepareModule(mod, "build");
  INFO((prepared.ok() ? "" : prepared.error().message));
  REQUIRE(prepared.ok());
  auto& machine = *prepared->machine;
  auto f32 = DataType::float32();
  for (int run = 0; run < 2; ++run) {  // the second run goes through reused views
    auto got = machine.invoke("main", {tensor(f32, {1, 2, 3, 4}), tensor(f32, {1, 1, 1, 1})});
    REQUIRE(got.ok());
    CHECK(flat(*got) == std::vector<double>{4, 5, 6, 7});
  }
  auto shape = machine.invoke("main", {tensor(f32, {1, 2, 3, 4}), tensor(f32, {1, 1, 1, 1, 1})});
  REQUIRE(!shape.ok());
  CHECK_THAT(shape.error().message, Catch::Contains("param=y") && Catch::Contains("dimension 0 is 5, expected 4"));
  auto dtype = machine.invoke("main", {tensor(DataType::float64(), {1, 2, 3, 4}), tensor(f32, {1, 1, 1, 1})});
  REQUIRE(!dtype.ok());
  CHECK_THAT(dtype.error().message, Catch::Contains("param=x") && Catch::Contains("float32"));
  auto again = machine.invoke("main", {tensor(f32, {0, 0, 0, 0}), tensor(f32, {2, 2, 2, 2})});
  REQUIRE(again.ok());
  CHECK(flat(*again) == std::vector<double>{6, 6, 6, 6});
}

TEST_CASE("vm steps: views of one storage block are reused across call sites only when idle", "[vm]") {
  // Six tensors live at once in one block (more views than a block keeps for reuse), then a seventh
  // at offset 0 after the first is killed: 2x, 3x, 4x, 5x, 6x, then 6x + 2x = 8x, then 8x + x.
  std::string main = R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        s: R.Object = R.vm.alloc_storage(R.shape([96]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        a0: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(x, x, a0)
        a1: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(16), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(a0, x, a1)
        a2: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(32), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(a1, x, a2)
        a3: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(48), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(a2, x, a3)
        a4: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(64), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(a3, x, a4)
        a5: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(80), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(a4, a0, a5)
        R.vm.kill_object(a0)
        b: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(a5, x, b)
        return b
)";
  auto mod = parseText(moduleWith(main));
  for (bool interpret : {false, true}) {
    INFO((interpret ? "interpreted" : "compiled"));
    auto exec = vm::compileModule(*mod);
    INFO((exec.ok() ? "" : exec.error().message));
    REQUIRE(exec.ok());
    vm::VMOptions options;
    options.interpretKernels = interpret;
    auto machine = vm::VirtualMachine::load(*exec, options);
    REQUIRE(machine.ok());
    // Results of earlier runs are held: their block is not free, so each run gets its own.
    std::vector<vm::Value> held;
    for (double v : {1.0, 2.0, 3.0}) {
      auto got = (*machine)->invoke("main", {tensor(DataType::float32(), {v, v, v, v})});
      INFO((got.ok() ? "" : got.error().message));
      REQUIRE(got.ok());
      held.push_back(*got);
    }
    for (size_t k = 0; k < held.size(); ++k) CHECK(flat(held[k]) == std::vector<double>(4, 9.0 * double(k + 1)));
    CHECK(held[0].array->owner().get() != held[1].array->owner().get());
    // Dropped results free their blocks: the next run reuses one and is still right.
    held.clear();
    auto got = (*machine)->invoke("main", {tensor(DataType::float32(), {1, 2, 3, 4})});
    REQUIRE(got.ok());
    CHECK(flat(*got) == std::vector<double>{9, 18, 27, 36});
  }
}

TEST_CASE("vm steps: a storage value the VM did not make is used as it is", "[vm]") {
  // The pooled-block index a storage value carries is checked against its block: a block passed in
  // from outside, whose index names the VM's first block (which holds an idle view of the same
  // offset, shape and dtype when b is allocated), gets the tensor, not the VM's block.
  std::string main = R"(
    @R.function
    def main(s: R.Object, x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        own: R.Object = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        a: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(own, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(x, x, a)
        t: R.Object = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        c: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(t, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(a, x, c)
        R.vm.kill_object(a)
        b: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        cls.add(c, x, b)
        return b
)";
  auto mod = parseText(moduleWith(main));
  auto exec = vm::compileModule(*mod);
  REQUIRE(exec.ok());
  auto machine = vm::VirtualMachine::load(*exec);
  REQUIRE(machine.ok());
  auto block = NDArray::uninitialized(DataType(DataType::UInt, 8), {16});
  vm::Value storage = vm::Value::ofStorage(block);
  storage.i = 0;
  for (int run = 0; run < 2; ++run) {
    auto got = (*machine)->invoke("main", {storage, tensor(DataType::float32(), {1, 2, 3, 4})});
    INFO((got.ok() ? "" : got.error().message));
    REQUIRE(got.ok());
    CHECK(got->array->owner().get() == block.get());
    CHECK(flat(*got) == std::vector<double>{4, 8, 12, 16});
  }
}

TEST_CASE("vm steps: malformed bytecode is an error at load, not a crash at run time", "[vm]") {
  auto build = [](auto emit) {
    vm::ExecBuilder b;
    b.declareFunction("main", vm::FuncInfo::VMFunc);
    b.beginFunction("main", {"x"});
    emit(b);
    b.endFunction(2);
    return std::make_shared<vm::Executable>(b.exec());
  };
  auto loadError = [](std::shared_ptr<vm::Executable> exec) {
    auto machine = vm::VirtualMachine::load(exec);
    return machine.ok() ? std::string() : machine.error().message;
  };
  CHECK(loadError(build([](vm::ExecBuilder& b) { b.emitRet(0); })) == "");
  CHECK_THAT(loadError(build([](vm::ExecBuilder& b) { b.emitRet(7); })), Catch::Contains("function main, instruction 0: malformed bytecode (register 7 out of range)"));
  CHECK_THAT(loadError(build([](vm::ExecBuilder& b) {
               b.emitGoto(5);
               b.emitRet(0);
             })),
             Catch::Contains("instruction 0: malformed bytecode (jump by 5 leaves the function)"));
  CHECK_THAT(loadError(build([](vm::ExecBuilder& b) {
               b.emitCall(b.declareFunction("vm.builtin.null_value", vm::FuncInfo::Packed), {vm::Arg::make(vm::Arg::Register, 9)}, 1);
               b.emitRet(1);
             })),
             Catch::Contains("register 9 out of range"));
  CHECK_THAT(loadError(build([](vm::ExecBuilder& b) {
               b.emitCall(b.declareFunction("vm.builtin.null_value", vm::FuncInfo::Packed), {vm::Arg::make(vm::Arg::ConstIdx, 3)}, 1);
               b.emitRet(1);
             })),
             Catch::Contains("constant 3 out of range"));
  CHECK_THAT(loadError(build([](vm::ExecBuilder& b) { b.emitCall(b.declareFunction("vm.builtin.null_value", vm::FuncInfo::Packed), {}, 1); })),
             Catch::Contains("instruction 1: malformed bytecode (the function does not end with ret)"));
}

TEST_CASE("vm steps: a constant-size loop too small for threads is compiled inline", "[vm][llvm]") {
  auto small = emitLLVM(addKernel(), "add");
  REQUIRE(small.ok());
  CHECK(small->find("rlx_parallel_for") == std::string::npos);
  auto mod = parseText(R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def big(x: T.Buffer((T.int64(1024), T.int64(512)), "float32"), z: T.Buffer((T.int64(1024), T.int64(512)), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j in T.grid(T.int64(1024), T.int64(512)):
            with T.block("z"):
                vi, vj = T.axis.remap("SS", [i, j])
                z[vi, vj] = x[vi, vj] + x[vi, vj]
)");
  auto big = emitLLVM(mod->lookup("big").as<PrimFunc>(), "big");
  REQUIRE(big.ok());
  CHECK(big->find("rlx_parallel_for") != std::string::npos);
}
