// Functional ops (rlx::nn::op), the counterparts of tvm.relax.frontend.nn.op. Each emits the Relax
// op with TVM's defaults and binds it under TVM's default name (the trailing `name` argument).
// Ops run only while a method is exported; errors (bad shapes, arguments) throw NNError.
#pragma once
#include <functional>
#include <optional>
#include <source_location>
#include <string>
#include <variant>
#include <vector>

#include "frontend/nn/spec.h"
#include "frontend/nn/tensor.h"
#include "passes/legalize/te.h"

namespace rlx::nn::op {

using Axes = std::vector<int64_t>;

// ---------------------------------------------------------------- elementwise
Tensor add(const Tensor& a, const Tensor& b, const std::string& name = "add");
Tensor subtract(const Tensor& a, const Tensor& b, const std::string& name = "subtract");
Tensor multiply(const Tensor& a, const Tensor& b, const std::string& name = "mul");
Tensor divide(const Tensor& a, const Tensor& b, const std::string& name = "divide");
Tensor maximum(const Tensor& a, const Tensor& b, const std::string& name = "maximum");
Tensor minimum(const Tensor& a, const Tensor& b, const std::string& name = "minimum");
Tensor equal(const Tensor& a, const Tensor& b, const std::string& name = "equal");
Tensor notEqual(const Tensor& a, const Tensor& b, const std::string& name = "not_equal");
Tensor less(const Tensor& a, const Tensor& b, const std::string& name = "less");
Tensor lessEqual(const Tensor& a, const Tensor& b, const std::string& name = "less_equal");
Tensor greater(const Tensor& a, const Tensor& b, const std::string& name = "greater");
Tensor greaterEqual(const Tensor& a, const Tensor& b, const std::string& name = "greater_equal");
Tensor negative(const Tensor& x, const std::string& name = "neg");
Tensor exp(const Tensor& x, const std::string& name = "exp");
Tensor log(const Tensor& x, const std::string& name = "log");
Tensor floor(const Tensor& x, const std::string& name = "floor");
Tensor sqrt(const Tensor& x, const std::string& name = "sqrt");
Tensor square(const Tensor& x, const std::string& name = "square");
Tensor tanh(const Tensor& x, const std::string& name = "tanh");
Tensor sigmoid(const Tensor& x, const std::string& name = "sigmoid");
// The condition is cast to bool first unless it already is.
Tensor where(const Tensor& condition, const Tensor& x1, const Tensor& x2, const std::string& name = "where");
// No binding when x already has `dtype`.
Tensor astype(const Tensor& x, DType dtype, const std::string& name = "astype");

// ---------------------------------------------------------------- shapes
Tensor broadcastTo(const Tensor& x, const std::vector<Dim>& shape, const std::string& name = "broadcast_to");
// One -1 entry is resolved from the other dims (n * 4 for (n, 4, 8) -> (-1, 8)).
Tensor reshape(const Tensor& x, const std::vector<Dim>& shape, const std::string& name = "reshape");
// axes = nullopt reverses the dims.
Tensor permuteDims(const Tensor& x, std::optional<Axes> axes = std::nullopt, const std::string& name = "permute_dims");
Tensor permute(const Tensor& x, const Axes& axes, const std::string& name = "permute");
Tensor squeeze(const Tensor& x, int64_t axis = -1, const std::string& name = "squeeze");
Tensor unsqueeze(const Tensor& x, int64_t dim, const std::string& name = "unsqueeze");
Tensor concat(const std::vector<Tensor>& xs, int64_t dim, const std::string& name = "concat");
// Into `sections` equal parts, or at the given indices.
std::vector<Tensor> split(const Tensor& x, std::variant<int64_t, Axes> indicesOrSections, int64_t axis = 0, const std::string& name = "split");
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0, const std::string& name = "chunk");
Tensor repeat(const Tensor& x, int64_t repeats, std::optional<int64_t> axis = std::nullopt, const std::string& name = "repeat");
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis = std::nullopt, const std::string& name = "take");
// pad: (before, after) pairs from the first dim on, as R.nn.pad's pad_width.
Tensor pad(const Tensor& x, const Axes& pad, const std::string& mode = "constant", double value = 0.0, const std::string& name = "pad");
Tensor triu(const Tensor& x, int64_t diagonal = 0, const std::string& name = "triu");

// ---------------------------------------------------------------- reductions, linear algebra
Tensor sum(const Tensor& x, std::optional<Axes> axis = std::nullopt, bool keepdims = false, const std::string& name = "sum");
Tensor max(const Tensor& x, std::optional<Axes> axis = std::nullopt, bool keepdims = false, const std::string& name = "max");
Tensor min(const Tensor& x, std::optional<Axes> axis = std::nullopt, bool keepdims = false, const std::string& name = "min");
struct CumsumOptions {
  std::optional<int64_t> axis;   // nullopt: over the flattened tensor
  std::optional<DType> dtype;    // nullopt: the input dtype ("void")
  bool exclusive = false;
};
Tensor cumsum(const Tensor& x, const CumsumOptions& opts = {}, const std::string& name = "cumsum");
Tensor matmul(const Tensor& a, const Tensor& b, std::optional<DType> outDtype = std::nullopt, const std::string& name = "matmul");

// ---------------------------------------------------------------- convolutions and norms
struct ConvOptions {
  Tensor bias;            // undefined: no bias (else reshaped to broadcast over the channel dim and added)
  Axes stride = {1};      // one value for every spatial dim, or one per dim
  Axes padding = {0};
  Axes dilation = {1};
  int64_t groups = 1;
  std::optional<std::string> dataLayout;  // NCW / NCHW by default
};
struct ConvTransposeOptions {
  Tensor bias;
  Axes stride = {1};
  Axes padding = {0};
  Axes outputPadding = {0};
  Axes dilation = {1};
  int64_t groups = 1;
};
Tensor conv1d(const Tensor& x, const Tensor& weight, const ConvOptions& opts = {}, const std::string& name = "conv1d");
Tensor conv2d(const Tensor& x, const Tensor& weight, const ConvOptions& opts = {}, const std::string& name = "conv2d");
Tensor conv1dTranspose(const Tensor& x, const Tensor& weight, const ConvTransposeOptions& opts = {}, const std::string& name = "conv1d_transpose");
// Normalizes over the last normalizedShape.size() dims.
Tensor layerNorm(const Tensor& x, const std::vector<int64_t>& normalizedShape, const Tensor& weight, const Tensor& bias, double eps = 1e-5, const std::string& name = "layer_norm");
Tensor rmsNorm(const Tensor& x, const Tensor& weight, const Axes& axes, double epsilon = 1e-5, const std::string& name = "rms_norm");
// axes default to every dim after the channel axis.
Tensor groupNorm(const Tensor& x, int64_t numGroups, const Tensor& weight, const Tensor& bias, double eps = 1e-5, int64_t channelAxis = 1,
                 std::optional<Axes> axes = std::nullopt, const std::string& name = "group_norm");

// ---------------------------------------------------------------- activations
Tensor relu(const Tensor& x, const std::string& name = "relu");
Tensor relu6(const Tensor& x, const std::string& name = "relu6");
Tensor silu(const Tensor& x, const std::string& name = "silu");
// approximate: "none" or "tanh" (R.nn.gelu_tanh).
Tensor gelu(const Tensor& x, const std::string& approximate = "none", const std::string& name = "gelu");
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0, const std::string& name = "softplus");
Tensor prelu(const Tensor& x, const Tensor& alpha, int64_t axis = 1, const std::string& name = "prelu");
Tensor softmax(const Tensor& x, int64_t axis = -1, const std::string& name = "softmax");

// ---------------------------------------------------------------- attention, image, embeddings
struct AttentionOptions {
  Tensor attnMask;  // not supported (as in TVM): a defined mask is an error
  bool isCausal = false;
  std::optional<double> scale;
};
// Layout [batch, seq_len, num_heads, head_dim] (R.nn.attention).
Tensor scaledDotProductAttention(const Tensor& query, const Tensor& key, const Tensor& value, const AttentionOptions& opts = {},
                                 const std::string& name = "scaled_dot_product_attention");
struct InterpolateOptions {
  std::optional<std::vector<int64_t>> size;            // output spatial size, or
  std::optional<std::vector<double>> scaleFactor;      // one factor for all spatial dims, or one per dim
  std::string mode = "nearest";                        // nearest, (bi)linear, (bi)cubic
  std::optional<bool> alignCorners;
  std::string dataLayout = "NCHW";
};
Tensor interpolate(const Tensor& x, const InterpolateOptions& opts, const std::string& name = "interpolate");
struct TimestepEmbeddingOptions {
  bool flipSinToCos = false;
  double downscaleFreqShift = 1;
  double scale = 1;
  int64_t maxPeriod = 10000;
};
Tensor getTimestepEmbedding(const Tensor& x, int64_t embeddingDim, const TimestepEmbeddingOptions& opts = {}, const std::string& name = "get_timestep_embedding");

// ---------------------------------------------------------------- sorting and sampling
Tensor sort(const Tensor& x, int64_t axis = -1, bool descending = false, const std::string& name = "sort");
Tensor argsort(const Tensor& x, int64_t axis = -1, bool descending = false, DType dtype = "int32", const std::string& name = "argsort");
// ret_type "both" (values, indices), "values" or "indices".
std::vector<Tensor> topk(const Tensor& x, int64_t k = 1, int64_t axis = -1, const std::string& retType = "both", bool largest = true, DType dtype = "int32",
                         const std::string& name = "topk");
Tensor multinomialFromUniform(const Tensor& prob, const Tensor& uniformSample, const Tensor& sampleIndices, DType dtype = "int64",
                              const std::string& name = "multinomial_from_uniform");
// Keeps the top-p / top-k probabilities of each row (sortedProb descending) and renormalizes them.
Tensor renormalizeTopPTopKProb(const Tensor& prob, const Tensor& sortedProb, const Tensor& topP, const Tensor& topK);
// Samples an index per row of sampleIndices from the sorted probabilities under top-p / top-k.
Tensor sampleTopPTopKFromSortedProb(const Tensor& sortedProb, const Tensor& sortedIndex, const Tensor& topP, const Tensor& topK, const Tensor& uniformSample,
                                    const Tensor& sampleIndices);

// ---------------------------------------------------------------- creation
Tensor zeros(const std::vector<Dim>& shape, DType dtype = "float32", const std::string& name = "zeros");
Tensor ones(const std::vector<Dim>& shape, DType dtype = "float32", const std::string& name = "ones");
// fill: a number (R.const of dtype) or a 0-d tensor.
Tensor full(const std::vector<Dim>& shape, std::variant<double, Tensor> fill, DType dtype = "float32", const std::string& name = "full");
Tensor empty(const std::vector<Dim>& shape, DType dtype = "float32", const std::string& name = "empty");
Tensor arange(double start, std::optional<double> end = std::nullopt, double step = 1, DType dtype = "float32", const std::string& name = "arange");

// ---------------------------------------------------------------- collective communication
// With one worker each is the identity (R.ccl.*).
Tensor cclAllreduce(const Tensor& x, const std::string& opType = "sum", bool inGroup = true, const std::string& name = "ccl_allreduce");
Tensor cclAllgather(const Tensor& x, int64_t numWorkers, const std::string& name = "ccl_allgather");
Tensor cclBroadcastFromWorker0(const Tensor& x, const std::string& name = "broadcast_from_worker0");

// ---------------------------------------------------------------- raw Relax
// Binds a Relax expression built by hand (nested sub-expressions as lv, lv1, ...) under `name`:
// a tensor, or a tuple whose items are bound as <name>_<i> (TVM's wrap_nested).
Nested wrapNested(const Expr& expr, const std::string& name);

// ---------------------------------------------------------------- debugging (ExportOptions::debug)
// An argument of a debug function: a tensor, a symbolic int, an int (R.prim_value int64), a float
// (float32, as TVM) or a string.
using DebugArg = std::variant<Tensor, PrimExpr, int64_t, double, std::string>;
// At run time, calls the packed function `name` as name(lineInfo, args...) through
// vm.builtin.invoke_debug_func, ordered by the IO effect. lineInfo ("<file>:<line>") defaults to the
// caller's source location. Exporting without debug = true makes this an error.
void debugFunc(const std::string& name, const std::vector<DebugArg>& args, const std::string& lineInfo = "",
               std::source_location where = std::source_location::current());
// TVM's print_: prints "<file>:<line>: shape = (..), dtype = .., data =" and the array at run time
// (vm.builtin.debug_print).
void print(const Tensor& x, std::source_location where = std::source_location::current());

// ---------------------------------------------------------------- custom kernels
// A call_tir of `func` (a T.prim_func in TVMScript text, or a PrimFunc) added to the module under
// `nameHint`. Tensor args are passed as inputs, PrimExpr args as tir_vars; `outs` give the output
// shapes/dtypes (Tensor::placeholder). One output returns one tensor, several a list.
std::vector<Tensor> tensorIrOp(const std::string& funcText, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<Tensor>& outs);
std::vector<Tensor> tensorIrOp(const Expr& primFunc, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<Tensor>& outs);
// call_tir_inplace: outputs overwrite the inputs at inplaceIndices (-1 = a fresh output).
std::vector<Tensor> tensorIrInplaceOp(const std::string& funcText, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<int64_t>& inplaceIndices,
                                      const std::vector<Tensor>& outs);
std::vector<Tensor> tensorIrInplaceOp(const Expr& primFunc, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<int64_t>& inplaceIndices,
                                      const std::vector<Tensor>& outs);
// A kernel built with the TE kernel builder from placeholders of `args` (named after the Relax
// vars): TVM's emit_te. The function returns the output tensor(s).
using TensorExprFn = std::function<std::vector<te::Tensor>(te::KernelBuilder& kb, const std::vector<te::Tensor>& inputs)>;
std::vector<Tensor> tensorExprOp(const TensorExprFn& fn, const std::string& nameHint, const std::vector<Tensor>& args);

}  // namespace rlx::nn::op
