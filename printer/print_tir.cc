// TIR printer, function level: decorator, parameters (T.Buffer sugar or handle + T.match_buffer),
// T.func_attr, lazy shape-variable declarations, the implicit root block, buffers, regions and attrs.
#include <algorithm>
#include <unordered_set>

#include "ir/arith.h"
#include "printer/print_tir_internal.h"

namespace rlx {
namespace tirprint {
namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ", ";
    out += parts[i];
  }
  return out;
}

// A Python tuple: `(a, b)`, `(a,)`, `()`.
std::string tupleText(const std::vector<std::string>& parts) {
  if (parts.size() == 1) return "(" + parts[0] + ",)";
  return "(" + join(parts) + ")";
}

bool isOne(const PrimExpr& e) {
  auto* i = asIntImm(e);
  return i && i->value == 1;
}

void forEachInRegion(const BufferRegion& r, const std::function<void(const PrimExpr&)>& fn) {
  for (auto& rg : r.region) {
    fn(rg.min);
    fn(rg.extent);
  }
}

void forEachInBuffer(const Buffer& b, const std::function<void(const PrimExpr&)>& fn) {
  for (auto& d : b.shape) fn(d);
  for (auto& d : b.strides) fn(d);
  if (b.elemOffset) fn(b.elemOffset);
}

}  // namespace

void forEachExpr(const Stmt& s, const std::function<void(const PrimExpr&)>& fn) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto& st = static_cast<const BufferStore&>(*s);
      fn(st.value);
      for (auto& i : st.indices) fn(i);
      return;
    }
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) forEachExpr(x, fn);
      return;
    case NodeKind::For: {
      auto& f = static_cast<const For&>(*s);
      fn(f.loopVar);
      fn(f.min);
      fn(f.extent);
      forEachExpr(f.body, fn);
      return;
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      fn(i.cond);
      forEachExpr(i.thenCase, fn);
      forEachExpr(i.elseCase, fn);
      return;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      fn(l.var);
      fn(l.value);
      forEachExpr(l.body, fn);
      return;
    }
    case NodeKind::Evaluate: fn(static_cast<const Evaluate&>(*s).value); return;
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      fn(a.cond);
      fn(a.message);
      forEachExpr(a.body, fn);
      return;
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      for (auto& v : r.iterValues) fn(v);
      if (r.predicate) fn(r.predicate);
      forEachExpr(r.block, fn);
      return;
    }
    case NodeKind::TirBlock: {
      auto& b = static_cast<const TirBlock&>(*s);
      for (auto& iv : b.iterVars) {
        fn(iv.var);
        fn(iv.dom.min);
        fn(iv.dom.extent);
      }
      for (auto& r : b.reads) forEachInRegion(r, fn);
      for (auto& r : b.writes) forEachInRegion(r, fn);
      for (auto& a : b.allocBuffers) forEachInBuffer(*a, fn);
      for (auto& m : b.matchBuffers) {
        forEachInBuffer(*m.buffer, fn);
        forEachInRegion(m.source, fn);
      }
      forEachExpr(b.init, fn);
      forEachExpr(b.body, fn);
      return;
    }
    default: return;
  }
}

PrimExpr foldAdd(const PrimExpr& a, const PrimExpr& b) {
  auto *x = asIntImm(a), *y = asIntImm(b);
  DataType t = a->dtype.bits >= b->dtype.bits ? a->dtype : b->dtype;
  if (x && y) return intImm(x->value + y->value, t);
  if (x && x->value == 0 && b->dtype == t) return b;
  if (y && y->value == 0 && a->dtype == t) return a;
  // Mixed widths: the narrower immediate takes the wider type, as TVM's type matching does.
  PrimExpr l = x ? intImm(x->value, t) : a, r = y ? intImm(y->value, t) : b;
  return binary(NodeKind::Add, l, r);
}

std::string TirPrinter::typeAnnotation(DataType t) { return t.isHandle() ? "T.handle" : "T." + t.str(); }

std::string TirPrinter::varCreation(const PrimVar& v) {
  std::string t = typeAnnotation(v.dtype);
  return t + (v.isSizeVar ? "(is_size_var=True)" : "()");
}

void TirPrinter::declareFree(const std::vector<PrimExpr>& exprs) {
  std::vector<PrimVarRef> vars;
  for (auto& e : exprs) collectVars(e, vars);
  for (auto& v : vars) {
    if (ctx.names.find(v.get())) continue;
    std::string name = defineVar(*v);
    ctx.line(name + " = " + varCreation(*v));
  }
}

bool TirPrinter::isSimpleBuffer(const Buffer& b) const {
  if (!b.strides.empty()) return false;
  for (auto& d : b.shape) {
    std::vector<PrimVarRef> vars;
    collectVars(d, vars);
    if (!vars.empty()) return false;
  }
  if (b.elemOffset) {
    auto* i = asIntImm(b.elemOffset);
    if (!i || i->value != 0) return false;
  }
  return b.scope == "global" && b.alignment == 64 && b.offsetFactor == 1 && !b.explicitOffsetFactor && b.axisSeparators.empty();
}

std::string TirPrinter::bufferDecl(const Buffer& b, const std::string& method, const std::vector<std::string>& leadArgs) {
  // Dimensions that are new variables are defined at once and declared together on one line
  // after the buffer's other lazy declarations (`n, m = T.int64(), T.int64()`); a new variable
  // inside a compound dimension gets its own line as soon as it is met, as in TVM's BufferAttrs.
  std::vector<std::string> lhs, rhs;
  auto visit = [&](const PrimExpr& e) {
    if (!e) return;
    if (e->kind() == NodeKind::PrimVar && !ctx.names.find(e.get())) {
      auto& v = static_cast<const PrimVar&>(*e);
      lhs.push_back(defineVar(v));
      rhs.push_back(varCreation(v));
      return;
    }
    declareFree({e});
  };
  for (auto& d : b.shape) visit(d);
  for (auto& d : b.strides) visit(d);
  visit(b.elemOffset);
  if (!lhs.empty()) ctx.line(lhs.size() == 1 ? lhs[0] + " = " + rhs[0] : join(lhs) + " = " + join(rhs));
  std::vector<std::string> args = leadArgs, shape;
  for (auto& d : b.shape) shape.push_back(expr(d));
  args.push_back(tupleText(shape));
  if (b.dtype != DataType::float32()) args.push_back("\"" + b.dtype.str() + "\"");
  if (!b.strides.empty()) {
    std::vector<std::string> st;
    for (auto& d : b.strides) st.push_back(expr(d));
    args.push_back("strides=" + tupleText(st));
  }
  if (b.elemOffset) {
    auto* i = asIntImm(b.elemOffset);
    if (!i || i->value != 0) args.push_back("elem_offset=" + expr(b.elemOffset));
  }
  if (b.scope != "global") args.push_back("scope=" + quoteString(b.scope));
  if (b.alignment != 64) args.push_back("align=" + std::to_string(b.alignment));
  if (b.offsetFactor != 1 || b.explicitOffsetFactor) args.push_back("offset_factor=" + std::to_string(b.offsetFactor));
  if (!b.axisSeparators.empty()) {
    std::vector<std::string> seps;
    for (auto a : b.axisSeparators) seps.push_back(std::to_string(a));
    args.push_back("axis_separators=[" + join(seps) + "]");
  }
  return "T." + method + "(" + join(args) + ")";
}

std::string TirPrinter::bufferAnnotation(const Buffer& b) {
  std::vector<std::string> shape;
  for (auto& d : b.shape) shape.push_back(expr(d));
  return "T.Buffer(" + tupleText(shape) + ", \"" + b.dtype.str() + "\")";
}

std::string TirPrinter::region(const BufferRegion& r) {
  std::string s = bufferName(*r.buffer) + "[";
  if (r.region.empty()) s += "()";
  for (size_t i = 0; i < r.region.size(); ++i) {
    if (i) s += ", ";
    auto& rg = r.region[i];
    s += expr(rg.min);
    if (!isOne(rg.extent)) s += ":" + expr(foldAdd(rg.min, rg.extent));
  }
  return s + "]";
}

std::string TirPrinter::indices(const std::vector<PrimExpr>& idx) {
  if (idx.empty()) return "()";
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i) s += ", ";
    auto ramp = idx[i].as<Ramp>();
    auto* stride = ramp ? asIntImm(ramp->stride) : nullptr;
    if (!stride) {
      s += expr(idx[i]);
      continue;
    }
    // A vector index prints as a slice base:base + lanes * stride (with :stride unless 1).
    PrimExpr stop = foldAdd(ramp->base, intImm(int64_t(ramp->lanes) * stride->value, ramp->stride->dtype));
    s += expr(ramp->base) + ":" + expr(stop);
    if (stride->value != 1) s += ":" + expr(ramp->stride);
  }
  return s;
}

std::string TirPrinter::attrValue(const Attr& a) {
  AttrLeaves leaves;
  leaves.prim = [this](const PrimExpr& p) { return expr(p); };
  return printAttrValue(ctx, a, leaves);
}

std::string TirPrinter::attrDict(const AttrsRef& a) {
  std::vector<std::string> items;
  if (a)
    for (auto& [k, v] : a->fields) items.push_back(quoteString(k) + ": " + attrValue(v));
  return "{" + join(items) + "}";
}

void TirPrinter::printFunction(const std::string& name) {
  auto gs = attrStr(func.attrs, "global_symbol");
  ctx.line(gs ? "@T.prim_func" : "@T.prim_func(private=True)");
  ctx.names.push();
  // Parameters: a buffer prints as `x: T.Buffer(...)` when it is simple and its handle is used
  // nowhere else; otherwise the handle is a parameter and the buffer a T.match_buffer line.
  std::unordered_set<const void*> handleUses;
  std::vector<PrimVarRef> used;
  forEachExpr(func.body, [&](const PrimExpr& e) { collectVars(e, used); });
  for (auto& [p, b] : func.bufferMap) forEachInBuffer(*b, [&](const PrimExpr& e) { collectVars(e, used); });
  for (auto& v : used) handleUses.insert(v.get());
  std::vector<std::string> paramDocs;
  std::vector<bool> inlined(func.params.size(), false);
  for (size_t i = 0; i < func.params.size(); ++i) {
    const PrimVarRef& p = func.params[i];
    const BufferRef* buf = func.bufferOf(p);
    if (buf && !handleUses.count(p.get()) && isSimpleBuffer(**buf)) {
      size_t sharing = 0;
      for (auto& [q, b] : func.bufferMap) sharing += b.get() == buf->get() || (b->data && b->data == (*buf)->data);
      if (sharing == 1) {
        paramDocs.push_back(defineBuffer(**buf) + ": " + bufferAnnotation(**buf));
        inlined[i] = true;
        continue;
      }
    }
    paramDocs.push_back(defineVar(*p) + ": " + typeAnnotation(p->dtype));
  }
  std::string ret = func.retType.isVoid() ? "" : " -> " + typeAnnotation(func.retType);
  ctx.line("def " + name + "(" + join(paramDocs) + ")" + ret + ":");
  ctx.indent++;
  if (func.attrs && !func.attrs->fields.empty()) {
    AttrsRef shown = func.attrs;
    if (gs && *gs == name) {
      auto copy = make<Attrs>();
      copy->typeKey = func.attrs->typeKey;
      for (auto& f : func.attrs->fields)
        if (f.first != "global_symbol") copy->fields.push_back(f);
      shown = copy;
    }
    if (!shown->fields.empty()) ctx.line("T.func_attr(" + attrDict(shown) + ")");
  }
  for (size_t i = 0; i < func.params.size(); ++i) {
    const BufferRef* buf = func.bufferOf(func.params[i]);
    if (!buf || inlined[i]) continue;
    std::string lhs = defineBuffer(**buf);
    std::string rhs = bufferDecl(**buf, "match_buffer", {*ctx.names.find(func.params[i].get())});
    ctx.line(lhs + " = " + rhs);
  }
  // The implicit root block prints as a comment; its allocations sit at function level.
  const TirBlock* root = nullptr;
  if (auto r = func.body.as<BlockRealize>()) {
    const TirBlock& b = *r->block;
    bool one = !r->predicate || isOne(r->predicate);
    if (r->iterValues.empty() && one && (!b.annotations || b.annotations->fields.empty()) && b.matchBuffers.empty() && b.reads.empty() && b.writes.empty() && !b.init) {
      auto inner = b.body.as<BlockRealize>();
      bool nested = false;
      if (inner) nested = !inner->block->iterVars.empty();
      else {
        std::function<bool(const Stmt&)> has = [&](const Stmt& s) -> bool {
          if (!s) return false;
          switch (s->kind()) {
            case NodeKind::BlockRealize: return true;
            case NodeKind::SeqStmt:
              for (auto& x : static_cast<const SeqStmt&>(*s).seq)
                if (has(x)) return true;
              return false;
            case NodeKind::For: return has(static_cast<const For&>(*s).body);
            case NodeKind::IfThenElse: return has(static_cast<const IfThenElse&>(*s).thenCase) || has(static_cast<const IfThenElse&>(*s).elseCase);
            case NodeKind::LetStmt: return has(static_cast<const LetStmt&>(*s).body);
            case NodeKind::AssertStmt: return has(static_cast<const AssertStmt&>(*s).body);
            case NodeKind::TirBlock: return has(static_cast<const TirBlock&>(*s).body) || has(static_cast<const TirBlock&>(*s).init);
            default: return false;
          }
        };
        nested = has(b.body);
      }
      if (!b.allocBuffers.empty() || nested) root = &b;
    }
  }
  if (root) {
    ctx.line("# with T.block(\"root\"):");
    for (auto& a : root->allocBuffers) {
      std::string lhs = defineBuffer(*a);
      ctx.line(lhs + " = " + bufferDecl(*a, "alloc_buffer", {}));
    }
    printBody(root->body);
  } else {
    printBody(func.body);
  }
  ctx.indent--;
  ctx.names.pop();
}

}  // namespace tirprint

void printPrimFunc(PrintContext& ctx, const PrimFunc& func, const std::string& name) {
  ctx.usedTIR = true;
  tirprint::TirPrinter p(ctx, func);
  p.printFunction(name);
}

}  // namespace rlx
