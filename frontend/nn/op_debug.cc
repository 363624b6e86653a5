// Debug ops (see op.h): debugFunc and print emit vm.builtin.invoke_debug_func calls that thread
// the IO effect of a debug export.
#include "frontend/nn/effect.h"
#include "frontend/nn/export_context.h"
#include "frontend/nn/op.h"

namespace rlx::nn::op {

void debugFunc(const std::string& name, const std::vector<DebugArg>& args, const std::string& lineInfo, std::source_location where) {
  auto& ctx = ExportContext::current();
  if (!ctx.ioEffect()) fail("debugging ops (op::debugFunc, op::print) need a debug export", "export with ExportOptions{.debug = true}");
  std::vector<Expr> values;
  for (auto& a : args) {
    if (auto* t = std::get_if<Tensor>(&a)) values.push_back(t->expr());
    else if (auto* e = std::get_if<PrimExpr>(&a)) values.push_back(make<PrimValue>(*e));
    else if (auto* i = std::get_if<int64_t>(&a)) values.push_back(make<PrimValue>(intImm(*i)));
    else if (auto* f = std::get_if<double>(&a)) values.push_back(make<PrimValue>(floatImm(*f, DataType::float32())));
    else values.push_back(make<StringImm>(std::get<std::string>(a)));
  }
  std::string line = lineInfo.empty() ? std::string(where.file_name()) + ":" + std::to_string(where.line()) : lineInfo;
  ctx.ioEffect()->invoke(name, line, std::move(values));
}

void print(const Tensor& x, std::source_location where) { debugFunc("vm.builtin.debug_print", {x}, "", where); }

}  // namespace rlx::nn::op
