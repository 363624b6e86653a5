// A Loop or Scan whose trip count or condition is known only at run time, as a recursive Relax
// function (Relax has no loop construct): one call runs one step and calls itself with the next state.
#pragma once
#include <vector>

#include "frontend/onnx/converter.h"

namespace rlx::onnx {

struct RunTimeLoop {
  // Loop's body is body(i, cond, state...) -> (cond, state..., scan elements...); Scan's body is
  // body(state..., the scan inputs' elements at step i) -> (state..., scan elements...).
  bool isLoop = true;
  Expr trips;  // an int64 () tensor: steps run while i < trips (and, for Loop, cond holds)
  Expr cond;   // a bool () tensor: Loop's initial condition
  std::vector<OValue> state;
  struct ScanInput {
    Expr x;
    int64_t axis;
    bool reverse;
  };
  std::vector<ScanInput> scanInputs;
};

// Emits the recursive function and its call; returns the final state values, then each scan
// output with its elements stacked along axis 0 in step order.
Outputs emitRunTimeLoop(NodeCtx& c, const ::onnx::GraphProto& body, const RunTimeLoop& loop);

}  // namespace rlx::onnx
