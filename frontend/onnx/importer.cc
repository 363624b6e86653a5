// The graph walk of from_onnx: inputs and initializers become parameters or constants, each node
// goes through its converter (or the model-local function it names), and the graph outputs
// become main's result. Errors name the file and the node; all unsupported ops come in one error.
#include "frontend/onnx/importer.h"

#include <algorithm>
#include <set>

#include "frontend/onnx/registry.h"
#include "frontend/onnx/schema_functions.h"
#include "frontend/onnx/tensor.h"
#include "ir/arith.h"
#include "ir/eval.h"
#include "ir/struct_info.h"

namespace rlx::onnx {

namespace {

bool isIdentChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

// A valid identifier from an ONNX name: every other character becomes '_', a leading non-letter
// gets the prefix "input_" (TVM's rule for '.', applied to every character TVMScript cannot print).
std::string sanitize(const std::string& raw) {
  std::string s = raw;
  for (char& c : s)
    if (!isIdentChar(c)) c = '_';
  if (s.empty() || !std::isalpha((unsigned char)s[0])) s = "input_" + s;
  return s;
}

// TVM strips "onnx::" from parameter names; exact prefix removal, not its character-set strip.
std::string withoutOnnxPrefix(const std::string& name) { return name.rfind("onnx::", 0) == 0 ? name.substr(6) : name; }

// Elements of a result whose shape is fully known; a large number when it is not (never folded).
int64_t resultElements(const StructInfo& s) {
  const int64_t unknown = int64_t(1) << 62;
  if (auto t = s.as<TensorSInfo>()) {
    auto d = t->dims();
    if (!d) return unknown;
    int64_t n = 1;
    for (auto& x : *d) {
      auto imm = x.as<IntImm>();
      if (!imm || imm->value < 0 || (imm->value && n > unknown / imm->value)) return unknown;
      n *= imm->value;
    }
    return n;
  }
  if (auto tup = s.as<TupleSInfo>()) {
    int64_t n = 0;
    for (auto& f : tup->fields) n = std::min(unknown, n + resultElements(f));
    return n;
  }
  return 0;
}

int64_t numelOf(const Value& v) {
  if (v.kind == Value::Tensor) return v.tensor->numel();
  int64_t n = 0;
  for (auto& f : v.fields) n += numelOf(f);
  return n;
}

// A model-local function's attribute defaults (FunctionProto.attribute_proto, field 11 since ONNX
// 1.13). Debian's onnx.proto is 1.12's, so the field arrives among the unknown fields.
std::vector<::onnx::AttributeProto> localFunctionDefaults(const ::onnx::FunctionProto& fn) {
  constexpr int kAttributeProtoField = 11;
  std::vector<::onnx::AttributeProto> out;
  const auto& unknown = fn.unknown_fields();
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto& f = unknown.field(i);
    if (f.number() != kAttributeProtoField || f.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) continue;
    ::onnx::AttributeProto a;
    if (!a.ParseFromString(f.length_delimited()))
      fail("function " + fn.name() + ": an attribute default (attribute_proto) is not a valid AttributeProto");
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

GraphImporter::GraphImporter(::onnx::ModelProto& model, std::string sourceName, std::string baseDir, const ImportOptions& options,
                             std::vector<std::optional<BytesInFile>> rawDataInFile)
    : model_(model), source_(std::move(sourceName)), baseDir_(std::move(baseDir)), options_(options), rawDataInFile_(std::move(rawDataInFile)) {}

int GraphImporter::opsetOf(const std::string& domain) const {
  auto it = opsets_.find(canonicalDomain(domain));
  if (it != opsets_.end()) return it->second;
  // Contrib domains are versioned on their own; a model that omits them means version 1.
  return domain.empty() || domain == "ai.onnx" ? 1 : 1;
}

Error GraphImporter::nodeError(const ::onnx::NodeProto& node, size_t index, const std::string& message) const {
  std::string name = node.name().empty() ? "#" + std::to_string(index) : "'" + node.name() + "' (#" + std::to_string(index) + ")";
  return Error(source_ + ": node " + name + " (" + (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() + "): " + message);
}

std::string GraphImporter::uniqueName(const std::string& raw) {
  std::string base = options_.sanitizeInputNames ? sanitize(raw) : raw;
  int& n = usedNames_[base];
  std::string name = n == 0 ? base : base + "_" + std::to_string(n);
  ++n;
  return name;
}

void GraphImporter::noteNeededValue(const OValue& value) {
  if (!options_.neededInputs) return;
  auto& v = *options_.neededInputs;
  for (auto& name : value.fromInputs)
    if (std::find(v.begin(), v.end(), name) == v.end()) v.push_back(name);
}

PrimExpr GraphImporter::runTimeDim() {
  PrimExpr v = freshDim("v");
  runTimeDims_.insert(v.get());
  return v;
}

PrimExpr GraphImporter::dimVar(const std::string& name) {
  auto it = dims_.find(name);
  if (it != dims_.end()) return it->second;
  PrimExpr v = make<PrimVar>(sanitize(name), DataType::int64(), true);
  dims_.emplace(name, v);
  return v;
}

PrimExpr GraphImporter::freshDim(const std::string& hint) {
  std::string name = hint + (freshDims_ ? std::to_string(freshDims_) : "");
  ++freshDims_;
  return make<PrimVar>(name, DataType::int64(), true);
}

Status GraphImporter::checkSupported(const ::onnx::GraphProto& g, std::vector<std::string>& problems) {
  for (int i = 0; i < g.node_size(); ++i) {
    auto& node = g.node(i);
    std::string key = canonicalDomain(node.domain()) + ":" + node.op_type();
    if (functions_.count(key)) continue;
    Dispatch d = findConverter(node.domain(), node.op_type(), opsetOf(node.domain()));
    if (!d.fn) {
      if (auto sf = schemaFunction(node.domain(), node.op_type(), opsetOf(node.domain())); sf.body) {
        ::onnx::GraphProto body;
        for (auto& n : sf.body->node()) *body.add_node() = n;
        RLX_TRY_STATUS(checkSupported(body, problems));
      } else {
        problems.push_back(nodeError(node, size_t(i), d.why).message);
      }
    }
    for (auto& a : node.attribute()) {
      if (a.has_g()) RLX_TRY_STATUS(checkSupported(a.g(), problems));
      for (auto& sub : a.graphs()) RLX_TRY_STATUS(checkSupported(sub, problems));
    }
  }
  return okStatus();
}

Result<StructInfo> GraphImporter::inputSInfo(const ::onnx::ValueInfoProto& vi, const std::string& name) {
  if (!vi.has_type() || !vi.type().has_tensor_type()) return Error(source_ + ": graph input '" + vi.name() + "' is not a tensor (sequence, map and optional inputs are not supported)");
  auto& tt = vi.type().tensor_type();
  DataType dt;
  if (auto it = options_.dtypeDict.find(vi.name()); it != options_.dtypeDict.end()) {
    auto parsed = DataType::parse(it->second);
    if (!parsed) return Error("dtype_dict: '" + it->second + "' is not a dtype (input '" + vi.name() + "')");
    dt = *parsed;
  } else {
    auto r = dtypeOf(tt.elem_type());
    if (!r) return Error(source_ + ": graph input '" + vi.name() + "': " + r.error().message);
    dt = *r;
  }
  std::vector<PrimExpr> dims;
  if (auto it = options_.shapeDict.find(vi.name()); it != options_.shapeDict.end()) {
    for (int64_t d : it->second) dims.push_back(intImm(d));
  } else {
    if (!tt.has_shape()) return StructInfo(make<TensorSInfo>(nullptr, dt, -1));
    int k = 0;
    for (auto& d : tt.shape().dim()) {
      // dim_value 0 is a real zero-size dim (TVM treats it as symbolic).
      if (d.has_dim_value()) dims.push_back(intImm(d.dim_value()));
      else if (d.has_dim_param() && !d.dim_param().empty() && d.dim_param() != "?") dims.push_back(dimVar(d.dim_param()));
      else dims.push_back(freshDim(sanitize(name) + "_dim" + std::to_string(k)));
      ++k;
    }
  }
  return tensorSInfo(std::move(dims), dt);
}

Status GraphImporter::addInputs(std::vector<VarRef>& params) {
  std::set<std::string> inits;
  for (auto& t : model_.graph().initializer()) inits.insert(t.name());
  for (auto& [name, shape] : options_.shapeDict) {
    bool found = false;
    for (auto& vi : model_.graph().input()) found |= vi.name() == name;
    if (!found) return Error("shape_dict names '" + name + "', which is not an input of " + source_);
  }
  for (auto& [name, value] : options_.inputValues) {
    bool found = false;
    for (auto& vi : model_.graph().input()) found |= vi.name() == name;
    if (!found) return Error("a value is given for '" + name + "', which is not an input of " + source_);
  }
  for (auto& vi : model_.graph().input()) {
    if (inits.count(vi.name())) continue;  // IR < 4 lists initializers among the inputs
    graphInputs_.push_back(vi.name());
    if (auto it = options_.inputValues.find(vi.name()); it != options_.inputValues.end()) {
      std::vector<PrimExpr> dims;
      for (auto d : it->second->shape) dims.push_back(intImm(d));
      auto c = make<Constant>(it->second);
      c->sinfo = tensorSInfo(dims, it->second->dtype);
      values_[vi.name()] = OValue{c, std::nullopt, nullptr};
      continue;
    }
    std::string name = uniqueName(vi.name());
    if (vi.has_type() && (vi.type().has_sequence_type() || vi.type().has_optional_type())) {
      // Sequences and optionals take the structure the caller gives (their length, presence).
      auto it = options_.inputStructure.find(vi.name());
      const char* kind = vi.type().has_sequence_type() ? "a sequence" : "an optional";
      if (it == options_.inputStructure.end())
        return Error(source_ + ": graph input '" + vi.name() + "' is " + kind + ": rlx needs its structure at import (its length and element shapes, or whether it is present; ImportOptions.inputStructure)");
      auto tuple = it->second.as<TupleSInfo>();
      if (vi.type().has_optional_type() && tuple && tuple->fields.empty()) {
        values_[vi.name()] = OValue{};
        continue;
      }
      StructInfo sinfo = it->second;
      // A sequence's elements keep a dim the model declares for them (a dim_param shared with
      // other inputs stays that var) where every element has the same size there; the given
      // structure supplies the length and the sizes that differ from element to element.
      if (vi.type().has_sequence_type() && tuple && vi.type().sequence_type().elem_type().has_tensor_type()) {
        ::onnx::ValueInfoProto elem;
        elem.set_name(vi.name());
        *elem.mutable_type() = vi.type().sequence_type().elem_type();
        if (elem.type().tensor_type().has_shape()) {
          RLX_TRY(declared, inputSInfo(elem, name));
          auto decl = declared.as<TensorSInfo>();
          std::vector<StructInfo> fields;
          for (auto& f : tuple->fields) {
            auto given = f.as<TensorSInfo>();
            auto gd = given ? given->dims() : nullptr;
            auto dd = decl ? decl->dims() : nullptr;
            if (!gd || !dd || gd->size() != dd->size()) {
              fields.push_back(f);
              continue;
            }
            std::vector<PrimExpr> dims = *gd;
            for (size_t k = 0; k < dims.size(); ++k) {
              bool uniform = true;
              for (auto& g : tuple->fields)
                if (auto gt = g.as<TensorSInfo>(); !gt || !gt->dims() || gt->dims()->size() != dims.size() || !proveEqual((*gt->dims())[k], dims[k])) uniform = false;
              if (uniform && !(*dd)[k].as<IntImm>()) dims[k] = (*dd)[k];
            }
            fields.push_back(tensorSInfo(dims, given->dtype));
          }
          sinfo = make<TupleSInfo>(fields);
        }
      }
      auto v = make<Var>(name, sinfo);
      params.push_back(v);
      values_[vi.name()] = OValue{v, std::nullopt, nullptr, {vi.name()}};
      continue;
    }
    RLX_TRY(sinfo, inputSInfo(vi, name));
    auto v = make<Var>(name, sinfo);
    params.push_back(v);
    values_[vi.name()] = OValue{v, std::nullopt, nullptr, {vi.name()}};
  }
  return okStatus();
}

Status GraphImporter::addInitializers(std::vector<VarRef>& params, std::vector<Attr>& paramArrays) {
  auto* graph = model_.mutable_graph();
  for (int i = 0; i < graph->initializer_size(); ++i) {
    auto& t = *graph->mutable_initializer(i);
    size_t index = size_t(i);
    auto* inFile = index < rawDataInFile_.size() && rawDataInFile_[index] ? &*rawDataInFile_[index] : nullptr;
    auto arr = toNDArray(t, baseDir_, /*release=*/true, inFile);
    if (!arr) return Error(source_ + ": initializer #" + std::to_string(i) + ": " + arr.error().message);
    std::vector<PrimExpr> dims;
    for (auto d : (*arr)->shape) dims.push_back(intImm(d));
    if (options_.keepParamsInInput) {
      auto v = make<Var>(uniqueName(withoutOnnxPrefix(t.name())), tensorSInfo(dims, (*arr)->dtype));
      params.push_back(v);
      auto c = make<Constant>(*arr);
      c->sinfo = tensorSInfo(dims, (*arr)->dtype);
      paramArrays.push_back(AttrValue::exprOf(c));
      values_[t.name()] = OValue{v, std::nullopt, *arr};
    } else {
      auto c = make<Constant>(*arr);
      c->sinfo = tensorSInfo(dims, (*arr)->dtype);
      values_[t.name()] = OValue{c, std::nullopt, nullptr};
    }
  }
  return okStatus();
}

Expr GraphImporter::emitValue(const Expr& e) {
  if (isLeafExpr(e)) return e;
  auto n = bb_.normalize(e);
  if (!n) fail(n.error().message);
  if (isLeafExpr(*n)) return *n;
  auto v = bb_.emit(*n, "", {});
  if (!v) fail(v.error().message);
  return *v;
}

Expr GraphImporter::emitCall(const Expr& call) {
  auto n = bb_.normalize(call);
  if (!n) fail(n.error().message);
  Expr e = *n;
  if (auto c = e.as<Call>(); c && c->op && c->op->kind() == NodeKind::Op)
    if (Expr exact = exactBroadcast(*this, *c)) {
      n = bb_.normalize(exact);
      if (!n) fail(n.error().message);
      e = *n;
    }
  if (auto c = e.as<Call>(); c && c->op && c->op->kind() == NodeKind::Op && findEval(c->opName())) {
    // Calls on constants are computed now, as TVM's importer folds shape arithmetic; large ones
    // stay calls so that importing never turns into running the model.
    std::vector<Value> args;
    int64_t total = 0;
    bool constant = true;
    for (auto& a : c->args) {
      auto v = constantValue(a);
      if (!v) {
        constant = false;
        break;
      }
      total += numelOf(*v);
      args.push_back(std::move(*v));
    }
    if (constant && total <= (1 << 16) && resultElements(c->sinfo) <= (1 << 16)) {
      auto r = evaluateCall(*c, args);
      if (r) return valueToExpr(*r);
    }
  }
  if (isLeafExpr(e)) return e;
  auto v = bb_.emit(e, "", {});
  if (!v) fail(v.error().message);
  return *v;
}

Status GraphImporter::convertNode(const ::onnx::NodeProto& node, size_t index, std::map<std::string, OValue>& scope,
                                  const std::vector<const ::onnx::AttributeProto*>* callerAttrs) {
  // A node inside a function body refers to the caller's attributes by name.
  ::onnx::NodeProto resolved;
  const ::onnx::NodeProto* n = &node;
  if (callerAttrs) {
    resolved = node;
    resolved.clear_attribute();
    for (auto& a : node.attribute()) {
      if (a.ref_attr_name().empty()) {
        *resolved.add_attribute() = a;
        continue;
      }
      for (auto* ca : *callerAttrs)
        if (ca->name() == a.ref_attr_name()) {
          auto* na = resolved.add_attribute();
          *na = *ca;
          na->set_name(a.name());
        }
    }
    n = &resolved;
  }
  std::vector<OValue> inputs;
  for (auto& name : n->input()) {
    if (name.empty()) {
      inputs.push_back(OValue{});
      continue;
    }
    auto it = scope.find(name);
    if (it == scope.end()) return nodeError(*n, index, "input '" + name + "' is not defined by any earlier node, graph input or initializer");
    inputs.push_back(it->second);
  }
  Outputs outs;
  try {
    std::string key = canonicalDomain(n->domain()) + ":" + n->op_type();
    if (auto f = functions_.find(key); f != functions_.end()) {
      NodeCtx ctx(*this, *n, 1, opsetOf(n->domain()), std::move(inputs));
      outs = expandFunction(*f->second, ctx, localFunctionDefaults(*f->second));
    } else {
      Dispatch d = findConverter(n->domain(), n->op_type(), opsetOf(n->domain()));
      if (d.fn) {
        NodeCtx ctx(*this, *n, d.since, opsetOf(n->domain()), std::move(inputs));
        outs = (*d.fn)(ctx);
      } else if (auto sf = schemaFunction(n->domain(), n->op_type(), opsetOf(n->domain())); sf.body) {
        // No converter for this revision: the schema's own definition in terms of other ops.
        NodeCtx ctx(*this, *n, sf.since, opsetOf(n->domain()), std::move(inputs));
        outs = expandFunction(*sf.body, ctx, sf.defaults);
      } else {
        return nodeError(*n, index, d.why);
      }
    }
  } catch (const ImportError& e) {
    return nodeError(*n, index, e.what());
  }
  std::vector<std::string> fromInputs;
  for (auto& name : n->input())
    if (auto it = scope.find(name); !name.empty() && it != scope.end())
      for (auto& g : it->second.fromInputs)
        if (std::find(fromInputs.begin(), fromInputs.end(), g) == fromInputs.end()) fromInputs.push_back(g);
  for (int i = 0; i < n->output_size(); ++i) {
    if (n->output(i).empty()) continue;
    if (size_t(i) >= outs.size() || !outs[size_t(i)].present()) return nodeError(*n, index, "output " + std::to_string(i) + " ('" + n->output(i) + "') is not produced by rlx's conversion");
    OValue& out = scope[n->output(i)] = outs[size_t(i)];
    if (!out.expr.as<Constant>() && !out.known && out.fromInputs.empty()) out.fromInputs = fromInputs;
  }
  return okStatus();
}

Outputs GraphImporter::expandFunction(const ::onnx::FunctionProto& fn, NodeCtx& call, const std::vector<::onnx::AttributeProto>& defaults) {
  std::map<std::string, OValue> scope;
  for (int i = 0; i < fn.input_size(); ++i)
    if (call.has(size_t(i))) scope[fn.input(i)] = call.in(size_t(i));
  // The call's attributes, then the defaults of those it leaves out (the schema's, or a model-local
  // function's own).
  std::vector<const ::onnx::AttributeProto*> attrs;
  for (auto& a : call.node.attribute()) attrs.push_back(&a);
  auto addDefault = [&](const ::onnx::AttributeProto& d) {
    for (auto* a : attrs)
      if (a->name() == d.name()) return;
    attrs.push_back(&d);
  };
  for (auto& d : defaults) addDefault(d);
  for (int i = 0; i < fn.node_size(); ++i) {
    auto st = convertNode(fn.node(i), size_t(i), scope, &attrs);
    if (!st) fail("in function " + fn.name() + ": " + st.error().message);
  }
  Outputs outs;
  for (auto& o : fn.output()) {
    auto it = scope.find(o);
    if (it == scope.end()) fail("function " + fn.name() + " does not define its output '" + o + "'");
    outs.push_back(it->second);
  }
  return outs;
}

std::vector<Expr> GraphImporter::inlineSubgraph(const ::onnx::GraphProto& g, const std::vector<OValue>& inputs) {
  auto sg = convertSubgraph(g, inputs);
  if (sg.block)
    for (auto& b : sg.block->bindings) bb_.addBinding(b);
  return sg.outputs;
}

GraphImporter::Subgraph GraphImporter::convertSubgraph(const ::onnx::GraphProto& g, const std::vector<OValue>& inputs) {
  // Outer values stay visible by name; the subgraph's own inputs and initializers shadow them.
  std::map<std::string, OValue> scope = *scope_;
  if (size_t(g.input_size()) != inputs.size())
    fail("the subgraph '" + g.name() + "' takes " + std::to_string(g.input_size()) + " inputs, but " + std::to_string(inputs.size()) + " are given");
  for (int k = 0; k < g.input_size(); ++k) scope[g.input(k).name()] = inputs[size_t(k)];
  for (auto& t : g.initializer()) {
    ::onnx::TensorProto copy = t;
    auto arr = toNDArray(copy, baseDir_);
    if (!arr) fail("subgraph initializer: " + arr.error().message);
    std::vector<PrimExpr> dims;
    for (auto d : (*arr)->shape) dims.push_back(intImm(d));
    auto c = make<Constant>(*arr);
    c->sinfo = tensorSInfo(dims, (*arr)->dtype);
    scope[t.name()] = OValue{c, std::nullopt, nullptr};
  }
  auto* outer = scope_;
  scope_ = &scope;
  bb_.beginBlock(false);
  Subgraph out;
  for (int k = 0; k < g.node_size(); ++k) {
    auto st = convertNode(g.node(k), size_t(k), scope, nullptr);
    if (!st) {
      bb_.endBlock();
      scope_ = outer;
      fail("in subgraph '" + g.name() + "': " + st.error().message);
    }
  }
  for (auto& o : g.output()) {
    auto it = scope.find(o.name());
    if (it == scope.end() || !it->second.present()) {
      bb_.endBlock();
      scope_ = outer;
      fail("the subgraph '" + g.name() + "' does not define its output '" + o.name() + "'");
    }
    out.outputs.push_back(it->second.expr);
  }
  out.block = bb_.endBlock();
  scope_ = outer;
  return out;
}

GlobalVarRef GraphImporter::declareFunction(const std::string& hint, const StructInfo& sinfo) {
  std::string base = sanitize(hint), name = base;
  for (int n = 1; !functionNames_.insert(name).second; ++n) name = base + "_" + std::to_string(n);
  auto gvar = make<GlobalVar>(name);
  gvar->sinfo = sinfo;
  privateFunctions_.push_back({gvar, nullptr});
  return gvar;
}

void GraphImporter::defineFunction(const GlobalVarRef& gvar, const FunctionRef& fn) {
  for (auto& [g, f] : privateFunctions_)
    if (g == gvar) f = fn;
}

bool GraphImporter::hasControlFlow(const ::onnx::GraphProto& g) {
  for (auto& n : g.node())
    for (auto& a : n.attribute())
      if (a.has_g() || a.graphs_size()) return true;
  return false;
}

Result<IRModuleRef> GraphImporter::run() {
  if (model_.ir_version() < 3) return Error(source_ + ": IR version " + std::to_string(model_.ir_version()) + " is older than 3, which rlx (like TVM) does not read");
  for (auto& o : model_.opset_import()) opsets_[canonicalDomain(o.domain())] = int(o.version());
  if (!opsets_.count("")) opsets_[""] = 1;
  if (options_.opset) opsets_[""] = *options_.opset;
  for (auto& f : model_.functions()) functions_[canonicalDomain(f.domain()) + ":" + f.name()] = &f;

  std::vector<std::string> problems;
  RLX_TRY_STATUS(checkSupported(model_.graph(), problems));
  for (auto& [key, f] : functions_) RLX_TRY_STATUS(checkSupported([&] {
    ::onnx::GraphProto g;
    for (auto& n : f->node()) *g.add_node() = n;
    return g;
  }(), problems));
  if (!problems.empty()) {
    std::string msg = std::to_string(problems.size()) + " node" + (problems.size() == 1 ? "" : "s") + " cannot be converted (model opset " + std::to_string(opsets_[""]) + "):";
    for (auto& p : problems) msg += "\n  " + p;
    return Error(msg);
  }

  bb_.beginFunction();
  // Relax's If (and the calls that run a loop) cannot sit inside a dataflow block, and values of a
  // dataflow block do not outlive it: a graph with subgraphs is built in one plain binding block.
  bool dataflow = !hasControlFlow(model_.graph());
  bb_.beginBlock(dataflow);
  std::vector<VarRef> params;
  std::vector<Attr> paramArrays;
  RLX_TRY_STATUS(addInputs(params));
  size_t numInput = params.size();
  RLX_TRY_STATUS(addInitializers(params, paramArrays));
  for (auto& [name, v] : values_) (void)name;
  auto& g = model_.graph();
  for (int i = 0; i < g.node_size(); ++i) RLX_TRY_STATUS(convertNode(g.node(i), size_t(i), values_, nullptr));

  std::vector<Expr> outs;
  for (auto& o : g.output()) {
    auto it = values_.find(o.name());
    if (it == values_.end()) return Error(source_ + ": graph output '" + o.name() + "' is not defined by any node, input or initializer");
    outs.push_back(it->second.expr);
  }
  if (outs.empty()) return Error(source_ + ": the graph has no outputs");
  Expr result = outs.size() == 1 ? outs[0] : Expr(make<Tuple>(outs));
  auto nres = bb_.normalize(result);
  if (!nres) return Error(source_ + ": " + nres.error().message);
  // Outside dataflow a var needs no rebinding; anything else is bound under a fresh name.
  Result<VarRef> gv = dataflow ? bb_.emit(*nres, "gv", {}, nullptr, /*asOutput=*/true)
                      : nres->as<Var>() ? Result<VarRef>(VarRef(nres->as<Var>())) : bb_.emit(*nres, "", {});
  if (!gv) return Error(source_ + ": " + gv.error().message);
  std::vector<BlockRef> blocks;
  if (auto b = bb_.endBlock()) blocks.push_back(b);
  Expr out = *gv;
  auto seq = make<SeqExpr>(std::move(blocks), out);
  seq->sinfo = sinfoOf(out);
  std::vector<const PrimVar*> sigVars;
  for (auto& p : params) {
    std::vector<Ref<PrimVar>> vs;
    sinfoCollectVars(p->sinfo, vs);
    for (auto& v : vs) sigVars.push_back(v.get());
  }
  StructInfo ret = eraseUndefinedVars(sinfoOf(out), sigVars);
  std::vector<std::pair<std::string, Attr>> attrs = {{"num_input", AttrValue::integer(int64_t(numInput))}, {"global_symbol", AttrValue::str("main")}};
  if (options_.keepParamsInInput) attrs.push_back({"params", AttrValue::array_(std::move(paramArrays))});
  auto func = make<Function>(params, seq, ret, true, makeDictAttrs(std::move(attrs)));
  std::vector<StructInfo> ps;
  for (auto& p : params) ps.push_back(sinfoOf(p));
  func->sinfo = make<FuncSInfo>(std::move(ps), ret, true);
  auto mod = make<IRModule>();
  auto mainVar = make<GlobalVar>("main");
  mainVar->sinfo = func->sinfo;
  mod->functions.push_back({mainVar, func});
  for (auto& [gvar, fn] : privateFunctions_)
    if (fn) mod->functions.push_back({gvar, fn});
  return IRModuleRef(mod);
}

}  // namespace rlx::onnx
