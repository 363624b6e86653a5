// Control flow: If as a Relax If whose branches are the converted subgraphs (outer values visible);
// Scan, Loop and SequenceMap unrolled when their lengths are known at import (each step's body
// bindings inlined, so every step keeps its own shapes); a Loop or Scan that only the run decides
// becomes a recursive function (loop_function.cc).
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/loop_function.h"

namespace rlx::onnx {

namespace {

Expr branchBody(const GraphImporter::Subgraph& sg) {
  Expr out = sg.outputs.size() == 1 ? sg.outputs[0] : Expr(make<Tuple>(sg.outputs));
  std::vector<BlockRef> blocks;
  if (sg.block) blocks.push_back(sg.block);
  auto seq = make<SeqExpr>(std::move(blocks), out);
  seq->sinfo = sinfoOfExpr(out);
  return seq;
}

const ::onnx::GraphProto& graphAttr(NodeCtx& c, const char* name) {
  auto* a = c.attr(name);
  if (!a || !a->has_g()) fail(std::string("missing graph attribute '") + name + "'");
  return a->g();
}

std::vector<Expr> inlineSubgraph(NodeCtx& c, const ::onnx::GraphProto& g, const std::vector<OValue>& inputs) { return c.graph().inlineSubgraph(g, inputs); }

// The per-step values of a scan output stacked along `axis` (negative counts from the end).
Expr stackSteps(NodeCtx& c, const std::vector<Expr>& steps, int64_t axis, const char* op) {
  if (steps.empty()) fail(std::string(op) + " with zero iterations and scan outputs is not supported (their element shape is unknown)");
  auto t = tensorInfo(steps[0]);
  if (!t) fail(std::string(op) + ": a scan output must be a tensor");
  return c.op("stack", {ex(make<Tuple>(steps))}, {{"axis", i(normAxis(axis, t->ndim + 1))}});
}

// Scan over `steps` known at import, unrolled: the state values, then the scan inputs `xs` sliced
// along their axes (read backwards where the direction is 1); each scan output stacked along its axis.
Outputs unrollScan(NodeCtx& c, const ::onnx::GraphProto& body, std::vector<OValue> state, const std::vector<Expr>& xs, const std::vector<int64_t>& inAxes,
                   const std::vector<int64_t>& inDirs, const std::vector<int64_t>& outAxes, const std::vector<int64_t>& outDirs, int64_t steps) {
  size_t n = state.size(), m = xs.size(), k = outAxes.size();
  std::vector<std::vector<Expr>> slices(k);
  for (int64_t step = 0; step < steps; ++step) {
    std::vector<OValue> inputs = state;
    for (size_t j = 0; j < m; ++j) {
      int64_t at = inDirs[j] ? steps - 1 - step : step;
      Expr s = c.op("strided_slice", {ex(xs[j]), ints({inAxes[j]}), ints({at}), ints({at + 1}), ints({1})});
      inputs.push_back({c.op("squeeze", {ex(s)}, {{"axis", ints({inAxes[j]})}})});
    }
    auto outs = inlineSubgraph(c, body, inputs);
    for (size_t j = 0; j < n; ++j) state[j] = {outs[j]};
    for (size_t j = 0; j < k; ++j) slices[j].push_back(outs[n + j]);
  }
  Outputs result = state;
  for (size_t j = 0; j < k; ++j) {
    if (outDirs[j]) std::reverse(slices[j].begin(), slices[j].end());
    result.push_back({stackSteps(c, slices[j], outAxes[j], "Scan")});
  }
  return result;
}

// A scalar (or one-element) input as a () tensor.
Expr scalarInput(NodeCtx& c, size_t i, DataType t, const char* what) {
  auto info = tensorInfo(c.x(i));
  if (!info || info->dtype != t) fail(std::string(what) + " must be a " + t.str() + " tensor");
  return info->ndim == 0 ? c.x(i) : c.op("reshape", {ex(c.x(i)), ex(shapeExpr({}))});
}

// Scan outputs of a run-time loop come stacked along axis 0 in step order: reversed when `reverse`,
// then their step axis moved to `axis`.
Expr placeSteps(NodeCtx& c, Expr stacked, bool reverse, int64_t axis) {
  auto t = tensorInfo(stacked);
  if (reverse) stacked = c.op("flip", {ex(stacked)}, {{"axis", build::i(0)}});
  axis = normAxis(axis, t->ndim);
  if (axis == 0) return stacked;
  std::vector<int64_t> perm;
  for (int64_t d = 1; d <= axis; ++d) perm.push_back(d);
  perm.push_back(0);
  for (int64_t d = axis + 1; d < t->ndim; ++d) perm.push_back(d);
  return c.op("permute_dims", {ex(stacked)}, {{"axes", ints(perm)}});
}

// Loop unrolled while its trip count and each step's condition are known at import, in a block of
// its own; nullopt (the block dropped) when a condition is only known at run time or the loop runs
// longer than is worth unrolling.
constexpr int64_t kMaxUnrolledSteps = 256;
std::optional<Outputs> unrollLoop(NodeCtx& c, const ::onnx::GraphProto& body, std::optional<int64_t> trips, bool going, size_t n, size_t k) {
  BlockBuilder& bb = c.graph().builder();
  std::vector<OValue> state;
  for (size_t j = 0; j < n; ++j) state.push_back(c.in(2 + j));
  std::vector<std::vector<Expr>> slices(k);
  bb.beginBlock(false);
  try {
    for (int64_t step = 0; going && (!trips || step < *trips); ++step) {
      if (step == kMaxUnrolledSteps) {
        bb.endBlock();
        return std::nullopt;
      }
      std::vector<OValue> inputs = {{c.scalar(double(step), DataType::int64())}, {c.scalar(1, DataType::boolean())}};
      inputs.insert(inputs.end(), state.begin(), state.end());
      auto outs = inlineSubgraph(c, body, inputs);
      auto cond = outs[0].as<Constant>();
      if (!cond || cond->data->numel() != 1) {
        bb.endBlock();
        return std::nullopt;
      }
      going = cond->data->getInt(0) != 0;
      for (size_t j = 0; j < n; ++j) state[j] = {outs[1 + j]};
      for (size_t j = 0; j < k; ++j) slices[j].push_back(outs[1 + n + j]);
    }
  } catch (...) {
    bb.endBlock();
    throw;
  }
  if (auto block = bb.endBlock())
    for (auto& b : block->bindings) bb.addBinding(b);
  Outputs result = state;
  for (size_t j = 0; j < k; ++j) result.push_back({stackSteps(c, slices[j], 0, "Loop")});
  return result;
}

}  // namespace

void registerControlConverters() {
  onnxOp("If", {}, [](NodeCtx& c) -> Outputs {
    Expr cond = c.x(0);
    auto t = tensorInfo(cond);
    if (!t || !t->dtype.isBool()) fail("the condition must be a bool tensor");
    if (t->ndim != 0) cond = c.op("reshape", {ex(cond), ex(shapeExpr({}))});
    // A condition known at import (computed from shapes or constants) picks its branch now: the
    // branches may then differ in shapes or even in structure.
    if (auto known = c.constInts(0); known && known->size() == 1) {
      auto outs = inlineSubgraph(c, graphAttr(c, (*known)[0] ? "then_branch" : "else_branch"), {});
      Outputs result;
      for (auto& o : outs) result.push_back({o});
      return result;
    }
    Expr thenBody = branchBody(c.graph().convertSubgraph(graphAttr(c, "then_branch"), {}));
    Expr elseBody = branchBody(c.graph().convertSubgraph(graphAttr(c, "else_branch"), {}));
    Expr result = c.emit(make<If>(cond, thenBody, elseBody));
    size_t n = size_t(c.node.output_size());
    if (n == 1) return {{result}};
    Outputs outs;
    for (size_t k = 0; k < n; ++k) outs.push_back({c.emit(make<TupleGetItem>(result, int(k)))});
    return outs;
  });
  onnxOp("Scan", {9, 11, 16, 19, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    const auto& body = graphAttr(c, "body");
    size_t m = size_t(c.i("num_scan_inputs", 0));
    if (m == 0 || m > c.numInputs()) fail("num_scan_inputs must be between 1 and the number of inputs");
    size_t n = c.numInputs() - m;  // loop-carried state values
    auto inAxes = c.ints("scan_input_axes", m, 0);
    auto inDirs = c.ints("scan_input_directions", m, 0);
    if (size_t(body.output_size()) < n) fail("the body has fewer outputs than there are state values");
    size_t k = size_t(body.output_size()) - n;
    auto outAxes = c.ints("scan_output_axes", k, 0);
    auto outDirs = c.ints("scan_output_directions", k, 0);
    int64_t steps = -1;
    std::optional<PrimExpr> length;  // a symbolic length: the steps are decided at run time
    for (size_t j = 0; j < m; ++j) {
      int64_t r = c.ndim(n + j);
      inAxes[j] = normAxis(inAxes[j], r);
      PrimExpr len = c.dims(n + j)[size_t(inAxes[j])];
      if (auto d = len.as<IntImm>()) {
        if (steps >= 0 && d->value != steps) fail("the scan inputs have different lengths");
        steps = d->value;
      } else {
        length = len;
      }
    }
    if (length && steps < 0) {
      RunTimeLoop loop;
      loop.isLoop = false;
      loop.trips = c.op("reshape", {ex(c.op("shape_to_tensor", {ex(shapeExpr({*length}))})), ex(shapeExpr({}))});
      loop.cond = c.scalar(1, DataType::boolean());
      for (size_t j = 0; j < n; ++j) loop.state.push_back(c.in(j));
      for (size_t j = 0; j < m; ++j) loop.scanInputs.push_back({c.x(n + j), inAxes[j], inDirs[j] != 0});
      Outputs result = emitRunTimeLoop(c, body, loop);
      for (size_t j = 0; j < k; ++j) result[n + j] = {placeSteps(c, result[n + j].expr, outDirs[j] != 0, outAxes[j])};
      return result;
    }
    std::vector<OValue> state;
    for (size_t j = 0; j < n; ++j) state.push_back(c.in(j));
    std::vector<Expr> xs;
    for (size_t j = 0; j < m; ++j) xs.push_back(c.x(n + j));
    return unrollScan(c, body, state, xs, inAxes, inDirs, outAxes, outDirs, steps);
  });
  onnxOp("Scan", {8}, [](NodeCtx& c) -> Outputs {
    // Scan-8: the states and scan inputs carry a leading batch axis (the scan axis is 1), with
    // optional per-batch sequence_lens first; each batch element is scanned on its own and the
    // results stacked back along the batch axis.
    const auto& body = graphAttr(c, "body");
    size_t m = size_t(c.i("num_scan_inputs", 0));
    if (c.numInputs() < m + 1 || m == 0) fail("num_scan_inputs must be between 1 and the number of inputs after sequence_lens");
    size_t n = c.numInputs() - 1 - m;
    if (size_t(body.output_size()) < n) fail("the body has fewer outputs than there are state values");
    size_t k = size_t(body.output_size()) - n;
    auto dirs = c.ints("directions", m, 0);
    int64_t batch = knownDim(c.dim(1 + n, 0), "the batch size");
    int64_t steps = knownDim(c.dim(1 + n, 1), "the sequence length");
    if (c.has(0)) {
      auto lens = c.requireInts(0, "sequence_lens");
      for (auto l : lens)
        if (l != steps) fail("sequence_lens shorter than the scan inputs is not supported (every sequence must run " + std::to_string(steps) + " steps)");
    }
    std::vector<std::vector<Expr>> perBatch(n + k);
    for (int64_t b = 0; b < batch; ++b) {
      auto row = [&](size_t input) { return c.op("take", {ex(c.x(input)), ex(c.scalar(double(b), DataType::int64()))}, {{"axis", build::i(0)}}); };
      std::vector<OValue> state;
      for (size_t j = 0; j < n; ++j) state.push_back({row(1 + j)});
      std::vector<Expr> xs;
      for (size_t j = 0; j < m; ++j) xs.push_back(row(1 + n + j));
      auto outs = unrollScan(c, body, state, xs, std::vector<int64_t>(m, 0), dirs, std::vector<int64_t>(k, 0), std::vector<int64_t>(k, 0), steps);
      for (size_t j = 0; j < n + k; ++j) perBatch[j].push_back(outs[j].expr);
    }
    Outputs result;
    for (auto& rows : perBatch) result.push_back({stackSteps(c, rows, 0, "Scan")});
    return result;
  });
  onnxOp("Loop", {1, 11, 13, 16, 19, 21, 23, 24, 25}, [](NodeCtx& c) -> Outputs {
    // body(iteration, cond, state...) -> (cond, state..., scan outputs...): unrolled when the trip
    // count and each step's condition are known at import (the condition is usually a constant or
    // computed from the trip counter), else a recursive function.
    const auto& body = graphAttr(c, "body");
    if (c.numInputs() < 2) fail("Loop takes M, cond and the initial state values");
    size_t n = c.numInputs() - 2;
    if (size_t(body.output_size()) < n + 1) fail("the body has fewer outputs than cond and the state values");
    size_t k = size_t(body.output_size()) - n - 1;
    std::optional<int64_t> trips;
    bool tripsKnown = true, condKnown = true, going = true;
    if (c.has(0)) {
      auto v = c.constInts(0);
      if (v && v->size() == 1) trips = (*v)[0];
      else tripsKnown = false;
    }
    if (c.has(1)) {
      auto v = c.constInts(1);
      if (v && v->size() == 1) going = (*v)[0] != 0;
      else condKnown = false;
    }
    if (!c.has(0) && !c.has(1)) fail("a Loop without M and cond never ends");
    if (tripsKnown && condKnown)
      if (auto unrolled = unrollLoop(c, body, trips, going, n, k)) return *unrolled;
    RunTimeLoop loop;
    loop.trips = c.has(0) ? scalarInput(c, 0, DataType::int64(), "the trip count M")
                          : c.constant([] {
                              auto a = make<NDArray>(DataType::int64(), std::vector<int64_t>{});
                              a->setInt(0, std::numeric_limits<int64_t>::max());
                              return a;
                            }());
    loop.cond = c.has(1) ? scalarInput(c, 1, DataType::boolean(), "the condition") : c.scalar(1, DataType::boolean());
    for (size_t j = 0; j < n; ++j) loop.state.push_back(c.in(2 + j));
    return emitRunTimeLoop(c, body, loop);
  });
  onnxOp("SequenceMap", {17}, [](NodeCtx& c) -> Outputs {
    // body applied to the k-th element of every sequence input (tensor inputs as they are);
    // each output collects its results into a sequence.
    const auto& body = graphAttr(c, "body");
    std::optional<size_t> length;
    std::vector<std::vector<Expr>> elems(c.numInputs());
    for (size_t j = 0; j < c.numInputs(); ++j) {
      auto seq = sinfoOfExpr(c.x(j)).as<TupleSInfo>();
      if (!seq) continue;
      if (length && *length != seq->fields.size()) fail("the sequences have different lengths");
      length = seq->fields.size();
      for (size_t e = 0; e < seq->fields.size(); ++e) elems[j].push_back(c.emit(make<TupleGetItem>(c.x(j), int(e))));
    }
    if (!c.numInputs() || !sinfoOfExpr(c.x(0)).as<TupleSInfo>()) fail("the first input must be a sequence");
    std::vector<std::vector<Expr>> outs(size_t(body.output_size()));
    for (size_t e = 0; e < *length; ++e) {
      std::vector<OValue> inputs;
      for (size_t j = 0; j < c.numInputs(); ++j) inputs.push_back(elems[j].empty() ? c.in(j) : OValue{elems[j][e]});
      auto step = inlineSubgraph(c, body, inputs);
      for (size_t o = 0; o < outs.size(); ++o) outs[o].push_back(step[o]);
    }
    Outputs result;
    for (auto& o : outs) result.push_back({c.emit(make<Tuple>(o))});
    return result;
  });
}

}  // namespace rlx::onnx
