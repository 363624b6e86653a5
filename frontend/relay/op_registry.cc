// The Relay op -> conversion table: one line per Relay op name, so an op's conversion is found by
// its name; and the ops rlx knows but refuses, each with its reason (backend internals, ops Relax
// v0.23 has no form for).
#include <algorithm>

#include "frontend/relay/ops.h"

namespace rlx::relay {

namespace {

struct Entry {
  const char* name;
  Converter fn;
};

// clang-format off
const Entry kConversions[] = {
    // elementwise (ops_elementwise.cc)
    {"abs", ops::abs},
    {"acos", ops::acos},
    {"acosh", ops::acosh},
    {"add", ops::add},
    {"asin", ops::asin},
    {"asinh", ops::asinh},
    {"atan", ops::atan},
    {"atanh", ops::atanh},
    {"bitwise_and", ops::bitwise_and},
    {"bitwise_not", ops::bitwise_not},
    {"bitwise_or", ops::bitwise_or},
    {"bitwise_xor", ops::bitwise_xor},
    {"cast", ops::cast},
    {"cast_like", ops::cast_like},
    {"ceil", ops::ceil},
    {"clip", ops::clip},
    {"copy", ops::copy},
    {"cos", ops::cos},
    {"cosh", ops::cosh},
    {"divide", ops::divide},
    {"equal", ops::equal},
    {"erf", ops::erf},
    {"exp", ops::exp},
    {"fast_erf", ops::fast_erf},
    {"fast_exp", ops::fast_exp},
    {"fast_tanh", ops::fast_tanh},
    {"floor", ops::floor},
    {"floor_divide", ops::floor_divide},
    {"floor_mod", ops::floor_mod},
    {"greater", ops::greater},
    {"greater_equal", ops::greater_equal},
    {"isfinite", ops::isfinite},
    {"isinf", ops::isinf},
    {"isnan", ops::isnan},
    {"left_shift", ops::left_shift},
    {"less", ops::less},
    {"less_equal", ops::less_equal},
    {"log", ops::log},
    {"log10", ops::log10},
    {"log2", ops::log2},
    {"logical_and", ops::logical_and},
    {"logical_not", ops::logical_not},
    {"logical_or", ops::logical_or},
    {"logical_xor", ops::logical_xor},
    {"maximum", ops::maximum},
    {"minimum", ops::minimum},
    {"mod", ops::mod},
    {"multiply", ops::multiply},
    {"negative", ops::negative},
    {"not_equal", ops::not_equal},
    {"power", ops::power},
    {"right_shift", ops::right_shift},
    {"round", ops::round},
    {"rsqrt", ops::rsqrt},
    {"sigmoid", ops::sigmoid},
    {"sign", ops::sign},
    {"sin", ops::sin},
    {"sinh", ops::sinh},
    {"sqrt", ops::sqrt},
    {"stop_gradient", ops::stop_gradient},
    {"subtract", ops::subtract},
    {"tan", ops::tan},
    {"tanh", ops::tanh},
    {"trunc", ops::trunc},
    {"trunc_divide", ops::trunc_divide},
    {"trunc_mod", ops::trunc_mod},
    {"where", ops::where},
    {"nn.relu", ops::relu},
    // nn (ops_nn.cc, ops_norm.cc)
    {"nn.batch_flatten", ops::batch_flatten},
    {"nn.batch_matmul", ops::batch_matmul},
    {"nn.batch_norm", ops::batch_norm},
    {"nn.bias_add", ops::bias_add},
    {"nn.cross_entropy", ops::cross_entropy},
    {"nn.cross_entropy_with_logits", ops::cross_entropy_with_logits},
    {"nn.dense", ops::dense},
    {"nn.dropout", ops::dropout},
    {"nn.fast_softmax", ops::fast_softmax},
    {"nn.group_norm", ops::group_norm},
    {"nn.instance_norm", ops::instance_norm},
    {"nn.l2_normalize", ops::l2_normalize},
    {"nn.layer_norm", ops::layer_norm},
    {"nn.leaky_relu", ops::leaky_relu},
    {"nn.log_softmax", ops::log_softmax},
    {"nn.matmul", ops::matmul},
    {"nn.mirror_pad", ops::mirror_pad},
    {"nn.pad", ops::pad},
    {"nn.prelu", ops::prelu},
    {"nn.softmax", ops::softmax},
    // convolution and pooling (ops_conv_pool.cc)
    {"nn.adaptive_avg_pool1d", ops::adaptive_avg_pool1d},
    {"nn.adaptive_avg_pool2d", ops::adaptive_avg_pool2d},
    {"nn.adaptive_avg_pool3d", ops::adaptive_avg_pool3d},
    {"nn.avg_pool1d", ops::avg_pool1d},
    {"nn.avg_pool2d", ops::avg_pool2d},
    {"nn.avg_pool3d", ops::avg_pool3d},
    {"nn.conv1d", ops::conv1d},
    {"nn.conv1d_transpose", ops::conv1d_transpose},
    {"nn.conv2d", ops::conv2d},
    {"nn.conv2d_transpose", ops::conv2d_transpose},
    {"nn.conv3d", ops::conv3d},
    {"nn.global_avg_pool2d", ops::global_avg_pool2d},
    {"nn.global_max_pool2d", ops::global_max_pool2d},
    {"nn.max_pool1d", ops::max_pool1d},
    {"nn.max_pool2d", ops::max_pool2d},
    {"nn.max_pool3d", ops::max_pool3d},
    // image (ops_image.cc)
    {"image.resize2d", ops::resize2d},
    {"nn.upsampling", ops::upsampling},
    // shape and data movement (ops_shape.cc, ops_layout.cc)
    {"broadcast_to", ops::broadcast_to},
    {"broadcast_to_like", ops::broadcast_to_like},
    {"collapse_sum_like", ops::collapse_sum_like},
    {"concatenate", ops::concatenate},
    {"dyn.broadcast_to", ops::dyn_broadcast_to},
    {"einsum", ops::einsum},
    {"expand_dims", ops::expand_dims},
    {"layout_transform", ops::layout_transform},
    {"meshgrid", ops::meshgrid},
    {"repeat", ops::repeat},
    {"reshape", ops::reshape},
    {"reshape_like", ops::reshape_like},
    {"reverse", ops::reverse},
    {"shape_of", ops::shape_of},
    {"split", ops::split},
    {"squeeze", ops::squeeze},
    {"stack", ops::stack},
    {"tile", ops::tile},
    {"transpose", ops::transpose},
    // indexing (ops_index.cc)
    {"gather", ops::gather},
    {"gather_nd", ops::gather_nd},
    {"one_hot", ops::one_hot},
    {"scatter_elements", ops::scatter_elements},
    {"scatter_nd", ops::scatter_nd},
    {"slice_like", ops::slice_like},
    {"strided_slice", ops::strided_slice},
    {"take", ops::take},
    {"trilu", ops::trilu},
    // reductions, scans, sorting (ops_reduce.cc)
    {"all", ops::all},
    {"any", ops::any},
    {"argmax", ops::argmax},
    {"argmin", ops::argmin},
    {"argsort", ops::argsort},
    {"cumprod", ops::cumprod},
    {"cumsum", ops::cumsum},
    {"max", ops::max},
    {"mean", ops::mean},
    {"min", ops::min},
    {"prod", ops::prod},
    {"sort", ops::sort},
    {"std", ops::std_},
    {"sum", ops::sum},
    {"topk", ops::topk},
    {"variance", ops::variance},
    // creation (ops_create.cc)
    {"arange", ops::arange},
    {"full", ops::full},
    {"full_like", ops::full_like},
    {"ones", ops::ones},
    {"ones_like", ops::ones_like},
    {"zeros", ops::zeros},
    {"zeros_like", ops::zeros_like},
    // quantization (ops_quantize.cc)
    {"qnn.dequantize", ops::dequantize},
    {"qnn.quantize", ops::quantize},
    // devices (ops_device.cc)
    {"device_copy", ops::device_copy},
    {"on_device", ops::on_device},
};
// clang-format on

struct Refusal {
  const char* name;
  const char* why;
};

#define RLX_BACKEND(op, stage) {op, "`" op "` is a Relay backend op (" stage "), not an input op"}
#define RLX_NO_RELAX(op, what) {op, "`" op "` has no Relax v0.23 form (" what ")"}
const Refusal kRefusals[] = {
    RLX_BACKEND("memory.alloc_storage", "VM lowering output"),
    RLX_BACKEND("memory.alloc_tensor", "VM lowering output"),
    RLX_BACKEND("memory.kill", "VM lowering output"),
    RLX_BACKEND("vm.shape_of", "VM lowering output"),
    RLX_BACKEND("vm.reshape_tensor", "VM lowering output"),
    RLX_BACKEND("vm.shape_func", "VM lowering output"),
    RLX_BACKEND("vm.invoke_tvm_op", "VM lowering output"),
    RLX_BACKEND("call_lowered", "output of LowerTE: a call of an already lowered PrimFunc"),
    RLX_NO_RELAX("nn.conv3d_transpose", "Relax has conv1d_transpose and conv2d_transpose only"),
    RLX_NO_RELAX("nn.upsampling3d", "Relax has no resize3d"),
    RLX_NO_RELAX("image.resize3d", "Relax has no resize3d"),
    RLX_NO_RELAX("nn.adaptive_max_pool1d", "Relax has adaptive average pools only"),
    RLX_NO_RELAX("nn.adaptive_max_pool2d", "Relax has adaptive average pools only"),
    RLX_NO_RELAX("nn.adaptive_max_pool3d", "Relax has adaptive average pools only"),
    RLX_NO_RELAX("reinterpret", "Relax has no bit-cast"),
};
#undef RLX_BACKEND
#undef RLX_NO_RELAX

}  // namespace

Converter findConverter(const std::string& name, std::string* why) {
  for (auto& e : kConversions)
    if (name == e.name) return e.fn;
  if (why) {
    for (auto& r : kRefusals)
      if (name == r.name) *why = r.why;
  }
  return nullptr;
}

std::vector<std::string> convertedOps() {
  std::vector<std::string> names;
  for (auto& e : kConversions) names.push_back(e.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace rlx::relay
