// The reference evaluator: plain C++ implementations of Relax ops on dense NDArrays, numpy
// semantics. FoldConstant uses it to fold calls; the VM tests use it as the oracle for kernels.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/expr.h"
#include "ir/ndarray.h"

namespace rlx {

struct ClosureData;  // ir/eval_function.cc: a function value of the reference evaluator

// A concrete runtime value an op consumes or produces: what a constant Relax expression denotes.
// Closure values exist only inside the reference evaluator (ir/eval_function.h); ops never see them.
struct Value {
  enum Kind : uint8_t { Tensor, Tuple, Shape, Prim, Str, DType, Closure };
  Kind kind = Tuple;
  NDArrayRef tensor;            // Tensor
  std::vector<Value> fields;    // Tuple
  std::vector<int64_t> shape;   // Shape
  DataType dtype;               // Prim: its dtype; DType: the value
  int64_t i = 0;                // Prim with an integer/bool dtype
  double f = 0;                 // Prim with a float dtype
  std::string str;              // Str
  std::shared_ptr<const ClosureData> closure;  // Closure

  static Value ofTensor(NDArrayRef t);
  static Value ofTuple(std::vector<Value> f);
  static Value ofShape(std::vector<int64_t> s);
  static Value ofInt(int64_t v, DataType t = DataType::int64());
  static Value ofFloat(double v, DataType t = DataType::float64());
  static Value ofStr(std::string s);
  static Value ofDType(DataType t);
  static Value ofClosure(std::shared_ptr<const ClosureData> c);

  bool isTensor() const { return kind == Tensor; }
  // A Prim's value as double / int64 whatever its dtype.
  double primDouble() const;
  int64_t primInt() const;
  std::string describe() const;  // "a float32 tensor of shape (2, 3)", "a shape", ...
};

// Evaluates one call of an op. `call` supplies the attrs and the inferred result struct info
// (static whenever every argument is a concrete value and the result shape is not data-dependent);
// `args` are the concrete values of call.args, in order.
using EvalFn = std::function<Result<Value>(const Call& call, const std::vector<Value>& args)>;

// The evaluator of an op, or null when the op has none (impure ops, call_tir, allocations, ...).
const EvalFn* findEval(std::string_view opName);
// Evaluates `call` (an Op call) on `args`; errors name the op when it has no evaluator.
Result<Value> evaluateCall(const Call& call, const std::vector<Value>& args);
// Builds a call of `opName` on constant `args` with the given attrs, normalizes it (infers struct
// info) and evaluates it — the entry point for tests and the kernel oracle.
Result<Value> evaluateOp(const std::string& opName, const std::vector<Value>& args, AttrsRef attrs = nullptr, std::vector<StructInfo> sinfoArgs = {});

// The concrete value of a constant expression: Constant, ShapeExpr / PrimValue with constant
// values, StringImm, DataTypeImm, and Tuples of those. nullopt otherwise.
std::optional<Value> constantValue(const Expr& e);
// The constant expression denoting `v` (struct info set); null for a closure (or a tuple holding one).
Expr valueToExpr(const Value& v);

// Registration (ir/ops/eval_*.cc); each family file defines one of these, eval.cc calls them once.
void registerEval(std::string opName, EvalFn fn);
void registerElementwiseEvals();  // unary, binary, comparison, clip, astype, where, ...
void registerCreateEvals();       // zeros/ones/full/arange/tril/triu/eye, ...
void registerManipulateEvals();   // reshape/permute_dims/concat/split/slicing/take/gather/scatter, ...
void registerReduceEvals();       // statistical, search, sorting, cumulative ops
void registerNNEvals();           // linalg, nn, conv/pool, image ops
void registerStructuralEvals();   // shape_of, tuple ops, shape/prim ops, ...
void registerGradEvals();         // grad.* markers and backward kernels (take, nll_loss, pool2d)
void registerMemoryEvals();       // builtin/memory identities, memory.view, ccl.*/dist.* on one worker

}  // namespace rlx
