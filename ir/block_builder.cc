// Normalization and struct-info inference for Relax expressions (see block_builder.h).
// Inference of op calls lives with each op (ir/ops/); here is everything that is not an op.
#include "ir/block_builder.h"

#include <algorithm>

#include "ir/arith.h"
#include "ir/op.h"
#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"

namespace rlx {

void BlockBuilder::beginFunction() {
  lvCount_ = 0;
  gvCount_ = 0;
}

void BlockBuilder::beginBlock(bool dataflow) { frames_.push_back({dataflow, {}}); }

BlockRef BlockBuilder::endBlock() {
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  if (f.bindings.empty()) return nullptr;
  return make<BindingBlock>(std::move(f.bindings), f.dataflow);
}

std::string BlockBuilder::freshName() {
  bool df = inDataflow();
  int& n = df ? lvCount_ : gvCount_;
  std::string name = std::string(df ? "lv" : "gv") + (n ? std::to_string(n) : "");
  ++n;
  return name;
}

void BlockBuilder::consumeName() { ++(inDataflow() ? lvCount_ : gvCount_); }

namespace {

// Whether two struct infos are the same tree, dim for dim (not merely provably equal, which may be
// written differently): an annotation that repeats inference can then share the inferred object.
bool sameDim(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return true;
  auto x = a.as<IntImm>(), y = b.as<IntImm>();
  return x && y && x->dtype == y->dtype && x->value == y->value;
}
bool sameSInfoTree(const StructInfo& a, const StructInfo& b) {
  if (a.get() == b.get()) return true;
  if (!a || !b || a->kind() != b->kind()) return false;
  switch (a->kind()) {
    case NodeKind::ObjectSInfo: return true;
    case NodeKind::TensorSInfo: {
      auto &x = static_cast<const TensorSInfo&>(*a), &y = static_cast<const TensorSInfo&>(*b);
      if (x.dtype != y.dtype || x.ndim != y.ndim || x.vdevice != y.vdevice) return false;
      if (!x.shape || !y.shape) return !x.shape && !y.shape;
      auto *dx = x.dims(), *dy = y.dims();
      if (!dx || !dy) return x.shape.get() == y.shape.get();
      if (dx->size() != dy->size()) return false;
      for (size_t i = 0; i < dx->size(); ++i)
        if (!sameDim((*dx)[i], (*dy)[i])) return false;
      return true;
    }
    case NodeKind::TupleSInfo: {
      auto &x = static_cast<const TupleSInfo&>(*a), &y = static_cast<const TupleSInfo&>(*b);
      if (x.fields.size() != y.fields.size()) return false;
      for (size_t i = 0; i < x.fields.size(); ++i)
        if (!sameSInfoTree(x.fields[i], y.fields[i])) return false;
      return true;
    }
    default: return false;
  }
}

}  // namespace

void BlockBuilder::addBinding(BindingRef b) { frames_.back().bindings.push_back(std::move(b)); }

Result<VarRef> BlockBuilder::emit(Expr value, const std::string& name, Span span, StructInfo annotation, bool asOutput) {
  RLX_TRY(v, normalize(value));
  StructInfo s = sinfoOf(v);
  if (annotation) {
    // As TVM: only an annotation no run-time check could satisfy is refused; symbolic extents
    // that merely cannot be proven equal stay the author's claim.
    if (sinfoNeverBaseOf(annotation, s))
      return Error("the annotation " + ops::sinfoStr(annotation) + " can never hold for the value, inferred as " + ops::sinfoStr(s), span);
    // Annotated bindings are the norm in printed modules; one struct info per binding, not two.
    if (!sameSInfoTree(annotation, s)) s = annotation;
  }
  std::string varName = name;
  if (varName.empty()) varName = freshName();
  else consumeName();
  auto var = make<Var>(varName, s, inDataflow() && !asOutput);
  var->span = span;
  auto b = make<Binding>(var, v);
  b->span = span;
  addBinding(b);
  return var;
}

VarRef BlockBuilder::renameLastBinding(const VarRef& var, const std::string& name) {
  if (frames_.empty() || frames_.back().bindings.empty()) return var;
  BindingRef& last = frames_.back().bindings.back();
  if (last->var != var || last->isMatchCast() || var->name == name) return var;
  auto renamed = make<Var>(name, var->sinfo, var->isDataflow());
  renamed->span = var->span;
  auto b = make<Binding>(renamed, last->value);
  b->span = last->span;
  last = b;
  return renamed;
}

Result<VarRef> BlockBuilder::emitMatchCast(Expr value, StructInfo target, const std::string& name, Span span, bool asOutput) {
  RLX_TRY(v, normalizeArgument(value));
  std::string varName = name.empty() ? freshName() : name;
  if (!name.empty()) consumeName();
  auto var = make<Var>(varName, target, inDataflow() && !asOutput);
  var->span = span;
  auto b = make<Binding>(var, v, target);
  b->span = span;
  addBinding(b);
  return var;
}

Result<Expr> BlockBuilder::normalizeArgument(const Expr& e) {
  RLX_TRY(n, normalize(e));
  if (isLeafExpr(n) || n->kind() == NodeKind::Tuple || n->kind() == NodeKind::Function) return n;
  RLX_TRY(var, emit(n, "", n->span));
  return Expr(var);
}

namespace {

StructInfo constantSInfo(const Constant& c) {
  std::vector<PrimExpr> dims;
  for (auto d : c.data->shape) dims.push_back(intImm(d));
  return tensorSInfo(std::move(dims), c.data->dtype);
}

}  // namespace

Result<Expr> BlockBuilder::normalize(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar:
    case NodeKind::GlobalVar:
    case NodeKind::Op:
      return e;
    case NodeKind::ExternFunc:
      if (!e->sinfo) e->sinfo = make<FuncSInfo>(std::nullopt, objectSInfo(), false);
      return e;
    case NodeKind::Constant:
      if (!e->sinfo) e->sinfo = constantSInfo(static_cast<const Constant&>(*e));
      return e;
    case NodeKind::ShapeExpr:
      if (!e->sinfo) e->sinfo = make<ShapeSInfo>(static_cast<const ShapeExpr&>(*e).values, 0);
      return e;
    case NodeKind::PrimValue:
      if (!e->sinfo) {
        auto& p = static_cast<const PrimValue&>(*e);
        e->sinfo = make<PrimSInfo>(p.value->dtype, p.value);
      }
      return e;
    case NodeKind::StringImm:
    case NodeKind::DataTypeImm:
      if (!e->sinfo) e->sinfo = objectSInfo();
      return e;
    case NodeKind::Tuple: {
      auto& t = static_cast<const Tuple&>(*e);
      std::vector<Expr> fields;
      bool changed = false;
      for (auto& f : t.fields) {
        RLX_TRY(nf, normalizeArgument(f));
        changed |= !nf.same(f);
        fields.push_back(nf);
      }
      Ref<Tuple> out = changed ? make<Tuple>(std::move(fields)) : Ref<Tuple>(const_cast<Tuple*>(&t));
      if (changed) out->span = e->span;
      if (!out->sinfo) {
        std::vector<StructInfo> s;
        for (auto& f : out->fields) s.push_back(sinfoOf(f));
        out->sinfo = make<TupleSInfo>(std::move(s));
      }
      return Expr(out);
    }
    case NodeKind::TupleGetItem: {
      auto& t = static_cast<const TupleGetItem&>(*e);
      RLX_TRY(tuple, normalizeArgument(t.tuple));
      auto ts = sinfoOf(tuple).as<TupleSInfo>();
      if (!ts) return Error("indexing a value that is not a tuple (its struct info is " + std::string(nodeKindName(sinfoOf(tuple)->kind())) + ")", e->span);
      if (t.index < 0 || size_t(t.index) >= ts->fields.size())
        return Error("tuple index " + std::to_string(t.index) + " out of range for a tuple of " + std::to_string(ts->fields.size()) + " fields", e->span);
      Ref<TupleGetItem> out = tuple.same(t.tuple) ? Ref<TupleGetItem>(const_cast<TupleGetItem*>(&t)) : make<TupleGetItem>(tuple, t.index);
      out->span = e->span;
      out->sinfo = ts->fields[size_t(t.index)];
      return Expr(out);
    }
    case NodeKind::Call: {
      auto& c = static_cast<const Call&>(*e);
      // Arguments are usually atoms already: the new list is only built from the first change.
      std::vector<Expr> args;
      bool changed = false;
      for (size_t i = 0; i < c.args.size(); ++i) {
        RLX_TRY(na, normalizeArgument(c.args[i]));
        if (!changed && !na.same(c.args[i])) {
          changed = true;
          args.reserve(c.args.size());
          args.assign(c.args.begin(), c.args.begin() + long(i));
        }
        if (changed) args.push_back(na);
      }
      Ref<Call> out = changed ? make<Call>(c.op, std::move(args), c.attrs, c.sinfoArgs) : Ref<Call>(const_cast<Call*>(&c));
      out->span = e->span;
      if (!out->sinfo) {
        auto s = inferCallSInfo(*out);
        if (!s.ok()) return s.error().at(e->span);
        out->sinfo = s.value();
      }
      return Expr(out);
    }
    case NodeKind::If: {
      auto& i = static_cast<const If&>(*e);
      if (!e->sinfo) e->sinfo = sinfoLCA(sinfoOf(i.thenBranch), sinfoOf(i.elseBranch));
      return e;
    }
    case NodeKind::SeqExpr:
      if (!e->sinfo) e->sinfo = sinfoOf(static_cast<const SeqExpr&>(*e).body);
      return e;
    case NodeKind::Function: {
      auto& f = static_cast<const Function&>(*e);
      if (!e->sinfo) {
        std::vector<StructInfo> params;
        for (auto& p : f.params) params.push_back(sinfoOf(p));
        e->sinfo = make<FuncSInfo>(std::move(params), f.retSInfo, f.isPure);
      }
      return e;
    }
    case NodeKind::PrimFunc:
      if (!e->sinfo) e->sinfo = primFuncSInfo();
      return e;
    default:
      return Error(std::string("cannot normalize a ") + nodeKindName(e->kind()), e->span);
  }
}

Result<StructInfo> inferCallSInfo(const Call& call) {
  if (auto op = call.op.as<Op>()) {
    if (!op->info->infer) return objectSInfo();
    return op->info->infer(call);
  }
  if (call.op->kind() == NodeKind::ExternFunc) {
    if (call.sinfoArgs.empty()) return objectSInfo();
    if (call.sinfoArgs.size() == 1) return call.sinfoArgs[0];
    return StructInfo(make<TupleSInfo>(call.sinfoArgs));
  }
  if (!call.sinfoArgs.empty()) return call.sinfoArgs.size() == 1 ? call.sinfoArgs[0] : StructInfo(make<TupleSInfo>(call.sinfoArgs));
  auto fs = sinfoOf(call.op).as<FuncSInfo>();
  if (!fs) {
    if (sinfoOf(call.op)->kind() == NodeKind::ObjectSInfo) return objectSInfo();
    return Error("calling a value that is not a function");
  }
  if (!fs->params) return fs->ret ? fs->ret : objectSInfo();
  if (fs->params->size() != call.args.size())
    return Error("the callee takes " + std::to_string(fs->params->size()) + " arguments but " + std::to_string(call.args.size()) + " were given");
  // Bind the callee's symbolic vars from the arguments, then instantiate its return type.
  PrimVarMap map;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (!sinfoMatch((*fs->params)[i], sinfoOf(call.args[i]), map) && !sinfoIsBaseOf((*fs->params)[i], sinfoOf(call.args[i])) &&
        !sinfoIsBaseOf(sinfoOf(call.args[i]), (*fs->params)[i]))
      return Error("argument " + std::to_string(i) + " does not match the callee's parameter struct info");
  }
  return map.empty() ? fs->ret : sinfoSubstitute(fs->ret, map);
}

StructInfo eraseUndefinedVars(const StructInfo& s, const std::vector<const PrimVar*>& defined) {
  auto allDefined = [&](const PrimExpr& e) {
    std::vector<Ref<PrimVar>> vars;
    collectVars(e, vars);
    for (auto& v : vars)
      if (std::find(defined.begin(), defined.end(), v.get()) == defined.end()) return false;
    return true;
  };
  switch (s->kind()) {
    case NodeKind::TensorSInfo: {
      auto& t = static_cast<const TensorSInfo&>(*s);
      auto* dims = t.dims();
      if (dims) {
        for (auto& d : *dims)
          if (!allDefined(d)) return make<TensorSInfo>(nullptr, t.dtype, t.ndim, t.vdevice);
      } else if (t.shape) {
        return make<TensorSInfo>(nullptr, t.dtype, t.ndim, t.vdevice);  // a shape var may be out of scope
      }
      return s;
    }
    case NodeKind::ShapeSInfo: {
      auto& t = static_cast<const ShapeSInfo&>(*s);
      if (t.values)
        for (auto& d : *t.values)
          if (!allDefined(d)) return make<ShapeSInfo>(std::nullopt, t.ndim);
      return s;
    }
    case NodeKind::PrimSInfo: {
      auto& p = static_cast<const PrimSInfo&>(*s);
      if (p.value && !allDefined(p.value)) return make<PrimSInfo>(p.dtype);
      return s;
    }
    case NodeKind::TupleSInfo: {
      auto& t = static_cast<const TupleSInfo&>(*s);
      std::vector<StructInfo> fields;
      bool changed = false;
      for (auto& f : t.fields) {
        fields.push_back(eraseUndefinedVars(f, defined));
        changed |= !fields.back().same(f);
      }
      return changed ? StructInfo(make<TupleSInfo>(std::move(fields))) : s;
    }
    default:
      return s;
  }
}

StructInfo eraseToSignature(const StructInfo& body, const std::vector<VarRef>& params) {
  std::vector<const PrimVar*> sigVars;
  std::vector<Ref<PrimVar>> vs;
  for (auto& p : params) sinfoCollectVars(p->sinfo, vs);
  for (auto& v : vs) sigVars.push_back(v.get());
  return eraseUndefinedVars(body, sigVars);
}

}  // namespace rlx
