// Human-readable messages for grammar rules that raise on failure (`must<...>`): the user sees
// "expected ')'" rather than a demangled rule name.
#pragma once
#include "grammar/grammar.hpp"

namespace rlx::grammar {

template <typename Rule>
constexpr const char* errorMessage() {
  if constexpr (std::is_same_v<Rule, close_paren>) return "expected ')'";
  else if constexpr (std::is_same_v<Rule, close_bracket>) return "expected ']'";
  else if constexpr (std::is_same_v<Rule, close_brace>) return "expected '}'";
  else if constexpr (std::is_same_v<Rule, dict_colon>) return "expected ':' between a dict key and its value";
  else if constexpr (std::is_same_v<Rule, attr_name>) return "expected a name after '.'";
  else if constexpr (std::is_same_v<Rule, operand> || std::is_same_v<Rule, binary_expr> || std::is_same_v<Rule, test> || std::is_same_v<Rule, testlist>)
    return "expected an expression";
  else if constexpr (std::is_same_v<Rule, lambda_colon>) return "expected ':' after the lambda parameters";
  else if constexpr (std::is_same_v<Rule, ifexp_else>) return "expected 'else' in the conditional expression";
  else if constexpr (std::is_same_v<Rule, def_name>) return "expected the function name after 'def'";
  else if constexpr (std::is_same_v<Rule, def_open>) return "expected '(' after the function name";
  else if constexpr (std::is_same_v<Rule, class_name>) return "expected the class name after 'class'";
  else if constexpr (std::is_same_v<Rule, block_colon>) return "expected ':' at the end of the block header";
  else if constexpr (std::is_same_v<Rule, for_target>) return "expected loop variables after 'for'";
  else if constexpr (std::is_same_v<Rule, for_in>) return "expected 'in' after the loop variables";
  else if constexpr (std::is_same_v<Rule, with_target>) return "expected a name after 'as'";
  else if constexpr (std::is_same_v<Rule, line_end>) return "unexpected text after the end of the statement";
  else return "invalid syntax";
}

}  // namespace rlx::grammar
