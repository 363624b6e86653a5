// Relay v0.19's whole operator set against the conversion table: every op TVM registers for Relay
// is either converted or refused with a reason, so no Relay op meets the generic "has no conversion".
// The names come from TVM v0.19's RELAY_REGISTER_OP / *_UNARY_OP / *_BINARY_OP / *_CMP_OP /
// *_REDUCE_OP registrations (src/relay/op/**, src/relay/qnn/op/**, quantize, partial_eval).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "frontend/relay/convert.h"

using namespace rlx;

namespace {

const char* const kRelayOps[] = {
    "abs", "acos", "acosh", "add", "adv_index", "all", "any", "arange", "argmax", "argmin", "argsort", "argwhere", "asin", "asinh", "atan",
    "atanh", "auto_scheduler_layout_transform", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "broadcast_to",
    "broadcast_to_like", "call_lowered", "cast", "cast_like", "ceil", "clip", "collapse_sum_like", "collapse_sum_to", "concatenate",
    "contrib_reverse_reshape", "copy", "cos", "cosh", "cumprod", "cumsum", "debug", "device_copy", "dft", "divide", "einsum", "equal",
    "erf", "exp", "expand_dims", "fast_erf", "fast_exp", "fast_tanh", "fixed_point_multiply", "fixed_point_multiply_per_axis", "floor",
    "floor_divide", "floor_mod", "full", "full_like", "gather", "gather_nd", "greater", "greater_equal", "invert_permutation", "isfinite",
    "isinf", "isnan", "layout_transform", "left_shift", "less", "less_equal", "log", "log10", "log2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matrix_set_diag", "max", "maximum", "mean", "meshgrid", "meta_schedule_layout_transform", "min",
    "minimum", "mlas_matmul", "mlas_packb", "mod", "multiply", "ndarray_size", "negative", "not_equal", "on_device", "one_hot", "ones",
    "ones_like", "power", "prod", "reinterpret", "repeat", "reshape", "reshape_like", "reverse", "reverse_sequence", "right_shift", "round",
    "rsqrt", "scatter_elements", "scatter_nd", "searchsorted", "sequence_mask", "shape_of", "sigmoid", "sign", "sin", "sinh", "slice_like",
    "sliding_window", "sort", "sparse_fill_empty_rows", "sparse_reshape", "sparse_to_dense", "split", "sqrt", "squeeze", "stack", "stft",
    "strided_set", "strided_slice", "subtract", "sum", "take", "tan", "tanh", "tile", "topk", "transpose", "trilu", "trunc", "trunc_divide",
    "trunc_mod", "unique", "unravel_index", "variance", "where", "zeros", "zeros_like",
    "nn.adaptive_avg_pool1d", "nn.adaptive_avg_pool2d", "nn.adaptive_avg_pool3d", "nn.adaptive_max_pool1d", "nn.adaptive_max_pool2d",
    "nn.adaptive_max_pool3d", "nn.avg_pool1d", "nn.avg_pool2d", "nn.avg_pool2d_grad", "nn.avg_pool3d", "nn.batch_flatten",
    "nn.batch_matmul", "nn.batch_norm", "nn.batch_to_space_nd", "nn.bias_add", "nn.bitpack", "nn.bitserial_conv2d", "nn.bitserial_dense",
    "nn.contrib_conv2d_NCHWc", "nn.contrib_conv2d_gemm_weight_transform", "nn.contrib_conv2d_gemm_without_weight_transform",
    "nn.contrib_conv2d_winograd_nnpack_weight_transform", "nn.contrib_conv2d_winograd_weight_transform",
    "nn.contrib_conv2d_winograd_without_weight_transform", "nn.contrib_conv3d_winograd_weight_transform",
    "nn.contrib_conv3d_winograd_without_weight_transform", "nn.contrib_dense_pack", "nn.contrib_depthwise_conv2d_NCHWc", "nn.conv1d",
    "nn.conv1d_transpose", "nn.conv2d", "nn.conv2d_backward_weight", "nn.conv2d_transpose", "nn.conv3d", "nn.conv3d_transpose",
    "nn.correlation", "nn.cross_entropy", "nn.cross_entropy_with_logits", "nn.deformable_conv2d", "nn.dense", "nn.depth_to_space",
    "nn.dilate", "nn.dropout", "nn.fast_softmax", "nn.fifo_buffer", "nn.global_avg_pool2d", "nn.global_max_pool2d", "nn.group_norm",
    "nn.instance_norm", "nn.internal.sparse_dense_padded", "nn.l2_normalize", "nn.layer_norm", "nn.leaky_relu", "nn.log_softmax", "nn.lrn",
    "nn.matmul", "nn.max_pool1d", "nn.max_pool2d", "nn.max_pool2d_grad", "nn.max_pool3d", "nn.mirror_pad", "nn.nll_loss", "nn.pad",
    "nn.prelu", "nn.relu", "nn.softmax", "nn.space_to_batch_nd", "nn.space_to_depth", "nn.sparse_add", "nn.sparse_conv2d",
    "nn.sparse_dense", "nn.sparse_transpose", "nn.upsampling", "nn.upsampling3d",
    "qnn.abs", "qnn.add", "qnn.avg_pool2d", "qnn.batch_matmul", "qnn.concatenate", "qnn.contrib_dense_pack", "qnn.conv2d",
    "qnn.conv2d_transpose", "qnn.dense", "qnn.dequantize", "qnn.erf", "qnn.exp", "qnn.hardswish", "qnn.leaky_relu", "qnn.log", "qnn.mul",
    "qnn.quantize", "qnn.requantize", "qnn.rsqrt", "qnn.sigmoid", "qnn.simulated_dequantize", "qnn.simulated_quantize", "qnn.softmax",
    "qnn.sqrt", "qnn.subtract", "qnn.tanh",
    "dyn.broadcast_to", "dyn.expand_dims", "dyn.full", "dyn.image.resize2d", "dyn.nn.pad", "dyn.nn.upsampling", "dyn.nn.upsampling3d",
    "dyn.one_hot", "dyn.ones", "dyn.reshape", "dyn.sparse_to_dense", "dyn.squeeze", "dyn.strided_slice", "dyn.tile", "dyn.topk",
    "dyn.zeros",
    "vision.all_class_non_max_suppression", "vision.get_valid_counts", "vision.multibox_prior", "vision.multibox_transform_loc",
    "vision.non_max_suppression", "vision.proposal", "vision.regular_non_max_suppression", "vision.roi_align", "vision.roi_pool",
    "vision.yolo_reorg",
    "annotation.bitpack_end", "annotation.bitpack_start", "annotation.cast_hint", "annotation.checkpoint", "annotation.compiler_begin",
    "annotation.compiler_end", "annotation.stop_fusion", "annotation.with_funcid",
    "image.affine_grid", "image.crop_and_resize", "image.dilation2d", "image.grid_sample", "image.resize1d", "image.resize2d",
    "image.resize3d",
    "random.multinomial", "random.normal", "random.threefry_generate", "random.threefry_split", "random.uniform",
    "vm.invoke_tvm_op", "vm.reshape_tensor", "vm.shape_of",
    "memory.alloc_storage", "memory.alloc_tensor", "memory.kill",
    "relay.op.annotation.simulated_quantize",
};

}  // namespace

TEST_CASE("relay op coverage: every Relay v0.19 op converts or is refused with a reason", "[relay]") {
  std::set<std::string> all(std::begin(kRelayOps), std::end(kRelayOps));
  CHECK(all.size() == std::size(kRelayOps));
  CHECK(all.size() == 298);
  auto prefixed = [&](const std::string& p) {
    return std::count_if(all.begin(), all.end(), [&](const std::string& n) { return p.empty() ? n.find('.') == std::string::npos : n.rfind(p, 0) == 0; });
  };
  // The per-namespace counts of Op.list_op_names() (shared/spec/relay.md, Appendix A); the spec's
  // 299 has one name more than was found in the sources.
  CHECK(prefixed("") == 145);
  CHECK(prefixed("nn.") == 74);
  CHECK(prefixed("qnn.") == 26);
  CHECK(prefixed("dyn.") == 16);
  CHECK(prefixed("vision.") == 10);
  CHECK(prefixed("annotation.") == 8);
  CHECK(prefixed("image.") == 7);
  CHECK(prefixed("random.") == 5);
  CHECK(prefixed("vm.") == 3);
  CHECK(prefixed("memory.") == 3);
  CHECK(prefixed("relay.") == 1);
  size_t converted = 0, refused = 0;
  for (const std::string& op : all) {
    INFO(op);
    std::string why;
    bool conv = relay::findConverter(op, &why) != nullptr;
    // Converted ops carry no refusal, refused ones always say why.
    CHECK(conv == why.empty());
    if (conv) ++converted;
    else ++refused;
  }
  CHECK(converted == 229);
  CHECK(refused == 69);
  // The table converts nothing outside Relay's set but two names older Relay text still spells:
  // `stop_gradient` and `std` (now sqrt(variance)).
  std::vector<std::string> extra;
  for (const std::string& op : relay::convertedOps())
    if (!all.count(op)) extra.push_back(op);
  CHECK(extra == std::vector<std::string>{"std", "stop_gradient"});
}
