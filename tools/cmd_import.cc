// `rlx import MODEL.onnx | FILE.relay`: a model file or Relay text into a Relax module, printed or
// written atomically with its weights in the safetensors sidecar; `--detach-params` writes the kept
// parameters on their own.
#include <cstdio>

#include "frontend/detach_params.h"
#include "frontend/onnx/onnx.h"
#include "frontend/relay/relay.h"
#include "ir/safetensors.h"
#include "ir/verifier.h"
#include "printer/module_file.h"
#include "printer/printer.h"
#include "runtime/npy.h"
#include "tools/commands.h"

namespace rlx::tools {

namespace {

const char* kHelp = R"(usage: rlx import FILE.onnx [-o OUT.relax] [options]
       rlx import FILE.relay [-o OUT.relax] [--meta TABLE.json]

Imports an ONNX model as TVM's relax.frontend.onnx.from_onnx does (function main, one dataflow
block, num_input), or a Relay v0.0.5 text file (def @f -> module functions, an expression -> main
over its free variables), prints it, or writes OUT.relax with tensors over 16 elements in
OUT.safetensors.

options:
  -o OUT.relax              write the module (atomically) instead of printing it
  --meta TABLE.json         Relay: meta[...] entries beyond the file's #[metadata] section (TVM's
                            init_meta_table, saved with tvm.ir.save_json)
  --keep-params-in-input    initializers become parameters of main after the inputs ("params" attr)
  --detach-params P.safetensors   with --keep-params-in-input: write the parameters to P (keyed
                            main.0, main.1, ... by position) and drop the "params" attr
  --opset N                 convert with opset N's operator versions instead of the model's
  --shape NAME=1,3,224,224  override an input's shape (repeatable)
  --dtype NAME=float16      override an input's dtype (repeatable)
  --no-sanitize-names       keep input names as written (else '.' and other characters -> '_')
  --bind NAME=FILE.npy      fix input NAME to that value: it becomes a constant (how a model whose
                            shapes, axes or pads arrive as inputs is specialized; repeatable)
)";

int usage(const std::string& msg) {
  std::fprintf(stderr, "rlx import: %s (see `rlx import --help`)\n", msg.c_str());
  return 2;
}

bool parseDims(const std::string& text, std::vector<int64_t>& out) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    try {
      size_t used = 0;
      long long v = std::stoll(item, &used);
      if (used != item.size() || v < 0) return false;
      out.push_back(v);
    } catch (const std::exception&) {
      return false;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

}  // namespace

void printModelToStdout(const IRModuleRef& mod) {
  size_t omitted = 0;
  std::fputs(printModuleOmittingMetadata(mod, &omitted).c_str(), stdout);
  if (omitted) std::fprintf(stderr, "note: %zu constants are shown as metadata[...]; -o OUT.relax writes them to OUT.safetensors\n", omitted);
}

int runImport(const std::vector<std::string>& args, bool color) {
  auto report = [&](const Error& e) {
    DiagnosticEngine diag;
    diag.error(e);
    std::fputs(diag.render(color).c_str(), stderr);
    return 1;
  };
  onnx::ImportOptions opts;
  std::string input, output, paramsOut, metaPath;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* what) -> const std::string* {
      if (i + 1 >= args.size()) return nullptr;
      (void)what;
      return &args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    } else if (a == "-o") {
      auto v = value("-o");
      if (!v) return usage("-o needs a file name");
      output = *v;
    } else if (a == "--meta") {
      auto v = value("--meta");
      if (!v) return usage("--meta needs a file name");
      metaPath = *v;
    } else if (a == "--keep-params-in-input") {
      opts.keepParamsInInput = true;
    } else if (a == "--no-sanitize-names") {
      opts.sanitizeInputNames = false;
    } else if (a == "--detach-params") {
      auto v = value("--detach-params");
      if (!v) return usage("--detach-params needs a file name");
      paramsOut = *v;
    } else if (a == "--opset") {
      auto v = value("--opset");
      int n = 0;
      try {
        n = v ? std::stoi(*v) : 0;
      } catch (const std::exception&) {
      }
      if (n <= 0) return usage("--opset needs a positive number");
      opts.opset = n;
    } else if (a == "--shape" || a == "--dtype") {
      auto v = value(a.c_str());
      size_t eq = v ? v->find('=') : std::string::npos;
      if (eq == std::string::npos || eq == 0) return usage(a + " needs NAME=VALUE");
      std::string name = v->substr(0, eq), val = v->substr(eq + 1);
      if (a == "--dtype") {
        if (!DataType::parse(val)) return usage("--dtype: '" + val + "' is not a dtype");
        opts.dtypeDict[name] = val;
      } else {
        std::vector<int64_t> dims;
        if (!parseDims(val, dims)) return usage("--shape: '" + val + "' is not a comma-separated list of dims");
        opts.shapeDict[name] = dims;
      }
    } else if (a == "--bind") {
      auto v = value("--bind");
      size_t eq = v ? v->find('=') : std::string::npos;
      if (eq == std::string::npos || eq == 0) return usage("--bind needs NAME=FILE.npy");
      auto arr = readNpy(v->substr(eq + 1));
      if (!arr) return report(arr.error());
      opts.inputValues[v->substr(0, eq)] = *arr;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else if (input.empty()) {
      input = a;
    } else {
      return usage("more than one input file");
    }
  }
  if (input.empty()) return usage("missing input file");
  if (!paramsOut.empty() && !opts.keepParamsInInput) return usage("--detach-params needs --keep-params-in-input");
  bool relayInput = relay::isRelayPath(input);
  if (!metaPath.empty() && !relayInput) return usage("--meta applies to Relay files (.relay)");
  std::vector<std::string> needed;
  opts.neededInputs = &needed;
  auto mod = relayInput ? relay::fromRelayFile(input, metaPath) : onnx::fromOnnxFile(input, opts);
  if (!mod) {
    Error e = mod.error();
    std::string names;
    for (auto& n : needed) names += (names.empty() ? "" : ", ") + n;
    if (!names.empty() && e.hint.empty()) e.hint = "the import needs the value of " + names + ": give it with --bind NAME=FILE.npy";
    return report(e);
  }
  for (auto& e : verifyModule(*mod)) return report(Error("rlx import produced an ill-formed module (a bug): " + e.message));
  IRModuleRef result = *mod;
  if (!paramsOut.empty()) {
    auto detached = detachParams(result);
    if (!detached) return report(detached.error());
    std::vector<safetensors::Entry> entries;
    for (auto& [func, arrays] : detached->second)
      for (size_t k = 0; k < arrays.size(); ++k) entries.push_back({func + "." + std::to_string(k), arrays[k]});
    auto st = safetensors::write(paramsOut, entries);
    if (!st) return report(st.error());
    result = detached->first;
  }
  if (output.empty()) {
    // As TVM's script(): a model's weights as text would be gigabytes; -o writes them to the
    // .safetensors sidecar.
    printModelToStdout(result);
    return 0;
  }
  auto st = writeModuleFile(result, output);
  if (!st) return report(st.error());
  return 0;
}

}  // namespace rlx::tools
