// The Relay op conversions (one function per Relay op, named after it; ops_<family>.cc) and the
// small helpers they share. Private to frontend/relay: op_registry.cc maps names to these.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "frontend/relay/convert.h"

namespace rlx::relay::ops {

using RExpr = rlx::Expr;

// ---- helpers (ops_util.cc)
// `axis` in [-rank, rank) as a non-negative axis; fails the call otherwise.
int64_t normAxis(OpCtx& c, int64_t axis, int64_t rank);
std::vector<int64_t> normAxes(OpCtx& c, const std::vector<int64_t>& axes, int64_t rank);
// A Python list of PrimExprs (a shape for ShapeArg parameters; ints stay ints).
PyValue primList(const std::vector<PrimExpr>& v);
PyValue floatList(const std::vector<double>& v);
// The dtype of a tensor-typed Relax value (void when unknown or not a tensor).
DataType dtypeOf(const RExpr& e);
// R.astype(x, t) unless x already has dtype t.
RExpr astype(OpCtx& c, const RExpr& x, DataType t);
// A conv/pool out_dtype-like attribute as Relax writes it: "void" when unset ("" in Relay).
std::string outDType(OpCtx& c, const char* key = "out_dtype");
// The value of a constant 0-d (or one-element) tensor argument, or nullopt.
std::optional<double> constScalar(const RExpr& e);
// The integer elements of a constant tensor argument (any rank), or nullopt.
std::optional<std::vector<int64_t>> constInts(const RExpr& e);
// Relay's spatial padding (1, n or 2n values; n = spatial rank) as the 2n values
// (all begins, then all ends) Relax writes.
std::vector<int64_t> spatialPadding(OpCtx& c, size_t n, const char* key = "padding");
// A spatial attribute (strides, dilation, pool_size): 1 value broadcast to n, or exactly n values.
std::vector<int64_t> spatialInts(OpCtx& c, size_t n, const char* key, int64_t def);
// The attributes conv/pool ops accept but that say nothing Relax needs (inferred, or tuning output).
void requireNoTuningLayout(OpCtx& c);
// The values of a constant tensor argument as doubles (any dtype, any rank), or nullopt.
std::optional<std::vector<double>> constDoubles(const RExpr& e);
// A 0-d constant of dtype t (Relay's scalars folded into a rewrite).
RExpr scalarConst(double v, DataType t);
// A constant integer tensor of the given shape and dtype.
RExpr intsConst(const std::vector<int64_t>& values, const std::vector<int64_t>& shape, DataType t);
// Attribute values built here, for a call handed on through OpCtx::convertAs.
AttrValue intAttr(int64_t v);
AttrValue floatAttr(double v);
AttrValue intsAttr(const std::vector<int64_t>& v);
AttrValue floatsAttr(const std::vector<double>& v);
// The call's attributes with `extra` set (entries of the same name replaced).
Attrs withAttrs(const OpCtx& c, const Attrs& extra);
// The fields of a tuple-valued argument (a tuple literal's, or projections of a tuple value).
std::vector<RExpr> tupleFields(OpCtx& c, size_t arg, const char* what);

// ---- elementwise (ops_elementwise.cc)
RExpr abs(OpCtx& c);
RExpr acos(OpCtx& c);
RExpr acosh(OpCtx& c);
RExpr asin(OpCtx& c);
RExpr asinh(OpCtx& c);
RExpr atan(OpCtx& c);
RExpr atanh(OpCtx& c);
RExpr ceil(OpCtx& c);
RExpr cos(OpCtx& c);
RExpr cosh(OpCtx& c);
RExpr erf(OpCtx& c);
RExpr exp(OpCtx& c);
RExpr floor(OpCtx& c);
RExpr log(OpCtx& c);
RExpr negative(OpCtx& c);
RExpr round(OpCtx& c);
RExpr rsqrt(OpCtx& c);
RExpr sigmoid(OpCtx& c);
RExpr sign(OpCtx& c);
RExpr sin(OpCtx& c);
RExpr sinh(OpCtx& c);
RExpr sqrt(OpCtx& c);
RExpr tan(OpCtx& c);
RExpr tanh(OpCtx& c);
RExpr trunc(OpCtx& c);
RExpr isfinite(OpCtx& c);
RExpr isinf(OpCtx& c);
RExpr isnan(OpCtx& c);
RExpr logical_not(OpCtx& c);
RExpr bitwise_not(OpCtx& c);
RExpr fast_exp(OpCtx& c);
RExpr fast_tanh(OpCtx& c);
RExpr fast_erf(OpCtx& c);
RExpr relu(OpCtx& c);
RExpr log2(OpCtx& c);
RExpr log10(OpCtx& c);
RExpr add(OpCtx& c);
RExpr subtract(OpCtx& c);
RExpr multiply(OpCtx& c);
RExpr divide(OpCtx& c);
RExpr power(OpCtx& c);
RExpr maximum(OpCtx& c);
RExpr minimum(OpCtx& c);
RExpr mod(OpCtx& c);
RExpr floor_divide(OpCtx& c);
RExpr floor_mod(OpCtx& c);
RExpr trunc_divide(OpCtx& c);
RExpr trunc_mod(OpCtx& c);
RExpr logical_and(OpCtx& c);
RExpr logical_or(OpCtx& c);
RExpr logical_xor(OpCtx& c);
RExpr bitwise_and(OpCtx& c);
RExpr bitwise_or(OpCtx& c);
RExpr bitwise_xor(OpCtx& c);
RExpr left_shift(OpCtx& c);
RExpr right_shift(OpCtx& c);
RExpr equal(OpCtx& c);
RExpr not_equal(OpCtx& c);
RExpr less(OpCtx& c);
RExpr less_equal(OpCtx& c);
RExpr greater(OpCtx& c);
RExpr greater_equal(OpCtx& c);
RExpr clip(OpCtx& c);
RExpr cast(OpCtx& c);
RExpr cast_like(OpCtx& c);
RExpr copy(OpCtx& c);
RExpr stop_gradient(OpCtx& c);
RExpr where(OpCtx& c);

// ---- nn (ops_nn.cc)
RExpr dense(OpCtx& c);
RExpr matmul(OpCtx& c);
RExpr batch_matmul(OpCtx& c);
RExpr bias_add(OpCtx& c);
RExpr batch_flatten(OpCtx& c);
RExpr softmax(OpCtx& c);
RExpr fast_softmax(OpCtx& c);
RExpr log_softmax(OpCtx& c);
RExpr leaky_relu(OpCtx& c);
RExpr prelu(OpCtx& c);
RExpr dropout(OpCtx& c);
RExpr pad(OpCtx& c);
RExpr cross_entropy_with_logits(OpCtx& c);
RExpr cross_entropy(OpCtx& c);
RExpr mirror_pad(OpCtx& c);
RExpr nll_loss(OpCtx& c);

// ---- normalization (ops_norm.cc)
RExpr batch_norm(OpCtx& c);
RExpr layer_norm(OpCtx& c);
RExpr group_norm(OpCtx& c);
RExpr instance_norm(OpCtx& c);
RExpr l2_normalize(OpCtx& c);
RExpr lrn(OpCtx& c);

// ---- convolution and pooling (ops_conv_pool.cc)
RExpr conv1d(OpCtx& c);
RExpr conv2d(OpCtx& c);
RExpr conv3d(OpCtx& c);
RExpr conv1d_transpose(OpCtx& c);
RExpr conv2d_transpose(OpCtx& c);
RExpr max_pool1d(OpCtx& c);
RExpr max_pool2d(OpCtx& c);
RExpr max_pool3d(OpCtx& c);
RExpr avg_pool1d(OpCtx& c);
RExpr avg_pool2d(OpCtx& c);
RExpr avg_pool3d(OpCtx& c);
RExpr global_avg_pool2d(OpCtx& c);
RExpr global_max_pool2d(OpCtx& c);
RExpr adaptive_avg_pool1d(OpCtx& c);
RExpr adaptive_avg_pool2d(OpCtx& c);
RExpr adaptive_avg_pool3d(OpCtx& c);
RExpr adaptive_max_pool1d(OpCtx& c);
RExpr adaptive_max_pool2d(OpCtx& c);
RExpr adaptive_max_pool3d(OpCtx& c);
RExpr max_pool2d_grad(OpCtx& c);
RExpr avg_pool2d_grad(OpCtx& c);

// ---- image (ops_image.cc)
RExpr upsampling(OpCtx& c);
RExpr resize2d(OpCtx& c);
RExpr resize1d(OpCtx& c);
RExpr grid_sample(OpCtx& c);
RExpr affine_grid(OpCtx& c);
RExpr all_class_non_max_suppression(OpCtx& c);  // vision.

// ---- shape and data movement (ops_shape.cc)
RExpr reshape(OpCtx& c);
RExpr reshape_like(OpCtx& c);
RExpr transpose(OpCtx& c);
RExpr squeeze(OpCtx& c);
RExpr expand_dims(OpCtx& c);
RExpr concatenate(OpCtx& c);
RExpr stack(OpCtx& c);
RExpr split(OpCtx& c);
RExpr tile(OpCtx& c);
RExpr repeat(OpCtx& c);
RExpr reverse(OpCtx& c);
RExpr broadcast_to(OpCtx& c);
RExpr broadcast_to_like(OpCtx& c);
RExpr dyn_broadcast_to(OpCtx& c);
RExpr collapse_sum_like(OpCtx& c);
RExpr shape_of(OpCtx& c);
RExpr einsum(OpCtx& c);
RExpr meshgrid(OpCtx& c);
RExpr layout_transform(OpCtx& c);  // ops_layout.cc
RExpr collapse_sum_to(OpCtx& c);
RExpr contrib_reverse_reshape(OpCtx& c);

// ---- rearrangements without a Relax op (ops_space.cc)
RExpr depth_to_space(OpCtx& c);
RExpr space_to_depth(OpCtx& c);
RExpr dilate(OpCtx& c);
RExpr fifo_buffer(OpCtx& c);
RExpr space_to_batch_nd(OpCtx& c);
RExpr batch_to_space_nd(OpCtx& c);

// ---- per-sequence ops (ops_sequence.cc)
RExpr sequence_mask(OpCtx& c);
RExpr reverse_sequence(OpCtx& c);

// ---- index computations (ops_locate.cc)
RExpr argwhere(OpCtx& c);
RExpr invert_permutation(OpCtx& c);
RExpr unravel_index(OpCtx& c);
RExpr sparse_to_dense(OpCtx& c);
RExpr adv_index(OpCtx& c);
RExpr searchsorted(OpCtx& c);
RExpr ndarray_size(OpCtx& c);
RExpr matrix_set_diag(OpCtx& c);
RExpr sliding_window(OpCtx& c);

// ---- indexing (ops_index.cc)
RExpr strided_slice(OpCtx& c);
RExpr slice_like(OpCtx& c);
RExpr take(OpCtx& c);
RExpr gather(OpCtx& c);
RExpr gather_nd(OpCtx& c);
RExpr one_hot(OpCtx& c);
RExpr scatter_elements(OpCtx& c);
RExpr scatter_nd(OpCtx& c);
RExpr trilu(OpCtx& c);

// ---- reductions, scans, sorting (ops_reduce.cc)
RExpr sum(OpCtx& c);
RExpr mean(OpCtx& c);
RExpr max(OpCtx& c);
RExpr min(OpCtx& c);
RExpr prod(OpCtx& c);
RExpr all(OpCtx& c);
RExpr any(OpCtx& c);
RExpr variance(OpCtx& c);
RExpr std_(OpCtx& c);  // Relay "std"
RExpr argmax(OpCtx& c);
RExpr argmin(OpCtx& c);
RExpr cumsum(OpCtx& c);
RExpr cumprod(OpCtx& c);
RExpr sort(OpCtx& c);
RExpr argsort(OpCtx& c);
RExpr topk(OpCtx& c);

// ---- creation (ops_create.cc)
RExpr zeros(OpCtx& c);
RExpr ones(OpCtx& c);
RExpr zeros_like(OpCtx& c);
RExpr ones_like(OpCtx& c);
RExpr full(OpCtx& c);
RExpr full_like(OpCtx& c);
RExpr arange(OpCtx& c);

// ---- quantization (ops_quantize.cc)
RExpr quantize(OpCtx& c);    // qnn.quantize
RExpr dequantize(OpCtx& c);  // qnn.dequantize

// ---- QNN compute ops (ops_qnn.cc)
RExpr qnn_abs(OpCtx& c);
RExpr qnn_erf(OpCtx& c);
RExpr qnn_exp(OpCtx& c);
RExpr qnn_hardswish(OpCtx& c);
RExpr qnn_log(OpCtx& c);
RExpr qnn_rsqrt(OpCtx& c);
RExpr qnn_sigmoid(OpCtx& c);
RExpr qnn_sqrt(OpCtx& c);
RExpr qnn_tanh(OpCtx& c);
RExpr qnn_dense(OpCtx& c);
RExpr qnn_batch_matmul(OpCtx& c);
RExpr qnn_conv2d(OpCtx& c);
RExpr qnn_conv2d_transpose(OpCtx& c);
RExpr qnn_concatenate(OpCtx& c);
RExpr qnn_requantize(OpCtx& c);  // ops_qnn_requantize.cc
RExpr qnn_add(OpCtx& c);
RExpr qnn_subtract(OpCtx& c);
RExpr qnn_mul(OpCtx& c);
RExpr qnn_leaky_relu(OpCtx& c);
RExpr fixed_point_multiply(OpCtx& c);
RExpr fixed_point_multiply_per_axis(OpCtx& c);
// TVM's requantize lowering of `data` (shared by the QNN ops that requantize their inputs).
RExpr requantizeTo(OpCtx& c, const RExpr& data, const RExpr& inScale, const RExpr& inZp, const RExpr& outScale, const RExpr& outZp, int64_t axis,
                   std::string rounding, std::string computeDtype, DataType outDtype);

// ---- annotations (ops_annotation.cc)
RExpr annotation_stop_fusion(OpCtx& c);
RExpr annotation_checkpoint(OpCtx& c);
RExpr annotation_cast_hint(OpCtx& c);
RExpr annotation_bitpack_start(OpCtx& c);
RExpr annotation_bitpack_end(OpCtx& c);

// ---- dyn. ops (ops_dyn.cc)
RExpr dyn_reshape(OpCtx& c);
RExpr dyn_tile(OpCtx& c);
RExpr dyn_zeros(OpCtx& c);
RExpr dyn_ones(OpCtx& c);
RExpr dyn_full(OpCtx& c);
RExpr dyn_expand_dims(OpCtx& c);
RExpr dyn_squeeze(OpCtx& c);
RExpr dyn_strided_slice(OpCtx& c);
RExpr dyn_one_hot(OpCtx& c);
RExpr dyn_topk(OpCtx& c);
RExpr dyn_sparse_to_dense(OpCtx& c);
RExpr dyn_pad(OpCtx& c);         // dyn.nn.pad
RExpr dyn_upsampling(OpCtx& c);  // dyn.nn.upsampling
RExpr dyn_resize2d(OpCtx& c);    // dyn.image.resize2d

// ---- devices (ops_device.cc)
RExpr on_device(OpCtx& c);
RExpr device_copy(OpCtx& c);

}  // namespace rlx::relay::ops
