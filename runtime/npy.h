// NumPy .npy files (format versions 1-3, little-endian, C order): reading inputs and writing
// outputs of `rlx run`. Malformed files are errors that say what is wrong, never crashes.
#pragma once
#include <string>

#include "ir/diagnostic.h"
#include "ir/ndarray.h"

namespace rlx {

// `raw` (optional) tells whether the file held raw elements (numpy's 'V' dtypes, how bfloat16 and
// float8 arrays are saved); they come back as unsigned ints of that width.
Result<NDArrayRef> readNpy(const std::string& path, bool* raw = nullptr);
Result<NDArrayRef> parseNpy(const std::string& bytes, const std::string& name, bool* raw = nullptr);
// int4/int2 (uint4/uint2) arrays are written as int8 (uint8) values, one a byte.
std::string encodeNpy(const NDArray& a);
Status writeNpy(const std::string& path, const NDArray& a);  // atomic (temp + rename)

// An int8/uint8 array (from .npy) as the int4/int2/uint4/uint2 `want`, when every value is in its
// range (an Error names the first that is not); any other array or dtype is returned unchanged.
Result<NDArrayRef> narrowIntegers(const NDArrayRef& a, DataType want);

}  // namespace rlx
