// Relax functions, bindings and struct info as TVM v0.23 prints them: prelude ordering, annotation
// rules, dataflow blocks with R.output, if/else with branch-final bindings, nested functions.
#include "ir/arith.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "printer/relax_printer.h"

namespace rlx {

std::string RelaxPrinter::declLine(const PrimVar& v) {
  ctx.usedTIR = true;
  std::string ctor = "T." + v.dtype.str() + (v.isSizeVar ? "(is_size_var=True)" : "()");
  // Declared in the prelude's scope even when first met inside a nested function, so two
  // distinct vars both named `n` become `n` and `n_1` there.
  const std::string* known = ctx.names.find(&v);
  std::string name = known ? *known : ctx.names.defineIn(preludeFrame, &v, v.name);
  return name + " = " + ctor;
}

// Hoists a declaration for every var of `e` not declared yet (vars first met in the body).
void RelaxPrinter::noteVars(const PrimExpr& e) {
  if (inSignature && sigVars.size()) return;
  std::vector<Ref<PrimVar>> vars;
  collectVars(e, vars);
  for (auto& v : vars) {
    if (declared.insert(v.get()).second && hoisted) hoisted->push_back(declLine(*v));
  }
}

void RelaxPrinter::noteSInfoVars(const StructInfo& s) {
  std::vector<Ref<PrimVar>> vars;
  sinfoCollectVars(s, vars);
  for (auto& v : vars)
    if (declared.insert(v.get()).second && hoisted) hoisted->push_back(declLine(*v));
}

std::string RelaxPrinter::shapeDim(const PrimExpr& e) {
  if (inSignature) {
    std::vector<Ref<PrimVar>> vars;
    collectVars(e, vars);
    bool quoted = false;
    for (auto& v : vars)
      if (sigVars.count(v.get())) quoted = true;
    std::string s = ctx.prim(e, PrimStyle::Relax);
    return quoted ? "\"" + s + "\"" : s;
  }
  noteVars(e);
  return ctx.prim(e, PrimStyle::Relax);
}

void RelaxPrinter::appendShapeDim(std::string& out, const PrimExpr& e) {
  // Outside a signature, the usual dims (a constant, a symbolic var) print without the general
  // PrimExpr printer: what shapeDim gives for them, without its temporaries.
  if (!inSignature && e->kind() == NodeKind::IntImm && !e->dtype.isBool()) {
    out += std::to_string(static_cast<const IntImm&>(*e).value);
    return;
  }
  if (!inSignature && e->kind() == NodeKind::PrimVar) {
    auto& v = static_cast<const PrimVar&>(*e);
    if (declared.insert(&v).second && hoisted) hoisted->push_back(declLine(v));
    if (auto* name = ctx.names.find(&v)) out += *name;
    else out += ctx.names.define(&v, v.name);
    return;
  }
  out += shapeDim(e);
}

std::string RelaxPrinter::sinfo(const StructInfo& s) {
  ctx.usedRelax = true;
  switch (s->kind()) {
    case NodeKind::ObjectSInfo: return "R.Object";
    case NodeKind::PrimSInfo: {
      auto& p = static_cast<const PrimSInfo&>(*s);
      if (p.value) return "R.Prim(value=" + shapeDim(p.value) + ")";
      return "R.Prim(\"" + p.dtype.str() + "\")";
    }
    case NodeKind::ShapeSInfo: {
      auto& p = static_cast<const ShapeSInfo&>(*s);
      if (!p.values) return "R.Shape(ndim=" + std::to_string(p.ndim) + ")";
      std::string out = "R.Shape([";
      for (size_t i = 0; i < p.values->size(); ++i) out += (i ? ", " : "") + shapeDim((*p.values)[i]);
      return out + "])";
    }
    case NodeKind::TensorSInfo: {
      // Written straight into one string: this runs for nearly every binding.
      auto& t = static_cast<const TensorSInfo&>(*s);
      std::string out = "R.Tensor(";
      bool any = false;
      auto sep = [&] {
        if (any) out += ", ";
        any = true;
      };
      if (auto* dims = t.dims()) {
        sep();
        out += '(';
        for (size_t i = 0; i < dims->size(); ++i) {
          if (i) out += ", ";
          appendShapeDim(out, (*dims)[i]);
        }
        if (dims->size() == 1) out += ',';
        out += ')';
      } else if (t.shape) {
        sep();
        out += expr(t.shape);
      }
      if (!t.dtype.isVoid()) {
        sep();
        out += "dtype=\"";
        out += t.dtype.str();
        out += '"';
      }
      if (!t.shape && t.ndim != -1) {
        sep();
        out += "ndim=" + std::to_string(t.ndim);
      }
      if (!t.vdevice.empty()) {
        sep();
        out += "vdevice=\"" + t.vdevice + "\"";
      }
      if (!any) return "R.Tensor";
      out += ')';
      return out;
    }
    case NodeKind::TupleSInfo: {
      auto& t = static_cast<const TupleSInfo&>(*s);
      if (t.fields.empty()) return "R.Tuple";
      std::string out = "R.Tuple(";
      for (size_t i = 0; i < t.fields.size(); ++i) out += (i ? ", " : "") + sinfo(t.fields[i]);
      return out + ")";
    }
    case NodeKind::FuncSInfo: {
      auto& f = static_cast<const FuncSInfo&>(*s);
      if (!f.params) {
        std::vector<std::string> parts;
        if (f.ret && f.ret->kind() != NodeKind::ObjectSInfo) parts.push_back("ret=" + sinfo(f.ret));
        if (f.isPure) parts.push_back("purity=True");
        if (parts.empty()) return "R.Callable";
        std::string out = "R.Callable(";
        for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
        return out + ")";
      }
      std::string out = "R.Callable((";
      for (size_t i = 0; i < f.params->size(); ++i) out += (i ? ", " : "") + sinfo((*f.params)[i]);
      if (f.params->size() == 1) out += ",";
      return out + "), " + sinfo(f.ret) + ", " + (f.isPure ? "True" : "False") + ")";
    }
    default: return "<?sinfo>";
  }
}

void RelaxPrinter::printFunction(const Function& f, const std::string& name, bool topLevel, bool isPrivate) {
  ctx.usedRelax = true;
  ctx.names.push();
  std::vector<std::string> localHoisted;
  auto* outerHoisted = hoisted;
  auto outerSigVars = sigVars;
  std::vector<std::string> sigDecls;
  if (topLevel) {
    hoisted = &localHoisted;
    preludeFrame = ctx.names.depth() - 1;
    declared.clear();
    clsPrinted = false;
    sigVars.clear();
    // Return type is visited before params (TVM's order of declaration).
    std::vector<Ref<PrimVar>> vars;
    sinfoCollectVars(f.retSInfo, vars);
    for (auto& p : f.params) sinfoCollectVars(p->sinfo, vars);
    for (auto& v : vars) {
      if (!declared.insert(v.get()).second) continue;
      sigVars.insert(v.get());
      sigDecls.push_back(declLine(*v));
    }
  } else {
    // A nested function's signature vars print bare; their decls go to the outer prelude.
    sigVars.clear();
    noteSInfoVars(f.retSInfo);
    for (auto& p : f.params) noteSInfoVars(p->sinfo);
  }

  std::string deco = "@R.function";
  if (!f.isPure && isPrivate) deco += "(pure=False, private=True)";
  else if (!f.isPure) deco += "(pure=False)";
  else if (isPrivate) deco += "(private=True)";
  ctx.line(deco);

  inSignature = topLevel;
  std::string sig = "def " + name + "(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    auto& p = f.params[i];
    std::string pname = ctx.names.define(p.get(), p->name);
    sig += (i ? ", " : "") + pname + ": " + sinfo(p->sinfo);
  }
  sig += ") -> " + sinfo(f.retSInfo) + ":";
  inSignature = false;
  ctx.line(sig);
  ctx.indent++;
  for (auto& d : sigDecls) ctx.line(d);
  if (f.attrs && !f.attrs->fields.empty()) {
    std::string attrs;
    for (auto& [k, v] : f.attrs->fields) {
      if (k == "global_symbol" && v && v->kind == AttrValue::Str && v->s == name && topLevel) continue;
      attrs += (attrs.empty() ? "" : ", ") + quoteString(k) + ": " + attrValue(v);
    }
    if (!attrs.empty()) ctx.line("R.func_attr({" + attrs + "})");
  }
  // The body prints into a side buffer so the hoisted prelude can go first.
  std::string saved = std::move(ctx.out);
  ctx.out.clear();
  auto seq = f.body.as<SeqExpr>();
  if (seq) printSeqBody(*seq);
  else ctx.line("return " + expr(f.body));
  std::string body = std::move(ctx.out);
  ctx.out = std::move(saved);
  if (topLevel)
    for (auto& h : localHoisted) ctx.line(h);
  ctx.out += body;
  ctx.indent--;
  ctx.names.pop();
  hoisted = outerHoisted;
  sigVars = outerSigVars;
}

// Blocks of a sequence (function bodies and if branches alike): dataflow blocks print as
// `with R.dataflow():` with their R.output, as TVM prints them.
void RelaxPrinter::printBlocks(const SeqExpr& seq) {
  for (auto& block : seq.blocks) {
    if (block->isDataflow()) {
      ctx.line("with R.dataflow():");
      ctx.indent++;
      std::string outputs;
      for (auto& b : block->bindings) {
        printBinding(*b);
        if (!b->var->isDataflow()) outputs += (outputs.empty() ? "" : ", ") + ctx.nameFor(b->var.get(), b->var->name);
      }
      ctx.line("R.output(" + outputs + ")");
      ctx.indent--;
    } else {
      for (auto& b : block->bindings) printBinding(*b);
    }
  }
}

void RelaxPrinter::printSeqBody(const SeqExpr& seq) {
  printBlocks(seq);
  std::string ret = expr(seq.body);
  ctx.line("return " + ret);
}

void RelaxPrinter::printBinding(const Binding& b) {
  const Expr& value = b.value;
  if (!b.isMatchCast()) {
    if (auto fn = value.as<Function>()) {
      // Nested function: printed into a side buffer first, since its header lists every prefix
      // used so far including its own.
      std::string name = ctx.names.define(b.var.get(), b.var->name);
      std::string saved = std::move(ctx.out);
      ctx.out.clear();
      printFunction(*fn, name, false, false);
      std::string text = std::move(ctx.out);
      ctx.out = std::move(saved);
      for (auto& h : ctx.headerLines()) ctx.line(h);
      ctx.line("");
      ctx.out += text;
      ctx.emptyLine();
      return;
    }
    if (auto node = value.as<If>()) {
      printIf(b, *node);
      return;
    }
    // A void value (R.print, an empty tuple) prints as a statement, and its var, wherever used,
    // as R.tuple() (TVM's printer).
    if (isVoidSInfo(sinfoOf(b.var)) && isVoidSInfo(sinfoOf(value))) {
      ctx.line(expr(value));
      voidVars.insert(b.var.get());
      return;
    }
  }
  std::string rhs;
  bool annotate = true;
  if (b.isMatchCast()) {
    rhs = "R.match_cast(" + expr(value) + ", " + sinfo(b.castSInfo) + ")";
  } else if (value->kind() == NodeKind::Tuple && static_cast<const Tuple&>(*value).fields.size() > 1) {
    // A tuple on the right of an assignment prints without its outer parentheses (not a 1-tuple).
    auto& t = static_cast<const Tuple&>(*value);
    for (size_t i = 0; i < t.fields.size(); ++i) rhs += (i ? ", " : "") + expr(t.fields[i]);
  } else {
    rhs = expr(value);
    if (auto call = value.as<Call>()) {
      const std::string& op = call->opName();
      if ((op == "relax.call_tir" || op == "relax.call_dps_packed") && call->sinfoArgs.size() == 1 && b.var->sinfo && sinfoEqual(b.var->sinfo, call->sinfoArgs[0]))
        annotate = false;
    }
  }
  std::string ann = annotate ? sinfo(sinfoOf(b.var)) : std::string();
  const std::string& name = ctx.names.define(b.var.get(), b.var->name);
  if (annotate) ctx.line({name, ": ", ann, " = ", rhs});
  else ctx.line({name, " = ", rhs});
}

void RelaxPrinter::printIf(const Binding& b, const If& node) {
  std::string cond = expr(node.cond);
  std::string ann = sinfo(sinfoOf(b.var));
  // The if-var is visible after the if; define it first so branch-local names dedupe against it.
  std::string name = ctx.names.define(b.var.get(), b.var->name);
  auto branch = [&](const Expr& e) {
    ctx.indent++;
    ctx.names.push();
    Expr result = e;
    if (auto seq = e.as<SeqExpr>()) {
      printBlocks(*seq);
      result = seq->body;
    }
    ctx.line(name + ": " + ann + " = " + expr(result));
    ctx.names.pop();
    ctx.indent--;
  };
  ctx.line("if " + cond + ":");
  branch(node.thenBranch);
  ctx.line("else:");
  branch(node.elseBranch);
}

}  // namespace rlx
