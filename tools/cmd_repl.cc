// `rlx repl`: the interactive shell. On a terminal it uses libedit (line editing, persistent history,
// TAB completion of commands, passes and functions); from a pipe it reads plain lines, prints no
// prompt and no colour, so transcripts are byte-deterministic.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <editline/readline.h>

#include "repl/session.h"
#include "tools/commands.h"

namespace rlx::tools {

namespace {

repl::Session* gSession = nullptr;
std::vector<std::string> gMatches;

char* completionGenerator(const char*, int state) {
  if (state == 0) {
    gMatches = gSession->complete(std::string(rl_line_buffer, size_t(rl_point)));
    // `option=` and `dir/` completions continue in the same word: no space after them.
    bool open = gMatches.size() == 1 && !gMatches[0].empty() && (gMatches[0].back() == '=' || gMatches[0].back() == '/');
    rl_completion_append_character = open ? '\0' : ' ';
  }
  if (size_t(state) >= gMatches.size()) return nullptr;
  return strdup(gMatches[size_t(state)].c_str());
}

char** completion(const char* text, int, int) {
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, completionGenerator);
}

std::string historyPath() {
  const char* home = std::getenv("HOME");
  return home ? std::string(home) + "/.rlx_history" : "";
}

}  // namespace

int runRepl(const std::vector<std::string>& args, bool) {
  std::vector<std::string> commands;
  std::string file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::puts("usage: rlx repl [FILE] [-e COMMAND]...\n\nThe interactive shell; type :help inside. Reads commands from a pipe too\n"
                "(`rlx repl < session.rlx`); -e runs commands and exits.");
      return 0;
    }
    if (args[i] == "-e") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "rlx repl: -e needs a command\n");
        return 2;
      }
      commands.push_back(args[++i]);
    } else if (file.empty()) {
      file = args[i];
    } else {
      std::fprintf(stderr, "rlx repl: more than one file\n");
      return 2;
    }
  }
  bool tty = isatty(0) && isatty(1) && commands.empty();
  repl::Session session([](const std::string& s) {
    std::fputs(s.c_str(), stdout);
    std::fflush(stdout);
  });
  session.color = tty && !std::getenv("NO_COLOR");
  gSession = &session;
  if (tty) std::puts("rlx shell — :help for commands, TAB completes, :quit or Ctrl-D leaves");
  if (!file.empty() && !session.feed(":load " + file)) return 0;
  if (!commands.empty()) {
    for (auto& c : commands)
      if (!session.feed(c)) break;
    session.finish();
    return 0;
  }
  if (!tty) {
    std::string line;
    while (std::getline(std::cin, line))
      if (!session.feed(line)) return 0;
    session.finish();
    return 0;
  }
  std::string hist = historyPath();
  using_history();
  if (!hist.empty()) read_history(hist.c_str());
  rl_attempted_completion_function = completion;
  while (true) {
    char* raw = readline(session.prompt().c_str());
    if (!raw) break;
    std::string line(raw);
    std::free(raw);
    if (!line.empty()) add_history(line.c_str());
    if (!session.feed(line)) break;
  }
  session.finish();
  if (!hist.empty()) write_history(hist.c_str());
  return 0;
}

}  // namespace rlx::tools
