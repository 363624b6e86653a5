// Dataflow patterns in text (TVM's tvm.relax.dpl, written on a command line or in the shell) and
// their matcher over the bindings of a dataflow block. FuseOpsByPattern takes its table in this form.
//
// Syntax (EBNF; blanks between tokens are free):
//   text     := { IDENT '=' alt ';' } alt [ ';' ]   named sub-patterns first, then the pattern
//   alt      := typed { '|' typed }                 alternatives, tried left to right
//   typed    := postfix [ ':' type ]                struct info constraint on the matched value
//   postfix  := atom { '{' attrs '}' | '[' INT ']' }   call attrs; tuple field (TupleGetItem)
//   atom     := '_' | '*'                           any expression (TVM's wildcard())
//             | 'const'                             a constant (is_const())
//             | '$' IDENT                           a named sub-pattern, defined before use
//             | OPNAME [ '(' [ args ] ')' ]         a call of the op (is_op(...)(args...));
//                                                   without parentheses any arguments match
//             | '(' alt ')'
//   args     := alt { ',' alt } [ ',' '...' ] | '...'   '...': any further arguments
//   OPNAME   := IDENT { '.' IDENT }                 relax.nn.conv2d, R.nn.conv2d or nn.conv2d
//   type     := [ DTYPE ] [ '[' dim { ',' dim } ']' ]   float16, [1, 64, _, _], float32[n, 4]
//   dim      := INT | '_' | IDENT                   IDENT: a symbolic var of that name
//   attrs    := IDENT '=' literal { ',' IDENT '=' literal }
//   literal  := STRING | INT | FLOAT | True | False | None | '[' literals ']' | '(' literals ')'
// Examples:
//   nn.conv2d(_, _){data_layout="NCHW"}
//   nn.relu(add(nn.conv2d(_, _), _) | nn.conv2d(_, _))
//   w = const; matmul(_:float16, $w)
//   s = split(_); add($s[0], $s[1])
// Semantics (TVM's): an argument that is a var bound earlier in the same dataflow block is matched
// through its binding by call, const and tuple-field patterns; a wildcard matches the var itself. A
// named sub-pattern used twice must match the same expression both times (add($x, $x) with x = _
// matches add(a, a) only). Attribute values compare as Python literals: 1 equals 1.0 and [1, 1]
// equals (1, 1); a string equals a dtype or string attr of that text.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/expr.h"

namespace rlx {

struct PatternNode;
using PatternRef = std::shared_ptr<const PatternNode>;

struct PatternNode {
  enum Kind { Wildcard, Const, Call, Alt, TupleItem };
  Kind kind = Wildcard;
  std::string op;                     // Call: the full op name ("relax.nn.conv2d")
  bool anyArgs = false;               // Call: `op` without parentheses
  bool moreArgs = false;              // Call: trailing `...`
  std::vector<PatternRef> children;   // Call: args; Alt: alternatives; TupleItem: the tuple
  int index = 0;                      // TupleItem
  std::vector<std::pair<std::string, Attr>> attrs;  // Call: attribute constraints
  std::optional<DataType> dtype;      // struct info constraints
  struct Dim {
    enum Kind { Any, Int, Sym } kind = Any;
    int64_t value = 0;
    std::string name;
  };
  std::optional<std::vector<Dim>> shape;
  std::string name;  // the sub-pattern's name when defined with `name = ...`
};

// Parses pattern text; errors point into it (sourceName:1:col, the text, a caret).
Result<PatternRef> parsePattern(const std::string& text, const std::string& sourceName);

// A match of a pattern at one binding: the vars whose bindings the pattern's call and tuple-field
// nodes matched (the root binding's var first).
struct PatternMatch {
  std::vector<const Var*> vars;
};

// Matches `pattern` against the value of `root` (a binding), looking through vars bound by
// `bindings` (the earlier var bindings of the same block).
std::optional<PatternMatch> matchPattern(const PatternNode& pattern, const Binding& root, const std::unordered_map<const Var*, Expr>& bindings);

}  // namespace rlx
