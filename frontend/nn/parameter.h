// nn::Parameter: a named weight of a module. It has a shape and dtype, optionally bound data (an
// NDArray), and while a method is exported the Relax expression that stands for it.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "frontend/nn/types.h"
#include "ir/diagnostic.h"
#include "ir/expr.h"

namespace rlx::nn {

class Parameter {
 public:
  // dtype defaults to defaultDtype() at construction.
  explicit Parameter(std::vector<int64_t> shape, std::optional<DType> dtype = std::nullopt);
  static std::shared_ptr<Parameter> create(std::vector<int64_t> shape, std::optional<DType> dtype = std::nullopt) {
    return std::make_shared<Parameter>(std::move(shape), dtype);
  }

  const std::vector<int64_t>& shape() const { return shape_; }
  DataType dtype() const { return dtype_; }

  // Bound data; null when unbound.
  const NDArrayRef& data() const { return data_; }
  // Binds (or, with null, unbinds) data of exactly this shape and dtype.
  Status setData(NDArrayRef data);
  // Whether `data` has exactly this parameter's shape and dtype (the check setData makes).
  Status checkData(const NDArray& data) const;
  // Changes the dtype; refused once data is bound (the data would silently keep its old dtype).
  Status to(DType dtype);

  // The expression standing for this parameter in the method being exported (set by the exporter).
  const Expr& expr() const { return expr_; }
  void setExpr(Expr e, std::string unavailableReason = {});
  // Why expr() is null (e.g. the method's param_mode is "none"); empty when simply not exporting.
  const std::string& unavailableReason() const { return unavailable_; }

 private:
  std::vector<int64_t> shape_;
  DataType dtype_;
  NDArrayRef data_;
  Expr expr_;
  std::string unavailable_;
};

}  // namespace rlx::nn
