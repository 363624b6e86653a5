// Less common ONNX ops composed from Relax ops: Lp pooling and normalization, Swish,
// ReverseSequence, GridSample, AffineGrid, TensorScatter, Col2Im, CenterCropPad and the Optional ops (an
// absent optional is an absent value, known at import).
#include <cmath>

#include "frontend/onnx/converter.h"

namespace rlx::onnx {

namespace {

Expr powScalar(NodeCtx& c, Expr x, double p) { return c.op("power", {ex(x), ex(c.scalar(p, tensorInfo(x)->dtype))}); }

}  // namespace

void registerMiscConverters() {
  onnxOp("LpPool", {2, 11, 18, 22}, [](NodeCtx& c) -> Outputs {
    // (sum over the window of |x|^p)^(1/p): an average pool counting padding, times the window size.
    double p = double(c.i("p", 2));
    auto kernel = c.ints("kernel_shape");
    size_t n = kernel.size();
    if (n < 1 || n > 3 || int64_t(n) + 2 != c.ndim(0)) fail("kernel_shape must match the spatial rank (1 to 3)");
    auto strides = c.ints("strides", n, 1), dil = c.ints("dilations", n, 1);
    std::vector<int64_t> in;
    for (size_t k = 0; k < n; ++k) {
      auto d = c.dims(0)[k + 2].as<IntImm>();
      if (!d) fail("symbolic spatial dims are not supported");
      in.push_back(d->value);
    }
    auto pads = padsOf(c, in, kernel, strides, dil);
    int64_t window = 1;
    for (auto k : kernel) window *= k;
    const char* layouts[] = {"NCW", "NCHW", "NCDHW"};
    Expr pooled = c.op("nn.avg_pool" + std::to_string(n) + "d", {ex(powScalar(c, c.op("abs", {ex(c.x(0))}), p))},
                       {{"pool_size", ints(kernel)}, {"strides", ints(strides)}, {"padding", ints(pads)}, {"dilation", ints(dil)}, {"ceil_mode", b(c.i("ceil_mode", 0))},
                        {"count_include_pad", b(true)}, {"layout", s(layouts[n - 1])}});
    Expr sum = c.op("multiply", {ex(pooled), ex(c.scalar(double(window), c.dtype(0)))});
    return {{powScalar(c, sum, 1.0 / p)}};
  });
  onnxOp("GlobalLpPool", {2, 22}, [](NodeCtx& c) -> Outputs {
    double p = double(c.i("p", 2));
    std::vector<int64_t> axes;
    for (int64_t k = 2; k < c.ndim(0); ++k) axes.push_back(k);
    Expr sum = c.op("sum", {ex(powScalar(c, c.op("abs", {ex(c.x(0))}), p))}, {{"axis", ints(axes)}, {"keepdims", b(true)}});
    return {{powScalar(c, sum, 1.0 / p)}};
  });
  onnxOp("LpNormalization", {1, 22}, [](NodeCtx& c) -> Outputs {
    int64_t p = c.i("p", 2);
    if (p != 1 && p != 2) fail("p must be 1 or 2");
    int64_t axis = c.i("axis", -1);
    Expr a = c.op("abs", {ex(c.x(0))});
    Expr norm = p == 1 ? c.op("sum", {ex(a)}, {{"axis", ints({axis})}, {"keepdims", b(true)}})
                       : c.op("sqrt", {ex(c.op("sum", {ex(c.op("multiply", {ex(a), ex(a)}))}, {{"axis", ints({axis})}, {"keepdims", b(true)}}))});
    return {{c.op("divide", {ex(c.x(0)), ex(norm)})}};
  });
  onnxOp("Swish", {24}, [](NodeCtx& c) -> Outputs {
    Expr x = c.x(0);
    Expr scaled = c.op("multiply", {ex(x), ex(c.scalar(c.f("alpha", 1.0), c.dtype(0)))});
    return {{c.op("multiply", {ex(x), ex(c.op("sigmoid", {ex(scaled)}))})}};
  });
  onnxOp("ReverseSequence", {10}, [](NodeCtx& c) -> Outputs {
    // out[t, b] = x[len[b] - 1 - t, b] for t < len[b], else x[t, b]: a gather along the time axis.
    int64_t timeAxis = c.i("time_axis", 0), batchAxis = c.i("batch_axis", 1);
    auto d = c.dims(0);
    int64_t r = int64_t(d.size());
    if (r < 2 || !((timeAxis == 0 && batchAxis == 1) || (timeAxis == 1 && batchAxis == 0))) fail("time_axis and batch_axis must be 0 and 1 (either way) of an input of rank 2 or more");
    auto steps = d[size_t(timeAxis)].as<IntImm>();
    if (!steps) fail("the time dim must be known");
    auto iotaArr = make<NDArray>(DataType::int64(), std::vector<int64_t>{steps->value});
    for (int64_t t = 0; t < steps->value; ++t) iotaArr->setInt(t, t);
    // Time indices along timeAxis and lengths along batchAxis, both broadcasting against x.
    Expr t2 = c.op("reshape", {ex(c.constant(iotaArr)), ex(shapeExpr([&] {
                               std::vector<PrimExpr> s(size_t(r), intImm(1));
                               s[size_t(timeAxis)] = intImm(steps->value);
                               return s;
                             }()))});
    Expr lens = c.cast(c.x(1), DataType::int64());
    std::vector<PrimExpr> ls(size_t(r), intImm(1));
    ls[size_t(batchAxis)] = d[size_t(batchAxis)];
    lens = c.op("reshape", {ex(lens), ex(shapeExpr(ls))});
    Expr rev = c.op("subtract", {ex(c.op("subtract", {ex(lens), ex(c.scalar(1, DataType::int64()))})), ex(t2)});
    Expr idx = c.op("where", {ex(c.op("less", {ex(t2), ex(lens)})), ex(rev), ex(t2)});
    idx = c.op("broadcast_to", {ex(idx), ex(shapeExpr(d))});
    return {{c.op("gather_elements", {ex(c.x(0)), ex(idx)}, {{"axis", i(timeAxis)}})}};
  });
  onnxOp("GridSample", {16, 20, 22}, [](NodeCtx& c) -> Outputs {
    // 4-D (NCHW) or, from opset 20, volumetric 5-D (NCDHW; linear is trilinear there, no cubic).
    int64_t r = c.ndim(0);
    if (r != 4 && !(r == 5 && c.since >= 20)) fail("the input must be 4-D (NCHW), or 5-D (NCDHW) from opset 20");
    std::string mode = c.s("mode", c.since >= 20 ? "linear" : "bilinear");
    std::string method = mode == "linear" || mode == "bilinear" ? "bilinear" : mode == "nearest" ? "nearest" : mode == "cubic" || mode == "bicubic" ? "bicubic" : "";
    if (method.empty()) fail("unknown mode '" + mode + "'");
    if (r == 5 && method == "bicubic") fail("cubic sampling is defined for 4-D inputs only");
    std::string padding = c.s("padding_mode", "zeros");
    return {{c.op("image.grid_sample", {ex(c.x(0)), ex(c.x(1))},
                  {{"method", s(method)}, {"layout", s(r == 5 ? "NCDHW" : "NCHW")}, {"padding_mode", s(padding)}, {"align_corners", b(c.i("align_corners", 0))}})}};
  });
  onnxOp("AffineGrid", {20}, [](NodeCtx& c) -> Outputs {
    // theta (N, k, k+1) applied to the homogeneous coordinates of an evenly spaced grid over
    // [-1, 1] per spatial dim (pixel centers, or corners with align_corners), x fastest.
    auto size = c.requireInts(1, "size");
    size_t k = size.size() - 2;
    if (size.size() != 4 && size.size() != 5) fail("size must be (N, C, H, W) or (N, C, D, H, W)");
    bool corners = c.i("align_corners", 0) != 0;
    std::vector<int64_t> spatial(size.begin() + 2, size.end());
    int64_t points = 1;
    for (auto d : spatial) points *= d;
    DataType t = c.dtype(0);
    auto base = make<NDArray>(t, std::vector<int64_t>{int64_t(k + 1), points});  // (k+1, P): rows x, y, (z,) 1
    auto coord = [&](int64_t i, int64_t len) { return corners ? (len > 1 ? -1.0 + 2.0 * double(i) / double(len - 1) : -1.0) : -1.0 + (2.0 * double(i) + 1.0) / double(len); };
    for (int64_t p = 0; p < points; ++p) {
      int64_t rest = p;
      std::vector<int64_t> at(k);
      for (size_t d = k; d-- > 0;) at[d] = rest % spatial[d], rest /= spatial[d];
      // Row r holds the coordinate of spatial dim k-1-r (x is the last dim).
      for (size_t r = 0; r < k; ++r) base->setDouble(int64_t(r) * points + p, coord(at[k - 1 - r], spatial[k - 1 - r]));
      base->setDouble(int64_t(k) * points + p, 1.0);
    }
    Expr grid = c.op("matmul", {ex(c.x(0)), ex(c.constant(base))});  // (N, k, P)
    Expr moved = c.op("permute_dims", {ex(grid)}, {{"axes", ints({0, 2, 1})}});
    std::vector<PrimExpr> shape = {c.dim(0, 0)};
    for (auto d : spatial) shape.push_back(intImm(d));
    shape.push_back(intImm(int64_t(k)));
    return {{c.op("reshape", {ex(moved), ex(shapeExpr(shape))})}};
  });
  onnxOp("TensorScatter", {24}, [](NodeCtx& c) -> Outputs {
    // The cache with update's sequence written at write_indices[b] (0 when absent) along axis,
    // modulo the cache length in circular mode: a scatter whose indices are computed per element.
    auto pd = c.dims(0), ud = c.dims(1);
    int64_t r = int64_t(pd.size());
    if (ud.size() != pd.size()) fail("the update must have the cache's rank");
    int64_t axis = normAxis(c.i("axis", -2), r);
    if (axis == 0) fail("axis must not be the batch axis");
    std::string mode = c.s("mode", "linear");
    if (mode != "linear" && mode != "circular") fail("mode must be 'linear' or 'circular'");
    int64_t len = 0;
    if (auto u = ud[size_t(axis)].as<IntImm>()) len = u->value;
    else fail("the update's sequence length must be known at import");
    auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{len});
    for (int64_t k = 0; k < len; ++k) a->setInt(k, k);
    std::vector<PrimExpr> along(size_t(r), intImm(1));
    along[size_t(axis)] = intImm(len);
    Expr idx = c.op("reshape", {ex(c.constant(a)), ex(shapeExpr(along))});
    if (c.has(2)) {
      std::vector<PrimExpr> perBatch(size_t(r), intImm(1));
      perBatch[0] = pd[0];
      idx = c.op("add", {ex(idx), ex(c.op("reshape", {ex(c.cast(c.x(2), DataType::int64())), ex(shapeExpr(perBatch))}))});
    }
    if (mode == "circular") {
      auto cap = pd[size_t(axis)].as<IntImm>();
      if (!cap || cap->value <= 0) fail("circular mode needs the cache length known at import");
      idx = c.op("floor_mod", {ex(idx), ex(c.scalar(double(cap->value), DataType::int64()))});
    }
    idx = c.op("broadcast_to", {ex(idx), ex(shapeExpr(ud))});
    return {{c.op("scatter_elements", {ex(c.x(0)), ex(idx), ex(c.x(1))}, {{"axis", i(axis)}})}};
  });
  onnxOp("Col2Im", {18}, [](NodeCtx& c) -> Outputs {
    // Each column entry (channel, offset in the block, block) adds into its image pixel: a
    // scatter-add along a constant index map; entries that fall in the padding go to one spare
    // slot that is cut off afterwards.
    auto image = c.requireInts(1, "image_shape"), block = c.requireInts(2, "block_shape");
    size_t n = image.size();
    if (n == 0 || block.size() != n) fail("image_shape and block_shape must have one value per spatial dim");
    auto strides = c.ints("strides", n, 1), dil = c.ints("dilations", n, 1), pads = c.ints("pads", 2 * n, 0);
    auto in = c.dims(0);
    if (in.size() != 3) fail("the input must be (N, C * prod(block_shape), L)");
    int64_t rows = 0, cols = 0, kernel = 1, pixels = 1, blocks = 1;
    if (auto r = in[1].as<IntImm>()) rows = r->value;
    if (auto l = in[2].as<IntImm>()) cols = l->value;
    std::vector<int64_t> perDim(n);
    for (size_t d = 0; d < n; ++d) {
      if (strides[d] <= 0 || dil[d] <= 0 || block[d] <= 0) fail("strides, dilations and block_shape must be positive");
      kernel *= block[d], pixels *= image[d];
      perDim[d] = (image[d] + pads[d] + pads[d + n] - (dil[d] * (block[d] - 1) + 1)) / strides[d] + 1;
      blocks *= std::max<int64_t>(perDim[d], 0);
    }
    if (!rows || rows % kernel || cols != blocks) fail("the input's dims do not match block_shape and the number of blocks");
    int64_t channels = rows / kernel;
    auto idx = make<NDArray>(DataType::int64(), std::vector<int64_t>{rows * cols});
    for (int64_t ch = 0; ch < channels; ++ch)
      for (int64_t kpos = 0; kpos < kernel; ++kpos)
        for (int64_t bl = 0; bl < cols; ++bl) {
          // The pixel of this entry, dim by dim from the last (row-major offsets in block and image).
          int64_t kr = kpos, br = bl, pixel = 0, scale = 1;
          bool inside = true;
          for (size_t d = n; d-- > 0;) {
            int64_t at = (br % perDim[d]) * strides[d] - pads[d] + (kr % block[d]) * dil[d];
            kr /= block[d], br /= perDim[d];
            inside &= at >= 0 && at < image[d];
            pixel += at * scale;
            scale *= image[d];
          }
          idx->setInt((ch * kernel + kpos) * cols + bl, inside ? ch * pixels + pixel : channels * pixels);
        }
    PrimExpr batch = in[0];
    Expr flatIn = c.op("reshape", {ex(c.x(0)), ex(shapeExpr({batch, intImm(rows * cols)}))});
    Expr where = c.op("broadcast_to", {ex(c.op("reshape", {ex(c.constant(idx)), ex(shapeExpr({intImm(1), intImm(rows * cols)}))})), ex(shapeExpr({batch, intImm(rows * cols)}))});
    Expr zeros = c.op("zeros", {ex(shapeExpr({batch, intImm(channels * pixels + 1)}))}, {{"dtype", s(c.dtype(0).str())}});
    Expr summed = c.op("scatter_elements", {ex(zeros), ex(where), ex(flatIn)}, {{"axis", i(1)}, {"reduction", s("add")}});
    Expr kept = c.op("strided_slice", {ex(summed), ints({1}), ints({0}), ints({channels * pixels})});
    std::vector<PrimExpr> shape = {batch, intImm(channels)};
    for (auto d : image) shape.push_back(intImm(d));
    return {{c.op("reshape", {ex(kept), ex(shapeExpr(shape))})}};
  });
  onnxOp("CenterCropPad", {18}, [](NodeCtx& c) -> Outputs {
    auto target = c.requireInts(1, "shape");
    auto d = c.dims(0);
    int64_t r = int64_t(d.size());
    std::vector<int64_t> axes = c.ints("axes");
    if (axes.empty())
      for (int64_t k = 0; k < r; ++k) axes.push_back(k);
    if (axes.size() != target.size()) fail("shape must have one value per axis");
    Expr x = c.x(0);
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t a = axes[k] < 0 ? axes[k] + r : axes[k];
      auto cur = d[size_t(a)].as<IntImm>();
      if (!cur) fail("the cropped or padded dims must be known");
      int64_t want = target[k], have = cur->value;
      if (want < have) {
        // Crop: keep the centre, the extra element (odd difference) coming off the end.
        int64_t start = (have - want) / 2;
        x = c.op("strided_slice", {ex(x), ints({a}), ints({start}), ints({start + want}), ints({1})});
      } else if (want > have) {
        std::vector<int64_t> width(size_t(2 * r), 0);
        width[size_t(2 * a)] = (want - have) / 2;
        width[size_t(2 * a + 1)] = want - have - (want - have) / 2;
        x = c.op("nn.pad", {ex(x)}, {{"pad_width", ints(width)}, {"pad_value", f(0.0)}, {"pad_mode", s("constant")}});
      }
    }
    return {{x}};
  });
  onnxOp("Optional", {15}, [](NodeCtx& c) -> Outputs { return {c.has(0) ? c.in(0) : OValue{}}; });
  onnxOp("OptionalHasElement", {15, 18}, [](NodeCtx& c) -> Outputs {
    auto a = make<NDArray>(DataType::boolean(), std::vector<int64_t>{});
    a->setInt(0, c.has(0) ? 1 : 0);
    return {{c.constant(a)}};
  });
  onnxOp("OptionalGetElement", {15, 18}, [](NodeCtx& c) -> Outputs {
    if (!c.has(0)) fail("the optional is empty");
    return {c.in(0)};
  });
}

}  // namespace rlx::onnx
