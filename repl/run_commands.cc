// The shell's execution commands: :run, :time and :profile (a function of the current state on the VM,
// lowering a copy with the run pipeline when needed) and :bytecode. Prepared modules are cached
// per state, so repeated runs of one state compile once.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "passes/registry.h"
#include "repl/session.h"
#include "runtime/format.h"
#include "runtime/inputs.h"
#include "runtime/kernel_code.h"
#include "runtime/profile_report.h"
#include "runtime/runner.h"

namespace rlx::repl {

struct Session::RunCache {
  const IRModule* mod = nullptr;
  std::string pipeline;
  bool interpret = false;
  PreparedModule prepared;
};

namespace {

// Splits "main rand(2, 3) x=[[1, 2], [3, 4]]" at spaces outside brackets.
std::vector<std::string> splitArgs(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if ((c == ' ' || c == '\t') && depth <= 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The pass a state's `how` names ("FuseOps @3" -> "FuseOps"); "" for loads and pastes.
std::string passOf(const std::string& how) {
  std::string name = how.substr(0, how.find(' '));
  return findPass(name) ? name : "";
}

// An error as one shell message: with its source excerpt when it has a location.
std::string describe(const Error& e, bool color) {
  if (e.span.known()) {
    std::string text = renderError(e, color);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }
  return e.message + (e.hint.empty() ? "" : " (" + e.hint + ")");
}

}  // namespace

std::set<std::string> Session::appliedPasses() const {
  std::set<std::string> out;
  for (size_t i = 0; i <= current_ && i < states_.size(); ++i)
    if (auto p = passOf(states_[i].how); !p.empty()) out.insert(p);
  return out;
}

const PreparedModule* Session::prepared() {
  const IRModule* mod = states_[current_].mod.get();
  if (!runCache_ || runCache_->mod != mod || runCache_->pipeline != runPipeline_ || runCache_->interpret != interpretKernels_) {
    vm::VMOptions options;
    options.interpretKernels = interpretKernels_;
    options.printSink = [this](const std::string& s) { print(s); };
    auto p = prepareModule(states_[current_].mod, runPipeline_, appliedPasses(), options);
    if (!p.ok()) {
      error(describe(p.error(), color));
      return nullptr;
    }
    runCache_ = std::make_shared<RunCache>();
    runCache_->mod = mod;
    runCache_->pipeline = runPipeline_;
    runCache_->interpret = interpretKernels_;
    runCache_->prepared = std::move(*p);
    if (!runCache_->prepared.passesRun.empty())
      print(fmt::format("(lowered a copy with {} pass{})\n", runCache_->prepared.passesRun.size(), runCache_->prepared.passesRun.size() == 1 ? "" : "es"));
  }
  return &runCache_->prepared;
}

// Inputs for `func` from `specs` (positional in parameter order, or NAME=INPUT), defaults for the rest.
std::optional<std::vector<vm::Value>> Session::runInputs(const Function& fn, const std::vector<std::string>& specs) {
  InputContext ctx;
  std::vector<std::optional<vm::Value>> inputs(fn.params.size());
  size_t positional = 0;
  for (auto& spec : specs) {
    size_t eq = spec.find('=');
    size_t k = positional;
    std::string text = spec;
    if (eq != std::string::npos && spec.find_first_of("([") > eq) {
      std::string name = spec.substr(0, eq);
      auto it = std::find_if(fn.params.begin(), fn.params.end(), [&](const VarRef& p) { return p->name == name; });
      if (it == fn.params.end()) return error("no parameter named '" + name + "'"), std::nullopt;
      k = size_t(it - fn.params.begin());
      text = spec.substr(eq + 1);
    } else {
      while (k < inputs.size() && inputs[k]) ++k;
      positional = k + 1;
    }
    if (k >= inputs.size()) return error(fmt::format("too many inputs: the function takes {}", fn.params.size())), std::nullopt;
    auto v = parseInput(text, fn.params[k], ctx);
    if (!v.ok()) return error(describe(v.error(), color)), std::nullopt;
    inputs[k] = *v;
  }
  std::vector<vm::Value> out;
  std::string notes;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k]) {
      std::string note;
      auto v = defaultInput(fn.params[k], ctx, 4, note);
      if (!v.ok()) return error(describe(v.error(), color)), std::nullopt;
      notes += (notes.empty() ? "" : ", ") + note;
      inputs[k] = *v;
    }
    out.push_back(*inputs[k]);
  }
  if (!notes.empty()) print("(inputs: " + notes + ")\n");
  return out;
}

void Session::runCommand(const std::string& cmd, const std::string& rest) {
  if (states_.empty()) return error("no module yet: :load FILE or paste one");
  auto args = splitArgs(rest);
  if (cmd == ":bytecode") {
    const PreparedModule* p = prepared();
    if (!p) return;
    std::string text = p->exec->asText();
    if (!args.empty()) {  // one function's section: from "@NAME:" to the next blank line
      size_t at = text.find("@" + args[0] + ":\n");
      if (at == std::string::npos) return error("no Relax function named '" + args[0] + "' in the bytecode");
      text = text.substr(at, text.find("\n\n", at) - at + 1);
    }
    return print(text);
  }
  if (cmd == ":llvm" || cmd == ":asm") {
    const PreparedModule* p = prepared();
    if (!p) return;
    auto text = kernelCode(*p->lowered, args.empty() ? "" : args[0], cmd == ":asm");
    if (!text.ok()) return error(describe(text.error(), color));
    return print(*text);
  }
  std::string func = args.empty() ? "main" : args[0];
  if (!args.empty()) args.erase(args.begin());
  auto fn = states_[current_].mod->lookup(func).as<Function>();
  if (!fn) return error("no Relax function named '" + func + "' in @" + std::to_string(current_));
  auto inputs = runInputs(*fn, args);
  if (!inputs) return;
  const PreparedModule* p = prepared();
  if (!p) return;
  if (cmd == ":run") {
    auto result = p->machine->invoke(func, *inputs);
    if (!result.ok()) return error(describe(result.error(), color));
    return print(formatValue(*result) + "\n");
  }
  // :time and :profile — repeat until 0.3 s have passed (at least 5 runs, at most 10000), after one
  // warm-up run; :profile on a VM of its own that times every kernel and builtin call.
  vm::VirtualMachine* machine = p->machine.get();
  std::unique_ptr<vm::VirtualMachine> profiling;
  if (cmd == ":profile") {
    vm::VMOptions options;
    options.interpretKernels = interpretKernels_;
    options.printSink = [this](const std::string& s) { print(s); };
    options.profile = true;
    auto loaded = vm::VirtualMachine::load(p->exec, options);
    if (!loaded.ok()) return error(describe(loaded.error(), color));
    profiling = std::move(*loaded);
    machine = profiling.get();
  }
  auto warm = machine->invoke(func, *inputs);
  if (!warm.ok()) return error(warm.error().message);
  machine->resetProfile();
  std::vector<double> ms;
  double total = 0;
  while ((total < 300 || ms.size() < 5) && ms.size() < 10000) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = machine->invoke(func, *inputs);
    double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok()) return error(r.error().message);
    ms.push_back(t);
    total += t;
  }
  if (profiling) return print(formatProfile(machine->profile(), int(ms.size()), total, kernelFacts(*p->lowered)));
  std::sort(ms.begin(), ms.end());
  print(fmt::format("{}: median {:.4f} ms, min {:.4f} ms over {} runs\n", func, ms[ms.size() / 2], ms[0], ms.size()));
}

}  // namespace rlx::repl
