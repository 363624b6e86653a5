// The `rlx` driver: one thin main that dispatches subcommands to the libraries.
// Every failure is a diagnostic and a non-zero exit; nothing here knows IR details.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "runtime/jit.h"
#include "tools/commands.h"

namespace {

const char* kUsage = R"(rlx — a toolchain for TVM Relax IR (TVMScript text, TVM v0.23 dialect)

usage: rlx <command> [options] [FILE]

commands:
  print FILE [-o OUT]   parse, check and print canonically (metadata constants go to OUT's .safetensors)
  check FILE            parse and verify; diagnostics only (exit 0 when well-formed)
  eq A B                structural equality; prints the first mismatch path (exit 0 when equal)
  opt FILE -p PIPELINE  run passes; --print-changed=diff shows what each pass changed
  test PATH...          run golden files (input, expected output); --update re-blesses
  run FILE [NAME=INPUT]  run a function on the VM (lowering a copy first when needed)
  repl [FILE]           interactive shell: apply passes one at a time, see diffs, undo, save
  import MODEL.onnx     import an ONNX model or Relay text (FILE.relay) as a Relax module (print, or -o OUT.relax)

FILE may be '-' for standard input, or an .onnx model (imported first with default options). `rlx COMMAND --help` describes one command.
`run` and `repl` keep compiled kernels under $RLX_CACHE_DIR (default ~/.cache/rlx) for later
processes; RLX_KERNEL_CACHE=0 turns that off.
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  bool color = isatty(2) && !std::getenv("NO_COLOR");
  if (cmd == "print") return rlx::tools::runPrint(args, color);
  if (cmd == "check") return rlx::tools::runCheck(args, color);
  if (cmd == "eq") return rlx::tools::runEq(args, color);
  if (cmd == "opt") return rlx::tools::runOpt(args, color);
  if (cmd == "test") return rlx::tools::runTest(args, color);
  if (cmd == "import") return rlx::tools::runImport(args, color);
  // The commands that run code keep compiled kernels on disk for later processes.
  if (cmd == "repl" || cmd == "run") {
    const char* cacheSetting = std::getenv("RLX_KERNEL_CACHE");
    if (!cacheSetting || std::string(cacheSetting) != "0") rlx::enableKernelDiskCache(rlx::defaultKernelCacheDir());
  }
  if (cmd == "repl") return rlx::tools::runRepl(args, color);
  if (cmd == "run") return rlx::tools::runRun(args, color);
  std::fprintf(stderr, "rlx: unknown command '%s'\n%s", cmd.c_str(), kUsage);
  return 2;
}
