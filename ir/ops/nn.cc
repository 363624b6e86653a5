// Neural-network ops (R.nn.*): activations, softmax, normalizations, dropout, pad, pixel_shuffle,
// attention variants and losses; convolutions and pooling live in conv_pool.cc.
#include <fmt/format.h>

#include "ir/ops/infer_util.h"

namespace rlx {
namespace ops {
void registerConvPoolOps();  // conv_pool.cc
}
namespace {
using namespace ops;
using KwArgs = std::vector<std::pair<std::string, PyValue>>;

void activation(const char* name, bool requireFloat, std::vector<OpParam> extra = {}, const char* attrsType = "") {
  std::vector<OpParam> params = {arg("data")};
  params.insert(params.end(), extra.begin(), extra.end());
  OpDef(std::string("relax.nn.") + name)
      .attrs(attrsType)
      .params(params)
      .infer([requireFloat](const Call& c) { return inferUnaryArith(c, requireFloat); })
      .pattern(OpPattern::ElemWise)
      .doc(std::string(name) + " activation")
      .done();
}

Result<StructInfo> inferSoftmax(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  if (x->ndim >= 0) {
    RLX_TRY(a, normalizeAxis(c, x->ndim, attrInt(c, "axis", -1)));
    (void)a;
  }
  if (!x->dtype.isVoid() && !x->dtype.isFloat()) return opError(c, fmt::format("requires a float tensor, but the input dtype is {}", x->dtype.str()));
  return StructInfo(x);
}

Result<StructInfo> inferPRelu(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  RLX_TRY(alpha, tensorArg(c, 1, "alpha"));
  if (!x->dtype.isVoid() && !x->dtype.isFloat()) return opError(c, fmt::format("requires a float tensor, but the input dtype is {}", x->dtype.str()));
  if (x->ndim >= 0) {
    RLX_TRY(axis, normalizeAxis(c, x->ndim, attrInt(c, "axis", 1)));
    if (alpha->ndim >= 0 && alpha->ndim != 1) return opError(c, fmt::format("expects alpha to be 1-D, but it has {} dimensions", alpha->ndim));
    auto xd = x->dims();
    auto ad = alpha->dims();
    if (xd && ad && !isConstInt((*ad)[0], 1) && provablyDifferent((*ad)[0], (*xd)[size_t(axis)]))
      return opError(c, fmt::format("alpha has {} entries but axis {} has extent {}", primStr((*ad)[0]), axis, primStr((*xd)[size_t(axis)])));
  }
  return StructInfo(x);
}

// TVM's NormCheckDtypeAndShape: float data, every other input of data's dtype with one dimension
// per normalized axis and matching extents. Returns true when a shape is not fully known.
Result<bool> normCheck(const Call& c, const std::vector<TensorRef>& in, const std::vector<const char*>& names, const std::vector<int64_t>& axes) {
  const TensorRef& x = in[0];
  std::vector<int> norm;
  if (x->ndim >= 0) {
    RLX_TRY(n, normalizeAxes(c, x->ndim, axes));
    norm = n;
  }
  if (!x->dtype.isVoid() && !x->dtype.isFloat()) return opError(c, fmt::format("requires float data, but its dtype is {}", x->dtype.str()));
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i]->dtype != x->dtype)
      return opError(c, fmt::format("{} has dtype {} but the data's dtype is {}", names[i], in[i]->dtype.isVoid() ? "unknown" : in[i]->dtype.str(), x->dtype.isVoid() ? "unknown" : x->dtype.str()));
    if (in[i]->ndim != int(axes.size()))
      return opError(c, fmt::format("{} must have {} dimension{} (one per normalized axis), but it has {}", names[i], axes.size(), axes.size() == 1 ? "" : "s", in[i]->ndim));
  }
  bool unknown = !x->shape;
  std::vector<std::vector<PrimExpr>> lens;
  if (auto d = x->dims()) {
    std::vector<PrimExpr> l;
    for (int a : norm) l.push_back((*d)[size_t(a)]);
    lens.push_back(l);
  }
  for (size_t i = 1; i < in.size(); ++i)
    if (auto d = in[i]->dims()) lens.push_back(*d);
  for (size_t i = 1; i < lens.size(); ++i)
    for (size_t j = 0; j < axes.size(); ++j) {
      if (provablyDifferent(lens[0][j], lens[i][j]))
        return opError(c, fmt::format("the sizes of gamma, beta, etc. must match the data's extents on the normalized axes, but got {} and {}", shapeStr(lens[0]), shapeStr(lens[i])));
      if (!proveEqual(lens[0][j], lens[i][j])) unknown = true;
    }
  return unknown;
}

Result<std::vector<TensorRef>> allTensors(const Call& c, const std::vector<const char*>& names) {
  RLX_TRY_OK(checkArgCount(c, names.size(), names.size()));
  std::vector<TensorRef> out;
  for (size_t i = 0; i < names.size(); ++i) {
    RLX_TRY(t, tensorArg(c, i, names[i]));
    out.push_back(t);
  }
  return out;
}

Result<StructInfo> inferBatchNorm(const Call& c) {
  std::vector<const char*> names = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  RLX_TRY(in, allTensors(c, names));
  RLX_TRY(unknown, normCheck(c, in, names, {attrInt(c, "axis", 1)}));
  auto& x = in[0];
  if (unknown)
    return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{makeTensorNdim(x->dtype, x->ndim, x->vdevice), makeTensorNdim(x->dtype, 1, x->vdevice), makeTensorNdim(x->dtype, 1, x->vdevice)}));
  return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{in[0], in[3], in[4]}));
}

Result<StructInfo> inferLayerNorm(const Call& c) {
  std::vector<const char*> names = {"data", "gamma", "beta"};
  RLX_TRY(in, allTensors(c, names));
  RLX_TRY(unknown, normCheck(c, in, names, attrInts(c, "axes")));
  if (unknown) return makeTensorNdim(in[0]->dtype, in[0]->ndim, in[0]->vdevice);
  return StructInfo(in[0]);
}

Result<StructInfo> inferRMSNorm(const Call& c) {
  std::vector<const char*> names = {"data", "weight"};
  RLX_TRY(in, allTensors(c, names));
  RLX_TRY(unknown, normCheck(c, in, names, attrInts(c, "axes")));
  if (unknown) return makeTensorNdim(in[0]->dtype, in[0]->ndim, in[0]->vdevice);
  return StructInfo(in[0]);
}

// group_norm / instance_norm: gamma and beta are 1-D over the channel axis.
Result<StructInfo> inferChannelNorm(const Call& c, bool grouped) {
  std::vector<const char*> names = {"data", "gamma", "beta"};
  RLX_TRY(in, allTensors(c, names));
  auto& x = in[0];
  if (!x->dtype.isVoid() && !x->dtype.isFloat()) return opError(c, fmt::format("requires float data, but its dtype is {}", x->dtype.str()));
  for (size_t i = 1; i < 3; ++i) {
    if (in[i]->dtype != x->dtype) return opError(c, fmt::format("{} must have the data's dtype", names[i]));
    if (in[i]->ndim >= 0 && in[i]->ndim != 1) return opError(c, fmt::format("{} must be 1-D, but it has {} dimensions", names[i], in[i]->ndim));
  }
  if (x->ndim < 0) return StructInfo(x);
  RLX_TRY(ch, normalizeAxis(c, x->ndim, attrInt(c, "channel_axis", 1)));
  RLX_TRY(axes, normalizeAxes(c, x->ndim, attrInts(c, "axes")));
  for (int a : axes)
    if (a == ch) return opError(c, "axes must not contain the channel axis");
  auto d = x->dims();
  if (!d) return StructInfo(x);
  PrimExpr channels = (*d)[size_t(ch)];
  if (grouped) {
    int64_t g = attrInt(c, "num_groups");
    if (g <= 0) return opError(c, fmt::format("num_groups must be positive, but it is {}", g));
    if (auto k = asConst(channels); k && *k % g != 0) return opError(c, fmt::format("{} channels are not divisible into {} groups", *k, g));
  }
  for (size_t i = 1; i < 3; ++i)
    if (auto gd = in[i]->dims(); gd && provablyDifferent((*gd)[0], channels))
      return opError(c, fmt::format("{} has {} entries but the data has {} channels", names[i], primStr((*gd)[0]), primStr(channels)));
  return StructInfo(x);
}

Result<StructInfo> inferDropout(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  if (!x->dtype.isVoid() && !x->dtype.isFloat()) return opError(c, fmt::format("requires a float tensor, but the input dtype is {}", x->dtype.str()));
  return StructInfo(make<TupleSInfo>(std::vector<StructInfo>{x, x}));
}

Result<StructInfo> inferPad(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  auto pw = attrInts(c, "pad_width");
  std::string mode = attrString(c, "pad_mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "replicate" && mode != "circular")
    return opError(c, fmt::format("unknown pad_mode \"{}\"", mode));
  if (x->ndim < 0) return StructInfo(x);
  if (pw.size() != size_t(2 * x->ndim)) return opError(c, fmt::format("pad_width must have 2 values per dimension ({}), but it has {}", 2 * x->ndim, pw.size()));
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, x->ndim, x->vdevice);
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < d->size(); ++i) out.push_back(add((*d)[i], i64(pw[2 * i] + pw[2 * i + 1])));
  return makeTensor(out, x->dtype, x->vdevice);
}

Result<StructInfo> inferPixelShuffle(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 1, 1));
  RLX_TRY(x, tensorArg(c, 0, "data"));
  int64_t r = attrInt(c, "upscale_factor");
  if (r <= 0) return opError(c, fmt::format("upscale_factor must be positive, but it is {}", r));
  if (x->ndim >= 0 && x->ndim < 3) return opError(c, fmt::format("expects at least 3 dimensions (.., C, H, W), but got {}", x->ndim));
  auto d = x->dims();
  if (!d) return makeTensorNdim(x->dtype, x->ndim, x->vdevice);
  std::vector<PrimExpr> out = *d;
  size_t n = out.size();
  if (auto ch = asConst(out[n - 3]); ch && *ch % (r * r) != 0) return opError(c, fmt::format("{} channels are not divisible by upscale_factor^2 = {}", *ch, r * r));
  out[n - 3] = floordiv(out[n - 3], i64(r * r));
  out[n - 2] = mul(out[n - 2], i64(r));
  out[n - 1] = mul(out[n - 1], i64(r));
  return makeTensor(out, x->dtype, x->vdevice);
}

Status sameDim(const Call& c, const PrimExpr& a, const PrimExpr& b, const char* m1, const char* m2, const char* what) {
  if (provablyDifferent(a, b)) return opError(c, fmt::format("the {} of {} ({}) and of {} ({}) must be equal", what, m1, primStr(a), m2, primStr(b)));
  return okStatus();
}

Result<StructInfo> inferAttention(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 3, 4));
  RLX_TRY(q, tensorArg(c, 0, "query"));
  RLX_TRY(k, tensorArg(c, 1, "key"));
  RLX_TRY(v, tensorArg(c, 2, "value"));
  for (auto [t, n] : {std::pair{q, "query"}, std::pair{k, "key"}, std::pair{v, "value"}})
    if (t->ndim != 4) return opError(c, fmt::format("the {} must be 4-D (batch, sequence, heads, head dim), but it is {}", n, sinfoStr(t)));
  auto qd = q->dims(), kd = k->dims(), vd = v->dims();
  if (!qd || !kd || !vd) return makeTensorNdim(q->dtype, 4, q->vdevice);
  RLX_TRY_OK(sameDim(c, (*qd)[0], (*kd)[0], "query", "key", "batch size"));
  RLX_TRY_OK(sameDim(c, (*qd)[0], (*vd)[0], "query", "value", "batch size"));
  RLX_TRY_OK(sameDim(c, (*qd)[2], (*kd)[2], "query", "key", "number of heads"));
  RLX_TRY_OK(sameDim(c, (*qd)[2], (*vd)[2], "query", "value", "number of heads"));
  RLX_TRY_OK(sameDim(c, (*kd)[1], (*vd)[1], "key", "value", "sequence length"));
  RLX_TRY_OK(sameDim(c, (*qd)[3], (*kd)[3], "query", "key", "head dim"));
  if (c.args.size() == 4) {
    RLX_TRY(b, tensorArg(c, 3, "bias"));
    if (b->ndim >= 0 && (b->ndim < 2 || b->ndim > 4)) return opError(c, fmt::format("the bias must have 2 to 4 dimensions, but it has {}", b->ndim));
    if (auto bd = b->dims()) {
      std::vector<PrimExpr> full = {(*qd)[0], (*qd)[2], (*qd)[1], (*kd)[1]};
      size_t off = 4 - bd->size();
      for (size_t i = 0; i < bd->size(); ++i)
        if (!isConstInt((*bd)[i], 1) && provablyDifferent((*bd)[i], full[off + i]))
          return opError(c, fmt::format("the bias {} does not broadcast to (batch, heads, seq_len, seq_len_kv) = {}", shapeStr(*bd), shapeStr(full)));
    }
  }
  return makeTensor({(*qd)[0], (*qd)[1], (*qd)[2], (*vd)[3]}, q->dtype, q->vdevice);
}

Result<StructInfo> inferAttentionVarLen(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 7, 7));
  RLX_TRY(q, tensorArg(c, 0, "queries"));
  RLX_TRY(k, tensorArg(c, 1, "keys"));
  RLX_TRY(v, tensorArg(c, 2, "values"));
  for (auto [t, n] : {std::pair{q, "queries"}, std::pair{k, "keys"}, std::pair{v, "values"}})
    if (t->ndim >= 0 && t->ndim != 4) return opError(c, fmt::format("the {} must be 4-D, but it is {}", n, sinfoStr(t)));
  auto qd = q->dims(), vd = v->dims();
  if (!qd || !vd) return makeTensorNdim(q->dtype, 4, q->vdevice);
  return makeTensor({(*qd)[0], (*qd)[1], (*qd)[2], (*vd)[3]}, q->dtype, q->vdevice);
}

// scale is an optional FloatImm (printed typed, T.float32(..)); a Python float becomes float32.
Status attentionFixup(Call& c) {
  if (auto* s = findAttr(c, "scale"); s && *s && (*s)->kind != AttrValue::Prim) setAttr(c, "scale", AttrValue::primOf(floatImm(attrReal(c, "scale"), DataType::float32())));
  if (c.opName() == "relax.nn.attention" && c.args.size() == 4) c.op = opRef("relax.nn.attention_bias");
  return okStatus();
}

std::vector<OpParam> attentionAttrs() {
  return {attr("scale", OpParam::AnyAttr, aNone()), attr("causal_mask", OpParam::OptStrAttr, aNone()), attr("window_size", OpParam::OptIntAttr, aNone())};
}

// R.nn.attention_var_len(queries, keys, values, seqstart_q, seqstart_k, max_seqlen_q, max_seqlen_k, ...)
// in printed (argument) order; seqstart_k / max_seqlen_k default to the query ones.
Result<Expr> buildAttentionVarLen(const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) {
  std::string label = op.scriptName();
  RLX_TRY(p, bindPy(label, {"queries", "keys", "values", "seqstart_q", "seqstart_k", "max_seqlen_q", "max_seqlen_k", "scale", "causal_mask", "window_size"}, 4, args, kwargs));
  if (!p[5]) return Error(label + " missing required argument 'max_seqlen_q'");
  std::vector<Expr> callArgs;
  for (size_t i : {0, 1, 2, 3, 4, 5, 6}) {
    const PyValue* v = p[i];
    if (!v || v->kind == PyValue::None) v = i == 4 ? p[3] : p[5];
    RLX_TRY(e, toExpr(*v, label + " argument"));
    callArgs.push_back(e);
  }
  std::vector<std::pair<std::string, Attr>> fields;
  for (size_t i = 7; i < 10; ++i) {
    Attr a;
    if (p[i] && p[i]->kind != PyValue::None) {
      RLX_TRY(x, pyToAttr(*p[i], label + " attr"));
      a = x;
    }
    fields.emplace_back(i == 7 ? "scale" : i == 8 ? "causal_mask" : "window_size", a);
  }
  auto attrs = make<Attrs>();
  attrs->typeKey = op.attrsType;
  attrs->fields = std::move(fields);
  auto call = make<Call>(opRef(op.name), std::move(callArgs), attrs, std::vector<StructInfo>{});
  RLX_TRY_OK(attentionFixup(*call));
  return Expr(call);
}

Result<StructInfo> inferCrossEntropy(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 2));
  RLX_TRY(p, tensorArg(c, 0, "predictions"));
  RLX_TRY(l, tensorArg(c, 1, "labels"));
  if (p->ndim >= 0 && l->ndim >= 0 && p->ndim != l->ndim) return opError(c, fmt::format("predictions and labels must have the same number of dimensions, but got {} and {}", p->ndim, l->ndim));
  if (auto pd = p->dims(), ld = l->dims(); pd && ld)
    for (size_t i = 0; i < pd->size(); ++i)
      if (provablyDifferent((*pd)[i], (*ld)[i])) return opError(c, fmt::format("predictions {} and labels {} must have the same shape", shapeStr(*pd), shapeStr(*ld)));
  RLX_TRY(dt, binaryDType(c, p->dtype, l->dtype, "predictions", "labels"));
  return makeTensor({}, dt, p->vdevice);
}

Result<StructInfo> inferNLLLoss(const Call& c) {
  RLX_TRY_OK(checkArgCount(c, 2, 3));
  RLX_TRY(p, tensorArg(c, 0, "predictions"));
  RLX_TRY(t, tensorArg(c, 1, "targets"));
  if (!t->dtype.isVoid() && !t->dtype.isInt()) return opError(c, fmt::format("expects integer targets, but their dtype is {}", t->dtype.str()));
  if (c.args.size() == 3) {
    RLX_TRY(w, tensorArg(c, 2, "weights"));
    if (w->ndim >= 0 && w->ndim != 1) return opError(c, fmt::format("expects 1-D weights, but they have {} dimensions", w->ndim));
  }
  if (p->ndim >= 0 && t->ndim >= 0 && ((p->ndim == 1 && t->ndim != 0) || (p->ndim > 1 && t->ndim != p->ndim - 1)))
    return opError(c, fmt::format("targets must have one dimension less than predictions ({}), but have {}", p->ndim, t->ndim));
  std::string red = attrString(c, "reduction", "mean");
  if (red != "mean" && red != "sum" && red != "none") return opError(c, fmt::format("reduction must be \"mean\", \"sum\" or \"none\", but it is \"{}\"", red));
  if (red != "none") return makeTensor({}, p->dtype, p->vdevice);
  if (t->shape) return StructInfo(make<TensorSInfo>(t->shape, p->dtype, t->ndim, p->vdevice));
  return makeTensorNdim(p->dtype, t->ndim, p->vdevice);
}

}  // namespace

void registerNNOps() {
  activation("relu", false);
  activation("gelu", true);
  activation("gelu_tanh", true);
  activation("silu", true);
  activation("selu", true);
  activation("leakyrelu", true, {attr("alpha", OpParam::DoubleAttr, aReal(0.01))}, "relax.attrs.LeakyReluAttrs");
  activation("softplus", true, {attr("beta", OpParam::DoubleAttr, aReal(1.0)), attr("threshold", OpParam::DoubleAttr, aReal(20.0))}, "relax.attrs.SoftplusAttrs");
  OpDef("relax.nn.prelu").attrs("relax.attrs.PReluAttrs").params({arg("data"), arg("alpha"), attr("axis", OpParam::IntAttr, aInt(1))}).infer(inferPRelu).pattern(OpPattern::Broadcast).doc("parametric ReLU").done();
  for (const char* n : {"softmax", "log_softmax"})
    OpDef(std::string("relax.nn.") + n).attrs("relax.attrs.SoftmaxAttrs").params({arg("data"), attr("axis", OpParam::IntAttr, aInt(-1))}).infer(inferSoftmax).pattern(OpPattern::Opaque).doc(std::string(n) + " along an axis").done();
  OpDef("relax.nn.batch_norm")
      .attrs("relax.attrs.BatchNormAttrs")
      .params({arg("data"), arg("gamma"), arg("beta"), arg("moving_mean"), arg("moving_var"), attr("axis", OpParam::IntAttr, aInt(1)), attr("epsilon", OpParam::DoubleAttr, aReal(1e-5)),
               attr("center", OpParam::BoolAttr, aBool(true)), attr("scale", OpParam::BoolAttr, aBool(true)), attr("momentum", OpParam::DoubleAttr, aReal(0.1)),
               attr("training", OpParam::BoolAttr, aBool(true))})
      .infer(inferBatchNorm)
      .pattern(OpPattern::OutEWiseFusable)
      .doc("batch normalization → (out, new_mean, new_var)")
      .done();
  OpDef("relax.nn.layer_norm")
      .attrs("relax.attrs.LayerNormAttrs")
      .params({arg("data"), arg("gamma"), arg("beta"), reqAttr("axes", OpParam::IntArrayAttr), attr("epsilon", OpParam::DoubleAttr, aReal(1e-5)), attr("center", OpParam::BoolAttr, aBool(true)),
               attr("scale", OpParam::BoolAttr, aBool(true))})
      .infer(inferLayerNorm)
      .pattern(OpPattern::OutEWiseFusable)
      .doc("layer normalization")
      .done();
  OpDef("relax.nn.rms_norm")
      .attrs("relax.attrs.RMSNormAttrs")
      .params({arg("data"), arg("weight"), attr("axes", OpParam::IntArrayAttr, aInts({-1})), attr("epsilon", OpParam::DoubleAttr, aReal(1e-5))})
      .infer(inferRMSNorm)
      .pattern(OpPattern::OutEWiseFusable)
      .doc("root-mean-square normalization")
      .done();
  OpDef("relax.nn.group_norm")
      .attrs("relax.attrs.GroupNormAttrs")
      .params({arg("data"), arg("gamma"), arg("beta"), reqAttr("num_groups", OpParam::IntAttr), reqAttr("channel_axis", OpParam::IntAttr), reqAttr("axes", OpParam::IntArrayAttr),
               attr("epsilon", OpParam::DoubleAttr, aReal(1e-5)), attr("center", OpParam::BoolAttr, aBool(true)), attr("scale", OpParam::BoolAttr, aBool(true))})
      .infer([](const Call& c) { return inferChannelNorm(c, true); })
      .pattern(OpPattern::OutEWiseFusable)
      .doc("group normalization")
      .done();
  OpDef("relax.nn.instance_norm")
      .attrs("relax.attrs.InstanceNormAttrs")
      .params({arg("data"), arg("gamma"), arg("beta"), attr("channel_axis", OpParam::IntAttr, aInt(1)), reqAttr("axes", OpParam::IntArrayAttr), attr("epsilon", OpParam::DoubleAttr, aReal(1e-5)),
               attr("center", OpParam::BoolAttr, aBool(true)), attr("scale", OpParam::BoolAttr, aBool(true))})
      .infer([](const Call& c) { return inferChannelNorm(c, false); })
      .pattern(OpPattern::OutEWiseFusable)
      .doc("instance normalization")
      .done();
  OpDef("relax.nn.dropout").attrs("relax.attrs.DropoutAttrs").params({arg("data"), attr("rate", OpParam::DoubleAttr, aReal(0.5))}).infer(inferDropout).pattern(OpPattern::Opaque).doc("dropout → (out, mask)").done();
  OpDef("relax.nn.pad")
      .attrs("relax.attrs.PadAttrs")
      .params({arg("data"), reqAttr("pad_width", OpParam::IntArrayAttr), attr("pad_value", OpParam::DoubleAttr, aReal(0.0)), attr("pad_mode", OpParam::StrAttr, aStr("constant"))})
      .infer(inferPad)
      .pattern(OpPattern::Injective)
      .doc("pad every axis (before, after)")
      .done();
  OpDef("relax.nn.pixel_shuffle").attrs("relax.attrs.PixelShuffleAttrs").params({arg("data"), reqAttr("upscale_factor", OpParam::IntAttr)}).infer(inferPixelShuffle).pattern(OpPattern::Injective).doc("depth to space").done();
  std::vector<OpParam> att = {arg("query"), arg("key"), arg("value"), optArg("bias")};
  for (auto& p : attentionAttrs()) att.push_back(p);
  OpDef("relax.nn.attention").attrs("relax.attrs.AttentionAttrs").params(att).fixup(attentionFixup).infer(inferAttention).pattern(OpPattern::Opaque).doc("fused multi-head attention (BSNH)").done();
  std::vector<OpParam> attb = {arg("query"), arg("key"), arg("value"), arg("bias")};
  for (auto& p : attentionAttrs()) attb.push_back(p);
  OpDef("relax.nn.attention_bias").attrs("relax.attrs.AttentionAttrs").params(attb).fixup(attentionFixup).infer(inferAttention).pattern(OpPattern::Opaque).doc("fused attention with an additive bias").done();
  OpDef("relax.nn.attention_var_len").attrs("relax.attrs.AttentionAttrs").build(buildAttentionVarLen).infer(inferAttentionVarLen).pattern(OpPattern::Opaque).doc("attention over packed variable-length sequences").done();
  OpDef("relax.nn.cross_entropy_with_logits").params({arg("predictions"), arg("labels")}).infer(inferCrossEntropy).pattern(OpPattern::Opaque).doc("cross entropy with logits").done();
  OpDef("relax.nn.nll_loss")
      .attrs("relax.attrs.NLLLossAttrs")
      .params({arg("predictions"), arg("targets"), optArg("weights"), attr("reduction", OpParam::StrAttr, aStr("mean")), attr("ignore_index", OpParam::IntAttr, aInt(-100))})
      .infer(inferNLLLoss)
      .pattern(OpPattern::Opaque)
      .doc("negative log likelihood loss")
      .done();
  ops::registerConvPoolOps();
}

}  // namespace rlx
