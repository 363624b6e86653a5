// DataType spelling: TVM's names ("float32", "uint8", "bool", "handle", "void", "float32x4").
// Unknown spellings are rejected rather than guessed.
#include "ir/dtype.h"

#include <charconv>

namespace rlx {

std::string DataType::str() const {
  if (isVoid()) return "void";
  std::string base;
  if (isBool()) {
    base = "bool";
  } else {
    switch (code) {
      case Int: base = "int" + std::to_string(bits); break;
      case UInt: base = "uint" + std::to_string(bits); break;
      case Float: base = "float" + std::to_string(bits); break;
      case BFloat: base = "bfloat" + std::to_string(bits); break;
      case Handle: base = "handle"; break;
      case Float8E4M3FN: base = "float8_e4m3fn"; break;
      case Float8E5M2: base = "float8_e5m2"; break;
      case Float8E4M3FNUZ: base = "float8_e4m3fnuz"; break;
      case Float8E5M2FNUZ: base = "float8_e5m2fnuz"; break;
      case Float8E8M0FNU: base = "float8_e8m0fnu"; break;
      case Float4E2M1FN: base = "float4_e2m1fn"; break;
    }
  }
  if (lanes != 1) base += "x" + std::to_string(lanes);
  return base;
}

std::optional<DataType> DataType::parse(std::string_view s) {
  if (s == "void" || s.empty()) return void_();
  int lanes = 1;
  if (auto x = s.rfind('x'); x != std::string_view::npos && x + 1 < s.size()) {
    int l = 0;
    auto tail = s.substr(x + 1);
    auto [p, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), l);
    if (ec == std::errc() && p == tail.data() + tail.size() && l > 0) {
      lanes = l;
      s = s.substr(0, x);
    }
  }
  auto withBits = [&](std::string_view prefix, Code code) -> std::optional<DataType> {
    auto rest = s.substr(prefix.size());
    int b = 0;
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), b);
    if (ec != std::errc() || p != rest.data() + rest.size()) return std::nullopt;
    bool ok = code == Float ? (b == 16 || b == 32 || b == 64) : code == BFloat ? b == 16 : (b == 2 || b == 4 || b == 8 || b == 16 || b == 32 || b == 64);
    if (!ok) return std::nullopt;
    return DataType(code, b, lanes);
  };
  if (s == "bool") return DataType(UInt, 1, lanes);
  if (s == "handle") return DataType(Handle, 64, lanes);
  if (s == "float8_e4m3fn") return DataType(Float8E4M3FN, 8, lanes);
  if (s == "float8_e5m2") return DataType(Float8E5M2, 8, lanes);
  if (s == "float8_e4m3fnuz") return DataType(Float8E4M3FNUZ, 8, lanes);
  if (s == "float8_e5m2fnuz") return DataType(Float8E5M2FNUZ, 8, lanes);
  if (s == "float8_e8m0fnu") return DataType(Float8E8M0FNU, 8, lanes);
  if (s == "float4_e2m1fn") return DataType(Float4E2M1FN, 4, lanes);
  if (s.substr(0, 4) == "uint") return withBits("uint", UInt);
  if (s.substr(0, 3) == "int") return withBits("int", Int);
  if (s.substr(0, 6) == "bfloat") return withBits("bfloat", BFloat);
  if (s.substr(0, 5) == "float") return withBits("float", Float);
  return std::nullopt;
}

}  // namespace rlx
