// numpy-style printing of run results, checked against what numpy 1.24 prints for the same arrays.
#include <catch2/catch.hpp>

#include "runtime/format.h"

using namespace rlx;

namespace {
NDArrayRef array(DataType t, std::vector<int64_t> shape, std::vector<double> values) {
  auto a = make<NDArray>(t, shape);
  for (size_t i = 0; i < values.size(); ++i) a->setDouble(int64_t(i), values[i]);
  return a;
}
NDArrayRef arange(DataType t, int64_t n) {
  auto a = make<NDArray>(t, std::vector<int64_t>{n});
  for (int64_t i = 0; i < n; ++i) a->setDouble(i, double(i));
  return a;
}
}  // namespace

TEST_CASE("format: arrays print as numpy prints them", "[format]") {
  // np.array([1.5, 2.25], dtype=np.float32)
  CHECK(formatArray(*array(DataType::float32(), {2}, {1.5, 2.25})) == "array([1.5 , 2.25], dtype=float32)");
  // np.array([[1, 2], [3, 4]])
  CHECK(formatArray(*array(DataType::int64(), {2, 2}, {1, 2, 3, 4})) == "array([[1, 2],\n       [3, 4]])");
  // np.array([0.1, 1e-6], dtype=np.float32)
  CHECK(formatArray(*array(DataType::float32(), {2}, {0.1, 1e-6})) == "array([1.e-01, 1.e-06], dtype=float32)");
  // np.array([True, False])
  CHECK(formatArray(*array(DataType::boolean(), {2}, {1, 0})) == "array([ True, False])");
  // np.zeros((2, 0))
  CHECK(formatArray(*make<NDArray>(DataType::float64(), std::vector<int64_t>{2, 0})) == "array([], shape=(2, 0), dtype=float64)");
  // np.array(3.5, dtype=np.float32)
  CHECK(formatArray(*array(DataType::float32(), {}, {3.5})) == "array(3.5, dtype=float32)");
  // np.arange(2000.0): summarized; only the printed elements choose the notation.
  CHECK(formatArray(*arange(DataType::float64(), 2000)) == "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03])");
  // np.arange(12, dtype=np.int32).reshape(3, 4)
  auto m = arange(DataType::int32(), 12);
  auto m34 = make<NDArray>(DataType::int32(), std::vector<int64_t>{3, 4});
  std::memcpy(m34->data(), m->data(), m->nbytes());
  CHECK(formatArray(*m34) == "array([[ 0,  1,  2,  3],\n       [ 4,  5,  6,  7],\n       [ 8,  9, 10, 11]], dtype=int32)");
  // np.array([1.0, -2.0, 3.0]) / np.array([0.5, 100.25])
  CHECK(formatArray(*array(DataType::float64(), {3}, {1, -2, 3})) == "array([ 1., -2.,  3.])");
  CHECK(formatArray(*array(DataType::float64(), {2}, {0.5, 100.25})) == "array([  0.5 , 100.25])");
}
