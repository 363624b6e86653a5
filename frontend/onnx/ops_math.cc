// Linear algebra: MatMul (numpy semantics), Gemm (alpha, beta, transposes, broadcast C), Einsum.
#include "frontend/onnx/converter.h"

namespace rlx::onnx {

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
}

}  // namespace rlx::onnx
