// The function bodies of ONNX op schemas (libonnx's registry): how an op without an rlx converter
// can still be imported, by expanding the ops it is defined in terms of.
#pragma once
#include <string>
#include <vector>

#include "frontend/onnx/proto.h"

namespace rlx::onnx {

struct SchemaFunction {
  const ::onnx::FunctionProto* body = nullptr;  // null: the op's schema has no function body
  int since = 0;                                // the schema revision the body belongs to
  std::vector<::onnx::AttributeProto> defaults;  // the schema's attribute defaults, by name
};

// The function body of the schema revision of (domain, opType) that `opset` means.
SchemaFunction schemaFunction(const std::string& domain, const std::string& opType, int opset);

}  // namespace rlx::onnx
