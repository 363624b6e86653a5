// The .npy container: magic, version, a Python-dict header ('descr', 'fortran_order', 'shape'),
// then raw little-endian data. Only what numpy.save writes for plain arrays is accepted.
#include "runtime/npy.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/file_util.h"

namespace rlx {

namespace {

// int4, int2, uint4, uint2: written as 8-bit values.
bool isSubByteInt(DataType t) { return t.isIntegral() && !t.isBool() && t.bits < 8; }

// numpy's type strings for our dtypes ('<f4', '|b1', ...).
std::string descrOf(DataType t) {
  if (t.isBool()) return "|b1";
  // Types numpy has no dtype for (bfloat16, float8, float4) are stored as raw bytes, as ml_dtypes
  // arrays are saved: np.load gives a void array that `.view(ml_dtypes.bfloat16)` reinterprets.
  if (t.code != DataType::Float && t.code != DataType::Int && t.code != DataType::UInt && (t.bits % 8 == 0 || t.isMiniFloat())) return fmt::format("|V{}", t.bytes());
  char kind = t.code == DataType::Float ? 'f' : t.code == DataType::Int ? 'i' : t.code == DataType::UInt ? 'u' : '?';
  if (kind == '?') return "";
  int bytes = t.bytes();
  return fmt::format("{}{}{}", bytes == 1 ? '|' : '<', kind, bytes);
}

std::optional<DataType> dtypeOfDescr(const std::string& d, bool& raw) {
  if (d == "|b1" || d == "<b1") return DataType::boolean();
  raw = d.size() >= 3 && d[1] == 'V';
  if (raw) {
    // Raw elements (bfloat16, float8 saved through ml_dtypes): held as unsigned ints of that
    // width until a declared dtype says what they are.
    int width = std::atoi(d.c_str() + 2);
    if (width != 1 && width != 2 && width != 4 && width != 8) return std::nullopt;
    return DataType(DataType::UInt, width * 8);
  }
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=')) return std::nullopt;
  int bytes = std::atoi(d.c_str() + 2);
  DataType::Code code;
  switch (d[1]) {
    case 'f': code = DataType::Float; break;
    case 'i': code = DataType::Int; break;
    case 'u': code = DataType::UInt; break;
    default: return std::nullopt;
  }
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) return std::nullopt;
  if (code == DataType::Float && bytes == 1) return std::nullopt;
  return DataType(code, bytes * 8);
}

// The value text after 'key': in the header dict.
std::optional<std::string> field(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return std::nullopt;
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return std::nullopt;
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) return std::nullopt;
  size_t end;
  if (header[start] == '(') end = header.find(')', start) + 1;
  else if (header[start] == '\'') end = header.find('\'', start + 1) + 1;
  else end = header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0) return std::nullopt;
  return header.substr(start, end - start);
}

}  // namespace

Result<NDArrayRef> parseNpy(const std::string& bytes, const std::string& name, bool* raw) {
  auto bad = [&](const std::string& why) { return Error(fmt::format("{}: not a valid .npy file: {}", name, why)); };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return bad("missing the \\x93NUMPY magic");
  int major = uint8_t(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    headerLen = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8 | size_t(uint8_t(bytes[10])) << 16 | size_t(uint8_t(bytes[11])) << 24;
    headerStart = 12;
  } else {
    return bad(fmt::format("unknown format version {}", major));
  }
  if (headerStart + headerLen > bytes.size()) return bad("truncated header");
  std::string header = bytes.substr(headerStart, headerLen);
  auto descr = field(header, "descr"), fortran = field(header, "fortran_order"), shapeText = field(header, "shape");
  if (!descr || !fortran || !shapeText) return bad("the header lacks 'descr', 'fortran_order' or 'shape'");
  bool rawBytes = false;
  auto dtype = dtypeOfDescr(descr->substr(1, descr->size() - 2), rawBytes);
  if (!dtype) return bad(fmt::format("unsupported dtype {} (bool, int8-64, uint8-64, float16/32/64 little-endian, raw V1-V8)", *descr));
  if (raw) *raw = rawBytes;
  if (*fortran != "False") return bad("Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  std::vector<int64_t> shape;
  std::string dims = shapeText->substr(1, shapeText->size() - 2);
  std::stringstream ss(dims);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t s = item.find_first_not_of(' ');
    if (s == std::string::npos) continue;
    char* end = nullptr;
    long long d = std::strtoll(item.c_str() + s, &end, 10);
    if (end == item.c_str() + s || d < 0) return bad(fmt::format("bad shape {}", *shapeText));
    shape.push_back(d);
  }
  auto a = make<NDArray>(*dtype, shape);
  size_t dataStart = headerStart + headerLen;
  if (bytes.size() - dataStart != a->nbytes())
    return bad(fmt::format("the header says {} bytes of data ({} {}), the file has {}", a->nbytes(), descr->c_str(), *shapeText, bytes.size() - dataStart));
  std::memcpy(a->data(), bytes.data() + dataStart, a->nbytes());
  return a;
}

Result<NDArrayRef> readNpy(const std::string& path, bool* raw) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(fmt::format("cannot open {}", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parseNpy(ss.str(), path, raw);
}

std::string encodeNpy(const NDArray& a) {
  std::string shape = "(";
  for (size_t k = 0; k < a.shape.size(); ++k) shape += (k ? ", " : "") + std::to_string(a.shape[k]);
  if (a.shape.size() == 1) shape += ",";
  shape += ")";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descrOf(a.dtype), shape);
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  if (isSubByteInt(a.dtype)) {
    for (int64_t i = 0; i < a.numel(); ++i) out += char(int8_t(a.getInt(i)));  // int4/int2 sign-extended
    return out;
  }
  out.append(static_cast<const char*>(a.data()), a.nbytes());
  return out;
}

Result<NDArrayRef> narrowIntegers(const NDArrayRef& a, DataType want) {
  if (!isSubByteInt(want) || want.lanes != 1 || !a->dtype.isIntegral() || a->dtype.isBool() || a->dtype.bits != 8) return a;
  int64_t lo = want.isInt() ? -(int64_t(1) << (want.bits - 1)) : 0, hi = want.isInt() ? (int64_t(1) << (want.bits - 1)) - 1 : (int64_t(1) << want.bits) - 1;
  auto b = make<NDArray>(want, a->shape);
  for (int64_t i = 0; i < a->numel(); ++i) {
    int64_t v = a->getInt(i);
    if (v < lo || v > hi) return Error(fmt::format("element {} is {}, outside {}'s range [{}, {}]", i, v, want.str(), lo, hi));
    b->setInt(i, v);
  }
  return b;
}

Status writeNpy(const std::string& path, const NDArray& a) {
  if (descrOf(a.dtype).empty()) return Error(fmt::format("cannot write a {} array as .npy", a.dtype.str()));
  return writeFileAtomically(path, encodeNpy(a));
}

}  // namespace rlx
