// NNError helpers and type names for messages (see error.h).
#include "frontend/nn/error.h"

#include <cxxabi.h>

#include <cstdlib>

namespace rlx::nn {

void fail(std::string message, std::string hint) { throw NNError(Error(std::move(message), {}, std::move(hint))); }

std::string typeNameOf(const std::type_info& t) {
  int status = 0;
  char* d = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : t.name();
  std::free(d);
  return out;
}

}  // namespace rlx::nn
