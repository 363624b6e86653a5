// Session: the shell's command interpreter. Every state is kept (the IR is immutable, so this is
// cheap); undo moves to a state's parent, and a new pass application after undo starts a branch.
#include "repl/session.h"
#include "frontend/load_module.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/file_util.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pass_help.h"
#include "passes/registry.h"
#include "printer/diff.h"
#include "printer/module_file.h"
#include "printer/printer.h"

namespace rlx::repl {

namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool startsPaste(const std::string& t) {
  for (const char* p : {"@I.ir_module", "@R.function", "@T.prim_func", "@tvm.script", "class ", "def ", "# from tvm.script"})
    if (t.compare(0, std::string(p).size(), p) == 0) return true;
  return false;
}

struct CommandDoc {
  const char* name;
  const char* usage;
  const char* summary;
};
const CommandDoc kCommands[] = {
    {":load", ":load FILE", "parse FILE into a new session state @0"},
    {":reload", ":reload", "read the loaded file again as a new state (with a diff)"},
    {":show", ":show [@N] [FUNC]", "print the current state (or @N, or one function)"},
    {":apply", ":apply PIPELINE", "run passes one at a time; each change becomes a new state with a diff"},
    {":undo", ":undo", "go back to the state the current one came from"},
    {":redo", ":redo", "go forward again after :undo"},
    {":history", ":history", "list every state and how it was made"},
    {":diff", ":diff @A @B [FUNC]", "unified diff between two states"},
    {":eq", ":eq @A @B", "structural equality of two states (or the first mismatch)"},
    {":passes", ":passes [PATTERN]", "list passes with their opt level and summary"},
    {":set", ":set opt_level N | verify on|off | color on|off | scope FUNC[,FUNC..]|all | run-pipeline P | kernels interpret|compiled",
     "session options (scope: functions that function passes change; run-pipeline: how :run lowers, default O2)"},
    {":focus", ":focus [FUNC]", "limit shown diffs to one function (no argument: all)"},
    {":step", ":step [PIPELINE]", "queue a pipeline, then apply its passes one per :step (an empty line steps again)"},
    {":source", ":source FILE", "run the commands in FILE"},
    {":run", ":run [FUNC] [INPUT | NAME=INPUT ...]", "run FUNC (default main) on the VM; inputs: x.npy, rand(2, 3), zeros(..), [[1, 2]], 3 (missing: random)"},
    {":time", ":time [FUNC [INPUT ...]]", "median/min time of FUNC on the VM; without FUNC: toggle pass timing"},
    {":profile", ":profile [FUNC [INPUT ...]]", "where FUNC's time goes on the VM: each kernel and builtin, per run and in %, a kernel's GFMA/s"},
    {":bytecode", ":bytecode [FUNC]", "the VM bytecode of the current state (lowered when needed)"},
    {":llvm", ":llvm [KERNEL]", "optimized LLVM IR of a kernel of the lowered state (all kernels without a name)"},
    {":asm", ":asm [KERNEL]", "host assembly of a kernel of the lowered state"},
    {":save", ":save FILE", "write the current state (atomically; big constants go to its .safetensors)"},
    {":save-test", ":save-test FILE", "write a golden test: input @0, the pipeline applied, expected output"},
    {":help", ":help [COMMAND | PASS]", "this help; for a pass: its options, other names and a worked example with its diff"},
    {":quit", ":quit", "leave the shell"},
};

}  // namespace

void Session::push(IRModuleRef mod, const std::string& how) {
  states_.push_back({std::move(mod), how + (states_.empty() ? "" : " @" + std::to_string(current_))});
  current_ = states_.size() - 1;
  redo_.clear();
}

const Session::State* Session::stateArg(const std::string& w) {
  if (w.size() < 2 || w[0] != '@' || w.find_first_not_of("0123456789", 1) != std::string::npos) return nullptr;
  size_t i = std::stoul(w.substr(1));
  return i < states_.size() ? &states_[i] : nullptr;
}

// A model's weights (the session loaded an .onnx file) show as metadata references, values left
// out, as `rlx import` shows them: as text they would be hundreds of MB in every :show and diff.
std::string Session::showText(const IRModuleRef& mod, const std::string& func) const {
  const bool omitConstants = isModelPath(loadedFile_);
  if (func.empty()) return omitConstants ? printModuleOmittingMetadata(mod) : printModule(mod);
  auto* e = mod->find(func);
  if (!e) return "";
  std::vector<NDArrayRef> metadata;
  PrintOptions opts;
  if (omitConstants) opts.metadataOut = &metadata;
  return printFunction(e->func, func, opts);
}

// Re-reads the loaded file as a new state, so the states made so far stay reachable (:diff, :undo).
void Session::reload() {
  DiagnosticEngine diag;
  auto mod = loadModuleFile(loadedFile_, diag);
  if (!mod) {
    print(diag.render(false));
    error("not reloaded; the state stays @" + std::to_string(current_));
    return;
  }
  size_t from = current_;
  std::string before = printModule(states_[current_].mod), after = printModule(mod);
  push(mod, "reload " + loadedFile_);
  print("@" + std::to_string(current_) + " reloaded " + loadedFile_ + " (" + std::to_string(mod->functions.size()) + " functions)\n");
  std::string diff = unifiedDiff(before, after, "@" + std::to_string(from), "@" + std::to_string(current_), 3, color);
  print(diff.empty() ? "(same as @" + std::to_string(from) + ")\n" : diff);
}

void Session::load(const std::string& path) {
  DiagnosticEngine diag;
  auto mod = loadModuleFile(path, diag);
  if (!mod) {
    print(diag.render(false));
    error("nothing loaded; the session is unchanged");
    return;
  }
  states_.clear();
  loadedFile_ = path;
  push(mod, "load " + path);
  print("@0 loaded " + path + " (" + std::to_string(mod->functions.size()) + " functions)\n");
}

void Session::applyPipeline(const std::string& pipeline) {
  if (states_.empty()) {
    error("no module yet: :load FILE or paste one");
    return;
  }
  auto passes = parsePipeline(pipeline);
  if (!passes.ok()) {
    error(passes.error().message + (passes.error().hint.empty() ? "" : " (" + passes.error().hint + ")"));
    return;
  }
  PassContext ctx;
  ctx.optLevel = optLevel_;
  ctx.scope = scope_;
  for (auto& p : passes.value()) {
    if (p.info().optLevel > optLevel_) {
      print(p.info().name + ": skipped (its opt_level " + std::to_string(p.info().optLevel) + " is above the session's " + std::to_string(optLevel_) + "; :set opt_level to change it)\n");
      continue;
    }
    IRModuleRef before = states_[current_].mod;
    auto started = std::chrono::steady_clock::now();
    auto r = runSequential({p}, before, ctx);
    if (!r.ok()) {
      error(r.error().message + "; the state stays @" + std::to_string(current_));
      return;
    }
    if (verify_) {
      auto problems = verifyModule(r.value());
      if (!problems.empty()) {
        error("after " + p.info().name + ": " + problems[0].message + "; the state stays @" + std::to_string(current_));
        return;
      }
    }
    if (timePasses_) print(p.info().name + ": " + std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count()) + " ms\n");
    std::string a = showText(before, focus_), b = showText(r.value(), focus_);
    std::string diff = r.value().same(before) ? "" : unifiedDiff(a, b, "@" + std::to_string(current_), "@" + std::to_string(states_.size()), 3, color);
    // The shown text can hide a change (another function under :focus, a model's weights): an
    // empty diff is no change only when the modules are equal.
    if (r.value().same(before) || (diff.empty() && structuralEqual(Ref<Object>(before), Ref<Object>(r.value())).equal)) {
      print(p.info().name + ": (no change)\n");
      continue;
    }
    size_t from = current_;
    push(r.value(), p.info().name);
    print("@" + std::to_string(current_) + " = " + p.info().name + "(@" + std::to_string(from) + ")\n" + diff);
  }
}

void Session::paste(const std::string& text) {
  DiagnosticEngine diag;
  bool lone = false;
  ParseOptions opts;
  opts.loneFunction = &lone;
  auto mod = parseModule(text, "<paste>", diag, opts);
  if (!mod) {
    print(diag.render(false));
    error("the pasted text was not applied");
    return;
  }
  bool isModule = text.find("@I.ir_module") != std::string::npos || text.find("class ") != std::string::npos;
  if (isModule || states_.empty()) {
    push(mod, "paste");
    print("@" + std::to_string(current_) + " = pasted module (" + std::to_string(mod->functions.size()) + " functions)\n");
    return;
  }
  // Functions define or replace functions of the current module.
  IRModuleRef cur = states_[current_].mod;
  std::string names;
  for (auto& e : mod->functions) {
    cur = withFunction(cur, e.gvar, e.func);
    names += (names.empty() ? "" : ", ") + e.gvar->name;
  }
  push(cur, "paste");
  print("@" + std::to_string(current_) + " = defined " + names + "\n");
}

void Session::setScope(const std::string& list) {
  if (list == "all") {
    scope_.clear();
    print("scope = all functions\n");
    return;
  }
  std::vector<std::string> names;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) names.push_back(item);
  if (!states_.empty()) {
    std::vector<std::string> known;
    for (auto& e : states_[current_].mod->functions) known.push_back(e.gvar->name);
    for (auto& n : names)
      if (std::find(known.begin(), known.end(), n) == known.end()) {
        std::string close = closestName(n, known);
        error("no function '" + n + "' in @" + std::to_string(current_) + (close.empty() ? "" : " (did you mean '" + close + "'?)"));
        return;
      }
  }
  scope_ = names;
  print("scope = " + list + " (function passes change only these; module passes see everything)\n");
}

void Session::help(const std::string& topic) {
  if (!topic.empty() && topic[0] != ':' && findPass(topic)) {
    auto text = explainPass(topic, color);
    if (text.ok()) print(text.value());
    return;
  }
  bool known = topic.empty();
  for (auto& c : kCommands) known = known || topic == c.name || ":" + topic == c.name;
  if (!known) {
    Error e = unknownPass(topic);
    error(e.message + " or command (see :help and :passes)" + (e.hint.rfind("did you", 0) == 0 ? "; " + e.hint : ""));
    return;
  }
  for (auto& c : kCommands)
    if (topic.empty() || topic == c.name || ":" + topic == c.name) print(std::string("  ") + c.usage + std::string(std::max<int>(2, 34 - int(std::string(c.usage).size())), ' ') + c.summary + "\n");
  if (topic.empty())
    print("  PASS[,PASS(opt=v)...]             a bare pipeline applies it like :apply\n"
          "  <paste TVMScript>                 a module replaces the state; functions are added/replaced\n");
}

bool Session::command(const std::string& line) {
  auto w = words(line);
  const std::string& cmd = w[0];
  std::string rest = trim(line.substr(cmd.size()));
  auto needModule = [&]() {
    if (states_.empty()) error("no module yet: :load FILE or paste one");
    return !states_.empty();
  };
  if (cmd == ":quit" || cmd == ":q" || cmd == ":exit") return false;
  if (cmd == ":help" || cmd == ":h") {
    help(w.size() > 1 ? w[1] : "");
  } else if (cmd == ":load") {
    if (w.size() != 2) error("usage: :load FILE");
    else load(w[1]);
  } else if (cmd == ":reload") {
    if (w.size() != 1) error("usage: :reload");
    else if (loadedFile_.empty()) error("nothing was loaded from a file");
    else reload();
  } else if (cmd == ":show") {
    if (!needModule()) return true;
    const State* s = &states_[current_];
    std::string func;
    for (size_t i = 1; i < w.size(); ++i) {
      if (w[i][0] == '@') {
        s = stateArg(w[i]);
        if (!s) return error("no state " + w[i]), true;
      } else {
        func = w[i];
      }
    }
    std::string text = showText(s->mod, func);
    if (text.empty()) error("no function named '" + func + "'");
    else print(text);
  } else if (cmd == ":apply") {
    applyPipeline(rest);
  } else if (cmd == ":step") {
    if (!rest.empty()) {
      auto passes = parsePipeline(rest);
      if (!passes.ok()) return error(passes.error().message), true;
      // Keep the written text of each pass (with its options) so it re-parses as one step;
      // presets (O2, build, ...) expand to their passes, so each is a step of its own.
      stepQueue_.clear();
      std::function<void(const std::string&)> queue = [&](const std::string& text) {
        int depth = 0;
        std::string cur;
        for (char c : text + ",") {
          if (c == '(' || c == '[') ++depth;
          if (c == ')' || c == ']') --depth;
          if (c == ',' && depth == 0) {
            std::string item = trim(cur);
            if (const char* preset = presetPipeline(item)) queue(preset);
            else if (!item.empty()) stepQueue_.push_back(item);
            cur.clear();
          } else {
            cur += c;
          }
        }
      };
      queue(rest);
      print("queued " + std::to_string(stepQueue_.size()) + " passes; :step (or an empty line) applies the next\n");
      lastWasStep_ = true;
      return true;
    }
    if (stepQueue_.empty()) return error("nothing queued: :step PIPELINE first"), true;
    std::string next = stepQueue_.front();
    stepQueue_.erase(stepQueue_.begin());
    print("step: " + next + " (" + std::to_string(stepQueue_.size()) + " left)\n");
    applyPipeline(next);
    lastWasStep_ = true;
    return true;
  } else if (cmd == ":source") {
    if (w.size() != 2) return error("usage: :source FILE"), true;
    std::ifstream in(w[1]);
    if (!in) return error("cannot read '" + w[1] + "'"), true;
    if (sourceDepth_ > 8) return error(":source nested too deeply"), true;
    ++sourceDepth_;
    std::string l;
    bool go = true;
    while (go && std::getline(in, l)) go = feed(l);
    finish();
    --sourceDepth_;
    if (!go) return false;
  } else if (cmd == ":run" || cmd == ":bytecode" || cmd == ":llvm" || cmd == ":asm" || cmd == ":profile" || (cmd == ":time" && w.size() > 1)) {
    runCommand(cmd, rest);
  } else if (cmd == ":time") {
    timePasses_ = !timePasses_;
    print(std::string("pass timing ") + (timePasses_ ? "on" : "off") + "\n");
  } else if (cmd == ":undo") {
    if (!needModule()) return true;
    auto& how = states_[current_].how;
    size_t at = how.rfind(" @");
    if (at == std::string::npos) return error("nothing to undo"), true;
    redo_.push_back(current_);
    current_ = std::stoul(how.substr(at + 2));
    print("now at @" + std::to_string(current_) + "\n");
  } else if (cmd == ":redo") {
    if (redo_.empty()) return error("nothing to redo"), true;
    current_ = redo_.back();
    redo_.pop_back();
    print("now at @" + std::to_string(current_) + "\n");
  } else if (cmd == ":history") {
    for (size_t i = 0; i < states_.size(); ++i) print((i == current_ ? "* @" : "  @") + std::to_string(i) + "  " + states_[i].how + "\n");
  } else if (cmd == ":diff" || cmd == ":eq") {
    if (w.size() < 3) return error("usage: " + cmd + " @A @B" + (cmd == ":diff" ? " [FUNC]" : "")), true;
    const State* a = stateArg(w[1]);
    const State* b = stateArg(w[2]);
    if (!a || !b) return error("no such state (see :history)"), true;
    if (cmd == ":eq") {
      auto r = structuralEqual(Ref<Object>(a->mod), Ref<Object>(b->mod));
      print(r.equal ? "equal\n" : "not equal at " + r.path + "\n  " + w[1] + ": " + r.lhs + "\n  " + w[2] + ": " + r.rhs + "\n");
      return true;
    }
    std::string func = w.size() > 3 ? w[3] : focus_;
    std::string d = unifiedDiff(showText(a->mod, func), showText(b->mod, func), w[1], w[2], 3, color);
    print(d.empty() ? "(no difference)\n" : d);
  } else if (cmd == ":passes") {
    for (auto& p : passRegistry())
      if (w.size() < 2 || std::string(p.name).find(w[1]) != std::string::npos) {
        print(std::string("  ") + p.name + std::string(std::max<int>(2, 28 - int(std::string(p.name).size())), ' ') + "O" + std::to_string(p.optLevel) + "  " + p.summary + "\n");
        if (*p.options) print(std::string(34, ' ') + "options: " + p.options + "\n");
      }
  } else if (cmd == ":set") {
    const char* usage = "usage: :set opt_level N | verify on|off | color on|off | scope FUNC[,FUNC..]|all | run-pipeline P | kernels interpret|compiled";
    if (w.size() != 3) return error(usage), true;
    if (w[1] == "opt_level" && w[2].find_first_not_of("0123456789") == std::string::npos) optLevel_ = std::stoi(w[2]);
    else if (w[1] == "verify" && (w[2] == "on" || w[2] == "off")) verify_ = w[2] == "on";
    else if (w[1] == "color" && (w[2] == "on" || w[2] == "off")) color = w[2] == "on";
    else if (w[1] == "scope") return setScope(w[2]), true;
    else if (w[1] == "run-pipeline") runPipeline_ = w[2];
    else if (w[1] == "kernels" && (w[2] == "interpret" || w[2] == "compiled")) interpretKernels_ = w[2] == "interpret";
    else return error(usage), true;
    print(w[1] + " = " + w[2] + "\n");
  } else if (cmd == ":focus") {
    focus_ = w.size() > 1 ? w[1] : "";
    print(focus_.empty() ? "diffs show the whole module\n" : "diffs show only " + focus_ + "\n");
  } else if (cmd == ":save") {
    if (!needModule()) return true;
    if (w.size() != 2) return error("usage: :save FILE"), true;
    auto st = writeModuleFile(states_[current_].mod, w[1]);
    if (!st.ok()) error(st.error().message);
    else print("saved @" + std::to_string(current_) + " to " + w[1] + "\n");
  } else if (cmd == ":save-test") {
    if (!needModule()) return true;
    if (w.size() != 2) return error("usage: :save-test FILE"), true;
    // The pipeline is the pass names on the path from the root to the current state.
    std::vector<std::string> names;
    size_t i = current_;
    while (true) {
      auto& how = states_[i].how;
      size_t at = how.rfind(" @");
      if (at == std::string::npos) break;
      names.push_back(how.substr(0, at));
      i = std::stoul(how.substr(at + 2));
    }
    std::reverse(names.begin(), names.end());
    std::string pipeline;
    for (auto& n : names) pipeline += (pipeline.empty() ? "" : ",") + n;
    if (pipeline.empty() || pipeline.find("paste") != std::string::npos) return error("the current state was not made by passes from a loaded module"), true;
    std::string text = "# RUN: opt -p " + pipeline + "\n" + printModule(states_[i].mod) + "# ---- expected output (generated; re-bless with UPDATE_GOLDEN=1) ----\n" + printModule(states_[current_].mod);
    auto st = writeFileAtomically(w[1], text);
    if (!st.ok()) error(st.error().message);
    else print("wrote " + w[1] + " (run it with `rlx test " + w[1] + "`)\n");
  } else {
    std::vector<std::string> names;
    for (auto& c : kCommands) names.push_back(c.name);
    std::string hint = closestName(cmd, names);
    error("unknown command '" + cmd + "'" + (hint.empty() ? "" : "; did you mean " + hint + "?"));
  }
  return true;
}

bool Session::feed(const std::string& raw) {
  std::string t = trim(raw);
  if (!pending_.empty()) {
    // A paste ends at an empty line — unless the next line is indented: printed modules have an
    // empty line between functions. So an empty line is held until the next line decides; two
    // empty lines in a row always end the paste.
    if (t.empty()) {
      if (blankInPaste_) {
        blankInPaste_ = false;
        finish();
      } else {
        blankInPaste_ = true;
      }
      return true;
    }
    bool indented = raw[0] == ' ' || raw[0] == '\t';
    if (!blankInPaste_ || indented) {
      if (blankInPaste_) pending_.push_back("");
      blankInPaste_ = false;
      pending_.push_back(raw);
      return true;
    }
    blankInPaste_ = false;
    finish();  // then this line is a command of its own
  }
  bool stepped = lastWasStep_;
  lastWasStep_ = false;
  if (t.empty() && stepped && !stepQueue_.empty()) return command(":step");
  if (t.empty() || t[0] == '#') {
    if (t.compare(0, 17, "# from tvm.script") == 0) pending_.push_back(raw);
    return true;
  }
  if (startsPaste(t)) {
    pending_.push_back(raw);
    return true;
  }
  if (t[0] == ':') return command(t);
  applyPipeline(t);  // a bare pipeline
  return true;
}

void Session::finish() {
  blankInPaste_ = false;
  if (pending_.empty()) return;
  std::string text;
  for (auto& l : pending_) text += l + "\n";
  pending_.clear();
  paste(text);
}

namespace {

// The pass whose option list the cursor is in: `Name(` or `Name(a=1, ` before `start`.
const PassEntry* passBeingConfigured(const std::string& line, size_t start) {
  int depth = 0;
  for (size_t i = start; i-- > 0;) {
    char c = line[i];
    if (c == ')' || c == ']') ++depth;
    else if (c == '[') --depth;
    else if (c == '(') {
      if (depth-- > 0) continue;
      size_t b = i;
      while (b > 0 && (std::isalnum(static_cast<unsigned char>(line[b - 1])) || line[b - 1] == '_')) --b;
      return findPass(line.substr(b, i - b));
    }
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> Session::complete(const std::string& lineSoFar) const {
  size_t start = lineSoFar.find_last_of(" ,(") == std::string::npos ? 0 : lineSoFar.find_last_of(" ,(") + 1;
  std::string word = lineSoFar.substr(start);
  std::vector<std::string> out;
  auto offer = [&](const std::string& c) {
    if (c.compare(0, word.size(), word) == 0) out.push_back(c);
  };
  std::string first = lineSoFar.substr(0, lineSoFar.find(' '));
  bool fileArg = start > 0 && (first == ":load" || first == ":save" || first == ":source" || first == ":save-test");
  if (start == 0 && !word.empty() && word[0] == ':') {
    for (auto& c : kCommands) offer(c.name);
  } else if (fileArg) {
    // File names in the directory of the word typed so far (folders end with '/').
    std::string dir = word.substr(0, word.find_last_of('/') == std::string::npos ? 0 : word.find_last_of('/') + 1);
    std::error_code ec;
    for (auto& entry : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec))
      offer(dir + entry.path().filename().string() + (entry.is_directory(ec) ? "/" : ""));
    std::sort(out.begin(), out.end());
  } else if (const PassEntry* pass = passBeingConfigured(lineSoFar, start)) {
    for (auto& o : passOptionNames(*pass)) offer(o + "=");
  } else if (first == ":set" && start > 0 && lineSoFar.find(' ', first.size() + 1) == std::string::npos) {
    for (const char* o : {"opt_level", "verify", "color", "scope", "run-pipeline", "kernels"}) offer(o);
  } else {
    for (auto& p : passRegistry()) offer(p.name);
    for (const char* p : {"O0", "O1", "O2", "O3", "build", "build_fused", "build_cpu"}) offer(p);
    if (!states_.empty())
      for (auto& e : states_[current_].mod->functions) offer(e.gvar->name);
  }
  return out;
}

}  // namespace rlx::repl
