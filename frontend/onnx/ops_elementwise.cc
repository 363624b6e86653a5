// Elementwise ONNX ops: unary math, binary arithmetic with numpy broadcasting (and the legacy
// `broadcast`/`axis` attributes before opset 7), comparisons, logic, bit ops, variadic Max/Min/Sum/Mean.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/shape_arith.h"

namespace rlx::onnx {

namespace {

// Opsets < 7: B broadcasts only with broadcast=1, aligned at `axis` instead of at the end.
Expr legacyBroadcast(NodeCtx& c, Expr b) {
  if (c.since >= 7 || !c.i("broadcast", 0) || !c.hasAttr("axis")) return b;
  int64_t xr = c.ndim(0), br = c.ndim(1);
  int64_t axis = c.i("axis", 0);
  axis = normAxis(axis, xr);
  int64_t trailing = xr - axis - br;
  if (trailing <= 0) return b;
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < trailing; ++k) axes.push_back(br + k);
  return c.op("expand_dims", {ex(b)}, {{"axis", ints(axes)}});
}

Converter binary(const char* relaxOp) {
  return [relaxOp](NodeCtx& c) -> Outputs {
    if (auto folded = foldShapeArith(c, relaxOp)) return {*folded};
    return {{c.op(relaxOp, {ex(c.x(0)), ex(legacyBroadcast(c, c.x(1)))})}};
  };
}

Converter unary(const char* relaxOp) {
  return [relaxOp](NodeCtx& c) -> Outputs { return {{c.op(relaxOp, {ex(c.x(0))})}}; };
}

// A left fold of a binary op over every input (Max, Min, Sum, Mean's sum).
Expr fold(NodeCtx& c, const char* relaxOp) {
  Expr acc = c.x(0);
  for (size_t k = 1; k < c.numInputs(); ++k) acc = c.op(relaxOp, {ex(acc), ex(c.x(k))});
  return acc;
}

Expr sc(NodeCtx& c, double v) { return c.scalar(v, c.dtype(0)); }

Expr mul(NodeCtx& c, Expr a, Expr b) { return c.op("multiply", {ex(a), ex(b)}); }
Expr addE(NodeCtx& c, Expr a, Expr b) { return c.op("add", {ex(a), ex(b)}); }
Expr where(NodeCtx& c, Expr cond, Expr a, Expr b) { return c.op("where", {ex(cond), ex(a), ex(b)}); }

// exp(x) - 1 scaled by alpha: the negative branch of Elu/Selu/Celu.
Expr expm1Scaled(NodeCtx& c, Expr x, double alpha) { return mul(c, c.op("subtract", {ex(c.op("exp", {ex(x)})), ex(sc(c, 1))}), sc(c, alpha)); }

Expr softplus(NodeCtx& c, Expr x) { return c.op("log", {ex(addE(c, c.op("exp", {ex(x)}), sc(c, 1)))}); }

}  // namespace

void registerElementwiseConverters() {
  // Revisions of these ops only widened their types.
  const std::pair<const char*, const char*> unaries[] = {
      {"Abs", "abs"},     {"Neg", "negative"}, {"Exp", "exp"},     {"Log", "log"},     {"Sqrt", "sqrt"},   {"Sin", "sin"},     {"Cos", "cos"},
      {"Tan", "tan"},     {"Tanh", "tanh"},    {"Sigmoid", "sigmoid"}, {"Erf", "erf"}, {"Floor", "floor"}, {"Ceil", "ceil"},   {"Round", "round"},
      {"Asin", "asin"},   {"Acos", "acos"},    {"Atan", "atan"},   {"Sinh", "sinh"},   {"Cosh", "cosh"},   {"Asinh", "asinh"}, {"Acosh", "acosh"},
      {"Atanh", "atanh"}, {"IsNaN", "isnan"},  {"Not", "logical_not"}, {"Sign", "sign"}, {"BitwiseNot", "bitwise_not"}, {"Relu", "nn.relu"}};
  for (auto [onnxName, relaxName] : unaries) onnxOp(onnxName, {}, unary(relaxName));

  const std::pair<const char*, const char*> binaries[] = {
      {"Add", "add"},     {"Sub", "subtract"}, {"Mul", "multiply"}, {"Div", "divide"},     {"Equal", "equal"},
      {"Less", "less"},   {"Greater", "greater"}, {"LessOrEqual", "less_equal"}, {"GreaterOrEqual", "greater_equal"},
      {"And", "logical_and"}, {"Or", "logical_or"}, {"Xor", "logical_xor"}, {"BitwiseAnd", "bitwise_and"}, {"BitwiseOr", "bitwise_or"},
      {"BitwiseXor", "bitwise_xor"}};
  for (auto [onnxName, relaxName] : binaries) onnxOp(onnxName, {}, binary(relaxName));

  onnxOp("Pow", {}, [](NodeCtx& c) -> Outputs {
    DataType t = c.dtype(0);
    Expr e = c.x(1);
    if (t.isFloat()) return {{c.op("power", {ex(c.x(0)), ex(c.cast(e, t))})}};
    // Integer powers are computed in double and converted back (exact for every value that fits).
    Expr r = c.op("power", {ex(c.cast(c.x(0), DataType::float64())), ex(c.cast(e, DataType::float64()))});
    return {{c.cast(r, t)}};
  });
  onnxOp("Mod", {}, [](NodeCtx& c) -> Outputs {
    // fmod=0: the result takes the divisor's sign (Python %); fmod=1: C fmod, the dividend's sign.
    bool fmod = c.i("fmod", 0) != 0;
    if (!fmod && c.dtype(0).isFloat()) fail("Mod with fmod=0 on floating-point inputs is invalid (set fmod=1)");
    return {{c.op(fmod ? "mod" : "floor_mod", {ex(c.x(0)), ex(c.x(1))})}};
  });
  onnxOp("BitShift", {}, [](NodeCtx& c) -> Outputs {
    std::string dir = c.s("direction", "");
    if (dir != "LEFT" && dir != "RIGHT") fail("BitShift needs direction LEFT or RIGHT, got '" + dir + "'");
    return {{c.op(dir == "LEFT" ? "left_shift" : "right_shift", {ex(c.x(0)), ex(c.x(1))})}};
  });

  onnxOp("Max", {}, [](NodeCtx& c) -> Outputs { return {{fold(c, "maximum")}}; });
  onnxOp("Min", {}, [](NodeCtx& c) -> Outputs { return {{fold(c, "minimum")}}; });
  onnxOp("Sum", {}, [](NodeCtx& c) -> Outputs { return {{fold(c, "add")}}; });
  onnxOp("Mean", {}, [](NodeCtx& c) -> Outputs { return {{c.op("divide", {ex(fold(c, "add")), ex(sc(c, double(c.numInputs())))})}}; });

  onnxOp("Reciprocal", {}, [](NodeCtx& c) -> Outputs { return {{c.op("divide", {ex(sc(c, 1)), ex(c.x(0))})}}; });
  onnxOp("Identity", {}, [](NodeCtx& c) -> Outputs { return {c.in(0)}; });
  onnxOp("IsInf", {}, [](NodeCtx& c) -> Outputs {
    Expr inf = c.op("isinf", {ex(c.x(0))});
    bool neg = c.i("detect_negative", 1), pos = c.i("detect_positive", 1);
    if (neg && pos) return {{inf}};
    Expr side = c.op(pos ? "greater" : "less", {ex(c.x(0)), ex(sc(c, 0))});
    if (!neg && !pos) return {{c.op("logical_and", {ex(inf), ex(c.op("logical_not", {ex(side)}))})}};
    return {{c.op("logical_and", {ex(inf), ex(side)})}};
  });

  // Activations, as ONNX defines them (their function bodies where they have one).
  onnxOp("LeakyRelu", {}, [](NodeCtx& c) -> Outputs { return {{c.op("nn.leakyrelu", {ex(c.x(0))}, {{"alpha", f(c.f("alpha", 0.01))}})}}; });
  onnxOp("Elu", {}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0);
    return {{where(c, c.op("greater", {ex(x), ex(sc(c, 0))}), x, expm1Scaled(c, x, c.f("alpha", 1.0)))}};
  });
  onnxOp("Selu", {}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0);
    double alpha = c.f("alpha", 1.67326319217681884765625), gamma = c.f("gamma", 1.05070102214813232421875);
    Expr e = where(c, c.op("greater", {ex(x), ex(sc(c, 0))}), x, expm1Scaled(c, x, alpha));
    return {{mul(c, e, sc(c, gamma))}};
  });
  onnxOp("Celu", {}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0);
    double alpha = c.f("alpha", 1.0);
    Expr neg = expm1Scaled(c, c.op("divide", {ex(x), ex(sc(c, alpha))}), alpha);
    return {{addE(c, c.op("maximum", {ex(x), ex(sc(c, 0))}), c.op("minimum", {ex(neg), ex(sc(c, 0))}))}};
  });
  onnxOp("ThresholdedRelu", {}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0);
    return {{where(c, c.op("greater", {ex(x), ex(sc(c, c.f("alpha", 1.0)))}), x, sc(c, 0))}};
  });
  auto hardSigmoid = [](NodeCtx& c, Expr x, double alpha, double beta) {
    Expr lin = addE(c, mul(c, x, sc(c, alpha)), sc(c, beta));
    return c.op("minimum", {ex(c.op("maximum", {ex(lin), ex(sc(c, 0))})), ex(sc(c, 1))});
  };
  onnxOp("HardSigmoid", {}, [hardSigmoid](NodeCtx& c) -> Outputs { return {{hardSigmoid(c, c.x(0), c.f("alpha", 0.2), c.f("beta", 0.5))}}; });
  onnxOp("HardSwish", {}, [hardSigmoid](NodeCtx& c) -> Outputs { return {{mul(c, c.x(0), hardSigmoid(c, c.x(0), 1.0 / 6, 0.5))}}; });
  onnxOp("Softplus", {}, [](NodeCtx& c) -> Outputs { return {{softplus(c, c.x(0))}}; });
  onnxOp("Softsign", {}, [](NodeCtx& c) -> Outputs {
    return {{c.op("divide", {ex(c.x(0)), ex(addE(c, c.op("abs", {ex(c.x(0))}), sc(c, 1)))})}};
  });
  onnxOp("Mish", {}, [](NodeCtx& c) -> Outputs { return {{mul(c, c.x(0), c.op("tanh", {ex(softplus(c, c.x(0)))}))}}; });
  onnxOp("Gelu", {}, [](NodeCtx& c) -> Outputs {
    std::string approx = c.s("approximate", "none");
    if (approx != "none" && approx != "tanh") fail("Gelu approximate must be 'none' or 'tanh', got '" + approx + "'");
    return {{c.op(approx == "tanh" ? "nn.gelu_tanh" : "nn.gelu", {ex(c.x(0))})}};
  });
  onnxOp("PRelu", {}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0), slope = c.x(1);
    // A 1-D slope of one value per channel (what exporters write, and what PRelu meant before
    // opset 7) applies along dim 1, not the last dim.
    int64_t r = c.ndim(0);
    if (c.ndim(1) == 1 && r > 2) {
      auto sd = c.dim(1, 0).as<IntImm>();
      auto ch = c.dim(0, 1).as<IntImm>();
      auto last = c.dim(0, r - 1).as<IntImm>();
      if (sd && ch && sd->value == ch->value && sd->value != 1 && !(last && last->value == sd->value && c.since >= 7)) {
        std::vector<int64_t> axes;
        for (int64_t k = 1; k + 1 < r; ++k) axes.push_back(k);
        slope = c.op("expand_dims", {ex(slope)}, {{"axis", ints(axes)}});
      }
    }
    return {{where(c, c.op("less", {ex(x), ex(sc(c, 0))}), mul(c, x, slope), x)}};
  });
  onnxOp("Shrink", {}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0);
    double lambd = c.f("lambd", 0.5), bias = c.f("bias", 0.0);
    Expr below = c.op("less", {ex(x), ex(sc(c, -lambd))});
    Expr above = c.op("greater", {ex(x), ex(sc(c, lambd))});
    Expr hi = where(c, above, c.op("subtract", {ex(x), ex(sc(c, bias))}), sc(c, 0));
    return {{where(c, below, addE(c, x, sc(c, bias)), hi)}};
  });
  onnxOp("Clip", {}, [](NodeCtx& c) -> Outputs {
    // Opset < 11: bounds are attributes; later they are optional 0-d inputs.
    Expr x = c.x(0);
    if (c.since < 11) {
      if (c.hasAttr("min")) x = c.op("maximum", {ex(x), ex(sc(c, c.f("min", 0)))});
      if (c.hasAttr("max")) x = c.op("minimum", {ex(x), ex(sc(c, c.f("max", 0)))});
      return {{x}};
    }
    if (c.has(1)) x = c.op("maximum", {ex(x), ex(c.x(1))});
    if (c.has(2)) x = c.op("minimum", {ex(x), ex(c.x(2))});
    return {{x}};
  });
}

}  // namespace rlx::onnx
