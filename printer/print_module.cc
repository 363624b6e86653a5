// Module-level printing: header comments, `@I.ir_module class Module:`, module attrs, functions in
// TVM's order (PrimFunc < ExternFunc < Relax < main), and the public printer entry points.
#include <algorithm>

#include "printer/relax_printer.h"

namespace rlx {
namespace {

int functionPriority(const IRModule::Entry& e) {
  if (e.gvar->name == "main") return 1000;
  switch (e.func->kind()) {
    case NodeKind::PrimFunc: return 1;
    case NodeKind::ExternFunc: return 2;
    default: return 3;
  }
}

bool hasGlobalSymbol(const AttrsRef& attrs) { return attrs && attrs->find("global_symbol"); }

// The printed text: the header comments for the prefixes used, then the body, trailing whitespace
// trimmed to exactly one newline. Done in place in the body's buffer: a large module's text is
// megabytes, and each copy of it would be fresh pages to fault in.
std::string finish(PrintContext& ctx) {
  std::string header;
  auto lines = ctx.headerLines();
  for (auto& l : lines) header += l + "\n";
  if (!lines.empty()) header += "\n";
  std::string text = std::move(ctx.out);
  text.insert(0, header);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  text += '\n';
  if (!ctx.omittedConstants.empty()) text += "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n";
  return text;
}

void printEntry(PrintContext& ctx, RelaxPrinter& rp, const IRModule::Entry& e) {
  const std::string& name = e.gvar->name;
  if (auto f = e.func.as<Function>()) {
    rp.printFunction(*f, name, true, !hasGlobalSymbol(f->attrs));
    ctx.emptyLine();
  } else if (auto pf = e.func.as<PrimFunc>()) {
    ctx.names.push();
    printPrimFunc(ctx, *pf, name);
    ctx.names.pop();
    ctx.emptyLine();
  } else if (auto ext = e.func.as<ExternFunc>()) {
    ctx.usedRelax = true;
    ctx.line(name + " = R.ExternFunc(" + quoteString(ext->symbol) + ")");
  }
}

}  // namespace

std::string printModule(const IRModuleRef& mod, const PrintOptions& opts) {
  PrintContext ctx(opts);
  ctx.insideModule = true;
  for (auto* reserved : {"R", "T", "I", "cls", "Module"}) ctx.names.reserve(reserved);
  RelaxPrinter rp(ctx);
  ctx.line("@I.ir_module");
  ctx.line("class Module:");
  ctx.indent++;
  if (mod->attrs && !mod->attrs->fields.empty()) {
    ctx.usedIR = true;
    std::string attrs;
    for (auto& [k, v] : mod->attrs->fields) attrs += (attrs.empty() ? "" : ", ") + quoteString(k) + ": " + rp.attrValue(v);
    ctx.line("I.module_attrs({" + attrs + "})");
  }
  if (mod->globalInfos && !mod->globalInfos->fields.empty()) {
    ctx.usedIR = true;
    std::string infos;
    for (auto& [k, v] : mod->globalInfos->fields) infos += (infos.empty() ? "" : ", ") + quoteString(k) + ": " + rp.attrValue(v);
    ctx.line("I.module_global_infos({" + infos + "})");
  }
  std::vector<const IRModule::Entry*> order;
  for (auto& e : mod->functions) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    int pa = functionPriority(*a), pb = functionPriority(*b);
    return pa != pb ? pa < pb : a->gvar->name < b->gvar->name;
  });
  size_t bodyStart = ctx.out.size();
  for (auto* e : order) printEntry(ctx, rp, *e);
  if (ctx.out.size() == bodyStart && !(mod->attrs && !mod->attrs->fields.empty())) ctx.line("pass");  // an empty class body
  ctx.usedIR = true;
  std::string text = finish(ctx);
  if (opts.metadataOut && !opts.metadataOut->empty())
    text += "\n# Metadata constants are stored in the .safetensors file next to this one.\n";
  return text;
}

std::string printFunction(const Expr& func, const std::string& name, const PrintOptions& opts) {
  PrintContext ctx(opts);
  for (auto* reserved : {"R", "T", "I", "cls"}) ctx.names.reserve(reserved);
  RelaxPrinter rp(ctx);
  // A function outside a module is named by its global_symbol, else `name`, else "main" (TVM's).
  auto printedName = [&](const AttrsRef& attrs) {
    auto* sym = attrs ? attrs->find("global_symbol") : nullptr;
    return sym && *sym && (*sym)->kind == AttrValue::Str ? (*sym)->s : (name.empty() ? "main" : name);
  };
  if (auto f = func.as<Function>()) {
    rp.printFunction(*f, printedName(f->attrs), true, !(f->attrs && f->attrs->find("global_symbol")));
  } else if (auto pf = func.as<PrimFunc>()) {
    printPrimFunc(ctx, *pf, printedName(pf->attrs));
  } else {
    return rp.expr(func) + "\n";
  }
  return finish(ctx);
}

std::string printExpr(const Expr& e) {
  PrintOptions opts;
  PrintContext ctx(opts);
  RelaxPrinter rp(ctx);
  return rp.expr(e);
}

std::string printStructInfo(const StructInfo& s) {
  PrintOptions opts;
  PrintContext ctx(opts);
  RelaxPrinter rp(ctx);
  return rp.sinfo(s);
}

std::string printPrimExpr(const PrimExpr& e) {
  PrintOptions opts;
  PrintContext ctx(opts);
  return ctx.prim(e, PrimStyle::Relax);
}

}  // namespace rlx
