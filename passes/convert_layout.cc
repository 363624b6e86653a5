// ConvertLayout(desired_layouts): rewrites the ops named in desired_layouts (conv2d → NHWC, NCHW4c…)
// to those layouts and lets the layouts flow through the ops after them, converting only where needed.
#include "passes/convert_layout.h"

#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/op.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {
namespace convert_layout {

bool NLayout::operator==(const NLayout& o) const {
  if (isLeaf != o.isLeaf) return false;
  if (isLeaf) return unknown == o.unknown && name == o.name;
  return fields == o.fields;
}

NLayout initialNLayout(const StructInfo& s) {
  if (auto t = s.as<TensorSInfo>()) return t->ndim < 0 ? NLayout::unknownDim() : NLayout::leaf(layout::initial(t->ndim));
  if (auto t = s.as<TupleSInfo>()) {
    std::vector<NLayout> fields;
    for (auto& f : t->fields) fields.push_back(initialNLayout(f));
    return NLayout::tuple(std::move(fields));
  }
  return NLayout::unknownDim();
}

std::string RuleContext::leafOf(const Expr& e) const {
  NLayout l = layoutOf(e);
  if (l.isLeaf && !l.unknown) return l.name;
  auto init = initialNLayout(sinfoOf(e));
  return init.isLeaf ? init.name : "";
}

namespace {

using DesiredMap = std::map<std::string, std::vector<std::string>>;

bool hasUnknownRank(const StructInfo& s) {
  if (auto t = s.as<TensorSInfo>()) return t->ndim < 0;
  if (auto t = s.as<TupleSInfo>()) {
    for (auto& f : t->fields)
      if (hasUnknownRank(f)) return true;
  }
  return false;
}

bool isTensorOrTupleOfTensors(const StructInfo& s) {
  if (s.as<TensorSInfo>()) return true;
  if (auto t = s.as<TupleSInfo>()) {
    for (auto& f : t->fields)
      if (!isTensorOrTupleOfTensors(f)) return false;
    return true;
  }
  return false;
}

// The call converting a tensor from decision `from` to `to`: a permute_dims when only the order
// differs, else a layout_transform with the index map between them.
Expr convertLeaf(const Expr& x, const std::string& from, const std::string& to) {
  auto f = layout::parse(from), t = layout::parse(to);
  if (!f || !t) return x;  // unreachable: the options' layouts are checked and decisions keep their axes
  if (f->size() == t->size()) {
    std::vector<int64_t> axes;
    for (auto& a : *t)
      for (size_t j = 0; j < f->size(); ++j)
        if ((*f)[j].letter == a.letter) axes.push_back(int64_t(j));
    return build::call("permute_dims", {build::e(x)}, {{"axes", build::ints(axes)}});
  }
  return build::call("layout_transform", {build::e(x)}, {{"index_map", layout::indexMapArg(from, to)}});
}

// `x` converted from `from` to `to`, leaf by leaf (a tuple var becomes a tuple of its converted
// fields); `x` itself when nothing differs.
Expr convertExpr(const Expr& x, const NLayout& from, const NLayout& to) {
  if (from == to) return x;
  if (to.isLeaf != from.isLeaf) return x;
  if (to.isLeaf) {
    if (from.unknown || to.unknown || from.name.empty() || to.name.empty()) return x;
    return convertLeaf(x, from.name, to.name);
  }
  if (from.fields.size() != to.fields.size()) return x;
  std::vector<Expr> fields;
  if (auto t = x.as<Tuple>()) {
    if (t->fields.size() != to.fields.size()) return x;
    for (size_t i = 0; i < t->fields.size(); ++i) fields.push_back(convertExpr(t->fields[i], from.fields[i], to.fields[i]));
  } else {
    auto ts = sinfoOf(x).as<TupleSInfo>();
    if (!ts || ts->fields.size() != to.fields.size()) return x;
    for (size_t i = 0; i < to.fields.size(); ++i) {
      auto item = make<TupleGetItem>(x, int(i));
      item->sinfo = ts->fields[i];
      fields.push_back(convertExpr(Expr(item), from.fields[i], to.fields[i]));
    }
  }
  return make<Tuple>(std::move(fields));
}

class LayoutConverter : public ExprMutator, public RuleContext {
 public:
  explicit LayoutConverter(const DesiredMap& desired) : desired_(desired) {}

  const std::vector<std::string>* desired(const std::string& op) const override {
    auto it = desired_.find(op);
    return it == desired_.end() ? nullptr : &it->second;
  }

  NLayout layoutOf(const Expr& e) const override {
    if (auto v = e.as<Var>()) {
      auto it = layouts_.find(v.get());
      return it != layouts_.end() ? it->second : initialNLayout(sinfoOf(e));
    }
    if (auto c = e.as<Constant>()) return initialNLayout(sinfoOf(e));
    if (auto t = e.as<Tuple>()) {
      std::vector<NLayout> fields;
      for (auto& f : t->fields) fields.push_back(layoutOf(f));
      return NLayout::tuple(std::move(fields));
    }
    return NLayout::unknownDim();
  }

  Status status = okStatus();

 protected:
  Expr visitFunction(const Ref<Function>& f) override {
    bb_.beginFunction();
    Expr out = ExprMutator::visitFunction(f);
    // A rewritten body re-derives the return struct info (as TVM's rebuilt function does): the
    // annotation written for the old body need not describe the new one.
    auto nf = out.as<Function>();
    auto seq = nf ? nf->body.as<SeqExpr>() : Ref<SeqExpr>();
    if (out.same(Expr(f)) || !seq) return out;
    auto g = make<Function>(nf->params, nf->body, eraseToSignature(sinfoOf(seq->body), nf->params), nf->isPure, nf->attrs);
    std::vector<StructInfo> params;
    for (auto& p : g->params) params.push_back(sinfoOf(p));
    g->sinfo = make<FuncSInfo>(std::move(params), g->retSInfo, g->isPure);
    g->span = f->span;
    return g;
  }

  // Only dataflow blocks are rewritten; each starts afresh, so every value from outside (params,
  // earlier blocks) is in its initial layout, and outputs leave in theirs.
  BlockRef visitBlock(const BlockRef& b) override {
    if (!b->isDataflow()) return ExprMutator::visitBlock(b);
    layouts_.clear();
    remap_.clear();
    changed_ = false;
    bb_.beginBlock(true);
    for (auto& binding : b->bindings) {
      Status s = visitLayoutBinding(binding);
      if (!s.ok() && status.ok()) status = s;
    }
    BlockRef out = bb_.endBlock();
    if (!changed_ || !status.ok()) return b;
    return out;
  }

 private:
  Status visitLayoutBinding(const BindingRef& b) {
    if (b->isMatchCast()) return visitMatchCast(b);
    if (auto c = b->value.as<Call>()) return visitCall(b, c);
    if (auto t = b->value.as<Tuple>()) {
      if (b->var->isDataflow()) {
        layouts_[b->var.get()] = layoutOf(b->value);
        return emitAs(b, remapped(b->value));
      }
      return emitAs(b, convertExpr(remapped(b->value), layoutOf(b->value), initialNLayout(sinfoOf(b->value))));
    }
    if (auto g = b->value.as<TupleGetItem>()) {
      NLayout tl = layoutOf(g->tuple);
      if (tl.isLeaf || size_t(g->index) >= tl.fields.size()) return emitAs(b, toInitial(b->value));
      NLayout item = tl.fields[size_t(g->index)];
      Expr value = remapped(b->value);
      if (b->var->isDataflow()) {
        layouts_[b->var.get()] = item;
        return emitAs(b, value);
      }
      return emitAs(b, convertExpr(value, item, initialNLayout(sinfoOf(b->var))));
    }
    return emitAs(b, toInitial(b->value));
  }

  Status visitCall(const BindingRef& b, const Ref<Call>& c) {
    const VarRef& v = b->var;
    std::optional<LayoutDecision> d;
    if (c->op.is<Op>() && (v->isDataflow() || isTensorOrTupleOfTensors(sinfoOf(v)))) {
      bool unknownRank = false;
      for (auto& a : c->args) unknownRank = unknownRank || hasUnknownRank(sinfoOf(a));
      if (const LayoutRule* rule = findLayoutRule(c->opName()); rule && !unknownRank) d = (*rule)(*this, *c);
    }
    // No rule (or no opinion): the op sees its arguments as the input program had them.
    if (!d) return emitAs(b, toInitial(b->value));
    std::vector<Expr> args;
    // Rules rewrite attrs unconditionally; equal attrs keep the call (and the pass idempotent).
    if (d->attrs && c->attrs && structuralEqual(Ref<Object>(d->attrs), Ref<Object>(c->attrs))) d->attrs = c->attrs;
    bool same = !d->attrs || d->attrs.same(c->attrs);
    for (size_t i = 0; i < c->args.size(); ++i) {
      Expr a = remapped(c->args[i]);
      if (i < d->inputs.size()) a = convertExpr(a, layoutOf(c->args[i]), d->inputs[i]);
      if (auto it = d->args.find(i); it != d->args.end()) a = it->second;
      same = same && a.same(c->args[i]);
      args.push_back(a);
    }
    Expr call = same ? Expr(c) : Expr(make<Call>(c->op, std::move(args), d->attrs ? d->attrs : c->attrs, c->sinfoArgs));
    if (v->isDataflow()) {
      layouts_[v.get()] = d->output;
      return emitAs(b, call);
    }
    // An output var keeps its original layout: the call goes to a temporary, converted back.
    NLayout init = initialNLayout(sinfoOf(v));
    if (d->output == init) return emitAs(b, call);
    auto tmp = bb_.emit(call, "", b->span);
    if (!tmp.ok()) return tmp.error();
    changed_ = true;
    layouts_[tmp.value().get()] = d->output;
    return emitAs(b, convertExpr(tmp.value(), d->output, init));
  }

  Status visitMatchCast(const BindingRef& b) {
    const VarRef& v = b->var;
    NLayout from = initialNLayout(sinfoOf(b->value)), to = layoutOf(b->value);
    if (!v->isDataflow() || from == to) return emitAs(b, toInitial(b->value));
    auto cast = b->castSInfo.as<TensorSInfo>();
    const std::vector<PrimExpr>* dims = cast ? cast->dims() : nullptr;
    if (!to.isLeaf || to.unknown || layout::isSubIndexed(to.name) || !dims || dims->size() != to.name.size())
      return emitAs(b, toInitial(b->value));
    // The cast shape follows the value into its current layout, under a new var.
    std::vector<PrimExpr> permuted;
    for (char c : to.name) permuted.push_back((*dims)[size_t(c - 'A')]);
    auto target = make<TensorSInfo>(make<ShapeExpr>(permuted), cast->dtype, int(permuted.size()), cast->vdevice);
    target->shape->sinfo = make<ShapeSInfo>(permuted, 0);
    auto nv = bb_.emitMatchCast(remapped(b->value), StructInfo(target), "", b->span);
    if (!nv.ok()) return nv.error();
    changed_ = true;
    remap_[v.get()] = nv.value();
    layouts_[v.get()] = to;
    return okStatus();
  }

  // Re-emits binding `b` with `value`: the binding itself when nothing changed, else under the
  // same var, or a new one (remapped for later uses) when a dataflow var's struct info changed.
  Status emitAs(const BindingRef& b, const Expr& value) {
    if (value.same(b->value)) {
      bb_.addBinding(b);
      return okStatus();
    }
    changed_ = true;
    Result<Expr> n = b->isMatchCast() ? bb_.normalizeArgument(value) : bb_.normalize(value);
    if (!n.ok()) return n.error();
    VarRef var = b->var;
    if (!b->isMatchCast() && var->isDataflow() && !sinfoEqual(sinfoOf(var), sinfoOf(n.value()))) {
      var = make<Var>(b->var->name, sinfoOf(n.value()), true);
      var->span = b->var->span;
      remap_[b->var.get()] = var;
    }
    auto nb = make<Binding>(var, n.value(), b->castSInfo);
    nb->span = b->span;
    bb_.addBinding(nb);
    return okStatus();
  }

  // `e` with vars re-created by this pass replaced by their new vars.
  Expr remapped(const Expr& e) {
    if (remap_.empty()) return e;
    std::unordered_map<const Var*, Expr> m;
    for (auto& [k, v] : remap_) m[k] = v;
    return substituteVars(e, m);
  }

  // `e` with every var that is not in its initial layout converted back to it.
  Expr toInitial(const Expr& e) {
    std::unordered_map<const Var*, Expr> m;
    for (auto& [k, l] : layouts_) {
      auto init = initialNLayout(k->sinfo);
      if (l == init) continue;
      auto it = remap_.find(k);
      Expr cur = it != remap_.end() ? Expr(it->second) : Expr(VarRef(const_cast<Var*>(k)));
      m[k] = convertExpr(cur, l, init);
    }
    for (auto& [k, v] : remap_)
      if (!m.count(k)) m[k] = v;
    return m.empty() ? e : substituteVars(e, m);
  }

  const DesiredMap& desired_;
  BlockBuilder bb_;
  std::unordered_map<const Var*, NLayout> layouts_;
  std::unordered_map<const Var*, VarRef> remap_;
  bool changed_ = false;
};

}  // namespace
}  // namespace convert_layout

namespace {

// Whether `layout`'s primal (upper-case) axes are exactly the letters of `axes`.
bool sameAxes(const std::string& layout, const std::string& axes) {
  auto parsed = layout::parse(layout);
  if (!parsed) return false;
  std::string primal;
  for (auto& a : *parsed)
    if (a.primal()) primal += a.letter;
  std::sort(primal.begin(), primal.end());
  std::string want = axes;
  std::sort(want.begin(), want.end());
  return primal == want;
}

}  // namespace

Result<Pass> createConvertLayoutPass(PassOptions& options) {
  using namespace convert_layout;
  DesiredMap desired;
  auto entries = options.dict("desired_layouts");
  for (auto& [key, value] : entries.value_or(std::vector<std::pair<std::string, Attr>>{})) {
    // Relay names ("nn.conv2d") and Relax names ("relax.nn.conv2d") both name the op.
    std::string op = key.rfind("relax.", 0) == 0 ? key : "relax." + key;
    if (!findOp(op)) return Error("ConvertLayout: desired_layouts names an unknown op \"" + key + "\"");
    if (!acceptsDesiredLayout(op))
      return Error("ConvertLayout: " + op + " takes no desired layout (only the convolutions and image.resize2d/3d do; other ops follow their inputs)");
    if (!value || value->kind != AttrValue::Array || value->array.empty())
      return Error("ConvertLayout: desired_layouts[\"" + key + "\"] must be a list of layout strings, such as [\"NHWC\", \"OHWI\"]");
    std::vector<std::string> layouts;
    for (auto& item : value->array) {
      if (!item || item->kind != AttrValue::Str)
        return Error("ConvertLayout: desired_layouts[\"" + key + "\"] must be a list of layout strings, not " + describeOptionValue(value));
      if (item->s != "default" && !layout::parse(item->s))
        return Error("ConvertLayout: \"" + item->s + "\" in desired_layouts[\"" + key + "\"] is not a layout (upper-case axes, split axes written 4c)");
      if (item->s != "default" && !sameAxes(item->s, desiredLayoutAxes(op, layouts.size())))
        return Error("ConvertLayout: \"" + item->s + "\" in desired_layouts[\"" + key + "\"] must hold the axes " + desiredLayoutAxes(op, layouts.size()) +
                     " (in any order, split axes allowed), as position " + std::to_string(layouts.size()) + " of " + op + " does");
      layouts.push_back(item->s);
    }
    bool conv = op.find(".nn.conv") != std::string::npos;
    if (conv && layouts.size() < 2)
      return Error("ConvertLayout: desired_layouts[\"" + key + "\"] needs the data and kernel layouts (and optionally the output layout)");
    desired[op] = std::move(layouts);
  }
  return makeFunctionPass({"ConvertLayout", 0, {}}, [desired](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    if (desired.empty()) return func;
    LayoutConverter conv(desired);
    Expr out = conv.mutate(func);
    if (!conv.status.ok()) return conv.status.error();
    return out;
  });
}

}  // namespace rlx
