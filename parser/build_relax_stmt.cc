// Relax function bodies from syntax trees: signatures (string dims define symbolic vars), bindings,
// match_cast, dataflow blocks with R.output, if/else with the _then/_else rewrite, nested functions.
#include <algorithm>
#include <functional>

#include "ir/expr_walk.h"
#include "ir/struct_info.h"
#include "parser/relax_builder.h"
#include "parser/syntax.h"

namespace rlx {

using AK = ast::Expr::Kind;
using SK = ast::Stmt::Kind;

namespace {

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_')) return false;
  return true;
}

// Finds the string dims of a struct-info annotation: R.Tensor shapes, R.Shape values, R.Prim value.
void collectStringDims(const ast::Expr* e, std::vector<const ast::Expr*>& out) {
  if (!e || e->kind != AK::Call) return;
  std::string name = e->a->dottedName();
  auto dimsOf = [&](const ast::Expr* shape) {
    if (shape && (shape->kind == AK::Tuple || shape->kind == AK::List))
      for (auto* d : shape->items)
        if (d->kind == AK::Str) out.push_back(d);
  };
  size_t pos = 0;
  for (auto* a : e->items) {
    bool kw = a->kind == AK::Keyword;
    const ast::Expr* v = kw ? a->a : a;
    if (name == "R.Tensor" && ((kw && a->str == "shape") || (!kw && pos == 0))) dimsOf(v);
    if (name == "R.Shape" && ((kw && a->str == "values") || (!kw && pos == 0))) dimsOf(v);
    if (name == "R.Prim" && kw && a->str == "value" && v->kind == AK::Str) out.push_back(v);
    if (name == "R.Tuple" || name == "R.Callable") {
      if (v->kind == AK::Tuple || v->kind == AK::List)
        for (auto* i : v->items) collectStringDims(i, out);
      else
        collectStringDims(v, out);
    }
    if (!kw) ++pos;
  }
}

bool isOutputStmt(const ast::Stmt* st) {
  return st->kind == SK::ExprStmt && st->value->kind == AK::Call && st->value->a->dottedName() == "R.output";
}

}  // namespace

Status RelaxBuilder::collectSignatureVars(const ast::Stmt* def) {
  // Every bare-identifier string in any param defines an int64 var; params are scanned first, so a
  // compound "n * 2" may precede the param that names n.
  // Declarations in the body (`n = T.int64(is_size_var=True)`) name the signature's vars first,
  // with their dtype and kind, as TVM's parser reads the function's prelude before its params.
  for (auto* st : def->body) {
    if (st->kind != ast::Stmt::Assign || !st->value) continue;
    const ast::Expr *t = st->target, *v = st->value;
    std::vector<std::pair<const ast::Expr*, const ast::Expr*>> decls;
    if (t->kind == AK::Name) decls.push_back({t, v});
    else if (t->kind == AK::Tuple && v->kind == AK::Tuple && t->items.size() == v->items.size())
      for (size_t i = 0; i < t->items.size(); ++i) decls.push_back({t->items[i], v->items[i]});
    for (auto [name, call] : decls) {
      if (name->kind != AK::Name || primScope_.lookup(name->str)) continue;
      auto d = symbolicDecl(call);
      // Shapes are int64: a declaration of another dtype fails when the body declares it.
      if (d && d->ok() && d->value().dtype == DataType::int64()) primScope_.define(name->str, make<PrimVar>(name->str, DataType::int64(), d->value().sizeVar));
    }
  }
  std::vector<const ast::Expr*> dims;
  for (auto& p : def->params) collectStringDims(p.annotation, dims);
  for (auto* d : dims) {
    if (isIdentifier(d->str) && !primScope_.lookup(d->str)) primScope_.define(d->str, make<PrimVar>(d->str, DataType::int64()));
  }
  return okStatus();
}

Result<std::vector<VarRef>> RelaxBuilder::buildParams(const ast::Stmt* def) {
  std::vector<VarRef> params;
  for (auto& p : def->params) {
    if (!p.annotation) return Error("parameter '" + p.name + "' needs a struct info annotation, e.g. " + p.name + ": R.Tensor((2, 3), \"float32\")", p.span);
    RLX_TRY(s, evalSInfo(p.annotation, true));
    auto v = make<Var>(p.name, s);
    v->span = p.span;
    params.push_back(v);
  }
  return params;
}

Result<StructInfo> RelaxBuilder::signatureSInfo(const ast::Stmt* def, bool pure) {
  primScope_.push();
  scopes_.emplace_back();
  auto cleanup = [&] {
    scopes_.pop_back();
    primScope_.pop();
  };
  auto st = collectSignatureVars(def);
  auto params = buildParams(def);
  if (!params.ok()) {
    cleanup();
    return params.error();
  }
  StructInfo ret = objectSInfo();
  if (def->returns) {
    auto r = evalSInfo(def->returns, true);
    if (!r.ok()) {
      cleanup();
      return r.error();
    }
    ret = r.value();
  }
  cleanup();
  std::vector<StructInfo> ps;
  for (auto& p : params.value()) ps.push_back(p->sinfo);
  return StructInfo(make<FuncSInfo>(std::move(ps), ret, pure));
}

// Whether a and b are equal but for the return struct info of callables inside them.
static bool sameUpToCallableReturns(const StructInfo& a, const StructInfo& b) {
  if (!a || !b || a->kind() != b->kind()) return false;
  if (auto ta = a.as<TupleSInfo>()) {
    auto tb = b.as<TupleSInfo>();
    if (ta->fields.size() != tb->fields.size()) return false;
    for (size_t i = 0; i < ta->fields.size(); ++i)
      if (!sameUpToCallableReturns(ta->fields[i], tb->fields[i])) return false;
    return true;
  }
  if (auto fa = a.as<FuncSInfo>()) {
    auto fb = b.as<FuncSInfo>();
    if (fa->isPure != fb->isPure || bool(fa->params) != bool(fb->params)) return false;
    if (!fa->params) return true;
    if (fa->params->size() != fb->params->size()) return false;
    for (size_t i = 0; i < fa->params->size(); ++i)
      if (!sinfoEqual((*fa->params)[i], (*fb->params)[i])) return false;
    return true;
  }
  return sinfoEqual(a, b);
}

FunctionRef RelaxBuilder::buildFunction(const ast::Stmt* def, bool pure, bool isPrivate, const std::string& globalSymbol) {
  scopes_.emplace_back();
  primScope_.push();
  BlockBuilder outer = std::move(bb_);
  bb_ = BlockBuilder();
  bb_.beginFunction();
  bool outerCls = clsDefined_;
  AttrsRef outerAttrs = funcAttrs_;
  bool outerPure = pure_;
  funcAttrs_ = nullptr;
  pure_ = pure;
  auto restore = [&] {
    bb_ = std::move(outer);
    clsDefined_ = outerCls;
    funcAttrs_ = outerAttrs;
    pure_ = outerPure;
    primScope_.pop();
    scopes_.pop_back();
  };
  FunctionRef result;
  auto fail = [&](Error e) {
    report(std::move(e));
    restore();
    return FunctionRef();
  };
  (void)collectSignatureVars(def);
  auto params = buildParams(def);
  if (!params.ok()) return fail(params.error());
  std::vector<const PrimVar*> sigVars;
  for (auto& p : params.value()) {
    define(p->name, p);
    std::vector<Ref<PrimVar>> vs;
    sinfoCollectVars(p->sinfo, vs);
    for (auto& v : vs) sigVars.push_back(v.get());
  }
  StructInfo retAnn;
  if (def->returns) {
    auto r = evalSInfo(def->returns, true);
    if (!r.ok()) return fail(r.error());
    retAnn = r.value();
  }
  size_t errorsBefore = diag_.errors().size();
  auto body = buildBody(def->body, def->span);
  if (!body.ok()) return fail(body.error());
  if (diag_.errors().size() != errorsBefore) {
    restore();
    return nullptr;
  }
  // The return annotation is replaced by the body's struct info when that is more specific.
  StructInfo bodySInfo = eraseUndefinedVars(sinfoOf(body.value()), sigVars);
  StructInfo ret = bodySInfo;
  // An annotation that does not describe the body is kept as written: TVM's parser does not check
  // it (its tests return a tuple from `-> R.Tensor`), and neither does its well-formed check.
  if (retAnn && !sinfoIsBaseOf(retAnn, bodySInfo)) ret = retAnn;
  // Refining only the return types of callables the body returns would never settle for mutually
  // recursive functions (each parse nests their signatures once more): the annotation stays.
  if (retAnn && sameUpToCallableReturns(retAnn, bodySInfo)) ret = retAnn;
  AttrsRef attrs = funcAttrs_;
  // A global_symbol the function states itself wins over its name (TVM keeps the written one).
  if (!isPrivate && !globalSymbol.empty() && !(attrs && attrs->find("global_symbol")))
    attrs = withDictAttr(attrs, "global_symbol", AttrValue::str(globalSymbol));
  result = make<Function>(params.value(), body.value(), ret, pure, attrs);
  result->span = def->span;
  restore();
  return result;
}

Result<SeqExprRef> RelaxBuilder::buildBody(const std::vector<ast::Stmt*>& body, Span span) {
  std::vector<BlockRef> blocks;
  auto append = [&](BlockRef b) {
    if (!b) return;
    // Adjacent blocks of the same kind merge (normalization).
    if (!blocks.empty() && blocks.back()->isDataflow() == b->isDataflow()) {
      auto merged = blocks.back()->bindings;
      merged.insert(merged.end(), b->bindings.begin(), b->bindings.end());
      blocks.back() = make<BindingBlock>(std::move(merged), b->isDataflow());
    } else {
      blocks.push_back(b);
    }
  };
  Expr ret;
  size_t errorsAtStart = diag_.errors().size();
  bb_.beginBlock(false);
  for (size_t i = 0; i < body.size(); ++i) {
    const ast::Stmt* s = body[i];
    if (s->kind == SK::With) {
      append(bb_.endBlock());
      dataflowReturn_ = nullptr;
      auto df = buildDataflow(s);
      if (!df.ok()) report(std::move(df.error()));
      else append(df.value());
      bb_.beginBlock(false);
      if (!dataflowReturn_) continue;
      s = dataflowReturn_;  // `return x` ended the dataflow block: it returns from the function
      dataflowReturn_ = nullptr;
    }
    if (s->kind == SK::Return) {
      if (!s->value) {
        bb_.endBlock();
        return Error("a Relax function must return a value", s->span);
      }
      if (i + 1 != body.size()) diag_.error(Error("statements after 'return' are not allowed", body[i + 1]->span));
      auto v = evalExpr(s->value);
      if (!v.ok()) {
        bb_.endBlock();
        return v.error();
      }
      auto n = bb_.normalizeArgument(v.value());
      if (!n.ok()) {
        bb_.endBlock();
        return n.error().at(s->value->span);
      }
      ret = n.value();
      break;
    }
    auto st = buildStmt(s, nullptr);
    if (!st.ok()) report(std::move(st.error()));
  }
  append(bb_.endBlock());
  if (!ret && diag_.errors().size() != errorsAtStart) return Error("");  // the return was lost to an earlier error
  if (!ret) return Error("the function body must end with a return statement", span);
  auto seq = make<SeqExpr>(std::move(blocks), ret);
  seq->sinfo = sinfoOf(ret);
  return seq;
}

Status RelaxBuilder::buildStmt(const ast::Stmt* s, Expr*) {
  switch (s->kind) {
    case SK::Assign: return buildAssign(s);
    case SK::ExprStmt: return buildExprStmt(s);
    case SK::If: {
      if (bb_.inDataflow()) return Error("'if' is not allowed inside a dataflow block", s->span);
      Status st = buildIf(s);
      // A failed if still "defines" its result name, so later uses do not report again.
      const ast::Stmt* last = s->body.empty() ? nullptr : s->body.back();
      if (!st.ok() && last && last->kind == SK::Assign && last->target && last->target->kind == AK::Name) poisoned_.insert(last->target->str);
      return st;
    }
    case SK::FunctionDef: return buildNestedFunction(s);
    case SK::Pass: return okStatus();
    case SK::For: return Error("loops are not allowed in Relax functions; use recursion through a module function", s->span);
    case SK::With: return Error("a dataflow block cannot be nested in another block", s->span);
    case SK::ClassDef: return Error("a class cannot be defined inside a function", s->span);
    case SK::Return: return Error("'return' is only allowed at the end of the function body", s->span);
  }
  return okStatus();
}

std::optional<Result<SymbolicDecl>> symbolicDecl(const ast::Expr* e) {
  if (e->kind != AK::Call) return std::nullopt;
  std::string callee = e->a->dottedName();
  if (callee == "T.Var") {
    if (e->items.size() != 2 || e->items[0]->kind != AK::Str || e->items[1]->kind != AK::Str)
      return Result<SymbolicDecl>(Error("T.Var takes a name and a dtype: T.Var(\"n\", \"int64\")", e->span));
    auto t = DataType::parse(e->items[1]->str);
    if (!t || !t->isIntegral()) return Result<SymbolicDecl>(Error("a symbolic variable needs an integer dtype, not \"" + e->items[1]->str + "\"", e->items[1]->span));
    return Result<SymbolicDecl>(SymbolicDecl{*t, false, e->items[0]->str});
  }
  auto t = tirDtypeCallee(callee);
  if (!t) return std::nullopt;
  SymbolicDecl d{*t, false, ""};
  for (auto* a : e->items) {
    if (a->kind != AK::Keyword || a->str != "is_size_var" || a->a->kind != AK::Bool) return std::nullopt;  // T.int64(15): a value
    d.sizeVar = a->a->b;
  }
  return Result<SymbolicDecl>(d);
}

Status RelaxBuilder::declareSymbolicVar(const std::string& name, const SymbolicDecl& d, Span span) {
  if (auto* existing = primScope_.lookup(name)) {
    if ((*existing)->kind() == NodeKind::PrimVar) {
      // Re-declaring a signature var is allowed, with its own dtype (shapes are int64).
      if ((*existing)->dtype != d.dtype)
        return Error("'" + name + "' is a " + (*existing)->dtype.str() + " symbolic variable of the signature; it cannot be re-declared as " + d.dtype.str(), span);
      return okStatus();
    }
  }
  primScope_.define(name, make<PrimVar>(d.name.empty() ? name : d.name, d.dtype, d.sizeVar));
  return okStatus();
}

bool RelaxBuilder::takeBindingSlot(const std::string& name) {
  // Only output names are counted (a name without a count is never an output).
  auto it = pendingBindings_.find(name);
  bool out = it != pendingBindings_.end() && it->second == 1 && dataflowOutputs_.count(name);
  if (bb_.inDataflow() && it != pendingBindings_.end()) it->second--;
  return out;
}

void RelaxBuilder::report(Error e) {
  if (!e.message.empty()) diag_.error(std::move(e));
}

Status RelaxBuilder::buildAssign(const ast::Stmt* s) {
  Status st = buildAssignImpl(s);
  if (!st.ok() && s->target && s->target->kind == AK::Name) poisoned_.insert(s->target->str);
  else if (s->target && s->target->kind == AK::Name) poisoned_.erase(s->target->str);
  return st;
}

Status RelaxBuilder::buildAssignImpl(const ast::Stmt* s) {
  if (!s->value) return Error("an annotated name needs a value (`x: R.Tensor(...) = ...`)", s->span);
  if (s->target->kind == AK::Tuple) {
    // `m, n = T.int64(), T.int64()` declares several symbolic vars at once (the TIR printer's form);
    // an item with a value (`C = T.int64(15)`) names that constant for the shapes that follow.
    const ast::Expr* v = s->value;
    bool decls = v->kind == AK::Tuple && v->items.size() == s->target->items.size();
    for (size_t i = 0; decls && i < v->items.size(); ++i)
      decls = s->target->items[i]->kind == AK::Name && v->items[i]->kind == AK::Call && (symbolicDecl(v->items[i]) || tirDtypeCallee(v->items[i]->a->dottedName()));
    if (decls) {
      for (size_t i = 0; i < v->items.size(); ++i) {
        const ast::Expr* item = v->items[i];
        if (auto d = symbolicDecl(item)) {
          RLX_TRY(decl, *d);
          RLX_TRY_STATUS(declareSymbolicVar(s->target->items[i]->str, decl, item->span));
        } else {
          RLX_TRY(value, evalPrimValue(item));
          primScope_.define(s->target->items[i]->str, value);
        }
      }
      return okStatus();
    }
    return Error("tuple unpacking is not supported in Relax; bind the tuple and index it (t[0])", s->target->span);
  }
  if (s->target->kind != AK::Name) return Error("only a plain name can be assigned in Relax", s->target->span);
  const std::string& name = s->target->str;
  const ast::Expr* value = s->value;
  if (value->kind == AK::Call) {
    std::string callee = value->a->dottedName();
    if (auto d = symbolicDecl(value)) {
      RLX_TRY(decl, *d);
      return declareSymbolicVar(name, decl, value->span);
    }
    if (callee == "R.match_cast") {
      if (value->items.size() != 2) return Error("R.match_cast takes a value and a struct info", value->span);
      RLX_TRY(v, evalExpr(value->items[0]));
      RLX_TRY(target, evalSInfo(value->items[1], false));
      bool out = takeBindingSlot(name);
      RLX_TRY(var, bb_.emitMatchCast(v, target, name, s->target->span, out));
      define(name, var);
      return okStatus();
    }
  }
  if (value->kind == AK::Name && (value->str == className_ || value->str == "Module") && name == "cls") {
    clsDefined_ = true;
    return okStatus();
  }
  StructInfo ann;
  if (s->annotation) {
    RLX_TRY(a, evalSInfo(s->annotation, false));
    ann = a;
  }
  RLX_TRY(v, evalExpr(value));
  // TVM's quirk, matched: a call with a nested call argument is rebuilt when its argument is bound
  // to a fresh var, and the rebuilt call's inferred struct info replaces the annotation unchecked.
  if (ann)
    if (auto c = v.as<Call>())
      for (auto& a : c->args)
        if (a.is<Call>()) ann = nullptr;
  bool out = takeBindingSlot(name);
  auto var = bb_.emit(v, name, s->target->span, ann, out);
  if (!var.ok()) return var.error().at(value->span);
  define(name, var.value());
  return okStatus();
}

Status RelaxBuilder::buildExprStmt(const ast::Stmt* s) {
  const ast::Expr* e = s->value;
  if (e->kind == AK::Call) {
    std::string callee = e->a->dottedName();
    if (callee == "R.func_attr") {
      if (e->items.size() != 1) return Error("R.func_attr takes one dict", e->span);
      RLX_TRY(attrs, evalDictAttrs(e->items[0]));
      for (auto& [k, v] : attrs->fields) funcAttrs_ = withDictAttr(funcAttrs_, k, v);
      return okStatus();
    }
    if (callee == "R.output") return Error("R.output(...) is only allowed at the end of a dataflow block", e->span);
  }
  if (e->kind == AK::Str) return okStatus();  // a docstring
  RLX_TRY(v, evalExpr(e));
  RLX_TRY(n, bb_.normalize(v));
  if (!isVoidSInfo(sinfoOf(n)))
    return Error("a non-void Relax expression must be bound to a name", e->span, "write `name = ...`, or call something that returns R.Tuple() as a statement");
  RLX_TRY(var, bb_.emit(n, "_", e->span));
  (void)var;
  return okStatus();
}

Result<BlockRef> RelaxBuilder::buildDataflow(const ast::Stmt* s) {
  if (!s->value || s->value->kind != AK::Call || s->value->a->dottedName() != "R.dataflow")
    return Error("only `with R.dataflow():` blocks are allowed in Relax functions", s->span);
  if (!s->deferred) return buildDataflowBody(s->body, s->span);
  // A block that ends with R.output is built as it is read (its syntax tree never exists whole);
  // anything else is parsed whole and gets the checks below.
  const ast::Stmt* last = reader->peekLast(*s);
  if (last && isOutputStmt(last)) return streamDataflowBody(s, last);
  return buildDataflowBody(reader->materialize(*s), s->span);
}

// The names R.output(...) lists, each a name the block binds (`counts`: bindings per name).
static Result<std::unordered_set<std::string>> outputNames(const ast::Stmt& outputStmt, const std::unordered_map<std::string, int>& counts) {
  std::unordered_set<std::string> outputs;
  for (auto* o : outputStmt.value->items) {
    if (o->kind != AK::Name) return Error("R.output takes variable names", o->span);
    if (!counts.count(o->str)) return Error("'" + o->str + "' is not bound in this dataflow block", o->span);
    outputs.insert(o->str);
  }
  return outputs;
}

Result<BlockRef> RelaxBuilder::buildDataflowBody(const std::vector<ast::Stmt*>& body, Span span) {
  // Outputs are known up front so their bindings become plain Vars (TVM converts them at R.output).
  std::unordered_map<std::string, int> counts;
  const ast::Stmt* outputStmt = nullptr;
  for (auto* st : body) {
    if (isOutputStmt(st)) outputStmt = st;
    if (st->kind == SK::Assign && st->target->kind == AK::Name) counts[st->target->str]++;
    if (st->kind == SK::FunctionDef) counts[st->name]++;  // a nested function may be an output too
  }
  // Without R.output TVM outputs nothing, or, when the block ends with `return x`, what that
  // return names (the return then ends the function).
  const ast::Stmt* trailingReturn = !outputStmt && !body.empty() && body.back()->kind == SK::Return && body.back()->value ? body.back() : nullptr;
  if (outputStmt && outputStmt != body.back()) return Error("R.output(...) must be the last statement of the dataflow block", outputStmt->span);
  std::unordered_set<std::string> outputs;
  if (outputStmt) {
    RLX_TRY(named, outputNames(*outputStmt, counts));
    outputs = std::move(named);
  } else if (trailingReturn) {
    std::vector<const ast::Expr*> todo = {trailingReturn->value};
    while (!todo.empty()) {
      const ast::Expr* e = todo.back();
      todo.pop_back();
      if (e->kind == AK::Name && counts.count(e->str)) outputs.insert(e->str);
      for (auto* i : e->items) todo.push_back(i);
      for (auto* c : {e->a, e->b2, e->c})
        if (c) todo.push_back(c);
    }
  }
  const ast::Stmt* endStmt = outputStmt ? outputStmt : trailingReturn;
  dataflowReturn_ = trailingReturn;
  auto savedOutputs = std::move(dataflowOutputs_);
  auto savedPending = std::move(pendingBindings_);
  dataflowOutputs_ = outputs;
  pendingBindings_ = counts;
  bb_.beginBlock(true);
  for (auto* st : body) {
    if (st == endStmt) break;
    auto r = buildStmt(st, nullptr);
    if (!r.ok()) report(std::move(r.error()));
  }
  BlockRef block = bb_.endBlock();
  dataflowOutputs_ = std::move(savedOutputs);
  pendingBindings_ = std::move(savedPending);
  // Names bound in the block but not output are not visible after it.
  for (auto& [name, n] : counts)
    if (!outputs.count(name)) scopes_.back().vars.erase(name);
  return block;
}

// buildDataflowBody for a deferred body whose last statement (`outputStmt`) is R.output: the same
// checks and result, reading one statement at a time. Only the output names need counting first.
Result<BlockRef> RelaxBuilder::streamDataflowBody(const ast::Stmt* s, const ast::Stmt* outputStmt) {
  std::unordered_set<std::string> named;
  for (auto* o : outputStmt->value->items)
    if (o->kind == AK::Name) named.insert(o->str);
  auto counts = reader->countBindings(*s, named);
  RLX_TRY(outputs, outputNames(*outputStmt, counts));
  auto savedOutputs = std::move(dataflowOutputs_);
  auto savedPending = std::move(pendingBindings_);
  dataflowOutputs_ = outputs;
  pendingBindings_ = std::move(counts);
  bb_.beginBlock(true);
  std::vector<std::string> bound;  // every name the block binds
  auto cursor = reader->read(*s, true);
  while (const ast::Stmt* st = cursor.next()) {
    if (st->kind == SK::Assign && st->target->kind == AK::Name) bound.push_back(st->target->str);
    if (st->kind == SK::FunctionDef) bound.push_back(st->name);
    auto r = buildStmt(st, nullptr);
    if (!r.ok()) report(std::move(r.error()));
  }
  BlockRef block = bb_.endBlock();
  dataflowOutputs_ = std::move(savedOutputs);
  pendingBindings_ = std::move(savedPending);
  for (auto& name : bound)
    if (!outputs.count(name)) scopes_.back().vars.erase(name);
  return block;
}

Result<Expr> RelaxBuilder::buildBranch(const std::vector<ast::Stmt*>& body, const std::string& target, const char* suffix, StructInfo* annotation, Span span) {
  scopes_.emplace_back();
  bb_.beginBlock(false);
  std::vector<BlockRef> blocks;  // branches may hold dataflow blocks (ConvertToDataflow prints them)
  auto append = [&](BlockRef b) {
    if (b) blocks.push_back(std::move(b));
  };
  auto finish = [&](Result<Expr> r) -> Result<Expr> {
    append(bb_.endBlock());
    scopes_.pop_back();
    if (!r.ok()) return r;
    auto seq = make<SeqExpr>(std::move(blocks), r.value());
    seq->sinfo = sinfoOf(r.value());
    return Expr(seq);
  };
  if (body.empty()) return finish(Error("empty branch", span));
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    if (body[i]->kind == SK::With) {
      append(bb_.endBlock());
      dataflowReturn_ = nullptr;
      auto df = buildDataflow(body[i]);
      if (!df.ok()) report(std::move(df.error()));
      else append(df.value());
      if (dataflowReturn_) report(Error("'return' is not allowed inside an if branch", dataflowReturn_->span));
      dataflowReturn_ = nullptr;
      bb_.beginBlock(false);
      continue;
    }
    auto st = buildStmt(body[i], nullptr);
    if (!st.ok()) report(std::move(st.error()));
  }
  const ast::Stmt* last = body.back();
  if (last->kind != SK::Assign || !last->target || last->target->kind != AK::Name || last->target->str != target)
    return finish(Error("both branches of an if must end by binding the same name ('" + target + "')", last->span));
  if (!last->value) return finish(Error("an annotated name needs a value (`x: R.Tensor(...) = ...`)", last->span));
  if (last->annotation) {
    auto a = evalSInfo(last->annotation, false);
    if (!a.ok()) return finish(a.error());
    *annotation = a.value();
  }
  if (last->value->kind == AK::Call && last->value->a->dottedName() == "R.match_cast") {
    // `y = R.match_cast(x, S)` as the last line becomes the binding `y_else = R.match_cast(...)`.
    if (last->value->items.size() != 2) return finish(Error("R.match_cast takes a value and a struct info", last->value->span));
    auto v = evalExpr(last->value->items[0]);
    if (!v.ok()) return finish(v.error());
    auto cast = evalSInfo(last->value->items[1], false);
    if (!cast.ok()) return finish(cast.error());
    auto var = bb_.emitMatchCast(v.value(), cast.value(), target + suffix, last->target->span, false);
    if (!var.ok()) return finish(var.error());
    return finish(Expr(var.value()));
  }
  auto v = evalExpr(last->value);
  if (!v.ok()) return finish(v.error());
  auto n = bb_.normalize(v.value());
  if (!n.ok()) return finish(n.error().at(last->value->span));
  Expr result = n.value();
  if (!isLeafExpr(result) && result->kind() != NodeKind::Tuple) {
    // `y = R.add(x, x)` as the last line becomes `y_then = R.add(x, x)` and the branch yields it.
    auto var = bb_.emit(result, target + suffix, last->target->span);
    if (!var.ok()) return finish(var.error());
    result = var.value();
  }
  return finish(result);
}

Status RelaxBuilder::buildIf(const ast::Stmt* s) {
  if (!s->hasElse) return Error("an if in Relax needs an else branch", s->span);
  RLX_TRY(cond, evalExpr(s->value));
  RLX_TRY(c, bb_.normalizeArgument(cond));
  auto cs = sinfoOf(c);
  bool ok = false;
  if (auto t = cs.as<TensorSInfo>()) ok = (t->dtype.isBool() || t->dtype.isVoid()) && (t->ndim == 0 || t->ndim == -1);
  if (auto p = cs.as<PrimSInfo>()) ok = p->dtype.isBool();
  if (!ok) return Error("the condition of an if must be a scalar bool tensor or R.Prim(\"bool\")", s->value->span);
  const ast::Stmt* last = s->body.empty() ? nullptr : s->body.back();
  if (!last || last->kind != SK::Assign || !last->target || last->target->kind != AK::Name)
    return Error("each branch of an if must end by binding a name (`y = ...`)", s->span);
  std::string target = last->target->str;
  StructInfo annThen, annElse;
  RLX_TRY(thenSeq, buildBranch(s->body, target, "_then", &annThen, s->span));
  RLX_TRY(elseSeq, buildBranch(s->orelse, target, "_else", &annElse, s->span));
  auto node = make<If>(c, thenSeq, elseSeq);
  node->span = s->span;
  StructInfo ann = annThen ? annThen : annElse;
  RLX_TRY(var, bb_.emit(node, target, last->target->span, ann));
  define(target, var);
  return okStatus();
}

Status RelaxBuilder::buildNestedFunction(const ast::Stmt* s) {
  bool pure = true;
  bool isRelax = false;
  for (auto* d : s->decorators) {
    const ast::Expr* callee = d->kind == AK::Call ? d->a : d;
    std::string name = callee->dottedName();
    if (name == "T.prim_func") return Error("a T.prim_func cannot be nested inside a Relax function; define it at module level", d->span);
    if (name != "R.function") return Error("unknown decorator '" + name + "'", d->span);
    isRelax = true;
    if (d->kind == AK::Call)
      for (auto* a : d->items)
        if (a->kind == AK::Keyword && a->str == "pure" && a->a->kind == AK::Bool) pure = a->a->b;
  }
  if (!isRelax) return Error("a nested function needs the @R.function decorator", s->span);
  // Decided before the body is built: the body's own dataflow blocks swap these maps.
  bool out = takeBindingSlot(s->name);
  // The name is visible inside its own body (a recursive local function), typed by its signature.
  auto sig = signatureSInfo(s, pure);
  if (!sig.ok()) return sig.error();
  auto var = make<Var>(s->name, sig.value(), bb_.inDataflow() && !out);
  var->span = s->span;
  define(s->name, var);
  FunctionRef f = buildFunction(s, pure, true, "");
  if (!f) return okStatus();  // errors already reported
  RLX_TRY(n, bb_.normalize(f));
  bool recursive = false;
  walkExpr(n, [&](const Expr& e) { recursive |= e.same(var); });
  if (!recursive) {
    // The usual case: the binding var takes the function's own (refined) struct info.
    RLX_TRY(v, bb_.emit(n, s->name, s->span, nullptr, out));
    define(s->name, v);
    return okStatus();
  }
  // Bound directly (TVM's emit_var_binding), so it takes no number from the gv/lv counter.
  auto binding = make<Binding>(var, n);
  binding->span = s->span;
  bb_.addBinding(binding);
  return okStatus();
}

}  // namespace rlx
