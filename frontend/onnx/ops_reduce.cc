// Reductions and their relatives: Reduce* (axes as an attribute or, from opset 13/18, an input),
// ArgMax/ArgMin (select_last_index), CumSum, Softmax/LogSoftmax/Hardmax (2-D coercion before opset
// 13), TopK.
#include <tuple>

#include "frontend/onnx/converter.h"
#include "ir/arith.h"

namespace rlx::onnx {

namespace {

// How each Reduce op is computed: a pre-map of the input, the Relax reduction, a post-map.
struct ReduceSpec {
  const char* onnx;
  int axesInputSince;  // the opset at which axes became an input
  const char* reduce;
  std::function<Expr(NodeCtx&, Expr)> pre, post;
};

Converter reduceConverter(ReduceSpec spec) {
  return [spec](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    std::optional<std::vector<int64_t>> axes;
    if (c.since >= spec.axesInputSince) {
      if (c.has(1)) axes = c.requireInts(1, "axes");
    } else {
      axes = c.intsOpt("axes");
    }
    if (axes && axes->empty()) axes.reset();
    bool keep = c.i("keepdims", 1) != 0;
    if (!axes && c.since >= spec.axesInputSince && c.i("noop_with_empty_axes", 0)) return {c.in(0)};
    Expr x = spec.pre ? spec.pre(c, c.x(0)) : c.x(0);
    KwArgs kw;
    if (axes) {
      std::vector<int64_t> a;
      for (auto v : *axes) a.push_back(normAxis(v, r));
      std::sort(a.begin(), a.end());
      kw.push_back({"axis", ints(a)});
    }
    kw.push_back({"keepdims", b(keep)});
    Expr y = c.op(spec.reduce, {ex(x)}, std::move(kw));
    return {{spec.post ? spec.post(c, y) : y}};
  };
}

Expr unaryOp(NodeCtx& c, const char* op, Expr x) { return c.op(op, {ex(x)}); }

// Softmax-like ops before opset 13 flatten the input to 2-D at `axis`, work on rows, reshape back.
Expr coerced2D(NodeCtx& c, const std::function<Expr(Expr, int64_t)>& body) {
  int64_t r = c.ndim(0);
  if (c.since >= 13) return body(c.x(0), normAxis(c.i("axis", -1), r));
  int64_t axis = normAxis(c.i("axis", 1), std::max<int64_t>(r, 1));
  if (axis == r - 1) return body(c.x(0), axis);
  auto dims = c.dims(0);
  PrimExpr a = intImm(1), rest = intImm(1);
  for (int64_t k = 0; k < r; ++k) (k < axis ? a : rest) = mul(k < axis ? a : rest, dims[size_t(k)]);
  Expr flat = c.op("reshape", {ex(c.x(0)), ex(shapeExpr({simplify(a), simplify(rest)}))});
  Expr y = body(flat, 1);
  return c.op("reshape", {ex(y), ex(shapeExpr(dims))});
}

}  // namespace

void registerReduceConverters() {
  auto sq = [](NodeCtx& c, Expr x) { return c.op("multiply", {ex(x), ex(x)}); };
  const ReduceSpec specs[] = {
      {"ReduceSum", 13, "sum", nullptr, nullptr},
      {"ReduceMean", 18, "mean", nullptr, nullptr},
      {"ReduceMax", 18, "max", nullptr, nullptr},
      {"ReduceMin", 18, "min", nullptr, nullptr},
      {"ReduceProd", 18, "prod", nullptr, nullptr},
      {"ReduceL1", 18, "sum", [](NodeCtx& c, Expr x) { return unaryOp(c, "abs", x); }, nullptr},
      {"ReduceL2", 18, "sum", sq, [](NodeCtx& c, Expr x) { return unaryOp(c, "sqrt", x); }},
      {"ReduceSumSquare", 18, "sum", sq, nullptr},
      {"ReduceLogSum", 18, "sum", nullptr, [](NodeCtx& c, Expr x) { return unaryOp(c, "log", x); }},
      {"ReduceLogSumExp", 18, "sum", [](NodeCtx& c, Expr x) { return unaryOp(c, "exp", x); }, [](NodeCtx& c, Expr x) { return unaryOp(c, "log", x); }},
  };
  for (auto& spec : specs) onnxOp(spec.onnx, {}, reduceConverter(spec));

  for (bool isMax : {true, false}) {
    onnxOp(isMax ? "ArgMax" : "ArgMin", {}, [isMax](NodeCtx& c) -> Outputs {
      int64_t r = c.ndim(0);
      int64_t axis = normAxis(c.i("axis", 0), r);
      bool keep = c.i("keepdims", 1) != 0;
      const char* op = isMax ? "argmax" : "argmin";
      if (!c.i("select_last_index", 0)) return {{c.op(op, {ex(c.x(0))}, {{"axis", i(axis)}, {"keepdims", b(keep)}})}};
      // The last extreme index: search the reversed axis, then map the index back.
      auto d = c.dim(0, axis);
      Expr flipped = c.op("flip", {ex(c.x(0))}, {{"axis", i(axis)}});
      Expr idx = c.op(op, {ex(flipped)}, {{"axis", i(axis)}, {"keepdims", b(keep)}});
      auto di = d.as<IntImm>();
      if (!di) fail("select_last_index on a symbolic dim is not supported");
      return {{c.op("subtract", {ex(c.scalar(double(di->value - 1), DataType::int64())), ex(idx)})}};
    });
  }
  // CumSum and CumProd (opset 26): a reverse scan is the forward one between two flips.
  for (auto [onnxName, relaxName, versions] : {std::tuple{"CumSum", "cumsum", std::vector<int>{}}, std::tuple{"CumProd", "cumprod", std::vector<int>{26}}}) {
    onnxOp(onnxName, versions, [relaxName](NodeCtx& c) -> Outputs {
      int64_t r = c.ndim(0);
      auto ax = c.requireInts(1, "axis");
      if (ax.size() != 1) fail("axis must hold one value");
      int64_t axis = normAxis(ax[0], r);
      bool exclusive = c.i("exclusive", 0), reverse = c.i("reverse", 0);
      Expr x = c.x(0);
      if (reverse) x = c.op("flip", {ex(x)}, {{"axis", i(axis)}});
      Expr y = c.op(relaxName, {ex(x)}, {{"axis", i(axis)}, {"exclusive", b(exclusive)}});
      if (reverse) y = c.op("flip", {ex(y)}, {{"axis", i(axis)}});
      return {{y}};
    });
  }
  onnxOp("Softmax", {}, [](NodeCtx& c) -> Outputs { return {{coerced2D(c, [&](Expr x, int64_t a) { return c.op("nn.softmax", {ex(x)}, {{"axis", i(a)}}); })}}; });
  onnxOp("LogSoftmax", {}, [](NodeCtx& c) -> Outputs { return {{coerced2D(c, [&](Expr x, int64_t a) { return c.op("nn.log_softmax", {ex(x)}, {{"axis", i(a)}}); })}}; });
  onnxOp("Hardmax", {}, [](NodeCtx& c) -> Outputs {
    return {{coerced2D(c, [&](Expr x, int64_t a) {
      // 1 where the first maximum of the axis is, 0 elsewhere: one_hot of argmax, moved to `a`.
      auto t = tensorInfo(x);
      int64_t rank = t->ndim;
      Expr am = c.op("argmax", {ex(x)}, {{"axis", i(a)}, {"keepdims", b(false)}});
      auto d = (*t->dims())[size_t(a)].as<IntImm>();
      if (!d) fail("Hardmax over a symbolic dim is not supported");
      Expr oh = c.op("one_hot", {ex(am), primValue(floatImm(1.0, t->dtype)), primValue(floatImm(0.0, t->dtype))}, {{"depth", i(d->value)}, {"axis", i(a == rank - 1 ? -1 : a)}});
      return oh;
    })}};
  });
  onnxOp("TopK", {1, 10, 11, 24}, [](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    int64_t axis = normAxis(c.i("axis", -1), r);
    int64_t k = c.since >= 10 ? c.requireInts(1, "K").at(0) : c.i("k", 0);
    bool largest = c.since >= 11 ? c.i("largest", 1) != 0 : true;
    Expr t = c.op("topk", {ex(c.x(0))}, {{"k", i(k)}, {"axis", i(axis)}, {"ret_type", s("both")}, {"largest", b(largest)}, {"dtype", s("int64")}});
    return {{c.emit(make<TupleGetItem>(t, 0))}, {c.emit(make<TupleGetItem>(t, 1))}};
  });
}

}  // namespace rlx::onnx
