// Distributed and training ops: ccl.* collectives, dist.* sharding annotations and local-view
// call_tir, and grad.* (gradient barriers, checkpoints, backward kernels of nll_loss/pool/take).
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace {
using namespace ops;

Result<StructInfo> inferIdentity(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  return sinfoOf(c.args[0]);
}

Result<StructInfo> inferSameTensor(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  return StructInfo(x);
}

Result<StructInfo> inferAllGather(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  int64_t n = attrInt(c, "num_workers");
  if (n <= 0) return opError(c, fmt::format("num_workers must be positive, but it is {}", n));
  if (x->ndim == 0) return opError(c, "cannot gather a 0-d tensor");
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, x->ndim, x->vdevice);
  std::vector<PrimExpr> out = *d;
  out[0] = mul(out[0], i64(n));
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferScatterWorkers(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "x"));
  int64_t n = attrInt(c, "num_workers");
  if (n <= 0) return opError(c, fmt::format("num_workers must be positive, but it is {}", n));
  if (x->ndim < 0) return StructInfo(x);
  RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis")));
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, x->ndim, x->vdevice);
  std::vector<PrimExpr> out = *d;
  if (auto k = asConst(out[size_t(axis)]); k && *k % n != 0)
    return opError(c, fmt::format("axis {} of extent {} is not divisible by {} workers", axis, *k, n));
  out[size_t(axis)] = floordiv(out[size_t(axis)], i64(n));
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferCallLocalView(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 3));
  if (c.sinfoArgs.size() != 1) return opError(c, "expects exactly one output struct info (out_sinfo)");
  if (!c.args[0].is<GlobalVar>()) return opError(c, "expects the callee to be a GlobalVar of a PrimFunc");
  return c.sinfoArgs[0];
}

// R.dist.call_tir_local_view(func, args, out_sinfo, tir_vars=None), like R.call_tir.
Result<Expr> buildLocalView(const OpInfo& op, std::vector<PyValue>& args, std::vector<std::pair<std::string, PyValue>>& kwargs) {
  std::string label = op.scriptName();
  RLX_TRY(p, bindPy(label, {"func", "args", "out_sinfo", "tir_vars"}, 3, args, kwargs));
  RLX_TRY(func, toExpr(*p[0], label + " func"));
  RLX_TRY(inputs, wrapArgTuple(*p[1], label + " args"));
  RLX_TRY(out, toSInfo(*p[2], label + " out_sinfo"));
  if ((p[2]->kind == PyValue::List || p[2]->kind == PyValue::Tuple) && out.as<TupleSInfo>()->fields.size() == 1) out = out.as<TupleSInfo>()->fields[0];
  std::vector<Expr> callArgs = {func, inputs};
  if (p[3] && p[3]->kind != PyValue::None) {
    RLX_TRY(tv, toShapeExpr(*p[3], label + " tir_vars"));
    callArgs.push_back(tv);
  }
  return Expr(make<Call>(opRef(op.name), std::move(callArgs), nullptr, std::vector<StructInfo>{out}));
}

// Backward ops return the struct info of the forward input they differentiate.
InferFn gradOf(size_t argIndex, size_t lo, size_t hi) {
  return [=](const Call& c) -> Result<StructInfo> {
    RLX_TRY_OK(checkArgCount(c, lo, hi));
    RLX_TRY(g, tensorArg(c, 0, "output_grad"));
    RLX_TRY(x, tensorArg(c, argIndex, "input"));
    return StructInfo(x);
  };
}

}  // namespace

void registerDistributedOps() {
  OpDef("relax.ccl.allreduce")
      .attrs("relax.attrs.AllReduceAttrs")
      .params({arg("x"), attr("op_type", OpParam::StrAttr, aStr("sum")), attr("in_group", OpParam::BoolAttr, aBool(true))})
      .fixup([](Call& c) -> Status {
        std::string t = attrString(c, "op_type");
        for (const char* ok : {"sum", "prod", "min", "max", "avg"})
          if (t == ok) return okStatus();
        return opError(c, fmt::format("op_type must be one of sum, prod, min, max, avg, but it is \"{}\"", t));
      })
      .infer(inferSameTensor)
      .doc("all-reduce across workers")
      .done();
  OpDef("relax.ccl.allgather")
      .attrs("relax.attrs.AllGatherAttrs")
      .params({arg("x"), reqAttr("num_workers", OpParam::IntAttr), attr("in_group", OpParam::BoolAttr, aBool(true))})
      .infer(inferAllGather)
      .doc("all-gather along the first axis")
      .done();
  OpDef("relax.ccl.broadcast_from_worker0").params({arg("x")}).infer(inferSameTensor).doc("broadcast worker 0's tensor").done();
  OpDef("relax.ccl.scatter_from_worker0")
      .attrs("relax.attrs.ScatterCollectiveAttrs")
      .params({arg("x"), reqAttr("num_workers", OpParam::IntAttr), attr("axis", OpParam::IntAttr, aInt(0))})
      .infer(inferScatterWorkers)
      .doc("scatter worker 0's tensor along an axis")
      .done();
  for (const char* n : {"annotate_sharding", "redistribute"})
    OpDef(std::string("relax.dist.") + n)
        .attrs("relax.attrs.DistributionAttrs")
        .params({arg("input"), reqAttr("device_mesh", OpParam::AnyAttr), reqAttr("placement", OpParam::AnyAttr)})
        .infer(inferIdentity)
        .doc(std::string(n) + " (sharding annotation)")
        .done();
  OpDef("relax.dist.redistribute_replica_to_shard")
      .attrs("relax.attrs.ScatterCollectiveAttrs")
      .params({arg("x"), reqAttr("num_workers", OpParam::IntAttr), reqAttr("axis", OpParam::IntAttr)})
      .infer(inferScatterWorkers)
      .doc("slice a replicated tensor into this worker's shard")
      .done();
  OpDef("relax.dist.call_tir_local_view").build(buildLocalView).infer(inferCallLocalView).doc("call_tir on worker-local shards").done();
  for (const char* n : {"no_grad", "start_checkpoint", "end_checkpoint"})
    OpDef(std::string("relax.grad.") + n).params({arg("input")}).infer(inferIdentity).doc(std::string(n) + " marker for the Gradient pass").done();
  OpDef("relax.grad.nll_loss_backward")
      .attrs("relax.attrs.NLLLossAttrs")
      .params({arg("output_grad"), arg("predictions"), arg("targets"), optArg("weights"), attr("reduction", OpParam::StrAttr, aStr("mean")), attr("ignore_index", OpParam::IntAttr, aInt(-100))})
      .infer(gradOf(1, 3, 4))
      .doc("gradient of nll_loss")
      .done();
  for (const char* kind : {"max", "avg"})
    OpDef(fmt::format("relax.grad.{}_pool2d_backward", kind))
        .attrs("relax.attrs.Pool2DAttrs")
        .params({arg("output_grad"), arg("data"), attr("pool_size", OpParam::IntArrayAttr, aInts({1, 1})), attr("strides", OpParam::IntArrayAttr, aInts({1, 1})),
                 attr("padding", OpParam::IntArrayAttr, aInts({0, 0, 0, 0})), attr("dilation", OpParam::IntArrayAttr, aInts({1, 1})), attr("ceil_mode", OpParam::BoolAttr, aBool(false)),
                 attr("count_include_pad", OpParam::BoolAttr, aBool(false)), attr("layout", OpParam::StrAttr, aStr("NCHW")), attr("out_layout", OpParam::OptStrAttr, aNone())})
        .attrOrder({"pool_size", "strides", "dilation", "padding", "ceil_mode", "count_include_pad", "layout", "out_layout"})
        .fixup([](Call& c) -> Status {
          if (attrIsNone(c, "out_layout")) setAttr(c, "out_layout", AttrValue::str(attrString(c, "layout")));
          return okStatus();
        })
        .infer(gradOf(1, 2, 2))
        .doc(fmt::format("gradient of {}_pool2d", kind))
        .done();
  OpDef("relax.grad.take_backward")
      .attrs("relax.attrs.TakeAttrs")
      .params({arg("output_grad"), arg("x"), arg("indices"), attr("axis", OpParam::OptIntAttr, aNone()), attr("mode", OpParam::StrAttr, aStr("fast"))})
      .infer(gradOf(1, 3, 3))
      .doc("gradient of take")
      .done();
}

}  // namespace rlx
