// Data-movement helpers shared by the manipulation evaluators (eval_manipulate.cc, eval_layout.cc,
// eval_index.cc, eval_gather_scatter.cc) and the registration functions of the split-out files.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "ir/ops/eval_util.h"

namespace rlx {

// Called by registerManipulateEvals (ir/eval.h), which stays the family's entry point.
void registerLayoutEvals();         // eval_layout.cc: layout_transform
void registerIndexEvals();          // eval_index.cc: take, strided_slice, dynamic_strided_slice, slice_scatter
void registerGatherScatterEvals();  // eval_gather_scatter.cc: gather/scatter, index_put/index_tensor, meshgrid, one_hot

namespace ops {

// The product of s[lo..hi).
int64_t prodOf(const Shape& s, size_t lo, size_t hi);
// "(2, 3)", "(4,)", "()".
std::string shapeText(const Shape& s);
// Copies `n` consecutive elements (same dtype) as bytes; copyElem copies one.
void copyRun(NDArray& dst, int64_t di, const NDArray& src, int64_t si, int64_t n);
void copyElem(NDArray& dst, int64_t di, const NDArray& src, int64_t si);
// Fills `out` (row-major) from `src`, output index i reading src's flat element sum of i[d] * srcStrides[d]:
// permute_dims and broadcast_to, a run of the last dim at a time (a ResNet classifier's 2048 x 1000
// transpose took 40 ms element by element through gatherFrom, a tenth of the model's cold start).
void stridedCopy(NDArray& out, const NDArray& src, const Shape& srcStrides);
// Fills `out` element by element; srcOffset maps an output index to the flat source element.
void gatherFrom(NDArray& out, const NDArray& src, const std::function<int64_t(const Shape&)>& srcOffset);
// A fresh copy of x (same dtype and shape).
NDArrayRef copyOf(const NDArray& x);
// An index read from an index tensor, checked against the extent it addresses. With
// `allowNegative`, [-n, 0) counts from the end (kernels that shift negatives); otherwise only
// [0, n) is valid (kernels that read unchecked).
Result<int64_t> checkedIndex(const Call& call, int64_t v, int64_t n, bool allowNegative, const char* what);
// An error unless t has an integer (or bool) dtype.
Status requireIntegral(const Call& call, const NDArray& t, const char* name);
// The rows (and result shape) take reads from x along its `axis` attr (axis=None: the flattened data), one per element
// of `ind`, under take's `mode` attr (eval_index.cc's header): shared by take and take_backward.
// Errors for an unknown mode, a bad axis, or an index the mode leaves out of range.
struct TakeRows {
  Shape dims;  // x's extents as take sees them (x.shape, or {numel} for axis=None)
  int axis = 0;
  std::vector<int64_t> rows;
  Shape shape;  // take's result: dims before the axis, ind's shape, dims after it
};
Result<TakeRows> takeRows(const Call& call, const NDArray& x, const NDArray& ind);

}  // namespace ops
}  // namespace rlx
