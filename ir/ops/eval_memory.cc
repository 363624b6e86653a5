// Reference evaluators of the lowering-level and distributed ops that denote values: the
// builtin/memory identities, memory.view, and ccl.* / dist.* as seen by one worker.
//
// One worker: the evaluator runs a single process, so a collective sees a group of one.
// - ccl.allreduce (any op_type; it has no worker count), ccl.broadcast_from_worker0: the identity.
// - ccl.allgather: the identity when num_workers is 1; with more workers the other shards are
//   unknown here, so it is an error rather than a guess.
// - ccl.scatter_from_worker0, dist.redistribute_replica_to_shard: worker 0's shard, the first
//   1/num_workers of the axis (TVM splits the axis into contiguous, equal chunks by worker id).
// - dist.annotate_sharding, dist.redistribute: the identity on the value (only placement changes).
//
// Ops left without an evaluator, and why:
// - builtin.alloc_tensor, memory.alloc_storage, memory.alloc_tensor, vm.alloc_storage,
//   vm.alloc_tensor: they produce uninitialized storage to be written by later calls, not a value.
// - memory.kill_storage, memory.kill_tensor, vm.kill_object: impure (free memory), no value.
// - vm.call_tir_dyn, dist.call_tir_local_view: run PrimFunc kernels the op evaluator cannot see
//   (the callee lives in the module, not in the call).
// - null_value: denotes no value (a null object), which Value cannot hold.
#include <fmt/format.h>

#include <cstring>

#include "ir/ops/eval_manipulate.h"

namespace rlx {
namespace {
using namespace ops;

// The tensor unchanged (ensure_zero_offset: the evaluator's tensors have no byte offset; the
// collectives that are identities for one worker).
Result<Value> evalSameTensor(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  return Value::ofTensor(x);
}

// ---------------------------------------------------------------- memory.view

bool isVoidValue(const Value& v) { return v.kind == Value::Tuple && v.fields.empty(); }

// R.memory.view(data, shape, dtype, relative_byte_offset): the bytes of `data` starting at the
// offset, read as a row-major tensor of the new shape and dtype (absent arguments, R.tuple(), keep
// the data's shape / dtype / offset 0). The view must lie within the data's bytes, as TVM's
// runtime TVMTensorCreateView checks. Bool elements read as nonzero bytes.
Result<Value> evalView(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  if (args.size() != 4) return evalError(call, "expects data, shape, dtype and relative_byte_offset");
  Shape shape = x->shape;
  if (!isVoidValue(args[1])) {
    RLX_TRY(s, shapeValue(call, args, 1, "shape"));
    shape = s;
  }
  DataType dtype = x->dtype;
  if (!isVoidValue(args[2])) {
    if (args[2].kind != Value::DType) return evalError(call, fmt::format("expects dtype to be a dtype, but it is {}", args[2].describe()));
    dtype = args[2].dtype;
  }
  int64_t offset = 0;
  if (!isVoidValue(args[3])) {
    RLX_TRY(o, primValueArg(call, args, 3, "relative_byte_offset"));
    if (o.dtype.isFloat()) return evalError(call, "expects relative_byte_offset to be an integer");
    offset = o.i;
  }
  for (DataType t : {x->dtype, dtype})
    if (!t.isBool() && (t.bits == 0 || t.bits * t.lanes % 8 != 0))
      return evalError(call, fmt::format("cannot reinterpret the bytes of {} elements", t.str()));
  if (offset < 0) return evalError(call, fmt::format("relative_byte_offset must not be negative, but it is {}", offset));
  RLX_TRY(out, newTensor(call, dtype, shape));
  int64_t inBytes = int64_t(x->nbytes()), outBytes = int64_t(out->nbytes());
  if (offset > inBytes || outBytes > inBytes - offset)
    return evalError(call, fmt::format("the view of {} bytes at byte offset {} exceeds the {} bytes of the data", outBytes, offset, inBytes));
  if (outBytes > 0) std::memcpy(out->data(), static_cast<const char*>(x->data()) + offset, size_t(outBytes));
  if (dtype.isBool())
    for (int64_t i = 0; i < out->numel(); ++i) out->setInt(i, out->getInt(i) != 0);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- collectives on one worker

Result<Value> evalAllGather(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  int64_t n = attrInt(call, "num_workers");
  if (n != 1) return evalError(call, fmt::format("the evaluator runs one worker and cannot gather the shards of {} workers", n));
  return Value::ofTensor(x);
}

// Worker 0's shard: the first extent / num_workers entries of the axis.
Result<Value> evalWorker0Shard(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  int64_t n = attrInt(call, "num_workers");
  if (n <= 0) return evalError(call, fmt::format("num_workers must be positive, but it is {}", n));
  RLX_TRY(axis, normalizeAxis(call, int(x->shape.size()), attrInt(call, "axis")));
  int64_t extent = x->shape[size_t(axis)];
  if (extent % n != 0) return evalError(call, fmt::format("axis {} of extent {} is not divisible by {} workers", axis, extent, n));
  Shape shape = x->shape;
  shape[size_t(axis)] = extent / n;
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  int64_t outer = prodOf(x->shape, 0, size_t(axis)), inner = prodOf(x->shape, size_t(axis) + 1, x->shape.size()), run = extent / n * inner;
  for (int64_t o = 0; o < outer; ++o) copyRun(*out, o * run, *x, o * extent * inner, run);
  return Value::ofTensor(out);
}

}  // namespace

void registerMemoryEvals() {
  registerEval("relax.builtin.stop_lift_params", evalSameValue);
  registerEval("relax.memory.ensure_zero_offset", evalSameTensor);
  registerEval("relax.memory.view", evalView);
  registerEval("relax.ccl.allreduce", evalSameTensor);
  registerEval("relax.ccl.broadcast_from_worker0", evalSameTensor);
  registerEval("relax.ccl.allgather", evalAllGather);
  registerEval("relax.ccl.scatter_from_worker0", evalWorker0Shard);
  registerEval("relax.dist.redistribute_replica_to_shard", evalWorker0Shard);
  registerEval("relax.dist.annotate_sharding", evalSameValue);
  registerEval("relax.dist.redistribute", evalSameValue);
}

}  // namespace rlx
