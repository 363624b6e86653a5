// Legalization of the collective ops as TVM's legalizer writes them: destination-passing calls of
// the Disco runtime's packed functions (runtime.disco.allgather, broadcast_from_worker0,
// scatter_from_worker0); a scatter along axis k first brings that axis's shards to the front.
#include "ir/ops/infer_util.h"
#include "passes/legalize/legalize.h"
#include "passes/op_builder.h"

namespace rlx::legalize {

namespace {

// A flag as TVM passes it to the packed function: a Python bool, which becomes an int64 prim value.
Expr flagValue(bool v) {
  auto p = make<PrimValue>(intImm(v ? 1 : 0));
  p->sinfo = make<PrimSInfo>(DataType::int64(), p->value);
  return p;
}

// R.call_dps_packed(fn, (data, flag), out_sinfo=out).
Expr disco(const std::string& fn, const Expr& data, bool flag, const StructInfo& out) {
  PyValue outSInfo;
  outSInfo.kind = PyValue::SInfo;
  outSInfo.sinfo = out;
  return build::call("call_dps_packed", {build::s(fn), build::e(tupleOf({data, flagValue(flag)}))}, {{"out_sinfo", outSInfo}});
}

Expr allgather(const Call& c) { return disco("runtime.disco.allgather", c.args[0], ops::attrBool(c, "in_group", true), c.sinfo); }

Expr broadcastFromWorker0(const Call& c) { return disco("runtime.disco.broadcast_from_worker0", c.args[0], false, c.sinfo); }

// Axis k of extent d splits into (num_workers, d / num_workers), and the workers' axis moves to
// the front, so worker i's shard is the i-th slice of the sent tensor.
Expr scatterFromWorker0(const Call& c) {
  auto x = sinfoOf(c.args[0]).as<TensorSInfo>();
  if (!x || !x->dims()) return nullptr;
  int64_t n = ops::attrInt(c, "num_workers", 1), axis = ops::attrInt(c, "axis", 0);
  const auto& dims = *x->dims();
  if (axis < 0) axis += int64_t(dims.size());
  if (axis < 0 || axis >= int64_t(dims.size()) || n <= 0) return nullptr;
  Expr data = c.args[0];
  if (axis != 0) {
    std::vector<PrimExpr> split;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (int64_t(i) != axis) {
        split.push_back(dims[i]);
        continue;
      }
      split.push_back(intImm(n));
      split.push_back(simplify(floordiv(dims[i], intImm(n))));
    }
    std::vector<int64_t> perm = {axis};
    for (int64_t i = 0; i < int64_t(split.size()); ++i)
      if (i != axis) perm.push_back(i);
    auto shape = make<ShapeExpr>(split);
    shape->sinfo = make<ShapeSInfo>(split, int(split.size()));
    Expr reshaped = build::call("reshape", {build::e(data), build::e(shape)});
    data = build::call("permute_dims", {build::e(reshaped)}, {{"axes", build::ints(perm)}});
  }
  return disco("runtime.disco.scatter_from_worker0", data, false, c.sinfo);
}

}  // namespace

void registerCclRules() {
  registerFold("relax.ccl.allgather", allgather);
  registerFold("relax.ccl.broadcast_from_worker0", broadcastFromWorker0);
  registerFold("relax.ccl.scatter_from_worker0", scatterFromWorker0);
}

}  // namespace rlx::legalize
