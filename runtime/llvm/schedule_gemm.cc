// CPU schedule, GEMM nests: recognizes the blocks LegalizeOps/FuseTIR make for R.matmul (transposed,
// batched, vector operands) and R.nn.conv2d (affine indices) and replaces their loops by rlx.sgemm.
#include "runtime/llvm/schedule_gemm.h"

#include <algorithm>

#include "ir/arith.h"
#include "runtime/llvm/schedule_nest.h"

namespace rlx {

namespace {

bool isFloat32(DataType t) { return t == DataType::float32(); }

bool sameIndices(const std::vector<PrimExpr>& x, const std::vector<PrimExpr>& y) {
  if (x.size() != y.size()) return false;
  for (size_t d = 0; d < x.size(); ++d)
    if (!asVar(x[d]) || asVar(x[d]) != asVar(y[d])) return false;
  return true;
}

}  // namespace

std::optional<ProductSum> matchProductSum(const Stmt& s) {
  // A perfect nest of serial loops over one block with an init (schedule_nest.h).
  auto pn = perfectNest(s);
  if (!pn || pn->loops.size() < 2 || !pn->block->init) return std::nullopt;
  const TirBlock& block = *pn->block;
  // init C[I] = 0 and body C[I] = C[I] + X * Y in float32, C indexed by spatial iter vars.
  if (block.init->kind() != NodeKind::BufferStore || !block.body || block.body->kind() != NodeKind::BufferStore) return std::nullopt;
  auto& init = static_cast<const BufferStore&>(*block.init);
  auto& update = static_cast<const BufferStore&>(*block.body);
  const Buffer& c = *update.buffer;
  auto* zero = init.value && init.value->kind() == NodeKind::FloatImm ? static_cast<const FloatImm*>(init.value.get()) : nullptr;
  if (init.buffer.get() != &c || !sameIndices(init.indices, update.indices) || !zero || zero->value != 0 || !isFloat32(c.dtype)) return std::nullopt;
  if (update.indices.empty() || !update.value || update.value->kind() != NodeKind::Add) return std::nullopt;
  auto& sum = static_cast<const PrimBinary&>(*update.value);
  auto isSelf = [&](const PrimExpr& e) {
    if (e->kind() != NodeKind::BufferLoad) return false;
    auto& l = static_cast<const BufferLoad&>(*e);
    return l.buffer.get() == &c && sameIndices(l.indices, update.indices);
  };
  const PrimExpr& product = isSelf(sum.a) ? sum.b : isSelf(sum.b) ? sum.a : PrimExpr();
  if (!product || product->kind() != NodeKind::Mul || !isFloat32(product->dtype)) return std::nullopt;
  auto& mulNode = static_cast<const PrimBinary&>(*product);
  ProductSum out;
  if (!parseOperand(mulNode.a, block, out.x) || !parseOperand(mulNode.b, block, out.y)) return std::nullopt;
  if (!isFloat32(out.x.load->buffer->dtype) || !isFloat32(out.y.load->buffer->dtype)) return std::nullopt;
  for (auto* o : {&out.x, &out.y})
    if (o->load->buffer.get() == &c || (c.data && o->load->buffer->data.get() == c.data.get())) return std::nullopt;
  for (auto& e : update.indices) {
    auto* v = asVar(e);
    if (!v || std::find(out.cVars.begin(), out.cVars.end(), v) != out.cVars.end()) return std::nullopt;
    out.cVars.push_back(v);
  }
  out.nest = std::move(*pn);
  out.update = &update;
  return out;
}

std::optional<GemmNest> matchMatmulNest(const Stmt& s) {
  // 1, 2. C[I] += X * Y over a perfect nest.
  auto ps = matchProductSum(s);
  if (!ps) return std::nullopt;
  const PerfectNest* pn = &ps->nest;
  const TirBlock& block = *pn->block;
  const std::vector<size_t>& loopOf = pn->loopOf;
  const BufferStore& update = *ps->update;
  const Buffer& c = *update.buffer;
  const Operand &x = ps->x, &y = ps->y;
  const std::vector<const PrimVar*>& cVars = ps->cVars;

  // 3. Roles: B is the operand indexed by C's last index (j) and A the other; a spatial var in A only
  // is a row (i) dim, in B only a column dim, else a batch dim; reductions are k dims.
  const PrimVar* j = cVars.back();
  if ((x.uses(j) != 0) == (y.uses(j) != 0)) return std::nullopt;
  const Operand& b = x.uses(j) ? x : y;
  const Operand& a = x.uses(j) ? y : x;
  std::vector<const PrimVar*> rows, cols, red, batch;
  // A var one operand reads whole and the other only as v // d (a grouped convolution's output
  // channel: the weights' row, the input's group) is two: its groups a batch dim, its d values
  // within a group a row (or column) dim of the operand reading it whole.
  struct Group {
    const PrimVar* v;
    const SplitVar* split;  // in the operand reading v // d
    bool row;               // A reads v whole (a row dim within a group), else B (a column dim)
  };
  std::vector<Group> groups;
  auto groupOf = [&](const PrimVar* v, const Operand& whole, const Operand& split) -> const SplitVar* {
    const SplitVar* sv = split.splitOf(v);
    auto* n = asIntImm(pn->loopOfVar(v).extent);
    if (!sv || whole.splitOf(v) || split.uses(sv->inner.get()) || !n || n->value % sv->divisor != 0) return nullptr;
    return sv;
  };
  for (auto* v : cVars) {
    bool inA = a.uses(v), inB = b.uses(v);
    if (inA && inB) {
      if (const SplitVar* sv = groupOf(v, a, b)) {
        groups.push_back({v, sv, true});
        continue;
      }
      if (const SplitVar* sv = groupOf(v, b, a)) {
        groups.push_back({v, sv, false});
        continue;
      }
    }
    (inA && !inB ? rows : inB && !inA ? cols : batch).push_back(v);
  }
  std::vector<std::pair<size_t, const PrimVar*>> reductions;  // in nest (summation) order
  for (size_t k = 0; k < block.iterVars.size(); ++k) {
    const PrimVar* v = block.iterVars[k].var.get();
    if (block.iterVars[k].kind == IterVar::CommReduce) reductions.push_back({loopOf[k], v});
    else if (std::find(cVars.begin(), cVars.end(), v) == cVars.end()) return std::nullopt;  // spatial but not an output index
  }
  std::sort(reductions.begin(), reductions.end());
  for (auto& r : reductions) red.push_back(r.second);
  if (red.empty()) return std::nullopt;
  // C's strides come from its own indices (each a single var).
  auto cStride = [&](const PrimVar* v) {
    PrimExpr s = intImm(1);
    for (size_t d = update.indices.size(); d-- > 0;) {
      if (asVar(update.indices[d]) == v) return c.strides.empty() ? s : c.strides[d];
      s = mul(s, c.shape[d]);
    }
    return intImm(0);
  };

  // 4. rlx.sgemm(C, A, B at their first element, descriptor): the batch dims too go into the call,
  // so that its threads share out batch elements and blocks as one loop (attention's 12 heads of
  // 128x128x64 as 12 serial GEMMs each split two ways ran at half the speed of one thread).
  // A column var B reads split (B packed in panels, [j // 32, k, j % 32]) is two column dims: the
  // panels, then the columns within one; so is a row var A reads split (a weight A in panels,
  // [i // 32, k, i % 32], which the GEMM then runs transposed: PackMatmulWeights).
  // A lone var whose extent the split does not divide (a weight's panels padded past its end,
  // PackMatmulWeights) spans whole panels, and `valid` says how many of them exist (0: all).
  auto dimsOf = [&](const std::vector<const PrimVar*>& vars, const Operand& o, std::vector<PrimExpr>& dims, int64_t& valid) {
    valid = 0;
    for (auto* v : vars) {
      const PrimExpr& extent = pn->loopOfVar(v).extent;
      if (const SplitVar* sv = o.splitOf(v)) {
        auto* n = asIntImm(extent);
        if (!n || (n->value % sv->divisor != 0 && vars.size() != 1)) return false;
        if (n->value % sv->divisor != 0) valid = n->value;
        dims.insert(dims.end(), {intImm((n->value + sv->divisor - 1) / sv->divisor), o.stride(sv->outer.get()), mul(cStride(v), intImm(sv->divisor))});
        dims.insert(dims.end(), {intImm(sv->divisor), o.stride(sv->inner.get()), cStride(v)});
      } else {
        dims.insert(dims.end(), {extent, o.stride(v), cStride(v)});
      }
    }
    for (auto& sv : o.splits) {
      bool grouping = std::any_of(groups.begin(), groups.end(), [&](const Group& g) { return g.split == &sv; });
      if (std::find(vars.begin(), vars.end(), sv.var) == vars.end() && !grouping) return false;
    }
    return true;
  };
  std::vector<PrimExpr> rowDims, colDims;
  int64_t validRows = 0, validCols = 0;
  if (!dimsOf(rows, a, rowDims, validRows) || !dimsOf(cols, b, colDims, validCols)) return std::nullopt;
  // Grouped vars: the d values within a group last among the rows (columns), the groups batch dims.
  std::vector<PrimExpr> groupDims;
  for (const Group& g : groups) {
    const Operand &whole = g.row ? a : b, &split = g.row ? b : a;
    const int64_t d = g.split->divisor;
    (g.row ? rowDims : colDims).insert((g.row ? rowDims : colDims).end(), {intImm(d), whole.stride(g.v), cStride(g.v)});
    PrimExpr wholeStep = mul(whole.stride(g.v), intImm(d)), splitStep = split.stride(g.split->outer.get());
    groupDims.insert(groupDims.end(), {intImm(asIntImm(pn->loopOfVar(g.v).extent)->value / d), g.row ? wholeStep : splitStep, g.row ? splitStep : wholeStep, mul(cStride(g.v), intImm(d))});
  }
  if (!groupDims.empty() && (validRows != 0 || validCols != 0)) return std::nullopt;
  std::vector<PrimExpr> cIdx(update.indices.size(), intImm(0));
  std::vector<PrimExpr> args = {make<BufferLoad>(c.dtype, update.buffer, std::move(cIdx)), a.first(), b.first(), intImm(int64_t(rowDims.size() / 3)),
                                intImm(int64_t(colDims.size() / 3)), intImm(int64_t(red.size())), intImm(int64_t(batch.size() + groupDims.size() / 4))};
  args.insert(args.end(), rowDims.begin(), rowDims.end());
  args.insert(args.end(), colDims.begin(), colDims.end());
  for (auto* v : red) args.insert(args.end(), {pn->loopOfVar(v).extent, a.stride(v), b.stride(v)});
  for (auto* v : batch) args.insert(args.end(), {pn->loopOfVar(v).extent, a.stride(v), b.stride(v), cStride(v)});
  args.insert(args.end(), groupDims.begin(), groupDims.end());
  args.insert(args.end(), {intImm(validRows), intImm(validCols)});
  GemmNest out;
  out.call = make<PrimCall>(DataType::int32(), "rlx.sgemm", std::move(args));
  out.c = update.buffer;
  for (auto* v : cVars) out.rowDims.push_back(std::find(rows.begin(), rows.end(), v) != rows.end());
  auto grouped = [&](const PrimVar* v) { return std::any_of(groups.begin(), groups.end(), [&](const Group& g) { return g.v == v; }); };
  // (A grouped var is batch and row at once: no epilogue is fused into such a call.)
  for (auto* v : cVars) out.batchDims.push_back(std::find(batch.begin(), batch.end(), v) != batch.end() || grouped(v));
  out.batched = !batch.empty() || !groupDims.empty();
  out.stmt = make<Evaluate>(out.call);
  return out;
}

Stmt lowerMatmulNest(const Stmt& s) {
  auto gemm = matchMatmulNest(s);
  return gemm ? gemm->stmt : nullptr;
}

}  // namespace rlx
