// TensorProto -> NDArray: every storage form the format allows (raw_data, typed fields, external
// data), checked against the declared shape so a short or corrupt tensor is an error, not a crash.
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
    {18, "FLOAT8E4M3FNUZ", DataType::void_()},
    {19, "FLOAT8E5M2", DataType(DataType::Float8E5M2, 8)},
    {20, "FLOAT8E5M2FNUZ", DataType::void_()},
    {21, "UINT4", DataType::void_()},
    {22, "INT4", DataType::void_()},
    {23, "FLOAT4E2M1", DataType::void_()},
};

const TypeEntry* entryOf(int32_t code) {
  for (auto& e : kTypes)
    if (e.code == code) return &e;
  return nullptr;
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

// Where an external tensor's bytes are: the file and offset, checked to hold `nbytes` (before any
// memory is allocated for them).
struct ExternalSource {
  std::string path;
  int64_t offset = 0;
};

Result<ExternalSource> externalSource(const TP& t, const std::string& baseDir, size_t nbytes) {
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
  return ExternalSource{path, offset};
}

Status readExternal(const ExternalSource& src, void* dst, size_t nbytes) {
  int fd = ::open(src.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error("cannot open external data file '" + src.path + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < nbytes) {
    ssize_t n = ::pread(fd, static_cast<char*>(dst) + done, nbytes - done, src.offset + off_t(done));
    if (n <= 0) {
      ::close(fd);
      return Error("reading external data file '" + src.path + "' failed at byte " + std::to_string(src.offset + int64_t(done)));
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

Result<NDArrayRef> toNDArray(TP& t, const std::string& baseDir, bool release) {
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
  size_t nbytes = size_t(numel) * size_t(d.bytes());
  // Every source is checked against the shape before memory is allocated for it.
  if (t.data_location() == TP::EXTERNAL) {
    auto src = externalSource(t, baseDir, nbytes);
    if (!src) return where(src.error());
    NDArrayRef a = NDArray::uninitialized(d, shape);
    if (!a) return where(Error("cannot allocate " + std::to_string(numel) + " elements"));
    auto st = readExternal(*src, a->data(), nbytes);
    if (!st) return where(st.error());
    return a;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != nbytes)
      return where(Error("raw_data holds " + std::to_string(t.raw_data().size()) + " bytes but the shape and type need " + std::to_string(nbytes)));
    NDArrayRef a = NDArray::uninitialized(d, shape);
    if (!a) return where(Error("cannot allocate " + std::to_string(numel) + " elements"));
    if (nbytes) std::memcpy(a->data(), t.raw_data().data(), nbytes);
    if (release) std::string().swap(*t.mutable_raw_data());
    return a;
  }
  int64_t stored = d == DataType::float32() ? t.float_data_size() : d == DataType::float64() ? t.double_data_size() : d == DataType::int64() ? t.int64_data_size()
                   : (d == DataType(DataType::UInt, 32) || d == DataType(DataType::UInt, 64)) ? t.uint64_data_size() : t.int32_data_size();
  if (stored != numel) return where(Error("the tensor holds " + std::to_string(stored) + " values but its shape needs " + std::to_string(numel)));
  NDArrayRef a = NDArray::uninitialized(d, shape);
  if (!a) return where(Error("cannot allocate " + std::to_string(numel) + " elements"));
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

}  // namespace rlx::onnx
