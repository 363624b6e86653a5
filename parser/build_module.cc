// Module-level parsing: `@I.ir_module class ...` (or a lone function), module attrs, ExternFuncs,
// and the two-phase build (every GlobalVar gets its signature first, so functions can recurse).
#include <fstream>
#include <iostream>
#include <sstream>

#include "parser/build_tir.h"
#include "parser/parser.h"
#include "parser/relax_builder.h"
#include "parser/syntax.h"

namespace rlx {

using AK = ast::Expr::Kind;
using SK = ast::Stmt::Kind;

namespace {

struct FuncDecl {
  const ast::Stmt* def;
  enum Kind { Relax, Prim } kind;
  bool pure = true;
  bool isPrivate = false;
};

// The dtype of a `-> T.int64` PrimFunc return annotation, or nullopt.
std::optional<DataType> scalarAnnotation(const std::string& dotted) {
  if (dotted.rfind("T.", 0) != 0) return std::nullopt;
  auto t = DataType::parse(dotted.substr(2));
  return t && !t->isVoid() ? t : std::nullopt;
}

// Reads the decorator of a module function; an Error for anything unknown.
Result<FuncDecl> classifyDef(const ast::Stmt* def) {
  FuncDecl d{def, FuncDecl::Relax};
  if (def->decorators.empty()) return Error("function '" + def->name + "' needs a decorator (@R.function or @T.prim_func)", def->span);
  bool found = false;
  for (auto* dec : def->decorators) {
    const ast::Expr* callee = dec->kind == AK::Call ? dec->a : dec;
    std::string name = callee->dottedName();
    if (name == "R.function") d.kind = FuncDecl::Relax;
    else if (name == "T.prim_func") d.kind = FuncDecl::Prim;
    else return Error("unknown decorator '@" + name + "'", dec->span, "use @R.function or @T.prim_func");
    found = true;
    if (dec->kind == AK::Call)
      for (auto* a : dec->items) {
        if (a->kind != AK::Keyword || a->a->kind != AK::Bool) return Error("decorator options are keyword booleans, e.g. private=True", a->span);
        if (a->str == "pure") d.pure = a->a->b;
        else if (a->str == "private") d.isPrivate = a->a->b;
        else if (a->str == "check_well_formed") {
        } else {
          return Error("unknown decorator option '" + a->str + "'", a->span);
        }
      }
  }
  if (!found) return Error("function '" + def->name + "' needs a decorator", def->span);
  return d;
}

bool isModuleDecorator(const ast::Expr* dec) {
  const ast::Expr* callee = dec->kind == AK::Call ? dec->a : dec;
  std::string n = callee->dottedName();
  return n == "I.ir_module" || n == "tvm.script.ir_module" || n == "ir_module";
}

}  // namespace

class ModuleParser {
 public:
  ModuleParser(DiagnosticEngine& diag) : diag_(diag) {}

  IRModuleRef build(const std::vector<ast::Stmt*>& top, std::vector<NDArrayRef>* metadata, const std::string& metadataError, syntax::Reader& reader) {
    const ast::Stmt* cls = nullptr;
    std::vector<const ast::Stmt*> loose;
    for (auto* s : top) {
      if (s->kind == SK::ClassDef) {
        if (cls) {
          diag_.error(Error("only one module class per file", s->span));
          continue;
        }
        bool ok = false;
        for (auto* d : s->decorators) ok |= isModuleDecorator(d);
        if (!ok) diag_.error(Error("the module class needs the @I.ir_module decorator", s->span));
        // TVMScript evaluates base classes as Python names; from text none is defined
        // (`class M(BasePyModule)` needs the Python module that defines it).
        if (s->value) {
          std::string base = s->value->dottedName();
          diag_.error(Error("name '" + (base.empty() ? std::string("...") : base) + "' is not defined: a module class read from text takes no base class", s->value->span));
        }
        cls = s;
      } else if (s->kind == SK::FunctionDef) {
        loose.push_back(s);
      } else if (s->kind == SK::ExprStmt && s->value->kind == AK::Str) {
        // module docstring
      } else if (s->kind == SK::Assign && s->target->kind == AK::Name && s->target->str == "metadata") {
        // show_meta=True JSON: constants come from the sidecar instead
      } else {
        diag_.error(Error("expected `@I.ir_module class Module:` or a decorated function at top level", s->span));
      }
    }
    if (cls && !loose.empty()) diag_.error(Error("functions outside the module class are not allowed next to it", loose[0]->span));
    std::string className = cls ? cls->name : "Module";
    RelaxBuilder rb(diag_, className);
    rb.metadata = metadata;
    rb.metadataError = metadataError;
    rb.reader = &reader;
    auto mod = make<IRModule>();
    std::vector<FuncDecl> decls;
    std::vector<std::pair<std::string, std::string>> externs;
    const std::vector<ast::Stmt*> empty;
    const auto& body = cls ? cls->body : empty;
    std::vector<const ast::Stmt*> members(body.begin(), body.end());
    if (!cls) members = loose;
    for (auto* s : members) {
      if (s->kind == SK::FunctionDef) {
        auto d = classifyDef(s);
        if (!d.ok()) {
          diag_.error(std::move(d.error()));
          continue;
        }
        decls.push_back(d.value());
      } else if (s->kind == SK::ExprStmt && s->value->kind == AK::Call) {
        std::string callee = s->value->a->dottedName();
        if (callee == "I.module_attrs" && s->value->items.size() == 1) {
          auto a = rb.evalDictAttrs(s->value->items[0]);
          if (!a.ok()) diag_.error(std::move(a.error()));
          else mod->attrs = a.value();
        } else if (callee == "I.module_global_infos" && s->value->items.size() == 1) {
          auto a = rb.evalDictAttrs(s->value->items[0]);
          if (!a.ok()) diag_.error(std::move(a.error()));
          else {
            mod->globalInfos = a.value();
            rb.setVDevices(mod->globalInfos);
          }
        } else {
          diag_.error(Error("unexpected statement in the module class", s->span));
        }
      } else if (s->kind == SK::Assign && s->target->kind == AK::Name && s->value && s->value->kind == AK::Call &&
                 s->value->a->dottedName() == "R.ExternFunc" && !s->value->items.empty() && s->value->items[0]->kind == AK::Str) {
        externs.emplace_back(s->target->str, s->value->items[0]->str);
      } else if (s->kind == SK::Pass || (s->kind == SK::ExprStmt && s->value->kind == AK::Str)) {
      } else {
        diag_.error(Error("unexpected statement in the module class (expected functions, I.module_attrs or R.ExternFunc)", s->span));
      }
    }
    // Phase 1: every function gets a GlobalVar carrying its signature.
    for (auto& d : decls) {
      if (rb.globals.count(d.def->name)) {
        diag_.error(Error("function '" + d.def->name + "' is defined twice", d.def->span));
        continue;
      }
      auto gv = make<GlobalVar>(d.def->name);
      if (d.kind == FuncDecl::Relax) {
        auto s = rb.signatureSInfo(d.def, d.pure);
        if (!s.ok()) {
          diag_.error(std::move(s.error()));
          continue;
        }
        gv->sinfo = s.value();
      } else if (auto ret = d.def->returns ? scalarAnnotation(d.def->returns->dottedName()) : std::nullopt) {
        // A host function returning a scalar (`-> T.int64`): calls of it are pure values of that dtype.
        gv->sinfo = make<FuncSInfo>(std::nullopt, make<PrimSInfo>(*ret), true);
      } else {
        gv->sinfo = primFuncSInfo();
      }
      rb.globals[d.def->name] = gv;
    }
    for (auto& [name, sym] : externs) {
      auto gv = make<GlobalVar>(name);
      gv->sinfo = make<FuncSInfo>(std::nullopt, objectSInfo(), false);
      auto f = make<ExternFunc>(sym);
      f->sinfo = gv->sinfo;
      mod->functions.push_back({gv, f});
      // A module-level ExternFunc is not reachable as cls.name (TVM's rule), so it is not a global.
    }
    // Phase 2: bodies.
    for (auto& d : decls) {
      auto it = rb.globals.find(d.def->name);
      if (it == rb.globals.end()) continue;
      Expr func;
      if (d.kind == FuncDecl::Relax) {
        func = rb.buildFunction(d.def, d.pure, d.isPrivate, d.def->name);
        if (func) {
          // The GlobalVar's struct info follows the refined return type.
          if (!func->sinfo) {
            auto& f = static_cast<Function&>(*func);
            std::vector<StructInfo> ps;
            for (auto& p : f.params) ps.push_back(p->sinfo);
            func->sinfo = make<FuncSInfo>(std::move(ps), f.retSInfo, f.isPure);
          }
          // As TVM's def_function: functions built after this one see its refined return type
          // (an unannotated `-> ` becomes what the body returns).
          it->second->sinfo = func->sinfo;
        }
      } else {
        func = buildPrimFunc({d.def, d.isPrivate, d.def->name}, diag_);
      }
      if (func) mod->functions.push_back({it->second, func});
    }
    return mod;
  }

 private:
  DiagnosticEngine& diag_;
};

namespace safetensors {
Result<std::vector<NDArrayRef>> readConstants(const std::string& path);
}

IRModuleRef parseModule(const std::string& text, const std::string& sourceName, DiagnosticEngine& diag, const ParseOptions& opts) {
  uint32_t file = sources::add(sourceName, text);
  ast::Arena arena;
  size_t before = diag.errors().size();
  // Dataflow blocks of Relax functions are read as they are built (see syntax::Reader).
  syntax::DeferRule rule;
  rule.inDef = [](const ast::Stmt& def) {
    for (auto* d : def.decorators)
      if ((d->kind == AK::Call ? d->a : d)->dottedName() == "R.function") return true;
    return false;
  };
  rule.with = [](const ast::Stmt& with) { return with.value && with.value->kind == AK::Call && with.value->a->dottedName() == "R.dataflow"; };
  syntax::Reader reader(text, file, arena, opts.maxDepth, rule);
  auto top = reader.parseTop();
  // Metadata constants live in the sidecar FILE.safetensors (see printer).
  std::vector<NDArrayRef> metadata;
  std::vector<NDArrayRef>* metaPtr = nullptr;
  std::string metaError;
  if (text.find("metadata[\"relax.expr.Constant\"]") != std::string::npos) {
    std::string sidecar = opts.sidecarPath;
    if (sidecar.empty()) {
      std::string base = sourceName;
      if (base.size() > 6 && base.compare(base.size() - 6, 6, ".relax") == 0) base.resize(base.size() - 6);
      sidecar = base + ".safetensors";
    }
    auto r = safetensors::readConstants(sidecar);
    if (r.ok()) {
      metadata = std::move(r.value());
      metaPtr = &metadata;
    } else {
      metaError = "its sidecar '" + sidecar + "' could not be read: " + r.error().message;
    }
  }
  ModuleParser mp(diag);
  auto mod = mp.build(top, metaPtr, metaError, reader);
  // Syntax errors come before the builder's, as when the whole file was parsed first.
  DiagnosticEngine syntaxDiag;
  reader.finish(syntaxDiag);
  if (syntaxDiag.hasErrors()) {
    std::vector<Error> all = diag.errors();
    diag.clear();
    for (size_t i = 0; i < before; ++i) diag.error(std::move(all[i]));
    for (auto& e : syntaxDiag.errors()) diag.error(e);
    for (size_t i = before; i < all.size(); ++i) diag.error(std::move(all[i]));
  }
  if (opts.loneFunction) {
    size_t defs = 0, classes = 0;
    for (auto* s : top) {
      defs += s->kind == ast::Stmt::FunctionDef;
      classes += s->kind == ast::Stmt::ClassDef;
    }
    *opts.loneFunction = classes == 0 && defs == 1;
  }
  if (diag.errors().size() != before) return nullptr;
  // A file without any module or function is most likely the wrong file (TVM refuses it too).
  bool any = false;
  for (auto* st : top) any = any || st->kind == ast::Stmt::FunctionDef || st->kind == ast::Stmt::ClassDef;
  if (!any) {
    diag.error(Error("no module or function found (expected an @I.ir_module class or an @R.function / @T.prim_func def)", sources::spanAt(file, 0, 0)));
    return nullptr;
  }
  return mod;
}

IRModuleRef parseFile(const std::string& path, DiagnosticEngine& diag, const ParseOptions& opts) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return parseModule(ss.str(), "<stdin>", diag, opts);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diag.error(Error("cannot open '" + path + "': " + std::strerror(errno)));
    return nullptr;
  }
  ss << in.rdbuf();
  return parseModule(ss.str(), path, diag, opts);
}

}  // namespace rlx
