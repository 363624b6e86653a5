// TIR builder, statement level: loops, blocks and their block-level calls, stores, lets, ifs and
// evaluations, following TVM's TIR parser and IR builder (python/tvm/script/parser/tir/parser.py).
#include <algorithm>

#include "ir/arith.h"
#include "parser/build_tir_internal.h"

namespace rlx::tirbuild {
namespace {

const ast::Expr* keyword(const ast::Expr* call, const char* name) {
  for (auto* a : call->items)
    if (a->kind == ast::Expr::Keyword && a->str == name) return a->a;
  return nullptr;
}

std::vector<const ast::Expr*> positional(const ast::Expr* call) {
  std::vector<const ast::Expr*> out;
  for (auto* a : call->items)
    if (a->kind != ast::Expr::Keyword) out.push_back(a);
  return out;
}

// Names bound by a for/assign target: `i` or `i, j` (a Tuple of Names).
bool targetNames(const ast::Expr* t, std::vector<const ast::Expr*>& out) {
  if (t->kind == ast::Expr::Name) {
    out.push_back(t);
    return true;
  }
  if (t->kind != ast::Expr::Tuple) return false;
  for (auto* x : t->items)
    if (x->kind != ast::Expr::Name) return false;
  out.assign(t->items.begin(), t->items.end());
  return true;
}

bool isZero(const PrimExpr& e) {
  auto* i = asIntImm(e);
  return i && i->value == 0;
}

// An immediate promoted to the loop variable's dtype (TVM's For constructor does this).
PrimExpr promoteImm(const PrimExpr& e, DataType t) {
  if (e->dtype == t) return e;
  if (auto* i = asIntImm(e)) return intImm(i->value, t);
  return e;
}

}  // namespace

Stmt TirBuilder::buildBody(const std::vector<ast::Stmt*>& body, size_t from, Place place) {
  std::vector<Stmt> out;
  for (size_t i = from; i < body.size(); ++i) {
    const ast::Stmt* s = body[i];
    bool rest = false;
    switch (s->kind) {
      case ast::Stmt::Assign: buildAssign(s, place, out, body, i, rest); break;
      case ast::Stmt::ExprStmt: buildExprStmt(s, place, out, body, i, rest); break;
      case ast::Stmt::For:
        if (auto st = buildFor(s)) out.push_back(st);
        break;
      case ast::Stmt::With:
        if (auto st = buildWith(s, place, body, i, rest)) out.push_back(st);
        break;
      case ast::Stmt::If:
        if (auto st = buildIf(s)) out.push_back(st);
        break;
      case ast::Stmt::Pass: break;
      case ast::Stmt::Return: {
        // `return x` is T.ret(x): a host function's result.
        if (!s->value) {
          error("a T.prim_func 'return' needs a value (T.ret(x))", s->span);
          break;
        }
        auto v = evalExpr(s->value);
        if (!v.ok()) {
          report(std::move(v.error()), s->value->span);
          break;
        }
        auto ev = make<Evaluate>(make<PrimCall>((*v)->dtype, "tir.ret", std::vector<PrimExpr>{*v}));
        ev->span = s->span;
        out.push_back(ev);
        break;
      }
      default: error("nested definitions are not allowed in a T.prim_func body", s->span); break;
    }
    if (rest) break;
  }
  return seqOf(std::move(out));
}

bool TirBuilder::tryVarDecl(const ast::Stmt* s) {
  // `n = T.int64()`, `n = T.int64(is_size_var=True)`, `n, m = T.int64(), T.int64()`.
  std::vector<const ast::Expr*> names, values;
  if (!targetNames(s->target, names)) return false;
  if (s->target->kind == ast::Expr::Tuple) {
    if (s->value->kind != ast::Expr::Tuple || s->value->items.size() != names.size()) return false;
    values.assign(s->value->items.begin(), s->value->items.end());
  } else {
    values.push_back(s->value);
  }
  std::vector<std::pair<DataType, bool>> kinds;
  for (auto* v : values) {
    if (v->kind != ast::Expr::Call || !positional(v).empty()) return false;
    std::string callee = v->a->dottedName();
    auto t = callee == "T.handle" ? std::optional<DataType>(DataType::handle()) : tirDtypeCallee(callee);
    if (!t) return false;
    bool size = false;
    for (auto* a : v->items) {
      if (a->str != "is_size_var" || a->a->kind != ast::Expr::Bool) return false;
      size = a->a->b;
    }
    kinds.emplace_back(*t, size);
  }
  for (size_t i = 0; i < names.size(); ++i) scope.define(names[i]->str, make<PrimVar>(names[i]->str, kinds[i].first, kinds[i].second));
  return true;
}

bool TirBuilder::buildAssign(const ast::Stmt* s, Place place, std::vector<Stmt>& out, const std::vector<ast::Stmt*>& body, size_t i, bool& consumedRest) {
  const ast::Expr* t = s->target;
  const ast::Expr* v = s->value;
  if (!v) {
    error("a variable declared in TIR needs a value: `v: T.int32 = ...`", s->span);
    return false;
  }
  if (t->kind == ast::Expr::Subscript) {
    if (auto st = buildStore(s)) out.push_back(st);
    return true;
  }
  if (!s->annotation && v->kind == ast::Expr::Call) {
    std::string callee = v->a->dottedName();
    if (callee == "T.match_buffer" || callee == "T.alloc_buffer") {
      if (t->kind != ast::Expr::Name) {
        error(callee + "(...) must be assigned to a single name", t->span);
        return false;
      }
      bool match = callee == "T.match_buffer";
      auto args = positional(v);
      BlockFrame* blk = currentBlock(place);
      if (place != Place::Function && !blk) {
        error(callee + "(...) is only allowed at function level or directly inside a T.block", v->span);
        return false;
      }
      if (match && args.empty()) {
        error("T.match_buffer needs the parameter or region to match first", v->span);
        return false;
      }
      PrimVarRef param;
      BufferRegion source;
      if (match && place == Place::Function) {
        const ast::Expr* a0 = args[0];
        for (auto& [name, var] : params)
          if (a0->kind == ast::Expr::Name && name == a0->str) param = var;
        if (!param || !param->dtype.isHandle()) {
          error("the first argument of T.match_buffer at function level must be a T.handle parameter", a0->span);
          return false;
        }
        if (func->bufferOf(param)) {
          error("parameter '" + a0->str + "' already has a buffer", a0->span);
          return false;
        }
      } else if (match) {
        auto r = evalRegion(args[0]);
        if (!r.ok()) {
          report(std::move(r.error()), args[0]->span);
          return false;
        }
        source = *r;
      }
      // The leading argument of match_buffer is consumed; declareBuffer reads the rest.
      size_t first = match ? size_t(std::find(v->items.begin(), v->items.end(), args[0]) - v->items.begin()) + 1 : 0;
      auto buf = declareBuffer(v, first, t->str, match && place != Place::Function);
      if (!buf.ok()) {
        report(std::move(buf.error()), v->span);
        return false;
      }
      if (match && place != Place::Function && (*buf)->shape.empty())
        for (auto& r : source.region) (*buf)->shape.push_back(r.extent);
      if (match && place == Place::Function) func->bufferMap.emplace_back(param, *buf);
      else if (match) blk->block->matchBuffers.push_back({*buf, source});
      else if (blk) blk->block->allocBuffers.push_back(*buf);
      else rootAllocs.push_back(*buf);
      scope.defineBuffer(t->str, *buf);
      return true;
    }
    if (callee.rfind("T.axis.", 0) == 0) {
      if (!currentBlock(place)) {
        error(callee + "(...) is only allowed directly inside a T.block", v->span);
        return false;
      }
      return buildAxis(s, callee);
    }
    if (callee == "T.Buffer" || callee == "T.decl_buffer" || callee == "T.allocate") {
      error(callee + "(...) is not supported in TIR bodies; use T.alloc_buffer", v->span);
      return false;
    }
  }
  if (!s->annotation && tryVarDecl(s)) return true;
  if (t->kind != ast::Expr::Name) {
    error("only a name, a buffer element or a tuple of T.<dtype>() declarations can be assigned in TIR", t->span);
    return false;
  }
  auto value = evalExpr(v);
  if (!value.ok()) {
    report(std::move(value.error()), v->span);
    // Keep the name defined so later uses do not repeat the error.
    scope.define(t->str, make<PrimVar>(t->str, DataType::int32()));
    return false;
  }
  // `v: T.int32 = e` and `v = e` both bind a LetStmt over the rest of the body.
  DataType dt = (*value)->dtype;
  if (s->annotation) {
    auto at = annotationDtype(s->annotation);
    if (!at) {
      error("expected a TIR type such as T.int32 or T.float32", s->annotation->span);
      return false;
    }
    dt = *at;
  }
  auto var = make<PrimVar>(t->str, dt);
  PrimExpr val = castTo(dt, *value);
  scope.define(t->str, var);
  Stmt rest = buildBody(body, i + 1, place);
  out.push_back(make<LetStmt>(var, val, rest));
  consumedRest = true;
  return true;
}

bool TirBuilder::buildAxis(const ast::Stmt* s, const std::string& callee) {
  BlockFrame* blk = blocks.back();
  const ast::Expr* v = s->value;
  auto args = positional(v);
  if (callee == "T.axis.remap") {
    std::vector<const ast::Expr*> names;
    if (!targetNames(s->target, names)) {
      error("T.axis.remap must be assigned to names: `vi, vj = T.axis.remap(\"SS\", [i, j])`", s->target->span);
      return false;
    }
    // The loop variables: a list, or the name of a grid's loop group (`for iters in T.grid(...)`).
    const std::vector<PrimExpr>* group = nullptr;
    if (args.size() == 2 && args[1]->kind == ast::Expr::Name)
      for (auto& [n, vars] : loopGroups)
        if (n == args[1]->str) group = &vars;
    if (args.size() != 2 || args[0]->kind != ast::Expr::Str || (args[1]->kind != ast::Expr::List && args[1]->kind != ast::Expr::Tuple && !group)) {
      error("T.axis.remap takes a kind string and a list of loop variables: T.axis.remap(\"SSR\", [i, j, k])", v->span);
      return false;
    }
    const std::string& kinds = args[0]->str;
    std::vector<const ast::Expr*> binds(args[1]->items.begin(), args[1]->items.end());
    size_t nbinds = group ? group->size() : binds.size();
    if (kinds.size() != nbinds || names.size() != nbinds) {
      error("T.axis.remap: the kind string, the loop variables and the assigned names must have the same length", v->span);
      return false;
    }
    bool ok = true;
    for (size_t k = 0; k < nbinds; ++k) {
      if (kinds[k] != 'S' && kinds[k] != 'R') {
        error(std::string("unknown iteration kind '") + kinds[k] + "' in T.axis.remap; use 'S' (spatial) or 'R' (reduce)", args[0]->span);
        ok = false;
        continue;
      }
      auto bv = group ? Result<PrimExpr>((*group)[k]) : evalExpr(binds[k]);
      if (!bv.ok()) {
        report(std::move(bv.error()), binds[k]->span);
        ok = false;
        continue;
      }
      Ref<For> loop;
      for (auto& l : loops)
        if ((*bv).same(l->loopVar)) loop = l;
      if (!loop) {
        error("T.axis.remap only binds loop variables", (group ? args[1] : binds[k])->span);
        ok = false;
        continue;
      }
      IterVar iv;
      iv.var = make<PrimVar>(names[k]->str, loop->loopVar->dtype);
      iv.dom = {loop->min, loop->extent};
      iv.kind = kinds[k] == 'S' ? IterVar::DataPar : IterVar::CommReduce;
      blk->block->iterVars.push_back(iv);
      blk->iterValues.push_back(*bv);
      scope.define(names[k]->str, iv.var);
    }
    return ok;
  }
  static const std::pair<const char*, IterVar::Kind> kinds[] = {
      {"T.axis.spatial", IterVar::DataPar}, {"T.axis.S", IterVar::DataPar}, {"T.axis.reduce", IterVar::CommReduce}, {"T.axis.R", IterVar::CommReduce},
      {"T.axis.scan", IterVar::Ordered}, {"T.axis.opaque", IterVar::Opaque}};
  auto it = std::find_if(std::begin(kinds), std::end(kinds), [&](auto& k) { return callee == k.first; });
  if (it == std::end(kinds)) {
    error("unknown block axis '" + callee + "'; expected T.axis.spatial/reduce/scan/opaque/remap", v->a->span);
    return false;
  }
  if (s->target->kind != ast::Expr::Name) {
    error(callee + "(...) must be assigned to a single name", s->target->span);
    return false;
  }
  if (args.size() != 2) {
    error(callee + " takes a domain and a binding: " + callee + "(extent, i) or " + callee + "((lo, hi), i)", v->span);
    return false;
  }
  Range dom;
  const ast::Expr* d = args[0];
  if (d->kind == ast::Expr::Tuple || d->kind == ast::Expr::List) {
    if (d->items.size() != 2) {
      error("an axis domain is an extent or a (lo, hi) pair", d->span);
      return false;
    }
    auto lo = evalExpr(d->items[0]);
    auto hi = lo.ok() ? evalExpr(d->items[1]) : Result<PrimExpr>(PrimExpr());
    if (!lo.ok() || !hi.ok()) {
      report(std::move(!lo.ok() ? lo.error() : hi.error()), d->span);
      return false;
    }
    // TVM's Range(begin, end): extent = end - begin, constants folded only.
    PrimExpr ext = *hi;
    if (!isZero(*lo)) {
      auto e = applyPrimBinary("-", *hi, *lo, d->span);
      if (!e.ok()) {
        report(std::move(e.error()), d->span);
        return false;
      }
      ext = *e;
    }
    dom = {*lo, ext};
  } else {
    auto ext = evalExpr(d);
    if (!ext.ok()) {
      report(std::move(ext.error()), d->span);
      return false;
    }
    dom = {intImm(0, (*ext)->dtype), *ext};
  }
  auto bind = evalExpr(args[1]);
  if (!bind.ok()) {
    report(std::move(bind.error()), args[1]->span);
    return false;
  }
  DataType vt = DataType::int32();
  if (auto* k = keyword(v, "dtype")) {
    auto t = annotationDtype(k);
    if (!t || !t->isIntegral()) {
      error("an axis dtype must be an integer type", k->span);
      return false;
    }
    vt = *t;
  }
  int bits = std::max<int>({dom.min->dtype.bits, dom.extent->dtype.bits, vt.bits});
  IterVar iv;
  iv.var = make<PrimVar>(s->target->str, DataType(DataType::Int, bits));
  iv.dom = dom;
  iv.kind = it->second;
  blk->block->iterVars.push_back(iv);
  blk->iterValues.push_back(*bind);
  scope.define(s->target->str, iv.var);
  return true;
}

bool TirBuilder::buildBlockCall(const ast::Expr* call, const std::string& callee) {
  BlockFrame* blk = blocks.back();
  auto args = positional(call);
  if (callee == "T.reads" || callee == "T.writes") {
    bool reads = callee == "T.reads";
    if ((reads && blk->readsGiven) || (!reads && blk->writesGiven)) {
      error(callee + "(...) is given twice in this block", call->span);
      return false;
    }
    std::vector<const ast::Expr*> items = args;
    if (items.size() == 1 && (items[0]->kind == ast::Expr::List || items[0]->kind == ast::Expr::Tuple)) items.assign(items[0]->items.begin(), items[0]->items.end());
    std::vector<BufferRegion> regions;
    bool ok = true;
    for (auto* a : items) {
      auto r = evalRegion(a);
      if (!r.ok()) {
        report(std::move(r.error()), a->span);
        ok = false;
        continue;
      }
      regions.push_back(*r);
    }
    (reads ? blk->readsGiven : blk->writesGiven) = true;
    (reads ? blk->block->reads : blk->block->writes) = std::move(regions);
    return ok;
  }
  if (callee == "T.where") {
    if (args.size() != 1) {
      error("T.where takes one condition", call->span);
      return false;
    }
    auto p = evalExpr(args[0]);
    if (!p.ok()) {
      report(std::move(p.error()), args[0]->span);
      return false;
    }
    std::vector<PrimVarRef> used;
    collectVars(*p, used);
    for (auto& u : used)
      for (auto& iv : blk->block->iterVars)
        if (u == iv.var) {
          error("T.where takes loop variables, not the block's iteration variable '" + u->name + "'", args[0]->span);
          return false;
        }
    blk->predicate = castTo(DataType::boolean(), *p);
    return true;
  }
  // T.block_attr({...})
  if (args.size() != 1) {
    error("T.block_attr takes one dictionary", call->span);
    return false;
  }
  auto d = evalAttrDict(args[0]);
  if (!d.ok()) {
    report(std::move(d.error()), args[0]->span);
    return false;
  }
  AttrsRef merged = blk->block->annotations;
  for (auto& [k, val] : (*d)->fields) merged = withDictAttr(merged, k, val);
  blk->block->annotations = merged;
  return true;
}

bool TirBuilder::buildExprStmt(const ast::Stmt* s, Place place, std::vector<Stmt>& out, const std::vector<ast::Stmt*>& body, size_t i, bool& consumedRest) {
  const ast::Expr* v = s->value;
  if (v->kind == ast::Expr::Str) return true;  // a docstring
  if (v->kind == ast::Expr::Call) {
    std::string callee = v->a->dottedName();
    auto args = positional(v);
    if (callee == "T.func_attr") {
      if (place != Place::Function) {
        error("T.func_attr is only allowed at function level", v->span);
        return false;
      }
      if (args.size() != 1) {
        error("T.func_attr takes one dictionary", v->span);
        return false;
      }
      auto d = evalAttrDict(args[0]);
      if (!d.ok()) {
        report(std::move(d.error()), args[0]->span);
        return false;
      }
      for (auto& [k, val] : (*d)->fields) funcAttrs = withDictAttr(funcAttrs, k, val);
      return true;
    }
    if (callee == "T.reads" || callee == "T.writes" || callee == "T.where" || callee == "T.block_attr") {
      if (!currentBlock(place)) {
        error(callee + "(...) is only allowed directly inside a T.block", v->span);
        return false;
      }
      return buildBlockCall(v, callee);
    }
    if (callee == "T.evaluate") {
      if (args.size() != 1) {
        error("T.evaluate takes one expression", v->span);
        return false;
      }
      auto e = evalExpr(args[0]);
      if (!e.ok()) {
        report(std::move(e.error()), args[0]->span);
        return false;
      }
      out.push_back(make<Evaluate>(*e));
      return true;
    }
    if (callee == "T.Assert" || callee == "T.assert") {
      // An assert guards the rest of the body (TVM's concise `assert c, msg` form).
      if (args.size() != 2 || args[1]->kind != ast::Expr::Str) {
        error(callee + " takes a condition and a message string", v->span);
        return false;
      }
      auto c = evalExpr(args[0]);
      if (!c.ok()) {
        report(std::move(c.error()), args[0]->span);
        return false;
      }
      Stmt rest = buildBody(body, i + 1, place);
      out.push_back(make<AssertStmt>(*c, make<TirStringImm>(args[1]->str), rest));
      consumedRest = true;
      return true;
    }
  }
  auto e = evalExpr(v);
  if (!e.ok()) {
    report(std::move(e.error()), v->span);
    return false;
  }
  out.push_back(make<Evaluate>(*e));
  return true;
}

Stmt TirBuilder::buildStore(const ast::Stmt* s) {
  const ast::Expr* t = s->target;
  if (s->annotation) {
    error("a buffer store cannot have a type annotation", s->annotation->span);
    return nullptr;
  }
  auto buf = subscriptBuffer(t);
  if (!buf.ok()) {
    report(std::move(buf.error()), t->span);
    return nullptr;
  }
  auto idx = subscriptIndices(t);
  if (idx.size() != (*buf)->shape.size()) {
    error("buffer '" + (*buf)->name + "' has " + std::to_string((*buf)->shape.size()) + " dimension(s) but is indexed with " + std::to_string(idx.size()), t->span);
    return nullptr;
  }
  std::vector<PrimExpr> indices;
  int lanes = 1;
  bool ok = true;
  for (size_t k = 0; k < idx.size(); ++k) {
    const ast::Expr* x = idx[k];
    if (x->kind != ast::Expr::Slice) {
      auto e = evalExpr(x);
      if (!e.ok()) {
        report(std::move(e.error()), x->span);
        ok = false;
        continue;
      }
      indices.push_back(*e);
      continue;
    }
    // A vector store `A[0:8] = ...` (TVM's buffer_store: lanes = (stop - start + step - 1) // step).
    if (!x->a || !x->b2) {
      error("a sliced store needs both bounds", x->span);
      ok = false;
      continue;
    }
    auto lo = evalExpr(x->a);
    auto hi = lo.ok() ? evalExpr(x->b2) : Result<PrimExpr>(PrimExpr());
    if (!lo.ok() || !hi.ok()) {
      report(std::move(!lo.ok() ? lo.error() : hi.error()), x->span);
      ok = false;
      continue;
    }
    PrimExpr step = intImm(1, (*lo)->dtype);
    if (x->c) {
      auto st = evalExpr(x->c);
      if (!st.ok()) {
        report(std::move(st.error()), x->c->span);
        ok = false;
        continue;
      }
      step = promoteImm(*st, (*lo)->dtype);
      if (auto c = constInt(step); !c || *c <= 0) {
        error("a sliced store needs a constant positive step", x->c->span);
        ok = false;
        continue;
      }
    }
    auto n = constInt(floordiv(add(sub(*hi, *lo), sub(step, intImm(1, step->dtype))), step));
    if (!n || *n <= 0) {
      error("a sliced store needs a constant positive length", x->span);
      ok = false;
      continue;
    }
    if (*n == 1) {
      indices.push_back(*lo);
    } else {
      indices.push_back(make<Ramp>(*lo, step, int(*n)));
      lanes = int(*n);
    }
  }
  auto value = evalExpr(s->value);
  if (!value.ok()) {
    report(std::move(value.error()), s->value->span);
    return nullptr;
  }
  if (!ok) return nullptr;
  PrimExpr val = castTo((*buf)->dtype.withLanes(lanes), *value);
  auto st = make<BufferStore>(*buf, val, std::move(indices));
  st->span = s->span;
  return st;
}

Stmt TirBuilder::buildFor(const ast::Stmt* s) {
  std::vector<const ast::Expr*> names;
  if (!targetNames(s->target, names)) {
    error("a TIR loop variable must be a name or a tuple of names", s->target->span);
    return nullptr;
  }
  const ast::Expr* it = s->value;
  std::string callee = it->kind == ast::Expr::Call ? it->a->dottedName() : "";
  static const std::pair<const char*, For::LoopKind> kinds[] = {{"range", For::Serial}, {"T.serial", For::Serial}, {"T.parallel", For::Parallel}, {"T.vectorized", For::Vectorized},
                                                                {"T.unroll", For::Unrolled}, {"T.thread_binding", For::ThreadBinding}};
  std::vector<Ref<For>> chain;
  bool grouped = false;  // `for iters in T.grid(a, b)`: one name for all the grid's loop vars
  if (callee == "T.grid") {
    // Extents, where `*A.shape` stands for every dim of buffer A.
    std::vector<PrimExpr> extents;
    for (auto* a : it->items) {
      if (a->kind == ast::Expr::UnaryOp && a->str == "*" && a->a->kind == ast::Expr::Attribute && a->a->str == "shape" && a->a->a->kind == ast::Expr::Name) {
        const BufferRef* buf = scope.lookupBuffer(a->a->a->str);
        if (!buf) {
          error("'" + a->a->a->str + "' is not a buffer in scope", a->a->a->span);
          return nullptr;
        }
        extents.insert(extents.end(), (*buf)->shape.begin(), (*buf)->shape.end());
        continue;
      }
      if (a->kind == ast::Expr::Keyword) continue;
      auto ext = evalExpr(a);
      if (!ext.ok()) {
        report(std::move(ext.error()), a->span);
        return nullptr;
      }
      extents.push_back(*ext);
    }
    // One name over several extents binds them all: its vars are name_0, name_1, ... (TVM's).
    grouped = names.size() == 1 && s->target->kind == ast::Expr::Name && extents.size() > 1;
    if (extents.size() != names.size() && !grouped) {
      error("T.grid needs one extent per loop variable", it->span);
      return nullptr;
    }
    for (size_t k = 0; k < extents.size(); ++k) {
      const PrimExpr& ext = extents[k];
      auto f = make<For>();
      f->loopVar = make<PrimVar>(grouped ? names[0]->str + "_" + std::to_string(k) : names[k]->str, ext->dtype);
      f->min = intImm(0, ext->dtype);
      f->extent = ext;
      chain.push_back(f);
    }
  } else {
    auto kit = std::find_if(std::begin(kinds), std::end(kinds), [&](auto& k) { return callee == k.first; });
    if (kit == std::end(kinds)) {
      error("expected the loop to be one of range, T.serial, T.grid, T.parallel, T.vectorized, T.unroll, T.thread_binding", it->span);
      return nullptr;
    }
    if (names.size() != 1) {
      error("this loop binds a single variable", s->target->span);
      return nullptr;
    }
    auto args = positional(it);
    auto f = make<For>();
    f->loopKind = kit->second;
    if (f->loopKind == For::ThreadBinding) {
      // T.thread_binding(stop, thread=...) / (start, stop, thread=...) / (stop, "threadIdx.x")
      const ast::Expr* thread = keyword(it, "thread");
      if (!thread && !args.empty() && args.back()->kind == ast::Expr::Str) {
        thread = args.back();
        args.pop_back();
      }
      if (!thread || thread->kind != ast::Expr::Str) {
        error("T.thread_binding needs thread=\"threadIdx.x\" (or another thread tag)", it->span);
        return nullptr;
      }
      f->threadTag = thread->str;
    }
    if (callee == "range" && args.size() == 3) {
      if (args[2]->kind != ast::Expr::Int || args[2]->i != 1) {
        error("only a step of 1 is supported in range()", args[2]->span);
        return nullptr;
      }
      args.pop_back();
    }
    if (args.empty() || args.size() > 2) {
      error(callee + " takes an extent, or a start and a stop", it->span);
      return nullptr;
    }
    auto a = evalExpr(args[0]);
    if (!a.ok()) {
      report(std::move(a.error()), args[0]->span);
      return nullptr;
    }
    PrimExpr start, stop;
    if (args.size() == 1) {
      stop = *a;
      start = intImm(0, stop->dtype.isIntegral() ? stop->dtype : DataType::int32());
    } else {
      auto b = evalExpr(args[1]);
      if (!b.ok()) {
        report(std::move(b.error()), args[1]->span);
        return nullptr;
      }
      start = *a;
      stop = *b;
    }
    if (!start->dtype.isInt() || !stop->dtype.isInt()) {
      error("loop bounds must be integers", it->span);
      return nullptr;
    }
    DataType vt(DataType::Int, std::max(start->dtype.bits, stop->dtype.bits));
    start = promoteImm(start, vt);
    stop = promoteImm(stop, vt);
    f->min = start;
    f->extent = isZero(start) ? stop : simplify(sub(stop, start));
    f->loopVar = make<PrimVar>(names[0]->str, vt);
    if (auto* ann = keyword(it, "annotations")) {
      auto d = evalAttrDict(ann);
      if (!d.ok()) {
        report(std::move(d.error()), ann->span);
        return nullptr;
      }
      if (!(*d)->fields.empty()) f->annotations = *d;
    }
    chain.push_back(f);
  }
  scope.push();
  for (auto& f : chain) {
    loops.push_back(f);
    scope.define(f->loopVar->name, f->loopVar);
  }
  if (grouped) {
    std::vector<PrimExpr> vars;
    for (auto& f : chain) vars.push_back(f->loopVar);
    loopGroups.emplace_back(names[0]->str, std::move(vars));
  }
  Stmt body = buildBody(s->body, 0, Place::Other);
  if (grouped) loopGroups.pop_back();
  for (size_t k = 0; k < chain.size(); ++k) loops.pop_back();
  scope.pop();
  for (size_t k = chain.size(); k-- > 0;) {
    chain[k]->body = body;
    chain[k]->span = s->span;
    body = chain[k];
  }
  return body;
}

Stmt TirBuilder::buildBlock(const ast::Stmt* s, const ast::Expr* call) {
  auto args = positional(call);
  const ast::Expr* nameArg = keyword(call, "name");
  if (!nameArg && !args.empty()) nameArg = args[0];
  if (nameArg && nameArg->kind != ast::Expr::Str) {
    error("a block name must be a string", nameArg->span);
    return nullptr;
  }
  bool noRealize = false;
  if (auto* nr = keyword(call, "no_realize")) noRealize = nr->kind == ast::Expr::Bool && nr->b;
  BlockFrame bf;
  bf.block = make<TirBlock>();
  bf.block->name = nameArg ? nameArg->str : "";
  bf.block->span = s->span;
  blocks.push_back(&bf);
  scope.push();
  Stmt body = buildBody(s->body, 0, Place::Block);
  scope.pop();
  blocks.pop_back();
  TirBlock& blk = *bf.block;
  blk.body = body;
  bool inferReads = !bf.readsGiven, inferWrites = !bf.writesGiven;
  inferAccessRegions(blk, inferReads, inferWrites);
  if (blocks.empty() && loops.empty()) topLevelInferred.emplace_back(bf.block.get(), inferReads, inferWrites);
  if (noRealize) return bf.block;
  auto realize = make<BlockRealize>();
  realize->iterValues = std::move(bf.iterValues);
  realize->predicate = bf.predicate ? bf.predicate : boolImm(true);
  realize->block = bf.block;
  realize->span = s->span;
  return realize;
}

Stmt TirBuilder::buildWith(const ast::Stmt* s, Place place, const std::vector<ast::Stmt*>& body, size_t i, bool& consumedRest) {
  const ast::Expr* item = s->value;
  std::string callee = item->kind == ast::Expr::Call ? item->a->dottedName() : "";
  auto args = item->kind == ast::Expr::Call ? positional(item) : std::vector<const ast::Expr*>{};
  if (callee == "T.block") {
    if (s->withTarget) error("`with T.block(...) as x` is not supported", s->withTarget->span);
    return buildBlock(s, item);
  }
  if (callee == "T.init") {
    BlockFrame* blk = currentBlock(place);
    if (!blk) {
      error("`with T.init():` is only allowed directly inside a T.block", item->span);
      return nullptr;
    }
    if (blk->block->init) {
      error("a block has at most one T.init()", item->span);
      return nullptr;
    }
    scope.push();
    blk->block->init = buildBody(s->body, 0, Place::Other);
    scope.pop();
    return nullptr;
  }
  if (callee == "T.LetStmt") {
    // `with T.LetStmt(value) as v:` (or var=v for an already declared variable)
    if (args.size() != 1) {
      error("T.LetStmt takes one value", item->span);
      return nullptr;
    }
    auto value = evalExpr(args[0]);
    if (!value.ok()) {
      report(std::move(value.error()), args[0]->span);
      return nullptr;
    }
    PrimVarRef var;
    if (auto* vk = keyword(item, "var")) {
      auto e = evalExpr(vk);
      if (e.ok()) var = (*e).as<PrimVar>();
      if (!var) {
        error("var= must name a declared variable", vk->span);
        return nullptr;
      }
    } else if (s->withTarget && s->withTarget->kind == ast::Expr::Name) {
      var = make<PrimVar>(s->withTarget->str, (*value)->dtype);
    } else {
      error("T.LetStmt needs `as name` or var=...", item->span);
      return nullptr;
    }
    scope.push();
    scope.define(var->name, var);
    Stmt b = buildBody(s->body, 0, Place::Other);
    scope.pop();
    return make<LetStmt>(var, castTo(var->dtype, *value), b);
  }
  if (callee == "T.Assert") {
    if (args.size() != 2 || args[1]->kind != ast::Expr::Str) {
      error("T.Assert takes a condition and a message string", item->span);
      return nullptr;
    }
    auto c = evalExpr(args[0]);
    if (!c.ok()) {
      report(std::move(c.error()), args[0]->span);
      return nullptr;
    }
    scope.push();
    Stmt b = buildBody(s->body, 0, Place::Other);
    scope.pop();
    return make<AssertStmt>(*c, make<TirStringImm>(args[1]->str), b);
  }
  (void)body;
  (void)i;
  (void)consumedRest;
  error("unsupported with-statement in TIR; expected T.block, T.init, T.LetStmt or T.Assert", item->span);
  return nullptr;
}

Stmt TirBuilder::buildIf(const ast::Stmt* s) {
  // A Python bool condition picks a branch at parse time, as TVM's parser does.
  if (s->value->kind == ast::Expr::Bool) {
    scope.push();
    Stmt b = s->value->b ? buildBody(s->body, 0, Place::Other) : (s->orelse.empty() ? nullptr : buildBody(s->orelse, 0, Place::Other));
    scope.pop();
    return b;
  }
  auto c = evalExpr(s->value);
  if (!c.ok()) {
    report(std::move(c.error()), s->value->span);
    return nullptr;
  }
  if (!(*c)->dtype.isBool()) {
    error("an if condition must be a boolean expression", s->value->span);
    return nullptr;
  }
  scope.push();
  Stmt thenS = buildBody(s->body, 0, Place::Other);
  scope.pop();
  Stmt elseS;
  if (!s->orelse.empty()) {
    scope.push();
    elseS = buildBody(s->orelse, 0, Place::Other);
    scope.pop();
  }
  auto st = make<IfThenElse>(*c, thenS, elseS);
  st->span = s->span;
  return st;
}

}  // namespace rlx::tirbuild
