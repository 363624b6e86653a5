// `rlx eq A B`: structural equality of two modules (alpha-equivalent on bound variables).
// On a mismatch it prints the access path and both sides, and exits 1.
#include <cstdio>

#include "frontend/load_module.h"
#include "ir/structural_equal.h"
#include "parser/parser.h"
#include "tools/commands.h"

namespace rlx::tools {

int runEq(const std::vector<std::string>& args, bool color) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::puts("usage: rlx eq A B\n\nExits 0 when A and B are structurally equal (variable names may differ);\n"
              "otherwise prints the path of the first mismatch with both sides and exits 1.");
    return 0;
  }
  if (args.size() != 2) {
    std::fprintf(stderr, "rlx eq: expected two files (see `rlx eq --help`)\n");
    return 2;
  }
  DiagnosticEngine diag;
  auto a = loadModuleFile(args[0], diag);
  auto b = loadModuleFile(args[1], diag);
  if (!a || !b) {
    std::fputs(diag.render(color).c_str(), stderr);
    return 2;
  }
  auto r = structuralEqual(Ref<Object>(a), Ref<Object>(b));
  if (r.equal) {
    std::puts("equal");
    return 0;
  }
  std::printf("not equal at %s\n  %s: %s\n  %s: %s\n", r.path.c_str(), args[0].c_str(), r.lhs.c_str(), args[1].c_str(), r.rhs.c_str());
  return 1;
}

}  // namespace rlx::tools
