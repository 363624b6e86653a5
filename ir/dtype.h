// DataType: the scalar element type of tensors and PrimExprs ("float32", "int64x4", "bool", "void").
// Parsing and printing follow TVM's spelling; "void" is a handle of 0 bits.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rlx {

struct DataType {
  enum Code : uint8_t { Int = 0, UInt = 1, Float = 2, Handle = 3, BFloat = 4, Float8E4M3 = 5, Float8E5M2 = 6 };
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
  bool isFloat() const { return code == Float || code == BFloat || code == Float8E4M3 || code == Float8E5M2; }
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
