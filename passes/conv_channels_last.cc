// DepthwiseChannelsLast: a function with a depthwise R.nn.conv2d over NCHW has all its conv2d
// converted to NHWC / OHWI by ConvertLayout (rlx's CPU build, before LegalizeOps; no TVM counterpart).
// Why: over NCHW planes rlx's depthwise kernel vectorizes along a row (a strided window loads pairs
// and permutes them) or transposes 16 planes to channel-minor order and back; channels last, a
// pixel's channels are adjacent and a window's taps accumulate whole vectors of them with no
// transposes (runtime/llvm/window_channels_last.h), and the 1x1 convolutions around it store whole
// vectors of output channels. 1 thread, medians: MobileNetV2 8.13 -> 7.81 ms, EfficientNet-B0 12.29
// -> 11.82 ms. The function's inputs are transposed in and its results back once; a function with
// no depthwise convolution (ResNet's, whose 3x3 windows take Winograd over NCHW) is left as it is.
// Matched: data_layout NCHW, kernel_layout OIHW, out_layout NCHW, groups > 1 equal to the input's
// channel count and to the weight's output channels (one input channel a group), static. Constant
// weights are permuted by FoldConstant in the pass.
// Before: `y = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=32)` over x (1, 32, 112, 112)
// After:  `lv = R.permute_dims(x, axes=[0, 2, 3, 1])`, then the conv2d with data_layout="NHWC",
//         kernel_layout="OHWI" over lv and the weight permuted to (32, 3, 3, 1), and the result
//         permuted back to NCHW where the function returns it.
#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// The weights' permutes are folded here, on Relax ops, by the reference evaluator: left to the
// build's FoldConstant after LegalizeOps, the TIR interpreter ran them (MobileNetV2's lowering
// 0.4 s longer).
constexpr const char* kConvertToChannelsLast = R"(ConvertLayout(desired_layouts={"relax.nn.conv2d": ["NHWC", "OHWI"]}),FoldConstant)";

bool isDepthwiseNchw(const Call& c) {
  if (c.opName() != "relax.nn.conv2d" || c.args.size() != 2) return false;
  std::string data = ops::attrString(c, "data_layout", "NCHW");
  if (data != "NCHW" || ops::attrString(c, "kernel_layout", "OIHW") != "OIHW" || ops::attrString(c, "out_layout", data) != "NCHW") return false;
  auto x = sinfoOf(c.args[0]).as<TensorSInfo>();
  auto w = sinfoOf(c.args[1]).as<TensorSInfo>();
  if (!x || !w || !x->dims() || !w->dims() || x->dims()->size() != 4 || w->dims()->size() != 4) return false;
  auto* channels = asIntImm((*x->dims())[1]);
  auto* outputs = asIntImm((*w->dims())[0]);
  auto* perGroup = asIntImm((*w->dims())[1]);
  const int64_t groups = ops::attrInt(c, "groups", 1);
  return channels && outputs && perGroup && groups > 1 && channels->value == groups && outputs->value == groups && perGroup->value == 1;
}

bool hasDepthwiseNchw(const Expr& func) {
  bool found = false;
  walkExpr(func, [&](const Expr& e) {
    if (auto c = e.as<Call>(); c && !found) found = isDepthwiseNchw(*c);
  });
  return found;
}

}  // namespace

Result<Pass> createDepthwiseChannelsLastPass(PassOptions&) {
  RLX_TRY(toChannelsLast, parsePipeline(kConvertToChannelsLast));
  return Pass({"DepthwiseChannelsLast", 0, {}}, [toChannelsLast](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    PassContext only;
    only.consumesInput = ctx.consumesInput;
    for (auto& entry : mod->functions)
      if (entry.func.as<Function>() && ctx.inScope(entry.gvar->name) && hasDepthwiseNchw(entry.func)) only.scope.push_back(entry.gvar->name);
    if (only.scope.empty()) return mod;
    return runSequential(toChannelsLast, mod, only);
  });
}

}  // namespace rlx
