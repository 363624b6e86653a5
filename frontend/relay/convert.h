// What a Relay op conversion sees: the call's arguments as imported Relax values, its attributes as
// written (Relay's C++ attrs defaults apply to missing ones), and emission through the importer.
// Conversions are registered by Relay op name (ops_*.cc, one function per op family member).
#pragma once
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/relay/ast.h"
#include "ir/block_builder.h"
#include "ir/op.h"
#include "passes/op_builder.h"

namespace rlx::relay {

using build::KwArgs;

// An import problem at a span (the importer renders it with the line and a caret).
struct ImportError : std::runtime_error {
  Span span;
  std::string hint;
  ImportError(const std::string& message, Span s, std::string h = {}) : std::runtime_error(message), span(s), hint(std::move(h)) {}
};

// The importer side a conversion talks to (import.cc implements it).
class Emitter {
 public:
  virtual ~Emitter() = default;
  // Normalizes `e` (struct info inferred) and binds it to a fresh var; leaves come back unchanged.
  virtual rlx::Expr emit(const rlx::Expr& e, Span span) = 0;
  // The entry `meta[typeKey][index]` of the module's metadata (its own section, then the external
  // table), or null when there is none.
  virtual const MetaValue* lookupMeta(const std::string& typeKey, int64_t index) = 0;
};

class OpCtx {
 public:
  OpCtx(Emitter& emitter, const std::string& op, std::vector<rlx::Expr> args, const Attrs& attrs, Span span)
      : op(op), span(span), emitter_(emitter), args_(std::move(args)), attrs_(attrs) {}
  const std::string& op;  // the Relay op name ("nn.conv2d")
  Span span;              // the call

  // ---- arguments
  size_t numArgs() const { return args_.size(); }
  const rlx::Expr& arg(size_t i) const;
  const TensorSInfo& tensor(size_t i) const;  // fails (located) when arg i is not a tensor
  int ndim(size_t i) const;                   // fails when unknown
  DataType dtype(size_t i) const;
  std::vector<PrimExpr> dims(size_t i) const;  // fails when unknown
  // Fails unless the call has between lo and hi arguments.
  void expectArgs(size_t lo, size_t hi) const;
  // The call's attributes as written (for conversions that hand them on, see convertAs).
  const Attrs& attrs() const { return attrs_; }

  // ---- attributes (Relay's text gives ints, floats, bools, strings, None, arrays, meta entries)
  // Fails on any attribute key not in `known` (Relay builds attrs by reflection: unknown keys are
  // errors there too).
  void allowAttrs(std::initializer_list<const char*> known) const;
  const AttrValue* attr(const char* key) const;  // null when absent (or None)
  bool has(const char* key) const { return attr(key) != nullptr; }
  int64_t i(const char* key, int64_t def) const;
  double f(const char* key, double def) const;
  bool b(const char* key, bool def) const;
  std::string s(const char* key, const std::string& def) const;
  std::vector<int64_t> ints(const char* key, std::vector<int64_t> def = {}) const;
  std::optional<std::vector<int64_t>> intsOpt(const char* key) const;  // absent or None: nullopt
  std::vector<double> floats(const char* key) const;
  // A dtype attribute ("float32"); `def` when absent, None or "" (Relay's unset DataType).
  DataType dtypeAttr(const char* key, DataType def) const;
  // The entry a `meta[K][i]` attribute names (null when the attribute is absent or None); fails,
  // located at the attribute, with "no meta table entry meta[K][i]" when the table has none.
  const MetaValue* meta(const char* key) const;

  // ---- building
  // R.<name>(args, kwargs) (name without "relax.") through the op's schema, normalized and bound.
  rlx::Expr call(const std::string& name, std::vector<PyValue> args, KwArgs kwargs = {});
  rlx::Expr emit(const rlx::Expr& e);
  // Runs conversion `fn` on `args` and `attrs` as if the call had been written so (a dyn. op whose
  // shape arguments are constants, converted as its static twin); failures still name this op.
  rlx::Expr convertAs(rlx::Expr (*fn)(OpCtx&), std::vector<rlx::Expr> args, const Attrs& attrs);
  // Throws ImportError at the call; the message gets "<op>: " in front.
  [[noreturn]] void fail(const std::string& message, std::string hint = {}) const;

 private:
  Emitter& emitter_;
  std::vector<rlx::Expr> args_;
  const Attrs& attrs_;
};

inline PyValue ex(rlx::Expr e) { return PyValue::ofExpr(std::move(e)); }
using build::b;
using build::f;
using build::i;
using build::ints;
using build::s;

using Converter = rlx::Expr (*)(OpCtx& c);

// The conversion of Relay op `name`, or null. `why` (when not null) receives, for an op that is
// known but refused (backend internals like memory.alloc_storage), the reason.
Converter findConverter(const std::string& name, std::string* why = nullptr);
// Every Relay op name with a conversion (sorted), for listings and suggestions.
std::vector<std::string> convertedOps();

}  // namespace rlx::relay
