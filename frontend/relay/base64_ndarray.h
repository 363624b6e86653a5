// TVM's saved NDArray (`NDArray::Save`, what `b64ndarrays` of a node-graph JSON holds in base64) read
// into an rlx NDArray. Every size is checked against the bytes present: corrupt input is an Error.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/diagnostic.h"
#include "ir/ndarray.h"

namespace rlx::relay {

// Standard base64 (RFC 4648 alphabet, `=` padding optional); whitespace is skipped.
Result<std::string> decodeBase64(std::string_view text);

// DLPack's (code, bits, lanes) as TVM v0.19 numbers them (0 int, 1 uint, 2 float, 4 bfloat, and
// TVM's own 6 float8_e4m3fn, 7 float8_e5m2) → rlx's DataType; vector types are refused.
Result<DataType> dtypeFromDLPack(uint8_t code, uint8_t bits, uint16_t lanes);

// The binary layout, all little-endian: u64 magic 0xDD5E40F096B4A13F, u64 reserved, i32 device
// type, i32 device id, i32 ndim, u8 code, u8 bits, u16 lanes, i64 shape[ndim], i64 nbytes, data.
Result<NDArrayRef> decodeTvmNDArray(std::string_view bytes);

// Both steps: a `b64ndarrays` entry.
Result<NDArrayRef> decodeBase64NDArray(std::string_view base64);

}  // namespace rlx::relay
