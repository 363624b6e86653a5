// The ONNX importer's public API: `.onnx` model files into Relax modules (TVM's from_onnx with its
// options), and ONNX tensor files (`.pb`) into arrays. No protobuf header leaks out of this folder.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/eval.h"
#include "ir/module.h"

namespace rlx::onnx {

// The options of TVM's relax.frontend.onnx.from_onnx, under the same names.
struct ImportOptions {
  // Input shapes overriding the model's (shape_dict); an entry may name any graph input.
  std::map<std::string, std::vector<int64_t>> shapeDict;
  // Input dtypes overriding the model's (dtype_dict), as rlx/TVM dtype strings ("float16").
  std::map<std::string, std::string> dtypeDict;
  // Overrides the model's ai.onnx opset (opset); the converters of that opset are used.
  std::optional<int> opset;
  // Initializers become trailing parameters of main, their arrays the "params" function attr.
  bool keepParamsInInput = false;
  // Graph input names become valid identifiers ('.' -> '_', a leading non-letter gets "input_").
  bool sanitizeInputNames = true;
  // Graph inputs fixed to a value: they become constants instead of parameters of main (TVM's
  // BindParams applied to inputs). This is how a model whose axes, pads, k, shape... arrive as
  // inputs is specialized on their values, since Relax needs those statically.
  std::map<std::string, NDArrayRef> inputValues;
  // The run-time structure of graph inputs typed as sequences or optionals, which a model leaves
  // open: a sequence as an R.Tuple of its elements' struct info (its length), an optional as its
  // element's struct info when present or an empty R.Tuple when absent.
  std::map<std::string, StructInfo> inputStructure;
  // When set, filled with the graph inputs whose values a converter needed at import (and did not
  // have): binding them through inputValues lets the import go through.
  std::vector<std::string>* neededInputs = nullptr;
};

// Imports the model in `path` (external-data files are read relative to its folder). Every
// problem is one Error naming the file and the node (or byte offset) where it was found.
Result<IRModuleRef> fromOnnxFile(const std::string& path, const ImportOptions& options = {});
// Imports `path`; when that fails for want of the values of graph inputs that `available` holds
// (a Reshape's shape, Slice's ends, TopK's k given as inputs), binds those as constants and
// imports again, until it goes through or nothing more can be bound. `bound` (optional) receives
// the names of the inputs that were bound.
Result<IRModuleRef> fromOnnxFileSpecializing(const std::string& path, ImportOptions options,
                                             const std::map<std::string, NDArrayRef>& available,
                                             std::vector<std::string>* bound = nullptr);
// Imports a serialized ModelProto held in memory; `baseDir` resolves external data.
Result<IRModuleRef> fromOnnxBytes(const std::string& bytes, const std::string& sourceName, const std::string& baseDir, const ImportOptions& options = {});

// The graph's inputs (initializers excluded) and outputs with what they hold: "tensor",
// "sequence" or "optional" (runners use it to read the matching .pb files).
struct Signature {
  std::vector<std::pair<std::string, std::string>> inputs, outputs;
  std::vector<DataType> inputDtypes;  // per input: a tensor's element type (void otherwise)
};
Result<Signature> readSignature(const std::string& path);

// True when `path` names an ONNX model (by its extension).
bool isOnnxPath(const std::string& path);

// Reads a serialized TensorProto, SequenceProto or OptionalProto file (the backend tests'
// input_N.pb / output_N.pb): a tensor, a tuple of tensors (sequence), or an empty tuple (an empty
// optional). `hint` says which message the file holds ("tensor", "sequence", "optional").
Result<Value> readValueFile(const std::string& path, const std::string& hint = "tensor");
// The same from bytes in memory (`sourceName` names them in errors).
Result<Value> readValue(const std::string& bytes, const std::string& sourceName, const std::string& hint = "tensor");

// `a` as a serialized TensorProto named `name` (what readValue reads back): its bytes in raw_data,
// or with rawData false in the typed field for its type; int4/uint4/float4_e2m1fn/int2/uint2 are
// packed as ONNX requires.
Result<std::string> serializeTensor(const NDArray& a, const std::string& name, bool rawData = true);

}  // namespace rlx::onnx
