// Shape and layout ONNX ops: Shape/Size, Reshape/Flatten/Squeeze/Unsqueeze/Transpose, Concat/Split/
// Slice, Expand/Tile, ConstantOfShape/Range/Constant, Cast/CastLike. Shape values (1-D int64 tensors
// whose elements are known ints or symbolic dims) flow through these without a run-time shape.
#include <cmath>
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/tensor.h"
#include "ir/arith.h"
#include "ir/minifloat.h"

namespace rlx::onnx {

Expr castAs(NodeCtx& c, const Expr& x, DataType t, bool saturate, const std::string& roundMode) {
  Expr y = c.cast(x, t);
  const MiniFloatFormat* f = miniFloatFormat(t);
  auto xi = tensorInfo(x);
  if (!f || t.code == DataType::Float4E2M1FN || !xi || xi->dtype == t) return y;  // float4 always saturates
  DataType f32 = DataType::float32();
  // Tests on |x| in float32 (exact for the 16-bit floats; integers only need their magnitude).
  Expr xf = xi->dtype == f32 || xi->dtype == DataType::float64() ? x : c.cast(x, f32);
  DataType xt = tensorInfo(xf)->dtype;
  auto where = [&](Expr cond, Expr a, Expr b) { return c.op("where", {ex(cond), ex(a), ex(b)}); };
  auto signed_ = [&](double v) { return where(c.op("greater", {ex(xf), ex(c.scalar(0, xt))}), c.scalar(v, t), c.scalar(-v, t)); };
  if (t.code == DataType::Float8E8M0FNU) {
    // R.astype rounds up; "down" halves a power of two that went past |x|, "nearest" then doubles
    // it again when |x| is at least 1.5 of it (ties up, as ONNX's reference).
    if (roundMode != "up" && roundMode != "down" && roundMode != "nearest") fail("round_mode '" + roundMode + "' is not one of up, down, nearest");
    Expr a = c.op("abs", {ex(c.cast(x, f32))});
    if (roundMode != "up") {
      Expr up = c.cast(y, f32);
      Expr down = where(c.op("greater", {ex(up), ex(a)}), c.op("multiply", {ex(up), ex(c.scalar(0.5, f32))}), up);
      Expr r = down;
      if (roundMode == "nearest") {
        Expr twice = c.op("multiply", {ex(down), ex(c.scalar(2, f32))});
        if (saturate) twice = c.op("minimum", {ex(twice), ex(c.scalar(f->maxFinite, f32))});  // 2^127 stays; 2^128 would be NaN
        r = where(c.op("greater_equal", {ex(a), ex(c.op("multiply", {ex(down), ex(c.scalar(1.5, f32))}))}), twice, down);
      }
      return c.cast(r, t);  // a power of two: exact
    }
    if (saturate) return y;
    return where(c.op("greater", {ex(a), ex(c.scalar(f->overflowBound, f32))}), c.scalar(std::numeric_limits<double>::quiet_NaN(), t), y);
  }
  if (saturate) {
    // R.astype keeps e5m2's infinities; ONNX's saturate=1 maps them to ±max as well.
    if (!f->hasInf) return y;
    return where(c.op("isinf", {ex(xf)}), signed_(f->maxFinite), y);
  }
  // saturate=0: values whose rounding goes past the largest become inf (e5m2) or NaN.
  Expr a = c.op("abs", {ex(xf)});
  Expr past = c.op(f->overflowInclusive ? "greater_equal" : "greater", {ex(a), ex(c.scalar(f->overflowBound, xt))});
  // With x's sign, as ONNX's table: -inf and -NaN in e5m2 and e4m3fn (the fnuz have one NaN).
  Expr special = signed_(f->hasInf ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN());
  return where(past, special, y);
}

namespace {

PyValue intList(const std::vector<int64_t>& v) { return ints(v); }

// The axes of an op that moved them from an attribute to an input (Squeeze/Unsqueeze at 13, ...).
std::optional<std::vector<int64_t>> axesOf(NodeCtx& c, int inputSince, size_t input) {
  if (c.since >= inputSince) {
    if (!c.has(input)) return std::nullopt;
    return c.requireInts(input, "axes");
  }
  return c.intsOpt("axes");
}

// ONNX Slice bounds made concrete for a dim of extent d (clamped as the spec says).
void clampSlice(int64_t d, int64_t step, int64_t& b, int64_t& e) {
  if (b < 0) b += d;
  if (e < 0) e += d;
  if (step > 0) {
    b = std::clamp<int64_t>(b, 0, d);
    e = std::clamp<int64_t>(e, 0, d);
  } else {
    b = std::clamp<int64_t>(b, 0, d - 1);
    e = std::clamp<int64_t>(e, -1, d - 1);
  }
}

// Slice with starts or ends known only at run time: the bounds are clamped as ONNX says with tensor
// arithmetic, then read back as size vars (start and length per axis, both >= 0 once clamped), so
// the result has a symbolic shape and the kernel a run-time offset.
Expr runTimeSlice(NodeCtx& c, std::vector<int64_t> axes, std::vector<int64_t> steps) {
  auto count = c.dim(1, 0).as<IntImm>();
  if (!count) fail("the number of starts must be known at import");
  size_t n = size_t(count->value);
  if (axes.empty())
    for (size_t k = 0; k < n; ++k) axes.push_back(int64_t(k));
  if (steps.empty()) steps.assign(n, 1);
  if (axes.size() != n || steps.size() != n) fail("starts, ends, axes and steps must have the same length");
  int64_t r = c.ndim(0);
  auto in = c.dims(0);
  std::vector<PrimExpr> dims;
  std::vector<int64_t> backwards, sign, magnitude;
  for (size_t k = 0; k < n; ++k) {
    axes[k] = normAxis(axes[k], r);
    if (steps[k] == 0) fail("a slice step is 0");
    dims.push_back(in[size_t(axes[k])]);
    backwards.push_back(steps[k] < 0 ? 1 : 0);
    sign.push_back(steps[k] < 0 ? -1 : 1);
    magnitude.push_back(std::abs(steps[k]));
  }
  auto i64 = DataType::int64();
  Expr d = shapeTensor(c, dims).expr;
  auto bin = [&](const char* op, Expr a, Expr b) { return c.op(op, {ex(std::move(a)), ex(std::move(b))}); };
  auto wrap = [&](Expr v) { return c.op("where", {ex(bin("less", v, c.scalar(0, i64))), ex(bin("add", v, d)), ex(v)}); };
  Expr back = c.ints64(backwards);
  Expr hi = bin("subtract", d, back);  // d, or d - 1 stepping backwards
  Expr start = bin("minimum", bin("maximum", wrap(c.cast(c.x(1), i64)), c.scalar(0, i64)), hi);
  Expr end = bin("minimum", bin("maximum", wrap(c.cast(c.x(2), i64)), c.op("negative", {ex(back)})), hi);
  Expr mag = c.ints64(magnitude);
  Expr span = bin("multiply", bin("subtract", end, start), c.ints64(sign));
  Expr length = bin("maximum", bin("floor_divide", bin("add", span, bin("subtract", mag, c.scalar(1, i64))), mag), c.scalar(0, i64));
  Expr both = c.op("concat", {ex(make<Tuple>(std::vector<Expr>{start, length}))}, {{"axis", i(0)}});
  Expr shape = c.graph().emitCall(makeCall("relax.tensor_to_shape", {both}));
  std::vector<PrimExpr> vars;
  for (size_t k = 0; k < 2 * n; ++k) vars.push_back(c.graph().freshDim(k < n ? "slice_start" : "slice_len"));
  auto bound = c.graph().builder().emitMatchCast(shape, make<ShapeSInfo>(vars, int(vars.size())), "", {});
  if (!bound) fail(bound.error().message);
  PyValue begin, stop;
  begin.kind = stop.kind = PyValue::List;
  for (size_t k = 0; k < n; ++k) {
    begin.items.push_back(primValue(vars[k]));
    stop.items.push_back(primValue(add(vars[k], mul(vars[n + k], intImm(steps[k])))));
  }
  return c.op("strided_slice", {ex(c.x(0)), intList(axes), begin, stop, intList(steps)}, {{"assume_inbound", build::b(true)}});
}

// A Slice whose starts and ends are known symbolically (shape values: dims and arithmetic on
// them), with positive steps: the bounds are clamped as ONNX clamps them, in PrimExpr arithmetic,
// so the result's extent stays an expression of the dims (min(seq, 512)). Null when some bound is
// only known at run time or its sign is unknown.
Expr symbolicSlice(NodeCtx& c, std::vector<int64_t> axes, std::vector<int64_t> steps) {
  auto st = c.knownValue(1), en = c.knownValue(2);
  if (!st || !en || st->size() != en->size()) return nullptr;
  size_t n = st->size();
  if (axes.empty())
    for (size_t k = 0; k < n; ++k) axes.push_back(int64_t(k));
  if (steps.empty()) steps.assign(n, 1);
  if (axes.size() != n || steps.size() != n) return nullptr;
  int64_t r = c.ndim(0);
  auto in = c.dims(0);
  PyValue begin, stop;
  begin.kind = stop.kind = PyValue::List;
  for (size_t k = 0; k < n; ++k) {
    if (steps[k] <= 0) return nullptr;
    axes[k] = normAxis(axes[k], r);
    PrimExpr d = in[size_t(axes[k])];
    // A bound in [0, d]: negative constants count from the end, anything else must be provably >= 0.
    auto clampBound = [&](const PrimExpr& v) -> PrimExpr {
      if (c.isRunTimeDim(v)) return PrimExpr();
      if (auto imm = v.as<IntImm>(); imm && imm->value < 0) return simplify(maxExpr(add(d, v), intImm(0)));
      if (!proveNonNegativeShape(v)) return PrimExpr();
      return simplify(minExpr(v, d));
    };
    PrimExpr b = clampBound((*st)[k]), e = clampBound((*en)[k]);
    if (!b || !e) return nullptr;
    begin.items.push_back(primValue(b));
    stop.items.push_back(primValue(proveNonNegativeShape(simplify(sub(e, b))) ? e : simplify(maxExpr(e, b))));
  }
  return c.op("strided_slice", {ex(c.x(0)), intList(axes), begin, stop, intList(steps)}, {{"assume_inbound", build::b(true)}});
}

}  // namespace

void registerShapeConverters() {
  onnxOp("Shape", {1, 13, 15, 19, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    auto dims = c.dims(0);
    int64_t r = int64_t(dims.size());
    int64_t start = c.since >= 15 ? c.i("start", 0) : 0, end = c.since >= 15 ? c.i("end", r) : r;
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, start, r);
    return {shapeTensor(c, std::vector<PrimExpr>(dims.begin() + start, dims.begin() + end))};
  });
  onnxOp("Size", {}, [](NodeCtx& c) -> Outputs {
    PrimExpr n = intImm(1);
    for (auto& d : c.dims(0)) n = mul(n, d);
    n = simplify(n);
    if (auto imm = n.as<IntImm>()) {
      auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{});
      a->setInt(0, imm->value);
      return {{c.constant(a)}};
    }
    return {{c.op("size", {ex(c.x(0))})}};
  });

  onnxOp("Reshape", {1, 5, 13, 14, 19, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    if (c.since < 5) fail("Reshape version 1 (shape as an attribute) is not supported");
    auto target = c.shapeValue(1);
    if (!target) fail("the target shape must be known at import time (a constant or a shape computed from known dims)");
    bool allowZero = c.since >= 14 && c.i("allowzero", 0);
    auto in = c.dims(0);
    std::vector<PrimExpr> dims;
    bool symbolicEntries = false;
    for (size_t k = 0; k < target->size(); ++k) {
      PrimExpr t = (*target)[k];
      auto imm = t.as<IntImm>();
      if (imm && imm->value == 0 && !allowZero) {
        if (k >= in.size()) fail("shape entry " + std::to_string(k) + " is 0 (copy) but the input has rank " + std::to_string(in.size()));
        dims.push_back(in[k]);
      } else if (c.isRunTimeDim(t)) {
        // An entry only known at run time may still be 0 (copy the input's dim) or -1 (infer):
        // both are decided by the shape function when the values arrive.
        symbolicEntries = true;
        dims.push_back(!allowZero && k < in.size() ? PrimExpr(make<Select>(binary(NodeKind::EQ, t, intImm(0)), in[k], t)) : t);
      } else {
        dims.push_back(t);
      }
    }
    if (symbolicEntries) {
      // Each entry's shape expression mentions every other: keep ranks sane (numpy's limit is 64).
      if (dims.size() > 32) fail("a target shape of " + std::to_string(dims.size()) + " entries known only at run time is not supported (at most 32)");
      PrimExpr numel = intImm(1);
      for (auto& d : in) numel = mul(numel, d);
      // The product of the other entries is the product of all with the -1 counted as 1.
      PrimExpr known = intImm(1);
      for (auto& d : dims) known = mul(known, make<Select>(binary(NodeKind::EQ, d, intImm(-1)), intImm(1), d));
      PrimExpr inferred = floordiv(numel, known);
      std::vector<PrimExpr> resolved = dims;
      for (size_t k = 0; k < dims.size(); ++k) {
        if (dims[k].as<IntImm>() && dims[k].as<IntImm>()->value != -1) continue;
        resolved[k] = dims[k].as<IntImm>() ? inferred : PrimExpr(make<Select>(binary(NodeKind::EQ, dims[k], intImm(-1)), inferred, dims[k]));
      }
      dims = resolved;
    }
    OValue out{c.op("reshape", {ex(c.x(0)), ex(shapeExpr(dims))})};
    // A shape value reshaped to rank 0 or 1 keeps its elements (same count, same order).
    if (c.in(0).elems && dims.size() <= 1) out.elems = c.in(0).elems;
    return {out};
  });
  onnxOp("Flatten", {}, [](NodeCtx& c) -> Outputs {
    auto in = c.dims(0);
    int64_t r = int64_t(in.size());
    int64_t axis = c.i("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis > r) fail("axis out of range");
    PrimExpr a = intImm(1), b = intImm(1);
    for (int64_t k = 0; k < r; ++k) (k < axis ? a : b) = mul(k < axis ? a : b, in[size_t(k)]);
    return {{c.op("reshape", {ex(c.x(0)), ex(shapeExpr({simplify(a), simplify(b)}))})}};
  });
  onnxOp("Squeeze", {1, 11, 13, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    auto axes = axesOf(c, 13, 1);
    if (!axes) return {{c.op("squeeze", {ex(c.x(0))})}};
    int64_t r = c.ndim(0);
    std::vector<int64_t> a;
    for (auto x : *axes) a.push_back(normAxis(x, r));
    OValue out{c.op("squeeze", {ex(c.x(0))}, {{"axis", intList(a)}})};
    if (c.in(0).elems) out.elems = c.in(0).elems;
    return {out};
  });
  onnxOp("Unsqueeze", {1, 11, 13, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    auto axes = axesOf(c, 13, 1);
    if (!axes) fail("Unsqueeze needs axes");
    int64_t r = c.ndim(0) + int64_t(axes->size());
    std::vector<int64_t> a;
    for (auto x : *axes) a.push_back(normAxis(x, r));
    std::sort(a.begin(), a.end());
    OValue out{c.op("expand_dims", {ex(c.x(0))}, {{"axis", intList(a)}})};
    if (c.in(0).elems && c.ndim(0) == 0) out.elems = c.in(0).elems;
    return {out};
  });
  onnxOp("Transpose", {}, [](NodeCtx& c) -> Outputs {
    auto perm = c.intsOpt("perm");
    if (!perm) return {{c.op("permute_dims", {ex(c.x(0))})}};
    return {{c.op("permute_dims", {ex(c.x(0))}, {{"axes", intList(*perm)}})}};
  });
  onnxOp("Concat", {}, [](NodeCtx& c) -> Outputs {
    std::vector<Expr> parts;
    std::optional<std::vector<PrimExpr>> elems = std::vector<PrimExpr>();
    for (size_t k = 0; k < c.numInputs(); ++k) {
      if (!c.has(k)) continue;
      parts.push_back(c.x(k));
      auto sv = c.tensor(k).ndim == 1 ? c.shapeValue(k) : std::nullopt;
      if (sv && elems) elems->insert(elems->end(), sv->begin(), sv->end());
      else elems.reset();
    }
    int64_t axis = normAxis(c.i("axis", 0), c.ndim(0));
    if (elems) return {shapeTensor(c, *elems)};
    return {{c.op("concat", {ex(make<Tuple>(parts))}, {{"axis", i(axis)}})}};
  });
  onnxOp("Split", {1, 2, 11, 13, 18}, [](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    int64_t axis = normAxis(c.i("axis", 0), r);
    auto in = c.dims(0);
    auto extent = in[size_t(axis)].as<IntImm>();
    size_t n = size_t(c.node.output_size());
    std::optional<std::vector<int64_t>> sizes = c.since >= 13 ? (c.has(1) ? std::optional(c.requireInts(1, "split")) : std::nullopt) : c.intsOpt("split");
    if (c.since < 13 && c.since >= 2 && !sizes && c.has(1)) sizes = c.requireInts(1, "split");
    std::vector<int64_t> indices;
    if (sizes) {
      int64_t acc = 0;
      for (size_t k = 0; k + 1 < sizes->size(); ++k) indices.push_back(acc += (*sizes)[k]);
    } else {
      if (!extent) fail("splitting a symbolic dim into equal parts is not supported");
      int64_t parts = c.since >= 18 && c.hasAttr("num_outputs") ? c.i("num_outputs", 0) : int64_t(n);
      if (parts <= 0) fail("num_outputs must be positive");
      // Opset 18: the last chunk may be smaller (ceil division).
      int64_t chunk = (extent->value + parts - 1) / parts;
      for (int64_t k = 1; k < parts; ++k) indices.push_back(std::min(k * chunk, extent->value));
    }
    Expr t = c.op("split", {ex(c.x(0))}, {{"indices_or_sections", intList(indices)}, {"axis", i(axis)}});
    Outputs outs;
    for (size_t k = 0; k <= indices.size(); ++k) outs.push_back({c.emit(make<TupleGetItem>(t, int(k)))});
    return outs;
  });
  onnxOp("Slice", {1, 10, 11, 13}, [](NodeCtx& c) -> Outputs {
    std::vector<int64_t> starts, ends, axes, steps;
    if (c.since < 10) {
      starts = c.ints("starts");
      ends = c.ints("ends");
      axes = c.ints("axes");
    } else {
      if (c.has(3)) axes = c.requireInts(3, "axes");
      if (c.has(4)) steps = c.requireInts(4, "steps");
      auto st = c.constInts(1), en = c.constInts(2);
      if (!st || !en) {
        if (Expr sliced = symbolicSlice(c, axes, steps)) return {{sliced}};
        return {{runTimeSlice(c, axes, steps)}};
      }
      starts = *st;
      ends = *en;
    }
    int64_t r = c.ndim(0);
    if (axes.empty())
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) fail("starts, ends, axes and steps must have the same length");
    auto in = c.dims(0);
    std::vector<int64_t> b, e, s, a;
    bool clamped = true;  // every bound made concrete (the sliced dims are known)
    for (size_t k = 0; k < starts.size(); ++k) {
      int64_t axis = normAxis(axes[k], r);
      if (steps[k] == 0) fail("a slice step is 0");
      int64_t bb = starts[k], ee = ends[k];
      if (auto d = in[size_t(axis)].as<IntImm>()) {
        clampSlice(d->value, steps[k], bb, ee);
        // A reverse slice that runs to the front ends "before index 0": -(d + 1) means that once the
        // dim is added back.
        if (steps[k] < 0 && ee == -1) ee = -(d->value + 1);
      } else {
        clamped = false;  // a symbolic dim: strided_slice clamps with Python's rules, as ONNX does
      }
      b.push_back(bb), e.push_back(ee), s.push_back(steps[k]), a.push_back(axis);
    }
    // Slicing a shape value keeps its elements known.
    std::optional<std::vector<PrimExpr>> elems;
    if (clamped && r == 1 && c.in(0).elems && s[0] == 1) elems = std::vector<PrimExpr>(c.in(0).elems->begin() + b[0], c.in(0).elems->begin() + std::max(b[0], e[0]));
    Expr out = c.op("strided_slice", {ex(c.x(0)), intList(a), intList(b), intList(e), intList(s)});
    return {{out, elems, nullptr}};
  });
  onnxOp("Expand", {8, 13}, [](NodeCtx& c) -> Outputs {
    auto target = c.shapeValue(1);
    if (!target) fail("the target shape must be known at import time");
    // Bidirectional broadcasting: the result is the broadcast of the input's shape and the target.
    auto in = c.dims(0);
    size_t r = std::max(in.size(), target->size());
    std::vector<PrimExpr> out(r);
    for (size_t k = 0; k < r; ++k) {
      PrimExpr a = k + in.size() >= r ? in[k + in.size() - r] : intImm(1);
      PrimExpr t = k + target->size() >= r ? (*target)[k + target->size() - r] : intImm(1);
      // A known input dim other than 1 decides (the target may only be 1 or equal there); a run-time
      // target dim may still be 1, so it never overrides a known input dim.
      auto ti = t.as<IntImm>();
      auto ai = a.as<IntImm>();
      out[k] = (ai && ai->value != 1) || (ti && ti->value == 1) ? a : t;
    }
    return {{c.op("broadcast_to", {ex(c.x(0)), ex(shapeExpr(out))})}};
  });
  onnxOp("Tile", {}, [](NodeCtx& c) -> Outputs { return {{c.op("tile", {ex(c.x(0))}, {{"repeats", intList(c.requireInts(1, "repeats"))}})}}; });

  onnxOp("Constant", {}, [](NodeCtx& c) -> Outputs {
    if (auto t = c.tensorAttr("value")) return {{c.constant(t)}};
    auto scalarOf = [&](DataType t, double v) {
      auto a = make<NDArray>(t, std::vector<int64_t>{});
      a->setDouble(0, v);
      return a;
    };
    if (c.hasAttr("value_float")) return {{c.constant(scalarOf(DataType::float32(), c.f("value_float", 0)))}};
    if (c.hasAttr("value_int")) {
      auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{});
      a->setInt(0, c.i("value_int", 0));
      return {{c.constant(a)}};
    }
    if (c.hasAttr("value_floats")) {
      auto v = c.floats("value_floats");
      auto a = make<NDArray>(DataType::float32(), std::vector<int64_t>{int64_t(v.size())});
      for (size_t k = 0; k < v.size(); ++k) a->setDouble(int64_t(k), v[k]);
      return {{c.constant(a)}};
    }
    if (c.hasAttr("value_ints")) return {{c.ints64(c.ints("value_ints"))}};
    fail("Constant without a supported value attribute (value, value_float(s), value_int(s))");
  });
  onnxOp("ConstantOfShape", {}, [](NodeCtx& c) -> Outputs {
    auto shape = c.shapeValue(0);
    if (!shape) fail("the shape must be known at import time");
    NDArrayRef v = c.tensorAttr("value");
    DataType t = v ? v->dtype : DataType::float32();
    double fill = v && v->numel() ? v->getDouble(0) : 0.0;
    return {{c.op("full", {ex(shapeExpr(*shape)), ex(c.scalar(fill, t))}, {{"dtype", s(t.str())}})}};
  });
  onnxOp("Range", {}, [](NodeCtx& c) -> Outputs {
    auto start = c.constScalar(0), limit = c.constScalar(1), delta = c.constScalar(2);
    if (!start || !limit || !delta) fail("Range needs constant start, limit and delta");
    DataType t = c.dtype(0);
    auto pv = [&](double v) {
      PyValue p;
      if (t.isFloat()) {
        p.kind = PyValue::Float;
        p.d = v;
      } else {
        p.kind = PyValue::Int;
        p.i = int64_t(v);
      }
      return p;
    };
    return {{c.op("arange", {pv(*start), pv(*limit), pv(*delta)}, {{"dtype", s(t.str())}})}};
  });
  // saturate (opset 19+) and round_mode (24+) only matter for float8 targets.
  onnxOp("Cast", {}, [](NodeCtx& c) -> Outputs {
    auto t = dtypeOf(int32_t(c.i("to", 0)));
    if (!t) fail(t.error().message);
    OValue out{castAs(c, c.x(0), *t, c.i("saturate", 1) != 0, c.s("round_mode", "up"))};
    if (t->isInt()) out.elems = c.in(0).elems;
    return {out};
  });
  onnxOp("CastLike", {}, [](NodeCtx& c) -> Outputs { return {{castAs(c, c.x(0), c.dtype(1), c.i("saturate", 1) != 0, c.s("round_mode", "up"))}}; });
  onnxOp("BitCast", {26}, [](NodeCtx& c) -> Outputs {
    // The same bytes read as another type of the same width: R.memory.view with a dtype.
    auto to = dtypeOf(int32_t(c.i("to", 0)));
    if (!to) fail(to.error().message);
    DataType from = c.dtype(0);
    // A bool is one byte 0 or 1: as an 8-bit int that is a conversion, and a nonzero byte read
    // as a bool is true, which is also what a conversion gives.
    if ((from.isBool() && to->bits == 8) || (to->isBool() && from.bits == 8)) return {{c.cast(c.x(0), *to)}};
    if (to->bits != from.bits) fail("BitCast from " + from.str() + " to " + to->str() + ": the widths differ");
    if (*to == from) return {c.in(0)};
    return {{c.op("memory.view", {ex(c.x(0))}, {{"dtype", s(to->str())}})}};
  });
}

OValue shapeTensor(NodeCtx& c, const std::vector<PrimExpr>& elems) {
  std::vector<int64_t> ints;
  for (auto& e : elems)
    if (auto imm = e.as<IntImm>()) ints.push_back(imm->value);
  if (ints.size() == elems.size()) return {c.ints64(ints), elems, nullptr};
  return {c.op("shape_to_tensor", {ex(shapeExpr(elems))}), elems, nullptr};
}

}  // namespace rlx::onnx
