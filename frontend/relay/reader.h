// The reader's internals: the PEGTL parse tree of a Relay file and the walker that turns it into the
// syntax tree of ast.h, resolving names by Relay's scoping rules (spec/relay.md §1.3) on the way.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tao/pegtl/contrib/parse_tree.hpp>

#include "frontend/relay/ast.h"
#include "grammar/relay.hpp"
#include "ir/diagnostic.h"

namespace rlx::relay {

using Node = tao::pegtl::parse_tree::node;

// Which rules become nodes of the parse tree: tokens and constructs the walker reads. The operator
// precedence layers (and single-statement sequences) fold into their only child.
namespace gr = rlx::grammar::relay;
template <typename Rule>
using TreeSelector = tao::pegtl::parse_tree::selector<
    Rule,
    tao::pegtl::parse_tree::store_content::on<
        gr::number, gr::kw_true, gr::kw_false, gr::string_lit, gr::meta_ref, gr::local_var, gr::graph_var, gr::global_var, gr::any_dim,
        gr::dtype_name, gr::tensor_type, gr::tuple_type, gr::func_type, gr::ref_type, gr::incomplete_type, gr::named_type, gr::name,
        gr::attr_array, gr::attr_none, gr::kwarg_key, gr::kwarg, gr::param_attrs, gr::param, gr::params, gr::fn_attrs, gr::type_params,
        gr::ret_type, gr::body, gr::fn_sig, gr::fn_expr, gr::if_expr, gr::ref_new, gr::ref_read, gr::ref_write, gr::paren, gr::tuple_comma,
        gr::ctor_or_op, gr::call_args, gr::proj_index, gr::op_mul, gr::op_add, gr::op_rel, gr::op_eq, gr::wildcard, gr::pattern_var,
        gr::pattern_ctor, gr::pattern_tuple, gr::arm, gr::match_partial, gr::match_expr, gr::scope_expr, gr::let_binding, gr::graph_binding,
        gr::free_var_decl, gr::version_string, gr::metadata_json, gr::ctor_def, gr::type_name, gr::type_def, gr::extern_type_def,
        gr::def_name, gr::func_def>,
    tao::pegtl::parse_tree::fold_one::on<gr::postfix, gr::mul_expr, gr::add_expr, gr::rel_expr, gr::binop, gr::expr>>;

// A located reading problem; read.cc turns it into the Error the API returns.
struct ReadError : std::runtime_error {
  Error error;
  explicit ReadError(Error e) : std::runtime_error(e.message), error(std::move(e)) {}
};

class TreeWalker {
 public:
  TreeWalker(Module& module, uint32_t file, std::string_view text) : mod_(module), file_(file), text_(text) {}

  // The whole file: definitions or an expression (the metadata section was read before).
  void file(const Node& root);

  // ---- types, literals, attributes (read_types.cc)
  TypePtr type(const Node& n);
  // The `/* ty=T */` comment right after byte `end`, parsed, or null.
  TypePtr printedTypeAfter(size_t end);
  // A number token as Relay lexes it: an int (dtype int32 unless suffixed or too large) or a float
  // (needs the `f` suffix); range errors as TVM's.
  void number(const Node& n, Expr& out);
  AttrValue attrValue(const Node& n);
  void kwarg(const Node& kw, Attrs& out);   // one key=value; a key given twice is an error
  void kwargs(const Node& n, Attrs& out);   // the kwarg children of n
  const MetaValue* meta(const Node& n, std::string& key, int64_t& index);

  Span span(const Node& n) const;
  [[noreturn]] void fail(const Node& n, const std::string& message, std::string hint = {}) const;

 private:
  // ---- expressions (read_expr.cc)
  ExprPtr expr(const Node& n);        // any expression node
  ExprPtr sequence(const Node& n);    // expr: statements separated by ';'
  ExprPtr postfix(const Node& n);
  ExprPtr binary(const Node& n);
  ExprPtr paren(const Node& n);
  ExprPtr ifExpr(const Node& n);
  ExprPtr matchExpr(const Node& n);
  ExprPtr reference(const Node& n);   // %x, %3
  ExprPtr callee(const Node& n);      // a name path: op or constructor
  std::unique_ptr<Function> function(const Node& sig);
  PatternPtr pattern(const Node& n);
  ExprPtr finish(ExprPtr e, const Node& n);  // span + printed type
  void claimPrinted(Expr& e, size_t end);     // the `/* ty */` comment after byte `end`, if any
  // ---- scopes
  int bind(const std::string& name, const Node& where, TypePtr type, bool graph = false);
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  int lookup(const std::string& name, const Node& where);

  void definition(const Node& n);
  void typeDef(const Node& n, bool external);
  void collectTypes(const Node& root);

  Module& mod_;
  uint32_t file_;
  std::string_view text_;
  std::vector<std::map<std::string, int>> scopes_;
  std::map<std::string, int> freeVars_;
  // Graph variables (%N) are unique in a file: Relay's parser silently aliased re-used ones.
  std::map<std::string, Span> graphDefs_;
  std::set<std::string> ctors_;
  // Which node claimed the `/* ty */` comment ending at an offset: the outermost node ending there.
  std::unordered_map<size_t, Expr*> printedOwner_;
};

}  // namespace rlx::relay
