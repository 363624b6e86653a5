// Control flow: If as a Relax If whose branches are the converted subgraphs (outer values visible),
// Scan unrolled over its statically known length (each step's body bindings inlined).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

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

// Converts `g` on `inputs` and appends its bindings to the current block (one unrolled step).
std::vector<Expr> inlineSubgraph(NodeCtx& c, const ::onnx::GraphProto& g, const std::vector<OValue>& inputs) {
  auto sg = c.graph().convertSubgraph(g, inputs);
  if (sg.block)
    for (auto& b : sg.block->bindings) c.graph().builder().addBinding(b);
  return sg.outputs;
}

}  // namespace

void registerControlConverters() {
  onnxOp("If", {}, [](NodeCtx& c) -> Outputs {
    Expr cond = c.x(0);
    auto t = tensorInfo(cond);
    if (!t || !t->dtype.isBool()) fail("the condition must be a bool tensor");
    if (t->ndim != 0) cond = c.op("reshape", {ex(cond), ex(shapeExpr({}))});
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
    auto inAxes = c.ints("scan_input_axes", std::vector<int64_t>(m, 0));
    auto inDirs = c.ints("scan_input_directions", std::vector<int64_t>(m, 0));
    size_t k = size_t(body.output_size()) - n;
    auto outAxes = c.ints("scan_output_axes", std::vector<int64_t>(k, 0));
    auto outDirs = c.ints("scan_output_directions", std::vector<int64_t>(k, 0));
    int64_t steps = -1;
    for (size_t j = 0; j < m; ++j) {
      int64_t r = c.ndim(n + j);
      inAxes[j] = normAxis(inAxes[j], r);
      auto d = c.dims(n + j)[size_t(inAxes[j])].as<IntImm>();
      if (!d) fail("Scan over a symbolic length is not supported");
      if (steps >= 0 && d->value != steps) fail("the scan inputs have different lengths");
      steps = d->value;
    }
    std::vector<OValue> state;
    for (size_t j = 0; j < n; ++j) state.push_back(c.in(j));
    std::vector<std::vector<Expr>> slices(k);
    for (int64_t step = 0; step < steps; ++step) {
      std::vector<OValue> inputs = state;
      for (size_t j = 0; j < m; ++j) {
        int64_t at = inDirs[j] ? steps - 1 - step : step;
        Expr s = c.op("strided_slice", {ex(c.x(n + j)), ints({inAxes[j]}), ints({at}), ints({at + 1}), ints({1})});
        inputs.push_back({c.op("squeeze", {ex(s)}, {{"axis", ints({inAxes[j]})}})});
      }
      auto outs = inlineSubgraph(c, body, inputs);
      for (size_t j = 0; j < n; ++j) state[j] = {outs[j]};
      for (size_t j = 0; j < k; ++j) slices[j].push_back(outs[n + j]);
    }
    Outputs result = state;
    for (size_t j = 0; j < k; ++j) {
      if (slices[j].empty()) fail("Scan with zero iterations and scan outputs is not supported");
      if (outDirs[j]) std::reverse(slices[j].begin(), slices[j].end());
      int64_t r = tensorInfo(slices[j][0])->ndim + 1;
      int64_t axis = outAxes[j] < 0 ? outAxes[j] + r : outAxes[j];
      result.push_back({c.op("stack", {ex(make<Tuple>(slices[j]))}, {{"axis", i(axis)}})});
    }
    return result;
  });
}

}  // namespace rlx::onnx
