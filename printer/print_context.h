// The printer's shared state: output lines with indentation, which script prefixes (I/T/R) were
// used (they decide the header), scoped name de-duplication, and PrimExpr printing in both styles.
#pragma once
#include <functional>
#include <initializer_list>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/flat_map.h"
#include "ir/module.h"
#include "printer/printer.h"

namespace rlx {

// Scoped names: the printer only de-duplicates within visible scopes (x, x_1, x_2, ...).
class NameTable {
 public:
  NameTable();
  void push();
  void pop();
  // Gives `key` a printable name derived from `hint`, unique among visible names. The returned
  // reference (and find's pointer) is only valid until the next define: copy it.
  const std::string& define(const void* key, const std::string& hint);
  // The name of `key`, or nullptr if it has none in a visible scope.
  const std::string* find(const void* key) const;
  bool isTaken(const std::string& name) const;
  // Like define, but the name lives in frame `frame` (0 = outermost) — for declarations hoisted
  // out of a nested scope into an enclosing prelude.
  const std::string& defineIn(size_t frame, const void* key, const std::string& hint);
  size_t depth() const { return frames_.size(); }
  // Reserves a name in the current scope without a key (e.g. "cls").
  void reserve(const std::string& name);
  // Names `key` exactly `name` in the current scope, even if an outer scope uses it (TVM prints an
  // index map's lambda with its own names, whatever the function around it calls things).
  void bindExact(const void* key, const std::string& name) { frames_.back().names[key] = name; }

 private:
  struct Frame {
    FlatMap<const void*, std::string> names;
    FlatSet<std::string> used;
  };
  std::vector<Frame> frames_;
};

enum class PrimStyle {
  Relax,  // shapes and attrs: every int prints bare (`n * 2`, `4`)
  Tir,    // kernels: non-int32 ints typed (`T.int64(4)`), int32 bare, floats typed
};

class PrintContext {
 public:
  explicit PrintContext(const PrintOptions& o) : opts(o) {}
  const PrintOptions& opts;
  std::string out;
  int indent = 0;
  bool usedIR = false, usedTIR = false, usedRelax = false;
  NameTable names;
  bool insideModule = false;
  std::vector<const NDArray*> omittedConstants;  // tvmConstants: metadata indices in print order
  std::string moduleAlias = "cls";

  void line(const std::string& text) {
    out.append(size_t(indent) * 4, ' ');
    out += text;
    out += '\n';
  }
  // A line from pieces, without building it first.
  void line(std::initializer_list<std::string_view> pieces) {
    out.append(size_t(indent) * 4, ' ');
    for (auto p : pieces) out += p;
    out += '\n';
  }
  void emptyLine() { out += '\n'; }
  // The header comment block for the prefixes used so far, one "# from tvm.script import ..." per line.
  std::vector<std::string> headerLines() const;

  // PrimExpr text. Unnamed PrimVars get a name defined in the current scope on first use.
  std::string prim(const PrimExpr& e, PrimStyle style);
  // The name for a PrimVar/Buffer/Var key, defining it from `hint` if it has none yet.
  std::string nameFor(const void* key, const std::string& hint);
};

// Literal formatting helpers (TVM's rules, spec §9).
std::string quoteString(const std::string& s);  // "..." with \" \\ \n \t \r and \xHH escapes
std::string sanitizeName(const std::string& hint);  // non [A-Za-z0-9_] -> '_', empty -> "v"
// A float literal as Relax prints it: 1.0, 0.5, 1e-05, "inf" (quoted non-finite).
std::string formatFloatLiteral(double v);
// A typed TIR float: T.float32(0.5), T.float32("inf").
std::string formatTypedFloat(double v, DataType t);

// Attribute values (bools, numbers, strings, lists, dicts, constructor calls) the same way everywhere;
// the two leaf kinds that depend on the context (PrimExprs, Relax expressions) are printed by callbacks.
struct AttrLeaves {
  std::function<std::string(const PrimExpr&)> prim;
  std::function<std::string(const Expr&)> expr;
};
std::string printAttrValue(PrintContext& ctx, const Attr& a, const AttrLeaves& leaves);

// TIR printing entry point (printer/print_tir.cc): a PrimFunc as `@T.prim_func` + def, at the
// context's current indentation. `name` is the printed function name.
void printPrimFunc(PrintContext& ctx, const PrimFunc& func, const std::string& name);

}  // namespace rlx
