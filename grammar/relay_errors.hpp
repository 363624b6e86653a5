// Human-readable messages for the Relay rules that raise on failure (`must<...>`): the user reads
// "expected ')'" at a caret rather than a demangled rule name.
#pragma once
#include <type_traits>

#include "grammar/relay.hpp"

namespace rlx::grammar::relay {

template <typename Rule>
constexpr const char* errorMessage() {
  if constexpr (std::is_same_v<Rule, close_paren>) return "expected ')'";
  else if constexpr (std::is_same_v<Rule, open_paren> || std::is_same_v<Rule, params> || std::is_same_v<Rule, if_cond>) return "expected '('";
  else if constexpr (std::is_same_v<Rule, close_bracket>) return "expected ']'";
  else if constexpr (std::is_same_v<Rule, open_bracket>) return "expected '['";
  else if constexpr (std::is_same_v<Rule, close_brace>) return "expected '}'";
  else if constexpr (std::is_same_v<Rule, open_brace> || std::is_same_v<Rule, body>) return "expected '{'";
  else if constexpr (std::is_same_v<Rule, comma>) return "expected ','";
  else if constexpr (std::is_same_v<Rule, equals> || std::is_same_v<Rule, one<'='>>) return "expected '='";
  else if constexpr (std::is_same_v<Rule, arrow>) return "expected '->'";
  else if constexpr (std::is_same_v<Rule, fat_arrow>) return "expected '=>' after the pattern";
  else if constexpr (std::is_same_v<Rule, kw_else>) return "expected 'else' (an if needs both branches)";
  else if constexpr (std::is_same_v<Rule, kw_type>) return "expected 'type' after 'extern'";
  else if constexpr (std::is_same_v<Rule, local_var>) return "expected a local variable (%name)";
  else if constexpr (std::is_same_v<Rule, def_name>) return "expected the function's global name (@name) after 'def'";
  else if constexpr (std::is_same_v<Rule, type_name>) return "expected the type's name";
  else if constexpr (std::is_same_v<Rule, fn_sig>) return "expected a function signature";
  else if constexpr (std::is_same_v<Rule, type> || std::is_same_v<Rule, shape>) return "expected a type";
  else if constexpr (std::is_same_v<Rule, attr_value>) return "expected an attribute value";
  else if constexpr (std::is_same_v<Rule, expr> || std::is_same_v<Rule, stmt> || std::is_same_v<Rule, value> ||
                     std::is_same_v<Rule, postfix> || std::is_same_v<Rule, mul_expr> || std::is_same_v<Rule, add_expr> ||
                     std::is_same_v<Rule, rel_expr>)
    return "expected an expression";
  else if constexpr (std::is_same_v<Rule, string_end>) return "unterminated string";
  else if constexpr (std::is_same_v<Rule, block_comment_body>) return "unterminated comment (/* without */)";
  else if constexpr (std::is_same_v<Rule, version_string>) return "expected the version string, as in #[version = \"0.0.5\"]";
  else if constexpr (std::is_same_v<Rule, file_end>) return "unexpected text: expected a definition (def, type), an expression, or the end of the file";
  else return "invalid syntax";
}

}  // namespace rlx::grammar::relay
