// Layout strings for ConvertLayout ("NCHW", "NCHW4c", "OHWI2i4o"): parsing, the algebra the per-op
// rules use on abstract "ABCD" decisions, the divisibility check and the index maps between layouts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/op.h"

namespace rlx::layout {

// One axis of a layout: an upper-case primal letter (factor 0) or a lower-case sub axis with its
// extent (the `4` of `4c`).
struct Axis {
  char letter;
  int64_t factor;
  bool primal() const { return factor == 0; }
};

// Parses a layout; nullopt when malformed (a sub axis without its primal, a stray character, a
// factor before a primal, a repeated primal).
std::optional<std::vector<Axis>> parse(const std::string& s);
int ndim(const std::string& s);        // all axes, sub axes included (-1 when malformed)
int ndimPrimal(const std::string& s);  // upper-case axes only
bool isSubIndexed(const std::string& s);
std::string initial(int rank);  // "ABC…"
// Position of primal letter `c` (upper case) or of the sub axis letter (lower case); -1 if absent.
int indexOf(const std::string& s, char c);

// out[i] = input[src.indexOf(dst[i])] (all primal, same length): moves `input` the way dst
// reorders src.
std::string transposeLike(const std::string& input, const std::string& src, const std::string& dst);
// Rewrites `desired` letter by letter: each upper-case X (and lower-case x) becomes the letter of
// `ref` at X's position in `src` (lower-cased for sub axes); digits are copied.
std::string transposeSubLayoutLike(const std::string& ref, const std::string& src, const std::string& desired);
// Position in decision `l` of original dim `axis` (negative counts from the end).
int findAxis(const std::string& l, int64_t axis);
// The decision of a value broadcast to rank n: leading new dims stay, the rest follow `l`.
std::string followDecision(const std::string& l, int n);

// Whether a tensor of `shape`, laid out as `src`, converts to `dst` and back without padding (every
// constant extent survives; symbolic extents are assumed divisible). False when the layouts do not
// correspond or the rank differs.
bool canProveTransform(const std::string& src, const std::string& dst, const std::vector<PrimExpr>& shape);

// The index expressions (over `vars`, one per axis of `from`) of each axis of `to`.
std::vector<PrimExpr> indexMap(const std::string& from, const std::string& to, const std::vector<PrimExpr>& vars);
// R.layout_transform's index_map argument from `from` to `to`: `T.index_map(lambda i0, i1, ...: (...))`
// in the constructor form op schemas read (int32 vars i0, i1, ..., one per axis of `from`).
PyValue indexMapArg(const std::string& from, const std::string& to);

}  // namespace rlx::layout
