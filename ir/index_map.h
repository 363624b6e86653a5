// Index maps (T.index_map(lambda i, j: ...)) as attributes of layout_transform and friends: reading
// one from its attribute, and inverting the layout maps (splits, fusions, permutations) exactly.
#pragma once
#include <optional>
#include <vector>

#include "ir/op.h"

namespace rlx {

struct IndexMap {
  std::vector<Ref<PrimVar>> params;  // one per input dimension
  std::vector<PrimExpr> results;     // one per output dimension
};

// The map an attribute holds (the T.index_map constructor or a [[params], [results]] array);
// nullopt when it is not one.
std::optional<IndexMap> indexMapFromAttr(const Attr& a);

// The inverse of a layout map on its output space: for each input dimension its index as an
// expression of `params` (one per output dimension), and `padding` (null when there is none): the
// condition under which an output index has no input element (a split whose factor does not divide
// the extent).
struct IndexMapInverse {
  std::vector<Ref<PrimVar>> params;
  std::vector<PrimExpr> inputIndex;
  PrimExpr padding;
};

// Exact inverses for maps whose results are sums of mixed-radix digits of the params (i, i // c,
// i % c, (i % c) // d, a * c + b, ...), every digit of every param used once and the digits of each
// result packing without gaps (so that the map is a bijection onto the non-padding indices).
// nullopt for anything else (the caller must not guess). The shapes are the map's input and output
// extents (the output shape as layout_transform infers it).
std::optional<IndexMapInverse> invertIndexMap(const IndexMap& map, const std::vector<PrimExpr>& inputShape, const std::vector<PrimExpr>& outputShape);

}  // namespace rlx
