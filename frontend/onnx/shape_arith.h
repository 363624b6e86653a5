// Folding of elementwise integer ops over shape values, so that shape computations (Shape, Gather,
// Add, Equal, Where, ... feeding Reshape or Expand) stay symbolic instead of running as tensors.
#pragma once
#include <optional>
#include <string>

#include "frontend/onnx/converter.h"

namespace rlx::onnx {

// The node's result as a shape value when both inputs are shape values or small integer constants
// (at least one symbolic) and every element folds exactly; nullopt otherwise (emit the op).
std::optional<OValue> foldShapeArith(NodeCtx& c, const std::string& relaxOp);
// Where(cond, x, y) with known condition elements over shape values.
std::optional<OValue> foldShapeWhere(NodeCtx& c);

}  // namespace rlx::onnx
