// DataType: the scalar element type of tensors and PrimExprs ("float32", "int64x4", "bool", "void").
// Parsing and printing follow TVM's spelling; "void" is a handle of 0 bits.
//
// Memory layout of the narrow types: every element takes whole bytes, so element i of any tensor
// is at byte i * bytes(). The sub-byte types (int4, uint4, int2, uint2, float4_e2m1fn) take one
// byte each, holding the element's bits in its low bits and zeros above (ml_dtypes' layout, and
// TVM's storage size of one byte per element); ONNX's packed raw_data (two 4-bit or four 2-bit
// values a byte, lowest first) is unpacked on reading (frontend/onnx/tensor.cc). The float8 types
// hold their code in the byte; ir/minifloat.h converts them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rlx {

struct DataType {
  // The float8/float4 codes are rlx's own numbering (TVM's are DLPack's); only the names are shared.
  enum Code : uint8_t {
    Int = 0,
    UInt = 1,
    Float = 2,
    Handle = 3,
    BFloat = 4,
    Float8E4M3FN = 5,    // float8_e4m3fn: bias 7, no inf, NaN S.1111.111, max 448
    Float8E5M2 = 6,      // float8_e5m2: IEEE-like, bias 15, inf and NaN, max 57344
    Float8E4M3FNUZ = 7,  // float8_e4m3fnuz: bias 8, no inf, no -0, NaN 0x80, max 240
    Float8E5M2FNUZ = 8,  // float8_e5m2fnuz: bias 16, no inf, no -0, NaN 0x80, max 57344
    Float8E8M0FNU = 9,   // float8_e8m0fnu: unsigned powers of two 2^-127 .. 2^127, NaN 0xff
    Float4E2M1FN = 10,   // float4_e2m1fn: 4 bits, bias 1, no inf or NaN, max 6
  };
  Code code = Handle;
  uint8_t bits = 0;
  uint16_t lanes = 1;

  constexpr DataType() = default;
  constexpr DataType(Code c, int b, int l = 1) : code(c), bits(uint8_t(b)), lanes(uint16_t(l)) {}

  static constexpr DataType void_() { return DataType(Handle, 0, 0); }
  static constexpr DataType boolean() { return DataType(UInt, 1); }
  static constexpr DataType int32() { return DataType(Int, 32); }
  static constexpr DataType int64() { return DataType(Int, 64); }
  static constexpr DataType float32() { return DataType(Float, 32); }
  static constexpr DataType float64() { return DataType(Float, 64); }
  static constexpr DataType handle() { return DataType(Handle, 64); }

  bool isVoid() const { return code == Handle && bits == 0; }
  bool isBool() const { return code == UInt && bits == 1; }
  bool isInt() const { return code == Int; }
  bool isUInt() const { return code == UInt && bits != 1; }
  bool isIntegral() const { return code == Int || code == UInt; }  // bool included
  bool isFloat() const { return code == Float || code == BFloat || isMiniFloat(); }
  // The float8 and float4 types: a code per byte, converted by ir/minifloat.h.
  bool isMiniFloat() const { return code >= Float8E4M3FN && code <= Float4E2M1FN; }
  bool isHandle() const { return code == Handle && bits != 0; }
  int bytes() const { return (bits * lanes + 7) / 8; }
  DataType withLanes(int l) const { return DataType(code, bits, l); }
  DataType element() const { return DataType(code, bits, 1); }

  std::string str() const;
  static std::optional<DataType> parse(std::string_view s);

  bool operator==(const DataType& o) const { return code == o.code && bits == o.bits && lanes == o.lanes; }
  bool operator!=(const DataType& o) const { return !(*this == o); }
};

}  // namespace rlx
