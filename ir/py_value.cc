// Out-of-line special members of PyValue (it contains itself through `dict`, so they cannot be
// instantiated inside the class definition; clang rejects that).
#include "ir/op.h"

namespace rlx {

PyValue::PyValue() = default;
PyValue::~PyValue() = default;
PyValue::PyValue(const PyValue&) = default;
PyValue::PyValue(PyValue&&) noexcept = default;
PyValue& PyValue::operator=(const PyValue&) = default;
PyValue& PyValue::operator=(PyValue&&) noexcept = default;

}  // namespace rlx
