// The Relay v0.0.5 syntax tree: what the reader (parse.cc) builds from text, names already resolved
// to their binders, and what the importer (import.cc) translates into Relax. Nothing here is Relax.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/ndarray.h"
#include "ir/span.h"

namespace rlx::relay {

// ---- types ---------------------------------------------------------------------------------
struct Type;
using TypePtr = std::unique_ptr<Type>;

struct MetaValue;

// One dimension of a tensor type: a number, `?` (Any) or a `meta[...]` entry (a shape variable).
struct Dim {
  enum Kind { Int, Any, Meta } kind = Int;
  int64_t value = 0;
  Span span;
  const MetaValue* meta = nullptr;  // Meta: the entry it names (a tir.SizeVar / tir.Var, or an IntImm)
};

struct Type {
  enum Kind {
    Tensor,      // Tensor[(2, ?), float32]; a bare dtype (`float32`) is a 0-d tensor
    Tuple,       // (T1, T2) / () / (T,)
    Func,        // fn (T1, T2) -> R
    Named,       // a type variable (`A`) or an ADT applied to arguments (`List[A]`)
    Incomplete,  // `_`
    Ref,         // ref(T): printed by TVM, not in its grammar; read so TVM's own output re-reads
  } kind = Incomplete;
  Span span;
  std::vector<Dim> shape;       // Tensor
  std::string dtype;            // Tensor: normalized ("float32"; bare "float" -> "float32")
  std::vector<TypePtr> fields;  // Tuple fields; Func params; Named arguments; Ref: its one type
  TypePtr ret;                  // Func
  std::string name;             // Named
};

// ---- metadata ------------------------------------------------------------------------------
// One `meta[KEY][i]` entry, from the `#[metadata]` section or an external table.
struct MetaValue {
  enum Kind { Constant, Int, Float, VirtualDevice, Other, SymVar } kind = Other;
  std::string typeKey;    // "relay.Constant", "runtime.BoxInt", "VirtualDevice", ...
  NDArrayRef array;       // Constant
  int64_t value = 0;      // Int (runtime.BoxInt, runtime.BoxBool as 0/1, IntImm)
  double f = 0;           // Float (runtime.BoxFloat, FloatImm)
  std::string dtype;      // IntImm / FloatImm: their dtype ("int64"); "" for the boxed values
  int deviceType = -1;    // VirtualDevice: DLDeviceType (1 cpu, 2 cuda, ...), -1 unconstrained
  int virtualDeviceId = -1;
  std::string memoryScope;
  std::string target;     // VirtualDevice: the target's kind when it has one ("llvm", "cuda")
  std::string name;       // SymVar (tir.SizeVar, tir.Var): the variable's name ("n"); dtype its dtype
};
using MetaTable = std::map<std::string, std::vector<MetaValue>>;

// ---- expressions ---------------------------------------------------------------------------
struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr;

// An attribute value (`key=value` in calls and after function parameters).
struct AttrValue {
  enum Kind { Int, Float, Bool, String, None, Array, Meta, Expr } kind = None;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;                 // String; Meta: the type key
  std::string dtype;             // Int / Float: "int32", "int64", "float32", ... from the suffix
  std::vector<AttrValue> items;  // Array
  int64_t index = 0;             // Meta: the index
  std::shared_ptr<relay::Expr> expr;  // Expr: an atom written as a value (rare)
  Span span;
};
using Attrs = std::vector<std::pair<std::string, AttrValue>>;

// A name-binding occurrence: a parameter, `let %x`, `%N = ...`, `free_var %x`, a match pattern var.
// References point to binders by index into Module::binders.
struct Binder {
  std::string name;  // without '%' ("x", or "3" for a graph variable); "" for `a; b`
  TypePtr type;      // the annotation, or null
  Span span;
  bool graph = false;    // %N = ...
  bool free = false;     // free_var
  Attrs attrs;       // `%x {virtual_device=...}`
  TypePtr printed;   // the `/* ty=T */` comment TVM printed after the parameter, if any
};


struct Function {
  std::vector<std::string> typeParams;  // fn[A, B](...)
  std::vector<int> params;              // binder indices
  Attrs attrs;                          // kwargs after the parameters (Primitive=1, ...)
  TypePtr ret;                          // `-> T`, or null
  ExprPtr body;
  Span span;
};

struct Pattern;
using PatternPtr = std::unique_ptr<Pattern>;
struct Pattern {
  enum Kind { Wildcard, Var, Ctor, Tuple } kind = Wildcard;
  int binder = -1;  // Var
  std::string ctor; // Ctor
  std::vector<PatternPtr> fields;
  Span span;
};
struct MatchArm {
  PatternPtr pattern;
  ExprPtr body;
};

struct Expr {
  enum Kind {
    Local,      // a reference to binder `binder` (parameter, let, graph or free variable)
    Global,     // @name
    OpName,     // nn.conv2d, add, ... (an identifier path that is not a constructor)
    Ctor,       // a constructor of an ADT of the module (`Cons`, `Nil`)
    Scalar,     // 1, 2i64, 3.5f, True: value in i / f / b, dtype in dtype
    MetaRef,    // meta[KEY][index]: `meta` points into the module's table when resolved
    Call,       // callee(args..., attrs)
    Tuple,      // (a, b)
    Proj,       // tuple.index
    Let,        // a run of `let %x = v;`, `%N = v;` (binder.graph) and `a;` (name "") bindings, then kids[0]
    If,         // if (cond) { then } else { otherwise }
    Fn,         // fn (...) { ... }
    Match,      // match / match?
    RefNew,     // ref(e)
    RefRead,    // ref_read(e)
    RefWrite,   // ref_write(r, e)
  } kind = Tuple;
  Span span;

  int binder = -1;               // Local
  std::string name;              // Global / OpName / Ctor / MetaRef type key
  int64_t i = 0;                 // Scalar int / bool (0 or 1); Proj index; MetaRef index
  double f = 0;                  // Scalar float
  std::string dtype;             // Scalar: "int32", "int64", "float32", "bool", ...
  const MetaValue* meta = nullptr;  // MetaRef, when the table has the entry

  // Call: [callee, args...]; Tuple: fields; Proj: [tuple]; Let: [body];
  // If: [cond, then, else]; Match: [scrutinee]; RefNew/RefRead: [e]; RefWrite: [ref, value].
  std::vector<ExprPtr> kids;
  Attrs attrs;                   // Call
  // Let: the bindings in order (binder index, value), flat so that long programs nest no deeper.
  std::vector<std::pair<int, ExprPtr>> bindings;
  std::unique_ptr<Function> fn;  // Fn
  std::vector<MatchArm> arms;    // Match
  bool complete = true;          // Match: false for `match?`
  // The type in the `/* ty=T */` comment TVM printed after this node, if any: not semantics (comments
  // are skipped), but an oracle the importer's inferred struct info is checked against.
  TypePtr printed;
};

// ---- module --------------------------------------------------------------------------------
struct Constructor {
  std::string name;
  std::vector<TypePtr> fields;
  Span span;
};
struct TypeDef {
  std::string name;
  std::vector<std::string> typeParams;
  std::vector<Constructor> ctors;
  bool external = false;  // `extern type`
  Span span;
};
struct GlobalDef {
  std::string name;  // without '@'
  Function fn;
  Span span;
};

// A parsed file: a module (`def`s and `type`s) or an expression file (`body` set).
struct Module {
  std::vector<TypeDef> types;
  std::vector<GlobalDef> functions;  // in source order
  ExprPtr body;                      // expression files only
  std::vector<int> freeVars;         // expression files: `free_var` binders, in order
  std::vector<Binder> binders;
  MetaTable meta;                    // `#[metadata]`, then the external table's entries appended
  uint32_t file = 0;                 // the source (for spans)
};

}  // namespace rlx::relay
