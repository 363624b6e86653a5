// NNError helpers (see error.h).
#include "frontend/nn/error.h"

namespace rlx::nn {

void fail(std::string message, std::string hint) { throw NNError(Error(std::move(message), {}, std::move(hint))); }

}  // namespace rlx::nn
