// numpy-style array text: every element formatted once (fixed or scientific notation chosen for
// the whole array, as numpy's default 'maxprec' mode does), padded to a common width, then nested.
#include "runtime/format.h"

#include <fmt/format.h>

#include <cmath>

#include "ir/minifloat.h"

namespace rlx {

namespace {

constexpr int64_t kThreshold = 1000;  // numpy's print threshold: larger arrays are summarized
constexpr int64_t kEdgeItems = 3;
constexpr size_t kLineWidth = 75;

struct FloatStyle {
  bool scientific = false;
  int precision = 0;  // fraction digits: the most any element needs (fixed: padded with spaces, scientific: zeros)
};

// The value `v` as the array's dtype holds it (so float32 digits are those of the float32 value).
double roundTrip(double v, DataType t) {
  // float8_e8m0fnu rounds up, so its nearest text would read back as a larger value: ask for the
  // exact value instead.
  if (t.code == DataType::Float8E8M0FNU) return v;
  if (t.isMiniFloat()) return roundToMiniFloat(t, v);
  if (t.bits == 16 && t.code == DataType::Float) return halfToFloat(floatToHalf(float(v)));
  if (t.bits == 16 && t.code == DataType::BFloat) return bfloat16ToFloat(floatToBfloat16(float(v)));
  if (t.bits <= 32) return double(float(v));
  return v;
}

// The fewest digits (at most 8, numpy's default precision) after the point, in fixed or scientific
// notation, that read back as the same value of dtype `t` — numpy's 'maxprec' float mode.
int digitsNeeded(double v, DataType t, bool scientific) {
  for (int d = 0; d < 8; ++d) {
    std::string s = scientific ? fmt::format("{:.{}e}", v, d) : fmt::format("{:.{}f}", v, d);
    if (roundTrip(std::strtod(s.c_str(), nullptr), t) == v) return d;
  }
  return 8;
}

// Fixed text with `d` fraction digits, trailing zeros dropped ("2.5", "3.").
std::string fixedText(double v, int d = 8) {
  std::string s = fmt::format("{:.{}f}", v, d);
  if (s.find('.') == std::string::npos) return s + ".";
  size_t end = s.find_last_not_of('0');
  s.erase(end + 1);
  return s;
}

// Scientific text with exactly `d` mantissa digits after the point ("1.50e-06").
std::string sciText(double v, int d) {
  std::string s = fmt::format("{:.{}e}", v, d);
  if (d == 0) s.insert(s.find('e'), ".");
  return s;
}

std::string nonFinite(double v) { return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"); }

class ArrayPrinter {
 public:
  explicit ArrayPrinter(const NDArray& a) : a_(a), summarize_(a.numel() > kThreshold) { chooseStyle(); }

  std::string print() {
    std::string prefix = "array(";
    std::string body = a_.shape.empty() ? element(0) : a_.numel() == 0 ? "[]" : nested(0, 0, prefix.size());
    std::string suffix;
    bool defaultType = a_.dtype == DataType::float64() || a_.dtype == DataType::int64() || a_.dtype.isBool();
    if (!defaultType || a_.numel() == 0) suffix = ", dtype=" + a_.dtype.str();
    if (a_.numel() == 0 && !a_.shape.empty() && a_.shape.size() > 1) {
      std::string dims;
      for (size_t k = 0; k < a_.shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(a_.shape[k]);
      suffix = ", shape=(" + dims + ")" + suffix;
    }
    return prefix + body + suffix + ")";
  }

 private:
  bool shown(int64_t i, int64_t n) const { return !summarize_ || n <= 2 * kEdgeItems || i < kEdgeItems || i >= n - kEdgeItems; }
  // Whether flat element `flat` is printed (numpy formats only the printed elements).
  bool shownFlat(int64_t flat) const {
    for (size_t d = a_.shape.size(); d-- > 0;) {
      if (!shown(flat % a_.shape[d], a_.shape[d])) return false;
      flat /= a_.shape[d];
    }
    return true;
  }

  void chooseStyle() {
    if (!a_.dtype.isFloat()) {
      for (int64_t i = 0; i < a_.numel(); ++i)
        if (shownFlat(i)) width_ = std::max(width_, raw(i).size());
      return;
    }
    double maxAbs = 0, minAbs = INFINITY;
    for (int64_t i = 0; i < a_.numel(); ++i) {
      double v = a_.getDouble(i);
      if (!std::isfinite(v) || !shownFlat(i)) continue;
      maxAbs = std::max(maxAbs, std::fabs(v));
      if (v != 0) minAbs = std::min(minAbs, std::fabs(v));
    }
    style_.scientific = maxAbs >= 1e8 || (minAbs < 1e-4 && minAbs != INFINITY) || (minAbs != INFINITY && maxAbs / minAbs > 1e3);
    for (int64_t i = 0; i < a_.numel(); ++i) {
      double v = a_.getDouble(i);
      if (std::isfinite(v) && shownFlat(i)) style_.precision = std::max(style_.precision, digitsNeeded(v, a_.dtype, style_.scientific));
    }
    for (int64_t i = 0; i < a_.numel(); ++i) {
      if (!shownFlat(i)) continue;
      std::string s = raw(i);
      size_t dot = s.find('.');
      intWidth_ = std::max(intWidth_, dot == std::string::npos ? s.size() : dot);
    }
    for (int64_t i = 0; i < a_.numel(); ++i)
      if (shownFlat(i)) width_ = std::max(width_, element(i).size());
  }

  std::string raw(int64_t i) const {
    if (a_.dtype.isBool()) return a_.getInt(i) ? "True" : "False";
    if (!a_.dtype.isFloat()) return std::to_string(a_.getInt(i));
    double v = a_.getDouble(i);
    if (!std::isfinite(v)) return nonFinite(v);
    return style_.scientific ? sciText(v, style_.precision) : fixedText(v, style_.precision);
  }

  // One element padded: integers right-aligned; floats aligned on the decimal point.
  std::string element(int64_t i) const {
    std::string s = raw(i);
    if (!a_.dtype.isFloat()) return std::string(width_ > s.size() ? width_ - s.size() : 0, ' ') + s;
    size_t dot = s.find('.');
    size_t intPart = dot == std::string::npos ? s.size() : dot;
    std::string out = std::string(intWidth_ > intPart ? intWidth_ - intPart : 0, ' ') + s;
    if (!style_.scientific && dot != std::string::npos) out.append(size_t(style_.precision) - std::min(size_t(style_.precision), s.size() - dot - 1), ' ');
    else if (!style_.scientific && dot == std::string::npos) out.append(size_t(style_.precision) + 1, ' ');  // nan / inf
    return width_ > out.size() ? out + std::string(width_ - out.size(), ' ') : out;
  }

  // Dimension `dim` starting at flat offset `offset`; `indent` is the column of the opening '['.
  std::string nested(size_t dim, int64_t offset, size_t indent) {
    int64_t n = a_.shape[dim];
    int64_t stride = 1;
    for (size_t k = dim + 1; k < a_.shape.size(); ++k) stride *= a_.shape[k];
    std::string out = "[";
    if (dim + 1 == a_.shape.size()) {
      size_t col = indent + 1;
      bool first = true;
      for (int64_t i = 0; i < n; ++i) {
        if (!shown(i, n)) {
          if (i == kEdgeItems) {
            out += first ? "..." : ", ...";
            col += 5;
            first = false;
          }
          continue;
        }
        std::string e = element(offset + i);
        std::string sep = first ? "" : ",";
        if (!first && col + sep.size() + 1 + e.size() + 2 > kLineWidth) {
          out += sep + "\n" + std::string(indent + 1, ' ');
          col = indent + 1;
        } else if (!first) {
          out += sep + " ";
          col += sep.size() + 1;
        }
        out += e;
        col += e.size();
        first = false;
      }
      return out + "]";
    }
    std::string blank(a_.shape.size() - dim - 1, '\n');
    bool first = true;
    for (int64_t i = 0; i < n; ++i) {
      if (!shown(i, n)) {
        if (i == kEdgeItems) {
          out += ",\n" + blank.substr(1) + std::string(indent + 1, ' ') + "...";
          first = false;
        }
        continue;
      }
      if (!first) out += "," + blank + std::string(indent + 1, ' ');
      out += nested(dim + 1, offset + i * stride, indent + 1);
      first = false;
    }
    return out + "]";
  }

  const NDArray& a_;
  bool summarize_;
  FloatStyle style_;
  size_t width_ = 0, intWidth_ = 0;
};

}  // namespace

std::string formatArray(const NDArray& a) { return ArrayPrinter(a).print(); }

std::string formatValue(const vm::Value& v) {
  switch (v.kind) {
    case vm::Value::Tensor: return formatArray(*v.array);
    case vm::Value::Tuple: {
      std::string out = "(";
      for (size_t k = 0; k < v.fields().size(); ++k) out += (k ? ",\n " : "") + formatValue(v.fields()[k]);
      return out + (v.fields().size() == 1 ? ",)" : ")");
    }
    case vm::Value::Int: return std::to_string(v.i);
    case vm::Value::Float: return fmt::format("{}", v.f);
    case vm::Value::Str: return "\"" + v.str() + "\"";
    case vm::Value::Shape: {
      std::string dims;
      for (int64_t k = 0; k < v.shapeSize(); ++k) dims += (k ? ", " : "") + std::to_string(v.shapeData()[k]);
      return "R.shape([" + dims + "])";
    }
    case vm::Value::DType: return "R.dtype(\"" + v.dt.str() + "\")";
    case vm::Value::Null: return "None";
    default: return v.describe();
  }
}

}  // namespace rlx
