// libFuzzer target: arbitrary bytes as FuseOpsByPattern pattern text. Parsing either succeeds or
// returns a located error (the rendered message must not crash); a parsed pattern must match
// against a small fixed block without crashing.
#include <cstdint>
#include <string>

#include "parser/parser.h"
#include "passes/pattern.h"

namespace {

const rlx::IRModuleRef& sampleModule() {
  static rlx::IRModuleRef mod = [] {
    rlx::DiagnosticEngine diag;
    const char* text =
        "@I.ir_module\nclass Module:\n    @R.function\n"
        "    def main(x: R.Tensor((1, 4, 8, 8), \"float32\"), w: R.Tensor((4, 4, 3, 3), \"float32\")):\n"
        "        with R.dataflow():\n"
        "            c = R.nn.conv2d(x, w, padding=(1, 1))\n"
        "            r = R.nn.relu(c)\n"
        "            s = R.split(r, 2, axis=1)\n"
        "            gv = R.add(s[0], R.const(1.0, \"float32\"))\n"
        "            R.output(gv)\n"
        "        return gv\n";
    return rlx::parseModule(text, "fuzz-pattern-sample.relax", diag);
  }();
  return mod;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto pattern = rlx::parsePattern(text, "fuzz-pattern");
  if (!pattern.ok()) {
    (void)rlx::renderError(pattern.error(), false);
    return 0;
  }
  auto& mod = sampleModule();
  if (!mod) return 0;
  auto f = mod->lookup("main").as<rlx::Function>();
  auto seq = f ? f->body.as<rlx::SeqExpr>() : nullptr;
  if (!seq) return 0;
  for (auto& block : seq->blocks) {
    std::unordered_map<const rlx::Var*, rlx::Expr> bindings;
    for (auto& b : block->bindings) {
      (void)rlx::matchPattern(*pattern.value(), *b, bindings);
      bindings[b->var.get()] = b->value;
    }
  }
  return 0;
}
