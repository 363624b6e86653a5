// `rlx print` and `rlx check`: parse (+ verify) and print canonically, or only report diagnostics.
// Output files are written atomically, with large constants in a safetensors sidecar.
#include <cstdio>

#include "frontend/load_module.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "printer/module_file.h"
#include "printer/printer.h"
#include "tools/commands.h"

namespace rlx::tools {

// Runs the verifier; prints its errors and returns false when the module is not well formed.
static bool verifyOrReport(const IRModuleRef& mod, bool color) {
  DiagnosticEngine diag;
  for (auto& e : verifyModule(mod)) diag.error(e);
  if (!diag.hasErrors()) return true;
  std::fputs(diag.render(color).c_str(), stderr);
  return false;
}

static int usageError(const char* cmd, const std::string& msg) {
  std::fprintf(stderr, "rlx %s: %s (see `rlx %s --help`)\n", cmd, msg.c_str(), cmd);
  return 2;
}

int runPrint(const std::vector<std::string>& args, bool color) {
  std::string input, output;
  bool tvmConstants = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::puts("usage: rlx print FILE [-o OUT] [--tvm-constants]\n\nParses FILE ('-' = stdin), checks it and prints it as TVM v0.23 prints it.\n"
                "With -o, writes OUT atomically; tensor constants over 16 elements go to OUT with the\n"
                ".relax suffix replaced by .safetensors, referenced as metadata[\"relax.expr.Constant\"][i].\n"
                "Without -o, tensor constants print inline (R.const([...], dtype)) so the text keeps them.\n"
                "--tvm-constants prints constants exactly as TVM's script() does: anything but a 0-d\n"
                "int/float/bool scalar as metadata[\"relax.expr.Constant\"][i] with its values omitted.");
      return 0;
    }
    if (args[i] == "--tvm-constants") {
      tvmConstants = true;
    } else if (args[i] == "-o") {
      if (i + 1 >= args.size()) return usageError("print", "-o needs a file name");
      output = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-' && args[i] != "-") {
      return usageError("print", "unknown option '" + args[i] + "'");
    } else if (input.empty()) {
      input = args[i];
    } else {
      return usageError("print", "more than one input file");
    }
  }
  if (input.empty()) return usageError("print", "missing input file");
  DiagnosticEngine diag;
  bool lone = false;
  ParseOptions parseOpts;
  parseOpts.loneFunction = &lone;
  auto mod = loadModuleFile(input, diag, parseOpts);
  if (!mod) {
    std::fputs(diag.render(color).c_str(), stderr);
    return 1;
  }
  if (!verifyOrReport(mod, color)) return 1;
  std::vector<NDArrayRef> metadata;
  PrintOptions opts;
  if (!output.empty()) opts.metadataOut = &metadata;
  if (tvmConstants && !output.empty()) return usageError("print", "--tvm-constants omits constant values; it cannot be written with -o");
  opts.tvmConstants = tvmConstants;
  // A lone function prints as a lone function (TVM's func.script()), a module as a module.
  // Its name is its global_symbol; a private one (none) prints as "main", as TVM names it.
  std::string text = lone && mod->functions.size() == 1 ? printFunction(mod->functions[0].func, "", opts) : printModule(mod, opts);
  if (output.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  auto st = writeModuleText(output, text, metadata);
  if (!st.ok()) {
    std::fprintf(stderr, "rlx print: %s\n", st.error().message.c_str());
    return 1;
  }
  return 0;
}

int runCheck(const std::vector<std::string>& args, bool color) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::puts("usage: rlx check FILE\n\nParses and verifies FILE; prints diagnostics and exits 1 if there are any.");
    return 0;
  }
  if (args.size() != 1) return usageError("check", "expected exactly one input file");
  DiagnosticEngine diag;
  auto mod = loadModuleFile(args[0], diag);
  if (!mod) {
    std::fputs(diag.render(color).c_str(), stderr);
    return 1;
  }
  if (!verifyOrReport(mod, color)) return 1;
  return 0;
}

}  // namespace rlx::tools
