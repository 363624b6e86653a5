// Reference evaluator of layout_transform (manipulate.cc): each input element moves to the index the
// index map computes from its own; output elements no input reaches hold the pad value.
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "ir/ops/eval_manipulate.h"

namespace rlx {
namespace {
using namespace ops;

// ---------------------------------------------------------------- layout_transform

using IndexEnv = std::unordered_map<const PrimVar*, int64_t>;

int64_t floorDivInt(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The integer value of an index-map expression under `env`; nullopt for unsupported forms or a
// division by zero.
std::optional<int64_t> evalIndex(const PrimExpr& e, const IndexEnv& env) {
  if (auto imm = asIntImm(e)) return imm->value;
  switch (e->kind()) {
    case NodeKind::PrimVar: {
      auto it = env.find(e.as<PrimVar>().get());
      if (it == env.end()) return std::nullopt;
      return it->second;
    }
    case NodeKind::Cast: return evalIndex(e.as<Cast>()->value, env);
    case NodeKind::Not: {
      auto a = evalIndex(e.as<PrimNot>()->a, env);
      if (!a) return std::nullopt;
      return int64_t(*a == 0);
    }
    case NodeKind::Select: {
      auto s = e.as<Select>();
      auto c = evalIndex(s->cond, env);
      if (!c) return std::nullopt;
      return evalIndex(*c ? s->trueValue : s->falseValue, env);
    }
    default: break;
  }
  auto bin = e.as<PrimBinary>();
  if (!bin) return std::nullopt;
  auto a = evalIndex(bin->a, env), b = evalIndex(bin->b, env);
  if (!a || !b) return std::nullopt;
  int64_t x = *a, y = *b;
  switch (e->kind()) {
    case NodeKind::Add: return x + y;
    case NodeKind::Sub: return x - y;
    case NodeKind::Mul: return x * y;
    case NodeKind::Div: return y == 0 ? std::nullopt : std::optional<int64_t>(x / y);
    case NodeKind::Mod: return y == 0 ? std::nullopt : std::optional<int64_t>(x % y);
    case NodeKind::FloorDiv: return y == 0 ? std::nullopt : std::optional<int64_t>(floorDivInt(x, y));
    case NodeKind::FloorMod: return y == 0 ? std::nullopt : std::optional<int64_t>(x - floorDivInt(x, y) * y);
    case NodeKind::Min: return std::min(x, y);
    case NodeKind::Max: return std::max(x, y);
    case NodeKind::EQ: return int64_t(x == y);
    case NodeKind::NE: return int64_t(x != y);
    case NodeKind::LT: return int64_t(x < y);
    case NodeKind::LE: return int64_t(x <= y);
    case NodeKind::GT: return int64_t(x > y);
    case NodeKind::GE: return int64_t(x >= y);
    case NodeKind::And: return int64_t(x && y);
    case NodeKind::Or: return int64_t(x || y);
    default: return std::nullopt;
  }
}

// The pad value as a 0-d tensor (None → 0, as TVM's legalization chooses).
NDArrayRef padScalar(const Attr& pad) {
  NDArrayRef t = allocTensor(DataType::float64(), {});
  if (!pad) return t;
  if (pad->kind == AttrValue::Int || pad->kind == AttrValue::Bool) t->setDouble(0, double(pad->kind == AttrValue::Int ? pad->i : pad->b));
  else if (pad->kind == AttrValue::Double) t->setDouble(0, pad->d);
  else if (pad->kind == AttrValue::Prim && pad->prim.is<FloatImm>()) t->setDouble(0, pad->prim.as<FloatImm>()->value);
  else if (pad->kind == AttrValue::Prim && asIntImm(pad->prim)) t->setDouble(0, double(asIntImm(pad->prim)->value));
  return t;
}

// Each input element moves to the index the map computes from its own index; output elements no
// input reaches are padding. The output shape is the inferred one (TVM's IndexMap shape: splits
// of an iterator pad it, so i // 2, i % 2 over 3 elements gives (2, 2) with one padding element).
Result<Value> evalLayoutTransform(const Call& call, const std::vector<Value>& args) {
  RLX_TRY(x, tensorValue(call, args, 0, "x"));
  const Attr* m = findAttr(call, "index_map");
  bool wellFormed = m && *m && ((*m)->kind == AttrValue::Array || ((*m)->kind == AttrValue::Ctor && (*m)->s == "T.index_map")) && (*m)->array.size() == 2 && (*m)->array[0] && (*m)->array[1] &&
                    (*m)->array[0]->kind == AttrValue::Array && (*m)->array[1]->kind == AttrValue::Array;
  if (!wellFormed) return evalError(call, "expects index_map as [[vars...], [results...]]");
  auto& vars = (*m)->array[0]->array;
  auto& results = (*m)->array[1]->array;
  if (vars.size() != x->shape.size()) return evalError(call, fmt::format("the index map takes {} indices but the input has {} dimensions", vars.size(), x->shape.size()));
  std::vector<const PrimVar*> varNodes;
  for (auto& v : vars) {
    if (!v || v->kind != AttrValue::Prim || !v->prim.is<PrimVar>()) return evalError(call, "the index map's parameters must be variables");
    varNodes.push_back(v->prim.as<PrimVar>().get());
  }
  for (auto& r : results)
    if (!r || r->kind != AttrValue::Prim) return evalError(call, "the index map's results must be index expressions");
  RLX_TRY(shape, resultShape(call));
  if (shape.size() != results.size()) return evalError(call, "the inferred result rank does not match the index map");
  RLX_TRY(out, newTensor(call, x->dtype, shape));
  const Attr* pad = findAttr(call, "pad_value");
  NDArrayRef padValue = castTensor(*padScalar(pad ? *pad : Attr()), x->dtype);
  for (int64_t k = 0; k < out->numel(); ++k) copyElem(*out, k, *padValue, 0);
  Shape os = stridesOf(shape);
  IndexEnv env;
  std::optional<Error> err;
  forEachIndex(x->shape, [&](const Shape& idx, int64_t flat) {
    if (err) return;
    for (size_t d = 0; d < idx.size(); ++d) env[varNodes[d]] = idx[d];
    int64_t off = 0;
    for (size_t d = 0; d < results.size(); ++d) {
      auto v = evalIndex(results[d]->prim, env);
      if (!v) return void(err = evalError(call, "cannot evaluate the index map expression " + primStr(results[d]->prim)));
      if (*v < 0 || *v >= shape[d]) return void(err = evalError(call, fmt::format("the index map sends {} outside the result shape {}", shapeText(idx), shapeText(shape))));
      off += *v * os[d];
    }
    copyElem(*out, off, *x, flat);
  });
  if (err) return std::move(*err);
  return Value::ofTensor(out);
}

}  // namespace

void registerLayoutEvals() {
  registerEval("relax.layout_transform", evalLayoutTransform);
}

}  // namespace rlx
