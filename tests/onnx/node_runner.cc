// The ONNX backend node-test runner: imports every case's model.onnx, runs main on the VM with
// test_data_set_0's inputs and compares with its outputs at the ONNX runner's tolerances (rtol 1e-3,
// atol 1e-7; shapes and dtypes exact). Each case runs in a forked child, so a crash or a hang is
// one failed case. The expectation file lists every case as `pass` or `xfail <reason>`; a
// regression or an unexpected pass fails the run (`--update` rewrites the file instead).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/onnx/onnx.h"
#include "runtime/runner.h"
#include "runtime/value.h"

namespace fs = std::filesystem;
using namespace rlx;

namespace {

struct Options {
  std::vector<std::string> roots;  // folders holding test_* case folders
  std::string expectFile;
  std::string only;
  bool update = false, verbose = false;
  bool specialize = true;  // --no-specialize: a model must import without its input values
  int timeoutSec = 120;
};

std::string describe(const Value& v) { return v.describe(); }

// ONNX's assert_allclose: |actual - expected| <= atol + rtol * |expected|, NaN matching NaN.
// numpy has no bfloat16 / float8: ONNX's test data stores such tensors as unsigned ints of the same
// width. A tensor of that width is taken as the declared dtype (bits unchanged).
NDArrayRef asDeclared(const NDArrayRef& a, DataType declared) {
  if (a->dtype == declared || a->dtype.bits != declared.bits || !a->dtype.isUInt() || !declared.isFloat()) return a;
  auto b = make<NDArray>(declared, a->shape);
  std::memcpy(b->data(), a->data(), a->nbytes());
  return b;
}

std::string compareTensor(const NDArray& got, const NDArray& wantRaw, const std::string& what) {
  NDArrayRef wantRef = asDeclared(NDArrayRef(const_cast<NDArray*>(&wantRaw)), got.dtype);
  const NDArray& want = *wantRef;
  if (got.dtype != want.dtype) return what + ": dtype " + got.dtype.str() + ", expected " + want.dtype.str();
  if (got.shape != want.shape) {
    auto s = [](const std::vector<int64_t>& v) {
      std::string r = "(";
      for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
      return r + ")";
    };
    return what + ": shape " + s(got.shape) + ", expected " + s(want.shape);
  }
  for (int64_t i = 0; i < got.numel(); ++i) {
    if (want.dtype.isFloat()) {
      double a = got.getDouble(i), b = want.getDouble(i);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (std::isinf(b) && a == b) continue;
      if (!(std::fabs(a - b) <= 1e-7 + 1e-3 * std::fabs(b))) {
        std::ostringstream ss;
        ss.precision(9);
        ss << what << ": element " << i << " is " << a << ", expected " << b;
        return ss.str();
      }
    } else if (got.getInt(i) != want.getInt(i)) {
      return what + ": element " + std::to_string(i) + " is " + std::to_string(got.getInt(i)) + ", expected " + std::to_string(want.getInt(i));
    }
  }
  return "";
}

std::string compareValue(const Value& got, const Value& want, const std::string& what) {
  if (want.kind == Value::Tensor) {
    if (got.kind != Value::Tensor) return what + ": got " + describe(got) + ", expected a tensor";
    return compareTensor(*got.tensor, *want.tensor, what);
  }
  if (got.kind != Value::Tuple || got.fields.size() != want.fields.size()) return what + ": got " + describe(got) + ", expected " + describe(want);
  for (size_t i = 0; i < want.fields.size(); ++i)
    if (auto e = compareValue(got.fields[i], want.fields[i], what + "[" + std::to_string(i) + "]"); !e.empty()) return e;
  return "";
}

std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  if (s.size() > 300) s = s.substr(0, 297) + "...";
  return s;
}

// The struct info of a concrete value (how a sequence or optional input is described at import).
StructInfo structureOf(const Value& v) {
  if (v.kind == Value::Tensor) {
    std::vector<PrimExpr> dims;
    for (auto d : v.tensor->shape) dims.push_back(intImm(d));
    return tensorSInfo(dims, v.tensor->dtype);
  }
  std::vector<StructInfo> fields;
  for (auto& f : v.fields) fields.push_back(structureOf(f));
  return make<TupleSInfo>(fields);
}

// Runs one case; "" = pass, otherwise the reason it failed (one line). A model that needs the value
// of an input at import (axes, pads, k, a shape...) is imported again with that input bound to the
// case's value, as `rlx run` does; `specialized` then lists those inputs.
std::string runCase(const fs::path& dir, bool specialize, std::string& specialized) {
  std::string model = (dir / "model.onnx").string();
  auto sig = onnx::readSignature(model);
  if (!sig) return "read: " + sig.error().message;
  fs::path data = dir / "test_data_set_0";
  std::vector<Value> inputs;
  for (size_t i = 0; i < sig->inputs.size(); ++i) {
    auto v = onnx::readValueFile((data / ("input_" + std::to_string(i) + ".pb")).string(), sig->inputs[i].second);
    if (!v) return "input: " + v.error().message;
    inputs.push_back(*v);
  }
  std::map<std::string, NDArrayRef> available;
  onnx::ImportOptions options;
  std::set<std::string> absent;  // empty optionals: not parameters of main
  for (size_t i = 0; i < sig->inputs.size(); ++i) {
    const std::string& name = sig->inputs[i].first;
    if (sig->inputs[i].second != "tensor") {
      options.inputStructure[name] = structureOf(inputs[i]);
      if (sig->inputs[i].second == "optional" && inputs[i].kind == Value::Tuple && inputs[i].fields.empty()) absent.insert(name);
    } else if (inputs[i].kind == Value::Tensor) {
      available[name] = inputs[i].tensor;
    }
  }
  std::vector<std::string> bound(absent.begin(), absent.end());
  if (!specialize) available.clear();
  auto mod = onnx::fromOnnxFileSpecializing(model, options, available, &bound);
  if (!mod) return "import: " + mod.error().message;
  for (auto& n : bound) specialized += (specialized.empty() ? "" : ",") + n;
  auto main = (*mod)->lookup("main").as<Function>();
  std::vector<vm::Value> args;
  for (size_t i = 0; i < sig->inputs.size(); ++i) {
    if (std::find(bound.begin(), bound.end(), sig->inputs[i].first) != bound.end()) continue;
    Value v = inputs[i];
    if (v.kind == Value::Tensor && main && args.size() < main->params.size())
      if (auto t = main->params[args.size()]->sinfo.as<TensorSInfo>()) v.tensor = asDeclared(v.tensor, t->dtype);
    args.push_back(vm::fromEvalValue(v));
  }
  auto prepared = prepareModule(*mod, "build");
  if (!prepared) return "lower: " + prepared.error().message;
  auto result = prepared->machine->invoke("main", args);
  if (!result) return "run: " + result.error().message;
  Value got;
  std::string err;
  if (!vm::toEvalValue(*result, got, err)) return "run: " + err;
  std::vector<Value> outs;
  if (sig->outputs.size() == 1) outs.push_back(got);
  else if (got.kind == Value::Tuple) outs = got.fields;
  else return "run: expected " + std::to_string(sig->outputs.size()) + " outputs, got " + describe(got);
  if (outs.size() != sig->outputs.size()) return "run: expected " + std::to_string(sig->outputs.size()) + " outputs, got " + std::to_string(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    auto want = onnx::readValueFile((data / ("output_" + std::to_string(i) + ".pb")).string(), sig->outputs[i].second);
    if (!want) return "output: " + want.error().message;
    if (auto e = compareValue(outs[i], *want, "output " + std::to_string(i)); !e.empty()) return "mismatch: " + e;
  }
  return "";
}

// Forks, runs the case in the child and reads its verdict through a pipe.
std::string runIsolated(const fs::path& dir, int timeoutSec, bool specialize, std::string& specializedOut) {
  int fds[2];
  if (pipe(fds) != 0) return "runner: pipe failed";
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(unsigned(timeoutSec));
    std::string specialized;
    std::string verdict = oneLine(runCase(dir, specialize, specialized));
    if (verdict.empty()) verdict = specialized.empty() ? "ok" : "ok specialized on " + specialized;
    (void)!write(fds[1], verdict.data(), verdict.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGALRM ? "timeout after " + std::to_string(timeoutSec) + " s" : "crash: signal " + std::to_string(WTERMSIG(status)) + " " + oneLine(out);
  if (out == "ok") return "";
  if (out.rfind("ok specialized on ", 0) == 0) {
    specializedOut = out.substr(18);
    return "";
  }
  return out.empty() ? "runner: no verdict" : out;
}

std::map<std::string, std::string> readExpectations(const std::string& path) {
  std::map<std::string, std::string> m;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.find(' ');
    m[line.substr(0, sp)] = sp == std::string::npos ? "" : line.substr(sp + 1);
  }
  return m;
}

int usage() {
  std::fputs("usage: rlx_onnx_node_tests --expect FILE [--update] [--only SUBSTR] [-v] [--timeout S] [--no-specialize] DIR...\n"
             "  DIR: a folder of test_* cases (e.g. /usr/share/libonnx-testdata/data/node)\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--expect" && i + 1 < argc) o.expectFile = argv[++i];
    else if (a == "--only" && i + 1 < argc) o.only = argv[++i];
    else if (a == "--timeout" && i + 1 < argc) o.timeoutSec = std::atoi(argv[++i]);
    else if (a == "--update") o.update = true;
    else if (a == "--no-specialize") o.specialize = false;
    else if (a == "-v") o.verbose = true;
    else if (!a.empty() && a[0] == '-') return usage();
    else o.roots.push_back(a);
  }
  if (o.roots.empty() || o.expectFile.empty()) return usage();
  // Every case is named "<root folder name>/<case>" so several suites share one file.
  std::vector<std::pair<std::string, fs::path>> cases;
  for (auto& root : o.roots) {
    if (!fs::is_directory(root)) {
      std::fprintf(stderr, "rlx_onnx_node_tests: '%s' is not a folder\n", root.c_str());
      return 2;
    }
    std::string suite = fs::path(root).lexically_normal().filename().string();
    if (suite.empty()) suite = fs::path(root).lexically_normal().parent_path().filename().string();
    for (auto& e : fs::directory_iterator(root))
      if (fs::exists(e.path() / "model.onnx")) cases.push_back({suite + "/" + e.path().filename().string(), e.path()});
  }
  std::sort(cases.begin(), cases.end());
  auto expected = readExpectations(o.expectFile);
  std::map<std::string, std::string> results;  // name -> "" pass, else reason
  int passed = 0, failed = 0, regressions = 0, newPasses = 0, unknown = 0, specialized = 0;
  for (auto& [name, dir] : cases) {
    if (!o.only.empty() && name.find(o.only) == std::string::npos) continue;
    std::string specializedOn;
    std::string why = runIsolated(dir, o.timeoutSec, o.specialize, specializedOn);
    results[name] = why;
    why.empty() ? ++passed : ++failed;
    if (why.empty() && !specializedOn.empty()) ++specialized;
    auto it = expected.find(name);
    bool expectPass = it != expected.end() && it->second == "pass";
    if (it == expected.end()) ++unknown;
    if (o.verbose || (!o.update && why.empty() != expectPass)) std::printf("%s %s%s\n", why.empty() ? "PASS" : "FAIL", name.c_str(), why.empty() ? "" : (": " + why).c_str());
    if (!o.update && it != expected.end()) {
      if (expectPass && !why.empty()) ++regressions;
      if (!expectPass && why.empty()) ++newPasses;
    }
  }
  std::printf("%d passed, %d failed (of %zu cases); %d of the passes specialized the model on input values it needs at import\n", passed, failed, results.size(), specialized);
  if (o.update) {
    // Cases not run this time (--only) keep their old line.
    for (auto& [name, why] : expected)
      if (!results.count(name)) results[name] = why == "pass" ? "" : why.substr(why.find(' ') == std::string::npos ? why.size() : why.find(' ') + 1);
    std::ofstream f(o.expectFile + ".tmp");
    f << "# ONNX backend node tests: `pass` or `xfail <reason>` per case (rlx_onnx_node_tests --update rewrites it).\n";
    for (auto& [name, why] : results) f << name << (why.empty() ? " pass" : " xfail " + why) << "\n";
    f.close();
    fs::rename(o.expectFile + ".tmp", o.expectFile);
    std::printf("wrote %s\n", o.expectFile.c_str());
    return 0;
  }
  if (unknown) std::printf("%d cases are not in %s (run with --update)\n", unknown, o.expectFile.c_str());
  if (regressions) std::printf("%d regressions: cases expected to pass failed\n", regressions);
  if (newPasses) std::printf("%d unexpected passes: update %s\n", newPasses, o.expectFile.c_str());
  return regressions || newPasses || unknown ? 1 : 0;
}
