// `rlx opt`: parse, run a pass pipeline with instruments (print-changed diffs, print before/after,
// verify-each), print or write the result. The pipeline syntax is the shell's.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "frontend/load_module.h"
#include "ir/file_util.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pass_help.h"
#include "passes/registry.h"
#include "printer/diff.h"
#include "printer/module_file.h"
#include "printer/printer.h"
#include "tools/commands.h"

namespace rlx::tools {

namespace {

const char* kOptHelp = R"(usage: rlx opt FILE -p PIPELINE [options]

Runs passes over FILE ('-' = stdin) and prints the result (or writes it with -o).
PIPELINE is a comma-separated list: `DeadCodeElimination,RemoveUnusedFunctions(entry_functions=["main"])`.

options:
  -p, --passes PIPELINE      the passes to run, in order (presets: O0..O3, build, build_fused, build_cpu)
  -o OUT                     write the result atomically instead of printing it (tensor constants
                             over 16 elements in OUT's .safetensors sidecar, as `rlx print -o`)
  --print-changed[=diff|quiet]  after each pass: a banner and a unified diff (default diff),
                             or only the banner of passes that changed something (quiet)
  --print-before=all|A,B     print the module before the named passes (or all)
  --print-after=all|A,B      print the module after the named passes (or all)
  --verify-each              run the verifier after every pass; stop at the pass that broke the module
  --opt-level=N              skip passes whose opt_level is above N (default 2)
  --disable=A,B              never run these passes
  --time-passes              print a table of the time each pass took (to stderr)
  --dump-dir=DIR             write every state: DIR/000_input.relax, NNN_Pass.relax, NNN_Pass.diff, index.txt
  --scope=F[,G...]           function-level passes change only these functions
  --list-passes              list every pass with its opt_level, options and summary
  --explain PASS             a pass's options, other names and worked example (its diff)
  --expect FILE              compare the result with FILE (structural equality, in memory):
                             prints "equal" and exits 0, else the first mismatch and exits 1
Banners are comment lines, so the output stays parseable. A model file (.onnx) is shown as `rlx
import` shows it, in the printed modules, diffs and dumps: its constants over 16 elements as
metadata[...] references with the values left out (its weights as text would be hundreds of MB).
)";

// The pass infrastructure of tvm.transform / tvm.relay.transform and where it is in rlx.
const char* kInfrastructure = R"(
pass infrastructure (TVM -> rlx):
  PassContext(opt_level, required_pass, disabled_pass, instruments)
                               rlx::PassContext (passes/pass.h); here --opt-level=N, --disable=A,B,
                               and the printing/verifying/timing/dumping options as instruments
  Sequential(passes)           rlx::runSequential; here the pipeline text A,B(k=v),C and the presets
  module_pass(fn, opt_level, name)    rlx::Pass(PassInfo{name, opt_level}, fn)
  function_pass(fn, opt_level, name)  rlx::makeFunctionPass / makeMutatorPass<ExprMutator subclass>
  PrintIR                      the PrintIR pass above (tvm.transform.PrintIR)
)";

bool matches(const std::string& list, const std::string& name) {
  if (list == "all") return true;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item == name) return true;
  return false;
}

// Prints what the options ask for around every pass; verifies when asked.
class CliInstrument : public PassInstrument {
 public:
  std::string printChanged;  // "", "diff", "quiet"
  std::string printBefore, printAfter;
  bool verifyEach = false;
  bool color = false;
  bool timePasses = false;
  std::string dumpDir;
  int index = 0;
  std::vector<std::pair<std::string, double>> times;
  std::chrono::steady_clock::time_point started;
  std::string index_;  // the dump directory's index.txt
  bool omitConstants = false;  // a model's weights: shown as metadata references, values left out

  std::string show(const IRModuleRef& mod) const { return omitConstants ? printModuleOmittingMetadata(mod) : printModule(mod); }

  void beforePass(const PassInfo& info, const IRModuleRef& mod) override {
    ++index;
    started = std::chrono::steady_clock::now();
    if (!printBefore.empty() && matches(printBefore, info.name))
      std::printf("# *** IR before %s (pass %d) ***\n%s\n", info.name.c_str(), index, show(mod).c_str());
  }
  Status afterPass(const PassInfo& info, const IRModuleRef& before, const IRModuleRef& after) override {
    times.emplace_back(info.name, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (!dumpDir.empty()) {
      char prefix[16];
      std::snprintf(prefix, sizeof prefix, "%03d_", index);
      std::string base = dumpDir + "/" + prefix + info.name;
      std::string text = show(after);
      std::string diff = after.same(before) ? "" : unifiedDiff(show(before), text, "before " + info.name, "after " + info.name);
      RLX_TRY_STATUS(writeFileAtomically(base + ".relax", text));
      RLX_TRY_STATUS(writeFileAtomically(base + ".diff", diff));
      index_ += std::string(prefix) + info.name + (diff.empty() ? "  (no change)\n" : "  (changed)\n");
      RLX_TRY_STATUS(writeFileAtomically(dumpDir + "/index.txt", index_));
    }
    if (!printAfter.empty() && matches(printAfter, info.name))
      std::printf("# *** IR after %s (pass %d) ***\n%s\n", info.name.c_str(), index, show(after).c_str());
    if (!printChanged.empty()) {
      std::string diff = after.same(before) ? "" : unifiedDiff(show(before), show(after), "before " + info.name, "after " + info.name, 3, color);
      if (diff.empty()) {
        if (printChanged == "diff") std::printf("# *** %s (pass %d): no change ***\n", info.name.c_str(), index);
      } else {
        std::printf("# *** %s (pass %d): changed ***\n", info.name.c_str(), index);
        if (printChanged == "diff") {
          // Diff lines become comments so the whole output stays a parseable module.
          std::stringstream ss(diff);
          std::string line;
          while (std::getline(ss, line)) std::printf("# %s\n", line.c_str());
        }
      }
    }
    if (verifyEach) {
      auto problems = verifyModule(after);
      if (!problems.empty()) {
        Error e = problems.front();
        e.message = "after pass " + info.name + ": " + e.message + " (the module before this pass is kept)";
        return e;
      }
    }
    return okStatus();
  }
};

int usage(const std::string& msg) {
  std::fprintf(stderr, "rlx opt: %s (see `rlx opt --help`)\n", msg.c_str());
  return 2;
}

}  // namespace

int runOpt(const std::vector<std::string>& args, bool color) {
  std::string input, output, pipeline, expect;
  bool havePipeline = false;
  auto inst = std::make_shared<CliInstrument>();
  inst->color = color && isatty(1) && !std::getenv("NO_COLOR");
  PassContext ctx;
  auto value = [&](const std::string& arg, const std::string& flag) -> std::optional<std::string> {
    if (arg.compare(0, flag.size() + 1, flag + "=") == 0) return arg.substr(flag.size() + 1);
    return std::nullopt;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kOptHelp, stdout);
      return 0;
    }
    if (a == "--list-passes") {
      for (auto& p : passRegistry()) {
        std::printf("%-28s O%d  %s\n", p.name, p.optLevel, p.summary);
        if (*p.options) std::printf("%-32s options: %s\n", "", p.options);
      }
      std::fputs(kInfrastructure, stdout);
      return 0;
    }
    if (a == "--explain") {
      if (i + 1 >= args.size()) return usage("--explain needs a pass name");
      auto text = explainPass(args[i + 1], inst->color);
      if (!text.ok()) {
        std::fputs(renderError(text.error(), color).c_str(), stderr);
        return 1;
      }
      std::fputs(text.value().c_str(), stdout);
      return 0;
    }
    if (a == "-p" || a == "--passes") {
      if (i + 1 >= args.size()) return usage(a + " needs a pipeline");
      pipeline = args[++i];
      havePipeline = true;
    } else if (auto v = value(a, "--passes")) {
      pipeline = *v;
      havePipeline = true;
    } else if (a == "-o") {
      if (i + 1 >= args.size()) return usage("-o needs a file name");
      output = args[++i];
    } else if (a == "--expect") {
      if (i + 1 >= args.size()) return usage("--expect needs a file name");
      expect = args[++i];
    } else if (a == "--print-changed") {
      inst->printChanged = "diff";
    } else if (auto v = value(a, "--print-changed")) {
      if (*v != "diff" && *v != "quiet") return usage("--print-changed takes diff or quiet");
      inst->printChanged = *v;
    } else if (auto v = value(a, "--print-before")) {
      inst->printBefore = *v;
    } else if (auto v = value(a, "--print-after")) {
      inst->printAfter = *v;
    } else if (a == "--verify-each") {
      inst->verifyEach = true;
    } else if (a == "--time-passes") {
      inst->timePasses = true;
    } else if (auto v = value(a, "--dump-dir")) {
      inst->dumpDir = *v;
    } else if (auto v = value(a, "--opt-level")) {
      if (v->empty() || v->find_first_not_of("0123456789") != std::string::npos) return usage("--opt-level takes a number");
      ctx.optLevel = std::stoi(*v);
    } else if (auto v = value(a, "--scope")) {
      std::stringstream ss(*v);
      std::string item;
      while (std::getline(ss, item, ','))
        if (!item.empty()) ctx.scope.push_back(item);
    } else if (auto v = value(a, "--disable")) {
      std::stringstream ss(*v);
      std::string item;
      while (std::getline(ss, item, ',')) {
        if (!findPass(item)) return usage("--disable: unknown pass '" + item + "'");
        ctx.disabledPass.push_back(item);
      }
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usage("unknown option '" + a + "'");
    } else if (input.empty()) {
      input = a;
    } else {
      return usage("more than one input file");
    }
  }
  if (input.empty()) return usage("missing input file");
  if (!havePipeline) return usage("missing -p PIPELINE");
  auto passes = parsePipeline(pipeline);
  if (!passes.ok()) {
    std::fprintf(stderr, "rlx opt: %s\n%s", passes.error().message.c_str(), passes.error().hint.empty() ? "" : ("  hint: " + passes.error().hint + "\n").c_str());
    return 2;
  }
  DiagnosticEngine diag;
  auto mod = loadModuleFile(input, diag);
  if (!mod) {
    std::fputs(diag.render(color).c_str(), stderr);
    return 1;
  }
  inst->omitConstants = isModelPath(input);
  for (auto& f : ctx.scope)
    if (!mod->find(f)) {
      std::vector<std::string> names;
      for (auto& e : mod->functions) names.push_back(e.gvar->name);
      std::string close = closestName(f, names);
      std::fprintf(stderr, "rlx opt: --scope names '%s', which is not a function of %s%s\n", f.c_str(), input.c_str(), close.empty() ? "" : (" (did you mean '" + close + "'?)").c_str());
      return 2;
    }
  ctx.instruments.push_back(inst);
  if (!inst->dumpDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(inst->dumpDir, ec);
    auto st = writeFileAtomically(inst->dumpDir + "/000_input.relax", inst->show(mod));
    if (ec || !st.ok()) {
      std::fprintf(stderr, "rlx opt: cannot write to '%s'\n", inst->dumpDir.c_str());
      return 1;
    }
    inst->index_ = "000_input\n";
  }
  for (auto& p : passes.value())
    if (p.info().optLevel > ctx.optLevel && !ctx.isRequired(p.info().name) && !ctx.isDisabled(p.info().name))
      std::fprintf(stderr, "rlx opt: %s skipped: its opt_level %d is above %d (use --opt-level=%d)\n", p.info().name.c_str(), p.info().optLevel, ctx.optLevel, p.info().optLevel);
  auto result = runSequential(passes.value(), mod, ctx);
  if (inst->timePasses) {
    double total = 0;
    for (auto& [n, t] : inst->times) total += t;
    std::fprintf(stderr, "%-32s %10s %7s\n", "pass", "time (ms)", "share");
    for (auto& [n, t] : inst->times) std::fprintf(stderr, "%-32s %10.3f %6.1f%%\n", n.c_str(), t * 1e3, total > 0 ? 100 * t / total : 0.0);
    std::fprintf(stderr, "%-32s %10.3f\n", "total", total * 1e3);
  }
  if (!result.ok()) {
    std::fputs(renderError(result.error(), color).c_str(), stderr);
    return 1;
  }
  if (!expect.empty()) {
    // The result against a module written down (a pass test's Expected), compared in memory: the
    // printed text would lose what printing drops (a void var prints as R.tuple()).
    DiagnosticEngine diag;
    auto want = loadModuleFile(expect, diag);
    if (!want) {
      std::fputs(diag.render(color).c_str(), stderr);
      return 2;
    }
    auto r = structuralEqual(Ref<Object>(result.value()), Ref<Object>(want));
    if (r.equal) {
      std::puts("equal");
      return 0;
    }
    std::printf("not equal at %s\n  result: %s\n  %s: %s\n", r.path.c_str(), r.lhs.c_str(), expect.c_str(), r.rhs.c_str());
    return 1;
  }
  if (output.empty()) {
    if (inst->omitConstants) printModelToStdout(result.value());
    else std::fputs(printModule(result.value()).c_str(), stdout);
    return 0;
  }
  auto st = writeModuleFile(result.value(), output);
  if (!st.ok()) {
    std::fprintf(stderr, "rlx opt: %s\n", st.error().message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace rlx::tools
