// FastMath kernels run through the TIR interpreter: the approximations stay within their stated
// error of libm over the float32 range that matters (and saturate sensibly outside it).
#include <catch2/catch.hpp>

#include <cmath>

#include "ir/tir_eval.h"
#include "passes/fast_math_kernels.h"

using namespace rlx;

namespace {

// Runs kernel `kind` on `xs` and returns the results.
std::vector<double> runFast(FastKernel kind, const std::vector<double>& xs) {
  auto kernel = makeFastKernel(kind, {intImm(int64_t(xs.size()))}, "k");
  REQUIRE(kernel.ok());
  auto in = make<NDArray>(DataType::float32(), std::vector<int64_t>{int64_t(xs.size())});
  auto out = make<NDArray>(DataType::float32(), std::vector<int64_t>{int64_t(xs.size())});
  for (size_t i = 0; i < xs.size(); ++i) in->setDouble(int64_t(i), xs[i]);
  auto st = runPrimFunc(*kernel.value().as<PrimFunc>(), {TirArg(in), TirArg(out)});
  REQUIRE(st.ok());
  std::vector<double> r;
  for (size_t i = 0; i < xs.size(); ++i) r.push_back(out->getDouble(int64_t(i)));
  return r;
}

std::vector<double> grid(double lo, double hi, int n) {
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) xs.push_back(lo + (hi - lo) * i / (n - 1));
  return xs;
}

}  // namespace

TEST_CASE("fast_exp: relative error below 1e-6 near 0, growing with |x| like float32 range reduction", "[fast_math]") {
  // The reduction f = x - n*ln2 runs in float32, so the error grows with |x| (as in TVM's kernel):
  // about 4e-6 relative at |x| = 80, still far below the input's own sensitivity (|x| * ulp(x)).
  auto xs = grid(-80, 80, 257);
  auto ys = runFast(FastKernel::Exp, xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    double tol = 1e-6 * std::max(1.0, std::fabs(xs[i]) / 8);
    CHECK(std::fabs(ys[i] - std::exp(xs[i])) <= tol * std::exp(xs[i]));
  }
  CHECK(runFast(FastKernel::Exp, {0.0})[0] == 1.0);
}

TEST_CASE("fast_tanh and fast_erf: absolute error below 1e-6, saturating", "[fast_math]") {
  auto xs = grid(-12, 12, 241);
  auto t = runFast(FastKernel::Tanh, xs);
  auto e = runFast(FastKernel::Erf, xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    CHECK(std::fabs(t[i] - std::tanh(xs[i])) <= 1e-6);
    CHECK(std::fabs(e[i] - std::erf(xs[i])) <= 1e-6);
  }
}

TEST_CASE("fast kernels with a symbolic length run on any size", "[fast_math]") {
  auto kernel = makeFastKernel(FastKernel::Tanh, {make<PrimVar>("n", DataType::int64())}, "k");
  REQUIRE(kernel.ok());
  auto in = make<NDArray>(DataType::float32(), std::vector<int64_t>{3});
  auto out = make<NDArray>(DataType::float32(), std::vector<int64_t>{3});
  for (int i = 0; i < 3; ++i) in->setDouble(i, i - 1.0);
  REQUIRE(runPrimFunc(*kernel.value().as<PrimFunc>(), {TirArg(in), TirArg(out)}).ok());
  CHECK(out->getDouble(0) == Approx(std::tanh(-1.0)).epsilon(1e-6));
  CHECK(out->getDouble(1) == 0.0);
}
