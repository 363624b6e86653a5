// LegalizeOps rules: per op, a TE definition (the topi equivalent) of the kernel that computes it.
// The pass (passes/legalize_ops.cc) turns each call into R.call_tir of the kernel a rule builds.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "passes/legalize/te.h"

namespace rlx::legalize {

// What a rule sees and fills: the call, the kernel under construction and the call_tir arguments.
class Ctx {
 public:
  explicit Ctx(const Call& c, bool positionalNames = false) : call(c), positional(positionalNames) {}
  const Call& call;
  bool positional;  // name every placeholder A, B, ... (for comparing kernels)
  te::KernelBuilder kb;
  std::vector<Expr> tirArgs;       // call_tir arguments, in kernel parameter order
  std::vector<te::Tensor> inputs;  // their placeholders
  // The PrimFunc's name when it depends on the call (nn.pad's reflect_pad, ...); empty: the name
  // the rule was registered with.
  std::string kernelName;

  // Argument `e` (a tensor with a known shape) as a kernel input, named after the Relax var (A,
  // B, ... by position otherwise, as TVM's call_te does). nullopt when its shape is unknown.
  std::optional<te::Tensor> tensor(const Expr& e);
  std::optional<te::Tensor> arg(size_t i) { return i < call.args.size() ? tensor(call.args[i]) : std::nullopt; }
  // A 0-d constant argument (or a constant prim value) as a scalar of its dtype (TVM folds those
  // into binary kernels).
  PrimExpr scalarConst(const Expr& e) const;
  // An R.Prim argument known only at run time as a scalar parameter of the kernel (its value is
  // passed by call_tir, as TVM's call_te does); null when `e` is not one.
  PrimExpr scalarInput(const Expr& e);
  // The known value of a PrimValue argument, mapped into the kernel (null when unknown).
  PrimExpr primArg(size_t i);
  // Output i of the call (its struct info): shape in kernel terms and dtype; nullopt when unknown.
  std::optional<std::vector<PrimExpr>> outShape(size_t i = 0);
  DataType outDtype(size_t i = 0) const;
  size_t outCount() const;
};

// A rule returns the kernel outputs (one per result tensor), or nothing to leave the call alone.
using Rule = std::function<std::vector<te::Tensor>(Ctx&)>;

// Registers `rule` for op `opName` ("relax.add"); `kernelName` names the PrimFunc (add, add1, ...).
void registerRule(const std::string& opName, const std::string& kernelName, Rule rule);
// A rule may instead replace a call by an expression built at compile time (TVM's arange of
// constants becomes an R.const); null leaves the call to the kernel rule.
using Fold = std::function<Expr(const Call&)>;
void registerFold(const std::string& opName, Fold fold);
struct Entry {
  std::string kernelName;
  Rule rule;
  Fold fold;
};
const Entry* findRule(const std::string& opName);

// One per family file.
void registerElementwiseRules();
void registerMatmulRules();
void registerNNRules();
void registerManipulateRules();
void registerCreateRules();
void registerReduceRules();
void registerConvRules();
void registerPoolRules();
void registerNormRules();
void registerIndexRules();
void registerAttentionRules();
void registerSearchRules();
void registerGatherScatterRules();
void registerSortRules();
void registerConvTransposeRules();
void registerImageRules();
void registerBitwiseRules();
void registerQuantizeRules();
void registerEinsumRules();
void registerLayoutRules();
void registerGradRules();
void registerNNExtraRules();
void registerCclRules();

// Numpy broadcasting as topi does it: the index into `t` for output indices `out` of `outShape`
// (trailing dims aligned; a dim of constant extent 1 under a larger output dim reads index 0).
te::Indices broadcastIndex(const te::Tensor& t, const te::Indices& out, const std::vector<PrimExpr>& outShape);

// take's axis attribute (shared by take and take_backward): {true, 0} for axis=None (take from the
// flattened data), else {false, the axis in [0, ndim)}; nullopt when out of range.
std::optional<std::pair<bool, int64_t>> takeAxisOf(const Call& call, size_t ndim);

// The input indices of element `out` (of outShape) of a reshape from `in`: topi's ravel of the
// output index and unravel into the input shape, in TVM's simplified form.
te::Indices reshapeIndex(const te::Indices& out, const std::vector<PrimExpr>& outShape, const std::vector<PrimExpr>& in);

// topi's constant pad: a stage `name` of x's shape grown by before/after per dim, reading x inside
// and `value` outside (T.if_then_else on `before <= i and i < extent + before` per padded dim).
te::Tensor padStage(te::KernelBuilder& kb, const te::Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after, const PrimExpr& value,
                    const std::string& name, const te::LoopNames& loops);
// topi's softmax (T_softmax_maxelem / _exp / _expsum / _norm) or log_softmax along `axis`.
te::Tensor softmaxStages(te::KernelBuilder& kb, const te::Tensor& x, int64_t axis, bool log);
// topi's matmul of a by b (each at least 1-D) into `out` (the result's shape) of dtype t: one
// "matmul" reduction, batch dims broadcast numpy-style, a 1-D operand's dim dropped.
te::Tensor matmulStage(te::KernelBuilder& kb, const te::Tensor& a, const te::Tensor& b, const std::vector<PrimExpr>& out, DataType t);
// Folding floordiv of an index by a positive constant (x // 1 is x).
PrimExpr idxFloorDiv(const PrimExpr& a, int64_t c);

}  // namespace rlx::legalize
