// Structural equality (with the access path of the first mismatch) and a consistent hash for every
// IR node family. Bound variables are compared by position through a bijective lhs<->rhs map.
#include "ir/structural_equal.h"

#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "ir/module.h"

namespace rlx {
namespace {

template <typename T>
const T* cast(const Object* o) { return static_cast<const T*>(o); }

bool isPrim(const Object* o) { return PrimExprNode::classOf(o->kind()); }
bool isSInfo(const Object* o) { return StructInfoNode::classOf(o->kind()); }
bool isExpr(const Object* o) { return ExprNode::classOf(o->kind()); }
bool isStmt(const Object* o) { return StmtNode::classOf(o->kind()); }

bool sameDouble(double x, double y) { return (x == y && std::signbit(x) == std::signbit(y)) || (std::isnan(x) && std::isnan(y)); }

std::string shapeText(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// One-line description of a node for mismatch reports: kind plus its name or value.
std::string describe(const Object* o) {
  if (!o) return "None";
  std::string k = nodeKindName(o->kind());
  switch (o->kind()) {
    case NodeKind::IntImm: return fmt::format("IntImm {} ({})", cast<IntImm>(o)->value, cast<IntImm>(o)->dtype.str());
    case NodeKind::FloatImm: return fmt::format("FloatImm {} ({})", cast<FloatImm>(o)->value, cast<FloatImm>(o)->dtype.str());
    case NodeKind::TirStringImm: return fmt::format("TirStringImm \"{}\"", cast<TirStringImm>(o)->value);
    case NodeKind::PrimVar: return fmt::format("PrimVar {} ({})", cast<PrimVar>(o)->name, cast<PrimVar>(o)->dtype.str());
    case NodeKind::PrimCall: return "PrimCall " + cast<PrimCall>(o)->op;
    case NodeKind::Var:
    case NodeKind::DataflowVar: return k + " " + cast<Var>(o)->name;
    case NodeKind::GlobalVar: return "GlobalVar " + cast<GlobalVar>(o)->name;
    case NodeKind::ExternFunc: return "ExternFunc " + cast<ExternFunc>(o)->symbol;
    case NodeKind::Op: return "Op " + cast<Op>(o)->name();
    case NodeKind::Call: {
      auto* c = cast<Call>(o);
      return c->op ? "Call " + describe(c->op.get()) : k;
    }
    case NodeKind::Constant: {
      auto& d = cast<Constant>(o)->data;
      return d ? "Constant " + d->dtype.str() + shapeText(d->shape) : k;
    }
    case NodeKind::NDArray: return "NDArray " + cast<NDArray>(o)->dtype.str() + shapeText(cast<NDArray>(o)->shape);
    case NodeKind::StringImm: return fmt::format("StringImm \"{}\"", cast<StringImm>(o)->value);
    case NodeKind::DataTypeImm: return "DataTypeImm " + cast<DataTypeImm>(o)->value.str();
    case NodeKind::PrimSInfo: return "PrimSInfo " + cast<PrimSInfo>(o)->dtype.str();
    case NodeKind::TensorSInfo: return fmt::format("TensorSInfo {} ndim={}", cast<TensorSInfo>(o)->dtype.str(), cast<TensorSInfo>(o)->ndim);
    case NodeKind::ShapeSInfo: return fmt::format("ShapeSInfo ndim={}", cast<ShapeSInfo>(o)->ndim);
    case NodeKind::TupleSInfo: return fmt::format("TupleSInfo of {}", cast<TupleSInfo>(o)->fields.size());
    case NodeKind::Buffer: return "Buffer " + cast<Buffer>(o)->name;
    case NodeKind::TirBlock: return "TirBlock " + cast<TirBlock>(o)->name;
    case NodeKind::Attrs: return "Attrs " + cast<Attrs>(o)->typeKey;
    default: return k;
  }
}

// ================================================================ equality
class Equal {
 public:
  explicit Equal(bool mapFree) : mapFree_(mapFree) {}

  EqualResult run(const Object* a, const Object* b) {
    EqualResult r;
    r.equal = any(a, b);
    if (!r.equal) {
      r.path = a && a->kind() == NodeKind::IRModule ? "Module" : a ? nodeKindName(a->kind()) : "root";
      for (auto it = trail_.rbegin(); it != trail_.rend(); ++it) r.path += *it;
      r.lhs = lhs_;
      r.rhs = rhs_;
    }
    return r;
  }

 private:
  bool mapFree_;
  int defCtx_ = 0;  // > 0 while comparing a signature / match_cast / buffer definition
  std::unordered_map<const Object*, const Object*> l2r_, r2l_;
  std::vector<std::string> trail_;  // path segments, innermost first
  std::string lhs_, rhs_;
  bool described_ = false;

  bool fail(const Object* a, const Object* b) { return failText(describe(a), describe(b)); }
  bool failText(std::string a, std::string b) {
    if (!described_) {
      lhs_ = std::move(a);
      rhs_ = std::move(b);
      described_ = true;
    }
    return false;
  }
  bool at(const char* field, bool ok) {
    if (!ok) trail_.push_back(std::string(".") + field);
    return ok;
  }
  template <typename T, typename F>
  bool list(const char* field, const std::vector<T>& a, const std::vector<T>& b, F&& f) {
    if (a.size() != b.size()) {
      failText(fmt::format("length {}", a.size()), fmt::format("length {}", b.size()));
      trail_.push_back(std::string(".") + field);
      return false;
    }
    for (size_t i = 0; i < a.size(); ++i)
      if (!f(a[i], b[i])) {
        trail_.push_back(fmt::format(".{}[{}]", field, i));
        return false;
      }
    return true;
  }
  // A scalar field (dtype, index, flag) that must match; reported as the field's own values.
  // The texts are built only on a mismatch: this runs for every node of a large module.
  bool scalarFail(const char* field, std::string as, std::string bs) {
    failText(std::move(as), std::move(bs));
    trail_.push_back(std::string(".") + field);
    return false;
  }
  bool dtype(const char* field, DataType a, DataType b) { return a == b || scalarFail(field, a.str(), b.str()); }
  bool flag(const char* field, bool a, bool b) { return a == b || scalarFail(field, a ? "True" : "False", b ? "True" : "False"); }
  bool number(const char* field, int64_t a, int64_t b) { return a == b || scalarFail(field, std::to_string(a), std::to_string(b)); }
  bool text(const char* field, const std::string& a, const std::string& b) { return a == b || scalarFail(field, "\"" + a + "\"", "\"" + b + "\""); }

  // ---- variable maps
  // Maps a to b (both unseen), or checks an existing mapping. Identical free vars always match.
  bool bind(const Object* a, const Object* b, bool define) {
    auto it = l2r_.find(a);
    if (it != l2r_.end()) return it->second == b;
    if (r2l_.count(b)) return false;
    if (a == b && !define) return true;
    if (!define && !mapFree_) return false;
    l2r_[a] = b;
    r2l_[b] = a;
    return true;
  }
  bool primVar(const PrimVar* a, const PrimVar* b) {
    if (a->dtype != b->dtype) return fail(a, b);
    return bind(a, b, defCtx_ > 0) || fail(a, b);
  }
  bool defineVar(const Var* a, const Var* b) {
    if (a->kind() != b->kind()) return fail(a, b);
    if (auto it = l2r_.find(a); it != l2r_.end()) return it->second == b || fail(a, b);
    ++defCtx_;
    bool ok = at("struct_info", any(a->sinfo.get(), b->sinfo.get()));
    --defCtx_;
    return ok && (bind(a, b, true) || fail(a, b));
  }
  bool useVar(const Var* a, const Var* b) {
    if (a->kind() != b->kind()) return fail(a, b);
    if (l2r_.count(a) || r2l_.count(b) || a == b || !mapFree_) return bind(a, b, false) || fail(a, b);
    return defineVar(a, b);
  }
  bool defineBuffer(const Buffer* a, const Buffer* b) {
    if (auto it = l2r_.find(a); it != l2r_.end()) return it->second == b || fail(a, b);
    if (r2l_.count(b)) return fail(a, b);
    ++defCtx_;
    bool ok = dtype("dtype", a->dtype, b->dtype) && at("data", opt(a->data.get(), b->data.get())) &&
              list("shape", a->shape, b->shape, [&](auto& x, auto& y) { return any(x.get(), y.get()); }) &&
              list("strides", a->strides, b->strides, [&](auto& x, auto& y) { return any(x.get(), y.get()); }) &&
              at("elem_offset", opt(a->elemOffset.get(), b->elemOffset.get()));
    --defCtx_;
    ok = ok && text("scope", a->scope, b->scope) && number("data_alignment", a->alignment, b->alignment) &&
         number("offset_factor", a->offsetFactor, b->offsetFactor) &&
         list("axis_separators", a->axisSeparators, b->axisSeparators, [&](int64_t x, int64_t y) { return number("axis_separator", x, y); });
    return ok && (bind(a, b, true) || fail(a, b));
  }
  bool useBuffer(const Buffer* a, const Buffer* b) {
    if (!a || !b) return a == b || fail(a, b);
    if (l2r_.count(a) || r2l_.count(b) || a == b || !mapFree_) return bind(a, b, false) || fail(a, b);
    return defineBuffer(a, b);
  }

  bool opt(const Object* a, const Object* b) { return (!a && !b) || any(a, b); }
  template <typename T>
  bool exprs(const char* field, const std::vector<T>& a, const std::vector<T>& b) {
    return list(field, a, b, [&](const T& x, const T& y) { return any(x.get(), y.get()); });
  }

  // ---- dispatch
  bool any(const Object* a, const Object* b) {
    if (a == b) return !a || !(a->kind() == NodeKind::Var || a->kind() == NodeKind::DataflowVar || a->kind() == NodeKind::PrimVar) || checkSameVar(a);
    if (!a || !b || a->kind() != b->kind()) return fail(a, b);  // also Var vs DataflowVar
    if (isPrim(a)) return prim(cast<PrimExprNode>(a), cast<PrimExprNode>(b));
    if (isSInfo(a)) return sinfo(a, b);
    if (isExpr(a)) return expr(a, b);
    if (isStmt(a)) return stmt(a, b);
    return other(a, b);
  }
  // The same var object on both sides matches unless one side already maps it elsewhere.
  // Recording v -> v keeps a mapFreeVars comparison bijective (n + n is not n + m).
  bool checkSameVar(const Object* v) {
    auto it = l2r_.find(v);
    if (it != l2r_.end() && it->second != v) return fail(v, it->second);
    auto jt = r2l_.find(v);
    if (jt != r2l_.end() && jt->second != v) return fail(jt->second, v);
    l2r_[v] = v;
    r2l_[v] = v;
    return true;
  }

  bool prim(const PrimExprNode* a, const PrimExprNode* b) {
    if (a->kind() == NodeKind::PrimVar) return primVar(cast<PrimVar>(a), cast<PrimVar>(b));
    if (a->dtype != b->dtype) return fail(a, b);
    switch (a->kind()) {
      case NodeKind::IntImm: return cast<IntImm>(a)->value == cast<IntImm>(b)->value || fail(a, b);
      case NodeKind::FloatImm: return sameDouble(cast<FloatImm>(a)->value, cast<FloatImm>(b)->value) || fail(a, b);
      case NodeKind::TirStringImm: return cast<TirStringImm>(a)->value == cast<TirStringImm>(b)->value || fail(a, b);
      case NodeKind::Not: return at("a", any(cast<PrimNot>(a)->a.get(), cast<PrimNot>(b)->a.get()));
      case NodeKind::Select: {
        auto *x = cast<Select>(a), *y = cast<Select>(b);
        return at("condition", any(x->cond.get(), y->cond.get())) && at("true_value", any(x->trueValue.get(), y->trueValue.get())) &&
               at("false_value", any(x->falseValue.get(), y->falseValue.get()));
      }
      case NodeKind::Cast: return at("value", any(cast<Cast>(a)->value.get(), cast<Cast>(b)->value.get()));
      case NodeKind::PrimCall: {
        auto *x = cast<PrimCall>(a), *y = cast<PrimCall>(b);
        return (x->op == y->op || fail(a, b)) && exprs("args", x->args, y->args);
      }
      case NodeKind::BufferLoad: {
        auto *x = cast<BufferLoad>(a), *y = cast<BufferLoad>(b);
        return at("buffer", useBuffer(x->buffer.get(), y->buffer.get())) && exprs("indices", x->indices, y->indices);
      }
      case NodeKind::PrimLet: {
        auto *x = cast<PrimLet>(a), *y = cast<PrimLet>(b);
        if (!at("value", any(x->value.get(), y->value.get()))) return false;
        ++defCtx_;
        bool ok = at("var", any(x->var.get(), y->var.get()));
        --defCtx_;
        return ok && at("body", any(x->body.get(), y->body.get()));
      }
      case NodeKind::Ramp: {
        auto *x = cast<Ramp>(a), *y = cast<Ramp>(b);
        return at("base", any(x->base.get(), y->base.get())) && at("stride", any(x->stride.get(), y->stride.get())) && number("lanes", x->lanes, y->lanes);
      }
      case NodeKind::Broadcast: {
        auto *x = cast<Broadcast>(a), *y = cast<Broadcast>(b);
        return at("value", any(x->value.get(), y->value.get())) && number("lanes", x->lanes, y->lanes);
      }
      default: {
        auto *x = cast<PrimBinary>(a), *y = cast<PrimBinary>(b);
        return at("a", any(x->a.get(), y->a.get())) && at("b", any(x->b.get(), y->b.get()));
      }
    }
  }

  bool sinfo(const Object* a, const Object* b) {
    switch (a->kind()) {
      case NodeKind::ObjectSInfo: return true;
      case NodeKind::PrimSInfo: {
        auto *x = cast<PrimSInfo>(a), *y = cast<PrimSInfo>(b);
        return dtype("dtype", x->dtype, y->dtype) && at("value", opt(x->value.get(), y->value.get()));
      }
      case NodeKind::ShapeSInfo: {
        auto *x = cast<ShapeSInfo>(a), *y = cast<ShapeSInfo>(b);
        if (!number("ndim", x->ndim, y->ndim)) return false;
        if (x->values.has_value() != y->values.has_value()) return fail(a, b);
        return !x->values || exprs("values", *x->values, *y->values);
      }
      case NodeKind::TensorSInfo: {
        auto *x = cast<TensorSInfo>(a), *y = cast<TensorSInfo>(b);
        return dtype("dtype", x->dtype, y->dtype) && number("ndim", x->ndim, y->ndim) && text("vdevice", x->vdevice, y->vdevice) &&
               at("shape", opt(x->shape.get(), y->shape.get()));
      }
      case NodeKind::TupleSInfo: return exprs("fields", cast<TupleSInfo>(a)->fields, cast<TupleSInfo>(b)->fields);
      case NodeKind::FuncSInfo: {
        auto *x = cast<FuncSInfo>(a), *y = cast<FuncSInfo>(b);
        if (!flag("purity", x->isPure, y->isPure)) return false;
        if (x->params.has_value() != y->params.has_value()) return fail(a, b);
        if (x->params) {
          ++defCtx_;  // a callable's param struct info may introduce symbolic vars
          bool ok = exprs("params", *x->params, *y->params);
          --defCtx_;
          if (!ok) return false;
        }
        return at("ret", opt(x->ret.get(), y->ret.get()));
      }
      default: return fail(a, b);
    }
  }

  bool binding(const Binding* a, const Binding* b) {
    if (a->kind() != b->kind()) return fail(a, b);
    bool recursive = a->value && a->value->kind() == NodeKind::Function;  // a local function may call itself
    if (recursive && !at("var", defineVar(a->var.get(), b->var.get()))) return false;
    if (!at("value", opt(a->value.get(), b->value.get()))) return false;
    if (a->isMatchCast()) {
      ++defCtx_;
      bool ok = at("struct_info", opt(a->castSInfo.get(), b->castSInfo.get()));
      --defCtx_;
      if (!ok) return false;
    }
    return recursive || at("var", defineVar(a->var.get(), b->var.get()));
  }

  bool function(const Function* a, const Function* b) {
    bool ok = list("params", a->params, b->params, [&](const VarRef& x, const VarRef& y) { return defineVar(x.get(), y.get()); });
    return ok && at("body", opt(a->body.get(), b->body.get())) && at("ret_struct_info", opt(a->retSInfo.get(), b->retSInfo.get())) &&
           flag("is_pure", a->isPure, b->isPure) && at("attrs", opt(a->attrs.get(), b->attrs.get()));
  }

  bool primFunc(const PrimFunc* a, const PrimFunc* b) {
    ++defCtx_;
    bool ok = exprs("params", a->params, b->params) &&
              list("buffer_map", a->bufferMap, b->bufferMap, [&](auto& x, auto& y) { return any(x.first.get(), y.first.get()) && defineBuffer(x.second.get(), y.second.get()); });
    --defCtx_;
    return ok && dtype("ret_type", a->retType, b->retType) && at("body", opt(a->body.get(), b->body.get())) && at("attrs", opt(a->attrs.get(), b->attrs.get()));
  }

  bool expr(const Object* a, const Object* b) {
    switch (a->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: return useVar(cast<Var>(a), cast<Var>(b));
      case NodeKind::GlobalVar: return cast<GlobalVar>(a)->name == cast<GlobalVar>(b)->name || fail(a, b);
      case NodeKind::ExternFunc: return cast<ExternFunc>(a)->symbol == cast<ExternFunc>(b)->symbol || fail(a, b);
      case NodeKind::Op: return cast<Op>(a)->info == cast<Op>(b)->info || fail(a, b);
      case NodeKind::Constant: return at("data", opt(cast<Constant>(a)->data.get(), cast<Constant>(b)->data.get()));
      case NodeKind::Tuple: return exprs("fields", cast<Tuple>(a)->fields, cast<Tuple>(b)->fields);
      case NodeKind::TupleGetItem: {
        auto *x = cast<TupleGetItem>(a), *y = cast<TupleGetItem>(b);
        return at("tuple_value", any(x->tuple.get(), y->tuple.get())) && number("index", x->index, y->index);
      }
      case NodeKind::Call: {
        auto *x = cast<Call>(a), *y = cast<Call>(b);
        return at("op", any(x->op.get(), y->op.get())) && exprs("args", x->args, y->args) && at("attrs", opt(x->attrs.get(), y->attrs.get())) &&
               exprs("sinfo_args", x->sinfoArgs, y->sinfoArgs);
      }
      case NodeKind::ShapeExpr: return exprs("values", cast<ShapeExpr>(a)->values, cast<ShapeExpr>(b)->values);
      case NodeKind::PrimValue: return at("value", any(cast<PrimValue>(a)->value.get(), cast<PrimValue>(b)->value.get()));
      case NodeKind::StringImm: return cast<StringImm>(a)->value == cast<StringImm>(b)->value || fail(a, b);
      case NodeKind::DataTypeImm: return cast<DataTypeImm>(a)->value == cast<DataTypeImm>(b)->value || fail(a, b);
      case NodeKind::If: {
        auto *x = cast<If>(a), *y = cast<If>(b);
        return at("cond", any(x->cond.get(), y->cond.get())) && at("true_branch", any(x->thenBranch.get(), y->thenBranch.get())) &&
               at("false_branch", any(x->elseBranch.get(), y->elseBranch.get()));
      }
      case NodeKind::SeqExpr: {
        auto *x = cast<SeqExpr>(a), *y = cast<SeqExpr>(b);
        return exprs("blocks", x->blocks, y->blocks) && at("body", any(x->body.get(), y->body.get()));
      }
      case NodeKind::Function: return function(cast<Function>(a), cast<Function>(b));
      case NodeKind::PrimFunc: return primFunc(cast<PrimFunc>(a), cast<PrimFunc>(b));
      default: return fail(a, b);
    }
  }

  bool region(const BufferRegion& a, const BufferRegion& b) {
    return at("buffer", useBuffer(a.buffer.get(), b.buffer.get())) &&
           list("region", a.region, b.region, [&](const Range& x, const Range& y) { return range(x, y); });
  }
  bool range(const Range& a, const Range& b) { return at("min", opt(a.min.get(), b.min.get())) && at("extent", opt(a.extent.get(), b.extent.get())); }

  // A block's name_hint does not count, as in TVM (SEqHashIgnore).
  bool block(const TirBlock* a, const TirBlock* b) {
    bool ok = list("iter_vars", a->iterVars, b->iterVars, [&](const IterVar& x, const IterVar& y) {
      if (!at("dom", range(x.dom, y.dom)) || !number("iter_type", x.kind, y.kind)) return false;
      ++defCtx_;
      bool r = at("var", any(x.var.get(), y.var.get()));
      --defCtx_;
      return r;
    });
    ok = ok && list("alloc_buffers", a->allocBuffers, b->allocBuffers, [&](auto& x, auto& y) { return defineBuffer(x.get(), y.get()); }) &&
         list("match_buffers", a->matchBuffers, b->matchBuffers, [&](const MatchBufferRegion& x, const MatchBufferRegion& y) {
           return at("source", region(x.source, y.source)) && at("buffer", defineBuffer(x.buffer.get(), y.buffer.get()));
         });
    auto regions = [&](const char* f, auto& x, auto& y) { return list(f, x, y, [&](const BufferRegion& p, const BufferRegion& q) { return region(p, q); }); };
    return ok && regions("reads", a->reads, b->reads) && regions("writes", a->writes, b->writes) && at("init", opt(a->init.get(), b->init.get())) &&
           at("body", opt(a->body.get(), b->body.get())) && at("annotations", opt(a->annotations.get(), b->annotations.get()));
  }

  bool stmt(const Object* a, const Object* b) {
    switch (a->kind()) {
      case NodeKind::BufferStore: {
        auto *x = cast<BufferStore>(a), *y = cast<BufferStore>(b);
        return at("buffer", useBuffer(x->buffer.get(), y->buffer.get())) && at("value", any(x->value.get(), y->value.get())) &&
               exprs("indices", x->indices, y->indices);
      }
      case NodeKind::SeqStmt: return exprs("seq", cast<SeqStmt>(a)->seq, cast<SeqStmt>(b)->seq);
      case NodeKind::For: {
        auto *x = cast<For>(a), *y = cast<For>(b);
        if (!at("min", any(x->min.get(), y->min.get())) || !at("extent", any(x->extent.get(), y->extent.get()))) return false;
        if (!number("kind", x->loopKind, y->loopKind) || !text("thread_binding", x->threadTag, y->threadTag)) return false;
        ++defCtx_;
        bool ok = at("loop_var", any(x->loopVar.get(), y->loopVar.get()));
        --defCtx_;
        return ok && at("body", any(x->body.get(), y->body.get())) && at("annotations", opt(x->annotations.get(), y->annotations.get()));
      }
      case NodeKind::IfThenElse: {
        auto *x = cast<IfThenElse>(a), *y = cast<IfThenElse>(b);
        return at("condition", any(x->cond.get(), y->cond.get())) && at("then_case", any(x->thenCase.get(), y->thenCase.get())) &&
               at("else_case", opt(x->elseCase.get(), y->elseCase.get()));
      }
      case NodeKind::LetStmt: {
        auto *x = cast<LetStmt>(a), *y = cast<LetStmt>(b);
        if (!at("value", any(x->value.get(), y->value.get()))) return false;
        ++defCtx_;
        bool ok = at("var", any(x->var.get(), y->var.get()));
        --defCtx_;
        return ok && at("body", any(x->body.get(), y->body.get()));
      }
      case NodeKind::Evaluate: return at("value", any(cast<Evaluate>(a)->value.get(), cast<Evaluate>(b)->value.get()));
      case NodeKind::AssertStmt: {
        auto *x = cast<AssertStmt>(a), *y = cast<AssertStmt>(b);
        return at("condition", any(x->cond.get(), y->cond.get())) && at("message", any(x->message.get(), y->message.get())) &&
               at("body", opt(x->body.get(), y->body.get()));
      }
      case NodeKind::BlockRealize: {
        auto *x = cast<BlockRealize>(a), *y = cast<BlockRealize>(b);
        return exprs("iter_values", x->iterValues, y->iterValues) && at("predicate", opt(x->predicate.get(), y->predicate.get())) &&
               at("block", opt(x->block.get(), y->block.get()));
      }
      case NodeKind::TirBlock: return block(cast<TirBlock>(a), cast<TirBlock>(b));
      default: return fail(a, b);
    }
  }

  bool attr(const AttrValue* a, const AttrValue* b) {
    if (!a || !b) return a == b || fail(a, b);
    if (a->kind != b->kind) return fail(a, b);
    switch (a->kind) {
      case AttrValue::Bool: return a->b == b->b || failText(a->b ? "True" : "False", b->b ? "True" : "False");
      case AttrValue::Int: return a->i == b->i || failText(std::to_string(a->i), std::to_string(b->i));
      case AttrValue::Double: return sameDouble(a->d, b->d) || failText(fmt::format("{}", a->d), fmt::format("{}", b->d));
      case AttrValue::Str: return a->s == b->s || failText("\"" + a->s + "\"", "\"" + b->s + "\"");
      case AttrValue::DType: return a->dtype == b->dtype || failText(a->dtype.str(), b->dtype.str());
      case AttrValue::Ctor:
        if (a->s != b->s) return failText(a->s, b->s);
        // An index map's lambda parameters are bound by the map itself: they define, not use.
        if (a->s == "T.index_map" && a->array.size() == 2 && b->array.size() == 2) {
          ++defCtx_;
          bool ok = attr(a->array[0].get(), b->array[0].get());
          --defCtx_;
          if (!ok) {
            trail_.push_back("[0]");
            return false;
          }
          if (!attr(a->array[1].get(), b->array[1].get())) {
            trail_.push_back("[1]");
            return false;
          }
          return true;
        }
        [[fallthrough]];
      case AttrValue::Array: {
        if (a->array.size() != b->array.size()) return failText(fmt::format("length {}", a->array.size()), fmt::format("length {}", b->array.size()));
        for (size_t i = 0; i < a->array.size(); ++i)
          if (!attr(a->array[i].get(), b->array[i].get())) {
            trail_.push_back(fmt::format("[{}]", i));
            return false;
          }
        return true;
      }
      case AttrValue::Map: return entries(a->map, b->map);
      case AttrValue::Prim: return opt(a->prim.get(), b->prim.get());
      case AttrValue::Expr: return opt(a->expr.get(), b->expr.get());
    }
    return false;
  }
  bool entries(const std::vector<std::pair<std::string, Attr>>& a, const std::vector<std::pair<std::string, Attr>>& b) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i].first != b[i].first) {
        failText("key \"" + a[i].first + "\"", "key \"" + b[i].first + "\"");
        trail_.push_back(fmt::format("[{}]", i));
        return false;
      }
      if (!attr(a[i].second.get(), b[i].second.get())) {
        trail_.push_back(fmt::format("[\"{}\"]", a[i].first));
        return false;
      }
    }
    if (a.size() != b.size()) return failText(fmt::format("{} entries", a.size()), fmt::format("{} entries", b.size()));
    return true;
  }

  bool ndarray(const NDArray* a, const NDArray* b) {
    if (a->dtype != b->dtype || a->shape != b->shape) return fail(a, b);
    if (std::memcmp(a->data(), b->data(), a->nbytes()) == 0) return true;
    size_t w = std::max(a->dtype.bytes(), 1);
    int64_t i = 0;
    while (i < a->numel() && std::memcmp(static_cast<const char*>(a->data()) + i * w, static_cast<const char*>(b->data()) + i * w, w) == 0) ++i;
    if (i < a->numel()) return failText(fmt::format("{}: data[{}] = {}", describe(a), i, a->getDouble(i)), fmt::format("{}: data[{}] = {}", describe(b), i, b->getDouble(i)));
    return fail(a, b);
  }

  bool module(const IRModule* a, const IRModule* b) {
    for (auto& e : a->functions) {
      auto* other = b->find(e.gvar->name);
      std::string seg = fmt::format(".functions[\"{}\"]", e.gvar->name);
      if (!other) {
        failText(describe(e.func.get()) + " " + e.gvar->name, "missing");
        trail_.push_back(seg);
        return false;
      }
      l2r_.clear();  // functions bind their own vars; nothing leaks between them
      r2l_.clear();
      if (!any(e.func.get(), other->func.get())) {
        trail_.push_back(seg);
        return false;
      }
    }
    for (auto& e : b->functions)
      if (!a->find(e.gvar->name)) {
        failText("missing", describe(e.func.get()) + " " + e.gvar->name);
        trail_.push_back(fmt::format(".functions[\"{}\"]", e.gvar->name));
        return false;
      }
    return at("attrs", opt(a->attrs.get(), b->attrs.get())) && at("global_infos", opt(a->globalInfos.get(), b->globalInfos.get()));
  }

  bool other(const Object* a, const Object* b) {
    switch (a->kind()) {
      case NodeKind::VarBinding:
      case NodeKind::MatchCast: return binding(cast<Binding>(a), cast<Binding>(b));
      case NodeKind::BindingBlock:
      case NodeKind::DataflowBlock: return exprs("bindings", cast<BindingBlock>(a)->bindings, cast<BindingBlock>(b)->bindings);
      case NodeKind::Buffer: return useBuffer(cast<Buffer>(a), cast<Buffer>(b));
      case NodeKind::AttrValue: return attr(cast<AttrValue>(a), cast<AttrValue>(b));
      case NodeKind::Attrs: {
        auto *x = cast<Attrs>(a), *y = cast<Attrs>(b);
        return (x->typeKey == y->typeKey || fail(a, b)) && entries(x->fields, y->fields);
      }
      case NodeKind::NDArray: return ndarray(cast<NDArray>(a), cast<NDArray>(b));
      case NodeKind::IRModule: return module(cast<IRModule>(a), cast<IRModule>(b));
      default: return fail(a, b);
    }
  }
};

// ================================================================ hashing
uint64_t mix(uint64_t h, uint64_t v) {
  v *= 0x9e3779b97f4a7c15ULL;
  v ^= v >> 32;
  return (h ^ v) * 0x100000001b3ULL + 0x7f4a7c159e3779b9ULL;
}
uint64_t hashBytes(const void* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a: deterministic across runs, unlike std::hash
  auto* s = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ s[i]) * 0x100000001b3ULL;
  return h;
}
uint64_t hashStr(const std::string& s) { return hashBytes(s.data(), s.size()); }
uint64_t hashDtype(DataType t) { return uint64_t(t.code) | uint64_t(t.bits) << 8 | uint64_t(t.lanes) << 16; }
uint64_t hashDouble(double d) {
  if (std::isnan(d)) return 0x7ff8;
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

constexpr size_t kSampledBytes = 4096;

// 1 KB from each end and 64 chunks of 16 bytes evenly spaced between them.
uint64_t sampledBytes(const NDArray* a) {
  const char* p = static_cast<const char*>(a->data());
  size_t n = a->nbytes();
  uint64_t h = mix(hashBytes(p, 1024), hashBytes(p + n - 1024, 1024));
  for (size_t k = 1; k <= 64; ++k) h = mix(h, hashBytes(p + 1024 + (n - 2048 - 16) * k / 65, 16));
  return h;
}

// Mirrors Equal's traversal: definitions get sequential indices so alpha-equivalent IR hashes alike.
class Hasher {
 public:
  explicit Hasher(bool sampleArrays = false) : sampleArrays_(sampleArrays) {}
  uint64_t any(const Object* o) {
    if (!o) return 0x6e6f6e65;
    uint64_t h = mix(0x1234, uint64_t(o->kind()));
    if (PrimExprNode::classOf(o->kind())) return prim(h, cast<PrimExprNode>(o));
    switch (o->kind()) {
      case NodeKind::ObjectSInfo: return h;
      case NodeKind::PrimSInfo: return mix(mix(h, hashDtype(cast<PrimSInfo>(o)->dtype)), any(cast<PrimSInfo>(o)->value.get()));
      case NodeKind::ShapeSInfo: {
        auto* s = cast<ShapeSInfo>(o);
        h = mix(h, uint64_t(s->ndim) + (s->values ? 7 : 0));
        return s->values ? all(h, *s->values) : h;
      }
      case NodeKind::TensorSInfo: {
        auto* t = cast<TensorSInfo>(o);
        return mix(mix(mix(mix(h, hashDtype(t->dtype)), uint64_t(t->ndim)), hashStr(t->vdevice)), any(t->shape.get()));
      }
      case NodeKind::TupleSInfo: return all(h, cast<TupleSInfo>(o)->fields);
      case NodeKind::FuncSInfo: {
        auto* f = cast<FuncSInfo>(o);
        h = mix(h, f->isPure * 2 + f->params.has_value());
        if (f->params) {
          ++defCtx_;
          h = all(h, *f->params);
          --defCtx_;
        }
        return mix(h, any(f->ret.get()));
      }
      case NodeKind::Var:
      case NodeKind::DataflowVar: return useVar(h, cast<Var>(o));
      case NodeKind::GlobalVar: return mix(h, hashStr(cast<GlobalVar>(o)->name));
      case NodeKind::ExternFunc: return mix(h, hashStr(cast<ExternFunc>(o)->symbol));
      case NodeKind::Op: return mix(h, hashStr(cast<Op>(o)->name()));
      case NodeKind::Constant: return mix(h, any(cast<Constant>(o)->data.get()));
      case NodeKind::Tuple: return all(h, cast<Tuple>(o)->fields);
      case NodeKind::TupleGetItem: return mix(mix(h, any(cast<TupleGetItem>(o)->tuple.get())), uint64_t(cast<TupleGetItem>(o)->index));
      case NodeKind::Call: {
        auto* c = cast<Call>(o);
        return all(mix(all(mix(h, any(c->op.get())), c->args), any(c->attrs.get())), c->sinfoArgs);
      }
      case NodeKind::ShapeExpr: return all(h, cast<ShapeExpr>(o)->values);
      case NodeKind::PrimValue: return mix(h, any(cast<PrimValue>(o)->value.get()));
      case NodeKind::StringImm: return mix(h, hashStr(cast<StringImm>(o)->value));
      case NodeKind::DataTypeImm: return mix(h, hashDtype(cast<DataTypeImm>(o)->value));
      case NodeKind::If: {
        auto* i = cast<If>(o);
        return mix(mix(mix(h, any(i->cond.get())), any(i->thenBranch.get())), any(i->elseBranch.get()));
      }
      case NodeKind::SeqExpr: {
        h = all(h, cast<SeqExpr>(o)->blocks);  // blocks define vars the body uses: hash them first
        return mix(h, any(cast<SeqExpr>(o)->body.get()));
      }
      case NodeKind::Function: {
        auto* f = cast<Function>(o);
        for (auto& p : f->params) h = mix(h, defineVar(p.get()));
        h = mix(h, any(f->body.get()));
        return mix(mix(mix(h, any(f->retSInfo.get())), f->isPure), any(f->attrs.get()));
      }
      case NodeKind::PrimFunc: {
        auto* f = cast<PrimFunc>(o);
        ++defCtx_;
        h = all(h, f->params);
        for (auto& [p, b] : f->bufferMap) {
          h = mix(h, any(p.get()));
          h = mix(h, defineBuffer(b.get()));
        }
        --defCtx_;
        h = mix(h, hashDtype(f->retType));
        return mix(mix(h, any(f->body.get())), any(f->attrs.get()));
      }
      case NodeKind::VarBinding:
      case NodeKind::MatchCast: {
        auto* b = cast<Binding>(o);
        bool recursive = b->value && b->value->kind() == NodeKind::Function;
        if (recursive) h = mix(h, defineVar(b->var.get()));
        h = mix(h, any(b->value.get()));
        if (b->isMatchCast()) {
          ++defCtx_;
          h = mix(h, any(b->castSInfo.get()));
          --defCtx_;
        }
        return recursive ? h : mix(h, defineVar(b->var.get()));
      }
      case NodeKind::BindingBlock:
      case NodeKind::DataflowBlock: return all(h, cast<BindingBlock>(o)->bindings);
      case NodeKind::Buffer: return mix(h, useBuffer(cast<Buffer>(o)));
      case NodeKind::AttrValue: return attr(h, cast<AttrValue>(o));
      case NodeKind::Attrs: return entries(mix(h, hashStr(cast<Attrs>(o)->typeKey)), cast<Attrs>(o)->fields);
      case NodeKind::NDArray: {
        auto* a = cast<NDArray>(o);
        h = mix(h, hashDtype(a->dtype));
        for (auto d : a->shape) h = mix(h, uint64_t(d));
        return mix(h, sampleArrays_ && a->nbytes() > kSampledBytes ? sampledBytes(a) : hashBytes(a->data(), a->nbytes()));
      }
      case NodeKind::IRModule: {
        auto* m = cast<IRModule>(o);
        uint64_t sum = 0;  // order-insensitive: functions match by name
        for (auto& e : m->functions) {
          index_.clear();
          next_ = 0;
          sum += mix(hashStr(e.gvar->name), any(e.func.get()));
        }
        return mix(mix(mix(h, sum), any(m->attrs.get())), any(m->globalInfos.get()));
      }
      default: return stmt(h, o);
    }
  }

 private:
  bool sampleArrays_;
  std::unordered_map<const Object*, uint64_t> index_;
  uint64_t next_ = 0;
  int defCtx_ = 0;

  template <typename T>
  uint64_t all(uint64_t h, const std::vector<T>& v) {
    h = mix(h, v.size());
    for (auto& x : v) h = mix(h, any(x.get()));
    return h;
  }
  uint64_t define(const Object* o) {
    auto [it, fresh] = index_.emplace(o, next_);
    if (fresh) ++next_;
    return mix(0xdef, it->second);
  }
  // A var hashes by its definition index, or by name when free (identity implies equal names).
  uint64_t use(const Object* o, const std::string& name) {
    auto it = index_.find(o);
    return it != index_.end() ? mix(0xdef, it->second) : mix(0xf4ee, hashStr(name));
  }
  uint64_t defineVar(const Var* v) {
    ++defCtx_;
    uint64_t h = mix(uint64_t(v->kind()), any(v->sinfo.get()));
    --defCtx_;
    return mix(h, define(v));
  }
  uint64_t useVar(uint64_t h, const Var* v) { return mix(h, use(v, v->name)); }
  uint64_t defineBuffer(const Buffer* b) {
    if (index_.count(b)) return use(b, b->name);
    ++defCtx_;
    uint64_t h = mix(mix(hashDtype(b->dtype), any(b->data.get())), any(b->elemOffset.get()));
    h = all(all(h, b->shape), b->strides);
    --defCtx_;
    h = mix(mix(mix(h, hashStr(b->scope)), uint64_t(b->alignment)), uint64_t(b->offsetFactor));
    return mix(h, define(b));
  }
  uint64_t useBuffer(const Buffer* b) { return b ? use(b, b->name) : 0; }

  uint64_t prim(uint64_t h, const PrimExprNode* e) {
    h = mix(h, hashDtype(e->dtype));
    switch (e->kind()) {
      case NodeKind::IntImm: return mix(h, uint64_t(cast<IntImm>(e)->value));
      case NodeKind::FloatImm: return mix(h, hashDouble(cast<FloatImm>(e)->value));
      case NodeKind::TirStringImm: return mix(h, hashStr(cast<TirStringImm>(e)->value));
      case NodeKind::PrimVar: return mix(h, defCtx_ > 0 ? define(e) : use(e, cast<PrimVar>(e)->name));
      case NodeKind::Not: return mix(h, any(cast<PrimNot>(e)->a.get()));
      case NodeKind::Select: {
        auto* s = cast<Select>(e);
        return mix(mix(mix(h, any(s->cond.get())), any(s->trueValue.get())), any(s->falseValue.get()));
      }
      case NodeKind::Cast: return mix(h, any(cast<Cast>(e)->value.get()));
      case NodeKind::PrimCall: return all(mix(h, hashStr(cast<PrimCall>(e)->op)), cast<PrimCall>(e)->args);
      case NodeKind::BufferLoad: return all(mix(h, useBuffer(cast<BufferLoad>(e)->buffer.get())), cast<BufferLoad>(e)->indices);
      case NodeKind::PrimLet: {
        auto* l = cast<PrimLet>(e);
        h = mix(h, any(l->value.get()));
        ++defCtx_;
        h = mix(h, any(l->var.get()));
        --defCtx_;
        return mix(h, any(l->body.get()));
      }
      case NodeKind::Ramp: return mix(mix(mix(h, any(cast<Ramp>(e)->base.get())), any(cast<Ramp>(e)->stride.get())), uint64_t(cast<Ramp>(e)->lanes));
      case NodeKind::Broadcast: return mix(mix(h, any(cast<Broadcast>(e)->value.get())), uint64_t(cast<Broadcast>(e)->lanes));
      default: return mix(mix(h, any(cast<PrimBinary>(e)->a.get())), any(cast<PrimBinary>(e)->b.get()));
    }
  }

  uint64_t range(uint64_t h, const Range& r) { return mix(mix(h, any(r.min.get())), any(r.extent.get())); }
  uint64_t region(uint64_t h, const BufferRegion& r) {
    h = mix(h, useBuffer(r.buffer.get()));
    for (auto& x : r.region) h = range(h, x);
    return mix(h, r.region.size());
  }
  uint64_t varDef(uint64_t h, const PrimVarRef& v) {
    ++defCtx_;
    h = mix(h, any(v.get()));
    --defCtx_;
    return h;
  }

  uint64_t stmt(uint64_t h, const Object* o) {
    switch (o->kind()) {
      case NodeKind::BufferStore: {
        auto* s = cast<BufferStore>(o);
        return all(mix(mix(h, useBuffer(s->buffer.get())), any(s->value.get())), s->indices);
      }
      case NodeKind::SeqStmt: return all(h, cast<SeqStmt>(o)->seq);
      case NodeKind::For: {
        auto* f = cast<For>(o);
        h = mix(mix(mix(mix(h, any(f->min.get())), any(f->extent.get())), f->loopKind), hashStr(f->threadTag));
        h = varDef(h, f->loopVar);
        h = mix(h, any(f->body.get()));
        return mix(h, any(f->annotations.get()));
      }
      case NodeKind::IfThenElse: {
        auto* s = cast<IfThenElse>(o);
        return mix(mix(mix(h, any(s->cond.get())), any(s->thenCase.get())), any(s->elseCase.get()));
      }
      case NodeKind::LetStmt: {
        auto* s = cast<LetStmt>(o);
        h = varDef(mix(h, any(s->value.get())), s->var);
        return mix(h, any(s->body.get()));
      }
      case NodeKind::Evaluate: return mix(h, any(cast<Evaluate>(o)->value.get()));
      case NodeKind::AssertStmt: {
        auto* s = cast<AssertStmt>(o);
        return mix(mix(mix(h, any(s->cond.get())), any(s->message.get())), any(s->body.get()));
      }
      case NodeKind::BlockRealize: {
        auto* r = cast<BlockRealize>(o);
        return mix(mix(all(h, r->iterValues), any(r->predicate.get())), any(r->block.get()));
      }
      case NodeKind::TirBlock: {
        auto* b = cast<TirBlock>(o);
        for (auto& iv : b->iterVars) h = varDef(mix(range(h, iv.dom), iv.kind), iv.var);
        for (auto& a : b->allocBuffers) h = mix(h, defineBuffer(a.get()));
        for (auto& m : b->matchBuffers) {
          h = region(h, m.source);
          h = mix(h, defineBuffer(m.buffer.get()));
        }
        for (auto& r : b->reads) h = region(h, r);
        h = mix(h, 0x5eed);
        for (auto& w : b->writes) h = region(h, w);
        return mix(mix(mix(h, any(b->init.get())), any(b->body.get())), any(b->annotations.get()));
      }
      default: return h;
    }
  }

  uint64_t attr(uint64_t h, const AttrValue* a) {
    h = mix(h, a->kind);
    switch (a->kind) {
      case AttrValue::Bool: return mix(h, a->b);
      case AttrValue::Int: return mix(h, uint64_t(a->i));
      case AttrValue::Double: return mix(h, hashDouble(a->d));
      case AttrValue::Str: return mix(h, hashStr(a->s));
      case AttrValue::DType: return mix(h, hashDtype(a->dtype));
      case AttrValue::Array: return all(h, a->array);
      case AttrValue::Ctor:
        if (a->s == "T.index_map" && a->array.size() == 2 && a->array[0] && a->array[1]) {  // the lambda's params are definitions
          h = mix(h, hashStr(a->s));
          ++defCtx_;
          h = attr(h, a->array[0].get());
          --defCtx_;
          return attr(h, a->array[1].get());
        }
        return all(mix(h, hashStr(a->s)), a->array);
      case AttrValue::Map: return entries(h, a->map);
      case AttrValue::Prim: return mix(h, any(a->prim.get()));
      case AttrValue::Expr: return mix(h, any(a->expr.get()));
    }
    return h;
  }
  uint64_t entries(uint64_t h, const std::vector<std::pair<std::string, Attr>>& m) {
    for (auto& [k, v] : m) h = mix(mix(h, hashStr(k)), any(v.get()));
    return mix(h, m.size());
  }
};

}  // namespace

EqualResult structuralEqual(const Ref<Object>& a, const Ref<Object>& b, bool mapFreeVars) {
  return Equal(mapFreeVars).run(a.get(), b.get());
}

uint64_t structuralHash(const Ref<Object>& n) { return Hasher().any(n.get()); }
uint64_t structuralHashSampled(const Ref<Object>& n) { return Hasher(true).any(n.get()); }

}  // namespace rlx
