// The interactive shell's engine: numbered module states (@0, @1, ...), pass application with diffs,
// undo/redo, and the command language shared by the prompt, pipes, scripts and `-e`.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/module.h"
#include "ir/expr.h"
#include "runtime/value.h"

namespace rlx {
struct PreparedModule;
}

namespace rlx::repl {

class Session {
 public:
  // `out` receives everything the shell prints (stdout in the CLI, a string in tests).
  explicit Session(std::function<void(const std::string&)> out) : out_(std::move(out)) {}

  // Feeds one input line; returns false when the session should end (:quit).
  bool feed(const std::string& line);
  // True while a pasted module/function is being collected (the prompt shows "...").
  bool continuing() const { return !pending_.empty(); }
  // Ends input: a pending paste is processed.
  void finish();

  bool color = false;  // ANSI colours in diffs (only on a terminal)
  std::string prompt() const { return continuing() ? "...> " : "rlx> "; }
  // Candidates for tab completion of the word being typed.
  std::vector<std::string> complete(const std::string& lineSoFar) const;

 private:
  struct State {
    IRModuleRef mod;
    std::string how;  // what produced it: "load FILE", "DeadCodeElimination", "paste"
  };
  std::function<void(const std::string&)> out_;
  std::vector<State> states_;  // states_[i] is @i
  size_t current_ = 0;          // the state commands act on
  std::vector<size_t> redo_;
  std::string loadedFile_;
  std::vector<std::string> pending_;
  int optLevel_ = 2;
  bool verify_ = false;
  std::string focus_;
  bool blankInPaste_ = false;  // an empty line inside a paste, held until the next line decides
  std::vector<std::string> scope_;  // :set scope (empty: all functions)
  void setScope(const std::string& list);
  void reload();
  std::vector<std::string> stepQueue_;  // passes still to apply with :step
  bool lastWasStep_ = false;            // an empty line repeats :step
  bool timePasses_ = false;
  int sourceDepth_ = 0;

  // Execution (repl/run_commands.cc): :run, :time FUNC, :bytecode.
  struct RunCache;
  std::shared_ptr<RunCache> runCache_;
  std::string runPipeline_ = "O2";  // :set run-pipeline
  bool interpretKernels_ = false;   // :set kernels interpret|compiled
  void runCommand(const std::string& cmd, const std::string& rest);
  const PreparedModule* prepared();
  std::set<std::string> appliedPasses() const;
  std::optional<std::vector<vm::Value>> runInputs(const Function& fn, const std::vector<std::string>& specs);

  void print(const std::string& s) { out_(s); }
  void error(const std::string& s) { out_("error: " + s + "\n"); }
  bool command(const std::string& line);
  void applyPipeline(const std::string& pipeline);
  void push(IRModuleRef mod, const std::string& how);
  const State* stateArg(const std::string& word);
  std::string showText(const IRModuleRef& mod, const std::string& func) const;
  void load(const std::string& path);
  void paste(const std::string& text);
  void help(const std::string& topic);
};

}  // namespace rlx::repl
