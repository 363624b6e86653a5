// ONNX ops defined by a function body in their schema (Debian's libonnx holds the schemas): when
// rlx has no converter for the revision a model uses, the body is expanded node by node instead.
#include "frontend/onnx/schema_functions.h"

#include <onnx/defs/schema.h>

#include "frontend/onnx/registry.h"

namespace rlx::onnx {

SchemaFunction schemaFunction(const std::string& domain, const std::string& opType, int opset) {
  SchemaFunction out;
  std::string d = canonicalDomain(domain);
  const ::onnx::OpSchema* schema = ::onnx::OpSchemaRegistry::Schema(opType, opset, d.empty() ? std::string(::onnx::ONNX_DOMAIN) : d);
  if (!schema || !schema->HasFunction()) return out;
  out.body = schema->GetFunction();
  out.since = schema->SinceVersion();
  // A node that leaves an attribute out means the schema's default, which the body's
  // ref_attr_name references then have to see.
  for (auto& [name, attr] : schema->attributes())
    if (attr.default_value.type() != ::onnx::AttributeProto::UNDEFINED) {
      out.defaults.push_back(attr.default_value);
      out.defaults.back().set_name(name);
    }
  return out;
}

}  // namespace rlx::onnx
