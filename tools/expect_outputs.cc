// `rlx run --expect A.npy [--expect B.npy ...]`: compares a run's outputs (tuples flattened in
// order) with reference arrays, as a model's outputs are judged: max |out - ref| <= tol * max |ref|.
#include "tools/expect_outputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "runtime/npy.h"

namespace rlx::tools {

namespace {

void flatten(const vm::Value& v, std::vector<vm::Value>& out) {
  if (v.kind == vm::Value::Tuple) {
    for (auto& f : v.fields()) flatten(f, out);
    return;
  }
  out.push_back(v);
}

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

Status checkExpected(const vm::Value& result, const std::vector<std::string>& files, double tolerance) {
  std::vector<vm::Value> outs;
  flatten(result, outs);
  if (outs.size() != files.size())
    return Error("the run has " + std::to_string(outs.size()) + " outputs but " + std::to_string(files.size()) + " --expect files were given");
  bool allOk = true;
  for (size_t k = 0; k < outs.size(); ++k) {
    RLX_TRY(ref, readNpy(files[k]));
    const vm::Value& o = outs[k];
    if (o.kind != vm::Value::Tensor) return Error("output " + std::to_string(k) + " is " + o.describe() + ", not a tensor");
    const NDArray& a = *o.array;
    if (a.shape != ref->shape)
      return Error("output " + std::to_string(k) + " has shape " + shapeText(a.shape) + " but " + files[k] + " has " + shapeText(ref->shape));
    if (a.dtype != ref->dtype) return Error("output " + std::to_string(k) + " is " + a.dtype.str() + " but " + files[k] + " is " + ref->dtype.str());
    double maxDiff = 0, maxRef = 0;
    bool finite = true;
    for (int64_t e = 0; e < a.numel(); ++e) {
      double x = a.getDouble(e), y = ref->getDouble(e);
      if (std::isnan(x) != std::isnan(y) || (std::isinf(y) && x != y)) finite = false;
      if (std::isfinite(y)) {
        maxDiff = std::max(maxDiff, std::fabs(x - y));
        maxRef = std::max(maxRef, std::fabs(y));
      }
    }
    // Relative to the output's scale; exact zeros compare absolutely.
    double err = maxRef > 0 ? maxDiff / maxRef : maxDiff;
    bool ok = finite && err <= tolerance;
    allOk &= ok;
    std::printf("output %zu %s: max |diff| / max |ref| = %.2e (tolerance %.0e)%s\n", k, shapeText(a.shape).c_str(), err, tolerance,
                ok ? "" : finite ? "  MISMATCH" : "  MISMATCH (NaN/inf differ)");
  }
  if (!allOk) return Error("the outputs differ from the expected ones beyond the tolerance");
  return okStatus();
}

}  // namespace rlx::tools
