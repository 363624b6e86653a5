// Errors of model-building code: nn ops and layers throw NNError (a shape mismatch, a bad argument)
// from deep inside user forward code; the public entry points (exportIR, ...) turn it into a Result.
#pragma once
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "ir/diagnostic.h"

namespace rlx::nn {

class NNError : public std::runtime_error {
 public:
  explicit NNError(Error e) : std::runtime_error(e.message), error(std::move(e)) {}
  Error error;
};

// Throws NNError with `message` (and an optional hint).
[[noreturn]] void fail(std::string message, std::string hint = {});
// The demangled C++ name of a type, for messages ("rlx::nn::Linear").
std::string typeNameOf(const std::type_info& t);
// The value of a Result, or its error thrown as NNError.
template <typename T>
T orThrow(Result<T> r) {
  if (!r.ok()) throw NNError(std::move(r.error()));
  return std::move(r.value());
}

}  // namespace rlx::nn
