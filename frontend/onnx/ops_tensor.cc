// Indexing and data-movement ONNX ops: Gather/GatherElements/GatherND, Scatter*/ScatterND, Where,
// Trilu, EyeLike, OneHot, DepthToSpace/SpaceToDepth, Pad, Resize/Upsample. Negative indices wrap, as
// ONNX defines them (TVM got this wrong for years).
#include <cmath>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/shape_arith.h"
#include "frontend/onnx/tensor.h"
#include "ir/arith.h"

namespace rlx::onnx {

namespace {

// The extent of a dim as a 0-d tensor of dtype t (a constant, or read from the shape at run time).
Expr dimScalar(NodeCtx& c, size_t input, int64_t axis, DataType t) {
  PrimExpr d = c.dim(input, axis);
  if (auto imm = d.as<IntImm>()) return c.scalar(double(imm->value), t);
  Expr v = c.op("shape_to_tensor", {ex(shapeExpr({d}))});
  return c.cast(c.op("squeeze", {ex(v)}, {{"axis", ints({0})}}), t);
}

bool allNonNegative(const Expr& idx) {
  auto k = idx.as<Constant>();
  if (!k) return false;
  for (int64_t e = 0; e < k->data->numel(); ++e)
    if (k->data->getInt(e) < 0) return false;
  return true;
}

// idx + extent where idx < 0 (extent: a scalar of the index dtype); constant indices that are all
// non-negative come back as they are.
Expr wrapNegative(NodeCtx& c, Expr idx, Expr extent) {
  if (allNonNegative(idx)) return idx;
  DataType t = tensorInfo(idx)->dtype;
  Expr neg = c.op("less", {ex(idx), ex(c.scalar(0, t))});
  return c.op("where", {ex(neg), ex(c.op("add", {ex(idx), ex(extent)})), ex(idx)});
}

// Wrapped by the extent of dim `axis` of input `input`, read only when needed.
Expr wrapNegative(NodeCtx& c, Expr idx, size_t input, int64_t axis) {
  if (allNonNegative(idx)) return idx;
  return wrapNegative(c, idx, dimScalar(c, input, axis, tensorInfo(idx)->dtype));
}

// DepthToSpace / SpaceToDepth as reshape, transpose, reshape.
Expr blockMove(NodeCtx& c, bool toSpace) {
  auto dims = c.dims(0);
  if (dims.size() != 4) fail("the input must be 4-D (NCHW)");
  int64_t bs = c.i("blocksize", 0);
  if (bs <= 0) fail("blocksize must be positive");
  std::vector<int64_t> d;
  for (auto& x : dims) {
    auto imm = x.as<IntImm>();
    if (!imm) fail("symbolic dims are not supported");
    d.push_back(imm->value);
  }
  int64_t n = d[0], ch = d[1], h = d[2], w = d[3];
  auto shape = [](std::vector<int64_t> v) {
    std::vector<PrimExpr> out;
    for (auto x : v) out.push_back(intImm(x));
    return shapeExpr(out);
  };
  Expr x = c.x(0), t;
  if (toSpace) {
    bool crd = c.s("mode", "DCR") == "CRD";
    int64_t oc = ch / (bs * bs);
    t = crd ? c.op("reshape", {ex(x), ex(shape({n, oc, bs, bs, h, w}))}) : c.op("reshape", {ex(x), ex(shape({n, bs, bs, oc, h, w}))});
    t = c.op("permute_dims", {ex(t)}, {{"axes", ints(crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2})}});
    return c.op("reshape", {ex(t), ex(shape({n, oc, h * bs, w * bs}))});
  }
  t = c.op("reshape", {ex(x), ex(shape({n, ch, h / bs, bs, w / bs, bs}))});
  t = c.op("permute_dims", {ex(t)}, {{"axes", ints({0, 3, 5, 1, 2, 4})}});
  return c.op("reshape", {ex(t), ex(shape({n, ch * bs * bs, h / bs, w / bs}))});
}

}  // namespace

void registerTensorConverters() {
  onnxOp("Gather", {}, [](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    int64_t axis = normAxis(c.i("axis", 0), r);
    Expr idx = c.x(1);
    // Gathering from a shape value with constant indices keeps the elements known.
    auto idxs = c.constInts(1);
    if (r == 1 && c.in(0).elems && idxs && c.ndim(1) <= 1) {
      std::vector<PrimExpr> picked;
      int64_t n = int64_t(c.in(0).elems->size());
      for (auto k : *idxs) {
        if (k < -n || k >= n) fail("index " + std::to_string(k) + " is out of range");
        picked.push_back((*c.in(0).elems)[size_t(k < 0 ? k + n : k)]);
      }
      Expr out = c.op("take", {ex(c.x(0)), ex(wrapNegative(c, idx, 0, 0))}, {{"axis", i(0)}});
      return {{out, picked, nullptr}};  // a 0-d index: one element, as Unsqueeze and Squeeze carry it
    }
    idx = wrapNegative(c, idx, 0, axis);
    return {{c.op("take", {ex(c.x(0)), ex(idx)}, {{"axis", i(axis)}})}};
  });
  onnxOp("GatherElements", {}, [](NodeCtx& c) -> Outputs {
    int64_t axis = normAxis(c.i("axis", 0), c.ndim(0));
    Expr idx = wrapNegative(c, c.x(1), 0, axis);
    return {{c.op("gather_elements", {ex(c.x(0)), ex(idx)}, {{"axis", i(axis)}})}};
  });
  onnxOp("GatherND", {}, [](NodeCtx& c) -> Outputs {
    return {{c.op("gather_nd", {ex(c.x(0)), ex(c.x(1))}, {{"batch_dims", i(c.i("batch_dims", 0))}})}};
  });
  auto scatterElements = [](NodeCtx& c) -> Outputs {
    int64_t axis = normAxis(c.i("axis", 0), c.ndim(0));
    std::string reduction = c.s("reduction", "none");
    if (reduction == "none") reduction = "update";
    Expr idx = wrapNegative(c, c.x(1), 0, axis);
    return {{c.op("scatter_elements", {ex(c.x(0)), ex(idx), ex(c.x(2))}, {{"axis", i(axis)}, {"reduction", s(reduction)}})}};
  };
  onnxOp("ScatterElements", {}, scatterElements);
  onnxOp("Scatter", {}, scatterElements);
  onnxOp("ScatterND", {}, [](NodeCtx& c) -> Outputs {
    std::string reduction = c.s("reduction", "none");
    if (reduction == "none") reduction = "update";
    return {{c.op("scatter_nd", {ex(c.x(0)), ex(c.x(1)), ex(c.x(2))}, {{"reduction", s(reduction)}})}};
  });
  onnxOp("Where", {}, [](NodeCtx& c) -> Outputs {
    if (auto folded = foldShapeWhere(c)) return {*folded};
    return {{c.op("where", {ex(c.x(0)), ex(c.x(1)), ex(c.x(2))})}};
  });
  onnxOp("Trilu", {}, [](NodeCtx& c) -> Outputs {
    int64_t k = c.has(1) ? c.requireInts(1, "k").at(0) : 0;
    return {{c.op(c.i("upper", 1) ? "triu" : "tril", {ex(c.x(0)), primValue(intImm(k))})}};
  });
  onnxOp("EyeLike", {}, [](NodeCtx& c) -> Outputs {
    DataType t = c.dtype(0);
    if (c.hasAttr("dtype")) {
      auto d = dtypeOf(int32_t(c.i("dtype", 1)));
      if (!d) fail(d.error().message);
      t = *d;
    }
    return {{c.op("eye_like", {ex(c.x(0)), primValue(intImm(c.i("k", 0)))}, {{"dtype", s(t.str())}})}};
  });
  onnxOp("OneHot", {}, [](NodeCtx& c) -> Outputs {
    auto depth = c.constScalar(1);
    NDArrayRef values = c.constant(2);
    if (!depth || !values || values->numel() != 2) fail("depth and values must be constants");
    int64_t d = int64_t(*depth);
    DataType vt = values->dtype;
    auto prim = [&](int64_t k) { return vt.isFloat() ? floatImm(values->getDouble(k), vt) : intImm(values->getInt(k), vt); };
    Expr idx = c.x(0);
    if (!c.dtype(0).isInt()) idx = c.cast(idx, DataType::int64());
    idx = wrapNegative(c, idx, c.scalar(double(d), tensorInfo(idx)->dtype));
    return {{c.op("one_hot", {ex(idx), primValue(prim(1)), primValue(prim(0))}, {{"depth", i(d)}, {"axis", i(c.i("axis", -1))}})}};
  });
  onnxOp("DepthToSpace", {}, [](NodeCtx& c) -> Outputs { return {{blockMove(c, true)}}; });
  onnxOp("SpaceToDepth", {}, [](NodeCtx& c) -> Outputs { return {{blockMove(c, false)}}; });
  onnxOp("Pad", {1, 2, 11, 13, 18, 19, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    if (c.since < 2) fail("Pad version 1 is not supported");
    int64_t r = c.ndim(0);
    std::string mode = c.s("mode", "constant");
    std::vector<int64_t> pads;
    double value = 0;
    std::vector<int64_t> axes;
    if (c.since < 11) {
      pads = c.ints("pads");
      value = c.f("value", 0.0);
    } else {
      pads = c.requireInts(1, "pads");
      if (c.has(2)) {
        auto v = c.constScalar(2);
        if (!v) fail("constant_value (input 2, '" + c.node.input(2) + "') must be a constant; rlx cannot use a value computed at run time here");
        value = *v;
      }
      if (c.has(3)) axes = c.requireInts(3, "axes");
    }
    if (axes.empty())
      for (int64_t k = 0; k < r; ++k) axes.push_back(k);
    if (pads.size() != 2 * axes.size()) fail("pads must have twice as many values as there are padded axes");
    // Relax's pad_width is (before, after) per dim; ONNX lists all begins, then all ends.
    std::vector<int64_t> width(size_t(2 * r), 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t a = normAxis(axes[k], r);
      width[size_t(2 * a)] = pads[k];
      width[size_t(2 * a + 1)] = pads[k + axes.size()];
    }
    for (auto w : width)
      if (w < 0) fail("negative pads (cropping) are not supported");
    // Relax's nn.pad names ONNX's edge and wrap modes as torch does: replicate and circular.
    std::string relaxMode = mode == "edge" ? "replicate" : mode == "wrap" ? "circular" : mode;
    if (relaxMode != "constant" && relaxMode != "reflect" && relaxMode != "replicate" && relaxMode != "circular") fail("pad mode '" + mode + "' is not supported");
    if (mode == "reflect") {
      // One reflection (the edge not repeated) must cover the padding, as in TVM's reflect_pad.
      auto d = c.dims(0);
      for (int64_t a = 0; a < r; ++a) {
        auto size = d[size_t(a)].as<IntImm>();
        int64_t lo = width[size_t(2 * a)], hi = width[size_t(2 * a + 1)], most = lo > hi ? lo : hi;
        if (most > 0 && size && most >= size->value) fail("reflect pads (" + std::to_string(most) + ") must be smaller than the padded dim (" + std::to_string(size->value) + ")");
      }
    }
    return {{c.op("nn.pad", {ex(c.x(0))}, {{"pad_width", ints(width)}, {"pad_value", f(value)}, {"pad_mode", s(relaxMode)}})}};
  });
}

}  // namespace rlx::onnx
