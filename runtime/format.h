// Printing run results the way numpy prints arrays (`array([[1. , 2.5], ...], dtype=float32)`,
// aligned columns, 75-column lines, "..." beyond 1000 elements), and other VM values.
#pragma once
#include <string>

#include "ir/ndarray.h"
#include "runtime/value.h"

namespace rlx {

std::string formatArray(const NDArray& a);
// Tensors as arrays; tuples field by field (`(array(...), array(...))`); shapes, scalars, strings.
std::string formatValue(const vm::Value& v);

}  // namespace rlx
