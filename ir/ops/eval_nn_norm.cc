// Reference evaluators of batch_norm (TVM's (out, mean, var) tuple, inference or training), layer,
// rms, group and instance norm; statistics in double, two-pass, biased variance.
#include <fmt/format.h>

#include <cmath>

#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

// Normalized, sorted, distinct axes (error for out-of-range or repeated ones).
Result<std::vector<bool>> reducedAxes(const Call& call, int ndim, const std::vector<int64_t>& axes) {
  std::vector<bool> reduced(size_t(ndim), false);
  for (int64_t a : axes) {
    if (a < -ndim || a >= ndim) return evalError(call, fmt::format("axis {} is out of range for {} dimensions", a, ndim));
    int k = normAxis(a, ndim);
    if (reduced[size_t(k)]) return evalError(call, fmt::format("axis {} is repeated", a));
    reduced[size_t(k)] = true;
  }
  return reduced;
}

// For every element: which statistics group it belongs to and which gamma/beta entry scales it.
struct NormLayout {
  std::vector<int64_t> key, param;
  int64_t groups = 1;
};

// Groups are the combinations of non-reduced indices; the channel axis (when >= 0) contributes
// its group (c / (C / numGroups)) instead. gamma is indexed by the reduced dims (in axis order)
// when `paramOverReduced`, else by the channel.
NormLayout normLayout(const Shape& shape, const std::vector<bool>& reduced, int channel, int64_t numGroups, bool paramOverReduced) {
  size_t n = shape.size();
  Shape keyShape(n, 1), paramShape(n, 1);
  for (size_t d = 0; d < n; ++d) {
    if (int(d) == channel && reduced[d]) keyShape[d] = numGroups;
    else if (!reduced[d]) keyShape[d] = shape[d];
    if (paramOverReduced ? reduced[d] : int(d) == channel) paramShape[d] = shape[d];
  }
  Shape ks = stridesOf(keyShape), ps = stridesOf(paramShape);
  int64_t perGroup = channel >= 0 ? std::max<int64_t>(1, shape[size_t(channel)] / numGroups) : 1;
  NormLayout l;
  l.groups = numelOf(keyShape);
  forEachIndex(shape, [&](const Shape& idx, int64_t) {
    int64_t k = 0, p = 0;
    for (size_t d = 0; d < n; ++d) {
      if (int(d) == channel && reduced[d]) k += (idx[d] / perGroup) * ks[d];
      else if (!reduced[d]) k += idx[d] * ks[d];
      if (paramShape[d] != 1) p += idx[d] * ps[d];
    }
    l.key.push_back(k);
    l.param.push_back(p);
  });
  return l;
}

struct Stats {
  std::vector<double> mean, var;
};

Stats groupStats(const std::vector<double>& x, const NormLayout& l) {
  Stats s{std::vector<double>(size_t(l.groups), 0.0), std::vector<double>(size_t(l.groups), 0.0)};
  std::vector<int64_t> count(size_t(l.groups), 0);
  for (size_t i = 0; i < x.size(); ++i) s.mean[size_t(l.key[i])] += x[i], count[size_t(l.key[i])]++;
  for (size_t g = 0; g < s.mean.size(); ++g) s.mean[g] /= double(count[g]);
  for (size_t i = 0; i < x.size(); ++i) {
    double dev = x[i] - s.mean[size_t(l.key[i])];
    s.var[size_t(l.key[i])] += dev * dev;
  }
  for (size_t g = 0; g < s.var.size(); ++g) s.var[g] /= double(count[g]);
  return s;
}

// (x - mean) / sqrt(var + eps) * gamma + beta for every element (a null gamma/beta is skipped).
// Only batch_norm skips them: TVM's layer/group/instance norm legalizations drop the center and
// scale attrs and always apply both.
void normalizeInto(NDArray& out, const std::vector<double>& x, const NormLayout& l, const Stats& s, double eps, const NDArray* gamma, const NDArray* beta) {
  for (size_t i = 0; i < x.size(); ++i) {
    size_t k = size_t(l.key[i]);
    double v = (x[i] - s.mean[k]) / std::sqrt(s.var[k] + eps);
    if (gamma) v *= gamma->getDouble(l.param[i]);
    if (beta) v += beta->getDouble(l.param[i]);
    out.setDouble(int64_t(i), v);
  }
}

Status checkParamSize(const Call& call, const NDArray& t, int64_t n, const char* name) {
  if (t.numel() != n) return evalError(call, fmt::format("{} has {} entries but {} are needed", name, t.numel(), n));
  return okStatus();
}

int64_t reducedCount(const Shape& shape, const std::vector<bool>& reduced) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) n *= shape[d];
  return n;
}

Result<Value> evalLayerNorm(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(gamma, tensorValue(call, args, 1, "gamma"));
  RLX_TRY(beta, tensorValue(call, args, 2, "beta"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  RLX_TRY(reduced, reducedAxes(call, int(x->shape.size()), attrInts(call, "axes")));
  int64_t n = reducedCount(x->shape, reduced);
  RLX_TRY_STATUS(checkParamSize(call, *gamma, n, "gamma"));
  RLX_TRY_STATUS(checkParamSize(call, *beta, n, "beta"));
  std::vector<double> v = loadAs<double>(*x);
  NormLayout l = normLayout(x->shape, reduced, -1, 1, true);
  normalizeInto(*out, v, l, groupStats(v, l), attrReal(call, "epsilon", 1e-5), gamma.get(), beta.get());
  return Value::ofTensor(out);
}

// x / sqrt(mean(x^2) + eps) * weight
Result<Value> evalRMSNorm(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(weight, tensorValue(call, args, 1, "weight"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  RLX_TRY(reduced, reducedAxes(call, int(x->shape.size()), attrInts(call, "axes")));
  RLX_TRY_STATUS(checkParamSize(call, *weight, reducedCount(x->shape, reduced), "weight"));
  std::vector<double> v = loadAs<double>(*x);
  NormLayout l = normLayout(x->shape, reduced, -1, 1, true);
  std::vector<double> sq(size_t(l.groups), 0.0);
  std::vector<int64_t> count(size_t(l.groups), 0);
  for (size_t i = 0; i < v.size(); ++i) sq[size_t(l.key[i])] += v[i] * v[i], count[size_t(l.key[i])]++;
  double eps = attrReal(call, "epsilon", 1e-5);
  for (size_t i = 0; i < v.size(); ++i) {
    size_t k = size_t(l.key[i]);
    out->setDouble(int64_t(i), v[i] / std::sqrt(sq[k] / double(count[k]) + eps) * weight->getDouble(l.param[i]));
  }
  return Value::ofTensor(out);
}

// group_norm (grouped = true) and instance_norm: statistics over `axes` (and, for group_norm, the
// channels of one group); gamma and beta are per channel.
Result<Value> evalChannelNorm(const Call& call, const std::vector<Value>& args, bool grouped) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(gamma, tensorValue(call, args, 1, "gamma"));
  RLX_TRY(beta, tensorValue(call, args, 2, "beta"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  int ndim = int(x->shape.size());
  int64_t chAttr = attrInt(call, "channel_axis", 1);
  if (chAttr < -ndim || chAttr >= ndim) return evalError(call, fmt::format("channel_axis {} is out of range for {} dimensions", chAttr, ndim));
  int ch = normAxis(chAttr, ndim);
  RLX_TRY(reduced, reducedAxes(call, ndim, attrInts(call, "axes")));
  if (reduced[size_t(ch)]) return evalError(call, "axes must not contain the channel axis");
  int64_t channels = x->shape[size_t(ch)], groups = grouped ? attrInt(call, "num_groups") : channels;
  if (grouped && (groups <= 0 || channels % groups != 0)) return evalError(call, fmt::format("{} channels are not divisible into {} groups", channels, groups));
  RLX_TRY_STATUS(checkParamSize(call, *gamma, channels, "gamma"));
  RLX_TRY_STATUS(checkParamSize(call, *beta, channels, "beta"));
  if (grouped) reduced[size_t(ch)] = true;
  std::vector<double> v = loadAs<double>(*x);
  NormLayout l = normLayout(x->shape, reduced, ch, std::max<int64_t>(groups, 1), false);
  normalizeInto(*out, v, l, groupStats(v, l), attrReal(call, "epsilon", 1e-5), gamma.get(), beta.get());
  return Value::ofTensor(out);
}

// Returns (out, mean, var) like TVM's kernel: with training=False the moving statistics normalize
// and come back unchanged; with training=True the batch statistics normalize and the returned
// statistics are (1 - momentum) * moving + momentum * batch.
Result<Value> evalBatchNorm(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "data"));
  RLX_TRY(gamma, tensorValue(call, args, 1, "gamma"));
  RLX_TRY(beta, tensorValue(call, args, 2, "beta"));
  RLX_TRY(mmean, tensorValue(call, args, 3, "moving_mean"));
  RLX_TRY(mvar, tensorValue(call, args, 4, "moving_var"));
  RLX_TRY(out, allocResultField(call, 0));
  RLX_TRY(outMean, allocResultField(call, 1));
  RLX_TRY(outVar, allocResultField(call, 2));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  int ndim = int(x->shape.size());
  int64_t axisAttr = attrInt(call, "axis", 1);
  if (axisAttr < -ndim || axisAttr >= ndim) return evalError(call, fmt::format("axis {} is out of range for {} dimensions", axisAttr, ndim));
  int axis = normAxis(axisAttr, ndim);
  int64_t channels = x->shape[size_t(axis)];
  for (auto [t, name] : {std::pair{&gamma, "gamma"}, std::pair{&beta, "beta"}, std::pair{&mmean, "moving_mean"}, std::pair{&mvar, "moving_var"}})
    RLX_TRY_STATUS(checkParamSize(call, **t, channels, name));
  if (outMean->numel() != channels || outVar->numel() != channels) return evalError(call, "the result statistics do not match the channels");
  std::vector<bool> reduced(size_t(ndim), true);
  reduced[size_t(axis)] = false;
  std::vector<double> v = loadAs<double>(*x);
  NormLayout l = normLayout(x->shape, reduced, -1, 1, false);
  l.param = l.key;  // the key of an element is its channel
  bool training = attrBool(call, "training", true);
  Stats moving{loadAs<double>(*mmean), loadAs<double>(*mvar)};
  Stats batch = training ? groupStats(v, l) : moving;
  normalizeInto(*out, v, l, batch, attrReal(call, "epsilon", 1e-5), attrBool(call, "scale", true) ? gamma.get() : nullptr,
                attrBool(call, "center", true) ? beta.get() : nullptr);
  double m = attrReal(call, "momentum", 0.1);
  auto blend = [&](double mov, double cur) { return training ? (1 - m) * mov + m * cur : mov; };
  for (int64_t c = 0; c < channels; ++c) {
    outMean->setDouble(c, blend(moving.mean[size_t(c)], batch.mean[size_t(c)]));
    outVar->setDouble(c, blend(moving.var[size_t(c)], batch.var[size_t(c)]));
  }
  return Value::ofTuple({Value::ofTensor(out), Value::ofTensor(outMean), Value::ofTensor(outVar)});
}

}  // namespace

void registerNormEvals() {
  registerEval("relax.nn.batch_norm", evalBatchNorm);
  registerEval("relax.nn.layer_norm", evalLayerNorm);
  registerEval("relax.nn.rms_norm", evalRMSNorm);
  registerEval("relax.nn.group_norm", [](const Call& c, const std::vector<Value>& a) { return evalChannelNorm(c, a, true); });
  registerEval("relax.nn.instance_norm", [](const Call& c, const std::vector<Value>& a) { return evalChannelNorm(c, a, false); });
}

}  // namespace rlx
