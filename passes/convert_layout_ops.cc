// ConvertLayout's per-op layout rules, one per op name: from the layouts an op's inputs arrive in,
// the layouts to convert them to, the result's layout and the attrs that keep the op's meaning.
#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "ir/arith.h"
#include "passes/convert_layout.h"

namespace rlx::convert_layout {
namespace {

using layout::findAxis;
using layout::initial;
using layout::isSubIndexed;
using layout::transposeLike;
using layout::transposeSubLayoutLike;
using Decision = std::optional<LayoutDecision>;

int rankOf(const Expr& e) {
  auto t = sinfoOf(e).as<TensorSInfo>();
  return t ? t->ndim : -1;
}

const std::vector<PrimExpr>* shapeOf(const Expr& e) {
  auto t = sinfoOf(e).as<TensorSInfo>();
  return t ? t->dims() : nullptr;
}

// The call's attrs with `changes` applied (fields kept in their declared order).
AttrsRef withAttrs(const Call& c, const std::vector<std::pair<std::string, Attr>>& changes) {
  auto a = make<Attrs>();
  if (c.attrs) {
    a->typeKey = c.attrs->typeKey;
    a->fields = c.attrs->fields;
  }
  for (auto& [k, v] : changes) {
    auto it = std::find_if(a->fields.begin(), a->fields.end(), [&](auto& f) { return f.first == k; });
    if (it != a->fields.end()) it->second = v;
    else a->fields.push_back({k, v});
  }
  return a;
}

std::string attrString(const Call& c, const char* key, const std::string& dflt = "") { return attrStr(c.attrs, key).value_or(dflt); }

NLayout leaf(const std::string& s) { return NLayout::leaf(s); }
// Ops that cannot work on a split axis take their input back in its unsplit (initial) layout.
std::string unsplit(const std::string& l, int rank) { return isSubIndexed(l) ? initial(rank) : l; }
int64_t normAxis(int64_t a, int rank) { return rank > 0 ? ((a % rank) + rank) % rank : a; }

// ---------------------------------------------------------------- convolutions and resizes
// A desired entry [data, kernel(, out)] that only reorders axes rewrites the attrs to it; a split
// one (NCHW4c, conv2d only) applies when every split extent divides; otherwise the conv stays in
// its attrs' layouts and follows its inputs.
LayoutRule convRule(bool packedAllowed) {
  return [packedAllowed](const RuleContext& ctx, const Call& c) -> Decision {
    int r = rankOf(c.args[0]);
    if (r < 0 || rankOf(c.args[1]) != r) return std::nullopt;
    std::string init = initial(r);
    std::string dl = attrString(c, "data_layout"), kl = attrString(c, "kernel_layout"), ol = attrString(c, "out_layout", dl);
    if (int(dl.size()) != r || int(kl.size()) != r || int(ol.size()) != r) return std::nullopt;
    LayoutDecision d;
    bool fallback = false;
    if (auto* des = ctx.desired(c.opName())) {
      std::string dd = (*des)[0] == "default" ? dl : (*des)[0];
      std::string kd = des->size() > 1 && (*des)[1] != "default" ? (*des)[1] : kl;
      std::string od = des->size() > 2 && (*des)[2] != "default" ? (*des)[2] : dd;
      auto setAttrs = [&] { d.attrs = withAttrs(c, {{"data_layout", AttrValue::str(dd)}, {"kernel_layout", AttrValue::str(kd)}, {"out_layout", AttrValue::str(od)}}); };
      if (layout::ndim(dd) == r && layout::ndim(kd) == r && layout::ndim(od) == r && !isSubIndexed(dd + kd + od)) {
        d.inputs = {leaf(transposeLike(init, dl, dd)), leaf(transposeLike(init, kl, kd))};
        d.output = leaf(transposeLike(init, ol, od));
        setAttrs();
        return d;
      }
      auto *xs = shapeOf(c.args[0]), *ws = shapeOf(c.args[1]);
      if (packedAllowed && xs && ws && layout::canProveTransform(dl, dd, *xs) && layout::canProveTransform(kl, kd, *ws)) {
        d.inputs = {leaf(transposeSubLayoutLike(init, dl, dd)), leaf(transposeSubLayoutLike(init, kl, kd))};
        d.output = leaf(transposeSubLayoutLike(init, ol, od));
        setAttrs();
        return d;
      }
      fallback = true;  // not divisible: the conv runs in its original layouts
    }
    std::string data = fallback ? init : unsplit(ctx.leafOf(c.args[0]), r);
    std::string weight = fallback ? init : unsplit(ctx.leafOf(c.args[1]), r);
    d.inputs = {leaf(data), leaf(weight)};
    d.output = leaf(data);
    if (data != init || weight != init)
      d.attrs = withAttrs(c, {{"data_layout", AttrValue::str(transposeLike(dl, init, data))}, {"kernel_layout", AttrValue::str(transposeLike(kl, init, weight))},
                              {"out_layout", AttrValue::str(transposeLike(ol, init, data))}});
    return d;
  };
}

Decision resizeRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  std::string lay = attrString(c, "layout");
  if (r < 0 || int(lay.size()) != r) return std::nullopt;
  std::string init = initial(r);
  LayoutDecision d;
  if (auto* des = ctx.desired(c.opName()); des && layout::ndim((*des)[0]) == r && !isSubIndexed((*des)[0])) {
    d.inputs = {leaf(transposeLike(init, lay, (*des)[0]))};
    d.output = d.inputs[0];
    d.attrs = withAttrs(c, {{"layout", AttrValue::str((*des)[0])}});
    return d;
  }
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  d.inputs = {leaf(l)};
  d.output = leaf(l);
  if (l != init) d.attrs = withAttrs(c, {{"layout", AttrValue::str(transposeLike(lay, init, l))}});
  return d;
}

// ---------------------------------------------------------------- elementwise
// One tensor in, the same layout out (split layouts included).
Decision unaryRule(const RuleContext& ctx, const Call& c) {
  if (c.args.empty() || rankOf(c.args[0]) < 0) return std::nullopt;
  LayoutDecision d;
  d.inputs = {leaf(ctx.leafOf(c.args[0]))};
  d.output = sinfoOf(Expr(const_cast<Call*>(&c))).as<TupleSInfo>() ? NLayout::tuple({d.inputs[0], d.inputs[0]}) : d.inputs[0];  // dropout: (out, mask)
  return d;
}

// Equal ranks: the first operand's layout wins. A lower-rank operand pins the other to its own
// (broadcast-extended) layout; a scalar follows the tensor. A split layout is shared only when
// the other operand's extents divide.
Decision binaryRule(const RuleContext& ctx, const Call& c) {
  if (c.args.size() < 2) return std::nullopt;
  int r1 = rankOf(c.args[0]), r2 = rankOf(c.args[1]);
  if (r1 < 0 || r2 < 0) return std::nullopt;
  std::string l1 = ctx.leafOf(c.args[0]), l2 = ctx.leafOf(c.args[1]);
  LayoutDecision d;
  auto all = [&](const std::string& l) {
    d.inputs = {leaf(l), leaf(l)};
    d.output = leaf(l);
    return d;
  };
  if ((isSubIndexed(l1) || isSubIndexed(l2)) && layout::ndimPrimal(l1) == layout::ndimPrimal(l2)) {
    auto *s1 = shapeOf(c.args[0]), *s2 = shapeOf(c.args[1]);
    if (layout::ndim(l1) >= layout::ndim(l2) && s2) {
      if (layout::canProveTransform(initial(r2), l1, *s2)) return all(l1);
    } else if (s1 && layout::canProveTransform(initial(r1), l2, *s1)) {
      return all(l2);
    }
  }
  if (r1 <= r2) {
    if (r1 == 0) {
      d.inputs = {leaf(""), leaf(l2)};
      d.output = leaf(l2);
      return d;
    }
    std::string out = layout::followDecision(l1, r2);
    d.inputs = {leaf(l1), leaf(out)};
    d.output = leaf(out);
    return d;
  }
  if (r2 == 0) {
    d.inputs = {leaf(l1), leaf("")};
    d.output = leaf(l1);
    return d;
  }
  std::string out = layout::followDecision(l2, r1);
  d.inputs = {leaf(out), leaf(l2)};
  d.output = leaf(out);
  return d;
}

// ---------------------------------------------------------------- reductions and norms
// The reduced axes move with the layout (a reduced split axis reduces its sub axis too); without
// keepdims the output keeps the surviving axes in their current order.
Decision reduceRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r <= 0) return std::nullopt;
  std::string l = ctx.leafOf(c.args[0]);
  std::vector<bool> reduced(size_t(r), false);
  const Attr* axisAttr = c.attrs ? c.attrs->find("axis") : nullptr;
  if (!axisAttr || !*axisAttr) std::fill(reduced.begin(), reduced.end(), true);
  else
    for (int64_t a : intsOf(*axisAttr)) reduced[size_t(normAxis(a, r))] = true;
  std::string s;
  char next = 'A';
  for (int i = 0; i < r; ++i) s += reduced[size_t(i)] ? '#' : next++;
  std::string t = transposeSubLayoutLike(s, initial(r), l);
  std::vector<int64_t> axes;
  std::string letters, out;
  for (char ch : t)
    if (!std::isdigit(static_cast<unsigned char>(ch))) letters += ch;
  for (size_t i = 0; i < letters.size(); ++i)
    if (letters[i] == '#') axes.push_back(int64_t(i));
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '#') continue;
    if (std::isdigit(static_cast<unsigned char>(t[i]))) {
      size_t j = i;
      while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
      if (j < t.size() && t[j] == '#') {
        i = j;
        continue;
      }
    }
    out += t[i];
  }
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = leaf(attrInt(c.attrs, "keepdims").value_or(0) ? l : out);
  d.attrs = withAttrs(c, {{"axis", AttrValue::ints(axes)}});
  return d;
}

// A one-input op that keeps its input's (unsplit) layout and names one axis (softmax: -1 by
// default, flip: 0), which moves with the layout.
Decision sameLayoutAxisRule(const RuleContext& ctx, const Call& c, int64_t defaultAxis) {
  int r = rankOf(c.args[0]);
  if (r <= 0) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = leaf(l);
  d.attrs = withAttrs(c, {{"axis", AttrValue::integer(findAxis(l, attrInt(c.attrs, "axis").value_or(defaultAxis)))}});
  return d;
}

Decision batchNormRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r <= 0 || c.args.size() != 5) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  LayoutDecision d;
  d.inputs = {leaf(l)};
  for (size_t i = 1; i < 5; ++i) d.inputs.push_back(leaf(initial(rankOf(c.args[i]))));
  auto out = initialNLayout(sinfoOf(Expr(const_cast<Call*>(&c))));
  if (out.isLeaf || out.fields.empty()) return std::nullopt;
  out.fields[0] = leaf(l);
  d.output = out;
  d.attrs = withAttrs(c, {{"axis", AttrValue::integer(findAxis(l, normAxis(attrInt(c.attrs, "axis").value_or(1), r)))}});
  return d;
}

// layer_norm, group_norm, instance_norm, rms_norm: the data keeps its layout, the normalized axes
// follow it, the affine parameters stay as they are.
Decision normRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r <= 0) return std::nullopt;
  std::string l = ctx.leafOf(c.args[0]);
  LayoutDecision d;
  d.inputs = {leaf(l)};
  for (size_t i = 1; i < c.args.size(); ++i) d.inputs.push_back(initialNLayout(sinfoOf(c.args[i])));
  d.output = leaf(l);
  std::vector<int64_t> axes;
  for (int64_t a : attrInts(c.attrs, "axes")) axes.push_back(findAxis(l, normAxis(a, r)));
  std::vector<std::pair<std::string, Attr>> changes = {{"axes", AttrValue::ints(axes)}};
  if (auto ch = attrInt(c.attrs, "channel_axis")) changes.push_back({"channel_axis", AttrValue::integer(findAxis(l, normAxis(*ch, r)))});
  d.attrs = withAttrs(c, changes);
  return d;
}

// ---------------------------------------------------------------- pooling
// Pooling follows its input by rewriting layout/out_layout; a split layout is kept (2-d pools
// only) when the split extents divide.
LayoutRule poolRule(bool splitAllowed) {
  return [splitAllowed](const RuleContext& ctx, const Call& c) -> Decision {
    int r = rankOf(c.args[0]);
    std::string lay = attrString(c, "layout"), ol = attrString(c, "out_layout", lay);
    if (r < 0 || int(lay.size()) != r || int(ol.size()) != r) return std::nullopt;
    std::string init = initial(r);
    std::string l = ctx.leafOf(c.args[0]);
    LayoutDecision d;
    if (isSubIndexed(l)) {
      std::string dl = transposeSubLayoutLike(lay, init, l);
      auto* s = shapeOf(c.args[0]);
      if (splitAllowed && lay == ol && s && layout::canProveTransform(lay, dl, *s)) {
        d.inputs = {leaf(l)};
        d.output = leaf(l);
        d.attrs = withAttrs(c, {{"layout", AttrValue::str(dl)}, {"out_layout", AttrValue::str(dl)}});
        return d;
      }
      l = init;
    }
    d.inputs = {leaf(l)};
    d.output = leaf(l);
    if (l != init) d.attrs = withAttrs(c, {{"layout", AttrValue::str(transposeLike(lay, init, l))}, {"out_layout", AttrValue::str(transposeLike(ol, init, l))}});
    return d;
  };
}

// ---------------------------------------------------------------- manipulation
Decision concatRule(const RuleContext& ctx, const Call& c) {
  NLayout in = ctx.layoutOf(c.args[0]);
  if (in.isLeaf || in.fields.empty()) return std::nullopt;
  const Attr* axisAttr = c.attrs ? c.attrs->find("axis") : nullptr;
  if (axisAttr && !*axisAttr) return std::nullopt;  // axis=None flattens: no layout to keep
  std::vector<std::string> ls;
  for (auto& f : in.fields) {
    if (!f.isLeaf || f.unknown) return std::nullopt;
    ls.push_back(f.name);
  }
  // A split layout is kept only when every field already has one; else the first plain one wins.
  std::string lc = ls[0];
  if (std::any_of(ls.begin(), ls.end(), [](auto& l) { return isSubIndexed(l); })) {
    bool allSplit = std::all_of(ls.begin(), ls.end(), [](auto& l) { return isSubIndexed(l); });
    lc = *std::find_if(ls.begin(), ls.end(), [&](auto& l) { return isSubIndexed(l) == allSplit; });
  }
  LayoutDecision d;
  d.inputs = {NLayout::tuple(std::vector<NLayout>(ls.size(), leaf(lc)))};
  d.output = leaf(lc);
  d.attrs = withAttrs(c, {{"axis", AttrValue::integer(findAxis(lc, attrInt(c.attrs, "axis").value_or(0)))}});
  return d;
}

Decision splitRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  auto out = sinfoOf(Expr(const_cast<Call*>(&c))).as<TupleSInfo>();
  if (r <= 0 || !out) return std::nullopt;
  std::string l = ctx.leafOf(c.args[0]);
  if (isSubIndexed(l))
    for (auto& f : out->fields) {
      auto t = f.as<TensorSInfo>();
      if (!t || !t->dims() || !layout::canProveTransform(initial(r), l, *t->dims())) {
        l = initial(r);
        break;
      }
    }
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = NLayout::tuple(std::vector<NLayout>(out->fields.size(), leaf(l)));
  d.attrs = withAttrs(c, {{"axis", AttrValue::integer(findAxis(l, attrInt(c.attrs, "axis").value_or(0)))}});
  return d;
}

// The permutation absorbs the input's layout: no conversion, and the result is in initial order.
Decision permuteDimsRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r <= 0) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  const Attr* axesAttr = c.attrs ? c.attrs->find("axes") : nullptr;
  std::vector<int64_t> axes;
  if (axesAttr && *axesAttr) axes = intsOf(*axesAttr);
  else
    for (int i = r - 1; i >= 0; --i) axes.push_back(i);
  if (int(axes.size()) != r) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(layout::indexOf(l, char('A' + normAxis(a, r))));
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = leaf(initial(r));
  d.attrs = withAttrs(c, {{"axes", AttrValue::ints(out)}});
  return d;
}

Decision expandDimsRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r < 0) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  auto axes = attrInts(c.attrs, "axis");
  int n = r + int(axes.size());
  std::vector<bool> isNew(size_t(n), false);
  for (int64_t a : axes) isNew[size_t(normAxis(a, n))] = true;
  std::vector<int> kept;  // output position of each original dim
  for (int p = 0; p < n; ++p)
    if (!isNew[size_t(p)]) kept.push_back(p);
  if (int(kept.size()) != r) return std::nullopt;
  std::string out;
  int m = 0;
  for (int p = 0; p < n; ++p) out += isNew[size_t(p)] ? char('A' + p) : char('A' + kept[size_t(l[size_t(m++)] - 'A')]);
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = leaf(out);
  return d;
}

Decision squeezeRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  auto* shape = shapeOf(c.args[0]);
  if (r <= 0 || !shape) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  std::vector<bool> squeezed(size_t(r), false);
  const Attr* axisAttr = c.attrs ? c.attrs->find("axis") : nullptr;
  if (axisAttr && *axisAttr)
    for (int64_t a : intsOf(*axisAttr)) squeezed[size_t(normAxis(a, r))] = true;
  else
    for (int i = 0; i < r; ++i) squeezed[size_t(i)] = constInt((*shape)[size_t(i)]) == 1;
  std::string s;
  char next = 'A';
  for (int i = 0; i < r; ++i) s += squeezed[size_t(i)] ? '1' : next++;
  std::string out;
  std::vector<int64_t> axes;
  for (int i = 0; i < r; ++i) {
    char ch = s[size_t(l[size_t(i)] - 'A')];
    if (ch == '1') axes.push_back(i);
    else out += ch;
  }
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = leaf(out);
  d.attrs = withAttrs(c, {{"axis", AttrValue::ints(axes)}});
  return d;
}

Decision stridedSliceRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  auto axes = c.args.size() > 1 ? c.args[1].as<Tuple>() : Ref<Tuple>();
  if (r <= 0 || !axes) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  std::vector<Expr> fields;
  for (auto& f : axes->fields) {
    auto p = f.as<PrimValue>();
    auto k = p ? asIntImm(p->value) : nullptr;
    if (!k) return std::nullopt;
    fields.push_back(primValue(findAxis(l, normAxis(k->value, r))));
  }
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = leaf(l);
  if (l != initial(r)) d.args[1] = tupleOf(std::move(fields));
  return d;
}

Decision repeatRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r <= 0) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  LayoutDecision d;
  d.inputs = {leaf(l)};
  auto axis = attrInt(c.attrs, "axis");
  if (!axis) {  // flattens: the element order does not matter to a 1-d result of repeats
    d.output = leaf(initial(1));
    return d;
  }
  d.output = leaf(l);
  d.attrs = withAttrs(c, {{"axis", AttrValue::integer(layout::indexOf(l, char('A' + normAxis(*axis, r))))}});
  return d;
}

Decision tileRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r <= 0) return std::nullopt;
  std::string l = unsplit(ctx.leafOf(c.args[0]), r);
  auto rep = attrInts(c.attrs, "repeats");
  int n = int(rep.size());
  std::vector<int64_t> out;
  if (n <= r) {
    for (int i = 0; i < r; ++i) {
      int p = l[size_t(i)] - 'A';
      out.push_back(p >= r - n ? rep[size_t(p - (r - n))] : 1);
    }
  } else {
    out.assign(rep.begin(), rep.begin() + (n - r));
    for (int i = 0; i < r; ++i) out.push_back(rep[size_t((l[size_t(i)] - 'A') + (n - r))]);
  }
  LayoutDecision d;
  d.inputs = {leaf(l)};
  d.output = leaf(n > r ? layout::followDecision(l, n) : l);
  d.attrs = withAttrs(c, {{"repeats", AttrValue::ints(out)}});
  return d;
}


// gather_elements / scatter_elements: data, indices (and updates) share one layout.
Decision elementsRule(const RuleContext& ctx, const Call& c) {
  int r = rankOf(c.args[0]);
  if (r <= 0) return std::nullopt;
  for (auto& a : c.args)
    if (rankOf(a) != r) return std::nullopt;
  std::string ld = ctx.leafOf(c.args[0]), li = ctx.leafOf(c.args[1]);
  std::string l;
  if (c.args.size() == 3) l = li == ctx.leafOf(c.args[2]) ? li : ld;
  else l = ld == initial(r) && li != initial(r) ? li : ld;
  l = unsplit(l, r);
  LayoutDecision d;
  d.inputs = std::vector<NLayout>(c.args.size(), leaf(l));
  d.output = leaf(l);
  d.attrs = withAttrs(c, {{"axis", AttrValue::integer(findAxis(l, attrInt(c.attrs, "axis").value_or(0)))}});
  return d;
}

const std::unordered_map<std::string, LayoutRule>& ruleTable() {
  static const std::unordered_map<std::string, LayoutRule> table = [] {
    std::unordered_map<std::string, LayoutRule> t;
    t["relax.nn.conv2d"] = convRule(true);
    for (const char* n : {"relax.nn.conv1d", "relax.nn.conv3d", "relax.nn.conv1d_transpose", "relax.nn.conv2d_transpose"}) t[n] = convRule(false);
    t["relax.image.resize2d"] = resizeRule;
    t["relax.image.resize3d"] = resizeRule;
    for (const char* n : {"abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "ceil", "cos", "cosh", "erf", "exp", "floor", "isfinite", "isinf", "isnan",
                          "log", "logical_not", "negative", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "astype", "nn.relu",
                          "nn.gelu", "nn.gelu_tanh", "nn.silu", "nn.selu", "nn.leakyrelu", "nn.softplus", "nn.prelu", "nn.dropout"})
      t[std::string("relax.") + n] = unaryRule;
    t.erase("relax.nn.prelu");  // its alpha follows the channel axis: not a plain unary op
    for (const char* n : {"add", "subtract", "multiply", "divide", "floor_divide", "power", "mod", "floor_mod", "minimum", "maximum", "equal", "not_equal", "less",
                          "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
                          "left_shift", "right_shift", "log_add_exp", "atan2"})
      t[std::string("relax.") + n] = binaryRule;
    for (const char* n : {"sum", "mean", "max", "min", "prod", "std", "variance"}) t[std::string("relax.") + n] = reduceRule;
    t["relax.nn.softmax"] = [](const RuleContext& ctx, const Call& c) { return sameLayoutAxisRule(ctx, c, -1); };
    t["relax.nn.batch_norm"] = batchNormRule;
    for (const char* n : {"layer_norm", "group_norm", "instance_norm", "rms_norm"}) t[std::string("relax.nn.") + n] = normRule;
    for (const char* n : {"max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"}) t[std::string("relax.nn.") + n] = poolRule(true);
    for (const char* n : {"max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d"}) t[std::string("relax.nn.") + n] = poolRule(false);
    t["relax.concat"] = concatRule;
    t["relax.split"] = splitRule;
    t["relax.permute_dims"] = permuteDimsRule;
    t["relax.expand_dims"] = expandDimsRule;
    t["relax.squeeze"] = squeezeRule;
    t["relax.strided_slice"] = stridedSliceRule;
    t["relax.repeat"] = repeatRule;
    t["relax.tile"] = tileRule;
    t["relax.flip"] = [](const RuleContext& ctx, const Call& c) { return sameLayoutAxisRule(ctx, c, 0); };
    t["relax.gather_elements"] = elementsRule;
    t["relax.scatter_elements"] = elementsRule;
    return t;
  }();
  return table;
}

}  // namespace

const LayoutRule* findLayoutRule(const std::string& name) {
  auto& t = ruleTable();
  auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

bool acceptsDesiredLayout(const std::string& name) {
  return name == "relax.nn.conv1d" || name == "relax.nn.conv2d" || name == "relax.nn.conv3d" || name == "relax.nn.conv1d_transpose" || name == "relax.nn.conv2d_transpose" ||
         name == "relax.image.resize2d" || name == "relax.image.resize3d";
}

std::string desiredLayoutAxes(const std::string& name, size_t position) {
  bool resize = name.rfind("relax.image.resize", 0) == 0;
  std::string spatial = name.find("1d") != std::string::npos ? "W" : name.find("2d") != std::string::npos ? "HW" : "DHW";
  if (resize || position != 1) return "NC" + spatial;
  return "OI" + spatial;
}

}  // namespace rlx::convert_layout
