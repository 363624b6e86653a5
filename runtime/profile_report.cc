// The table `rlx run --profile` prints: one line per kernel or builtin, most time first, then
// what the VM itself (dispatch, argument checks) took between the calls.
#include "runtime/profile_report.h"

#include <fmt/format.h>

#include "ir/tir.h"
#include "printer/printer.h"

namespace rlx {

std::map<std::string, std::string> kernelOperandShapes(const IRModule& lowered) {
  std::map<std::string, std::string> shapes;
  for (const auto& entry : lowered.functions) {
    auto f = entry.func.as<PrimFunc>();
    if (!f) continue;
    std::string text;
    for (const auto& [param, buffer] : f->bufferMap) {
      std::string shape;
      for (const auto& dim : buffer->shape) {
        auto* imm = asIntImm(dim);
        shape += (shape.empty() ? "" : "x") + (imm ? std::to_string(imm->value) : printPrimExpr(dim));
      }
      if (shape.empty()) shape = "scalar";
      if (buffer->dtype != DataType::float32()) shape += ":" + buffer->dtype.str();
      text += (text.empty() ? "" : " ") + shape;
    }
    if (!text.empty()) shapes[entry.gvar->name] = text;
  }
  return shapes;
}

std::string formatProfile(const std::vector<vm::ProfileEntry>& entries, int runs, double wallMs, const std::map<std::string, std::string>& shapes) {
  double perRun = runs > 0 ? 1.0 / runs : 0, inCalls = 0;
  for (const auto& e : entries) inCalls += e.ms;
  auto share = [&](double ms) { return wallMs > 0 ? 100 * ms / wallMs : 0.0; };
  // The mean of the timed runs (the rows add up to it), which a few slow runs pull above the median
  // `--time` prints just before: said, so that the two are not read as one number.
  std::string out = fmt::format("profile over {} run{}: {:.4f} ms per run on average, {:.1f}% of it in {} kernels and builtins\n", runs, runs == 1 ? "" : "s",
                                wallMs * perRun, share(inCalls), entries.size());
  out += fmt::format("{:>10}  {:>6}  {:>9}  {}\n", "ms/run", "%", "calls/run", "name");
  for (const auto& e : entries) {
    auto shape = shapes.find(e.name);
    out += fmt::format("{:>10.4f}  {:>6.1f}  {:>9.4g}  {}{}\n", e.ms * perRun, share(e.ms), double(e.calls) * perRun, e.name, shape == shapes.end() ? "" : "   " + shape->second);
  }
  out += fmt::format("{:>10.4f}  {:>6.1f}  {:>9}  {}\n", (wallMs - inCalls) * perRun, share(wallMs - inCalls), "", "(the VM between calls)");
  return out;
}

}  // namespace rlx
