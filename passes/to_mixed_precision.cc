// ToMixedPrecision(out_dtype="float32", fp16_input_names=None): TVM's relax automatic mixed
// precision. float32 dataflow computes in float16 where that is safe; GEMM-like ops accumulate in
// out_dtype. Why: half the memory traffic, and float16 GEMM units, at the precision TVM accepts.
// Each op has a policy (TVM's TMixedPrecisionPolicy):
//  - always: matmul, conv1d/2d/3d and their transposes, attention — inputs cast to float16,
//    out_dtype (the accumulator) set to the option's out_dtype, the result kept in float16;
//  - follow: elementwise, layout and indexing ops, relu/gelu/silu, pooling, resize... — float16
//    when every tensor argument is float16 (or a constant within float16's range), else float32;
//  - never: every other op (softmax, reductions, norms, call_tir, ...) — its arguments are cast
//    back to the dtypes they had.
// Only dataflow blocks change. A backward sweep first finds the tensors only "always" ops use:
// those are stored in float16 right where they are defined (at the start of each dataflow block
// for parameters). A forward sweep then rewrites each binding, casting arguments locally with
// R.astype where a use needs another dtype (casts are not shared: they fuse better). Vars that
// leave a dataflow block keep their original dtype. Only float16/float32 tensors are ever cast.
// Parameters named in fp16_input_names become float16 parameters (the caller passes float16).
// Before: `gv = R.nn.conv2d(x, w)` (float32, gv an output)
// After:  `lv = R.astype(x, "float16"); lv1 = R.astype(w, "float16");
//          gv = R.nn.conv2d(lv, lv1, out_dtype="float32")`.
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"
#include "ir/structural_equal.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// ------------------------------------------------------------------ op policies
enum class Policy { NotOp, Always, Follow, Never };

Policy policyOf(const Expr& value) {
  auto c = value.as<Call>();
  if (!c || !c->op.is<Op>()) return Policy::NotOp;
  static const std::set<std::string> always = {
      "relax.matmul", "relax.nn.conv1d", "relax.nn.conv2d", "relax.nn.conv3d", "relax.nn.conv1d_transpose", "relax.nn.conv2d_transpose",
      "relax.nn.conv3d_transpose", "relax.nn.attention", "relax.nn.attention_bias",
  };
  static const std::set<std::string> follow = {
      // unary elementwise
      "relax.abs", "relax.acos", "relax.acosh", "relax.asin", "relax.asinh", "relax.atan", "relax.atanh", "relax.bitwise_not", "relax.ceil",
      "relax.clip", "relax.cos", "relax.cosh", "relax.erf", "relax.exp", "relax.floor", "relax.isfinite", "relax.isinf", "relax.isnan", "relax.log",
      "relax.logical_not", "relax.negative", "relax.round", "relax.rsqrt", "relax.sigmoid", "relax.sign", "relax.sin", "relax.sinh", "relax.sqrt",
      "relax.square", "relax.tan", "relax.tanh", "relax.trunc",
      // binary elementwise and comparisons
      "relax.add", "relax.subtract", "relax.multiply", "relax.divide", "relax.floor_divide", "relax.power", "relax.mod", "relax.floor_mod",
      "relax.maximum", "relax.minimum", "relax.log_add_exp", "relax.equal", "relax.not_equal", "relax.greater", "relax.greater_equal",
      "relax.less", "relax.less_equal", "relax.logical_and", "relax.logical_or", "relax.logical_xor", "relax.bitwise_and", "relax.bitwise_or",
      "relax.bitwise_xor", "relax.left_shift", "relax.right_shift",
      // activations, pooling, image
      "relax.nn.relu", "relax.nn.gelu", "relax.nn.gelu_tanh", "relax.nn.selu", "relax.nn.silu", "relax.nn.max_pool1d", "relax.nn.max_pool2d",
      "relax.nn.max_pool3d", "relax.nn.avg_pool1d", "relax.nn.avg_pool2d", "relax.nn.avg_pool3d", "relax.nn.adaptive_avg_pool1d",
      "relax.nn.adaptive_avg_pool2d", "relax.nn.adaptive_avg_pool3d", "relax.image.resize2d", "relax.vision.roi_align",
      // layout, indexing, creation
      "relax.broadcast_to", "relax.concat", "relax.expand_dims", "relax.flatten", "relax.layout_transform", "relax.permute_dims", "relax.reshape",
      "relax.split", "relax.squeeze", "relax.collapse_sum_like", "relax.collapse_sum_to", "relax.repeat", "relax.tile", "relax.flip", "relax.stack",
      "relax.gather_elements", "relax.gather_nd", "relax.scatter_elements", "relax.scatter_nd", "relax.take", "relax.strided_slice",
      "relax.dynamic_strided_slice", "relax.where", "relax.full", "relax.full_like", "relax.ones", "relax.ones_like", "relax.zeros",
      "relax.zeros_like", "relax.tril", "relax.triu",
  };
  const std::string& name = c->opName();
  if (always.count(name)) return Policy::Always;
  if (follow.count(name)) return Policy::Follow;
  return Policy::Never;
}

const DataType kF16(DataType::Float, 16), kF32 = DataType::float32();

// ------------------------------------------------------------------ nested dtypes
// A dtype per tensor leaf of a (nested tuple) value; an unknown leaf has no dtype.
struct NType {
  std::optional<DataType> leaf;
  std::vector<NType> fields;
  bool isTuple = false;
};

// The dtypes of `s`'s tensors (`to` replaces each one when given); non-tensor leaves are unknown.
NType ntypeOf(const StructInfo& s, std::optional<DataType> to = std::nullopt) {
  NType n;
  if (auto t = s.as<TensorSInfo>()) {
    n.leaf = to ? *to : t->dtype;
  } else if (auto tu = s.as<TupleSInfo>()) {
    n.isTuple = true;
    for (auto& f : tu->fields) n.fields.push_back(ntypeOf(f, to));
  }
  return n;
}

// The lattice meet: unknown < float16 < float32 (more bits wins).
NType merge(const NType& a, const NType& b) {
  if (a.isTuple != b.isTuple || a.fields.size() != b.fields.size()) return a;
  NType out = a;
  if (!a.isTuple) {
    if (!a.leaf) out.leaf = b.leaf;
    else if (b.leaf && b.leaf->bits > a.leaf->bits) out.leaf = b.leaf;
    return out;
  }
  for (size_t i = 0; i < a.fields.size(); ++i) out.fields[i] = merge(a.fields[i], b.fields[i]);
  return out;
}

bool isNestedTensor(const StructInfo& s) {
  if (s.is<TensorSInfo>()) return true;
  auto t = s.as<TupleSInfo>();
  if (!t) return false;
  for (auto& f : t->fields)
    if (!isNestedTensor(f)) return false;
  return true;
}

using VarTypes = std::unordered_map<const Var*, NType>;

// ------------------------------------------------------------------ backward sweep
// Which dtype each var must be stored in: float16 when only "always" ops use it (TVM's
// DTypeDecisionCollector). Visits dataflow blocks backwards; other blocks are not changed.
class DTypeCollector {
 public:
  VarTypes types;

  void visitFunction(const Function& f) {
    auto seq = f.body.as<SeqExpr>();
    if (!seq) return;
    useAll(seq->body);
    for (auto it = seq->blocks.rbegin(); it != seq->blocks.rend(); ++it)
      if ((*it)->isDataflow())
        for (auto b = (*it)->bindings.rbegin(); b != (*it)->bindings.rend(); ++b) visitBinding(**b);
  }

 private:
  NType typeOf(const Var* v) {
    auto it = types.find(v);
    if (it != types.end()) return it->second;
    return types[v] = clearLeaves(ntypeOf(v->sinfo));  // never used yet: unknown
  }
  static NType clearLeaves(NType n) {
    n.leaf.reset();
    for (auto& f : n.fields) f = clearLeaves(f);
    return n;
  }
  void require(const Var* v, const NType& t) {
    auto it = types.find(v);
    types[v] = it == types.end() ? t : merge(it->second, t);
  }
  // Requires the tensor leaves of `e` (a var, constant or tuple of them) to be `t`.
  void requireExpr(const Expr& e, const NType& t) {
    if (auto v = e.as<Var>()) require(v.get(), t);
    else if (auto tu = e.as<Tuple>(); tu && t.isTuple && t.fields.size() == tu->fields.size())
      for (size_t i = 0; i < tu->fields.size(); ++i) requireExpr(tu->fields[i], t.fields[i]);
  }
  // Every var `e` uses needs its original dtype (kept in float32 where it was).
  void useAll(const Expr& e) {
    walkUses(e, [&](const VarRef& v) {
      if (isNestedTensor(v->sinfo)) require(v.get(), ntypeOf(v->sinfo, kF32));
    });
  }
  static void walkUses(const Expr& e, const std::function<void(const VarRef&)>& fn);

  void visitBinding(const Binding& b) {
    Policy p = b.isMatchCast() ? Policy::NotOp : policyOf(b.value);
    if (p == Policy::Always || p == Policy::Follow || p == Policy::Never) {
      for (auto& a : b.value.as<Call>()->args)
        if (isNestedTensor(sinfoOf(a))) requireExpr(a, ntypeOf(sinfoOf(a), p == Policy::Always ? kF16 : kF32));
      return;
    }
    if (!b.isMatchCast())
      if (auto tu = b.value.as<Tuple>()) {
        NType lhs = typeOf(b.var.get());
        if (lhs.isTuple && lhs.fields.size() == tu->fields.size())
          for (size_t i = 0; i < tu->fields.size(); ++i) requireExpr(tu->fields[i], lhs.fields[i]);
        return;
      }
    if (!b.isMatchCast())
      if (auto get = b.value.as<TupleGetItem>()) {
        auto ts = sinfoOf(get->tuple).as<TupleSInfo>();
        if (!ts) return;
        NType want;
        want.isTuple = true;
        for (size_t i = 0; i < ts->fields.size(); ++i) want.fields.push_back(int(i) == get->index ? typeOf(b.var.get()) : clearLeaves(ntypeOf(ts->fields[i])));
        requireExpr(get->tuple, want);
        return;
      }
    useAll(b.value);
  }
};

void DTypeCollector::walkUses(const Expr& e, const std::function<void(const VarRef&)>& fn) {
  struct Visitor : ExprMutator {
    const std::function<void(const VarRef&)>* fn;
    Expr visitVar(const Ref<Var>& v) override {
      (*fn)(v);
      return v;
    }
  } visitor;
  visitor.fn = &fn;
  visitor.mutate(e);
}

// ------------------------------------------------------------------ forward sweep
class MixedPrecisionRewriter {
 public:
  MixedPrecisionRewriter(const VarTypes& types, DataType outDtype, const std::set<std::string>& fp16Inputs) : types_(types), outDtype_(outDtype), fp16Inputs_(fp16Inputs) {}

  Result<Expr> rewrite(const Ref<Function>& f) {
    std::vector<VarRef> params;
    for (auto& p : f->params) {
      auto t = p->sinfo.as<TensorSInfo>();
      if (fp16Inputs_.count(p->name) && t && t->dtype != kF16) {
        auto np = make<Var>(p->name, make<TensorSInfo>(t->shape, kF16, t->ndim, t->vdevice), p->isDataflow());
        np->span = p->span;
        remap_[p.get()] = np;
        params.push_back(np);
      } else {
        params.push_back(p);
      }
    }
    params_ = f->params;
    auto seq = f->body.as<SeqExpr>();
    if (!seq) return Expr(f);
    findCastToF16Only(*seq);
    std::vector<BlockRef> blocks;
    bool changed = !remap_.empty();
    for (auto& b : seq->blocks) {
      RLX_TRY(nb, b->isDataflow() ? rewriteDataflow(b) : Result<BlockRef>(substituteBlock(b)));
      changed |= !nb.same(b);
      if (nb) blocks.push_back(nb);
    }
    Expr body = substitute(seq->body);
    changed |= !body.same(seq->body);
    if (!changed) return Expr(f);
    auto nseq = make<SeqExpr>(std::move(blocks), body);
    nseq->sinfo = sinfoOf(body);
    nseq->span = seq->span;
    // The rebuilt function returns what its body now gives (TVM re-derives it from the body).
    StructInfo ret = eraseToSignature(sinfoOf(body), params);
    auto nf = make<Function>(params, nseq, ret, f->isPure, f->attrs);
    nf->span = f->span;
    std::vector<StructInfo> ps;
    for (auto& p : params) ps.push_back(p->sinfo);
    nf->sinfo = make<FuncSInfo>(ps, ret, f->isPure);
    return Expr(nf);
  }

 private:
  // ---- expressions
 public:
  Expr current(const Var* v) const {
    auto it = remap_.find(v);
    return it == remap_.end() ? Expr() : it->second;
  }
  // Vars replaced by their current versions, without casts (TVM's VarReplacer).

 private:
  // Rebuilt tuples carry no struct info, so that normalizing infers their new dtypes.
  Expr remapped(const Expr& e) const {
    if (auto v = e.as<Var>()) {
      Expr cur = current(v.get());
      return cur ? cur : e;
    }
    if (auto t = e.as<Tuple>()) {
      std::vector<Expr> fields;
      bool changed = false;
      for (auto& f : t->fields) {
        fields.push_back(remapped(f));
        changed |= !fields.back().same(f);
      }
      return changed ? Expr(make<Tuple>(std::move(fields))) : e;
    }
    if (auto g = e.as<TupleGetItem>()) {
      Expr tuple = remapped(g->tuple);
      return tuple.same(g->tuple) ? e : Expr(make<TupleGetItem>(tuple, g->index));
    }
    return e;
  }
  // Outside dataflow blocks uses are only renamed (TVM's plain var remapping).
  Expr substitute(const Expr& e) const { return remap_.empty() ? e : substituteVars(e, remap_); }
  BlockRef substituteBlock(const BlockRef& b) const {
    struct S : ExprMutator {
      explicit S(const std::unordered_map<const Var*, Expr>& m) { varMap = m; }
      BlockRef run(const BlockRef& b) { return visitBlock(b); }
    } s(remap_);
    return s.run(b);
  }

  // `e` (a tensor or tuple of tensors) with each float16/float32 leaf cast to `to`'s dtype.
 public:
  Expr cast(const Expr& e, const NType& to) {
    StructInfo s = sinfoOf(e);
    if (auto t = s.as<TensorSInfo>()) {
      if (to.isTuple || !to.leaf || t->dtype == *to.leaf || (t->dtype != kF16 && t->dtype != kF32)) return e;
      return build::call("astype", {build::e(e), build::s(to.leaf->str())});
    }
    auto ts = s.as<TupleSInfo>();
    if (!ts || !to.isTuple || to.fields.size() != ts->fields.size()) return e;
    std::vector<Expr> fields;
    bool changed = false;
    auto tu = e.as<Tuple>();
    for (size_t i = 0; i < ts->fields.size(); ++i) {
      Expr item = tu ? tu->fields[i] : Expr(make<TupleGetItem>(e, int(i)));
      if (!tu) item->sinfo = ts->fields[i];
      Expr c = cast(item, to.fields[i]);
      changed |= !c.same(item);
      fields.push_back(c);
    }
    if (!changed) return e;
    return make<Tuple>(std::move(fields));
  }


 private:
  // A use inside a dataflow block: the current version cast back to the var's own dtypes.
  Expr useOf(const Expr& e) {
    struct U : ExprMutator {
      MixedPrecisionRewriter* self;
      Expr visitVar(const Ref<Var>& v) override {
        Expr cur = self->current(v.get());
        return cur ? self->cast(cur, ntypeOf(v->sinfo)) : Expr(v);
      }
    } u;
    u.self = this;
    return u.mutate(e);
  }

  bool fp16Castable(const std::vector<Expr>& args) const {
    for (auto& a : args) {
      StructInfo s = sinfoOf(a);
      if (!isNestedTensor(s)) continue;
      if (auto t = s.as<TensorSInfo>(); t && t->dtype == kF16) continue;
      if (auto c = a.as<Constant>(); c && constantFitsF16(*c)) continue;
      if (auto tu = a.as<Tuple>(); tu && fp16Castable(tu->fields)) continue;
      return false;
    }
    return true;
  }
  static bool constantFitsF16(const Constant& c) {
    const NDArray& d = *c.data;
    DataType t = d.dtype;
    if (t.lanes != 1) return false;
    if (t == kF16) return true;
    if (!(t == kF32 || t == DataType::float64() || (t.code == DataType::Int && (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)))) return false;
    int64_t n = d.numel();
    for (int64_t i = 0; i < n; ++i)
      if (std::abs(d.getDouble(i)) > 65504) return false;
    return true;
  }

  // ---- blocks
  Result<BlockRef> rewriteDataflow(const BlockRef& block) {
    bb_.beginBlock(true);
    auto saved = remap_;
    for (auto& p : params_) castIfOnlyF16(p);
    for (auto& b : block->bindings) {
      RLX_TRY_STATUS(rewriteBinding(b));
      castIfOnlyF16(b->var);
    }
    // The block-local float16 copies of parameters do not outlive the block.
    for (auto& p : params_) {
      if (saved.count(p.get())) remap_[p.get()] = saved[p.get()];
      else remap_.erase(p.get());
    }
    BlockRef out = bb_.endBlock();
    if (out && out->bindings.size() == block->bindings.size()) {
      bool same = true;
      for (size_t i = 0; i < out->bindings.size() && same; ++i) same = out->bindings[i].same(block->bindings[i]);
      if (same) return block;  // nothing changed: the same object (idempotence)
    }
    return out;
  }

  // Stores `v` in float16 when only "always" ops use it.
  void castIfOnlyF16(const VarRef& var) {
    const Var* v = var.get();
    auto it = types_.find(v);
    if (it == types_.end()) return;
    Expr cur = current(v);
    if (!cur) cur = var;
    std::function<NType(const NType&, const NType&)> combine = [&](const NType& from, const NType& req) {
      NType out = from;
      if (from.isTuple && req.isTuple && from.fields.size() == req.fields.size()) {
        for (size_t i = 0; i < from.fields.size(); ++i) out.fields[i] = combine(from.fields[i], req.fields[i]);
      } else if (!from.isTuple && req.leaf && *req.leaf == kF16) {
        out.leaf = kF16;
      }
      return out;
    };
    Expr c = cast(cur, combine(ntypeOf(sinfoOf(cur)), it->second));
    if (c.same(cur)) return;
    auto nv = bb_.emit(c, "", Span());
    if (nv.ok()) remap_[v] = nv.value();
  }

  Status rewriteBinding(const BindingRef& b) {
    Policy p = b->isMatchCast() ? Policy::NotOp : policyOf(b->value);
    bool dataflowVar = b->var->isDataflow();
    Expr value;
    if (p != Policy::NotOp) {
      auto c = b->value.as<Call>();
      if (c->opName() == "relax.wrap_param") return reEmit(b, c->args[0]);
      std::vector<Expr> args;
      bool argsChanged = false;
      for (auto& a : c->args) {
        args.push_back(remapped(a));
        argsChanged |= !args.back().same(a);
      }
      AttrsRef attrs = c->attrs;
      std::optional<DataType> to;
      if (p == Policy::Always) {
        to = kF16;
        if (c->attrs && ops::findAttr(*c, "out_dtype")) {  // the accumulator's dtype
          auto copy = make<Attrs>();
          copy->typeKey = c->attrs->typeKey;
          copy->fields = c->attrs->fields;
          for (auto& [k, v] : copy->fields)
            if (k == "out_dtype") v = AttrValue::dtypeOf(outDtype_);
          attrs = copy;
        }
      } else if (p == Policy::Follow) {
        to = fp16Castable(args) ? kF16 : kF32;
      } else if (argsChanged) {  // never: back to exactly the dtypes the op had
        for (size_t i = 0; i < args.size(); ++i) args[i] = cast(args[i], ntypeOf(sinfoOf(c->args[i])));
      } else {
        return reEmit(b, b->value);
      }
      if (to)
        for (auto& a : args)
          if (isNestedTensor(sinfoOf(a))) a = cast(a, ntypeOf(sinfoOf(a), *to));
      Expr call = make<Call>(c->op, std::move(args), attrs, c->sinfoArgs);
      call->span = c->span;
      value = call;
      if (to) {
        RLX_TRY(n, bb_.normalize(call));
        value = n;
        if (!dataflowVar) value = cast(value, ntypeOf(b->var->sinfo));
        else if (p == Policy::Always && !castToF16Only_.count(b->var.get())) value = cast(value, ntypeOf(sinfoOf(value), kF16));
      }
    } else if (!b->isMatchCast() && (b->value.is<Tuple>() || b->value.is<TupleGetItem>())) {
      RLX_TRY(n, bb_.normalize(remapped(b->value)));
      value = n;
      if (!dataflowVar) value = cast(value, ntypeOf(b->var->sinfo));
    } else {
      value = useOf(b->value);
    }
    if (b->isMatchCast()) {
      if (value.same(b->value)) {
        bb_.addBinding(b);
        return okStatus();
      }
      RLX_TRY(n, bb_.normalize(value));
      auto nb = make<Binding>(b->var, n, b->castSInfo);
      nb->span = b->span;
      bb_.addBinding(nb);
      return okStatus();
    }
    return reEmit(b, value);
  }

  // Binds b's var to `value`; a var whose struct info changes is replaced (and remapped).
  Status reEmit(const BindingRef& b, const Expr& value) {
    if (value.same(b->value)) {
      bb_.addBinding(b);
      return okStatus();
    }
    RLX_TRY(n, bb_.normalize(value));
    if (structuralEqual(n, b->value)) {  // rebuilt as it was (a module already in mixed precision)
      bb_.addBinding(b);
      return okStatus();
    }
    VarRef var = b->var;
    StructInfo s = sinfoOf(n);
    if (!sinfoEqual(s, var->sinfo)) {
      var = make<Var>(b->var->name, s, b->var->isDataflow());
      var->span = b->var->span;
      remap_[b->var.get()] = var;
    }
    auto nb = make<Binding>(var, n);
    nb->span = b->span;
    bb_.addBinding(nb);
    return okStatus();
  }

  // Vars whose every use is `R.astype(v, "float16")`: a module this pass already rewrote stores
  // the results of "always" ops that way, so storing them in float16 again would only stack
  // casts (the rewrite is then idempotent; for new input it changes nothing).
  void findCastToF16Only(const SeqExpr& seq) {
    std::unordered_map<const Var*, int> uses, castUses;
    walkExpr(Expr(make<SeqExpr>(seq.blocks, seq.body)), [&](const Expr& e) {
      if (auto v = e.as<Var>()) ++uses[v.get()];
      if (auto c = e.as<Call>(); c && c->opName() == "relax.astype" && c->args.size() == 1 && ops::attrDType(*c, "dtype") == kF16)
        if (auto v = c->args[0].as<Var>()) ++castUses[v.get()];
    });
    for (auto& [v, n] : castUses)
      if (uses[v] == n) castToF16Only_.insert(v);
  }

  std::unordered_set<const Var*> castToF16Only_;
  const VarTypes& types_;
  DataType outDtype_;
  const std::set<std::string>& fp16Inputs_;
  std::unordered_map<const Var*, Expr> remap_;
  std::vector<VarRef> params_;
  BlockBuilder bb_;
};

}  // namespace

Result<Pass> createToMixedPrecisionPass(PassOptions& options) {
  std::string outName = options.string("out_dtype").value_or("float32");
  auto out = DataType::parse(outName);
  if (!out || !out->isFloat()) return Error("ToMixedPrecision: out_dtype must be a float dtype (\"float32\" or \"float16\"), got \"" + outName + "\"");
  std::set<std::string> fp16Inputs;
  for (auto& [k, v] : options.values) {
    bool strings = v && v->kind == AttrValue::Array;
    if (strings)
      for (auto& item : v->array) strings &= item && item->kind == AttrValue::Str;
    if (k == "fp16_input_names" && v && !strings)
      return Error("ToMixedPrecision: fp16_input_names must be a list of parameter names, e.g. [\"w\", \"bias\"]");
  }
  if (!options.isNone("fp16_input_names"))
    if (auto names = options.strings("fp16_input_names")) fp16Inputs.insert(names->begin(), names->end());
  DataType outDtype = *out;
  return makeFunctionPass({"ToMixedPrecision", 0, {}}, [outDtype, fp16Inputs](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    auto f = func.as<Function>();
    DTypeCollector collector;
    collector.visitFunction(*f);
    MixedPrecisionRewriter rewriter(collector.types, outDtype, fp16Inputs);
    return rewriter.rewrite(f);
  });
}

}  // namespace rlx
