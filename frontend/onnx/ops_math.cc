// Linear algebra: MatMul (numpy semantics), Gemm (alpha, beta, transposes, broadcast C), Einsum,
// Det (Laplace expansion over the static matrix size).
#include <map>

#include "frontend/onnx/converter.h"

namespace rlx::onnx {

namespace {

// det of the rows from `row` on, restricted to the columns in `cols` (a bit set): expansion along
// the first remaining row, each minor computed once.
Expr minorDet(NodeCtx& c, const std::vector<std::vector<Expr>>& e, size_t row, uint32_t cols, std::map<uint32_t, Expr>& memo) {
  if (auto it = memo.find(cols); it != memo.end()) return it->second;
  Expr sum;
  int sign = 1;
  for (size_t j = 0; j < e.size(); ++j) {
    if (!(cols & (1u << j))) continue;
    Expr term = e[row][j];
    if (row + 1 < e.size()) term = c.op("multiply", {ex(term), ex(minorDet(c, e, row + 1, cols & ~(1u << j), memo))});
    if (!sum) sum = sign > 0 ? term : c.op("negative", {ex(term)});
    else sum = c.op(sign > 0 ? "add" : "subtract", {ex(sum), ex(term)});
    sign = -sign;
  }
  return memo[cols] = sum;
}

}  // namespace

void registerMathConverters() {
  onnxOp("MatMul", {}, [](NodeCtx& c) -> Outputs { return {{c.op("matmul", {ex(c.x(0)), ex(c.x(1))})}}; });
  onnxOp("Gemm", {}, [](NodeCtx& c) -> Outputs {
    // Y = alpha * A' B' + beta * C, with A' = A^T when transA and B' = B^T when transB.
    Expr a = c.x(0), bm = c.x(1);
    if (c.i("transA", 0)) a = c.op("permute_dims", {ex(a)}, {{"axes", ints({1, 0})}});
    if (c.i("transB", 0)) bm = c.op("permute_dims", {ex(bm)}, {{"axes", ints({1, 0})}});
    DataType t = c.dtype(0);
    Expr y = c.op("matmul", {ex(a), ex(bm)});
    double alpha = c.f("alpha", 1.0), beta = c.f("beta", 1.0);
    if (alpha != 1.0) y = c.op("multiply", {ex(y), ex(c.scalar(alpha, t))});
    if (c.has(2)) {
      Expr bias = c.x(2);
      if (beta != 1.0) bias = c.op("multiply", {ex(bias), ex(c.scalar(beta, t))});
      y = c.op("add", {ex(y), ex(bias)});
    }
    return {{y}};
  });
  onnxOp("Einsum", {}, [](NodeCtx& c) -> Outputs {
    std::string eq;
    for (char ch : c.s("equation", ""))
      if (ch != ' ') eq += ch;
    std::vector<Expr> operands;
    for (size_t k = 0; k < c.numInputs(); ++k) operands.push_back(c.x(k));
    return {{c.op("einsum", {ex(make<Tuple>(operands))}, {{"subscripts", s(eq)}})}};
  });
  onnxOp("Det", {11, 22}, [](NodeCtx& c) -> Outputs {
    auto dims = c.dims(0);
    if (dims.size() < 2) fail("Det takes (..., n, n) matrices");
    auto n = dims.back().as<IntImm>(), m = dims[dims.size() - 2].as<IntImm>();
    if (!n || !m || n->value != m->value) fail("the matrices must be square with a size known at import");
    if (n->value < 1 || n->value > 8) fail("Det is supported for matrices of size 1 to 8");
    int64_t r = int64_t(dims.size());
    std::vector<std::vector<Expr>> e(size_t(n->value), std::vector<Expr>(size_t(n->value)));
    for (int64_t i = 0; i < n->value; ++i) {
      Expr rowI = c.op("take", {ex(c.x(0)), ex(c.scalar(double(i), DataType::int64()))}, {{"axis", build::i(r - 2)}});
      for (int64_t j = 0; j < n->value; ++j) e[size_t(i)][size_t(j)] = c.op("take", {ex(rowI), ex(c.scalar(double(j), DataType::int64()))}, {{"axis", build::i(r - 2)}});
    }
    std::map<uint32_t, Expr> memo;
    return {{minorDet(c, e, 0, (1u << n->value) - 1, memo)}};
  });
}

}  // namespace rlx::onnx
