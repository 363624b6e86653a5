// TIR printer, statement level: loops (T.grid chains, kinds), blocks (remap rule, where, regions,
// init), stores, lets (concise `v: T.int32 = e` form), if/else, asserts and evaluations.
#include <unordered_set>

#include "ir/arith.h"
#include "printer/print_tir_internal.h"

namespace rlx::tirprint {
namespace {

bool isZero(const PrimExpr& e) {
  auto* i = asIntImm(e);
  return i && i->value == 0;
}

bool isOne(const PrimExpr& e) {
  auto* i = asIntImm(e);
  return i && i->value == 1;
}

bool usesAny(const PrimExpr& e, const std::unordered_set<const PrimVar*>& vars) {
  std::vector<PrimVarRef> used;
  collectVars(e, used);
  for (auto& v : used)
    if (vars.count(v.get())) return true;
  return false;
}

}  // namespace

void TirPrinter::printBody(const Stmt& s) {
  // Only the last statement of a body may use the concise (un-nested) let/assert form.
  if (auto seq = s.as<SeqStmt>()) {
    for (size_t i = 0; i < seq->seq.size(); ++i) printStmt(seq->seq[i], i + 1 == seq->seq.size());
    return;
  }
  printStmt(s, true);
}

void TirPrinter::printStmt(const Stmt& s, bool concise) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::SeqStmt: printBody(s); return;
    case NodeKind::BufferStore: {
      auto& st = static_cast<const BufferStore&>(*s);
      std::vector<PrimExpr> exprs = st.indices;
      exprs.push_back(st.value);
      declareFree(exprs);
      ctx.line(bufferName(*st.buffer) + "[" + indices(st.indices) + "] = " + expr(st.value));
      return;
    }
    case NodeKind::Evaluate: {
      auto& ev = static_cast<const Evaluate&>(*s);
      declareFree({ev.value});
      // An evaluated call prints bare, T.ret(x) as Python's `return x` (TVM's); anything else
      // through T.evaluate.
      auto* call = ev.value->kind() == NodeKind::PrimCall ? static_cast<const PrimCall*>(ev.value.get()) : nullptr;
      if (call && call->op == "tir.ret" && call->args.size() == 1) ctx.line("return " + expr(call->args[0]));
      else if (call) ctx.line(expr(ev.value));
      else ctx.line("T.evaluate(" + expr(ev.value) + ")");
      return;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      declareFree({l.value});
      std::string rhs = expr(l.value);
      bool defined = ctx.names.find(l.var.get()) != nullptr;
      ctx.names.push();
      if (defined) {
        ctx.line("with T.LetStmt(" + rhs + ", var=" + expr(l.var) + "):");
        ctx.indent++;
        printBody(l.body);
        ctx.indent--;
      } else {
        std::string name = defineVar(*l.var);
        if (concise) {
          ctx.line(name + ": " + typeAnnotation(l.var->dtype) + " = " + rhs);
          printBody(l.body);
        } else {
          ctx.line("with T.LetStmt(" + rhs + ") as " + name + ":");
          ctx.indent++;
          printBody(l.body);
          ctx.indent--;
        }
      }
      ctx.names.pop();
      return;
    }
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      declareFree({a.cond, a.message});
      std::string cond = expr(a.cond), msg = expr(a.message);
      ctx.names.push();
      if (concise) {
        ctx.line("assert " + cond + ", " + msg);
        printBody(a.body);
      } else {
        ctx.line("with T.Assert(" + cond + ", " + msg + "):");
        ctx.indent++;
        printBody(a.body);
        ctx.indent--;
      }
      ctx.names.pop();
      return;
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      declareFree({i.cond});
      ctx.line("if " + expr(i.cond) + ":");
      ctx.indent++;
      ctx.names.push();
      printBody(i.thenCase);
      ctx.names.pop();
      ctx.indent--;
      if (i.elseCase) {
        ctx.line("else:");
        ctx.indent++;
        ctx.names.push();
        printBody(i.elseCase);
        ctx.names.pop();
        ctx.indent--;
      }
      return;
    }
    case NodeKind::For: printFor(static_cast<const For&>(*s)); return;
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      printBlock(*r.block, &r);
      return;
    }
    case NodeKind::TirBlock: printBlock(static_cast<const TirBlock&>(*s), nullptr); return;
    default: ctx.line("# <unsupported TIR statement>"); return;
  }
}

void TirPrinter::printFor(const For& loop) {
  // A chain of directly nested plain serial loops (min 0, no annotations, extents not using an
  // earlier loop of the chain) prints as one T.grid.
  std::vector<const For*> grid;
  std::unordered_set<const PrimVar*> gridVars;
  for (const For* l = &loop; l; l = l->body ? l->body.as<For>().get() : nullptr) {
    if (l->loopKind != For::Serial || !isZero(l->min) || (l->annotations && !l->annotations->fields.empty()) || usesAny(l->extent, gridVars)) break;
    grid.push_back(l);
    gridVars.insert(l->loopVar.get());
  }
  if (grid.size() > 1) {
    std::vector<PrimExpr> extents;
    for (auto* l : grid) extents.push_back(l->extent);
    declareFree(extents);
    ctx.names.push();
    std::string lhs, rhs;
    for (size_t i = 0; i < grid.size(); ++i) {
      if (i) {
        lhs += ", ";
        rhs += ", ";
      }
      lhs += defineVar(*grid[i]->loopVar);
      rhs += expr(grid[i]->extent);
    }
    ctx.line("for " + lhs + " in T.grid(" + rhs + "):");
    for (auto* l : grid) loops.push_back(l);
    ctx.indent++;
    printBody(grid.back()->body);
    ctx.indent--;
    loops.resize(loops.size() - grid.size());
    ctx.names.pop();
    return;
  }
  declareFree({loop.min, loop.extent});
  ctx.names.push();
  std::string var = defineVar(*loop.loopVar);
  std::vector<std::string> args;
  if (isZero(loop.min)) {
    args.push_back(expr(loop.extent));
  } else {
    args.push_back(expr(loop.min));
    args.push_back(expr(foldAdd(loop.min, loop.extent)));
  }
  bool annotated = loop.annotations && !loop.annotations->fields.empty();
  std::string prefix;
  switch (loop.loopKind) {
    case For::Serial: prefix = annotated ? "T.serial" : "range"; break;
    case For::Parallel: prefix = "T.parallel"; break;
    case For::Vectorized: prefix = "T.vectorized"; break;
    case For::Unrolled: prefix = "T.unroll"; break;
    case For::ThreadBinding:
      prefix = "T.thread_binding";
      args.push_back("thread=" + quoteString(loop.threadTag));
      break;
  }
  if (annotated) args.push_back("annotations=" + attrDict(loop.annotations));
  std::string call = prefix + "(";
  for (size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + args[i];
  ctx.line("for " + var + " in " + call + "):");
  loops.push_back(&loop);
  ctx.indent++;
  printBody(loop.body);
  ctx.indent--;
  loops.pop_back();
  ctx.names.pop();
}

void TirPrinter::printBlock(const TirBlock& b, const BlockRealize* r) {
  if (r) {
    std::vector<PrimExpr> exprs = r->iterValues;
    if (r->predicate) exprs.push_back(r->predicate);
    declareFree(exprs);
  }
  ctx.line("with T.block(" + quoteString(b.name) + (r ? "" : ", no_realize=True") + "):");
  ctx.indent++;
  ctx.names.push();
  // Iteration variables: runs of >= 2 consecutive variables bound to enclosing loop variables
  // with the loop's domain print as one T.axis.remap; everything else as T.axis.<kind>.
  auto remappable = [&](size_t i) {
    if (!r || i >= r->iterValues.size()) return false;
    const IterVar& iv = b.iterVars[i];
    if (iv.kind != IterVar::DataPar && iv.kind != IterVar::CommReduce) return false;
    const PrimExpr& v = r->iterValues[i];
    if (v->kind() != NodeKind::PrimVar) return false;
    for (auto* l : loops)
      if (l->loopVar.get() == v.get()) return exprDeepEqual(l->min, iv.dom.min) && exprDeepEqual(l->extent, iv.dom.extent);
    return false;
  };
  auto single = [&](size_t i) {
    const IterVar& iv = b.iterVars[i];
    static const char* kinds[] = {"spatial", "?", "reduce", "scan", "opaque"};
    std::string dom = isZero(iv.dom.min) ? expr(iv.dom.extent) : "(" + expr(iv.dom.min) + ", " + expr(foldAdd(iv.dom.min, iv.dom.extent)) + ")";
    std::string rhs = "T.axis." + std::string(kinds[iv.kind]) + "(" + dom;
    if (r && i < r->iterValues.size()) rhs += ", " + expr(r->iterValues[i]);
    rhs += ")";
    ctx.line(defineVar(*iv.var) + " = " + rhs);
  };
  std::vector<size_t> run;
  auto flush = [&]() {
    if (run.size() == 1) single(run[0]);
    if (run.size() > 1) {
      std::string lhs, kinds, vals;
      for (size_t k = 0; k < run.size(); ++k) {
        if (k) {
          lhs += ", ";
          vals += ", ";
        }
        lhs += defineVar(*b.iterVars[run[k]].var);
        vals += expr(r->iterValues[run[k]]);
        kinds += b.iterVars[run[k]].kind == IterVar::DataPar ? "S" : "R";
      }
      ctx.line(lhs + " = T.axis.remap(\"" + kinds + "\", [" + vals + "])");
    }
    run.clear();
  };
  for (size_t i = 0; i < b.iterVars.size(); ++i) {
    if (remappable(i)) {
      run.push_back(i);
      continue;
    }
    flush();
    single(i);
  }
  flush();
  if (r && r->predicate && !isOne(r->predicate)) ctx.line("T.where(" + expr(r->predicate) + ")");
  std::string reads, writes;
  for (size_t i = 0; i < b.reads.size(); ++i) reads += (i ? ", " : "") + region(b.reads[i]);
  for (size_t i = 0; i < b.writes.size(); ++i) writes += (i ? ", " : "") + region(b.writes[i]);
  ctx.line("T.reads(" + reads + ")");
  ctx.line("T.writes(" + writes + ")");
  if (b.annotations && !b.annotations->fields.empty()) ctx.line("T.block_attr(" + attrDict(b.annotations) + ")");
  for (auto& a : b.allocBuffers) {
    std::string lhs = defineBuffer(*a);
    ctx.line(lhs + " = " + bufferDecl(*a, "alloc_buffer", {}));
  }
  for (auto& m : b.matchBuffers) {
    std::string lhs = defineBuffer(*m.buffer);
    std::string src = region(m.source);
    ctx.line(lhs + " = " + bufferDecl(*m.buffer, "match_buffer", {src}));
  }
  if (b.init) {
    ctx.line("with T.init():");
    ctx.indent++;
    ctx.names.push();
    printBody(b.init);
    ctx.names.pop();
    ctx.indent--;
  }
  printBody(b.body);
  ctx.names.pop();
  ctx.indent--;
}

}  // namespace rlx::tirprint
