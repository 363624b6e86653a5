// CPU schedule, softmax attention kernels (schedule_attention.h): checks the four buffers' shapes and
// replaces the kernel's stages by one rlx.attention call with the problem's dims.
#include "runtime/llvm/schedule_attention.h"

#include <optional>

#include "ir/arith.h"
#include "passes/softmax_attention_kernel.h"
#include "runtime/llvm/tir_copy.h"

namespace rlx {

namespace {

std::optional<std::vector<int64_t>> constFloatShape(const Buffer& b) {
  if (!(b.dtype == DataType::float32()) || !b.strides.empty()) return std::nullopt;
  std::vector<int64_t> shape;
  for (const PrimExpr& d : b.shape) {
    auto c = constInt(d);
    if (!c || *c <= 0) return std::nullopt;
    shape.push_back(*c);
  }
  return shape;
}

}  // namespace

PrimFuncRef lowerSoftmaxAttention(const PrimFuncRef& func) {
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  if (!avx512) return nullptr;  // the runtime kernel's softmax is AVX-512 code
  const Attr* kernel = func->attrs ? func->attrs->find(kKernelAttr) : nullptr;
  if (!kernel || !*kernel || (*kernel)->kind != AttrValue::Str || (*kernel)->s != kSoftmaxAttention || func->bufferMap.size() != 4) return nullptr;
  std::vector<std::vector<int64_t>> shapes;
  for (auto& [param, buffer] : func->bufferMap) {
    auto shape = constFloatShape(*buffer);
    if (!shape || (!shapes.empty() && shape->size() != shapes[0].size()) || shape->size() < 2) return nullptr;
    shapes.push_back(*shape);
  }
  const auto &q = shapes[0], &k = shapes[1], &v = shapes[2], &o = shapes[3];
  size_t r = q.size();
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < r; ++d) {
    if (k[d] != q[d] || v[d] != q[d] || o[d] != q[d]) return nullptr;
    batch *= q[d];
  }
  int64_t m = q[r - 2], d = q[r - 1], n = k[r - 1], e = v[r - 1];
  if (k[r - 2] != d || v[r - 2] != n || o[r - 2] != m || o[r - 1] != e) return nullptr;
  auto first = [&](size_t i) {
    const BufferRef& b = func->bufferMap[i].second;
    return PrimExpr(make<BufferLoad>(b->dtype, b, std::vector<PrimExpr>(r, intImm(0))));
  };
  std::vector<PrimExpr> args = {first(3), first(0), first(1), first(2), intImm(batch), intImm(m), intImm(n), intImm(d), intImm(e)};
  return withBody(*func, make<Evaluate>(make<PrimCall>(DataType::int32(), "rlx.attention", std::move(args))));
}

}  // namespace rlx
