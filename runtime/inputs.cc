// Input specs: a small recursive reader for literals and the rand/zeros/ones forms, .npy files,
// and the checks that tie every input to its parameter's struct info.
#include "runtime/inputs.h"

#include <cstring>
#include <fmt/format.h>

#include <cctype>
#include <random>

#include "ir/arith.h"
#include "ir/eval_function.h"
#include "printer/printer.h"
#include "runtime/npy.h"

namespace rlx {

namespace {

// A nested list literal: numbers and brackets.
struct Literal {
  bool isList = false;
  double number = 0;
  bool isFloat = false;
  std::vector<Literal> items;
};

class LiteralReader {
 public:
  explicit LiteralReader(const std::string& s) : s_(s) {}
  Result<Literal> read() {
    RLX_TRY(v, value());
    skip();
    if (pos_ != s_.size()) return err("unexpected text");
    return v;
  }

 private:
  Error err(const std::string& what) { return Error(fmt::format("{} at column {} of '{}'", what, pos_ + 1, s_)); }
  void skip() {
    while (pos_ < s_.size() && std::isspace(uint8_t(s_[pos_]))) ++pos_;
  }
  Result<Literal> value() {
    skip();
    Literal l;
    if (pos_ < s_.size() && (s_[pos_] == '[' || s_[pos_] == '(')) {
      char close = s_[pos_] == '[' ? ']' : ')';
      ++pos_;
      l.isList = true;
      skip();
      while (pos_ < s_.size() && s_[pos_] != close) {
        RLX_TRY(item, value());
        l.items.push_back(std::move(item));
        skip();
        if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
        else if (pos_ < s_.size() && s_[pos_] != close) return err("expected ',' or a closing bracket");
        skip();
      }
      if (pos_ >= s_.size()) return err("missing closing bracket");
      ++pos_;
      return l;
    }
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      l.number = 1;
      return l;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return l;
    }
    const char* start = s_.c_str() + pos_;
    char* end = nullptr;
    l.number = std::strtod(start, &end);
    if (end == start) return err("expected a number or '['");
    std::string text(start, size_t(end - start));
    l.isFloat = text.find_first_of(".eEn") != std::string::npos;
    pos_ += size_t(end - start);
    return l;
  }
  const std::string& s_;
  size_t pos_ = 0;
};

Status shapeOfLiteral(const Literal& l, std::vector<int64_t>& shape, size_t depth) {
  if (!l.isList) return okStatus();
  if (shape.size() == depth) shape.push_back(int64_t(l.items.size()));
  else if (shape[depth] != int64_t(l.items.size())) return Error("the nested lists are ragged (rows of different lengths)");
  for (auto& i : l.items) RLX_TRY_STATUS(shapeOfLiteral(i, shape, depth + 1));
  return okStatus();
}

void fillLiteral(const Literal& l, NDArray& a, int64_t& i) {
  if (!l.isList) {
    if (a.dtype.isFloat()) a.setDouble(i++, l.number);
    else a.setInt(i++, int64_t(l.number));
    return;
  }
  for (auto& item : l.items) fillLiteral(item, a, i);
}

// The annotated dims of a tensor param with symbolic dims resolved from ctx (or `symDefault` when
// given, else an error naming the unbound var).
Result<std::vector<int64_t>> annotatedShape(const VarRef& param, const TensorSInfo& t, InputContext& ctx, std::optional<int64_t> symDefault, std::string* chosen) {
  if (!t.dims()) return Error(fmt::format("{} has no annotated shape; give the shape explicitly, e.g. {}=rand(2, 3)", param->name, param->name));
  std::vector<int64_t> shape;
  for (auto& d : *t.dims()) {
    if (auto c = constInt(primSubstitute(d, ctx.syms))) {
      shape.push_back(*c);
      continue;
    }
    std::vector<Ref<PrimVar>> vars;
    collectVars(d, vars);
    if (!symDefault) return Error(fmt::format("{}: the dimension {} is symbolic and not bound by earlier inputs; give the shape explicitly", param->name, printPrimExpr(d)));
    for (auto& v : vars)
      if (!ctx.syms.count(v.get())) {
        ctx.syms[v.get()] = intImm(*symDefault);
        if (chosen) *chosen += fmt::format("{}{} = {}", chosen->empty() ? "" : ", ", v->name, *symDefault);
      }
    auto c = constInt(primSubstitute(d, ctx.syms));
    if (!c) return Error(fmt::format("{}: cannot compute the dimension {}", param->name, printPrimExpr(d)));
    shape.push_back(*c);
  }
  return shape;
}

NDArrayRef randomArray(DataType t, const std::vector<int64_t>& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  auto a = make<NDArray>(t, shape);
  for (int64_t i = 0; i < a->numel(); ++i) {
    if (t.isFloat()) a->setDouble(i, std::uniform_real_distribution<double>(0, 1)(rng));
    else if (t.isBool()) a->setInt(i, int64_t(rng() & 1));
    else a->setInt(i, std::uniform_int_distribution<int64_t>(0, 9)(rng));
  }
  return a;
}

}  // namespace

Status checkInput(const vm::Value& v, const VarRef& param, InputContext& ctx) {
  rlx::Value ev;
  std::string why;
  if (!vm::toEvalValue(v, ev, why)) return Error(fmt::format("{}: {}", param->name, why));
  PrimVarMap trial = ctx.syms;
  StructInfo got = valueSInfo(ev);
  // A VM scalar carries no dtype: a float for an R.Prim float parameter (an int for an int one)
  // is taken in the parameter's dtype.
  if (auto want = sinfoOf(param).as<PrimSInfo>(); want && !want->dtype.isVoid())
    if ((v.kind == vm::Value::Float && want->dtype.isFloat()) || (v.kind == vm::Value::Int && !want->dtype.isFloat()))
      got = make<PrimSInfo>(want->dtype, v.kind == vm::Value::Int ? intImm(v.i, want->dtype) : PrimExpr());
  if (!sinfoMatch(sinfoOf(param), got, trial))
    return Error(fmt::format("{}: got {}, but the parameter is annotated {}", param->name, v.describe(), printStructInfo(sinfoOf(param))));
  ctx.syms = std::move(trial);
  return okStatus();
}

Result<vm::Value> parseInput(const std::string& spec, const VarRef& param, InputContext& ctx) {
  StructInfo s = sinfoOf(param);
  auto tensor = s.as<TensorSInfo>();
  DataType dtype = tensor && !tensor->dtype.isVoid() ? tensor->dtype : DataType::float32();
  vm::Value v;
  auto form = [&](const char* name) { return spec.rfind(std::string(name) + "(", 0) == 0 && spec.back() == ')'; };
  if (spec.size() > 4 && spec.compare(spec.size() - 4, 4, ".npy") == 0) {
    bool raw = false;
    auto a = readNpy(spec, &raw);
    if (!a.ok()) return Error(fmt::format("{}: {}", param->name, a.error().message));
    NDArrayRef arr = *a;
    // Raw elements of the declared width are the declared dtype (bfloat16, float8, float4 from
    // numpy: one element a byte, as rlx holds them).
    if (raw && tensor && !tensor->dtype.isVoid() && tensor->dtype.bytes() == arr->dtype.bytes()) {
      auto typed = make<NDArray>(tensor->dtype, arr->shape);
      std::memcpy(typed->data(), arr->data(), arr->nbytes());
      arr = typed;
    }
    if (tensor && !tensor->dtype.isVoid()) {
      auto narrow = narrowIntegers(arr, tensor->dtype);
      if (!narrow.ok()) return Error(fmt::format("{}: {}: {}", param->name, spec, narrow.error().message));
      arr = *narrow;
    }
    v = vm::Value::ofTensor(arr);
  } else if (form("rand") || form("zeros") || form("ones")) {
    std::string args = spec.substr(spec.find('(') + 1, spec.size() - spec.find('(') - 2);
    std::vector<int64_t> shape;
    if (args.find_first_not_of(' ') == std::string::npos) {
      if (!tensor) return Error(fmt::format("{} is not a tensor parameter", param->name));
      RLX_TRY(sh, annotatedShape(param, *tensor, ctx, std::nullopt, nullptr));
      shape = sh;
    } else {
      auto lit = LiteralReader("(" + args + ")").read();
      if (!lit.ok()) return Error(fmt::format("{}: {}", param->name, lit.error().message));
      for (auto& d : lit->items) {
        if (d.isList || d.isFloat || d.number < 0) return Error(fmt::format("{}: the dims of {} must be non-negative integers", param->name, spec));
        shape.push_back(int64_t(d.number));
      }
    }
    NDArrayRef a = form("rand") ? randomArray(dtype, shape, ctx.seed++) : make<NDArray>(dtype, shape);
    if (form("ones"))
      for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, 1);
    v = vm::Value::ofTensor(a);
  } else {
    auto lit = LiteralReader(spec).read();
    if (!lit.ok()) return Error(fmt::format("{}: cannot read the input: {}", param->name, lit.error().message),{},
                                "inputs are FILE.npy, rand(2, 3), zeros(2, 3), ones(2, 3), a literal like [[1, 2], [3, 4]], or a number");
    if (auto prim = s.as<PrimSInfo>(); prim && !lit->isList) {
      v = prim->dtype.isFloat() ? vm::Value::ofFloat(lit->number) : vm::Value::ofInt(int64_t(lit->number));
    } else if (s.as<ShapeSInfo>()) {
      std::vector<int64_t> dims;
      for (auto& d : lit->items) dims.push_back(int64_t(d.number));
      v = vm::Value::ofShape(dims);
    } else {
      std::vector<int64_t> shape;
      RLX_TRY_STATUS(shapeOfLiteral(*lit, shape, 0));
      auto a = make<NDArray>(dtype, shape);
      int64_t i = 0;
      fillLiteral(*lit, *a, i);
      v = vm::Value::ofTensor(a);
    }
  }
  RLX_TRY_STATUS(checkInput(v, param, ctx));
  return v;
}

Result<vm::Value> defaultInput(const VarRef& param, InputContext& ctx, int64_t symDefault, std::string& note) {
  StructInfo s = sinfoOf(param);
  if (auto t = s.as<TensorSInfo>(); t && !t->dims() && t->ndim >= 0) {  // R.Tensor(ndim=k): every dim symDefault
    auto v = vm::Value::ofTensor(randomArray(t->dtype.isVoid() ? DataType::float32() : t->dtype, std::vector<int64_t>(size_t(t->ndim), symDefault), ctx.seed++));
    note = fmt::format("{}=rand({})", param->name, v.describe().substr(v.describe().find('(') + 1, std::string::npos));
    note.pop_back();
    return v;
  }
  if (auto sh = s.as<ShapeSInfo>(); sh && sh->ndim >= 0) {
    std::vector<int64_t> dims;
    for (int k = 0; k < sh->ndim; ++k) {
      std::optional<int64_t> d;
      if (sh->values) {
        std::vector<Ref<PrimVar>> vars;
        collectVars((*sh->values)[size_t(k)], vars);
        for (auto& var : vars)
          if (!ctx.syms.count(var.get())) ctx.syms[var.get()] = intImm(symDefault);
        d = constInt(primSubstitute((*sh->values)[size_t(k)], ctx.syms));
      }
      dims.push_back(d ? *d : symDefault);
    }
    auto v = vm::Value::ofShape(dims);
    note = fmt::format("{}={}", param->name, v.describe().substr(10));
    RLX_TRY_STATUS(checkInput(v, param, ctx));
    return v;
  }
  if (auto t = s.as<TensorSInfo>()) {
    std::string chosen;
    RLX_TRY(shape, annotatedShape(param, *t, ctx, symDefault, &chosen));
    DataType dtype = t->dtype.isVoid() ? DataType::float32() : t->dtype;
    std::string dims;
    for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
    note = fmt::format("{}=rand({}){}", param->name, dims, chosen.empty() ? "" : " with " + chosen);
    auto v = vm::Value::ofTensor(randomArray(dtype, shape, ctx.seed++));
    RLX_TRY_STATUS(checkInput(v, param, ctx));
    return v;
  }
  if (auto p = s.as<PrimSInfo>()) {
    int64_t value = 1;
    if (p->value)
      if (auto c = constInt(primSubstitute(p->value, ctx.syms))) value = *c;
    note = fmt::format("{}={}", param->name, value);
    auto v = p->dtype.isFloat() ? vm::Value::ofFloat(double(value)) : vm::Value::ofInt(value);
    RLX_TRY_STATUS(checkInput(v, param, ctx));
    return v;
  }
  return Error(fmt::format("{} needs an input (its annotation {} has no default)", param->name, printStructInfo(s)));
}

}  // namespace rlx
