// ONNX ops whose output shapes depend on input values: NonZero, Compress, Unique,
// NonMaxSuppression. They become R.nonzero / R.unique / R.vision.all_class_non_max_suppression
// (run on the host, as TVM's relax.run.* functions), and the unknown sizes are given fresh size
// vars by a match_cast so that shapes keep flowing through later ops.
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "ir/arith.h"

namespace rlx::onnx {

namespace {

// `e` cast to a tensor of `dims` (fresh vars where the size is data-dependent).
Expr withDims(NodeCtx& c, const Expr& e, const std::vector<PrimExpr>& dims, DataType dtype) {
  auto bound = c.graph().builder().emitMatchCast(e, tensorSInfo(dims, dtype), "", {});
  if (!bound) fail(bound.error().message);
  return *bound;
}

PyValue flag(bool v) { return primValue(boolImm(v)); }

}  // namespace

void registerDataDependentConverters() {
  onnxOp("NonZero", {9, 13}, [](NodeCtx& c) -> Outputs {
    int64_t r = std::max<int64_t>(c.ndim(0), 1);  // a 0-d input counts as 1-D, as numpy's
    Expr hits = c.op("nonzero", {ex(c.x(0))});
    return {{withDims(c, hits, {intImm(r), c.graph().freshDim("nnz")}, DataType::int64())}};
  });
  onnxOp("Compress", {9, 11}, [](NodeCtx& c) -> Outputs {
    // The positions where the 1-D condition holds, taken along `axis` (of the flattened input
    // without one); a condition shorter than the axis selects among its first entries only.
    if (c.ndim(1) != 1) fail("the condition must be 1-D");
    Expr where = withDims(c, c.op("nonzero", {ex(c.x(1))}), {intImm(1), c.graph().freshDim("n")}, DataType::int64());
    Expr picked = c.op("squeeze", {ex(where)}, {{"axis", ints({0})}});
    Expr x = c.x(0);
    int64_t axis = 0;
    if (auto a = c.iOpt("axis")) {
      axis = *a < 0 ? *a + c.ndim(0) : *a;
      if (axis < 0 || axis >= c.ndim(0)) fail("axis out of range");
    } else {
      x = c.op("reshape", {ex(x), ex(shapeExpr({intImm(-1)}))});
    }
    return {{c.op("take", {ex(x), ex(picked)}, {{"axis", i(axis)}})}};
  });
  onnxOp("Unique", {11}, [](NodeCtx& c) -> Outputs {
    // Y, the first index of each unique item, the inverse map and the counts; items are
    // elements (no axis) or slices along `axis`.
    bool sorted = c.i("sorted", 1) != 0;
    std::vector<PyValue> args = {ex(c.x(0)), flag(sorted), flag(true), flag(true), flag(true)};
    auto dims = c.dims(0);
    std::optional<int64_t> axis;
    if (auto a = c.iOpt("axis")) {
      axis = *a < 0 ? *a + int64_t(dims.size()) : *a;
      if (*axis < 0 || *axis >= int64_t(dims.size())) fail("axis out of range");
      args.push_back(primValue(intImm(*axis)));
    }
    Expr all = c.op("unique", std::move(args));
    PrimExpr n = c.graph().freshDim("n");
    std::vector<PrimExpr> yDims = {n};
    PrimExpr items = intImm(1);
    if (axis) {
      yDims = dims;
      yDims[size_t(*axis)] = n;
      items = dims[size_t(*axis)];
    } else {
      for (auto& d : dims) items = mul(items, d);
    }
    auto part = [&](int k) { return c.emit(make<TupleGetItem>(all, k)); };
    Expr y = withDims(c, part(0), yDims, c.dtype(0));
    Expr first = withDims(c, part(1), {n}, DataType::int64());
    Expr inverse = withDims(c, part(2), {simplify(items)}, DataType::int64());
    Expr counts = withDims(c, part(3), {n}, DataType::int64());
    return {{y}, {first}, {inverse}, {counts}};
  });
  onnxOp("NonMaxSuppression", {10, 11}, [](NodeCtx& c) -> Outputs {
    // Boxes go to the kernel as (y1, x1, y2, x2) with y1 <= y2, x1 <= x2: ONNX allows either
    // diagonal, or centers and sizes (center_point_box = 1). The IoU does not depend on which of
    // the two axes comes first.
    DataType t = c.dtype(0);
    auto coord = [&](int64_t k) { return c.op("strided_slice", {ex(c.x(0)), ints({2}), ints({k}), ints({k + 1})}); };
    Expr a0 = coord(0), a1 = coord(1), a2 = coord(2), a3 = coord(3);
    std::vector<Expr> corners;
    if (c.i("center_point_box", 0)) {
      Expr half = c.scalar(0.5, t);
      Expr hw = c.op("multiply", {ex(a2), ex(half)}), hh = c.op("multiply", {ex(a3), ex(half)});
      corners = {c.op("subtract", {ex(a1), ex(hh)}), c.op("subtract", {ex(a0), ex(hw)}), c.op("add", {ex(a1), ex(hh)}), c.op("add", {ex(a0), ex(hw)})};
    } else {
      corners = {c.op("minimum", {ex(a0), ex(a2)}), c.op("minimum", {ex(a1), ex(a3)}), c.op("maximum", {ex(a0), ex(a2)}), c.op("maximum", {ex(a1), ex(a3)})};
    }
    std::vector<Expr> fields(corners.begin(), corners.end());
    Expr boxes = c.op("concat", {ex(make<Tuple>(fields))}, {{"axis", i(2)}});
    Expr maxOut = c.has(2) ? c.x(2) : c.ints64({0});
    Expr iou = c.has(3) ? c.x(3) : c.scalar(0.0, DataType::float32());
    Expr scoreThr = c.has(4) ? c.x(4) : c.scalar(-std::numeric_limits<double>::infinity(), DataType::float32());
    Expr nms = c.op("vision.all_class_non_max_suppression", {ex(boxes), ex(c.x(1)), ex(maxOut), ex(iou), ex(scoreThr)}, {{"output_format", s("onnx")}});
    Expr selected = c.emit(make<TupleGetItem>(nms, 0));
    Expr count = c.emit(make<TupleGetItem>(nms, 1));
    // Only the first `count` rows are detections.
    Expr shape = c.graph().emitCall(makeCall("relax.tensor_to_shape", {count}));
    PrimExpr n = c.graph().freshDim("num_selected");
    auto bound = c.graph().builder().emitMatchCast(shape, make<ShapeSInfo>(std::vector<PrimExpr>{n}, 0), "", {});
    if (!bound) fail(bound.error().message);
    PyValue end;
    end.kind = PyValue::List;
    end.items = {primValue(n)};
    return {{c.op("strided_slice", {ex(selected), ints({0}), ints({0}), end})}};
  });
}

}  // namespace rlx::onnx
