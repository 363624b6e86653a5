// Shared pieces of the nn-family reference evaluators (ir/ops/eval_nn*.cc): the per-file
// registration functions, dense typed buffers the kernels loop over, and layout permutations.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/ops/eval_util.h"

namespace rlx {

// One per file; registerNNEvals (eval_nn.cc) calls them all.
void registerLinalgEvals();      // eval_nn_linalg.cc: matmul, outer, einsum
void registerActivationEvals();  // eval_nn_activation.cc: activations, softmax, prelu, dropout, pad, pixel_shuffle
void registerNormEvals();        // eval_nn_norm.cc: batch/layer/group/instance/rms norm
void registerAttentionEvals();   // eval_nn_attention.cc: attention, losses
void registerConvEvals();        // eval_nn_conv.cc: conv1d-3d, conv1d/2d_transpose
void registerPoolEvals();        // eval_nn_pool.cc: max/avg/adaptive pools
void registerImageEvals();       // eval_nn_image.cc: resize2d, grid_sample, quantize, dequantize

}  // namespace rlx

namespace rlx::ops {

// Kernels compute floats in double and integers in uint64_t: unsigned + and * wrap like the fixed
// width arithmetic of TVM's kernels (the store truncates to the element type), without C++'s
// signed-overflow undefined behaviour.
template <typename T>
std::vector<T> loadAs(const NDArray& t) {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, uint64_t>);
  std::vector<T> v(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    if constexpr (std::is_same_v<T, double>) v[size_t(i)] = t.getDouble(i);
    else v[size_t(i)] = uint64_t(t.getInt(i));
  }
  return v;
}

template <typename T>
void storeAs(NDArray& out, const std::vector<T>& v) {
  for (int64_t i = 0; i < out.numel(); ++i) {
    if constexpr (std::is_same_v<T, double>) out.setDouble(i, v[size_t(i)]);
    else out.setInt(i, int64_t(v[size_t(i)]));
  }
}

// `t` converted to `to` when its dtype differs (TVM's kernels cast operands to out_dtype first).
NDArrayRef castIfNeeded(const NDArrayRef& t, DataType to);

std::vector<int> inversePerm(const std::vector<int>& perm);
// A dense row-major buffer of `shape` with its axes reordered: axis k of the result is axis
// perm[k] of the input.
template <typename T>
std::vector<T> transposeBuf(const std::vector<T>& src, const Shape& shape, const std::vector<int>& perm) {
  Shape outShape, strides = stridesOf(shape), srcStride;
  for (int p : perm) {
    outShape.push_back(shape[size_t(p)]);
    srcStride.push_back(strides[size_t(p)]);
  }
  std::vector<T> out(src.size());
  forEachIndex(outShape, [&](const Shape& idx, int64_t flat) {
    int64_t off = 0;
    for (size_t k = 0; k < idx.size(); ++k) off += idx[k] * srcStride[k];
    out[size_t(flat)] = src[size_t(off)];
  });
  return out;
}
Shape permuteShape(const Shape& shape, const std::vector<int>& perm);

// The range [lo, hi) of o in [0, count) with 0 <= o * stride + offset < limit (window taps and
// output positions of convolutions and pools; stride > 0).
struct IndexRange {
  int64_t lo, hi;
};
IndexRange validRange(int64_t count, int64_t stride, int64_t offset, int64_t limit);
int64_t floorDivI(int64_t a, int64_t b);

// The lowest / highest finite value of a dtype (TVM's min_value / max_value).
double dtypeLowest(DataType t);
double dtypeHighest(DataType t);

// Error unless `t` has shape `want`: kernels index their buffers by the shapes they expect, so
// values that disagree with the call's struct info must stop here.
Status expectShape(const Call& call, const NDArray& t, const Shape& want, const char* what);
// A coordinate computed in double as an index: NaN becomes -1 (outside every image) and huge
// values clamp to +-2^40, so the integer arithmetic that follows cannot overflow.
int64_t coordToIndex(double v);

// An attr holding an array of numbers (FloatArrayAttr such as roi) as doubles.
std::vector<double> attrReals(const Call& call, std::string_view key);

}  // namespace rlx::ops
