// NDArray storage (64-byte aligned) and element access by dtype, including float16/bfloat16, the
// float8/float4 codes and the sub-byte integers (one a byte, see ir/dtype.h). Element accessors
// convert through double/int64 so generic code (printer, folding) stays simple.
#include "ir/ndarray.h"

#include <bit>
#include <cmath>
#include <cstdlib>

#include "ir/buffer_memory.h"
#include "ir/diagnostic.h"
#include "ir/minifloat.h"

namespace rlx {

int64_t saturatingInt(double v) {
  if (std::isnan(v)) return 0;  // a float->int conversion of NaN is undefined in C++; pick 0
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  return int64_t(v);
}

NDArray::NDArray(DataType t, std::vector<int64_t> s) : Object(NodeKind::NDArray), dtype(t), shape(std::move(s)) {
  size_t n = std::max<size_t>(nbytes(), 1);
  data_ = allocateBuffer(n);
  RLX_CHECK(data_, "out of memory");
  allocated_ = n;
  std::memset(data_, 0, n);
}

NDArray::NDArray(DataType t, std::vector<int64_t> s, NoInit) : Object(NodeKind::NDArray), dtype(t), shape(std::move(s)) {
  size_t n = std::max<size_t>(nbytes(), 1);
  data_ = allocateBuffer(n);
  allocated_ = n;
}

Ref<NDArray> NDArray::uninitialized(DataType t, std::vector<int64_t> s) {
  int64_t numel = 1;
  for (auto d : s) {
    if (d < 0 || (d > 0 && numel > (int64_t(1) << 46) / d)) return nullptr;  // negative or absurd (> 64 TiB)
    numel *= d;
  }
  Ref<NDArray> a(new NDArray(t, std::move(s), NoInit{}));
  return a->data_ ? a : nullptr;
}

NDArray::NDArray(DataType t, std::vector<int64_t> s, void* data, Ref<NDArray> owner)
    : Object(NodeKind::NDArray), dtype(t), shape(std::move(s)), data_(data), owner_(std::move(owner)) {
  RLX_CHECK(owner_, "an NDArray view needs the object that owns its data");
}

NDArray::~NDArray() {
  if (!owner_) releaseBuffer(data_, allocated_);
}

int64_t NDArray::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      bits = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000 | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  return std::bit_cast<float>(bits);
}

uint16_t floatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 0x1f) return uint16_t(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000;
    int shift = 14 - exp;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | uint32_t(exp) << 10 | mant >> 13;
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return uint16_t(half);
}

float bfloat16ToFloat(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
uint16_t floatToBfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return uint16_t((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

double NDArray::getDouble(int64_t i) const {
  switch (dtype.code) {
    case DataType::Float:
      if (dtype.bits == 32) return as<float>()[i];
      if (dtype.bits == 64) return as<double>()[i];
      if (dtype.bits == 16) return halfToFloat(as<uint16_t>()[i]);
      return 0;
    case DataType::BFloat:
      return bfloat16ToFloat(as<uint16_t>()[i]);
    case DataType::Int:
    case DataType::UInt:
      return double(getInt(i));
    case DataType::Handle:
      return 0;
    default:
      return decodeMiniFloat(dtype, as<uint8_t>()[i]);
  }
}

int64_t NDArray::getInt(int64_t i) const {
  switch (dtype.code) {
    case DataType::Int:
      switch (dtype.bits) {
        case 2:
        case 4: {  // the low bits of the byte, sign-extended
          int shift = 8 - dtype.bits;
          return int8_t(uint8_t(as<uint8_t>()[i] << shift)) >> shift;
        }
        case 8: return as<int8_t>()[i];
        case 16: return as<int16_t>()[i];
        case 32: return as<int32_t>()[i];
        case 64: return as<int64_t>()[i];
      }
      return 0;
    case DataType::UInt:
      switch (dtype.bits) {
        case 1:
        case 8: return as<uint8_t>()[i];
        case 2:
        case 4: return as<uint8_t>()[i] & ((1 << dtype.bits) - 1);
        case 16: return as<uint16_t>()[i];
        case 32: return as<uint32_t>()[i];
        case 64: return int64_t(as<uint64_t>()[i]);
      }
      return 0;
    case DataType::Handle:
      return 0;
    default:  // floats: never through getInt's own default, which would recurse
      return saturatingInt(getDouble(i));
  }
}

void NDArray::setDouble(int64_t i, double v) {
  switch (dtype.code) {
    case DataType::Float:
      if (dtype.bits == 32) as<float>()[i] = float(v);
      else if (dtype.bits == 64) as<double>()[i] = v;
      else if (dtype.bits == 16) as<uint16_t>()[i] = floatToHalf(float(v));
      return;
    case DataType::BFloat:
      as<uint16_t>()[i] = floatToBfloat16(float(v));
      return;
    case DataType::Int:
    case DataType::UInt:
      setInt(i, dtype.isBool() ? (v != 0) : saturatingInt(v));
      return;
    case DataType::Handle:
      return;
    default:  // as R.astype converts: through float32, rounded to nearest even, saturating
      as<uint8_t>()[i] = encodeMiniFloat(dtype, float(v));
  }
}

void NDArray::setInt(int64_t i, int64_t v) {
  switch (dtype.code) {
    case DataType::Int:
    case DataType::UInt:
      switch (dtype.bits) {
        case 1: as<uint8_t>()[i] = v != 0; return;
        case 2:
        case 4: as<uint8_t>()[i] = uint8_t(v & ((1 << dtype.bits) - 1)); return;  // wraps, as wider ints do
        case 8: as<uint8_t>()[i] = uint8_t(v); return;
        case 16: as<uint16_t>()[i] = uint16_t(v); return;
        case 32: as<uint32_t>()[i] = uint32_t(v); return;
        case 64: as<uint64_t>()[i] = uint64_t(v); return;
      }
      return;
    case DataType::Handle:
      return;
    default:
      setDouble(i, double(v));
  }
}

bool NDArray::sameData(const NDArray& o) const {
  return dtype == o.dtype && shape == o.shape && std::memcmp(data_, o.data_, nbytes()) == 0;
}

}  // namespace rlx
