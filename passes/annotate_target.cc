// AnnotateTarget: Relay's pass (mark the calls an external codegen supports) with its Relax
// meaning. TVM Relax has no AnnotateTarget: offloading starts with FuseOpsByPattern(patterns,
// annotate_codegen=True), the per-op predicates of Relay's `target.<name>` attrs replaced by a
// pattern table. Here `targets` picks the codegens: the entries of `patterns` whose name starts
// with "<target>." run through FuseOpsByPattern with annotate_codegen=True; the others are ignored,
// so one table can serve several backends. Why a pass of its own: Relay's option is the list of
// targets, which FuseOpsByPattern does not take.
// Before: gv = R.nn.relu(x)  with targets=["dnnl"], patterns=[("dnnl.relu", "nn.relu(_)")]
// After:  gv = cls.fused_relax_nn_relu_dnnl(x), a public {Codegen: "dnnl"} function.
#include <algorithm>

#include "passes/composite.h"

namespace rlx {

Result<Pass> createAnnotateTargetPass(PassOptions& options) {
  std::vector<std::string> targets = options.strings("targets").value_or(std::vector<std::string>{});
  RLX_TRY(table, readPatternTable(options, "patterns"));
  for (auto& t : targets)
    if (t.empty() || t.find('.') != std::string::npos) return Error("AnnotateTarget: a target is a codegen name without dots (\"dnnl\"), got \"" + t + "\"");
  std::vector<NamedPattern> chosen;
  for (auto& p : table)
    if (std::find(targets.begin(), targets.end(), codegenOfComposite(p.name)) != targets.end()) chosen.push_back(p);
  return Pass({"AnnotateTarget", 0, {}}, [chosen](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    return fuseOpsByPattern(mod, chosen, /*bindConstants=*/true, /*annotateCodegen=*/true);
  });
}

}  // namespace rlx
