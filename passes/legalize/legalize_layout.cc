// Legalization of layout_transform as TVM names it (te_layout_transform[_with_pad][_axis_separator]):
// one block over the output reading each element from the input index the inverted map gives, with
// the pad value where an output index has no input element.
#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"
#include "passes/index_map.h"
#include "passes/legalize/legalize.h"

namespace rlx::legalize {

namespace {

using te::Indices;
using te::Tensor;

// The pad value attribute as a constant of dtype t (None pads with 0, as TVM's legalization does).
PrimExpr padConstant(const Call& call, DataType t) {
  const Attr* pad = ops::findAttr(call, "pad_value");
  double v = 0;
  if (pad && *pad) {
    const Attr& a = *pad;
    if (a->kind == AttrValue::Int) v = double(a->i);
    else if (a->kind == AttrValue::Bool) v = a->b;
    else if (a->kind == AttrValue::Double) v = a->d;
    else if (a->kind == AttrValue::Prim && a->prim.is<FloatImm>()) v = a->prim.as<FloatImm>()->value;
    else if (a->kind == AttrValue::Prim && asIntImm(a->prim)) v = double(asIntImm(a->prim)->value);
  }
  return te::constant(v, t);
}

bool hasAxisSeparators(const Call& call) {
  const Attr* sep = ops::findAttr(call, "axis_separators");
  return sep && *sep && !(*sep)->array.empty();
}

// Whether output index `at` of a padding map has no input element: some input index its inverse
// gives is past that dim's extent (inputs an inverse axis passes through unchanged never are).
PrimExpr paddingCondition(const index_map::Inverse& inv, const std::vector<PrimExpr>& inShape, const std::vector<PrimExpr>& outShape) {
  PrimExpr cond;
  for (size_t k = 0; k < inShape.size(); ++k) {
    const PrimExpr& e = inv.map.results[k];
    bool passedThrough = false;
    for (size_t j = 0; j < inv.map.params.size(); ++j) passedThrough = passedThrough || (e.same(inv.map.params[j]) && proveEqual(outShape[j], inShape[k]));
    if (passedThrough) continue;
    PrimExpr past = make<PrimBinary>(NodeKind::GE, DataType::boolean(), e, inShape[k]);
    cond = cond ? PrimExpr(make<PrimBinary>(NodeKind::Or, DataType::boolean(), cond, past)) : past;
  }
  return cond;
}

// Declines (the op stays, and the pipeline reports it) for maps index_map::inverse cannot invert
// exactly; axis separators only split the physical buffer, which the CPU's flat memory ignores.
std::vector<Tensor> layoutTransform(Ctx& ctx) {
  const Attr* attr = ops::findAttr(ctx.call, "index_map");
  auto map = attr ? index_map::fromAttr(*attr) : std::nullopt;
  auto in = sinfoOf(ctx.call.args.empty() ? Expr() : ctx.call.args[0]).as<TensorSInfo>();
  auto outShape = ctx.outShape(0);
  if (!map || !in || !in->dims() || !outShape) return {};
  std::vector<PrimExpr> inShape = ctx.kb.mapShape(*in->dims());
  auto inv = index_map::inverse(*map, inShape);
  if (!inv.ok() || inv.value().map.params.size() != outShape->size()) return {};
  PrimExpr padding = inv.value().padded ? paddingCondition(inv.value(), inShape, *outShape) : nullptr;
  ctx.kernelName = std::string(padding ? "te_layout_transform_with_pad" : "te_layout_transform") + (hasAxisSeparators(ctx.call) ? "_axis_separator" : "");
  Tensor a = ctx.kb.placeholder("A", inShape, in->dtype);
  ctx.inputs.push_back(a);
  ctx.tirArgs.push_back(ctx.call.args[0]);
  PrimExpr padValue = padConstant(ctx.call, in->dtype);
  return {ctx.kb.compute(ctx.kernelName, *outShape, in->dtype, [&](const Indices& idx) {
    PrimVarMap at;
    for (size_t k = 0; k < idx.size(); ++k) at[inv.value().map.params[k].get()] = idx[k];
    Indices src;
    for (auto& e : inv.value().map.results) src.push_back(primSubstitute(e, at));
    if (!padding) return a(src);
    PrimExpr isPadding = primSubstitute(padding, at);
    return te::call("tir.if_then_else", in->dtype, {isPadding, padValue, a(src)});
  }, "axis")};
}

}  // namespace

void registerLayoutRules() { registerRule("relax.layout_transform", "te_layout_transform", layoutTransform); }

}  // namespace rlx::legalize
