// Reference evaluators of the training ops grad.*: the gradient markers (identities) and the
// backward kernels of take, nll_loss and max/avg_pool2d, each the adjoint of our forward evaluator.
//
// Choices, where TVM v0.23's legalization (python/tvm/relax/transform/legalize_ops/grad.py, topi
// pool_grad) and the exact gradient differ:
// - take_backward: indices go through the take op's `mode` (fast: only [0, n), else an error; clip;
//   wrap) so that the gradient flows to the element the forward take read; TVM's kernel ignores the
//   mode and needs 1-D indices, we take any index shape. Repeated indices accumulate.
// - nll_loss_backward: a target equal to ignore_index gets a zero gradient and no weight in the
//   "mean" denominator (for any ignore_index, as PyTorch and our nll_loss); "mean" divides by the
//   summed weights of the counted targets, so an all-zero weight sum gives NaN at those targets.
// - max/avg_pool2d_backward: the windows of our max/avg_pool2d evaluator (dilation, padding,
//   ceil_mode overhang, count_include_pad divisor as the forward's), any permutation of NCHW as
//   layout (data) / out_layout (output_grad). Max routes each output's gradient to the first tap in
//   row-major window order holding the window's maximum (TVM's argmax and PyTorch pick the first
//   too); NaN taps never win, as in the forward, and a maximum in the padding drops the gradient.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "ir/ops/eval_manipulate.h"
#include "ir/ops/eval_nn.h"

namespace rlx {
namespace {
using namespace ops;

// Accumulates into a buffer in the result's computation type: doubles for floats, uint64 for
// integers (wrapping like the element type's fixed-width adds after the final store).
struct Accumulator {
  bool isFloat;
  std::vector<double> f;
  std::vector<uint64_t> i;
  Accumulator(DataType t, int64_t n) : isFloat(t.isFloat()) {
    if (isFloat) f.assign(size_t(n), 0.0);
    else i.assign(size_t(n), 0);
  }
  void add(int64_t at, const NDArray& src, int64_t from) {
    if (isFloat) f[size_t(at)] += src.getDouble(from);
    else i[size_t(at)] += uint64_t(src.getInt(from));
  }
  void store(NDArray& out) const {
    if (isFloat) storeAs(out, f);
    else storeAs(out, i);
  }
};

// ---------------------------------------------------------------- take_backward

// Zeros shaped like x plus output_grad scattered (added) back to the elements take read: the
// output_grad index (pre..., k..., post...) adds into x[pre..., rows[k], post...].
Result<Value> evalTakeBackward(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(g, tensorValue(call, args, 0, "output_grad"));
  RLX_TRY(x, tensorValue(call, args, 1, "x"));
  RLX_TRY(ind, tensorValue(call, args, 2, "indices"));
  RLX_TRY_STATUS(requireIntegral(call, *ind, "indices"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  RLX_TRY(t, takeRows(call, *x, *ind));
  const Shape& dims = t.dims;
  int axis = t.axis;
  int64_t n = dims[size_t(axis)];
  const Shape& gshape = t.shape;
  if (g->shape != gshape)
    return evalError(call, fmt::format("output_grad has shape {}, but take's result has shape {}", shapeText(g->shape), shapeText(gshape)));
  int64_t outer = prodOf(dims, 0, size_t(axis)), inner = prodOf(dims, size_t(axis) + 1, dims.size());
  Accumulator acc(out->dtype, out->numel());
  int64_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r : t.rows)
      for (int64_t e = 0; e < inner; ++e) acc.add((o * n + r) * inner + e, *g, pos++);
  acc.store(*out);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- nll_loss_backward

// d loss / d predictions: -w[t] * g at [n, t, ...] for each counted target t (g divided by the
// summed weights for "mean"), zero elsewhere. Shapes as nll_loss: predictions (N, C, d...) with
// targets (N, d...), or (C,) with a 0-d target; output_grad has the targets' shape for "none",
// else it is 0-d.
Result<Value> evalNLLLossBackward(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(g, tensorValue(call, args, 0, "output_grad"));
  RLX_TRY(pred, tensorValue(call, args, 1, "predictions"));
  RLX_TRY(tgt, tensorValue(call, args, 2, "targets"));
  RLX_TRY_STATUS(requireIntegral(call, *tgt, "targets"));
  NDArrayRef weights;
  if (args.size() > 3) {
    RLX_TRY(w, tensorValue(call, args, 3, "weights"));
    weights = w;
  }
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, pred->shape, "the result"));
  if (pred->shape.empty()) return evalError(call, "expects predictions of at least one dimension");
  bool single = pred->shape.size() == 1;
  int64_t classes = single ? pred->shape[0] : pred->shape[1];
  Shape expectTgt = single ? Shape{} : Shape{pred->shape[0]};
  for (size_t d = 2; d < pred->shape.size(); ++d) expectTgt.push_back(pred->shape[d]);
  if (tgt->shape != expectTgt) return evalError(call, "targets must have the predictions' shape without the class dimension");
  if (weights && weights->numel() != classes) return evalError(call, fmt::format("weights have {} entries for {} classes", weights->numel(), classes));
  std::string reduction = attrString(call, "reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") return evalError(call, fmt::format("unknown reduction \"{}\"", reduction));
  Shape expectGrad = reduction == "none" ? tgt->shape : Shape{};
  if (g->shape != expectGrad)
    return evalError(call, fmt::format("output_grad has shape {}, but the {} loss has shape {}", shapeText(g->shape), reduction, shapeText(expectGrad)));
  int64_t ignore = attrInt(call, "ignore_index", -100);
  int64_t inner = prodOf(pred->shape, 2, pred->shape.size());
  std::vector<double> w(size_t(tgt->numel()), 0.0);
  double weightSum = 0;
  for (int64_t i = 0; i < tgt->numel(); ++i) {
    int64_t t = tgt->getInt(i);
    if (t == ignore) continue;
    if (t < 0 || t >= classes) return evalError(call, fmt::format("target {} is out of range for {} classes", t, classes));
    w[size_t(i)] = weights ? weights->getDouble(t) : 1.0;
    weightSum += w[size_t(i)];
  }
  std::vector<double> grad(size_t(pred->numel()), 0.0);
  for (int64_t i = 0; i < tgt->numel(); ++i) {
    int64_t t = tgt->getInt(i);
    if (t == ignore) continue;
    double gi = reduction == "none" ? g->getDouble(i) : g->getDouble(0);
    if (reduction == "mean") gi /= weightSum;
    int64_t nIdx = i / inner, r = i % inner;
    grad[size_t((nIdx * classes + t) * inner + r)] = -w[size_t(i)] * gi;
  }
  storeAs(*out, grad);
  return Value::ofTensor(out);
}

// ---------------------------------------------------------------- max/avg_pool2d_backward

using Dims2 = std::array<int64_t, 2>;

struct Window2 {
  Dims2 kernel, stride, dil, padBefore, padAfter;
};

// pool_size / strides / dilation of 1 or 2 values, padding of 1, 2 (per axis) or 4 values.
Result<Window2> poolWindow2(const Call& call) {
  auto pair = [&](const char* key) -> Result<Dims2> {
    auto v = attrInts(call, key);
    if (v.size() == 1) return Dims2{v[0], v[0]};
    if (v.size() == 2) return Dims2{v[0], v[1]};
    return evalError(call, fmt::format("{} must have 1 or 2 values, but it has {}", key, v.size()));
  };
  RLX_TRY(kernel, pair("pool_size"));
  RLX_TRY(stride, pair("strides"));
  RLX_TRY(dil, pair("dilation"));
  auto pad = attrInts(call, "padding");
  if (pad.size() == 1) pad = {pad[0], pad[0], pad[0], pad[0]};
  else if (pad.size() == 2) pad = {pad[0], pad[1], pad[0], pad[1]};
  else if (pad.size() != 4) return evalError(call, fmt::format("padding must have 1, 2 or 4 values, but it has {}", pad.size()));
  for (size_t a = 0; a < 2; ++a)
    if (kernel[a] <= 0 || stride[a] <= 0 || dil[a] <= 0) return evalError(call, "pool_size, strides and dilation must be positive");
  for (int64_t p : pad)
    if (p < 0) return evalError(call, "padding must not be negative");
  return Window2{kernel, stride, dil, {pad[0], pad[1]}, {pad[2], pad[3]}};
}

// The gradient of pool2d w.r.t. its data, in canonical NCHW order throughout (layouts permuted at
// the edges). Each output position (oh, ow) of each plane sends its gradient to the taps of its
// window: all taps inside the data (avg, divided by the forward's divisor) or the first maximal tap.
Result<Value> evalPool2dBackward(const Call& call, const std::vector<Value>& args, bool isMax) {
  RLX_TRY(g, tensorValue(call, args, 0, "output_grad"));
  RLX_TRY(x, tensorValue(call, args, 1, "data"));
  RLX_TRY(out, allocResult(call));
  RLX_TRY_STATUS(expectShape(call, *out, x->shape, "the result"));
  std::string layout = attrString(call, "layout", "NCHW");
  RLX_TRY(dperm, layoutPerm(call, layout, "NCHW", "data"));
  RLX_TRY(operm, layoutPerm(call, attrString(call, "out_layout", layout), "NCHW", "output"));
  if (x->shape.size() != 4 || g->shape.size() != 4) return evalError(call, "expects 4-D output_grad and data");
  RLX_TRY(w, poolWindow2(call));
  bool ceil = attrBool(call, "ceil_mode"), includePad = attrBool(call, "count_include_pad");
  Shape xs = permuteShape(x->shape, dperm), gs = permuteShape(g->shape, operm);
  Shape want = {xs[0], xs[1], 0, 0};
  for (size_t a = 0; a < 2; ++a) {
    int64_t num = xs[2 + a] + w.padBefore[a] + w.padAfter[a] - w.dil[a] * (w.kernel[a] - 1) - 1 + (ceil ? w.stride[a] - 1 : 0);
    want[2 + a] = std::max<int64_t>(0, floorDivI(num, w.stride[a]) + 1);
  }
  if (gs != want)
    return evalError(call, fmt::format("output_grad has shape {} (in NCHW order), but the pool's output has shape {}", shapeText(gs), shapeText(want)));
  std::vector<double> xv = transposeBuf(loadAs<double>(*x), x->shape, dperm), gv = transposeBuf(loadAs<double>(*g), g->shape, operm);
  std::vector<double> dx(xv.size(), 0.0);
  int64_t H = xs[2], W = xs[3], OH = gs[2], OW = gs[3];
  double lowest = dtypeLowest(x->dtype);
  for (int64_t pl = 0; pl < xs[0] * xs[1]; ++pl) {
    const double* plane = xv.data() + pl * H * W;
    double* dplane = dx.data() + pl * H * W;
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double go = gv[size_t((pl * OH + oh) * OW + ow)];
        int64_t h0 = oh * w.stride[0] - w.padBefore[0], w0 = ow * w.stride[1] - w.padBefore[1];
        int64_t best = -1, inside = 0, inPadded = 0;  // best: flat tap in the plane, -1 none / padding
        bool found = false;
        double bestVal = 0;
        for (int64_t kh = 0; kh < w.kernel[0]; ++kh)
          for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
            int64_t h = h0 + kh * w.dil[0], ww = w0 + kw * w.dil[1];
            bool in = h >= 0 && h < H && ww >= 0 && ww < W;
            bool padded = h >= -w.padBefore[0] && h < H + w.padAfter[0] && ww >= -w.padBefore[1] && ww < W + w.padAfter[1];
            inside += in, inPadded += padded;
            double v = in ? plane[h * W + ww] : lowest;
            if (isMax && !std::isnan(v) && (!found || v > bestVal)) found = true, bestVal = v, best = in ? h * W + ww : -1;
          }
        if (isMax) {
          if (best >= 0) dplane[best] += go;
          continue;
        }
        double share = go / double(std::max<int64_t>(1, includePad ? inPadded : inside));
        for (int64_t kh = 0; kh < w.kernel[0]; ++kh)
          for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
            int64_t h = h0 + kh * w.dil[0], ww = w0 + kw * w.dil[1];
            if (h >= 0 && h < H && ww >= 0 && ww < W) dplane[h * W + ww] += share;
          }
      }
  }
  storeAs(*out, transposeBuf(dx, xs, inversePerm(dperm)));
  return Value::ofTensor(out);
}

}  // namespace

void registerGradEvals() {
  for (const char* n : {"no_grad", "start_checkpoint", "end_checkpoint"}) registerEval(std::string("relax.grad.") + n, evalSameValue);
  registerEval("relax.grad.take_backward", evalTakeBackward);
  registerEval("relax.grad.nll_loss_backward", evalNLLLossBackward);
  registerEval("relax.grad.max_pool2d_backward", [](const Call& c, const std::vector<Value>& a) { return evalPool2dBackward(c, a, true); });
  registerEval("relax.grad.avg_pool2d_backward", [](const Call& c, const std::vector<Value>& a) { return evalPool2dBackward(c, a, false); });
}

}  // namespace rlx
