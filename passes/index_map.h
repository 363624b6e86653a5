// Index maps as passes handle them (T.index_map(lambda i: (i // 4, i % 4)), R.layout_transform's
// index_map): conversion from and to the attribute / PyValue forms, fresh copies, and the inverse
// over a shape, TVM's IndexMap::NonSurjectiveInverse (with whether the forward map pads).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/diagnostic.h"
#include "ir/op.h"

namespace rlx::index_map {

struct IndexMap {
  std::vector<PrimVarRef> params;
  std::vector<PrimExpr> results;
};

// The map of a T.index_map attribute or PyValue ([[vars...], [results...]]); nullopt for others.
std::optional<IndexMap> fromAttr(const Attr& a);
std::optional<IndexMap> fromPy(const PyValue& v);
// The T.index_map PyValue build::call takes for R.layout_transform's index_map.
PyValue toPy(const IndexMap& m);
// The same map over new index vars: every layout_transform owns its map's vars (TVM deep-copies
// the map per call; two calls sharing definitions would confuse structural equality).
IndexMap withFreshVars(const IndexMap& m);

struct Inverse {
  IndexMap map;         // params axis0, axis1, ... (one per result of the forward map)
  bool padded = false;  // the forward map pads the shape: some indices of the inverse's domain
                        // map outside it (TVM's non-zero padding predicate)
};

// The inverse of `m` over the box [0, shape): each result of `m` must be an iterator sum (sums of
// floormod(floordiv(var, c1), c2) * scale terms fusing densely, as TVM's DetectIterMap reads them)
// and together they must cover every index var exactly once (injective). floordiv/floormod by a
// constant that does not divide a var's extent pad that var to the next multiple (padded = true).
// The inverse's expressions are TVM's (InverseAffineIterMap), simplified. Errors say why not.
Result<Inverse> inverse(const IndexMap& m, const std::vector<PrimExpr>& shape);

// `lambda i, j: (i // 4, j)` for messages.
std::string str(const IndexMap& m);

}  // namespace rlx::index_map
