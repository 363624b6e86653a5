// Reads TVM's base64 NDArrays (the `b64ndarrays` of `#[metadata]`): base64 → bytes → header checks →
// an NDArray. Sizes come from untrusted text, so each is checked before it is used or allocated.
#include "frontend/relay/base64_ndarray.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <vector>

namespace rlx::relay {

namespace {

constexpr uint64_t kMagic = 0xDD5E40F096B4A13FULL;
// The largest element count rlx will allocate for one constant (NDArray::uninitialized's bound).
constexpr int64_t kMaxElements = int64_t(1) << 46;

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Little-endian fields read one at a time, each refusing to run past the end.
class ByteReader {
 public:
  explicit ByteReader(std::string_view b) : bytes_(b) {}
  size_t pos() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }

  Result<uint64_t> u(size_t width, const char* what) {
    if (left() < width)
      return Error("truncated: " + std::string(what) + " at byte " + std::to_string(pos_) + " needs " + std::to_string(width) +
                   " bytes, " + std::to_string(left()) + " left");
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) v |= uint64_t(uint8_t(bytes_[pos_ + i])) << (8 * i);
    pos_ += width;
    return v;
  }
  std::string_view take(size_t n) {
    auto s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::string> decodeBase64(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3 + 3);
  uint32_t acc = 0;
  int have = 0;  // sextets in acc
  size_t padding = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (isSpace(c)) continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    int v = sextet(c);
    if (v < 0 || padding)
      return Error(std::string(v < 0 ? "invalid base64 character" : "base64 data after '=' padding") + " at position " + std::to_string(i));
    acc = acc << 6 | uint32_t(v);
    if (++have == 4) {
      out.push_back(char(acc >> 16));
      out.push_back(char(acc >> 8));
      out.push_back(char(acc));
      acc = 0;
      have = 0;
    }
  }
  // A final group of 2 or 3 sextets carries 1 or 2 bytes; a lone sextet carries none.
  if (have == 1) return Error("base64 text ends in the middle of a byte");
  if (have == 2) out.push_back(char(acc >> 4));
  if (have == 3) {
    out.push_back(char(acc >> 10));
    out.push_back(char(acc >> 2));
  }
  if (padding > 2 || (padding && (have + padding) % 4 != 0)) return Error("wrong base64 '=' padding");
  return out;
}

Result<DataType> dtypeFromDLPack(uint8_t code, uint8_t bits, uint16_t lanes) {
  auto describe = [&] { return "code " + std::to_string(code) + ", " + std::to_string(bits) + " bits"; };
  if (lanes != 1) return Error("vector element type (" + describe() + ", " + std::to_string(lanes) + " lanes) is not supported");
  auto oneOf = [&](std::initializer_list<int> ok) {
    for (int b : ok)
      if (b == bits) return true;
    return false;
  };
  std::optional<DataType> t;
  switch (code) {
    case 0: if (oneOf({4, 8, 16, 32, 64})) t = DataType(DataType::Int, bits); break;
    case 1: if (oneOf({1, 4, 8, 16, 32, 64})) t = DataType(DataType::UInt, bits); break;  // uint1 is bool
    case 2: if (oneOf({16, 32, 64})) t = DataType(DataType::Float, bits); break;
    case 4: if (bits == 16) t = DataType(DataType::BFloat, 16); break;
    // TVM v0.19's own codes (Relay ends there); later TVMs follow DLPack 1.1, where 6 is bool.
    case 6: if (bits == 8) t = DataType(DataType::Float8E4M3FN, 8); break;
    case 7: if (bits == 8) t = DataType(DataType::Float8E5M2, 8); break;
    default: break;
  }
  if (!t) return Error("unsupported element type (" + describe() + ")");
  return *t;
}

Result<NDArrayRef> decodeTvmNDArray(std::string_view bytes) {
  static_assert(std::endian::native == std::endian::little, "the data is copied as stored: little-endian");
  ByteReader r(bytes);
  RLX_TRY(magic, r.u(8, "the magic number"));
  if (magic != kMagic) {
    char hex[19];
    std::snprintf(hex, sizeof hex, "0x%016llX", static_cast<unsigned long long>(magic));
    return Error(std::string("not a TVM NDArray: magic number ") + hex + ", expected 0xDD5E40F096B4A13F");
  }
  RLX_TRY(reserved, r.u(8, "the reserved word"));
  (void)reserved;
  // The device it was saved from; TVM loads every array to the CPU, and so does rlx.
  RLX_TRY(deviceType, r.u(4, "the device type"));
  RLX_TRY(deviceId, r.u(4, "the device id"));
  (void)deviceType;
  (void)deviceId;
  RLX_TRY(ndimBits, r.u(4, "ndim"));
  int32_t ndim = int32_t(uint32_t(ndimBits));
  RLX_TRY(code, r.u(1, "the type code"));
  RLX_TRY(bits, r.u(1, "the type bits"));
  RLX_TRY(lanes, r.u(2, "the type lanes"));
  RLX_TRY(dtype, dtypeFromDLPack(uint8_t(code), uint8_t(bits), uint16_t(lanes)));
  if (ndim < 0) return Error("negative ndim " + std::to_string(ndim));
  if (size_t(ndim) > r.left() / 8)
    return Error("truncated: ndim " + std::to_string(ndim) + " needs " + std::to_string(int64_t(ndim) * 8) + " bytes of shape, " +
                 std::to_string(r.left()) + " left");
  std::vector<int64_t> shape;
  int64_t numel = 1;
  for (int32_t i = 0; i < ndim; ++i) {
    RLX_TRY(dimBits, r.u(8, "a dimension"));
    int64_t d = int64_t(dimBits);
    if (d < 0) return Error("shape[" + std::to_string(i) + "] is negative (" + std::to_string(d) + ")");
    if (d != 0 && numel > kMaxElements / d) return Error("the shape has more than 2^46 elements");
    numel *= d;
    shape.push_back(d);
  }
  RLX_TRY(nbytesBits, r.u(8, "nbytes"));
  int64_t nbytes = int64_t(nbytesBits);
  int64_t expected = numel * dtype.bytes();  // numel <= 2^46 and bytes() <= 8: no overflow
  if (nbytes != expected)
    return Error("nbytes is " + std::to_string(nbytes) + " but " + std::to_string(numel) + " elements of " + dtype.str() + " take " +
                 std::to_string(expected));
  if (uint64_t(nbytes) > r.left())
    return Error("truncated: the data needs " + std::to_string(nbytes) + " bytes, " + std::to_string(r.left()) + " left");
  if (uint64_t(nbytes) < r.left()) return Error(std::to_string(r.left() - size_t(nbytes)) + " bytes after the data");
  NDArrayRef a = NDArray::uninitialized(dtype, shape);
  if (!a) return Error("cannot allocate " + std::to_string(nbytes) + " bytes");
  auto data = r.take(size_t(nbytes));
  if (!data.empty()) std::memcpy(a->data(), data.data(), data.size());
  // rlx keeps a bool as 0/1 and a sub-byte integer in the low bits of its byte (ir/dtype.h).
  if (dtype.bits < 8) {
    uint8_t mask = dtype.isBool() ? 1 : uint8_t((1u << dtype.bits) - 1);
    auto* p = a->as<uint8_t>();
    for (int64_t i = 0; i < numel; ++i) p[i] = dtype.isBool() ? uint8_t(p[i] != 0) : uint8_t(p[i] & mask);
  }
  return a;
}

Result<NDArrayRef> decodeBase64NDArray(std::string_view base64) {
  RLX_TRY(bytes, decodeBase64(base64));
  return decodeTvmNDArray(bytes);
}

}  // namespace rlx::relay
