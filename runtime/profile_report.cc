// The table `rlx run --profile` prints: one line per kernel or builtin, most time first, then
// what the VM itself (dispatch, argument checks) took between the calls.
#include "runtime/profile_report.h"

#include <fmt/format.h>

#include "ir/tir.h"
#include "printer/printer.h"

namespace rlx {

namespace {

// Whether `store` accumulates a product: c[i] = c[i] + a * b (either order of the sum).
bool isMultiplyAdd(const BufferStore& store) {
  auto sum = store.value.as<PrimBinary>();
  if (!sum || sum->kind() != NodeKind::Add) return false;
  auto accumulates = [&](const PrimExpr& self, const PrimExpr& product) {
    auto load = self.as<BufferLoad>();
    auto mul = product.as<PrimBinary>();
    return load && load->buffer == store.buffer && mul && mul->kind() == NodeKind::Mul;
  };
  return accumulates(sum->a, sum->b) || accumulates(sum->b, sum->a);
}

// The multiply-adds `s` performs when run `times` times; `known` turns false at a loop whose extent
// is not a constant (or a count past int64). A branch counts as its larger arm; a block's init (the
// zeroing) counts nothing.
int64_t multiplyAdds(const Stmt& s, int64_t times, bool& known) {
  if (!s || !known) return 0;
  if (auto loop = s.as<For>()) {
    auto* extent = asIntImm(loop->extent);
    int64_t inner = 0;
    if (!extent || __builtin_mul_overflow(times, std::max<int64_t>(extent->value, 0), &inner)) return known = false, 0;
    return multiplyAdds(loop->body, inner, known);
  }
  if (auto seq = s.as<SeqStmt>()) {
    int64_t total = 0;
    for (const auto& part : seq->seq)
      if (__builtin_add_overflow(total, multiplyAdds(part, times, known), &total)) return known = false, 0;
    return total;
  }
  if (auto store = s.as<BufferStore>()) return isMultiplyAdd(*store) ? times : 0;
  if (auto branch = s.as<IfThenElse>()) return std::max(multiplyAdds(branch->thenCase, times, known), multiplyAdds(branch->elseCase, times, known));
  if (auto let = s.as<LetStmt>()) return multiplyAdds(let->body, times, known);
  if (auto check = s.as<AssertStmt>()) return multiplyAdds(check->body, times, known);
  if (auto realize = s.as<BlockRealize>()) return multiplyAdds(realize->block->body, times, known);
  if (auto block = s.as<TirBlock>()) return multiplyAdds(block->body, times, known);
  return 0;
}

}  // namespace

std::map<std::string, KernelFacts> kernelFacts(const IRModule& lowered) {
  std::map<std::string, KernelFacts> kernels;
  for (const auto& entry : lowered.functions) {
    auto f = entry.func.as<PrimFunc>();
    if (!f) continue;
    KernelFacts facts;
    bool known = true;
    int64_t count = multiplyAdds(f->body, 1, known);
    facts.multiplyAdds = known ? count : 0;
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
    facts.shapes = text;
    if (!text.empty() || facts.multiplyAdds > 0) kernels[entry.gvar->name] = facts;
  }
  return kernels;
}

std::string formatProfile(const std::vector<vm::ProfileEntry>& entries, int runs, double wallMs, const std::map<std::string, KernelFacts>& kernels) {
  double perRun = runs > 0 ? 1.0 / runs : 0, inCalls = 0;
  for (const auto& e : entries) inCalls += e.ms;
  auto share = [&](double ms) { return wallMs > 0 ? 100 * ms / wallMs : 0.0; };
  // The mean of the timed runs (the rows add up to it), which a few slow runs pull above the median
  // `--time` prints just before: said, so that the two are not read as one number.
  std::string out = fmt::format("profile over {} run{}: {:.4f} ms per run on average, {:.1f}% of it in {} kernels and builtins\n", runs, runs == 1 ? "" : "s",
                                wallMs * perRun, share(inCalls), entries.size());
  out += fmt::format("{:>10}  {:>6}  {:>9}  {:>7}  {}\n", "ms/run", "%", "calls/run", "GFMA/s", "name");
  for (const auto& e : entries) {
    auto facts = kernels.find(e.name);
    bool known = facts != kernels.end();
    std::string rate = known && facts->second.multiplyAdds > 0 && e.ms > 0 ? fmt::format("{:.1f}", double(facts->second.multiplyAdds) * double(e.calls) / (e.ms * 1e6)) : "";
    std::string shapes = known && !facts->second.shapes.empty() ? "   " + facts->second.shapes : "";
    out += fmt::format("{:>10.4f}  {:>6.1f}  {:>9.4g}  {:>7}  {}{}\n", e.ms * perRun, share(e.ms), double(e.calls) * perRun, rate, e.name, shapes);
  }
  out += fmt::format("{:>10.4f}  {:>6.1f}  {:>9}  {:>7}  {}\n", (wallMs - inCalls) * perRun, share(wallMs - inCalls), "", "", "(the VM between calls)");
  return out;
}

}  // namespace rlx
