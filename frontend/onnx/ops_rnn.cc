// Recurrent ONNX ops (RNN, GRU, LSTM) unrolled over their statically known sequence length: the
// input projection of every step is one matmul, each step adds the recurrent term and applies the
// gate activations; forward, reverse and bidirectional, layout 0 and 1.
#include "frontend/onnx/converter.h"

namespace rlx::onnx {

namespace {

// One gate activation as ONNX names it, with its alpha/beta where it takes them.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

Expr activate(NodeCtx& c, const Activation& a, Expr x) {
  DataType t = tensorInfo(x)->dtype;
  auto sc = [&](double v) { return c.scalar(v, t); };
  auto mul = [&](Expr p, Expr q) { return c.op("multiply", {ex(p), ex(q)}); };
  auto add = [&](Expr p, Expr q) { return c.op("add", {ex(p), ex(q)}); };
  const std::string& n = a.name;
  if (n == "Sigmoid") return c.op("sigmoid", {ex(x)});
  if (n == "Tanh") return c.op("tanh", {ex(x)});
  if (n == "Relu") return c.op("nn.relu", {ex(x)});
  if (n == "Affine") return add(mul(x, sc(a.alpha)), sc(a.beta));
  if (n == "LeakyRelu") return c.op("nn.leakyrelu", {ex(x)}, {{"alpha", f(a.alpha)}});
  if (n == "ThresholdedRelu") return c.op("where", {ex(c.op("greater", {ex(x), ex(sc(a.alpha))})), ex(x), ex(sc(0))});
  if (n == "ScaledTanh") return mul(c.op("tanh", {ex(mul(x, sc(a.beta)))}), sc(a.alpha));
  if (n == "HardSigmoid") return c.op("minimum", {ex(c.op("maximum", {ex(add(mul(x, sc(a.alpha)), sc(a.beta))), ex(sc(0))})), ex(sc(1))});
  if (n == "Elu") {
    Expr neg = mul(c.op("subtract", {ex(c.op("exp", {ex(x)})), ex(sc(1))}), sc(a.alpha));
    return c.op("where", {ex(c.op("greater", {ex(x), ex(sc(0))})), ex(x), ex(neg)});
  }
  if (n == "Softsign") return c.op("divide", {ex(x), ex(add(c.op("abs", {ex(x)}), sc(1)))});
  if (n == "Softplus") return c.op("log", {ex(add(c.op("exp", {ex(x)}), sc(1)))});
  fail("unknown activation '" + n + "'");
}

// The activations for each direction (`perDir` of them), filled with the op's defaults.
std::vector<std::vector<Activation>> activations(NodeCtx& c, const std::vector<std::string>& defaults, int dirs) {
  std::vector<std::string> names;
  if (auto* a = c.attr("activations"))
    for (auto& s : a->strings()) names.push_back(s);
  auto alphas = c.floats("activation_alpha"), betas = c.floats("activation_beta");
  size_t perDir = defaults.size();
  std::vector<std::vector<Activation>> out(static_cast<size_t>(dirs));
  for (size_t k = 0; k < perDir * size_t(dirs); ++k) {
    Activation act;
    act.name = k < names.size() ? names[k] : defaults[k % perDir];
    // Defaults of the activations that take parameters (ONNX's table).
    if (act.name == "LeakyRelu") act.alpha = 0.01;
    if (act.name == "ThresholdedRelu" || act.name == "Elu") act.alpha = 1.0;
    if (act.name == "HardSigmoid") act.alpha = 0.2, act.beta = 0.5;
    if (k < alphas.size()) act.alpha = alphas[k];
    if (k < betas.size()) act.beta = betas[k];
    out[k / perDir].push_back(act);
  }
  return out;
}

enum class Cell { RNN, GRU, LSTM };

Outputs recurrent(NodeCtx& c, Cell cell) {
  int gates = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
  std::string direction = c.s("direction", "forward");
  int dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") fail("unknown direction '" + direction + "'");
  bool batchFirst = c.i("layout", 0) != 0;
  if (c.hasAttr("clip")) fail("the clip attribute is not supported");
  if (cell == Cell::LSTM && c.i("input_forget", 0)) fail("input_forget=1 is not supported");
  for (size_t k : {size_t(0), size_t(1), size_t(2)})
    if (c.ndim(k) != 3) fail("X, W and R must be 3-D (input " + std::to_string(k) + " has " + std::to_string(c.ndim(k)) + " dims)");
  Expr x = c.x(0);
  if (batchFirst) x = c.op("permute_dims", {ex(x)}, {{"axes", ints({1, 0, 2})}});
  auto xd = tensorInfo(x)->dims();
  if (!xd) fail("the input shape must be known");
  auto steps = (*xd)[0].as<IntImm>();
  if (!steps) fail("the sequence length must be known at import time");
  int64_t hidden = c.i("hidden_size", 0);
  if (hidden <= 0) {
    auto rd = c.dim(2, 2).as<IntImm>();
    if (!rd) fail("hidden_size is unknown");
    hidden = rd->value;
  }
  if (c.has(4)) {
    auto lens = c.constInts(4);
    bool full = lens && std::all_of(lens->begin(), lens->end(), [&](int64_t v) { return v == steps->value; });
    if (!full) fail("sequence_lens shorter than the sequence are not supported");
  }
  DataType t = c.dtype(0);
  std::vector<std::string> defaults = cell == Cell::RNN ? std::vector<std::string>{"Tanh"} : cell == Cell::GRU ? std::vector<std::string>{"Sigmoid", "Tanh"} : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  auto acts = activations(c, defaults, dirs);
  bool linearBeforeReset = c.i("linear_before_reset", 0) != 0;
  auto pick = [&](Expr e, int64_t d) { return c.op("squeeze", {ex(c.op("strided_slice", {ex(e), ints({0}), ints({d}), ints({d + 1}), ints({1})}))}, {{"axis", ints({0})}}); };
  auto slice = [&](Expr e, int64_t axis, int64_t from, int64_t to) { return c.op("strided_slice", {ex(e), ints({axis}), ints({from}), ints({to}), ints({1})}); };
  auto mm = [&](Expr a, Expr wT) { return c.op("matmul", {ex(a), ex(wT)}); };
  auto add = [&](Expr a, Expr b) { return c.op("add", {ex(a), ex(b)}); };
  auto mul = [&](Expr a, Expr b) { return c.op("multiply", {ex(a), ex(b)}); };
  auto batch = (*xd)[1];

  std::vector<Expr> ys, lastH, lastC;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Expr wT = c.op("permute_dims", {ex(pick(c.x(1), d))}, {{"axes", ints({1, 0})}});  // (I, G*H)
    Expr rT = c.op("permute_dims", {ex(pick(c.x(2), d))}, {{"axes", ints({1, 0})}});  // (H, G*H)
    Expr xw = mm(x, wT);                                                                 // (S, B, G*H)
    Expr rb;
    if (c.has(3)) {
      Expr bias = pick(c.x(3), d);  // (2*G*H): Wb then Rb
      xw = add(xw, slice(bias, 0, 0, gates * hidden));
      rb = slice(bias, 0, gates * hidden, 2 * gates * hidden);
    }
    Expr h = c.has(5) ? pick(c.x(5), d) : c.op("zeros", {ex(shapeExpr({batch, intImm(hidden)}))}, {{"dtype", s(t.str())}});
    Expr cs = cell == Cell::LSTM ? (c.has(6) ? pick(c.x(6), d) : c.op("zeros", {ex(shapeExpr({batch, intImm(hidden)}))}, {{"dtype", s(t.str())}})) : Expr();
    Expr peep = cell == Cell::LSTM && c.has(7) ? pick(c.x(7), d) : Expr();
    auto& act = acts[size_t(d)];
    std::vector<Expr> hs(size_t(steps->value));
    for (int64_t step = 0; step < steps->value; ++step) {
      int64_t at = reverse ? steps->value - 1 - step : step;
      Expr xt = c.op("squeeze", {ex(slice(xw, 0, at, at + 1))}, {{"axis", ints({0})}});  // (B, G*H)
      auto gate = [&](Expr e, int k) { return slice(e, 1, k * hidden, (k + 1) * hidden); };
      if (cell == Cell::RNN) {
        Expr pre = add(xt, mm(h, rT));
        if (rb) pre = add(pre, rb);
        h = activate(c, act[0], pre);
      } else if (cell == Cell::GRU) {
        // Gate order z, r, h; the recurrent bias of h sits inside the reset product when
        // linear_before_reset is set.
        Expr hr = mm(h, rT);
        auto rbGate = [&](int k) { return rb ? slice(rb, 0, k * hidden, (k + 1) * hidden) : Expr(); };
        auto withRb = [&](Expr e, int k) { return rb ? add(e, rbGate(k)) : e; };
        Expr z = activate(c, act[0], withRb(add(gate(xt, 0), gate(hr, 0)), 0));
        Expr r = activate(c, act[0], withRb(add(gate(xt, 1), gate(hr, 1)), 1));
        Expr cand;
        if (linearBeforeReset) cand = add(gate(xt, 2), mul(r, withRb(gate(hr, 2), 2)));
        else {
          Expr rh = mm(mul(r, h), c.op("permute_dims", {ex(slice(pick(c.x(2), d), 0, 2 * hidden, 3 * hidden))}, {{"axes", ints({1, 0})}}));
          cand = withRb(add(gate(xt, 2), rh), 2);
        }
        Expr hh = activate(c, act[1], cand);
        Expr one = c.scalar(1, t);
        h = add(mul(c.op("subtract", {ex(one), ex(z)}), hh), mul(z, h));
      } else {
        // Gate order i, o, f, c; peepholes P = (Pi, Po, Pf).
        Expr pre = add(xt, mm(h, rT));
        if (rb) pre = add(pre, rb);
        auto pg = [&](int k) { return slice(peep, 0, k * hidden, (k + 1) * hidden); };
        Expr ig = gate(pre, 0), og = gate(pre, 1), fg = gate(pre, 2), cg = gate(pre, 3);
        if (peep) ig = add(ig, mul(pg(0), cs)), fg = add(fg, mul(pg(2), cs));
        Expr iv = activate(c, act[0], ig), fv = activate(c, act[0], fg), cv = activate(c, act[1], cg);
        cs = add(mul(fv, cs), mul(iv, cv));
        if (peep) og = add(og, mul(pg(1), cs));
        Expr ov = activate(c, act[0], og);
        h = mul(ov, activate(c, act[2], cs));
      }
      hs[size_t(at)] = h;
    }
    ys.push_back(c.op("stack", {ex(make<Tuple>(hs))}, {{"axis", i(0)}}));  // (S, B, H)
    lastH.push_back(h);
    if (cs) lastC.push_back(cs);
  }
  Expr y = c.op("stack", {ex(make<Tuple>(ys))}, {{"axis", i(1)}});        // (S, D, B, H)
  Expr yh = c.op("stack", {ex(make<Tuple>(lastH))}, {{"axis", i(0)}});    // (D, B, H)
  Expr yc = cell == Cell::LSTM ? c.op("stack", {ex(make<Tuple>(lastC))}, {{"axis", i(0)}}) : Expr();
  if (batchFirst) {
    y = c.op("permute_dims", {ex(y)}, {{"axes", ints({2, 0, 1, 3})}});
    yh = c.op("permute_dims", {ex(yh)}, {{"axes", ints({1, 0, 2})}});
    if (yc) yc = c.op("permute_dims", {ex(yc)}, {{"axes", ints({1, 0, 2})}});
  }
  Outputs outs = {{y}, {yh}};
  if (yc) outs.push_back({yc});
  return outs;
}

}  // namespace

void registerRecurrentConverters() {
  onnxOp("RNN", {7, 14, 22}, [](NodeCtx& c) { return recurrent(c, Cell::RNN); });
  onnxOp("GRU", {7, 14, 22}, [](NodeCtx& c) { return recurrent(c, Cell::GRU); });
  onnxOp("LSTM", {7, 14, 22}, [](NodeCtx& c) { return recurrent(c, Cell::LSTM); });
}

}  // namespace rlx::onnx
