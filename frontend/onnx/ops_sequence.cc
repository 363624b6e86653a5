// Sequence ONNX ops over sequences of statically known length, held as Relax tuples:
// SequenceConstruct/Empty/At/Insert/Erase/Length, ConcatFromSequence, SplitToSequence.
#include "frontend/onnx/converter.h"

namespace rlx::onnx {

namespace {

// The tensors of a sequence input (a Relax tuple or a var bound to one).
std::vector<Expr> items(NodeCtx& c, size_t input) {
  Expr e = c.x(input);
  if (auto t = e.as<Tuple>()) return t->fields;
  auto ts = sinfoOfExpr(e).as<TupleSInfo>();
  if (!ts) fail("input " + std::to_string(input) + " is not a sequence");
  std::vector<Expr> out;
  for (size_t k = 0; k < ts->fields.size(); ++k) out.push_back(c.emit(make<TupleGetItem>(e, int(k))));
  return out;
}

Expr sequence(NodeCtx& c, std::vector<Expr> fields) { return c.emit(make<Tuple>(std::move(fields))); }

// A position input (default `def`), negative counting from the end, within [0, limit].
size_t position(NodeCtx& c, size_t input, int64_t def, size_t limit) {
  int64_t p = def;
  if (c.has(input)) {
    auto v = c.constInts(input);
    if (!v || v->size() != 1) fail("the position must be a constant scalar");
    p = (*v)[0];
  }
  if (p < 0) p += int64_t(limit);
  if (p < 0 || p > int64_t(limit)) fail("position " + std::to_string(p) + " is out of range for a sequence of " + std::to_string(limit));
  return size_t(p);
}

}  // namespace

void registerSequenceConverters() {
  onnxOp("SequenceConstruct", {}, [](NodeCtx& c) -> Outputs {
    std::vector<Expr> fields;
    for (size_t k = 0; k < c.numInputs(); ++k) fields.push_back(c.x(k));
    return {{sequence(c, fields)}};
  });
  onnxOp("SequenceEmpty", {}, [](NodeCtx& c) -> Outputs { return {{sequence(c, {})}}; });
  onnxOp("SequenceLength", {}, [](NodeCtx& c) -> Outputs {
    auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{});
    a->setInt(0, int64_t(items(c, 0).size()));
    return {{c.constant(a)}};
  });
  onnxOp("SequenceAt", {}, [](NodeCtx& c) -> Outputs {
    auto seq = items(c, 0);
    if (seq.empty()) fail("SequenceAt on an empty sequence");
    size_t p = position(c, 1, 0, seq.size());
    if (p == seq.size()) fail("position is out of range");
    return {{seq[p]}};
  });
  onnxOp("SequenceInsert", {}, [](NodeCtx& c) -> Outputs {
    auto seq = items(c, 0);
    size_t p = position(c, 2, int64_t(seq.size()), seq.size());
    seq.insert(seq.begin() + long(p), c.x(1));
    return {{sequence(c, seq)}};
  });
  onnxOp("SequenceErase", {}, [](NodeCtx& c) -> Outputs {
    auto seq = items(c, 0);
    if (seq.empty()) fail("SequenceErase on an empty sequence");
    size_t p = position(c, 1, -1, seq.size());
    if (p == seq.size()) fail("position is out of range");
    seq.erase(seq.begin() + long(p));
    return {{sequence(c, seq)}};
  });
  onnxOp("ConcatFromSequence", {}, [](NodeCtx& c) -> Outputs {
    auto seq = items(c, 0);
    if (seq.empty()) fail("ConcatFromSequence of an empty sequence");
    int64_t axis = c.i("axis", 0);
    bool stack = c.i("new_axis", 0) != 0;
    return {{c.op(stack ? "stack" : "concat", {ex(make<Tuple>(seq))}, {{"axis", i(axis)}})}};
  });
  onnxOp("SplitToSequence", {}, [](NodeCtx& c) -> Outputs {
    int64_t r = c.ndim(0);
    int64_t axis = normAxis(c.i("axis", 0), r);
    auto d = c.dim(0, axis).as<IntImm>();
    if (!d) fail("splitting a symbolic dim is not supported");
    std::vector<int64_t> indices;
    bool squeeze = false;
    if (!c.has(1)) {
      for (int64_t k = 1; k < d->value; ++k) indices.push_back(k);
      squeeze = c.i("keepdims", 1) == 0;
    } else {
      auto split = c.requireInts(1, "split");
      if (split.size() == 1 && c.ndim(1) == 0) {
        for (int64_t k = split[0]; k < d->value; k += split[0]) indices.push_back(k);
      } else {
        int64_t acc = 0;
        for (size_t k = 0; k + 1 < split.size(); ++k) indices.push_back(acc += split[k]);
      }
    }
    Expr t = c.op("split", {ex(c.x(0))}, {{"indices_or_sections", ints(indices)}, {"axis", i(axis)}});
    std::vector<Expr> parts;
    for (size_t k = 0; k <= indices.size(); ++k) {
      Expr part = c.emit(make<TupleGetItem>(t, int(k)));
      if (squeeze) part = c.op("squeeze", {ex(part)}, {{"axis", ints({axis})}});
      parts.push_back(part);
    }
    return {{sequence(c, parts)}};
  });
}

}  // namespace rlx::onnx
