// libFuzzer target: arbitrary bytes as pass pipeline text (what `rlx opt -p` and the shell read).
// Parsing either builds the passes (every option checked by its pass) or returns an error that
// renders; a pipeline that parses runs on a small module, and its failures are errors, not crashes.
#include <cstdint>
#include <string>

#include "parser/parser.h"
#include "passes/registry.h"

namespace {

const rlx::IRModuleRef& sampleModule() {
  static rlx::IRModuleRef mod = [] {
    rlx::DiagnosticEngine diag;
    const char* text =
        "@I.ir_module\nclass Module:\n    @R.function\n"
        "    def main(x: R.Tensor((1, 4, 8, 8), \"float32\"), w: R.Tensor((4, 4, 3, 3), \"float32\"), n: R.Shape([\"k\"])):\n"
        "        with R.dataflow():\n"
        "            c = R.nn.conv2d(x, w, padding=(1, 1))\n"
        "            r = R.nn.relu(c)\n"
        "            t = R.layout_transform(r, index_map=lambda a, b, h, v: (a, b // 2, h, v, b % 2))\n"
        "            s = R.sum(t)\n"
        "            R.output(s)\n"
        "        return s\n";
    return rlx::parseModule(text, "fuzz-pipeline-sample.relax", diag);
  }();
  return mod;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto passes = rlx::parsePipeline(text);
  if (!passes.ok()) {
    (void)rlx::renderError(passes.error(), false);
    return 0;
  }
  auto& mod = sampleModule();
  if (!mod) return 0;
  auto out = rlx::runSequential(passes.value(), mod, rlx::PassContext{});
  if (!out.ok()) (void)rlx::renderError(out.error(), false);
  return 0;
}
