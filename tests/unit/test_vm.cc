// The bytecode VM: TVM's fully lowered reference modules run on it and agree with the reference
// evaluator on the source modules; bytecode text, errors for bad inputs and unlowered code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "parser/parser.h"
#include "runtime/profile_report.h"
#include "runtime/runner.h"
#include "vm_test_util.h"

using namespace rlx;
using namespace rlx::testing;

namespace {

IRModuleRef load(const std::string& rel) {
  DiagnosticEngine diag;
  auto mod = parseFile(std::string(RLX_SOURCE_DIR) + "/" + rel, diag);
  INFO(diag.render());
  REQUIRE(mod);
  return mod;
}

IRModuleRef parse(const std::string& text) {
  DiagnosticEngine diag;
  auto mod = parseModule(text, "test.relax", diag);
  INFO(diag.render());
  REQUIRE(mod);
  return mod;
}

// if/else, a tuple and a call between functions (the bytecode and profile tests).
const char* const kIfTupleCalls = R"(@I.ir_module
class Module:
    @R.function
    def f(c: R.Prim("bool"), a: R.Tuple(R.Prim("int64"), R.Prim("int64"))) -> R.Prim("int64"):
        if c:
            r = a[0]
        else:
            r = a[1]
        return r

    @R.function
    def main(c: R.Prim("bool")) -> R.Prim("int64"):
        t = (R.prim_value(3), R.prim_value(4))
        r = Module.f(c, t)
        return r
)";

}  // namespace

TEST_CASE("vm: TVM's lowered modules run and match the evaluator on the source", "[vm]") {
  struct Ref {
    const char* source;
    const char* lowered;
    std::map<std::string, int64_t> syms;
  };
  for (auto& r : {Ref{"tests/corpus/01_mlp.relax", "tests/corpus_lowering/01_mlp__16_AttachGlobalSymbol.relax", {}},
                  Ref{"tests/corpus/03_gpt2_block_dyn.relax", "tests/corpus_lowering/03_gpt2_block_dyn__16_AttachGlobalSymbol.relax", {{"n", 5}}}}) {
    INFO(r.lowered);
    auto source = load(r.source), lowered = load(r.lowered);
    auto inputs = randomInputs(*source->lookup("main").as<Function>(), r.syms, 7);
    auto expected = evaluateFunction(*source, "main", inputs);
    INFO((expected.ok() ? "" : expected.error().message));
    REQUIRE(expected.ok());
    vm::VMOptions interp;
    interp.interpretKernels = true;
    auto got = runOnVM(*lowered, "main", inputs, interp);
    INFO((got.ok() ? "" : got.error().message));
    REQUIRE(got.ok());
    CHECK(compareValues(*got, *expected) == "");
  }
}

TEST_CASE("vm: a wrong input shape is an error naming the parameter and dimension", "[vm]") {
  auto lowered = load("tests/corpus_lowering/03_gpt2_block_dyn__16_AttachGlobalSymbol.relax");
  auto source = load("tests/corpus/03_gpt2_block_dyn.relax");
  auto inputs = randomInputs(*source->lookup("main").as<Function>(), {{"n", 3}}, 1);
  inputs[1] = Value::ofTensor(make<NDArray>(DataType::float32(), std::vector<int64_t>{767}));
  vm::VMOptions interp;
  interp.interpretKernels = true;
  auto got = runOnVM(*lowered, "main", inputs, interp);
  REQUIRE(!got.ok());
  CHECK_THAT(got.error().message, Catch::Contains("param=ln1_w") && Catch::Contains("dimension 0 is 767, expected 768"));
}

TEST_CASE("vm: unlowered code is a compile error naming the op and the fix", "[vm]") {
  auto mod = parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y: R.Tensor((2,), dtype="float32") = R.add(x, x)
        return y
)");
  auto exec = vm::compileModule(*mod);
  REQUIRE(!exec.ok());
  CHECK_THAT(exec.error().message, Catch::Contains("R.add reached the bytecode compiler"));
  CHECK(exec.error().span.known());
}

TEST_CASE("vm: bytecode text of if/else, tuples and calls between functions", "[vm]") {
  auto mod = parse(kIfTupleCalls);
  auto exec = vm::compileModule(*mod);
  INFO((exec.ok() ? "" : exec.error().message));
  REQUIRE(exec.ok());
  CHECK((*exec)->asText() ==
        "@f:\n"
        "  call  vm.builtin.read_if_cond in: %0           dst: %2\n"
        "  If    %2, 4\n"
        "  call  vm.builtin.tuple_getitem in: %1, i0       dst: %4\n"
        "  call  vm.builtin.copy  in: %4           dst: %3\n"
        "  goto  3\n"
        "  call  vm.builtin.tuple_getitem in: %1, i1       dst: %5\n"
        "  call  vm.builtin.copy  in: %5           dst: %3\n"
        "  ret   %3\n"
        "\n"
        "@vm.builtin.read_if_cond packed_func;\n\n"
        "@vm.builtin.tuple_getitem packed_func;\n\n"
        "@vm.builtin.copy packed_func;\n\n"
        "@main:\n"
        "  call  vm.builtin.make_tuple in: i3, i4       dst: %1\n"
        "  call  f                in: %0, %1       dst: %2\n"
        "  ret   %2\n"
        "\n"
        "@vm.builtin.make_tuple packed_func;\n\n");
  auto machine = vm::VirtualMachine::load(*exec);
  REQUIRE(machine.ok());
  auto t = (*machine)->invoke("main", {vm::Value::ofInt(1)});
  REQUIRE(t.ok());
  CHECK(t->i == 3);
  auto f = (*machine)->invoke("main", {vm::Value::ofInt(0)});
  REQUIRE(f.ok());
  CHECK(f->i == 4);
}

TEST_CASE("vm: the profile counts every kernel and builtin call, not calls of VM functions", "[vm]") {
  auto mod = parse(kIfTupleCalls);
  auto exec = vm::compileModule(*mod);
  REQUIRE(exec.ok());
  vm::VMOptions options;
  options.profile = true;
  auto machine = vm::VirtualMachine::load(*exec, options);
  REQUIRE(machine.ok());
  for (int c : {1, 0, 1}) REQUIRE((*machine)->invoke("main", {vm::Value::ofInt(c)}).ok());
  std::map<std::string, int64_t> calls;
  for (const auto& e : (*machine)->profile()) {
    calls[e.name] = e.calls;
    CHECK(e.ms >= 0);
  }
  CHECK(calls == std::map<std::string, int64_t>{{"vm.builtin.make_tuple", 3}, {"vm.builtin.read_if_cond", 3}, {"vm.builtin.tuple_getitem", 3}, {"vm.builtin.copy", 3}});
  std::string table = formatProfile((*machine)->profile(), 3, 1.5);
  CHECK(table.rfind("profile over 3 runs: 0.5000 ms per run on average, ", 0) == 0);
  CHECK(table.find("          1           vm.builtin.copy\n") != std::string::npos);
  CHECK(table.find("(the VM between calls)") != std::string::npos);
  (*machine)->resetProfile();
  CHECK((*machine)->profile().empty());
}

TEST_CASE("vm: the profile names each kernel's operand shapes, in parameter order", "[vm]") {
  auto mod = parse(R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def take(x: T.Buffer((T.int64(2), T.int64(3)), "float32"), i: T.Buffer((T.int64(4),), "int64"), n: T.int64, y: T.Buffer((n, T.int64(3)), "float32")):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        return x
)");
  auto kernels = kernelFacts(*mod);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels["take"].shapes == "2x3 4:int64 nx3");
  CHECK(kernels["take"].multiplyAdds == 0);
  std::vector<vm::ProfileEntry> entries{{"take", 2, 1.0}, {"vm.builtin.copy", 2, 0.5}};
  std::string table = formatProfile(entries, 2, 2.0, kernels);
  CHECK(table.find("          1           take   2x3 4:int64 nx3\n") != std::string::npos);
  CHECK(table.find("          1           vm.builtin.copy\n") != std::string::npos);
}

TEST_CASE("vm: the profile's GFMA/s counts a kernel's multiply-adds from its loops", "[vm]") {
  // A 2 x 4 x 3 matmul (24 multiply-adds; the init's zeroing and the epilogue's add count nothing)
  // and one whose reduction runs over a symbolic extent (no count).
  auto mod = parse(R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(a: T.Buffer((T.int64(2), T.int64(3)), "float32"), b: T.Buffer((T.int64(3), T.int64(4)), "float32"), c: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        for i, j, k in T.grid(T.int64(2), T.int64(4), T.int64(3)):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    c[vi, vj] = T.float32(0.0)
                c[vi, vj] = c[vi, vj] + a[vi, vk] * b[vk, vj]
        for i, j in T.grid(T.int64(2), T.int64(4)):
            with T.block("bias"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = c[vi, vj] + T.float32(1.0)

    @T.prim_func(private=True)
    def dyn(n: T.int64, a: T.Buffer((n,), "float32"), c: T.Buffer((T.int64(1),), "float32")):
        for k in range(n):
            with T.block("sum"):
                vk = T.axis.reduce(n, k)
                c[0] = c[0] + a[vk] * a[vk]

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        return x
)");
  auto kernels = kernelFacts(*mod);
  CHECK(kernels["mm"].multiplyAdds == 24);
  CHECK(kernels["dyn"].multiplyAdds == 0);
  // 3 calls of 24 in 0.000036 ms: 2 G multiply-adds a second.
  std::string table = formatProfile({{"mm", 3, 0.000036}}, 1, 1.0, kernels);
  CHECK(table.find("        3      2.0  mm   2x3 3x4 2x4\n") != std::string::npos);
}

TEST_CASE("vm: every corpus module's main runs lowered (build and O2) and matches the evaluator", "[vm][corpus]") {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (auto& e : fs::directory_iterator(std::string(RLX_SOURCE_DIR) + "/tests/corpus"))
    if (e.path().extension() == ".relax") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  int ran = 0;
  for (auto& path : files) {
    DiagnosticEngine diag;
    auto mod = parseFile(path, diag);
    REQUIRE(mod);
    auto main = mod->lookup("main").as<Function>();
    if (!main) continue;
    INFO(path);
    std::map<std::string, int64_t> syms;
    std::vector<Ref<PrimVar>> vars;
    for (auto& p : main->params) sinfoCollectVars(sinfoOf(p), vars);
    for (auto& v : vars) syms[v->name] = 3;
    // Positive inputs: variances and scales stay in their domain (NaN propagation through max
    // differs between kernels and the evaluator, and is not what this test is about).
    auto inputs = randomInputs(*main, syms, 11, 0.05);
    auto expected = evaluateFunction(*mod, "main", inputs);
    if (!expected.ok()) {
      // Packed functions and closures are beyond the evaluator; those modules have their own tests.
      INFO("evaluator: " + expected.error().message);
      CHECK((expected.error().message.find("packed") != std::string::npos || expected.error().message.find("closure") != std::string::npos ||
             expected.error().message.find("cannot evaluate") != std::string::npos));
      continue;
    }
    for (const char* pipeline : {"build", "O2"}) {
      INFO(pipeline);
      auto prepared = prepareModule(mod, pipeline);
      INFO((prepared.ok() ? "" : prepared.error().message));
      REQUIRE(prepared.ok());
      std::vector<vm::Value> args;
      for (auto& v : inputs) args.push_back(vm::fromEvalValue(v));
      auto got = prepared->machine->invoke("main", args);
      INFO((got.ok() ? "" : got.error().message));
      REQUIRE(got.ok());
      Value result;
      std::string err;
      REQUIRE(vm::toEvalValue(*got, result, err));
      CHECK(compareValues(result, *expected) == "");
    }
    ++ran;
  }
  CHECK(ran >= 10);
}

namespace {

// Runs `func` of `mod` lowered with `pipeline` on float32 input `x`, twice on the same VM (the second
// run reuses pooled storage and cached tensor views); both results as flat vectors.
std::vector<std::vector<double>> runTwice(const IRModuleRef& mod, const char* pipeline, const std::string& func, std::vector<vm::Value> args) {
  auto prepared = prepareModule(mod, pipeline);
  INFO((prepared.ok() ? "" : prepared.error().message));
  REQUIRE(prepared.ok());
  std::vector<std::vector<double>> out;
  for (int run = 0; run < 2; ++run) {
    auto got = prepared->machine->invoke(func, args);
    INFO((got.ok() ? "" : got.error().message));
    REQUIRE(got.ok());
    REQUIRE(got->kind == vm::Value::Tensor);
    std::vector<double> flat;
    for (int64_t i = 0; i < got->array->numel(); ++i) flat.push_back(got->array->getDouble(i));
    out.push_back(flat);
  }
  return out;
}

vm::Value vector4(std::vector<float> v) {
  auto a = make<NDArray>(DataType::float32(), std::vector<int64_t>{int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a->setDouble(int64_t(i), v[i]);
  return vm::Value::ofTensor(a);
}

}  // namespace

TEST_CASE("vm: recursion keeps each frame's tensors apart; closures capture values", "[vm]") {
  // sum_to(x, n) = 2x + sum_to(x, n - 1), sum_to(x, 0) = x: (2n + 1) x. Every frame's `y` comes from
  // the same alloc_tensor call site and is live across the recursive call, so the call site's cached
  // view must not be handed to the inner frames.
  auto rec = parse(R"(@I.ir_module
class Module:
    @R.function
    def sum_to(x: R.Tensor((4,), dtype="float32"), n: R.Tensor((), dtype="int64")) -> R.Tensor((4,), dtype="float32"):
        cond: R.Tensor((), dtype="bool") = R.greater(n, R.const(0, "int64"))
        if cond:
            y: R.Tensor((4,), dtype="float32") = R.add(x, x)
            m: R.Tensor((), dtype="int64") = R.subtract(n, R.const(1, "int64"))
            z: R.Tensor((4,), dtype="float32") = Module.sum_to(x, m)
            r: R.Tensor((4,), dtype="float32") = R.add(y, z)
        else:
            r: R.Tensor((4,), dtype="float32") = x
        return r
)");
  auto n = make<NDArray>(DataType::int64(), std::vector<int64_t>{});
  n->setInt(0, 5);
  for (const char* pipeline : {"build", "O2"}) {
    INFO(pipeline);
    auto runs = runTwice(rec, pipeline, "sum_to", {vector4({1, 2, 3, 4}), vm::Value::ofTensor(n)});
    for (auto& r : runs) CHECK(r == std::vector<double>{11, 22, 33, 44});
  }

  // inner captures x: inner(inner(x)) = 3x.
  auto clo = parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        @R.function
        def inner(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            z: R.Tensor((4,), dtype="float32") = R.add(y, x)
            return z

        a: R.Tensor((4,), dtype="float32") = inner(x)
        b: R.Tensor((4,), dtype="float32") = inner(a)
        return b
)");
  for (const char* pipeline : {"build", "O2"}) {
    INFO(pipeline);
    auto runs = runTwice(clo, pipeline, "main", {vector4({1, -2, 0.5f, 8})});
    for (auto& r : runs) CHECK(r == std::vector<double>{3, -6, 1.5, 24});
  }
}

TEST_CASE("vm: repeated runs reuse storage without clobbering live results", "[vm]") {
  // Results of earlier runs are still held when the next run starts: their storage must not be reused.
  auto mod = parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((4,), dtype="float32") = R.add(x, x)
            b: R.Tensor((4,), dtype="float32") = R.multiply(a, x)
            c: R.Tensor((4,), dtype="float32") = R.add(b, a)
            R.output(c)
        return c
)");
  auto prepared = prepareModule(mod, "build");
  REQUIRE(prepared.ok());
  std::vector<vm::Value> held;
  for (float v : {1.f, 2.f, 3.f}) {
    auto got = prepared->machine->invoke("main", {vector4({v, v, v, v})});
    REQUIRE(got.ok());
    held.push_back(*got);
  }
  // 2v * v + 2v for v = 1, 2, 3.
  std::vector<double> want = {4, 12, 24};
  for (size_t k = 0; k < held.size(); ++k)
    for (int64_t i = 0; i < 4; ++i) CHECK(held[k].array->getDouble(i) == want[k]);
}
