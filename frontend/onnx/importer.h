// GraphImporter: one ONNX graph -> the Relax function `main` (TVM's from_onnx conventions: one
// dataflow block, num_input, params under keep_params_in_input), node by node through the
// converter table, with every value's static knowledge (constants, shape values) kept alongside.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/onnx.h"
#include "frontend/onnx/tensor.h"

namespace rlx::onnx {

class GraphImporter {
 public:
  // `rawDataInFile[i]`, when set, is initializer i's raw_data, left in the model file by the parser.
  GraphImporter(::onnx::ModelProto& model, std::string sourceName, std::string baseDir, const ImportOptions& options,
                std::vector<std::optional<BytesInFile>> rawDataInFile = {});
  Result<IRModuleRef> run();

  BlockBuilder& builder() { return bb_; }
  // Folds calls on constants at import time (shape arithmetic, constant subgraphs).
  Expr emitCall(const Expr& call);
  Expr emitValue(const Expr& e);
  // The symbolic dim for an ONNX dim_param (the same name gives the same var everywhere).
  PrimExpr dimVar(const std::string& name);
  // A fresh symbolic dim (data-dependent sizes, anonymous dims).
  PrimExpr freshDim(const std::string& hint);
  const std::string& baseDir() const { return baseDir_; }
  // A converter wanted a value it could not know at import: the graph inputs it is computed from
  // are recorded (see neededInputs).
  void noteNeededValue(const OValue& value);
  // A fresh var for an element of a shape value known only at run time (it may be 0 or -1 where
  // ONNX gives those a meaning), and whether a dim is one.
  PrimExpr runTimeDim();
  bool isRunTimeDim(const PrimExpr& e) const { return runTimeDims_.count(e.get()) > 0; }
  // Converts the nodes of a model-local function called by `node` (inline expansion).
  Outputs expandFunction(const ::onnx::FunctionProto& fn, NodeCtx& call, const std::vector<::onnx::AttributeProto>& defaults = {});
  // Converts a subgraph (If branch, Loop/Scan body) in its own binding block: its inputs bound to
  // `inputs`, outer values visible by name. Returns its outputs and the block they were built in.
  struct Subgraph {
    std::vector<Expr> outputs;
    BlockRef block;  // null when the subgraph emitted nothing
  };
  Subgraph convertSubgraph(const ::onnx::GraphProto& g, const std::vector<OValue>& inputs);
  // The same with the subgraph's bindings appended to the current block (one unrolled step, a
  // branch chosen at import, a modifier graph applied in place); returns its outputs.
  std::vector<Expr> inlineSubgraph(const ::onnx::GraphProto& g, const std::vector<OValue>& inputs);
  // A private function of the module besides main (a run-time loop's step): declared first, so that
  // it can call itself, under a unique name from `hint`; defined once built.
  GlobalVarRef declareFunction(const std::string& hint, const StructInfo& sinfo);
  void defineFunction(const GlobalVarRef& gvar, const FunctionRef& fn);

 private:
  Status checkSupported(const ::onnx::GraphProto& g, std::vector<std::string>& problems);
  Status addInputs(std::vector<VarRef>& params);
  Status addInitializers(std::vector<VarRef>& params, std::vector<Attr>& paramArrays);
  Status convertNode(const ::onnx::NodeProto& node, size_t index, std::map<std::string, OValue>& scope,
                     const std::vector<const ::onnx::AttributeProto*>* callerAttrs);
  Result<StructInfo> inputSInfo(const ::onnx::ValueInfoProto& vi, const std::string& name);
  int opsetOf(const std::string& domain) const;
  static bool hasControlFlow(const ::onnx::GraphProto& g);
  std::string uniqueName(const std::string& raw);
  Error nodeError(const ::onnx::NodeProto& node, size_t index, const std::string& message) const;

  ::onnx::ModelProto& model_;
  std::string source_, baseDir_;
  ImportOptions options_;
  std::vector<std::optional<BytesInFile>> rawDataInFile_;
  std::map<std::string, int> opsets_;
  std::map<std::string, const ::onnx::FunctionProto*> functions_;  // "domain:name"
  std::map<std::string, OValue> values_;
  std::map<std::string, OValue>* scope_ = &values_;  // the innermost graph's values
  std::map<std::string, PrimExpr> dims_;
  std::map<std::string, int> usedNames_;
  std::vector<std::string> graphInputs_;
  int freshDims_ = 0;
  std::set<const Object*> runTimeDims_;
  std::vector<std::pair<GlobalVarRef, FunctionRef>> privateFunctions_;
  std::set<std::string> functionNames_ = {"main"};
  BlockBuilder bb_;
};

// Runs `build` in a plain binding block of its own and returns the block (null when empty); the
// block is closed even when `build` throws (a converter's failure), so the builder stays balanced.
template <typename F>
BlockRef inBlock(BlockBuilder& bb, F&& build) {
  bb.beginBlock(false);
  try {
    build();
  } catch (...) {
    bb.endBlock();
    throw;
  }
  return bb.endBlock();
}

// A broadcasting op call whose result sizes cannot be known at import, rebuilt with operands
// expanded to a common shape computed at run time (exact_broadcast.cc); null when not needed.
Expr exactBroadcast(GraphImporter& g, const Call& call);

}  // namespace rlx::onnx
