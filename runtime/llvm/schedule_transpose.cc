// CPU schedule, transpose nests (schedule_transpose.h): recognizes the copy blocks LegalizeOps makes
// for R.permute_dims and replaces their loops by one rlx.transpose32 call (transpose.h).
#include "runtime/llvm/schedule_transpose.h"

#include <algorithm>

#include "ir/arith.h"
#include "runtime/llvm/schedule_nest.h"

namespace rlx {

Stmt lowerTransposeNest(const Stmt& s) {
  auto pn = perfectNest(s);
  if (!pn || pn->loops.size() < 2 || pn->block->init) return nullptr;
  const TirBlock& block = *pn->block;
  for (auto& iv : block.iterVars)
    if (iv.kind != IterVar::DataPar) return nullptr;
  if (!block.body || block.body->kind() != NodeKind::BufferStore) return nullptr;
  auto& store = static_cast<const BufferStore&>(*block.body);
  const Buffer& out = *store.buffer;
  if (out.dtype.bits != 32 || out.dtype.lanes > 1 || store.indices.size() != block.iterVars.size()) return nullptr;
  Operand in;
  if (!parseOperand(store.value, block, in)) return nullptr;
  const Buffer& src = *in.load->buffer;
  if (!(src.dtype == out.dtype) || &src == &out || (out.data && src.data.get() == out.data.get())) return nullptr;
  // out[v0, .., vn]: each iter var once, in the order of out's dims.
  std::vector<const PrimVar*> vars;
  for (auto& e : store.indices) {
    auto* v = asVar(e);
    if (!v || std::find(vars.begin(), vars.end(), v) != vars.end()) return nullptr;
    vars.push_back(v);
  }
  // Out's strides from its own shape (or strides), innermost last.
  std::vector<PrimExpr> outStride(vars.size());
  PrimExpr step = intImm(1);
  for (size_t d = vars.size(); d-- > 0;) {
    outStride[d] = out.strides.empty() ? step : out.strides[d];
    step = mul(step, out.shape[d]);
  }
  // Worth a call only when out's innermost var is not in's contiguous one and another var is.
  auto isOne = [](const PrimExpr& e) {
    auto c = constInt(e);
    return c && *c == 1;
  };
  auto outUnit = constInt(outStride.back());
  if (!outUnit || *outUnit != 1 || isOne(in.stride(vars.back()))) return nullptr;
  if (std::none_of(vars.begin(), vars.end() - 1, [&](const PrimVar* v) { return isOne(in.stride(v)); })) return nullptr;
  std::vector<PrimExpr> zeros(vars.size(), intImm(0));
  std::vector<PrimExpr> args = {make<BufferLoad>(out.dtype, store.buffer, std::move(zeros)), in.first(), intImm(int64_t(vars.size()))};
  for (size_t d = 0; d < vars.size(); ++d) args.insert(args.end(), {pn->loopOfVar(vars[d]).extent, outStride[d], in.stride(vars[d])});
  return make<Evaluate>(make<PrimCall>(DataType::int32(), "rlx.transpose32", std::move(args)));
}

}  // namespace rlx
