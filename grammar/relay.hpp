// PEGTL rules for Relay v0.0.5 text (TVM's `#[version = "0.0.5"]` format, spec/relay.md §1): whole
// files, modules and expressions. Rules only, no actions; frontend/relay/read.cc walks the tree.
// Convention: no rule begins or ends with whitespace; sequences put `ws` between their items, so
// every node's text is exactly its tokens and a `/* ty=... */` comment after it is outside it.
#pragma once
#include <tao/pegtl.hpp>

namespace rlx::grammar::relay {
using namespace tao::pegtl;

// ---- lexical --------------------------------------------------------------------------------
// Comments: `// ...` to the end of the line; `/* ... */`, nested.
struct block_comment;
struct comment_end : string<'*', '/'> {};
struct block_comment_body : until<comment_end, sor<block_comment, any>> {};
struct block_comment : seq<string<'/', '*'>, must<block_comment_body>> {};
struct line_comment : seq<two<'/'>, star<not_one<'\n'>>> {};
// ws := (' ' | '\t' | '\n' | "\r\n" | comment)*     — a lone '\r' is not whitespace
struct ws : star<sor<one<' ', '\t', '\n'>, string<'\r', '\n'>, line_comment, block_comment>> {};

struct ident_first : ranges<'a', 'z', 'A', 'Z', '_'> {};
struct ident_other : ranges<'a', 'z', 'A', 'Z', '0', '9', '_'> {};
// identifier := [A-Za-z_] [A-Za-z0-9_/]*        (Relay lets '/' continue a name)
struct identifier : seq<ident_first, star<sor<ident_other, seq<one<'/'>, not_at<one<'/', '*'>>>>>> {};

struct kw_let : TAO_PEGTL_KEYWORD("let") {};
struct kw_fn : TAO_PEGTL_KEYWORD("fn") {};
struct kw_def : TAO_PEGTL_KEYWORD("def") {};
struct kw_if : TAO_PEGTL_KEYWORD("if") {};
struct kw_else : TAO_PEGTL_KEYWORD("else") {};
struct kw_type : TAO_PEGTL_KEYWORD("type") {};
struct kw_match : TAO_PEGTL_KEYWORD("match") {};
struct kw_extern : TAO_PEGTL_KEYWORD("extern") {};
struct kw_free_var : TAO_PEGTL_KEYWORD("free_var") {};
struct kw_ref : TAO_PEGTL_KEYWORD("ref") {};
struct kw_ref_read : TAO_PEGTL_KEYWORD("ref_read") {};
struct kw_ref_write : TAO_PEGTL_KEYWORD("ref_write") {};
struct kw_true : TAO_PEGTL_KEYWORD("True") {};
struct kw_false : TAO_PEGTL_KEYWORD("False") {};
struct keyword : sor<kw_let, kw_fn, kw_def, kw_if, kw_else, kw_type, kw_match, kw_extern, kw_free_var, kw_ref_write, kw_ref_read,
                     kw_ref, kw_true, kw_false> {};
// name := identifier that is not a keyword
struct name : seq<not_at<keyword>, identifier> {};
// name_path := name ('.' name)*          (nn.conv2d, relay.Constant)
struct name_path : seq<name, star<one<'.'>, name>> {};

// number := '-'* digit [0-9.eE+-]* [('i' | 'f' | 'u') digit*]  |  '-'* "inff" digit*
// One token as Relay lexes it: "1-1" or "2.5" are single (bad) numbers; the reader checks them.
struct number_suffix : seq<one<'i', 'f', 'u'>, star<digit>> {};
struct inf_number : seq<star<one<'-'>>, string<'i', 'n', 'f', 'f'>, star<digit>, not_at<ident_other>> {};
struct number : sor<inf_number, seq<star<one<'-'>>, digit, star<sor<digit, one<'.', 'e', 'E', '+', '-'>>>, opt<number_suffix>, not_at<ident_other>>> {};
struct boolean : sor<kw_true, kw_false> {};
// string := '"' [^"]* '"'      (no escapes)
struct string_end : one<'"'> {};
struct string_lit : seq<one<'"'>, star<not_one<'"'>>, must<string_end>> {};
// meta_ref := "meta[" name_path "][" digits "]"     (one token)
struct meta_ref : seq<string<'m', 'e', 't', 'a', '['>, name_path, string<']', '['>, plus<digit>, one<']'>> {};

struct local_var : seq<one<'%'>, identifier> {};   // %x
struct graph_var : seq<one<'%'>, plus<digit>, not_at<ident_other>> {};  // %12
struct global_var : seq<one<'@'>, identifier> {};  // @main

struct open_paren : one<'('> {};
struct close_paren : one<')'> {};
struct open_bracket : one<'['> {};
struct close_bracket : one<']'> {};
struct open_brace : one<'{'> {};
struct close_brace : one<'}'> {};
struct comma : one<','> {};
struct semi : one<';'> {};
struct colon : one<':'> {};
struct equals : seq<one<'='>, not_at<one<'=', '>'>>> {};
struct arrow : string<'-', '>'> {};
struct fat_arrow : string<'=', '>'> {};

// ---- types ----------------------------------------------------------------------------------
struct type;
// dim := number | '?' | meta_ref
struct any_dim : one<'?'> {};
struct dim : sor<any_dim, meta_ref, number> {};
// shape := '(' [dim (',' dim)* [',']] ')'  |  dim
struct shape : sor<seq<open_paren, ws, opt<list<dim, seq<ws, comma, ws>>, ws, opt<comma>>, ws, must<close_paren>>, dim> {};
// tensor_type := "Tensor" '[' shape ',' [dtype] ']'     (TVM prints an empty dtype for shape_of without one)
struct kw_tensor : TAO_PEGTL_KEYWORD("Tensor") {};
struct dtype_name : identifier {};
struct tensor_type : seq<kw_tensor, ws, must<open_bracket>, ws, must<shape>, ws, must<comma>, ws, opt<dtype_name>, ws, must<close_bracket>> {};
// tuple_type := '(' [type (',' type)* [',']] ')'
struct tuple_type : seq<open_paren, ws, opt<list<type, seq<ws, comma, ws>>, ws, opt<comma>>, ws, must<close_paren>> {};
// func_type := "fn" '(' [type (',' type)*] ')' "->" type
struct func_type : seq<kw_fn, ws, must<open_paren>, ws, opt<list<type, seq<ws, comma, ws>>>, ws, must<close_paren>, ws, must<arrow>, ws, must<type>> {};
// ref_type := "ref" '(' type ')'        (printed by TVM for ref cells; not in TVM's own grammar)
struct ref_type : seq<kw_ref, ws, open_paren, ws, must<type>, ws, must<close_paren>> {};
struct incomplete_type : seq<one<'_'>, not_at<ident_other>> {};
// named_type := name ['[' type (',' type)* ']']       (a dtype, a type variable, or an ADT)
struct type_args : seq<open_bracket, ws, opt<list<type, seq<ws, comma, ws>>>, ws, must<close_bracket>> {};
struct named_type : seq<name, opt<ws, type_args>> {};
struct type : sor<tensor_type, tuple_type, func_type, ref_type, incomplete_type, named_type> {};
// A type alone, for `/* ty=T */` comments.
struct type_comment : seq<ws, type, ws> {};

// ---- attributes -----------------------------------------------------------------------------
struct expr;
struct atom;
struct kw_none : TAO_PEGTL_KEYWORD("None") {};
struct kw_nullptr : TAO_PEGTL_KEYWORD("nullptr") {};
struct attr_value;
// attr_array := '[' [attr_value (',' attr_value)* [',']] ']'  |  '(' attr_value (',' attr_value)* ')'
struct attr_array : sor<seq<open_bracket, ws, opt<list<attr_value, seq<ws, comma, ws>>, ws, opt<comma>>, ws, must<close_bracket>>,
                        seq<open_paren, ws, list<attr_value, seq<ws, comma, ws>>, ws, opt<comma>, ws, must<close_paren>>> {};
struct attr_none : sor<kw_none, kw_nullptr> {};
struct attr_value : sor<number, boolean, string_lit, meta_ref, attr_none, attr_array, atom> {};
// kwarg := name_path '=' attr_value
struct kwarg_key : name_path {};
struct kwarg : seq<kwarg_key, ws, equals, ws, must<attr_value>> {};
struct kwargs : list<kwarg, seq<ws, opt<comma>, ws>> {};

// ---- expressions ----------------------------------------------------------------------------
// params := '(' [param (',' param)*] [','] [kwargs] ')'        param := local_var ['{' kwargs '}'] [':' type]
struct param_attrs : seq<open_brace, ws, opt<kwargs>, ws, must<close_brace>> {};
struct param : seq<local_var, opt<ws, param_attrs>, opt<ws, colon, ws, must<type>>> {};
struct fn_attrs : kwargs {};
struct params : seq<open_paren, ws, opt<list<param, seq<ws, comma, ws>>, ws, opt<comma>>, ws, opt<fn_attrs>, ws, must<close_paren>> {};
struct type_params : seq<open_bracket, ws, list<name, seq<ws, comma, ws>>, ws, must<close_bracket>> {};
struct ret_type : seq<arrow, ws, must<type>> {};
struct body : seq<open_brace, ws, must<expr>, ws, must<close_brace>> {};
// fn_sig := [type_params] params ['->' type] '{' expr '}'
struct fn_sig : seq<opt<type_params, ws>, must<params>, ws, opt<ret_type, ws>, must<body>> {};
struct fn_expr : seq<kw_fn, ws, must<fn_sig>> {};

// if_expr := "if" '(' expr ')' '{' expr '}' "else" '{' expr '}'
struct if_cond : seq<open_paren, ws, must<expr>, ws, must<close_paren>> {};
struct if_expr : seq<kw_if, ws, must<if_cond>, ws, must<body>, ws, must<kw_else>, ws, must<body>> {};

struct ref_new : seq<kw_ref, ws, open_paren, ws, must<expr>, ws, must<close_paren>> {};
struct ref_read : seq<kw_ref_read, ws, must<open_paren>, ws, must<expr>, ws, must<close_paren>> {};
struct ref_write : seq<kw_ref_write, ws, must<open_paren>, ws, must<expr>, ws, must<comma>, ws, must<expr>, ws, must<close_paren>> {};

// paren := '(' ')' | '(' expr ')' | '(' expr ',' [expr (',' expr)*] [','] ')'     (unit, group, tuple)
struct tuple_comma : comma {};
struct paren : seq<open_paren, ws, opt<expr, ws, opt<tuple_comma, ws, opt<list<expr, seq<ws, comma, ws>>, ws, opt<comma>>>>, ws, must<close_paren>> {};

// ctor_or_op := name_path          (an operator, or an ADT constructor)
struct ctor_or_op : name_path {};
struct atom : sor<number, boolean, meta_ref, graph_var, local_var, global_var, fn_expr, if_expr, ref_write, ref_read, ref_new, paren, ctor_or_op> {};

// args := '(' [(expr | kwargs | meta_ref) (',' ...)*] [','] ')'
struct call_arg : sor<kwarg, expr> {};
struct call_args : seq<open_paren, ws, opt<list<call_arg, seq<ws, comma, ws>>, ws, opt<comma>>, ws, must<close_paren>> {};
struct proj_index : plus<digit> {};
struct projection : seq<one<'.'>, proj_index> {};
// postfix := atom (call_args | '.' digits)*
struct postfix : seq<atom, star<ws, sor<call_args, projection>>> {};

struct op_mul : sor<one<'*'>, seq<one<'/'>, not_at<one<'/', '*'>>>> {};
struct op_add : sor<one<'+'>, seq<one<'-'>, not_at<one<'>'>>>> {};
struct op_rel : sor<string<'<', '='>, string<'>', '='>, one<'<'>, one<'>'>> {};
struct op_eq : sor<string<'=', '='>, string<'!', '='>> {};
// Binary operators, by precedence (all left-associative): * / , + - , < > <= >= , == !=
struct mul_expr : seq<postfix, star<ws, op_mul, ws, must<postfix>>> {};
struct add_expr : seq<mul_expr, star<ws, op_add, ws, must<mul_expr>>> {};
struct rel_expr : seq<add_expr, star<ws, op_rel, ws, must<add_expr>>> {};
struct binop : seq<rel_expr, star<ws, op_eq, ws, must<rel_expr>>> {};

// match := ("match" | "match?") (paren | atom) '{' [arm (',' arm)* [',']] '}'
struct pattern;
struct wildcard : seq<one<'_'>, not_at<ident_other>> {};
struct pattern_var : seq<local_var, opt<ws, colon, ws, must<type>>> {};
struct pattern_list : seq<open_paren, ws, opt<list<pattern, seq<ws, comma, ws>>, ws, opt<comma>>, ws, must<close_paren>> {};
struct pattern_ctor : seq<name, opt<ws, pattern_list>> {};
struct pattern_tuple : pattern_list {};
struct pattern : sor<wildcard, pattern_var, pattern_ctor, pattern_tuple> {};
struct arm : seq<pattern, ws, must<fat_arrow>, ws, must<expr>> {};
struct match_partial : one<'?'> {};
struct match_expr : seq<kw_match, opt<match_partial>, ws, must<postfix>, ws, must<open_brace>, ws, opt<list<arm, seq<ws, comma, ws>>, ws, opt<comma>>, ws,
                        must<close_brace>> {};

// A braced expression is a new scope.
struct scope_expr : seq<open_brace, ws, must<expr>, ws, must<close_brace>> {};
// value := match | scope | binop        (what a binding binds; TVM itself allows only binop)
struct value : sor<match_expr, scope_expr, binop> {};
// Statements of a sequence: bindings, free variables, and plain expressions (`a; b`).
struct let_binding : seq<kw_let, ws, must<local_var>, ws, opt<colon, ws, must<type>, ws>, must<equals>, ws, must<value>> {};
struct graph_binding : seq<graph_var, ws, equals, ws, must<value>> {};
struct free_var_decl : seq<kw_free_var, ws, must<local_var>, opt<ws, colon, ws, must<type>>> {};
struct stmt : sor<let_binding, graph_binding, free_var_decl, value> {};
// expr := stmt (';' stmt)*       — every statement but the last binds or is evaluated for effect
struct expr : seq<stmt, star<ws, semi, ws, must<stmt>>> {};

// ---- files ----------------------------------------------------------------------------------
// version := "#[version" '=' '"' ... '"' ']'
struct version_string : seq<one<'"'>, star<not_one<'"', '\n'>>, one<'"'>> {};
struct version : seq<string<'#', '['>, ws, TAO_PEGTL_KEYWORD("version"), ws, must<one<'='>>, ws, must<version_string>, ws, must<close_bracket>> {};
// metadata := "#[metadata]" json...    (the rest of the file; read by metadata.cc)
struct metadata_json : star<any> {};
struct metadata : seq<string<'#', '[', 'm', 'e', 't', 'a', 'd', 'a', 't', 'a', ']'>, metadata_json> {};

// typedef := name ['[' name (',' name)* ']'] ['{' [ctor (',' ctor)* [',']] '}']     ctor := name ['(' type, ... ')']
struct ctor_fields : seq<open_paren, ws, opt<list<type, seq<ws, comma, ws>>, ws, opt<comma>>, ws, must<close_paren>> {};
struct ctor_def : seq<name, opt<ws, ctor_fields>> {};
struct ctor_defs : seq<open_brace, ws, opt<list<ctor_def, seq<ws, comma, ws>>, ws, opt<comma>>, ws, must<close_brace>> {};
struct type_name : name {};
struct typedef_body : seq<must<type_name>, opt<ws, type_params>, opt<ws, ctor_defs>> {};
struct type_def : seq<kw_type, ws, typedef_body> {};
struct extern_type_def : seq<kw_extern, ws, must<kw_type>, ws, typedef_body> {};
struct def_name : global_var {};
struct func_def : seq<kw_def, ws, must<def_name>, ws, must<fn_sig>> {};
struct definition : sor<func_def, type_def, extern_type_def> {};
struct definitions : list<definition, ws> {};

// file := ws [version] ws (definitions | expr) ws [metadata] eof
struct file_end : eof {};
struct file : seq<ws, opt<version>, ws, opt<sor<definitions, expr>>, ws, opt<metadata>, must<file_end>> {};

}  // namespace rlx::grammar::relay
