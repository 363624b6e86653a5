// The optimizer steps of ONNX's ai.onnx.preview.training domain (Adagrad, Momentum, Adam): each
// is elementwise arithmetic over its tensors, with the step count T a run-time scalar.
#include "frontend/onnx/converter.h"

namespace rlx::onnx {

namespace {

// The shared input layout: R (learning rate), T (update count), then `groups` lists of n tensors
// each (X..., G..., then the optimizer's state lists).
struct Step {
  Expr r, t;  // r as X's dtype, t as a float scalar of X's dtype
  size_t n;
  Expr at(NodeCtx& c, size_t group, size_t k) const { return c.x(2 + group * n + k); }
};

Step stepOf(NodeCtx& c, size_t groups) {
  if (c.numInputs() < 2 + groups || (c.numInputs() - 2) % groups) fail("expected R, T and " + std::to_string(groups) + " lists of equally many tensors");
  Step st;
  st.n = (c.numInputs() - 2) / groups;
  DataType t = c.dtype(2);
  st.r = c.cast(c.x(0), t);
  st.t = c.cast(c.x(1), t);
  return st;
}

Expr mul(NodeCtx& c, Expr a, Expr b) { return c.op("multiply", {ex(a), ex(b)}); }
Expr add(NodeCtx& c, Expr a, Expr b) { return c.op("add", {ex(a), ex(b)}); }
Expr sub(NodeCtx& c, Expr a, Expr b) { return c.op("subtract", {ex(a), ex(b)}); }
Expr div(NodeCtx& c, Expr a, Expr b) { return c.op("divide", {ex(a), ex(b)}); }

// norm_coefficient * X + G: the gradient with L2 regularization folded in.
Expr regularized(NodeCtx& c, const Expr& x, const Expr& g, double norm) {
  return norm == 0 ? g : add(c, mul(c, c.scalar(norm, c.dtype(2)), x), g);
}

}  // namespace

void registerTrainingConverters() {
  const std::string domain = "ai.onnx.preview.training";
  registerConverter(domain, "Adagrad", {1}, [](NodeCtx& c) -> Outputs {
    // r = R / (1 + T * decay); H' = H + g^2; X' = X - r * g / (sqrt(H') + eps).
    Step st = stepOf(c, 3);
    DataType t = c.dtype(2);
    double decay = c.f("decay_factor", 0.0), eps = c.f("epsilon", 1e-6), norm = c.f("norm_coefficient", 0.0);
    Expr r = div(c, st.r, add(c, c.scalar(1.0, t), mul(c, st.t, c.scalar(decay, t))));
    Outputs xs, hs;
    for (size_t k = 0; k < st.n; ++k) {
      Expr x = st.at(c, 0, k), g = regularized(c, x, st.at(c, 1, k), norm);
      Expr h = add(c, st.at(c, 2, k), mul(c, g, g));
      Expr adaptive = add(c, c.op("sqrt", {ex(h)}), c.scalar(eps, t));
      xs.push_back({sub(c, x, div(c, mul(c, r, g), adaptive))});
      hs.push_back({h});
    }
    xs.insert(xs.end(), hs.begin(), hs.end());
    return xs;
  });
  registerConverter(domain, "Momentum", {1}, [](NodeCtx& c) -> Outputs {
    // V' = alpha V + beta' g (beta' = 1 on the first step, T = 0); standard: X' = X - R V';
    // nesterov: X' = X - R (g + alpha V').
    Step st = stepOf(c, 3);
    DataType t = c.dtype(2);
    double alpha = c.f("alpha", 0.0), beta = c.f("beta", 0.0), norm = c.f("norm_coefficient", 0.0);
    std::string mode = c.s("mode", "standard");
    if (mode != "standard" && mode != "nesterov") fail("mode must be 'standard' or 'nesterov', not '" + mode + "'");
    Expr firstStep = c.op("greater", {ex(st.t), ex(c.scalar(0.0, t))});
    Expr betaNow = c.op("where", {ex(firstStep), ex(c.scalar(beta, t)), ex(c.scalar(1.0, t))});
    Outputs xs, vs;
    for (size_t k = 0; k < st.n; ++k) {
      Expr x = st.at(c, 0, k), g = regularized(c, x, st.at(c, 1, k), norm);
      Expr v = add(c, mul(c, c.scalar(alpha, t), st.at(c, 2, k)), mul(c, betaNow, g));
      Expr step = mode == "standard" ? v : add(c, g, mul(c, c.scalar(alpha, t), v));
      xs.push_back({sub(c, x, mul(c, st.r, step))});
      vs.push_back({v});
    }
    xs.insert(xs.end(), vs.begin(), vs.end());
    return xs;
  });
  registerConverter(domain, "Adam", {1}, [](NodeCtx& c) -> Outputs {
    // V' = alpha V + (1 - alpha) g; H' = beta H + (1 - beta) g^2; the rate is bias-corrected
    // (R sqrt(1 - beta^T) / (1 - alpha^T)) once T > 0; X' = (1 - post) (X - r V' / (sqrt(H') + eps)).
    Step st = stepOf(c, 4);
    DataType t = c.dtype(2);
    double alpha = c.f("alpha", 0.9), beta = c.f("beta", 0.999), eps = c.f("epsilon", 1e-6);
    double norm = c.f("norm_coefficient", 0.0), post = c.f("norm_coefficient_post", 0.0);
    auto one = [&] { return c.scalar(1.0, t); };
    Expr corrected = div(c, mul(c, st.r, c.op("sqrt", {ex(sub(c, one(), c.op("power", {ex(c.scalar(beta, t)), ex(st.t)})))})),
                         sub(c, one(), c.op("power", {ex(c.scalar(alpha, t)), ex(st.t)})));
    Expr r = c.op("where", {ex(c.op("greater", {ex(st.t), ex(c.scalar(0.0, t))})), ex(corrected), ex(st.r)});
    Outputs xs, vs, hs;
    for (size_t k = 0; k < st.n; ++k) {
      Expr x = st.at(c, 0, k), g = regularized(c, x, st.at(c, 1, k), norm);
      Expr v = add(c, mul(c, c.scalar(alpha, t), st.at(c, 2, k)), mul(c, c.scalar(1 - alpha, t), g));
      Expr h = add(c, mul(c, c.scalar(beta, t), st.at(c, 3, k)), mul(c, c.scalar(1 - beta, t), mul(c, g, g)));
      Expr moved = sub(c, x, mul(c, r, div(c, v, add(c, c.op("sqrt", {ex(h)}), c.scalar(eps, t)))));
      xs.push_back({post == 0 ? moved : mul(c, c.scalar(1 - post, t), moved)});
      vs.push_back({v});
      hs.push_back({h});
    }
    xs.insert(xs.end(), vs.begin(), vs.end());
    xs.insert(xs.end(), hs.begin(), hs.end());
    return xs;
  });
}

}  // namespace rlx::onnx
