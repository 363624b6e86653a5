// Errors as values: Error (message + span + hint), Result<T>, and the DiagnosticEngine that renders
// `file:line:col: error: msg`, the source line and a caret. Libraries never exit or print on their own.
#pragma once
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ir/span.h"

namespace rlx {

struct Error {
  std::string message;
  Span span;
  std::string hint;  // optional "did you mean ..." or advice
  std::vector<std::pair<Span, std::string>> notes;
  Error() = default;
  Error(std::string m, Span s = {}, std::string h = {}) : message(std::move(m)), span(s), hint(std::move(h)) {}
  // Fills in the span if this error has none yet (errors from deep helpers get their caller's).
  Error& at(Span s) {
    if (!span.known()) span = s;
    return *this;
  }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T v) : v_(std::move(v)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  Error& error() { return std::get<1>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status okStatus() { return Ok{}; }

// Propagate an error from an expression returning Result<...>.
#define RLX_TRY(var, expr)                                  \
  auto var##_result = (expr);                               \
  if (!var##_result.ok()) return std::move(var##_result.error()); \
  auto var = std::move(var##_result.value())

// Propagate the error of a Status-returning expression.
#define RLX_TRY_STATUS(expr)                            \
  do {                                                  \
    auto rlx_status_ = (expr);                          \
    if (!rlx_status_.ok()) return std::move(rlx_status_.error()); \
  } while (0)

// Collects diagnostics and renders them; used by the parser (many errors) and the CLI.
class DiagnosticEngine {
 public:
  void error(Error e) { errors_.push_back(std::move(e)); }
  bool hasErrors() const { return !errors_.empty(); }
  const std::vector<Error>& errors() const { return errors_; }
  void clear() { errors_.clear(); }
  // Renders every error (optionally with ANSI colour).
  std::string render(bool color = false) const;

 private:
  std::vector<Error> errors_;
};

// Renders one error the canonical way: "file:line:col: error: msg\n  line\n  ^~~~\n".
std::string renderError(const Error& e, bool color = false);

// Levenshtein-based suggestion among candidates; "" when nothing is close.
std::string closestName(std::string_view name, const std::vector<std::string>& candidates);

// Internal invariant: a failure is a bug in rlx, never the answer to user input.
[[noreturn]] void checkFailed(const char* cond, const char* file, int line, const std::string& msg);
#define RLX_CHECK(cond, ...) \
  do {                        \
    if (!(cond)) ::rlx::checkFailed(#cond, __FILE__, __LINE__, ::std::string(__VA_ARGS__)); \
  } while (0)

}  // namespace rlx
