// PEGTL rules for one logical line of TVMScript (a Python subset): expressions, statement lines and
// block headers. Rules only: no actions here (parser/parse_line.cc attaches them); EBNF beside each rule.
#pragma once
#include <string_view>

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze_traits.hpp>

namespace rlx::grammar {
using namespace tao::pegtl;

// ---- lexical --------------------------------------------------------------------------------
// comment := '#' (any but newline)*        (inside brackets only; line splitting strips the rest)
struct comment : seq<one<'#'>, star<not_one<'\n'>>> {};
struct continuation : seq<one<'\\'>, eol> {};
// ws := (space | tab | newline | comment | '\' newline)*   — a logical line only has newlines in brackets
struct ws : star<sor<one<' ', '\t', '\r', '\n', '\f'>, comment, continuation>> {};

struct kw_and : TAO_PEGTL_KEYWORD("and") {};
struct kw_or : TAO_PEGTL_KEYWORD("or") {};
struct kw_not : TAO_PEGTL_KEYWORD("not") {};
struct kw_if : TAO_PEGTL_KEYWORD("if") {};
struct kw_elif : TAO_PEGTL_KEYWORD("elif") {};
struct kw_else : TAO_PEGTL_KEYWORD("else") {};
struct kw_lambda : TAO_PEGTL_KEYWORD("lambda") {};
struct kw_none : TAO_PEGTL_KEYWORD("None") {};
struct kw_true : TAO_PEGTL_KEYWORD("True") {};
struct kw_false : TAO_PEGTL_KEYWORD("False") {};
struct kw_in : TAO_PEGTL_KEYWORD("in") {};
struct kw_is : TAO_PEGTL_KEYWORD("is") {};
struct kw_for : TAO_PEGTL_KEYWORD("for") {};
struct kw_def : TAO_PEGTL_KEYWORD("def") {};
struct kw_class : TAO_PEGTL_KEYWORD("class") {};
struct kw_return : TAO_PEGTL_KEYWORD("return") {};
struct kw_with : TAO_PEGTL_KEYWORD("with") {};
struct kw_as : TAO_PEGTL_KEYWORD("as") {};
struct kw_pass : TAO_PEGTL_KEYWORD("pass") {};
struct kw_from : TAO_PEGTL_KEYWORD("from") {};
struct kw_import : TAO_PEGTL_KEYWORD("import") {};
struct kw_while : TAO_PEGTL_KEYWORD("while") {};
struct kw_assert : TAO_PEGTL_KEYWORD("assert") {};
struct reserved : sor<kw_and, kw_or, kw_not, kw_if, kw_elif, kw_else, kw_lambda, kw_none, kw_true, kw_false, kw_in, kw_is,
                      kw_for, kw_def, kw_class, kw_return, kw_with, kw_as, kw_pass, kw_from, kw_import, kw_while, kw_assert> {};

// name := identifier that is not a keyword. A hand-written rule: it scans the identifier once and
// looks it up, instead of trying every keyword first (that was the parser's hottest path).
bool isReservedWord(std::string_view word);
struct name {
  using rule_t = name;
  using subs_t = type_list<>;
  template <apply_mode, rewind_mode, template <typename...> class Action, template <typename...> class Control, typename ParseInput, typename... States>
  [[nodiscard]] static bool match(ParseInput& in, States&&...) {
    const char* b = in.current();
    const char* e = in.end();
    auto isFirst = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (b == e || !isFirst(*b)) return false;
    const char* p = b + 1;
    while (p != e && (isFirst(*p) || (*p >= '0' && *p <= '9'))) ++p;
    if (isReservedWord(std::string_view(b, size_t(p - b)))) return false;
    in.bump_in_this_line(size_t(p - b));
    return true;
  }
};

// number := digits ['.' digits] [exponent] | '.' digits [exponent]   (one token; int vs float decided in the action)
struct exponent : seq<one<'e', 'E'>, opt<one<'+', '-'>>, plus<digit>> {};
struct number : seq<sor<seq<plus<digit>, opt<one<'.'>, star<digit>>>, seq<one<'.'>, plus<digit>>>, opt<exponent>, not_at<identifier_other>> {};

// string := '"' char* '"' | "'" char* "'" | '"""' ... '"""'   (escapes decoded in the action)
struct escaped : seq<one<'\\'>, any> {};
struct triple_string : seq<string<'"', '"', '"'>, until<string<'"', '"', '"'>, sor<escaped, any>>> {};
struct dq_string : seq<one<'"'>, until<one<'"'>, sor<escaped, not_one<'\n'>>>> {};
struct sq_string : seq<one<'\''>, until<one<'\''>, sor<escaped, not_one<'\n'>>>> {};
struct string_piece : sor<triple_string, dq_string, sq_string> {};
// strings := string (ws string)*          (adjacent literals concatenate)
struct strings : seq<string_piece, star<ws, string_piece>> {};

// ---- expressions ----------------------------------------------------------------------------
struct test;
struct trailing_comma : one<','> {};
struct close_paren : one<')'> {};
struct close_bracket : one<']'> {};
struct close_brace : one<'}'> {};

// testlist_items := test (',' test)* [',']
struct testlist_items : seq<test, ws, star<one<','>, ws, test, ws>, opt<trailing_comma, ws>> {};
// paren := '(' [testlist_items] ')'
struct paren : seq<one<'('>, ws, opt<testlist_items>, must<close_paren>> {};
// list := '[' [testlist_items] ']'
struct list : seq<one<'['>, ws, opt<testlist_items>, must<close_bracket>> {};
// dict := '{' [test ':' test (',' test ':' test)* [',']] '}'
struct dict_colon : one<':'> {};
struct dict_entry : seq<test, ws, must<dict_colon>, ws, test, ws> {};
struct dict : seq<one<'{'>, ws, opt<dict_entry, star<one<','>, ws, dict_entry>, opt<one<','>, ws>>, must<close_brace>> {};
struct none_lit : kw_none {};
struct true_lit : kw_true {};
struct false_lit : kw_false {};
struct name_ref : name {};
// atom := paren | list | dict | None | True | False | number | strings | name
struct atom : sor<paren, list, dict, none_lit, true_lit, false_lit, number, strings, name_ref> {};

// argument := name '=' test | '*' test | test
struct kwarg_name : name {};
struct kwarg : seq<kwarg_name, ws, one<'='>, not_at<one<'='>>, ws, test> {};
struct star_arg : seq<one<'*'>, not_at<one<'*'>>, ws, test> {};
struct argument : sor<kwarg, star_arg, test> {};
struct arglist : seq<argument, ws, star<one<','>, ws, argument, ws>, opt<one<','>, ws>> {};
// trailer := '(' [arglist] ')' | '[' subscripts ']' | '.' name
struct call_trailer : seq<one<'('>, ws, opt<arglist>, must<close_paren>> {};
struct slice_lo : seq<test> {};
struct slice_hi : seq<test> {};
struct slice_step : seq<test> {};
struct slice_colon : one<':'> {};
// subscript := [test] ':' [test] [':' [test]] | test
struct slice : seq<opt<slice_lo, ws>, slice_colon, ws, opt<slice_hi, ws>, opt<one<':'>, ws, opt<slice_step, ws>>> {};
struct subscript : sor<slice, test> {};
struct subscript_trailer : seq<one<'['>, ws, subscript, ws, star<one<','>, ws, subscript, ws>, opt<trailing_comma, ws>, must<close_bracket>> {};
struct attr_name : name {};
struct attr_trailer : seq<one<'.'>, ws, must<attr_name>> {};
struct trailer : sor<call_trailer, subscript_trailer, attr_trailer> {};
// primary := atom (ws trailer)*
struct primary : seq<atom, star<ws, trailer>> {};

// Operators. One flat rule handles every binary precedence level (precedence climbing happens in
// the action), so an atom costs one rule descent instead of fifteen.
// prefix_op := '-' | '+' | '~' | 'not'
struct op_prefix : sor<one<'-'>, one<'+'>, one<'~'>, seq<at<one<'n'>>, kw_not>> {};
// binary_op := '**' | '//' | '<<' | '>>' | '==' | '!=' | '<=' | '>=' | '*' | '/' | '%' | '@' | '+' | '-'
//            | '&' | '^' | '|' | '<' | '>' | 'not' 'in' | 'in' | 'is' 'not' | 'is' | 'and' | 'or'
struct op_binary : sor<string<'*', '*'>, string<'/', '/'>, string<'<', '<'>, string<'>', '>'>, string<'=', '='>, string<'!', '='>,
                       string<'<', '='>, string<'>', '='>, one<'*'>, one<'/'>, one<'%'>, one<'@'>, one<'+'>, one<'-'>, one<'&'>,
                       one<'^'>, one<'|'>, one<'<'>, one<'>'>,
                       // word operators, tried only where one can start (after most operands comes ',' or ')')
                       seq<at<one<'n', 'i', 'a', 'o'>>, sor<seq<kw_not, ws, kw_in>, kw_in, seq<kw_is, ws, kw_not>, kw_is, kw_and, kw_or>>> {};
// operand := prefix_op* primary
struct operand : seq<star<op_prefix, ws>, primary> {};
// binary_expr := operand (binary_op operand)*
struct binary_expr : seq<operand, ws, star<op_binary, ws, must<operand>, ws>> {};
struct lambda_param : name {};
struct lambda_colon : one<':'> {};
// lambda := 'lambda' [name (',' name)*] ':' test
struct lambda : seq<kw_lambda, ws, opt<lambda_param, ws, star<one<','>, ws, lambda_param, ws>>, must<lambda_colon>, ws, must<test>> {};
struct ifexp_else : kw_else {};
// conditional := binary_expr ['if' binary_expr 'else' test]
struct conditional : seq<binary_expr, ws, opt<kw_if, ws, must<binary_expr>, ws, must<ifexp_else>, ws, must<test>>> {};
// test := lambda | conditional
struct test : sor<lambda, conditional> {};
// testlist := test (',' test)* [',']    (a tuple when it has a comma)
struct testlist : seq<test, ws, star<one<','>, ws, test, ws>, opt<trailing_comma, ws>> {};

// ---- statement lines --------------------------------------------------------------------------
struct line_end : seq<ws, eof> {};
struct block_colon : one<':'> {};
// decorator := '@' test
struct decorator : seq<one<'@'>, ws, must<test>, must<line_end>> {};
struct param_name : name {};
struct param_annotation : seq<one<':'>, ws, must<test>> {};
struct param_default : seq<one<'='>, ws, must<test>> {};
struct param : seq<param_name, ws, opt<param_annotation, ws>, opt<param_default, ws>> {};
struct param_list : seq<param, star<one<','>, ws, param>, opt<one<','>, ws>> {};
struct def_name : name {};
struct def_returns : seq<string<'-', '>'>, ws, must<test>> {};
struct def_open : one<'('> {};
// def_header := 'def' name '(' [params] ')' ['->' test] ':'
struct def_header : seq<kw_def, ws, must<def_name>, ws, must<def_open>, ws, opt<param_list>, must<close_paren>, ws, opt<def_returns, ws>, must<block_colon>, must<line_end>> {};
struct class_name : name {};
struct class_bases : seq<one<'('>, ws, opt<arglist>, must<close_paren>> {};
// class_header := 'class' name ['(' args ')'] ':'
struct class_header : seq<kw_class, ws, must<class_name>, ws, opt<class_bases, ws>, must<block_colon>, must<line_end>> {};
struct if_header : seq<kw_if, ws, must<test>, ws, must<block_colon>, must<line_end>> {};
struct elif_header : seq<kw_elif, ws, must<test>, ws, must<block_colon>, must<line_end>> {};
struct else_header : seq<kw_else, ws, must<block_colon>, must<line_end>> {};
struct for_target : seq<primary, ws, star<one<','>, ws, primary, ws>> {};
struct for_in : kw_in {};
// for_header := 'for' targets 'in' test ':'
struct for_header : seq<kw_for, ws, must<for_target>, must<for_in>, ws, must<test>, ws, must<block_colon>, must<line_end>> {};
struct with_target : seq<primary, ws, star<one<','>, ws, primary, ws>> {};
struct with_as : seq<kw_as, ws, must<with_target>> {};
// with_header := 'with' test ['as' targets] ':'
struct with_header : seq<kw_with, ws, must<test>, ws, opt<with_as, ws>, must<block_colon>, must<line_end>> {};
// return_stmt := 'return' [testlist]
struct return_stmt : seq<kw_return, ws, opt<testlist>, must<line_end>> {};
struct pass_stmt : seq<kw_pass, must<line_end>> {};
struct import_stmt : seq<sor<kw_from, kw_import>, star<any>> {};
struct while_stmt : seq<kw_while, star<any>> {};
// assert_stmt := 'assert' test [',' test]      (TIR's concise form of T.Assert)
struct assert_stmt : seq<kw_assert, ws, must<test>, ws, opt<one<','>, ws, must<test>, ws>, must<line_end>> {};
struct assign_annotation : seq<one<':'>, ws, must<test>> {};
struct assign_value : seq<one<'='>, not_at<one<'='>>, ws, must<testlist>> {};
// simple_stmt := testlist [':' test] ['=' testlist]
struct simple_stmt : seq<testlist, ws, opt<assign_annotation, ws>, opt<assign_value, ws>, must<line_end>> {};
// line := one statement or block header
struct line : seq<ws, sor<decorator, def_header, class_header, if_header, elif_header, else_header, for_header, with_header,
                          return_stmt, pass_stmt, import_stmt, while_stmt, assert_stmt, simple_stmt>> {};

}  // namespace rlx::grammar

namespace tao::pegtl {
// The hand-written `name` rule consumes input whenever it succeeds (for pegtl::analyze).
template <typename Name>
struct analyze_traits<Name, rlx::grammar::name> : analyze_any_traits<> {};
}  // namespace tao::pegtl
