// Reference evaluator: grad.* ops (markers, take/nll_loss/pool2d backward) on hand-computed
// gradients, plus finite-difference checks against the forward evaluators.
#include <catch2/catch.hpp>

#include <functional>

#include "tests/unit/eval_nn_test_util.h"

using namespace rlx;
using namespace rlx::test;

namespace {

// Central differences of sum(g * forward(x)) w.r.t. each element of x (float64 data), compared
// with backward(g, x). `forward` / `backward` evaluate with the same attrs.
void checkAgainstForward(const std::function<Evaluated(const std::vector<double>&)>& forward, const std::function<Evaluated(const std::vector<double>&)>& backward,
                         const std::vector<double>& x, const std::vector<double>& g) {
  Evaluated bw = backward(x);
  INFO(bw.error);
  REQUIRE(bw.ok);
  REQUIRE(bw.values.size() == x.size());
  const double eps = 1e-4;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> lo = x, hi = x;
    lo[i] -= eps, hi[i] += eps;
    Evaluated fl = forward(lo), fh = forward(hi);
    REQUIRE(fl.ok);
    REQUIRE(fh.ok);
    REQUIRE(fl.values.size() == g.size());
    double d = 0;
    for (size_t k = 0; k < g.size(); ++k) d += g[k] * (fh.values[k] - fl.values[k]);
    INFO("element " << i);
    CHECK(bw.values[i] == Approx(d / (2 * eps)).margin(1e-6));
  }
}

}  // namespace

TEST_CASE("eval: grad markers are identities", "[eval]") {
  for (const char* op : {"relax.grad.no_grad", "relax.grad.start_checkpoint", "relax.grad.end_checkpoint"}) {
    auto r = ev(op, {C("float32", {2}, {1.5, -2})});
    CHECK(r.shape == Dims{2});
    CHECK(r.values == V{1.5, -2});
  }
  auto t = evalCall("relax.grad.no_grad", {E(valueToExpr(Value::ofTuple({TV("int32", {1}, {7}), Value::ofShape({2, 3})})))});
  REQUIRE(t.ok());
  REQUIRE(t.value().kind == Value::Tuple);
  CHECK(vals(t.value().fields[0]) == V{7});
  CHECK(t.value().fields[1].shape == Dims{2, 3});
}

TEST_CASE("eval: take_backward scatter-adds output_grad at the taken indices", "[eval]") {
  // Repeated index 2: rows 0 and 2 of output_grad both land in row 2 of x.
  auto r = ev("relax.grad.take_backward", {C("float32", {3, 2}, {1, 2, 3, 4, 5, 6}), C("float32", {3, 2}, {}), C("int64", {3}, {2, 0, 2})}, {{"axis", I(0)}});
  CHECK(r.shape == Dims{3, 2});
  CHECK(r.dtype == "float32");
  CHECK(r.values == V{3, 4, 0, 0, 6, 8});
  // Axis 1, one column taken twice.
  CHECK(ev("relax.grad.take_backward", {C("float32", {2, 2}, {1, 2, 3, 4}), C("float32", {2, 3}, {}), C("int32", {2}, {1, 1})}, {{"axis", I(1)}}).values == V{0, 3, 0, 0, 7, 0});
  CHECK(ev("relax.grad.take_backward", {C("float32", {2, 2}, {1, 2, 3, 4}), C("float32", {2, 3}, {}), C("int32", {2}, {1, 1})}, {{"axis", I(-1)}}).values == V{0, 3, 0, 0, 7, 0});
  // No axis: indices into the flattened x.
  auto flat = ev("relax.grad.take_backward", {C("float32", {3}, {1, 2, 3}), C("float32", {2, 2}, {}), C("int64", {3}, {3, 0, 3})});
  CHECK(flat.shape == Dims{2, 2});
  CHECK(flat.values == V{2, 0, 0, 4});
  // 2-D indices; integer dtypes accumulate exactly.
  CHECK(ev("relax.grad.take_backward", {C("int32", {2, 2}, {1, 2, 3, 4}), C("int32", {3}, {}), C("int64", {2, 2}, {0, 1, 1, 2})}, {{"axis", I(0)}}).values == V{1, 5, 4});
  // mode wrap / clip map indices as the forward take does.
  CHECK(ev("relax.grad.take_backward", {C("float32", {2}, {1, 2}), C("float32", {3}, {}), C("int64", {2}, {-1, 4})}, {{"axis", I(0)}, {"mode", S("wrap")}}).values == V{0, 2, 1});
  CHECK(ev("relax.grad.take_backward", {C("float32", {2}, {1, 2}), C("float32", {3}, {}), C("int64", {2}, {-1, 5})}, {{"axis", I(0)}, {"mode", S("clip")}}).values == V{1, 0, 2});
}

TEST_CASE("eval: take_backward errors", "[eval]") {
  CHECK(ev("relax.grad.take_backward", {C("float32", {2}, {1, 2}), C("float32", {3}, {}), C("int64", {2}, {0, 3})}, {{"axis", I(0)}}).error ==
        "error: R.grad.take_backward: index 3 is out of range [0, 3) for an axis of extent 3");
  CHECK(ev("relax.grad.take_backward", {C("float32", {3}, {1, 2, 3}), C("float32", {3}, {}), C("int64", {2}, {0, 1})}, {{"axis", I(0)}}).error ==
        "error: R.grad.take_backward: output_grad has shape (3,), but take's result has shape (2,)");
  CHECK(ev("relax.grad.take_backward", {C("float32", {2}, {1, 2}), C("float32", {3}, {}), C("float32", {2}, {0, 1})}, {{"axis", I(0)}}).error ==
        "error: R.grad.take_backward: expects indices to have an integer dtype, got float32");
}

TEST_CASE("eval: nll_loss_backward reductions, weights, ignore_index", "[eval]") {
  auto pred = [] { return C("float32", {2, 3}, {0.1, 0.2, 0.7, 0.5, 0.3, 0.2}); };
  auto tgt = [] { return C("int64", {2}, {2, 0}); };
  auto g0 = [](double v) { return C("float32", {}, {v}); };
  // mean: -1 / (number of targets) at each target.
  auto m = ev("relax.grad.nll_loss_backward", {g0(1), pred(), tgt()});
  CHECK(m.shape == Dims{2, 3});
  CHECK(m.values == V{0, 0, -0.5, -0.5, 0, 0});
  CHECK(ev("relax.grad.nll_loss_backward", {g0(2), pred(), tgt()}, {{"reduction", S("sum")}}).values == V{0, 0, -2, -2, 0, 0});
  CHECK(ev("relax.grad.nll_loss_backward", {C("float32", {2}, {1, 3}), pred(), tgt()}, {{"reduction", S("none")}}).values == V{0, 0, -1, -3, 0, 0});
  // Weights: w[2] = 3, w[0] = 1, summed 4 for the mean.
  auto w = [] { return C("float32", {3}, {1, 2, 3}); };
  CHECK(ev("relax.grad.nll_loss_backward", {g0(1), pred(), tgt(), w()}).values == V{0, 0, -0.75, -0.25, 0, 0});
  CHECK(ev("relax.grad.nll_loss_backward", {g0(1), pred(), tgt(), w()}, {{"reduction", S("sum")}}).values == V{0, 0, -3, -1, 0, 0});
  // ignore_index 0: the second target drops out of the gradient and of the weight sum.
  CHECK(ev("relax.grad.nll_loss_backward", {g0(1), pred(), tgt(), w()}, {{"ignore_index", I(0)}}).values == V{0, 0, -1, 0, 0, 0});
  CHECK(ev("relax.grad.nll_loss_backward", {g0(1), pred(), C("int64", {2}, {0, 0})}, {{"ignore_index", I(0)}}).values == V{0, 0, 0, 0, 0, 0});
  // No batch: (C,) predictions, 0-d target.
  CHECK(ev("relax.grad.nll_loss_backward", {g0(1), C("float32", {3}, {0.2, 0.3, 0.5}), C("int64", {}, {1})}, {{"reduction", S("sum")}}).values == V{0, -1, 0});
  // Spatial: predictions (N=1, C=2, d=2), targets (1, 2); result order (n, c, d).
  CHECK(ev("relax.grad.nll_loss_backward", {C("float32", {1, 2}, {5, 7}), C("float32", {1, 2, 2}, {}), C("int64", {1, 2}, {1, 0})}, {{"reduction", S("none")}}).values == V{0, -7, -5, 0});
}

TEST_CASE("eval: nll_loss_backward errors and agreement with nll_loss", "[eval]") {
  auto pred = [] { return C("float32", {2, 3}, {}); };
  CHECK(ev("relax.grad.nll_loss_backward", {C("float32", {}, {1}), pred(), C("int64", {2}, {3, 0})}).error ==
        "error: R.grad.nll_loss_backward: target 3 is out of range for 3 classes");
  CHECK(ev("relax.grad.nll_loss_backward", {C("float32", {2}, {1, 1}), pred(), C("int64", {2}, {1, 0})}).error ==
        "error: R.grad.nll_loss_backward: output_grad has shape (2,), but the mean loss has shape ()");
  // Central differences of nll_loss (linear in the predictions) with weights and ignore_index.
  std::vector<double> x = {0.1, -0.4, 0.7, 0.5, 0.3, -0.2, 1.5, 0.25, -1};
  for (const char* reduction : {"mean", "sum"}) {
    KwArgs kw = {{"reduction", S(reduction)}, {"ignore_index", I(1)}};
    auto fwd = [&](const std::vector<double>& v) { return ev("relax.nn.nll_loss", {C("float64", {3, 3}, v), C("int64", {3}, {2, 1, 0}), C("float64", {3}, {0.5, 2, 3})}, kw); };
    auto bwd = [&](const std::vector<double>& v) {
      return ev("relax.grad.nll_loss_backward", {C("float64", {}, {1.5}), C("float64", {3, 3}, v), C("int64", {3}, {2, 1, 0}), C("float64", {3}, {0.5, 2, 3})}, kw);
    };
    checkAgainstForward(fwd, bwd, x, {1.5});
  }
}

TEST_CASE("eval: max_pool2d_backward routes gradients to window maxima", "[eval]") {
  KwArgs k2 = {{"pool_size", Ints({2, 2})}};
  // Overlapping 2x2 windows of stride 1 all take the 9 in the middle.
  auto mid = ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 2, 2}, {1, 2, 3, 4}), C("float32", {1, 1, 3, 3}, {1, 2, 3, 4, 9, 5, 6, 7, 8})}, k2);
  CHECK(mid.shape == Dims{1, 1, 3, 3});
  CHECK(mid.values == V{0, 0, 0, 0, 10, 0, 0, 0, 0});
  auto x = [] { return C("float32", {1, 1, 3, 3}, {1, 5, 3, 4, 2, 6, 7, 0, 8}); };
  CHECK(ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 2, 2}, {1, 2, 3, 4}), x()}, k2).values == V{0, 1, 0, 0, 0, 2, 3, 0, 4});
  // 3x3 windows, stride 2, padding 1: the same maxima.
  CHECK(ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 2, 2}, {1, 2, 3, 4}), x()}, {{"pool_size", Ints({3, 3})}, {"strides", Ints({2, 2})}, {"padding", Ints({1, 1, 1, 1})}}).values ==
        V{0, 1, 0, 0, 0, 2, 3, 0, 4});
  // Ties go to the first tap in row-major window order.
  CHECK(ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 1, 2}, {1, 2}), C("float32", {1, 1, 2, 3}, {})}, k2).values == V{1, 2, 0, 0, 0, 0});
  // Padding (the dtype's lowest value) never beats the data: each of the 9 windows picks its first
  // tap inside the 2x2 input.
  CHECK(ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), C("float32", {1, 1, 2, 2}, {-1, -1, -1, -1})},
           {{"pool_size", Ints({2, 2})}, {"padding", Ints({1, 1, 1, 1})}})
            .values == V{12, 9, 15, 9});
  // Dilation 2 along W: windows {0, 2}, {1, 3}, {2, 4}.
  CHECK(ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 1, 3}, {1, 2, 3}), C("float32", {1, 1, 1, 5}, {1, 5, 3, 2, 4})}, {{"pool_size", Ints({1, 2})}, {"dilation", Ints({1, 2})}})
            .values == V{0, 2, 1, 0, 3});
  // Integer data.
  CHECK(ev("relax.grad.max_pool2d_backward", {C("int32", {1, 1, 1, 1}, {7}), C("int32", {1, 1, 2, 2}, {3, -1, 4, 2})}, k2).values == V{0, 0, 7, 0});
}

TEST_CASE("eval: avg_pool2d_backward spreads gradients over windows", "[eval]") {
  KwArgs k2 = {{"pool_size", Ints({2, 2})}};
  // Overlapping windows: each output's g / 4 goes to its four taps.
  auto r = ev("relax.grad.avg_pool2d_backward", {C("float32", {1, 1, 2, 2}, {4, 8, 12, 16}), C("float32", {1, 1, 3, 3}, {})}, k2);
  CHECK(r.shape == Dims{1, 1, 3, 3});
  CHECK(r.values == V{1, 3, 2, 4, 10, 6, 3, 7, 4});
  // Padding 1: the divisor counts the taps inside the data, or all taps with count_include_pad.
  auto g = [] { return C("float32", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); };
  KwArgs pad = {{"pool_size", Ints({2, 2})}, {"padding", Ints({1, 1, 1, 1})}};
  CHECK(ev("relax.grad.avg_pool2d_backward", {g(), C("float32", {1, 1, 2, 2}, {})}, pad).values == V{5.25, 8.25, 14.25, 17.25});
  pad.push_back({"count_include_pad", B(true)});
  CHECK(ev("relax.grad.avg_pool2d_backward", {g(), C("float32", {1, 1, 2, 2}, {})}, pad).values == V{3, 4, 6, 7});
  // ceil_mode: the windows past the edge average only their taps inside (the overhang is not
  // padding, with or without count_include_pad).
  for (bool include : {false, true}) {
    KwArgs ceil = {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}, {"ceil_mode", B(true)}, {"count_include_pad", B(include)}};
    CHECK(ev("relax.grad.avg_pool2d_backward", {C("float32", {1, 1, 2, 2}, {4, 4, 4, 4}), C("float32", {1, 1, 3, 3}, {})}, ceil).values == V{1, 1, 2, 1, 1, 2, 2, 2, 4});
  }
  // NHWC: channel 0 gets 4 / 4, channel 1 gets 8 / 4 at every position.
  auto nhwc = ev("relax.grad.avg_pool2d_backward", {C("float32", {1, 1, 1, 2}, {4, 8}), C("float32", {1, 2, 2, 2}, {})}, {{"pool_size", Ints({2, 2})}, {"layout", S("NHWC")}});
  CHECK(nhwc.shape == Dims{1, 2, 2, 2});
  CHECK(nhwc.values == V{1, 2, 1, 2, 1, 2, 1, 2});
}

TEST_CASE("eval: pool2d_backward errors", "[eval]") {
  CHECK(ev("relax.grad.avg_pool2d_backward", {C("float32", {1, 1, 3, 3}, {}), C("float32", {1, 1, 3, 3}, {})}, {{"pool_size", Ints({2, 2})}}).error ==
        "error: R.grad.avg_pool2d_backward: output_grad has shape (1, 1, 3, 3) (in NCHW order), but the pool's output has shape (1, 1, 2, 2)");
  CHECK(ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 2, 2}, {}), C("float32", {1, 1, 3, 3}, {})}, {{"pool_size", Ints({2, 2})}, {"strides", Ints({0, 1})}}).error ==
        "error: R.grad.max_pool2d_backward: pool_size, strides and dilation must be positive");
  CHECK(ev("relax.grad.max_pool2d_backward", {C("float32", {1, 1, 2, 2}, {}), C("float32", {1, 1, 3, 3}, {})}, {{"pool_size", Ints({2, 2})}, {"layout", S("NCHX")}}).error ==
        "error: R.grad.max_pool2d_backward: the data layout \"NCHX\" is not convertible from NCHW");
}

TEST_CASE("eval: pool2d_backward agrees with the forward pools", "[eval]") {
  // 2 channels of 4x5 distinct values (no ties, so max pooling is differentiable there).
  std::vector<double> x;
  for (int i = 0; i < 40; ++i) x.push_back(double((i * 17) % 41) - 20.0);
  std::vector<KwArgs> configs = {
      {{"pool_size", Ints({3, 2})}, {"strides", Ints({1, 2})}, {"padding", Ints({1, 0, 1, 1})}},
      {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}, {"ceil_mode", B(true)}, {"padding", Ints({1, 1, 0, 0})}},
      {{"pool_size", Ints({2, 3})}, {"dilation", Ints({2, 1})}, {"padding", Ints({1, 1, 1, 1})}, {"count_include_pad", B(true)}},
  };
  for (const char* kind : {"max", "avg"})
    for (auto& kw : configs) {
      std::string fwdOp = std::string("relax.nn.") + kind + "_pool2d", bwdOp = std::string("relax.grad.") + kind + "_pool2d_backward";
      auto out = ev(fwdOp, {C("float64", {1, 2, 4, 5}, x)}, kw);
      REQUIRE(out.ok);
      std::vector<double> g;
      for (size_t k = 0; k < out.values.size(); ++k) g.push_back(1.0 + double(k % 7));
      auto fwd = [&](const std::vector<double>& v) { return ev(fwdOp, {C("float64", {1, 2, 4, 5}, v)}, kw); };
      auto bwd = [&](const std::vector<double>& v) { return ev(bwdOp, {C("float64", out.shape, g), C("float64", {1, 2, 4, 5}, v)}, kw); };
      INFO(bwdOp);
      checkAgainstForward(fwd, bwd, x, g);
    }
}
