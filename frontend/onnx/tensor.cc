// TensorProto <-> NDArray: every storage form the format allows (raw_data, typed fields, external
// data), checked against the declared shape so a short or corrupt tensor is an error, not a crash.
// ONNX packs the 4-bit and 2-bit types (two or four a byte, the first in the lowest bits, in
// raw_data and in each int32_data value); rlx holds them one a byte (ir/dtype.h).
#include "frontend/onnx/tensor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <limits>

namespace rlx::onnx {

namespace {

using TP = ::onnx::TensorProto;

struct TypeEntry {
  int32_t code;
  const char* name;
  DataType dtype;  // void = not supported by rlx
};

const TypeEntry kTypes[] = {
    {TP::FLOAT, "FLOAT", DataType::float32()},
    {TP::UINT8, "UINT8", DataType(DataType::UInt, 8)},
    {TP::INT8, "INT8", DataType(DataType::Int, 8)},
    {TP::UINT16, "UINT16", DataType(DataType::UInt, 16)},
    {TP::INT16, "INT16", DataType(DataType::Int, 16)},
    {TP::INT32, "INT32", DataType::int32()},
    {TP::INT64, "INT64", DataType::int64()},
    {TP::STRING, "STRING", DataType::void_()},
    {TP::BOOL, "BOOL", DataType::boolean()},
    {TP::FLOAT16, "FLOAT16", DataType(DataType::Float, 16)},
    {TP::DOUBLE, "DOUBLE", DataType::float64()},
    {TP::UINT32, "UINT32", DataType(DataType::UInt, 32)},
    {TP::UINT64, "UINT64", DataType(DataType::UInt, 64)},
    {TP::COMPLEX64, "COMPLEX64", DataType::void_()},
    {TP::COMPLEX128, "COMPLEX128", DataType::void_()},
    {TP::BFLOAT16, "BFLOAT16", DataType(DataType::BFloat, 16)},
    {17, "FLOAT8E4M3FN", DataType(DataType::Float8E4M3FN, 8)},
    {18, "FLOAT8E4M3FNUZ", DataType(DataType::Float8E4M3FNUZ, 8)},
    {19, "FLOAT8E5M2", DataType(DataType::Float8E5M2, 8)},
    {20, "FLOAT8E5M2FNUZ", DataType(DataType::Float8E5M2FNUZ, 8)},
    {21, "UINT4", DataType(DataType::UInt, 4)},
    {22, "INT4", DataType(DataType::Int, 4)},
    {23, "FLOAT4E2M1", DataType(DataType::Float4E2M1FN, 4)},
    {24, "FLOAT8E8M0", DataType(DataType::Float8E8M0FNU, 8)},
    {25, "UINT2", DataType(DataType::UInt, 2)},
    {26, "INT2", DataType(DataType::Int, 2)},
};

const TypeEntry* entryOf(int32_t code) {
  for (auto& e : kTypes)
    if (e.code == code) return &e;
  return nullptr;
}

// The 4-bit and 2-bit types, which ONNX packs several to a byte (bool, 1 bit, takes a byte).
bool isPacked(DataType t) { return t.bits < 8 && !t.isBool(); }

// The bytes `numel` elements of `t` take in a TensorProto (packed types rounded up to a byte).
size_t protoBytes(DataType t, int64_t numel) {
  if (isPacked(t)) return (size_t(numel) * t.bits + 7) / 8;
  return size_t(numel) * size_t(t.bytes());
}

// ONNX's packed bytes -> one element a byte: element i is bits [i*b, i*b + b) of the stream.
void unpack(const uint8_t* packed, NDArray& a) {
  int bits = a.dtype.bits, perByte = 8 / bits;
  uint8_t mask = uint8_t((1u << bits) - 1);
  auto* out = a.as<uint8_t>();
  for (int64_t i = 0; i < a.numel(); ++i) out[i] = uint8_t(packed[i / perByte] >> ((i % perByte) * bits)) & mask;
}

// The inverse; the unused high bits of a last partial byte are zero.
std::string pack(const NDArray& a) {
  int bits = a.dtype.bits, perByte = 8 / bits;
  uint8_t mask = uint8_t((1u << bits) - 1);
  std::string packed(protoBytes(a.dtype, a.numel()), '\0');
  const auto* in = a.as<uint8_t>();
  for (int64_t i = 0; i < a.numel(); ++i) packed[size_t(i / perByte)] = char(uint8_t(packed[size_t(i / perByte)]) | uint8_t((in[i] & mask) << ((i % perByte) * bits)));
  return packed;
}

// The external-data file's path, refusing locations that leave the model's folder.
Result<std::string> externalPath(const std::string& location, const std::string& baseDir) {
  if (location.empty()) return Error("external data without a 'location'");
  if (location[0] == '/') return Error("external data location '" + location + "' is absolute; it must be relative to the model's folder");
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string::npos) end = location.size();
    if (location.compare(start, end - start, "..") == 0 && end - start == 2) return Error("external data location '" + location + "' leaves the model's folder");
    start = end + 1;
  }
  return baseDir.empty() ? location : baseDir + "/" + location;
}

// An external tensor's bytes, checked to be in its file (before any memory is allocated for them).
Result<BytesInFile> externalSource(const TP& t, const std::string& baseDir, size_t nbytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto& kv : t.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = std::stoll(kv.value());
      else if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (const std::exception&) {
      return Error("external data '" + kv.key() + "' is not a number: '" + kv.value() + "'");
    }
  }
  RLX_TRY(path, externalPath(location, baseDir));
  if (offset < 0) return Error("external data offset " + std::to_string(offset) + " is negative");
  if (length >= 0 && size_t(length) != nbytes)
    return Error("external data of '" + t.name() + "' has length " + std::to_string(length) + " but its shape and type need " + std::to_string(nbytes) + " bytes");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Error("cannot open external data file '" + path + "': " + std::strerror(errno));
  if (st.st_size < offset || size_t(st.st_size - offset) < nbytes)
    return Error("external data file '" + path + "' is too short: tensor '" + t.name() + "' needs " + std::to_string(nbytes) + " bytes at offset " + std::to_string(offset));
  return BytesInFile{path, offset, nbytes};
}

Status readBytes(const BytesInFile& src, void* dst, size_t nbytes) {
  int fd = ::open(src.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error("cannot open '" + src.path + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < nbytes) {
    ssize_t n = ::pread(fd, static_cast<char*>(dst) + done, nbytes - done, src.offset + off_t(done));
    if (n <= 0) {
      ::close(fd);
      return Error("reading '" + src.path + "' failed at byte " + std::to_string(src.offset + int64_t(done)));
    }
    done += size_t(n);
  }
  ::close(fd);
  return okStatus();
}

// Copies a typed repeated field into the array, element by element, after a count check.
template <typename Field, typename Store>
Status fromTyped(const Field& field, NDArray& a, const char* fieldName, Store store) {
  if (int64_t(field.size()) != a.numel())
    return Error(std::string(fieldName) + " holds " + std::to_string(field.size()) + " values but the shape needs " + std::to_string(a.numel()));
  for (int64_t i = 0; i < a.numel(); ++i) store(a, i, field.Get(int(i)));
  return okStatus();
}

}  // namespace

Result<DataType> dtypeOf(int32_t onnxType) {
  auto* e = entryOf(onnxType);
  if (!e) return Error("unknown ONNX element type " + std::to_string(onnxType));
  if (e->dtype.isVoid()) return Error(std::string("ONNX element type ") + e->name + " is not supported by rlx");
  return e->dtype;
}

std::string onnxTypeName(int32_t onnxType) {
  auto* e = entryOf(onnxType);
  return e ? e->name : "type " + std::to_string(onnxType);
}

int32_t onnxTypeOf(DataType t) {
  for (auto& e : kTypes)
    if (!e.dtype.isVoid() && e.dtype == t) return e.code;
  return 0;
}

Result<NDArrayRef> toNDArray(TP& t, const std::string& baseDir, bool release, const BytesInFile* inFile) {
  auto where = [&](Error e) {
    e.message = "tensor '" + t.name() + "': " + e.message;
    return e;
  };
  auto dt = dtypeOf(t.data_type());
  if (!dt) return where(dt.error());
  std::vector<int64_t> shape;
  int64_t numel = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) return where(Error("negative dim " + std::to_string(d)));
    if (d != 0 && numel > std::numeric_limits<int64_t>::max() / 4 / d) return where(Error("the shape is too large"));
    numel *= d;
    shape.push_back(d);
  }
  if (t.has_segment()) return where(Error("segmented tensors are not supported"));
  DataType d = *dt;
  size_t nbytes = protoBytes(d, numel);
  // Every source is checked against the shape before memory is allocated for it.
  auto fromFile = [&](const BytesInFile& src) -> Result<NDArrayRef> {
    NDArrayRef a = NDArray::uninitialized(d, shape);
    if (!a) return where(Error("cannot allocate " + std::to_string(numel) + " elements"));
    if (isPacked(d)) {
      std::string packed(nbytes, '\0');
      auto st = readBytes(src, packed.data(), nbytes);
      if (!st) return where(st.error());
      unpack(reinterpret_cast<const uint8_t*>(packed.data()), *a);
      return a;
    }
    auto st = readBytes(src, a->data(), nbytes);
    if (!st) return where(st.error());
    return a;
  };
  if (t.data_location() == TP::EXTERNAL) {
    auto src = externalSource(t, baseDir, nbytes);
    if (!src) return where(src.error());
    return fromFile(*src);
  }
  if (inFile) {
    if (inFile->length != nbytes)
      return where(Error("raw_data holds " + std::to_string(inFile->length) + " bytes but the shape and type need " + std::to_string(nbytes)));
    return fromFile(*inFile);
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != nbytes)
      return where(Error("raw_data holds " + std::to_string(t.raw_data().size()) + " bytes but the shape and type need " + std::to_string(nbytes)));
    NDArrayRef a = NDArray::uninitialized(d, shape);
    if (!a) return where(Error("cannot allocate " + std::to_string(numel) + " elements"));
    if (isPacked(d)) unpack(reinterpret_cast<const uint8_t*>(t.raw_data().data()), *a);
    else if (nbytes) std::memcpy(a->data(), t.raw_data().data(), nbytes);
    if (release) std::string().swap(*t.mutable_raw_data());
    return a;
  }
  // int32_data holds the packed types a byte per value (two 4-bit or four 2-bit elements).
  int64_t needed = isPacked(d) ? int64_t(nbytes) : numel;
  int64_t stored = d == DataType::float32() ? t.float_data_size() : d == DataType::float64() ? t.double_data_size() : d == DataType::int64() ? t.int64_data_size()
                   : (d == DataType(DataType::UInt, 32) || d == DataType(DataType::UInt, 64)) ? t.uint64_data_size() : t.int32_data_size();
  if (stored != needed) return where(Error("the tensor holds " + std::to_string(stored) + " values but its shape needs " + std::to_string(needed)));
  NDArrayRef a = NDArray::uninitialized(d, shape);
  if (!a) return where(Error("cannot allocate " + std::to_string(numel) + " elements"));
  if (isPacked(d)) {
    std::vector<uint8_t> packed(nbytes);
    for (size_t k = 0; k < nbytes; ++k) packed[k] = uint8_t(t.int32_data(int(k)));
    unpack(packed.data(), *a);
    return a;
  }
  Status st = okStatus();
  auto setInt = [](NDArray& arr, int64_t i, int64_t v) { arr.setInt(i, v); };
  auto setBits16 = [](NDArray& arr, int64_t i, int32_t v) { arr.as<uint16_t>()[i] = uint16_t(v); };
  auto setBits8 = [](NDArray& arr, int64_t i, int32_t v) { arr.as<uint8_t>()[i] = uint8_t(v); };
  if (d == DataType::float32()) st = fromTyped(t.float_data(), *a, "float_data", [](NDArray& arr, int64_t i, float v) { arr.as<float>()[i] = v; });
  else if (d == DataType::float64()) st = fromTyped(t.double_data(), *a, "double_data", [](NDArray& arr, int64_t i, double v) { arr.as<double>()[i] = v; });
  else if (d == DataType::int64()) st = fromTyped(t.int64_data(), *a, "int64_data", setInt);
  else if (d == DataType(DataType::UInt, 32) || d == DataType(DataType::UInt, 64))
    st = fromTyped(t.uint64_data(), *a, "uint64_data", [](NDArray& arr, int64_t i, uint64_t v) {
      if (arr.dtype.bits == 64) arr.as<uint64_t>()[i] = v;
      else arr.as<uint32_t>()[i] = uint32_t(v);
    });
  else if (d.bits == 16 && d.isFloat()) st = fromTyped(t.int32_data(), *a, "int32_data", setBits16);
  else if (d.bits == 8 && d.isFloat()) st = fromTyped(t.int32_data(), *a, "int32_data", setBits8);
  else st = fromTyped(t.int32_data(), *a, "int32_data", setInt);
  if (!st) return where(st.error());
  return a;
}

Status fromNDArray(const NDArray& a, TP& t, bool rawData) {
  int32_t code = onnxTypeOf(a.dtype);
  if (!code || a.dtype.lanes != 1) return Error("ONNX has no element type for " + a.dtype.str());
  t.Clear();
  t.set_data_type(code);
  for (int64_t d : a.shape) t.add_dims(d);
  DataType d = a.dtype;
  if (rawData) {
    if (isPacked(d)) t.set_raw_data(pack(a));
    else t.set_raw_data(std::string(static_cast<const char*>(a.data()), a.nbytes()));
    return okStatus();
  }
  int64_t n = a.numel();
  if (d == DataType::float32()) {
    for (int64_t i = 0; i < n; ++i) t.add_float_data(a.as<float>()[i]);
  } else if (d == DataType::float64()) {
    for (int64_t i = 0; i < n; ++i) t.add_double_data(a.as<double>()[i]);
  } else if (d == DataType::int64()) {
    for (int64_t i = 0; i < n; ++i) t.add_int64_data(a.as<int64_t>()[i]);
  } else if (d == DataType(DataType::UInt, 32) || d == DataType(DataType::UInt, 64)) {
    for (int64_t i = 0; i < n; ++i) t.add_uint64_data(d.bits == 64 ? a.as<uint64_t>()[i] : a.as<uint32_t>()[i]);
  } else if (isPacked(d)) {
    for (char byte : pack(a)) t.add_int32_data(uint8_t(byte));
  } else if (d.isFloat()) {  // float16, bfloat16, float8: their bits
    for (int64_t i = 0; i < n; ++i) t.add_int32_data(d.bits == 16 ? int32_t(a.as<uint16_t>()[i]) : int32_t(a.as<uint8_t>()[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) t.add_int32_data(int32_t(a.getInt(i)));
  }
  return okStatus();
}

}  // namespace rlx::onnx
