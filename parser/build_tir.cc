// TIR builder, function level: parameters (T.Buffer sugar, T.handle, scalars), buffer declarations,
// attribute dictionaries, regions, and the implicit root block TVM's parser adds (ScriptComplete).
#include <algorithm>

#include "ir/arith.h"
#include "parser/build_tir_internal.h"

namespace rlx {
namespace tirbuild {

std::optional<DataType> TirBuilder::annotationDtype(const ast::Expr* e) {
  if (!e) return std::nullopt;
  if (e->kind == ast::Expr::Str) {
    auto t = DataType::parse(e->str);
    if (t && !t->isVoid()) return t;
    return std::nullopt;
  }
  // `T.int64` and `T.int64()` both name the type (TVM calls a callable annotation).
  const ast::Expr* named = e;
  if (e->kind == ast::Expr::Call) {
    if (!e->items.empty()) return std::nullopt;
    named = e->a;
  }
  std::string dotted = named->dottedName();
  if (dotted == "T.handle") return DataType::handle();
  return tirDtypeCallee(dotted);
}

Result<Attr> TirBuilder::evalAttr(const ast::Expr* e) {
  using K = ast::Expr::Kind;
  switch (e->kind) {
    case K::Bool: return AttrValue::boolean(e->b);
    case K::Int: return AttrValue::integer(e->i);
    case K::Float: return AttrValue::real(e->d);
    case K::Str: return AttrValue::str(e->str);
    case K::NoneLit: return Attr();
    case K::List:
    case K::Tuple: {
      std::vector<Attr> items;
      for (auto* x : e->items) {
        RLX_TRY(v, evalAttr(x));
        items.push_back(v);
      }
      return AttrValue::array_(std::move(items));
    }
    case K::Dict: {
      std::vector<std::pair<std::string, Attr>> fields;
      for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
        if (e->items[i]->kind != K::Str) return Error("attribute dictionary keys must be strings", e->items[i]->span);
        RLX_TRY(v, evalAttr(e->items[i + 1]));
        fields.emplace_back(e->items[i]->str, v);
      }
      return AttrValue::map_(std::move(fields));
    }
    default: break;
  }
  RLX_TRY(p, evalExpr(e));
  // A Python int (`-1`) evaluates to an int32 immediate; TVM keeps it a plain int attribute.
  if (auto* i = asIntImm(p); i && p->dtype == DataType::int32()) return AttrValue::integer(i->value);
  return AttrValue::primOf(p);
}

Result<AttrsRef> TirBuilder::evalAttrDict(const ast::Expr* e) {
  if (e->kind != ast::Expr::Dict) return Error("expected a dictionary {\"key\": value, ...}", e->span);
  RLX_TRY(m, evalAttr(e));
  return makeDictAttrs(m->map);
}

Result<std::vector<PrimExpr>> TirBuilder::evalShape(const ast::Expr* e) {
  std::vector<PrimExpr> out;
  // `X.shape`: another buffer's shape, as a whole.
  if (e->kind == ast::Expr::Attribute && e->str == "shape" && e->a->kind == ast::Expr::Name)
    if (const BufferRef* b = scope.lookupBuffer(e->a->str)) return (*b)->shape;
  if (e->kind == ast::Expr::Tuple || e->kind == ast::Expr::List) {
    for (auto* x : e->items) {
      RLX_TRY(v, evalExpr(x));
      if (!v->dtype.isIntegral() || v->dtype.isBool()) return Error("buffer dimensions must be integers", x->span);
      out.push_back(v);
    }
    return out;
  }
  RLX_TRY(v, evalExpr(e));
  if (!v->dtype.isIntegral() || v->dtype.isBool()) return Error("buffer dimensions must be integers", e->span);
  out.push_back(v);
  return out;
}

Result<BufferRef> TirBuilder::declareBuffer(const ast::Expr* call, size_t firstArg, const std::string& name, bool allowShapeless) {
  // Keyword names in TVM's positional order (after the leading source argument, if any).
  static const char* order[] = {"shape", "dtype", "data", "strides", "elem_offset", "scope", "align", "offset_factor", "buffer_type", "axis_separators"};
  const ast::Expr* arg[10] = {};
  size_t pos = 0;
  std::string callee = call->a->dottedName();
  for (size_t i = firstArg; i < call->items.size(); ++i) {
    const ast::Expr* a = call->items[i];
    if (a->kind == ast::Expr::Keyword) {
      auto it = std::find_if(std::begin(order), std::end(order), [&](const char* k) { return a->str == k; });
      if (it == std::end(order)) return Error(callee + "() got an unexpected keyword argument '" + a->str + "'", a->span);
      arg[it - std::begin(order)] = a->a;
    } else {
      if (pos >= 10) return Error(callee + "() got too many arguments", a->span);
      arg[pos++] = a;
    }
  }
  auto buf = make<Buffer>();
  buf->name = name;
  if (arg[0]) {
    RLX_TRY(shape, evalShape(arg[0]));
    buf->shape = std::move(shape);
  } else if (!allowShapeless) {
    return Error(callee + "() needs a shape", call->span);
  }
  if (arg[1]) {
    auto t = annotationDtype(arg[1]);
    if (!t) return Error("expected a dtype such as \"float32\"", arg[1]->span);
    buf->dtype = *t;
  }
  if (arg[2]) return Error("data=... is not supported; the buffer gets its own data pointer", arg[2]->span);
  if (arg[3]) {
    RLX_TRY(strides, evalShape(arg[3]));
    buf->strides = std::move(strides);
  }
  if (arg[4] && arg[4]->kind != ast::Expr::NoneLit) {
    RLX_TRY(off, evalExpr(arg[4]));
    buf->elemOffset = off;
    buf->explicitElemOffset = true;
  }
  if (arg[5]) {
    if (arg[5]->kind != ast::Expr::Str) return Error("scope must be a string such as \"global\" or \"shared\"", arg[5]->span);
    buf->scope = arg[5]->str.empty() ? "global" : arg[5]->str;
  }
  if (arg[6]) {
    if (arg[6]->kind != ast::Expr::Int) return Error("align must be an integer", arg[6]->span);
    buf->explicitAlign = true;
    if (arg[6]->i > 0) buf->alignment = int(arg[6]->i);  // <= 0 means TVM's default (64)
  }
  if (arg[7]) {
    if (arg[7]->kind != ast::Expr::Int) return Error("offset_factor must be an integer", arg[7]->span);
    if (arg[7]->i != 0) {
      buf->offsetFactor = int(arg[7]->i);
      // TVM then gives the buffer a fresh elem_offset variable; the printer shows offset_factor.
      if (!buf->elemOffset) buf->explicitOffsetFactor = true;
    }
  }
  if (arg[8] && !(arg[8]->kind == ast::Expr::Str && (arg[8]->str == "default" || arg[8]->str.empty())))
    return Error("buffer_type other than \"default\" is not supported", arg[8]->span);
  if (arg[9] && arg[9]->kind != ast::Expr::NoneLit) {
    if (arg[9]->kind != ast::Expr::List && arg[9]->kind != ast::Expr::Tuple) return Error("axis_separators must be a list of axis indices", arg[9]->span);
    int64_t last = 0;
    for (auto* a : arg[9]->items) {
      if (a->kind != ast::Expr::Int) return Error("axis_separators must be a list of axis indices", a->span);
      if (a->i <= last || a->i >= int64_t(buf->shape.size()))
        return Error("axis_separators must increase strictly and lie inside the buffer's " + std::to_string(buf->shape.size()) + " axes", a->span);
      last = a->i;
      buf->axisSeparators.push_back(a->i);
    }
  }
  buf->data = make<PrimVar>(name, DataType::handle());
  return BufferRef(buf);
}

std::vector<const ast::Expr*> TirBuilder::subscriptIndices(const ast::Expr* e) {
  std::vector<const ast::Expr*> idx(e->items.begin(), e->items.end());
  // `A[()]` and `A[(i, j)]` index with the tuple's items.
  if (idx.size() == 1 && idx[0]->kind == ast::Expr::Tuple) idx.assign(idx[0]->items.begin(), idx[0]->items.end());
  return idx;
}

Result<BufferRef> TirBuilder::subscriptBuffer(const ast::Expr* e) {
  const ast::Expr* v = e->kind == ast::Expr::Subscript ? e->a : e;
  if (v->kind != ast::Expr::Name) return Error("expected a buffer", v->span);
  if (auto* b = scope.lookupBuffer(v->str)) return *b;
  if (scope.lookup(v->str)) return Error("'" + v->str + "' is not a buffer", v->span);
  return Error("name '" + v->str + "' is not defined", v->span);
}

Result<BufferRegion> TirBuilder::evalRegion(const ast::Expr* e) {
  RLX_TRY(buf, subscriptBuffer(e));
  BufferRegion r{buf, {}};
  if (e->kind != ast::Expr::Subscript) {  // a whole buffer
    for (auto& d : buf->shape) r.region.push_back({intImm(0, d->dtype), d});
    return r;
  }
  auto idx = subscriptIndices(e);
  if (idx.size() != buf->shape.size())
    return Error("buffer '" + buf->name + "' has " + std::to_string(buf->shape.size()) + " dimension(s) but the region has " + std::to_string(idx.size()), e->span);
  for (size_t i = 0; i < idx.size(); ++i) {
    const ast::Expr* x = idx[i];
    if (x->kind != ast::Expr::Slice) {
      RLX_TRY(v, evalExpr(x));
      r.region.push_back({v, intImm(1, v->dtype)});
      continue;
    }
    if (x->c) return Error("a region cannot have a step", x->c->span);
    PrimExpr lo = intImm(0, buf->shape[i]->dtype), hi = buf->shape[i];
    if (x->a) {
      RLX_TRY(v, evalExpr(x->a));
      lo = v;
    }
    if (x->b2) {
      RLX_TRY(v, evalExpr(x->b2));
      hi = v;
    }
    // TVM's Buffer.__getitem__ simplifies the extent (`v*4:v*4+4` has extent 4).
    RLX_TRY(diff, applyPrimBinary("-", hi, lo, x->span));
    r.region.push_back({lo, simplify(diff)});
  }
  return r;
}

Stmt seqOf(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (auto seq = s.as<SeqStmt>()) flat.insert(flat.end(), seq->seq.begin(), seq->seq.end());
    else flat.push_back(s);
  }
  if (flat.size() > 1) {
    // SeqStmt flattening drops no-op evaluations of constants.
    std::vector<Stmt> kept;
    for (auto& s : flat) {
      auto ev = s.as<Evaluate>();
      if (ev && ev->value->kind() == NodeKind::IntImm) continue;
      kept.push_back(s);
    }
    if (kept.empty()) kept.push_back(flat.front());
    flat = std::move(kept);
  }
  if (flat.empty()) return make<Evaluate>(intImm(0, DataType::int32()));
  if (flat.size() == 1) return flat[0];
  return make<SeqStmt>(std::move(flat));
}

bool containsBlockRealize(const Stmt& s) {
  if (!s) return false;
  switch (s->kind()) {
    case NodeKind::BlockRealize: return true;
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq)
        if (containsBlockRealize(x)) return true;
      return false;
    case NodeKind::For: return containsBlockRealize(static_cast<const For&>(*s).body);
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      return containsBlockRealize(i.thenCase) || containsBlockRealize(i.elseCase);
    }
    case NodeKind::LetStmt: return containsBlockRealize(static_cast<const LetStmt&>(*s).body);
    case NodeKind::AssertStmt: return containsBlockRealize(static_cast<const AssertStmt&>(*s).body);
    case NodeKind::TirBlock: {
      auto& b = static_cast<const TirBlock&>(*s);
      return containsBlockRealize(b.body) || containsBlockRealize(b.init);
    }
    default: return false;
  }
}

PrimExpr castTo(DataType t, const PrimExpr& v) {
  if (v->dtype == t) return v;
  if (auto* i = asIntImm(v)) {
    if (t.isBool()) return boolImm(i->value != 0);
    if (t.isFloat()) return floatImm(double(i->value), t);
    if (t.isIntegral()) return intImm(i->value, t);
  }
  if (v->kind() == NodeKind::FloatImm) {
    double d = static_cast<const FloatImm&>(*v).value;
    if (t.isFloat()) return floatImm(t.bits == 32 ? double(float(d)) : d, t);
    if (t.isBool()) return boolImm(d != 0);
    if (t.isIntegral()) return intImm(int64_t(d), t);
  }
  return make<Cast>(t, v);
}

namespace {

// Whether a statement has side effects as TVM's IsPureFunction sees them: any buffer store (only
// lowered T.allocate memory counts as internal, which this TIR subset has none of) or an opaque call.
bool hasSideEffect(const Stmt& s) {
  if (!s) return false;
  switch (s->kind()) {
    case NodeKind::BufferStore: return true;
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq)
        if (hasSideEffect(x)) return true;
      return false;
    case NodeKind::For: return hasSideEffect(static_cast<const For&>(*s).body);
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      return hasSideEffect(i.thenCase) || hasSideEffect(i.elseCase);
    }
    case NodeKind::LetStmt: return hasSideEffect(static_cast<const LetStmt&>(*s).body);
    case NodeKind::AssertStmt: return true;
    case NodeKind::Evaluate: {
      auto& v = static_cast<const Evaluate&>(*s).value;
      return v->kind() == NodeKind::PrimCall && static_cast<const PrimCall&>(*v).op.find("call_") != std::string::npos;
    }
    case NodeKind::BlockRealize: return hasSideEffect(static_cast<const BlockRealize&>(*s).block);
    case NodeKind::TirBlock: {
      auto& b = static_cast<const TirBlock&>(*s);
      return hasSideEffect(b.init) || hasSideEffect(b.body);
    }
    default: return false;
  }
}

}  // namespace

}  // namespace tirbuild

// The Relax view of a PrimFunc, as TVM's PrimFunc constructor sets it: buffer params are tensors
// of their (int64) shape, handles objects, scalars prims; the result is void (R.Tuple()), or the
// scalar a `-> T.int64` function returns.
StructInfo primFuncSInfo(const PrimFunc& f) {
  using namespace tirbuild;
  std::vector<StructInfo> params;
  for (auto& p : f.params) {
    if (auto* b = f.bufferOf(p)) {
      std::vector<PrimExpr> dims;
      for (auto& d : (*b)->shape) dims.push_back(castTo(DataType::int64(), d));
      params.push_back(tensorSInfo(std::move(dims), (*b)->dtype));
    } else if (p->dtype.isHandle()) {
      params.push_back(objectSInfo());
    } else {
      params.push_back(make<PrimSInfo>(p->dtype));
    }
  }
  StructInfo ret = f.retType.isVoid() ? voidSInfo() : StructInfo(make<PrimSInfo>(f.retType));
  return make<FuncSInfo>(std::move(params), ret, !hasSideEffect(f.body));
}

using tirbuild::Place;
using tirbuild::TirBuilder;
using tirbuild::containsBlockRealize;

PrimFuncRef buildPrimFunc(const TirBuildInput& in, DiagnosticEngine& diag) {
  const ast::Stmt* def = in.def;
  size_t errorsBefore = diag.errors().size();
  TirBuilder b(diag);
  auto func = make<PrimFunc>();
  b.func = func;
  b.scope.push();
  // `-> None` is the default: no result.
  if (def->returns && def->returns->kind != ast::Expr::NoneLit) {
    // A host function returning a scalar through T.ret (ComputePrimValue's compute_symbolic_expr).
    auto t = b.annotationDtype(def->returns);
    if (t) func->retType = *t;
    else b.error("a T.prim_func returns a scalar type such as T.int64", def->returns->span);
  }

  for (auto& p : def->params) {
    if (!p.annotation) {
      b.error("parameter '" + p.name + "' needs a type annotation (T.Buffer(...), T.handle, T.int64, ...)", p.span);
      continue;
    }
    const ast::Expr* ann = p.annotation;
    std::string callee = ann->kind == ast::Expr::Call ? ann->a->dottedName() : ann->dottedName();
    // T.buffer is TVMScript's older spelling of the same parameter annotation.
    if (callee == "T.Buffer" || callee == "T.buffer") {
      if (ann->kind != ast::Expr::Call) {
        b.error("T.Buffer needs a shape and a dtype: T.Buffer((4, 4), \"float32\")", ann->span);
        continue;
      }
      auto buf = b.declareBuffer(ann, 0, p.name, false);
      if (!buf.ok()) {
        b.report(std::move(buf.error()), ann->span);
        continue;
      }
      // TVM names the handle of a Buffer-annotated parameter `<name>_handle`.
      auto handle = make<PrimVar>(p.name + "_handle", DataType::handle());
      func->params.push_back(handle);
      func->bufferMap.emplace_back(handle, *buf);
      b.scope.defineBuffer(p.name, *buf);
      b.params.emplace_back(p.name + "_handle", handle);
      continue;
    }
    auto t = b.annotationDtype(ann);
    if (!t) {
      b.error("unsupported parameter annotation; expected T.Buffer(...), T.handle or a scalar type such as T.int64", ann->span);
      continue;
    }
    auto var = make<PrimVar>(p.name, *t);
    func->params.push_back(var);
    b.params.emplace_back(p.name, var);
    b.scope.define(p.name, var);
  }

  Stmt body = b.buildBody(def->body, 0, Place::Function);

  // Implicit root block, as TVM's ScriptComplete decides it.
  auto realize = body.as<BlockRealize>();
  bool insertRoot = !b.rootAllocs.empty() || (realize && !realize->block->iterVars.empty()) || (!realize && containsBlockRealize(body));
  if (insertRoot) {
    auto root = make<TirBlock>();
    root->name = "root";
    root->body = body;
    root->allocBuffers = b.rootAllocs;
    auto rr = make<BlockRealize>();
    rr->predicate = boolImm(true);
    rr->block = root;
    body = rr;
  } else if (realize) {
    // The outermost block written explicitly is the root: TVM infers no regions for it.
    for (auto& [blk, reads, writes] : b.topLevelInferred) {
      if (blk != realize->block.get()) continue;
      if (reads) blk->reads.clear();
      if (writes) blk->writes.clear();
    }
  }
  func->body = body;

  // Buffer map in parameter order (match_buffer lines may come in any order).
  std::stable_sort(func->bufferMap.begin(), func->bufferMap.end(), [&](auto& x, auto& y) {
    auto ix = std::find(func->params.begin(), func->params.end(), x.first) - func->params.begin();
    auto iy = std::find(func->params.begin(), func->params.end(), y.first) - func->params.begin();
    return ix < iy;
  });

  func->sinfo = primFuncSInfo(*func);

  AttrsRef attrs = b.funcAttrs;
  if (!in.isPrivate && !attrStr(attrs, "global_symbol")) attrs = withDictAttr(attrs, "global_symbol", AttrValue::str(in.name));
  func->attrs = attrs;
  if (diag.errors().size() > errorsBefore) return nullptr;
  return func;
}

}  // namespace rlx
