// Subcommands of the rlx driver, one function each; each returns the process exit code.
// They share argument parsing and diagnostic printing from tools/cli_util.cc.
#pragma once
#include <string>
#include <vector>

#include "ir/module.h"

namespace rlx::tools {

int runPrint(const std::vector<std::string>& args, bool color);
int runCheck(const std::vector<std::string>& args, bool color);
int runEq(const std::vector<std::string>& args, bool color);
int runOpt(const std::vector<std::string>& args, bool color);
int runTest(const std::vector<std::string>& args, bool color);
int runRepl(const std::vector<std::string>& args, bool color);
int runRun(const std::vector<std::string>& args, bool color);
int runImport(const std::vector<std::string>& args, bool color);

// Prints a model to stdout as TVM's script() shows one (printModuleOmittingMetadata: its weights as
// metadata references, values left out), with a note on stderr saying how -o keeps them.
void printModelToStdout(const IRModuleRef& mod);

}  // namespace rlx::tools
