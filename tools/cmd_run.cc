// `rlx run`: parse a module, lower a copy for the VM when needed, run one function on inputs from
// the command line (or random ones), print results numpy-style or write them as .npy files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "frontend/load_module.h"
#include "frontend/onnx/onnx.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "printer/printer.h"
#include "runtime/format.h"
#include "runtime/kernel_code.h"
#include "runtime/inputs.h"
#include "runtime/npy.h"
#include "runtime/profile_report.h"
#include "runtime/runner.h"
#include "tools/commands.h"
#include "tools/expect_outputs.h"

namespace rlx::tools {

namespace {

const char* kRunHelp = R"(usage: rlx run FILE [options] [NAME=INPUT ...]

Runs function FUNC (default main) of FILE on the bytecode VM, lowering a copy of the module
first when it is not lowered yet. Kernels are compiled for this CPU.

inputs (one per parameter; missing tensor inputs are random, with a note on stderr):
  --input NAME=INPUT, or NAME=INPUT   INPUT is FILE.npy, rand(2, 3), zeros(2, 3), ones(2, 3),
                             rand() (the annotated shape), a literal [[1, 2], [3, 4]], or a number
options:
  -f, --function FUNC        the function to run (default main)
  --pipeline P               build (TVM's default build, no fusion), O0..O3 (that optimization
                             preset, then the lowering with fusion; default O2), or a pass list
  --output-dir DIR           write the results as DIR/NAME.npy (a tuple: NAME_0.npy, ...)
  --time N                   run N times more and print the median and minimum time
  --expect FILE.npy          compare output k with the k-th --expect file (tuples flattened in
                             order): max |out - ref| <= tolerance * max |ref|; exit 1 otherwise
  --tolerance T              for --expect (default 1e-4)
  --profile                  time every kernel and builtin call; print where the time went (over
                             the --time runs when given, else over the one run), each kernel's
                             multiply-adds per second (GFMA/s) and its operands' shapes
  --sym-default N            value of symbolic dims no input binds (default 4)
  --seed N                   seed of the random inputs (default 0)
  (RLX_DENORMALS=keep computes with denormal floats; by default they are read and made zero, as
   optimized CPU runtimes do, since they run 20x slower)
  --interpret                run kernels with the TIR interpreter instead of compiling them
  --emit=lowered|bytecode|llvm|asm   print the lowered module, the bytecode, or the kernels'
                             optimized LLVM IR / host assembly instead of running
  -k, --kernel NAME          with --emit=llvm|asm: only this kernel (a PrimFunc of the lowered module)
)";

int usage(const std::string& msg) {
  std::fprintf(stderr, "rlx run: %s (see `rlx run --help`)\n", msg.c_str());
  return 2;
}

int fail(const Error& e, bool color) {
  std::fputs(renderError(e, color).c_str(), stderr);
  return 1;
}

// Writes `v` as DIR/NAME.npy (tuples field by field, NAME_0, NAME_1, ...).
Status writeOutputs(const vm::Value& v, const std::string& dir, const std::string& name, std::vector<std::string>& written) {
  if (v.kind == vm::Value::Tuple) {
    for (size_t k = 0; k < v.fields().size(); ++k) RLX_TRY_STATUS(writeOutputs(v.fields()[k], dir, name + "_" + std::to_string(k), written));
    return okStatus();
  }
  if (v.kind != vm::Value::Tensor) return Error("only tensor results can be written as .npy (got " + v.describe() + ")");
  std::string path = dir + "/" + name + ".npy";
  RLX_TRY_STATUS(writeNpy(path, *v.array));
  written.push_back(path);
  return okStatus();
}

// An ONNX model for running: when the import needs the values of some inputs (a Reshape's shape,
// Slice's ends, TopK's k given as inputs), the ones given on the command line are bound into the
// model as constants, with a note; they are then no longer parameters of main.
IRModuleRef loadOnnxForRun(const std::string& file, std::vector<std::string>& inputSpecs, DiagnosticEngine& diag) {
  auto sig = onnx::readSignature(file);
  if (!sig) {
    diag.error(sig.error());
    return nullptr;
  }
  std::map<std::string, NDArrayRef> given;
  std::map<std::string, std::string> specOf;
  for (auto& spec : inputSpecs) specOf[spec.substr(0, spec.find('='))] = spec.substr(spec.find('=') + 1);
  for (size_t i = 0; i < sig->inputs.size(); ++i) {
    auto it = specOf.find(sig->inputs[i].first);
    if (it == specOf.end() || sig->inputs[i].second != "tensor") continue;
    // Parsed as the model declares the input (its rank is not needed for a value).
    auto param = make<Var>(sig->inputs[i].first, make<TensorSInfo>(nullptr, sig->inputDtypes[i], -1));
    InputContext ctx;
    auto v = parseInput(it->second, param, ctx);
    if (v.ok() && v->kind == vm::Value::Tensor) given[it->first] = v->array;
  }
  std::vector<std::string> bound;
  auto mod = onnx::fromOnnxFileSpecializing(file, {}, given, &bound);
  if (!mod) {
    // Name the inputs whose values would let the import through.
    std::vector<std::string> needed;
    onnx::ImportOptions probe;
    probe.neededInputs = &needed;
    for (auto& [name, value] : given) probe.inputValues[name] = value;
    (void)onnx::fromOnnxFile(file, probe);
    Error e = mod.error();
    std::string names;
    for (auto& n : needed)
      if (!given.count(n)) names += (names.empty() ? "" : ", ") + n;
    if (!names.empty()) e.hint = "the import needs the value of " + names + ": give it as NAME=VALUE (a .npy file or a literal) and rlx specializes the model on it";
    diag.error(e);
    return nullptr;
  }
  if (!bound.empty()) {
    std::string names;
    for (auto& n : bound) names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "note: %s specialized on the given values of %s (needed at import)\n", file.c_str(), names.c_str());
    std::erase_if(inputSpecs, [&](const std::string& spec) { return std::find(bound.begin(), bound.end(), spec.substr(0, spec.find('='))) != bound.end(); });
  }
  return *mod;
}

}  // namespace

int runRun(const std::vector<std::string>& args, bool color) {
  std::string file, func = "main", pipeline = "O2", outputDir, emit, kernel;
  std::vector<std::string> inputSpecs, expected;
  double tolerance = 1e-4;
  int timeRuns = 0;
  int64_t symDefault = 4;
  uint32_t seed = 0;
  vm::VMOptions options;
  if (const char* d = std::getenv("RLX_DENORMALS"); d && std::string(d) == "keep") options.flushDenormals = false;
  auto value = [&](size_t& i, const std::string& flag) -> std::optional<std::string> {
    std::string a = args[i];
    if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
    if (i + 1 < args.size()) return args[++i];
    return std::nullopt;
  };
  auto isFlag = [&](const std::string& a, const std::string& flag) { return a == flag || a.rfind(flag + "=", 0) == 0; };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::optional<std::string> v;
    if (a == "--help" || a == "-h") {
      std::fputs(kRunHelp, stdout);
      return 0;
    } else if (a == "-f" || isFlag(a, "--function")) {
      if (!(v = value(i, a == "-f" ? "-f" : "--function"))) return usage("-f needs a function name");
      func = *v;
    } else if (isFlag(a, "--input")) {
      if (!(v = value(i, "--input"))) return usage("--input needs NAME=INPUT");
      inputSpecs.push_back(*v);
    } else if (isFlag(a, "--pipeline")) {
      if (!(v = value(i, "--pipeline"))) return usage("--pipeline needs a name");
      pipeline = *v;
    } else if (isFlag(a, "--output-dir")) {
      if (!(v = value(i, "--output-dir"))) return usage("--output-dir needs a directory");
      outputDir = *v;
    } else if (isFlag(a, "--time") || isFlag(a, "--sym-default") || isFlag(a, "--seed")) {
      std::string flag = a.substr(0, a.find('='));
      if (!(v = value(i, flag)) || v->empty() || v->find_first_not_of("0123456789") != std::string::npos) return usage(flag + " needs a non-negative integer");
      long long n = std::atoll(v->c_str());
      if (flag == "--time") timeRuns = int(std::min(n, 1000000LL));
      else if (flag == "--sym-default") symDefault = n;
      else seed = uint32_t(n);
    } else if (isFlag(a, "--expect")) {
      if (!(v = value(i, "--expect"))) return usage("--expect needs a .npy file");
      expected.push_back(*v);
    } else if (isFlag(a, "--tolerance")) {
      char* end = nullptr;
      if (!(v = value(i, "--tolerance")) || (tolerance = std::strtod(v->c_str(), &end), end == v->c_str() || *end) || !(tolerance >= 0))
        return usage("--tolerance needs a non-negative number");
    } else if (a == "--profile") {
      options.profile = true;
    } else if (a == "--interpret") {
      options.interpretKernels = true;
    } else if (isFlag(a, "--emit")) {
      if (!(v = value(i, "--emit")) || (*v != "lowered" && *v != "bytecode" && *v != "llvm" && *v != "asm"))
        return usage("--emit takes lowered, bytecode, llvm or asm");
      emit = *v;
    } else if (a == "-k" || isFlag(a, "--kernel")) {
      if (!(v = value(i, a == "-k" ? "-k" : "--kernel"))) return usage("--kernel needs a kernel name");
      kernel = *v;
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      return usage("unknown option '" + a + "'");
    } else if (file.empty() && a.find('=') == std::string::npos) {
      file = a;
    } else if (a.find('=') != std::string::npos) {
      inputSpecs.push_back(a);
    } else {
      return usage("more than one input file");
    }
  }
  if (file.empty()) return usage("missing input file");

  DiagnosticEngine diag;
  auto mod = onnx::isOnnxPath(file) ? loadOnnxForRun(file, inputSpecs, diag) : loadModuleFile(file, diag);
  if (!mod) {
    std::fputs(diag.render(color).c_str(), stderr);
    return 1;
  }
  for (auto& e : verifyModule(mod)) diag.error(e);
  if (diag.hasErrors()) {
    std::fputs(diag.render(color).c_str(), stderr);
    return 1;
  }
  auto fn = mod->lookup(func).as<Function>();
  if (!fn) {
    std::vector<std::string> names;
    for (auto& e : mod->functions)
      if (e.func.as<Function>()) names.push_back(e.gvar->name);
    std::string hint = closestName(func, names);
    return fail(Error(file + " has no Relax function named '" + func + "'", {}, hint.empty() ? "" : "did you mean '" + hint + "'?"), color);
  }

  // Inputs: the given ones in parameter order first (they bind symbolic dims), then defaults.
  InputContext ctx;
  ctx.seed = seed;
  std::vector<std::optional<vm::Value>> inputs(fn->params.size());
  for (auto& spec : inputSpecs) {
    std::string name = spec.substr(0, spec.find('='));
    auto it = std::find_if(fn->params.begin(), fn->params.end(), [&](const VarRef& p) { return p->name == name; });
    if (it == fn->params.end()) {
      std::vector<std::string> names;
      for (auto& p : fn->params) names.push_back(p->name);
      std::string hint = closestName(name, names);
      return fail(Error(func + " has no parameter named '" + name + "'", {}, hint.empty() ? "" : "did you mean '" + hint + "'?"), color);
    }
    size_t k = size_t(it - fn->params.begin());
    if (inputs[k]) return usage("two inputs for " + name);
    auto v = parseInput(spec.substr(spec.find('=') + 1), *it, ctx);
    if (!v.ok()) return fail(v.error(), color);
    inputs[k] = *v;
  }
  std::vector<vm::Value> callArgs;
  for (size_t k = 0; k < fn->params.size(); ++k) {
    if (!inputs[k]) {
      std::string note;
      auto v = defaultInput(fn->params[k], ctx, symDefault, note);
      if (!v.ok()) return fail(v.error(), color);
      if (emit.empty()) std::fprintf(stderr, "note: no input for %s; using %s\n", fn->params[k]->name.c_str(), note.c_str());
      inputs[k] = *v;
    }
    callArgs.push_back(*inputs[k]);
  }

  auto prepared = prepareModule(mod, pipeline, {}, options, /*consume=*/true);
  if (!prepared.ok()) return fail(prepared.error(), color);
  // The lowered copy is what runs: the module as loaded goes, and with it the weights the build
  // replaced (PackMatmulWeights' panels), which would otherwise stay resident twice.
  fn = Ref<Function>();
  mod = IRModuleRef();
  if (emit == "lowered") {
    std::fputs(printModule(prepared->lowered).c_str(), stdout);
    return 0;
  }
  if (emit == "bytecode") {
    std::fputs(prepared->exec->asText().c_str(), stdout);
    return 0;
  }
  if (emit == "llvm" || emit == "asm") {
    auto text = kernelCode(*prepared->lowered, kernel, emit == "asm");
    if (!text.ok()) return fail(text.error(), color);
    std::fputs(text->c_str(), stdout);
    return 0;
  }
  auto started = std::chrono::steady_clock::now();
  auto result = prepared->machine->invoke(func, callArgs);
  double profiledMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (!result.ok()) return fail(result.error(), color);

  if (outputDir.empty() && expected.empty()) {
    std::printf("%s\n", formatValue(*result).c_str());
  } else if (!outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(outputDir, ec);
    std::vector<std::string> written;
    auto st = writeOutputs(*result, outputDir, func, written);
    if (!st.ok()) return fail(st.error(), color);
    for (auto& w : written) std::printf("wrote %s\n", w.c_str());
  }
  if (!expected.empty()) {
    auto st = checkExpected(*result, expected, tolerance);
    if (!st.ok()) return fail(st.error(), color);
  }
  if (timeRuns > 0) {
    prepared->machine->resetProfile();  // the profile covers the timed runs, not the first one
    std::vector<double> ms;
    for (int r = 0; r < timeRuns; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      auto again = prepared->machine->invoke(func, callArgs);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (!again.ok()) return fail(again.error(), color);
    }
    std::sort(ms.begin(), ms.end());
    std::fprintf(stderr, "time: median %.4f ms, min %.4f ms over %d runs\n", ms[ms.size() / 2], ms[0], timeRuns);
    profiledMs = 0;
    for (double m : ms) profiledMs += m;
  }
  if (options.profile)
    std::fputs(formatProfile(prepared->machine->profile(), std::max(timeRuns, 1), profiledMs, kernelFacts(*prepared->lowered)).c_str(), stderr);
  return 0;
}

}  // namespace rlx::tools
