// ConvChannelsLast: a function whose float32 R.nn.conv2d over NCHW are two or more, or include a
// depthwise one, has all its conv2d converted to NHWC / OHWI by ConvertLayout (rlx's CPU build,
// before LegalizeOps; no TVM counterpart).
// Why: channels last, a pixel's channels are adjacent. The depthwise kernel accumulates a window's
// taps as whole vectors of them with no transposes (runtime/llvm/window_channels_last.h); the GEMM of
// a 1x1 or strided convolution stores whole vectors of output channels per pixel, where over NCHW
// its tiles were transposed into planes; Winograd's transforms load and store vectors of channels
// (runtime/llvm/winograd_channels_last.cc). 1 thread, per-kernel sums, best of three alternating
// runs: ResNet-50 60.7 -> 53.8 ms, ResNet-18 22.2 -> 20.4 ms; MobileNetV2 8.13 -> 7.81 ms and
// EfficientNet-B0 12.29 -> 11.82 ms (medians) when only their depthwise functions converted. The
// function's inputs are transposed in and its results back once. A single plain convolution (a
// vision transformer's patch embedding) is left as it is: converting would re-lay the graph around
// it for one kernel.
// Matched: data_layout NCHW, kernel_layout OIHW, out_layout NCHW, float32, static 4-D shapes;
// depthwise: groups > 1 equal to the input's channel count and to the weight's output channels.
// Constant weights are permuted by FoldConstant in the pass.
// Before: `y = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=32)` over x (1, 32, 112, 112)
// After:  `lv = R.permute_dims(x, axes=[0, 2, 3, 1])`, then the conv2d with data_layout="NHWC",
//         kernel_layout="OHWI" over lv and the weight permuted to (32, 3, 3, 1), and the result
//         permuted back to NCHW where the function returns it.
#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "passes/registry.h"
#include <cstdlib>

namespace rlx {

namespace {

// The weights' permutes are folded here, on Relax ops, by the reference evaluator: left to the
// build's FoldConstant after LegalizeOps, the TIR interpreter ran them (MobileNetV2's lowering
// 0.4 s longer).
constexpr const char* kConvertToChannelsLast = R"(ConvertLayout(desired_layouts={"relax.nn.conv2d": ["NHWC", "OHWI"]}),FoldConstant)";

// A float32 2-D convolution over NCHW with static shapes: the weight's dims, or none.
const std::vector<PrimExpr>* nchwConvWeightDims(const Call& c) {
  if (c.opName() != "relax.nn.conv2d" || c.args.size() != 2) return nullptr;
  std::string data = ops::attrString(c, "data_layout", "NCHW");
  if (data != "NCHW" || ops::attrString(c, "kernel_layout", "OIHW") != "OIHW" || ops::attrString(c, "out_layout", data) != "NCHW") return nullptr;
  auto x = sinfoOf(c.args[0]).as<TensorSInfo>();
  auto w = sinfoOf(c.args[1]).as<TensorSInfo>();
  if (!x || !w || !x->dims() || !w->dims() || x->dims()->size() != 4 || w->dims()->size() != 4) return nullptr;
  if (x->dtype != DataType::float32() || w->dtype != DataType::float32()) return nullptr;
  for (const auto& d : *x->dims())
    if (!asIntImm(d)) return nullptr;
  return &*w->dims();
}

// One input channel a group, as many groups as channels (the conv is known to be NCHW, static).
bool isDepthwise(const Call& c, const std::vector<PrimExpr>& weightDims) {
  auto* channels = asIntImm((*sinfoOf(c.args[0]).as<TensorSInfo>()->dims())[1]);
  auto* outputs = asIntImm(weightDims[0]);
  auto* perGroup = asIntImm(weightDims[1]);
  const int64_t groups = ops::attrInt(c, "groups", 1);
  return outputs && perGroup && groups > 1 && channels->value == groups && outputs->value == groups && perGroup->value == 1;
}

bool convolutionsDominate(const Expr& func) {
  int convolutions = 0;
  bool depthwise = false;
  walkExpr(func, [&](const Expr& e) {
    auto c = e.as<Call>();
    if (!c) return;
    if (auto* weightDims = nchwConvWeightDims(*c)) ++convolutions, depthwise = depthwise || isDepthwise(*c, *weightDims);
  });
  return depthwise || convolutions >= 2;
}

}  // namespace

Result<Pass> createConvChannelsLastPass(PassOptions&) {
  RLX_TRY(toChannelsLast, parsePipeline(kConvertToChannelsLast));
  return Pass({"ConvChannelsLast", 0, {}}, [toChannelsLast](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    PassContext only;
    only.consumesInput = ctx.consumesInput;
    for (auto& entry : mod->functions)
      if (entry.func.as<Function>() && ctx.inScope(entry.gvar->name) && convolutionsDominate(entry.func)) only.scope.push_back(entry.gvar->name);
    if (only.scope.empty()) return mod;
    return runSequential(toChannelsLast, mod, only);
  });
}

}  // namespace rlx
