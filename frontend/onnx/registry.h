// Converter dispatch on (domain, op type, since version): the ONNX schema history says which
// revision of an op a model's opset means; a converter runs only for revisions it implements.
#pragma once
#include <string>
#include <vector>

#include "frontend/onnx/converter.h"

namespace rlx::onnx {

struct Dispatch {
  const Converter* fn = nullptr;  // null: refused, `why` says why
  int since = 0;
  std::string why;
};

// The converter for `opType` of `domain` ("" or "ai.onnx" = the default domain) at `opset`.
Dispatch findConverter(const std::string& domain, const std::string& opType, int opset);
// True when a converter exists for some version of the op (for "unsupported op" vs "unsupported
// version" messages).
bool knowsOp(const std::string& domain, const std::string& opType);
// "" and "ai.onnx" are the same domain.
std::string canonicalDomain(const std::string& domain);

}  // namespace rlx::onnx
