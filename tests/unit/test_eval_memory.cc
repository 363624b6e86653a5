// Reference evaluator: builtin/memory identities, memory.view, ccl.* / dist.* on one worker, and
// the census that every op has an evaluator or a documented reason not to.
#include <catch2/catch.hpp>

#include <set>

#include "ir/op.h"
#include "tests/unit/eval_nn_test_util.h"

using namespace rlx;
using namespace rlx::test;

TEST_CASE("eval: stop_lift_params and ensure_zero_offset are identities", "[eval]") {
  auto r = ev("relax.builtin.stop_lift_params", {C("float32", {2, 1}, {3, 4})});
  CHECK(r.shape == Dims{2, 1});
  CHECK(r.values == V{3, 4});
  auto t = evalCall("relax.builtin.stop_lift_params", {E(valueToExpr(Value::ofTuple({TV("int8", {1}, {-2}), Value::ofInt(5)})))});
  REQUIRE(t.ok());
  REQUIRE(t.value().kind == Value::Tuple);
  CHECK(vals(t.value().fields[0]) == V{-2});
  CHECK(t.value().fields[1].i == 5);
  auto z = ev("relax.memory.ensure_zero_offset", {C("int32", {3}, {1, 2, 3})});
  CHECK(z.dtype == "int32");
  CHECK(z.values == V{1, 2, 3});
}

TEST_CASE("eval: memory.view reinterprets bytes", "[eval]") {
  auto x = [] { return C("float32", {2, 3}, {0, 1, 2, 3, 4, 5}); };
  auto same = ev("relax.memory.view", {x()});
  CHECK(same.shape == Dims{2, 3});
  CHECK(same.values == V{0, 1, 2, 3, 4, 5});
  auto reshaped = ev("relax.memory.view", {x()}, {{"shape", Ints({3, 2})}});
  CHECK(reshaped.shape == Dims{3, 2});
  CHECK(reshaped.values == V{0, 1, 2, 3, 4, 5});
  // Two float32 elements from byte 8: elements 2 and 3.
  CHECK(ev("relax.memory.view", {x()}, {{"shape", Ints({2})}, {"relative_byte_offset", I(8)}}).values == V{2, 3});
  // float32 1.0 is 0x3f800000.
  auto bits = ev("relax.memory.view", {C("float32", {2}, {1, -2})}, {{"dtype", S("int32")}});
  CHECK(bits.dtype == "int32");
  CHECK(bits.values == V{1065353216, -1073741824});
  // Little-endian bytes of an int32, and a smaller element type keeps the element count.
  CHECK(ev("relax.memory.view", {C("int32", {1}, {0x01020304})}, {{"shape", Ints({4})}, {"dtype", S("uint8")}}).values == V{4, 3, 2, 1});
  CHECK(ev("relax.memory.view", {C("int16", {2}, {0x0102, 0x0304})}, {{"dtype", S("uint8")}}).values == V{2, 1});
  // Bool elements read nonzero bytes as true.
  auto b = ev("relax.memory.view", {C("uint8", {3}, {0, 2, 1})}, {{"dtype", S("bool")}});
  CHECK(b.dtype == "bool");
  CHECK(b.values == V{0, 1, 1});
  // float16 bits.
  CHECK(ev("relax.memory.view", {C("float16", {1}, {1})}, {{"dtype", S("uint16")}}).values == V{0x3c00});
}

TEST_CASE("eval: memory.view bounds", "[eval]") {
  auto x = [] { return C("float32", {2, 3}, {0, 1, 2, 3, 4, 5}); };
  CHECK(ev("relax.memory.view", {x()}, {{"shape", Ints({7})}}).error == "error: R.memory.view: the view of 28 bytes at byte offset 0 exceeds the 24 bytes of the data");
  CHECK(ev("relax.memory.view", {x()}, {{"shape", Ints({2})}, {"relative_byte_offset", I(20)}}).error ==
        "error: R.memory.view: the view of 8 bytes at byte offset 20 exceeds the 24 bytes of the data");
  CHECK(ev("relax.memory.view", {x()}, {{"relative_byte_offset", I(4)}}).error == "error: R.memory.view: the view of 24 bytes at byte offset 4 exceeds the 24 bytes of the data");
  CHECK(ev("relax.memory.view", {x()}, {{"dtype", S("float64")}}).error == "error: R.memory.view: the view of 48 bytes at byte offset 0 exceeds the 24 bytes of the data");
  CHECK(ev("relax.memory.view", {x()}, {{"shape", Ints({1})}, {"relative_byte_offset", I(-4)}}).error == "error: R.memory.view: relative_byte_offset must not be negative, but it is -4");
  // The whole tail is fine; an empty view at the very end too.
  CHECK(ev("relax.memory.view", {x()}, {{"shape", Ints({1})}, {"relative_byte_offset", I(20)}}).values == V{5});
  CHECK(ev("relax.memory.view", {x()}, {{"shape", Ints({0})}, {"relative_byte_offset", I(24)}}).ok);
}

TEST_CASE("eval: collectives on one worker", "[eval]") {
  auto x = [] { return C("float32", {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}); };
  V all = {0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(ev("relax.ccl.allreduce", {x()}).values == all);
  CHECK(ev("relax.ccl.allreduce", {x()}, {{"op_type", S("avg")}}).values == all);
  CHECK(ev("relax.ccl.broadcast_from_worker0", {x()}).values == all);
  CHECK(ev("relax.ccl.allgather", {x()}, {{"num_workers", I(1)}}).values == all);
  CHECK(ev("relax.ccl.allgather", {x()}, {{"num_workers", I(2)}}).error ==
        "error: R.ccl.allgather: the evaluator runs one worker and cannot gather the shards of 2 workers");
  // Worker 0's shard: the first half of axis 0, or of axis 1.
  auto s0 = ev("relax.ccl.scatter_from_worker0", {x()}, {{"num_workers", I(2)}});
  CHECK(s0.shape == Dims{2, 2});
  CHECK(s0.values == V{0, 1, 2, 3});
  auto s1 = ev("relax.ccl.scatter_from_worker0", {C("int32", {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})}, {{"num_workers", I(2)}, {"axis", I(1)}});
  CHECK(s1.shape == Dims{2, 2});
  CHECK(s1.values == V{0, 1, 4, 5});
  CHECK(ev("relax.ccl.scatter_from_worker0", {x()}, {{"num_workers", I(1)}}).values == all);
  auto r = ev("relax.dist.redistribute_replica_to_shard", {C("float32", {2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})}, {{"num_workers", I(3)}, {"axis", I(1)}});
  CHECK(r.shape == Dims{2, 2});
  CHECK(r.values == V{0, 1, 6, 7});
  CHECK(ev("relax.dist.annotate_sharding", {x()}, {{"device_mesh", S("mesh[0]")}, {"placement", S("S[0]")}}).values == all);
  CHECK(ev("relax.dist.redistribute", {x()}, {{"device_mesh", S("mesh[0]")}, {"placement", S("R")}}).values == all);
}

TEST_CASE("eval: every op has an evaluator or a documented reason", "[eval]") {
  // Ops without a reference evaluator, each for a reason (see ir/ops/eval_memory.cc):
  const std::set<std::string> exempt = {
      // Calls of functions the evaluator cannot see (PrimFuncs, packed functions, closures, Python).
      "relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad", "relax.call_dps_packed", "relax.call_inplace_packed", "relax.call_pure_packed",
      "relax.call_py_func", "relax.call_builtin_with_ctx", "relax.make_closure", "relax.invoke_closure", "relax.invoke_pure_closure", "relax.vm.call_tir_dyn",
      "relax.dist.call_tir_local_view",
      // Side effects only.
      "relax.print", "relax.assert_op",
      // No value.
      "relax.null_value",
      // Allocation (uninitialized storage) and deallocation.
      "relax.builtin.alloc_tensor", "relax.memory.alloc_storage", "relax.memory.alloc_tensor", "relax.vm.alloc_storage", "relax.vm.alloc_tensor",
      "relax.memory.kill_storage", "relax.memory.kill_tensor", "relax.vm.kill_object"};
  for (const std::string& name : exempt) {
    INFO(name);
    CHECK(findOp(name) != nullptr);  // the list names real ops
  }
  size_t covered = 0;
  for (const OpInfo* op : allOps()) {
    if (exempt.count(op->name)) continue;
    INFO(op->name);
    CHECK(findEval(op->name) != nullptr);
    ++covered;
  }
  CHECK(covered + exempt.size() == allOps().size());
}
