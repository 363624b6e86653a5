// Collective-communication ops and wrapNested (see op.h).
#include "frontend/nn/op.h"
#include "frontend/nn/export_context.h"
#include "frontend/nn/op_util.h"

namespace rlx::nn::op {

using namespace detail;

Tensor cclAllreduce(const Tensor& x, const std::string& opType, bool inGroup, const std::string& name) {
  return wrap(call("ccl.allreduce", {ex(x)}, {{"op_type", build::s(opType)}, {"in_group", build::b(inGroup)}}), name);
}

Tensor cclAllgather(const Tensor& x, int64_t numWorkers, const std::string& name) { return wrap(call("ccl.allgather", {ex(x)}, {{"num_workers", build::i(numWorkers)}}), name); }

Tensor cclBroadcastFromWorker0(const Tensor& x, const std::string& name) { return wrap(call("ccl.broadcast_from_worker0", {ex(x)}), name); }

Nested wrapNested(const Expr& expr, const std::string& name) {
  if (!expr) fail("wrapNested of a null expression");
  // Struct info decides tensor vs tuple; un-normalized calls get theirs when bound.
  if (expr->sinfo && expr->sinfo.is<TupleSInfo>()) return Nested(wrapTuple(expr, name));
  if (expr->sinfo && expr->sinfo.is<TensorSInfo>()) return Nested(wrap(expr, name));
  auto& ctx = ExportContext::current();
  Expr bound = ctx.emit(expr, name, false);
  if (sinfoOf(bound).is<TensorSInfo>()) return Nested(Tensor(bound));
  auto ts = sinfoOf(bound).as<TupleSInfo>();
  if (!ts) fail("wrapNested: the expression is neither a tensor nor a tuple");
  std::vector<Nested> items;
  for (size_t i = 0; i < ts->fields.size(); ++i) items.emplace_back(Tensor(ctx.emit(make<TupleGetItem>(bound, int(i)), name + "_" + std::to_string(i))));
  return Nested(std::move(items));
}

}  // namespace rlx::nn::op
