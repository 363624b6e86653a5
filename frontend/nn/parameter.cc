// Parameter (see parameter.h).
#include "frontend/nn/parameter.h"

#include "frontend/nn/error.h"
#include "frontend/nn/module.h"

namespace rlx::nn {

namespace {
std::string shapeStr(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}
}  // namespace

Parameter::Parameter(std::vector<int64_t> shape, std::optional<DType> dtype) : shape_(std::move(shape)), dtype_(dtype ? dtype->get() : defaultDtype()) {
  for (auto d : shape_)
    if (d < 0) fail("a parameter dim must be non-negative, got " + shapeStr(shape_));
}

Status Parameter::checkData(const NDArray& data) const {
  if (data.shape != shape_) return Error("parameter data has shape " + shapeStr(data.shape) + ", expected " + shapeStr(shape_));
  if (data.dtype != dtype_) return Error("parameter data has dtype " + data.dtype.str() + ", expected " + dtype_.str());
  return okStatus();
}

Status Parameter::setData(NDArrayRef data) {
  if (data) RLX_TRY_STATUS(checkData(*data));
  data_ = std::move(data);
  return okStatus();
}

Status Parameter::to(DType dtype) {
  if (dtype.get() == dtype_) return okStatus();
  if (data_) return Error("cannot change the dtype of a parameter that has data bound (" + dtype_.str() + " -> " + dtype.str() + ")", {}, "convert before loading the weights");
  dtype_ = dtype;
  return okStatus();
}

void Parameter::setExpr(Expr e, std::string unavailableReason) {
  expr_ = std::move(e);
  unavailable_ = std::move(unavailableReason);
}

}  // namespace rlx::nn
