// The reader's top level: a file's definitions (`def @f`, `type`, `extern type`) or its single
// expression, with duplicate names refused (Relay's parser reported them, or aliased silently).
#include "frontend/relay/reader.h"

namespace rlx::relay {
namespace g = rlx::grammar::relay;

void TreeWalker::typeDef(const Node& n, bool external) {
  TypeDef def;
  def.external = external;
  def.span = span(n);
  for (auto& c : n.children) {
    if (c->is_type<g::type_name>()) {
      def.name = c->string();
    } else if (c->is_type<g::type_params>()) {
      for (auto& p : c->children) def.typeParams.push_back(p->string());
    } else if (c->is_type<g::ctor_def>()) {
      Constructor ctor;
      ctor.name = c->children.at(0)->string();
      ctor.span = span(*c);
      for (size_t k = 1; k < c->children.size(); ++k) ctor.fields.push_back(type(*c->children[k]));
      if (!ctors_.insert(ctor.name).second) fail(*c, "constructor `" + ctor.name + "` is defined twice");
      def.ctors.push_back(std::move(ctor));
    }
  }
  for (auto& other : mod_.types)
    if (other.name == def.name) fail(n, "type `" + def.name + "` is defined twice (first at line " + std::to_string(other.span.line) + ")");
  mod_.types.push_back(std::move(def));
}

void TreeWalker::collectTypes(const Node& root) {
  // Constructors can be used before their type's definition, so types are read first.
  for (auto& c : root.children) {
    if (c->is_type<g::type_def>()) typeDef(*c, false);
    else if (c->is_type<g::extern_type_def>()) typeDef(*c, true);
  }
}

void TreeWalker::definition(const Node& n) {
  const Node& nameNode = *n.children.at(0);
  GlobalDef def;
  def.name = nameNode.string().substr(1);
  def.span = span(nameNode);
  for (auto& other : mod_.functions)
    if (other.name == def.name)
      fail(nameNode, "@" + def.name + " is defined twice (first at line " + std::to_string(other.span.line) + ")");
  scopes_.clear();
  auto fn = function(*n.children.at(1));
  def.fn = std::move(*fn);
  mod_.functions.push_back(std::move(def));
}

void TreeWalker::file(const Node& root) {
  // Definitions make a module, which TVM parses only after the version header (tvm.parser.parse);
  // a file without one can only be an expression (parse_expr), which has no definitions.
  bool versioned = false;
  for (auto& c : root.children) {
    if (c->is_type<g::version_string>()) versioned = true;
    bool isDefinition = c->is_type<g::func_def>() || c->is_type<g::type_def>() || c->is_type<g::extern_type_def>();
    if (isDefinition && !versioned)
      fail(*c, "definitions need the `#[version = \"0.0.5\"]` header first",
           "TVM parses a module only after the header; a file without it is one expression");
  }
  collectTypes(root);
  bool any = !mod_.types.empty();
  for (auto& c : root.children) {
    if (c->is_type<g::func_def>()) {
      definition(*c);
      any = true;
    } else if (c->is_type<g::type_def>() || c->is_type<g::extern_type_def>() || c->is_type<g::version_string>() ||
               c->is_type<g::metadata_json>()) {
      continue;
    } else {
      scopes_.clear();
      pushScope();
      mod_.body = expr(*c);
      popScope();
      any = true;
    }
  }
  if (!any) throw ReadError(Error("the file has no definition and no expression", sources::spanAt(file_, 0, 1)));
}

}  // namespace rlx::relay
