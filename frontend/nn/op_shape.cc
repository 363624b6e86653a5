// Shape manipulation, reduction and matmul ops (see op.h).
#include "frontend/nn/op.h"
#include "frontend/nn/op_util.h"
#include "ir/arith.h"

namespace rlx::nn::op {

using namespace detail;

Tensor broadcastTo(const Tensor& x, const std::vector<Dim>& shape, const std::string& name) {
  return wrap(call("broadcast_to", {ex(x), ex(shapeExpr(dimExprs(shape)))}), name);
}

Tensor reshape(const Tensor& x, const std::vector<Dim>& shape, const std::string& name) {
  // TVM resolves a -1 at export time: the element count divided by the other dims.
  auto dims = dimExprs(shape);
  int inferred = -1;
  PrimExpr known = intImm(1);
  for (size_t i = 0; i < dims.size(); ++i) {
    auto c = constInt(dims[i]);
    if (c && *c == -1) {
      if (inferred >= 0) fail("reshape: only one dim may be -1");
      inferred = int(i);
    } else {
      known = mul(known, dims[i]);
    }
  }
  if (inferred >= 0) {
    PrimExpr total = intImm(1);
    for (auto& d : x.shape()) total = mul(total, d);
    dims[size_t(inferred)] = rlx::floordiv(total, known);
  }
  return wrap(call("reshape", {ex(x), ex(shapeExpr(dims))}), name);
}

Tensor permuteDims(const Tensor& x, std::optional<Axes> axes, const std::string& name) {
  return wrap(call("permute_dims", {ex(x)}, {{"axes", optInts(axes)}}), name);
}

Tensor permute(const Tensor& x, const Axes& axes, const std::string& name) { return permuteDims(x, axes, name); }

Tensor squeeze(const Tensor& x, int64_t axis, const std::string& name) { return wrap(call("squeeze", {ex(x)}, {{"axis", build::ints({axis})}}), name); }

Tensor unsqueeze(const Tensor& x, int64_t dim, const std::string& name) { return wrap(call("expand_dims", {ex(x)}, {{"axis", build::ints({dim})}}), name); }

Tensor concat(const std::vector<Tensor>& xs, int64_t dim, const std::string& name) {
  std::vector<Expr> fields;
  for (auto& x : xs) fields.push_back(x.expr());
  return wrap(call("concat", {ex(make<Tuple>(std::move(fields)))}, {{"axis", build::i(dim)}}), name);
}

std::vector<Tensor> split(const Tensor& x, std::variant<int64_t, Axes> indicesOrSections, int64_t axis, const std::string& name) {
  PyValue ios = std::holds_alternative<int64_t>(indicesOrSections) ? build::i(std::get<int64_t>(indicesOrSections)) : build::ints(std::get<Axes>(indicesOrSections));
  return wrapTuple(call("split", {ex(x)}, {{"indices_or_sections", ios}, {"axis", build::i(axis)}}), name);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim, const std::string& name) { return split(x, chunks, dim, name); }

Tensor repeat(const Tensor& x, int64_t repeats, std::optional<int64_t> axis, const std::string& name) {
  return wrap(call("repeat", {ex(x)}, {{"repeats", build::i(repeats)}, {"axis", axis ? build::i(*axis) : none()}}), name);
}

Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis, const std::string& name) {
  return wrap(call("take", {ex(x), ex(indices)}, {{"axis", axis ? build::i(*axis) : none()}, {"mode", build::s("fast")}}), name);
}

Tensor pad(const Tensor& x, const Axes& pad, const std::string& mode, double value, const std::string& name) {
  return wrap(call("nn.pad", {ex(x)}, {{"pad_width", build::ints(pad)}, {"pad_value", build::f(value)}, {"pad_mode", build::s(mode)}}), name);
}

Tensor triu(const Tensor& x, int64_t diagonal, const std::string& name) { return wrap(call("triu", {ex(x), build::i(diagonal)}), name); }

namespace {
Tensor reduce(const char* op, const Tensor& x, const std::optional<Axes>& axis, bool keepdims, const std::string& name) {
  return wrap(call(op, {ex(x)}, {{"axis", optInts(axis)}, {"keepdims", build::b(keepdims)}}), name);
}
}  // namespace

Tensor sum(const Tensor& x, std::optional<Axes> axis, bool keepdims, const std::string& name) { return reduce("sum", x, axis, keepdims, name); }
Tensor max(const Tensor& x, std::optional<Axes> axis, bool keepdims, const std::string& name) { return reduce("max", x, axis, keepdims, name); }
Tensor min(const Tensor& x, std::optional<Axes> axis, bool keepdims, const std::string& name) { return reduce("min", x, axis, keepdims, name); }

Tensor cumsum(const Tensor& x, const CumsumOptions& opts, const std::string& name) {
  return wrap(call("cumsum", {ex(x)},
                   {{"axis", opts.axis ? build::i(*opts.axis) : none()}, {"dtype", build::s(opts.dtype ? opts.dtype->str() : "void")}, {"exclusive", build::b(opts.exclusive)}}),
              name);
}

Tensor matmul(const Tensor& a, const Tensor& b, std::optional<DType> outDtype, const std::string& name) {
  return wrap(call("matmul", {ex(a), ex(b)}, {{"out_dtype", build::s(outDtype ? outDtype->str() : "void")}}), name);
}

}  // namespace rlx::nn::op
