// ConvChannelsLast: a function whose float32 R.nn.conv2d over NCHW include a depthwise one, or are
// two or more with none grouped, has all its conv2d converted to NHWC / OHWI by ConvertLayout
// (rlx's CPU build, before LegalizeOps; no TVM counterpart).
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
#include <cstdint>
#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/registry.h"

namespace rlx {

namespace {

constexpr const char* kConvertToChannelsLast = R"(ConvertLayout(desired_layouts={"relax.nn.conv2d": ["NHWC", "OHWI"]}))";
// The weights' permutes are folded here, on Relax ops, by the reference evaluator: left to the
// build's FoldConstant after LegalizeOps, the TIR interpreter ran them (MobileNetV2's lowering
// 0.4 s longer).
constexpr const char* kFoldPermutes = "FoldConstant";

// `from`'s elements (T, dims `shape`) into `to` in the order of dims `axes` (to's dim d is from's
// dim axes[d]): `to` walked in order, its innermost dim a strided loop, an odometer over the others.
template <class T>
void permuteInto(const T* from, T* to, const std::vector<int64_t>& shape, const std::vector<int64_t>& axes) {
  const size_t rank = shape.size();
  std::vector<int64_t> fromStride(rank, 1), step(rank), extent(rank), index(rank, 0);
  for (size_t d = rank; d-- > 1;) fromStride[d - 1] = fromStride[d] * shape[d];
  int64_t outer = 1;
  for (size_t d = 0; d < rank; ++d) extent[d] = shape[size_t(axes[d])], step[d] = fromStride[size_t(axes[d])];
  for (size_t d = 0; d + 1 < rank; ++d) outer *= extent[d];
  const int64_t inner = extent[rank - 1], innerStep = step[rank - 1];
  int64_t offset = 0;
  for (int64_t i = 0; i < outer; ++i, to += inner) {
    for (int64_t j = 0; j < inner; ++j) to[j] = from[offset + j * innerStep];
    for (size_t d = rank - 1; d-- > 0;) {
      offset += step[d];
      if (++index[d] < extent[d]) break;
      offset -= step[d] * extent[d], index[d] = 0;
    }
  }
}

// The same over raw bytes, by the element's size (1, 2, 4 or 8 bytes); false for another size.
bool permuteBytes(const uint8_t* from, uint8_t* to, const std::vector<int64_t>& shape, const std::vector<int64_t>& axes, int bytes) {
  auto as = [&](auto tag) {
    using T = decltype(tag);
    permuteInto(reinterpret_cast<const T*>(from), reinterpret_cast<T*>(to), shape, axes);
    return true;
  };
  switch (bytes) {
    case 1: return as(uint8_t{});
    case 2: return as(uint16_t{});
    case 4: return as(uint32_t{});
    case 8: return as(uint64_t{});
    default: return false;
  }
}

// With the input module consumed (`rlx run`), a constant that only one permute_dims reads is
// permuted in its own memory (through a scratch copy) and viewed with the new shape, as
// PackMatmulWeights repacks weights: FoldConstant's fresh arrays had every weight resident twice at
// the peak (ResNet-50's RSS 177 -> 241 MB once its convolutions went channels last).
class PermuteConstantsInPlace : public BindingRewriter {
 public:
  explicit PermuteConstantsInPlace(const IRModuleRef& mod) {
    for (auto& entry : mod->functions)
      if (entry.func.as<Function>()) walkExpr(entry.func, [&](const Expr& e) {
          if (auto c = e.as<Constant>()) ++uses_[c->data.get()];
        });
  }

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto call = value.as<Call>();
    if (!call || call->opName() != "relax.permute_dims" || call->args.size() != 1) return nullptr;
    auto constant = call->args[0].as<Constant>();
    if (!constant || uses_[constant->data.get()] != 1) return nullptr;
    const NDArrayRef& w = constant->data;
    const size_t rank = w->shape.size();
    const int bytes = w->dtype.bytes();
    if (w->dtype.lanes != 1 || w->dtype.bits % 8 != 0 || rank < 2 || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)) return nullptr;
    std::vector<int64_t> axes = call->attrs && call->attrs->find("axes") ? ops::attrInts(*call, "axes") : std::vector<int64_t>();
    if (axes.empty())
      for (size_t d = rank; d-- > 0;) axes.push_back(int64_t(d));  // no axes: reversed
    std::vector<bool> seen(rank, false);
    if (axes.size() != rank) return nullptr;
    for (int64_t& a : axes) {
      if (a < 0) a += int64_t(rank);
      if (a < 0 || a >= int64_t(rank) || seen[size_t(a)]) return nullptr;
      seen[size_t(a)] = true;
    }
    std::vector<int64_t> shape;
    for (int64_t a : axes) shape.push_back(w->shape[size_t(a)]);
    // Only dims of extent 1 moved (a 1x1 convolution's OIHW -> OHWI): the same bytes, a new shape.
    int64_t last = -1;
    bool sameOrder = true;
    for (int64_t a : axes)
      if (w->shape[size_t(a)] != 1) sameOrder = sameOrder && a > last, last = a;
    if (!sameOrder) {
      const auto* data = static_cast<const uint8_t*>(w->data());
      scratch_.assign(data, data + w->nbytes());
      permuteBytes(scratch_.data(), static_cast<uint8_t*>(w->data()), w->shape, axes, bytes);
    }
    auto result = builder().normalize(make<Constant>(make<NDArray>(w->dtype, shape, w->data(), w)));
    return result.ok() ? *result : nullptr;
  }

 private:
  std::unordered_map<const NDArray*, int> uses_;  // Constant nodes of each array, module-wide
  std::vector<uint8_t> scratch_;                   // one copy at a time, reused
};

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

// Whether the function goes channels last: it has a depthwise convolution, or two or more and no
// grouped one (a grouped convolution's kernel over NHWC is the JIT's loops, twice as slow as over
// planes: two 3x3 layers of 256 channels in 32 groups at 28x28, 4.8 -> 7.0 ms).
bool convolutionsDominate(const Expr& func) {
  int convolutions = 0;
  bool depthwise = false, grouped = false;
  walkExpr(func, [&](const Expr& e) {
    auto c = e.as<Call>();
    if (!c) return;
    if (auto* weightDims = nchwConvWeightDims(*c)) {
      ++convolutions;
      bool dw = isDepthwise(*c, *weightDims);
      depthwise = depthwise || dw;
      grouped = grouped || (!dw && ops::attrInt(*c, "groups", 1) > 1);
    }
  });
  return depthwise || (convolutions >= 2 && !grouped);
}

}  // namespace

Result<Pass> createConvChannelsLastPass(PassOptions&) {
  RLX_TRY(toChannelsLast, parsePipeline(kConvertToChannelsLast));
  RLX_TRY(foldPermutes, parsePipeline(kFoldPermutes));
  return Pass({"ConvChannelsLast", 0, {}}, [toChannelsLast, foldPermutes](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    PassContext only;
    only.consumesInput = ctx.consumesInput;
    for (auto& entry : mod->functions)
      if (entry.func.as<Function>() && ctx.inScope(entry.gvar->name) && convolutionsDominate(entry.func)) only.scope.push_back(entry.gvar->name);
    if (only.scope.empty()) return mod;
    RLX_TRY(converted, runSequential(toChannelsLast, mod, only));
    if (ctx.consumesInput) {
      PermuteConstantsInPlace inPlace(converted);
      for (const std::string& name : only.scope)
        if (auto* entry = converted->find(name)) converted = withFunction(converted, entry->gvar, inPlace.mutate(entry->func));
    }
    return runSequential(foldPermutes, converted, only);
  });
}

}  // namespace rlx
