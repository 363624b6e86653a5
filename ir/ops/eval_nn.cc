// Reference evaluators of the linear algebra, nn, convolution/pooling and image ops: the family's
// entry point and the helpers its files share (the op implementations live in eval_nn_*.cc).
#include "ir/ops/eval_nn.h"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>

#include "ir/minifloat.h"

namespace rlx {

void registerNNEvals() {
  registerLinalgEvals();
  registerActivationEvals();
  registerNormEvals();
  registerAttentionEvals();
  registerConvEvals();
  registerPoolEvals();
  registerImageEvals();
}

}  // namespace rlx

namespace rlx::ops {

NDArrayRef castIfNeeded(const NDArrayRef& t, DataType to) { return t->dtype == to ? t : castTensor(*t, to); }

std::vector<int> inversePerm(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inv[size_t(perm[k])] = int(k);
  return inv;
}

Shape permuteShape(const Shape& shape, const std::vector<int>& perm) {
  Shape out;
  for (int p : perm) out.push_back(shape[size_t(p)]);
  return out;
}

int64_t floorDivI(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

IndexRange validRange(int64_t count, int64_t stride, int64_t offset, int64_t limit) {
  // o * stride + offset >= 0  <=>  o >= ceil(-offset / stride)
  int64_t lo = std::max<int64_t>(0, -floorDivI(offset, stride));
  // o * stride + offset <= limit - 1  <=>  o <= floor((limit - 1 - offset) / stride)
  int64_t hi = std::min(count, floorDivI(limit - 1 - offset, stride) + 1);
  return {lo, std::max(lo, hi)};
}

double dtypeLowest(DataType t) {
  if (t.isBool()) return 0;
  if (t.isUInt()) return 0;
  if (t.isInt()) return t.bits >= 64 ? double(INT64_MIN) : -std::ldexp(1.0, t.bits - 1);
  if (t.code == DataType::Float8E8M0FNU) return 0x1p-127;  // unsigned: its least value is positive
  return -dtypeHighest(t);
}

double dtypeHighest(DataType t) {
  if (t.isBool()) return 1;
  if (t.isUInt()) return t.bits >= 64 ? 18446744073709551615.0 : std::ldexp(1.0, t.bits) - 1;
  if (t.isInt()) return t.bits >= 64 ? double(INT64_MAX) : std::ldexp(1.0, t.bits - 1) - 1;
  if (auto* f = miniFloatFormat(t)) return f->maxFinite;
  if (t.code == DataType::BFloat) return 3.3895313892515355e38;
  return t.bits == 16 ? 65504.0 : t.bits == 32 ? double(FLT_MAX) : DBL_MAX;
}

Status expectShape(const Call& call, const NDArray& t, const Shape& want, const char* what) {
  if (t.shape == want) return okStatus();
  auto str = [](const Shape& s) {
    std::string out = "(";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + (s.size() == 1 ? ",)" : ")");
  };
  return evalError(call, fmt::format("{} has shape {} but {} was expected", what, str(t.shape), str(want)));
}

int64_t coordToIndex(double v) {
  if (std::isnan(v)) return -1;
  const double limit = 1099511627776.0;  // 2^40
  return int64_t(std::min(std::max(v, -limit), limit));
}

std::vector<double> attrReals(const Call& call, std::string_view key) {
  std::vector<double> out;
  auto* a = findAttr(call, key);
  if (!a || !*a) return out;
  auto one = [](const Attr& v) -> double {
    if (!v) return 0;
    if (v->kind == AttrValue::Double) return v->d;
    if (v->kind == AttrValue::Int) return double(v->i);
    if (v->kind == AttrValue::Prim) {
      if (auto f = v->prim.as<FloatImm>()) return f->value;
      if (auto i = v->prim.as<IntImm>()) return double(i->value);
    }
    return 0;
  };
  if ((*a)->kind != AttrValue::Array) return {one(*a)};
  for (auto& v : (*a)->array) out.push_back(one(v));
  return out;
}

}  // namespace rlx::ops
