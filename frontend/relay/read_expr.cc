// The reader's expressions: statements and their scopes (`let`, `%N = ...`, `free_var`, `a; b`),
// calls and projections, operators, tuples, `if`, `fn`, `match` and refs, each name resolved.
#include "frontend/relay/reader.h"

namespace rlx::relay {
namespace g = rlx::grammar::relay;

namespace {

ExprPtr makeExpr(Expr::Kind kind) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  return e;
}

const char* binaryOpName(const std::string& op) {
  if (op == "*") return "multiply";
  if (op == "/") return "divide";
  if (op == "+") return "add";
  if (op == "-") return "subtract";
  if (op == "<") return "less";
  if (op == ">") return "greater";
  if (op == "<=") return "less_equal";
  if (op == ">=") return "greater_equal";
  if (op == "==") return "equal";
  return "not_equal";
}

bool isStatementBinding(const Node& n) {
  return n.is_type<g::let_binding>() || n.is_type<g::graph_binding>() || n.is_type<g::free_var_decl>();
}

}  // namespace

void TreeWalker::claimPrinted(Expr& e, size_t end) {
  if (TypePtr t = printedTypeAfter(end)) {
    // The comment belongs to the outermost node that ends right before it.
    auto [it, inserted] = printedOwner_.emplace(end, &e);
    if (!inserted) it->second->printed.reset(), it->second = &e;
    e.printed = std::move(t);
  }
}

ExprPtr TreeWalker::finish(ExprPtr e, const Node& n) {
  e->span = span(n);
  claimPrinted(*e, n.m_end.byte);
  return e;
}

int TreeWalker::bind(const std::string& name, const Node& where, TypePtr type, bool graph) {
  Binder b;
  b.name = name;
  b.type = std::move(type);
  b.span = span(where);
  b.graph = graph;
  mod_.binders.push_back(std::move(b));
  int id = int(mod_.binders.size() - 1);
  if (!name.empty()) scopes_.back()[name] = id;
  return id;
}

int TreeWalker::lookup(const std::string& name, const Node& where) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (auto f = it->find(name); f != it->end()) return f->second;
  if (auto f = freeVars_.find(name); f != freeVars_.end()) return f->second;
  bool graph = !name.empty() && std::isdigit(static_cast<unsigned char>(name[0]));
  if (graph) {
    if (auto d = graphDefs_.find(name); d != graphDefs_.end())
      fail(where, "graph variable %" + name + " is not visible here",
           "it is bound at line " + std::to_string(d->second.line) + " in another scope; Relay's parser aliased it, rlx refuses");
    fail(where, "graph variable %" + name + " is used before it is bound");
  }
  std::vector<std::string> names;
  for (auto& s : scopes_)
    for (auto& [k, _] : s) names.push_back("%" + k);
  std::string close = closestName("%" + name, names);
  fail(where, "the local variable %" + name + " has not been declared", close.empty() ? "" : "did you mean " + close + "?");
}

ExprPtr TreeWalker::reference(const Node& n) {
  auto e = makeExpr(Expr::Local);
  e->binder = lookup(n.string().substr(1), n);
  return finish(std::move(e), n);
}

ExprPtr TreeWalker::callee(const Node& n) {
  std::string path = n.string();
  auto e = makeExpr(ctors_.count(path) ? Expr::Ctor : Expr::OpName);
  e->name = path;
  return finish(std::move(e), n);
}

ExprPtr TreeWalker::expr(const Node& n) {
  if (n.is_type<g::expr>()) return sequence(n);
  if (isStatementBinding(n)) fail(n, "a binding must be followed by an expression (`;` and the expression that uses it)");
  if (n.is_type<g::number>()) {
    auto e = makeExpr(Expr::Scalar);
    number(n, *e);
    return finish(std::move(e), n);
  }
  if (n.is_type<g::kw_true>() || n.is_type<g::kw_false>()) {
    auto e = makeExpr(Expr::Scalar);
    e->i = n.is_type<g::kw_true>() ? 1 : 0;
    e->dtype = "bool";
    return finish(std::move(e), n);
  }
  if (n.is_type<g::meta_ref>()) {
    auto e = makeExpr(Expr::MetaRef);
    e->meta = meta(n, e->name, e->i);
    return finish(std::move(e), n);
  }
  if (n.is_type<g::local_var>() || n.is_type<g::graph_var>()) return reference(n);
  if (n.is_type<g::global_var>()) {
    auto e = makeExpr(Expr::Global);
    e->name = n.string().substr(1);
    return finish(std::move(e), n);
  }
  if (n.is_type<g::ctor_or_op>()) return callee(n);
  if (n.is_type<g::fn_expr>()) {
    auto e = makeExpr(Expr::Fn);
    e->fn = function(*n.children.at(0));
    return finish(std::move(e), n);
  }
  if (n.is_type<g::if_expr>()) return ifExpr(n);
  if (n.is_type<g::match_expr>()) return matchExpr(n);
  if (n.is_type<g::paren>()) return paren(n);
  if (n.is_type<g::postfix>()) return postfix(n);
  if (n.is_type<g::mul_expr>() || n.is_type<g::add_expr>() || n.is_type<g::rel_expr>() || n.is_type<g::binop>()) return binary(n);
  if (n.is_type<g::scope_expr>()) {
    pushScope();
    auto e = expr(*n.children.at(0));
    popScope();
    return e;
  }
  if (n.is_type<g::ref_new>() || n.is_type<g::ref_read>() || n.is_type<g::ref_write>()) {
    auto e = makeExpr(n.is_type<g::ref_new>() ? Expr::RefNew : n.is_type<g::ref_read>() ? Expr::RefRead : Expr::RefWrite);
    for (auto& c : n.children) e->kids.push_back(expr(*c));
    return finish(std::move(e), n);
  }
  if (n.is_type<g::string_lit>()) fail(n, "a string is not an expression in Relay (strings appear only as attribute values)");
  if (n.is_type<g::kwarg>()) fail(n, "an attribute (key=value) can only appear in a call's arguments");
  fail(n, "unexpected syntax here");
}

ExprPtr TreeWalker::sequence(const Node& n) {
  // Statements bind for the rest of the sequence: `let` and `%N` open a scope closed at its end.
  size_t scopes = 0;
  auto let = makeExpr(Expr::Let);
  ExprPtr last;
  for (size_t k = 0; k < n.children.size(); ++k) {
    const Node& st = *n.children[k];
    bool isLast = k + 1 == n.children.size();
    if (isLast && isStatementBinding(st)) fail(st, "a binding must be followed by an expression (`;` and the expression that uses it)");
    if (st.is_type<g::let_binding>()) {
      // let %x [: T] = value     — a closure sees its own variable (recursion); any other value sees
      // the variable it shadows (`let %a = %a + %a`).
      const Node& var = *st.children.at(0);
      TypePtr annotation;
      size_t valueAt = 1;
      if (st.children.size() == 3) annotation = type(*st.children[1]), valueAt = 2;
      TypePtr printed = printedTypeAfter(st.children[valueAt - 1]->m_end.byte);
      const Node& valueNode = *st.children[valueAt];
      ExprPtr value;
      if (!valueNode.is_type<g::fn_expr>()) value = expr(valueNode);
      pushScope();
      ++scopes;
      int id = bind(var.string().substr(1), var, std::move(annotation));
      mod_.binders[size_t(id)].printed = std::move(printed);
      if (!value) value = expr(valueNode);
      let->bindings.emplace_back(id, std::move(value));
    } else if (st.is_type<g::graph_binding>()) {
      const Node& var = *st.children.at(0);
      std::string name = var.string().substr(1);
      if (auto d = graphDefs_.find(name); d != graphDefs_.end())
        fail(var, "graph variable %" + name + " is bound a second time (first at line " + std::to_string(d->second.line) + ")",
             "Relay's parser silently re-used the first binding; give each %N one definition per file");
      auto value = expr(*st.children.at(1));
      graphDefs_[name] = span(var);
      pushScope();
      ++scopes;
      int id = bind(name, var, nullptr, /*graph=*/true);
      let->bindings.emplace_back(id, std::move(value));
    } else if (st.is_type<g::free_var_decl>()) {
      const Node& var = *st.children.at(0);
      std::string name = var.string().substr(1);
      TypePtr annotation = st.children.size() > 1 ? type(*st.children[1]) : nullptr;
      Binder b;
      b.name = name;
      b.type = std::move(annotation);
      b.span = span(var);
      b.free = true;
      mod_.binders.push_back(std::move(b));
      int id = int(mod_.binders.size() - 1);
      freeVars_[name] = id;
      mod_.freeVars.push_back(id);
    } else if (!isLast) {
      // `a; b`: a is evaluated for its effect, bound to an unnamed variable.
      pushScope();
      ++scopes;
      int id = bind("", st, nullptr);
      let->bindings.emplace_back(id, expr(st));
    } else {
      last = expr(st);
    }
  }
  for (size_t k = 0; k < scopes; ++k) popScope();
  if (let->bindings.empty()) return last;
  let->kids.push_back(std::move(last));
  let->span = span(n);
  return let;
}

ExprPtr TreeWalker::postfix(const Node& n) {
  ExprPtr cur = expr(*n.children.at(0));
  for (size_t k = 1; k < n.children.size(); ++k) {
    const Node& post = *n.children[k];
    if (post.is_type<g::proj_index>()) {
      auto p = makeExpr(Expr::Proj);
      std::string digits = post.string();
      if (digits.size() > 9) fail(post, "tuple index " + digits + " is too large");
      p->i = std::stoll(digits);
      p->kids.push_back(std::move(cur));
      cur = std::move(p);
    } else {
      auto call = makeExpr(Expr::Call);
      call->kids.push_back(std::move(cur));
      for (auto& a : post.children) {
        if (a->is_type<g::kwarg>()) {
          kwarg(*a, call->attrs);
        } else {
          if (!call->attrs.empty()) fail(*a, "a positional argument cannot follow attributes");
          call->kids.push_back(expr(*a));
        }
      }
      cur = std::move(call);
    }
    // The node for the prefix up to here ends at this postfix's end.
    cur->span = span(n);
    claimPrinted(*cur, post.m_end.byte);
  }
  return cur;
}

ExprPtr TreeWalker::binary(const Node& n) {
  // operand (op operand)*, left-associative: Relay's operators are calls of the named ops.
  ExprPtr cur = expr(*n.children.at(0));
  for (size_t k = 1; k + 1 < n.children.size(); k += 2) {
    auto call = makeExpr(Expr::Call);
    auto op = makeExpr(Expr::OpName);
    op->name = binaryOpName(n.children[k]->string());
    op->span = span(*n.children[k]);
    call->kids.push_back(std::move(op));
    call->kids.push_back(std::move(cur));
    call->kids.push_back(expr(*n.children[k + 1]));
    call->span = span(n);
    cur = std::move(call);
  }
  return finish(std::move(cur), n);
}

ExprPtr TreeWalker::paren(const Node& n) {
  bool tuple = n.children.empty();
  for (auto& c : n.children) tuple = tuple || c->is_type<g::tuple_comma>();
  if (!tuple) return expr(*n.children.at(0));  // (e): grouping
  auto t = makeExpr(Expr::Tuple);
  for (auto& c : n.children)
    if (!c->is_type<g::tuple_comma>()) t->kids.push_back(expr(*c));
  return finish(std::move(t), n);
}

ExprPtr TreeWalker::ifExpr(const Node& n) {
  auto e = makeExpr(Expr::If);
  e->kids.push_back(expr(*n.children.at(0)));
  for (size_t k = 1; k <= 2; ++k) {
    pushScope();
    e->kids.push_back(expr(*n.children.at(k)->children.at(0)));
    popScope();
  }
  return finish(std::move(e), n);
}

PatternPtr TreeWalker::pattern(const Node& n) {
  auto p = std::make_unique<Pattern>();
  p->span = span(n);
  if (n.is_type<g::wildcard>()) {
    p->kind = Pattern::Wildcard;
  } else if (n.is_type<g::pattern_var>()) {
    p->kind = Pattern::Var;
    const Node& var = *n.children.at(0);
    TypePtr annotation = n.children.size() > 1 ? type(*n.children[1]) : nullptr;
    p->binder = bind(var.string().substr(1), var, std::move(annotation));
    mod_.binders[size_t(p->binder)].printed = printedTypeAfter(n.m_end.byte);
  } else if (n.is_type<g::pattern_ctor>()) {
    p->kind = Pattern::Ctor;
    p->ctor = n.children.at(0)->string();
    if (!ctors_.count(p->ctor)) fail(*n.children[0], "`" + p->ctor + "` is not a constructor of any type in this file");
    for (size_t k = 1; k < n.children.size(); ++k) p->fields.push_back(pattern(*n.children[k]));
  } else {
    p->kind = Pattern::Tuple;
    for (auto& c : n.children) p->fields.push_back(pattern(*c));
  }
  return p;
}

ExprPtr TreeWalker::matchExpr(const Node& n) {
  auto e = makeExpr(Expr::Match);
  size_t k = 0;
  if (n.children.at(0)->is_type<g::match_partial>()) e->complete = false, ++k;
  e->kids.push_back(expr(*n.children.at(k++)));
  for (; k < n.children.size(); ++k) {
    const Node& arm = *n.children[k];
    pushScope();
    MatchArm a;
    a.pattern = pattern(*arm.children.at(0));
    a.body = expr(*arm.children.at(1));
    popScope();
    e->arms.push_back(std::move(a));
  }
  return finish(std::move(e), n);
}

std::unique_ptr<Function> TreeWalker::function(const Node& sig) {
  auto fn = std::make_unique<Function>();
  fn->span = span(sig);
  pushScope();
  for (auto& part : sig.children) {
    if (part->is_type<g::type_params>()) {
      for (auto& name : part->children) fn->typeParams.push_back(name->string());
    } else if (part->is_type<g::params>()) {
      for (auto& p : part->children) {
        if (p->is_type<g::fn_attrs>()) {
          kwargs(*p, fn->attrs);
          continue;
        }
        const Node& var = *p->children.at(0);
        std::string name = var.string().substr(1);
        if (scopes_.back().count(name)) fail(var, "parameter %" + name + " is declared twice");
        TypePtr annotation;
        Attrs attrs;
        for (size_t k = 1; k < p->children.size(); ++k) {
          if (p->children[k]->is_type<g::param_attrs>()) {
            kwargs(*p->children[k], attrs);  // param_attrs holds kwarg nodes directly
          } else {
            annotation = type(*p->children[k]);
          }
        }
        int id = bind(name, var, std::move(annotation));
        mod_.binders[size_t(id)].attrs = std::move(attrs);
        mod_.binders[size_t(id)].printed = printedTypeAfter(p->m_end.byte);
        fn->params.push_back(id);
      }
    } else if (part->is_type<g::ret_type>()) {
      fn->ret = type(*part->children.at(0));
    } else if (part->is_type<g::body>()) {
      fn->body = expr(*part->children.at(0));
    }
  }
  popScope();
  return fn;
}

}  // namespace rlx::relay
