// NDArray: a dense, 64-byte aligned host tensor (the data a Relax Constant holds).
// Shape is int64 dims; elements are stored row-major in the dtype's native layout.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "ir/dtype.h"
#include "ir/object.h"

namespace rlx {

class NDArray final : public Object {
 public:
  NDArray(DataType t, std::vector<int64_t> s);
  // A view of `data` (inside `owner`'s bytes, at least nbytes() long) that keeps `owner` alive
  // and does not free the data itself: the VM's tensors placed in a storage block (a uint8 array).
  NDArray(DataType t, std::vector<int64_t> s, void* data, Ref<NDArray> owner);
  ~NDArray() override;
  // An array whose contents are left uninitialized (the VM's storage blocks: every byte is written
  // by a kernel before it is read); null when the memory cannot be allocated, instead of aborting.
  static Ref<NDArray> uninitialized(DataType t, std::vector<int64_t> s);
  static bool classOf(NodeKind k) { return k == NodeKind::NDArray; }

  DataType dtype;
  std::vector<int64_t> shape;

  int64_t numel() const;
  size_t nbytes() const { return size_t(numel()) * size_t(dtype.bytes()); }
  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* as() { return static_cast<T*>(data_); }
  template <typename T>
  const T* as() const { return static_cast<const T*>(data_); }

  // Element i converted to double / int64 (any dtype), and stored from them.
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
  void setDouble(int64_t i, double v);
  void setInt(int64_t i, int64_t v);

  bool sameData(const NDArray& o) const;
  const Ref<NDArray>& owner() const { return owner_; }

 private:
  struct NoInit {};
  NDArray(DataType t, std::vector<int64_t> s, NoInit);
  void* data_ = nullptr;
  size_t allocated_ = 0;  // bytes of data_'s allocation (0 for a view)
  Ref<NDArray> owner_;  // set for views; null when the array owns data_
};
using NDArrayRef = Ref<NDArray>;

// double -> int64 truncating toward zero, saturating out-of-range values and NaN (→ 0) instead
// of C++'s undefined behaviour.
int64_t saturatingInt(double v);

// IEEE half <-> float conversions (round to nearest even).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bfloat16ToFloat(uint16_t h);
uint16_t floatToBfloat16(float f);

}  // namespace rlx
