// sgemm/conv benchmark: kernels LegalizeOps (+FuseOps/FuseTIR for epilogues) makes for R.matmul and
// R.nn.conv2d, JIT-compiled by runtime/llvm, in GFLOP/s and as a ratio to numpy measured in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "parser/parser.h"
#include "passes/registry.h"
#include "runtime/jit.h"

using namespace rlx;

namespace {

// One workload: a Relax main over float32 params, its numpy equivalent over arrays of the same names
// and shapes, and its multiply-add count.
struct Workload {
  std::string name;
  std::vector<std::pair<std::string, std::vector<int64_t>>> params;
  std::string body;   // Relax dataflow bindings ending in `gv = ...`
  std::string numpy;  // a numpy expression over the params
  double flops;
};

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

// Best of `reps` wall times of the numpy expression in seconds run by `python`, or a negative value
// when it has no numpy.
double numpySeconds(const std::string& python, const Workload& w, int reps) {
  std::string setup;
  for (auto& [name, shape] : w.params) setup += name + " = np.random.rand" + shapeText(shape) + ".astype(np.float32)\n";
  // OpenBLAS picks its own kernel: a machine-wide OPENBLAS_CORETYPE pin (kept for old OpenBLAS
  // builds) would halve numpy's GEMM on a current one.
  std::string cmd = "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE " + python + " -c \"import numpy as np, time\n" + setup + "f = lambda: " + w.numpy + "\nf()\nts = []\nfor _ in range(" + std::to_string(reps) +
                    "):\n    t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)\nprint(min(ts))\" 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  double s = -1;
  if (std::fscanf(p, "%lf", &s) != 1) s = -1;
  pclose(p);
  return s;
}

// numpy has no conv2d: the same im2col + GEMM a framework on numpy would run.
std::string numpyConv(int64_t k, int64_t stride, int64_t pad) {
  return "(lambda xp: (lambda cols: np.maximum(np.einsum('ok,kn->on', w.reshape(w.shape[0], -1), cols, optimize=True).reshape(1, w.shape[0], *[(x.shape[2] + 2 * " +
         std::to_string(pad) + " - " + std::to_string(k) + ") // " + std::to_string(stride) + " + 1] * 2) + bias.reshape(1, -1, 1, 1), 0))(np.lib.stride_tricks.sliding_window_view(xp, (" +
         std::to_string(k) + ", " + std::to_string(k) + "), axis=(2, 3))[:, :, ::" + std::to_string(stride) + ", ::" + std::to_string(stride) +
         "].transpose(1, 4, 5, 0, 2, 3).reshape(x.shape[1] * " + std::to_string(k * k) + ", -1)))(np.pad(x, ((0, 0), (0, 0), (" + std::to_string(pad) + ", " +
         std::to_string(pad) + "), (" + std::to_string(pad) + ", " + std::to_string(pad) + "))))";
}

std::vector<Workload> workloads(int64_t n) {
  std::vector<Workload> w;
  double nn = double(n);
  w.push_back({"matmul " + std::to_string(n) + "^3", {{"a", {n, n}}, {"b", {n, n}}}, "gv = R.matmul(a, b)", "a @ b", 2 * nn * nn * nn});
  // Model shapes: Linear layers with weights stored (in, out) as the GPT-2 corpus holds them, so the
  // kernel is x @ wt + bias (+ activation); one x @ W.T shows what a separate transpose kernel costs.
  struct Lin {
    int64_t m, k, n;
    std::string act;
  };
  for (Lin l : {Lin{1, 784, 512, "relu"}, Lin{64, 784, 512, "relu"}, Lin{128, 768, 2304, ""}, Lin{128, 768, 3072, "gelu_tanh"}, Lin{128, 3072, 768, ""}, Lin{128, 768, 768, "W.T"}}) {
    std::string name = "linear " + std::to_string(l.m) + "x" + std::to_string(l.k) + "x" + std::to_string(l.n) + (l.act.empty() ? " +bias" : " +bias+" + l.act);
    std::string body = "mm = R.matmul(x, wt)\n            gv = R.add(mm, bias)", np = "x @ wt + bias";
    std::vector<int64_t> wshape = {l.k, l.n};
    if (l.act == "relu") body = "mm = R.matmul(x, wt)\n            ad = R.add(mm, bias)\n            gv = R.nn.relu(ad)", np = "np.maximum(x @ wt + bias, 0)";
    if (l.act == "gelu_tanh")
      body = "mm = R.matmul(x, wt)\n            ad = R.add(mm, bias)\n            gv = R.nn.gelu_tanh(ad)",
      np = "(lambda y: 0.5 * y * (1 + np.tanh(0.7978845608 * (y + 0.044715 * y * y * y))))(x @ wt + bias)";
    if (l.act == "W.T") body = "w = R.permute_dims(wt)\n            mm = R.matmul(x, w)\n            gv = R.add(mm, bias)", np = "x @ wt.T + bias", wshape = {l.n, l.k};
    w.push_back({name, {{"x", {l.m, l.k}}, {"wt", wshape}, {"bias", {l.n}}}, body, np, 2.0 * double(l.m) * double(l.k) * double(l.n)});
  }
  // A ResNet basic block's 3x3 convolutions (NCHW, 64 channels, 56x56) with bias and relu.
  for (int64_t stride : {1, 2}) {
    int64_t out = (56 + 2 - 3) / stride + 1;
    std::string body = "cv = R.nn.conv2d(x, w, strides=[" + std::to_string(stride) + ", " + std::to_string(stride) +
                       "], padding=[1, 1, 1, 1])\n            bb = R.reshape(bias, R.shape([1, 64, 1, 1]))\n            ad = R.add(cv, bb)\n            gv = R.nn.relu(ad)";
    w.push_back({"conv3x3 s" + std::to_string(stride) + " 64x56x56 +bias+relu", {{"x", {1, 64, 56, 56}}, {"w", {64, 64, 3, 3}}, {"bias", {64}}}, body, numpyConv(3, stride, 1),
                 2.0 * 64 * 64 * 9 * double(out * out)});
  }
  return w;
}

// The module's main as Relax text.
std::string relaxText(const Workload& w) {
  std::string params;
  for (auto& [name, shape] : w.params) params += (params.empty() ? "" : ", ") + name + ": R.Tensor(" + shapeText(shape) + ", \"float32\")";
  return "@I.ir_module\nclass Module:\n    @R.function\n    def main(" + params + "):\n        with R.dataflow():\n            " + w.body +
         "\n            R.output(gv)\n        return gv\n";
}

// Runs one workload: the best of `reps` runs of all its kernels (in order), next to numpy's.
int run(const Workload& w, int reps) {
  DiagnosticEngine diag;
  auto mod = parseModule(relaxText(w), "sgemm.relax", diag);
  auto passes = parsePipeline("LegalizeOps,AnnotateTIROpPattern,FuseOps,FuseTIR");
  if (!mod || !passes.ok()) return std::fprintf(stderr, "%s: cannot build the module\n%s", w.name.c_str(), diag.render().c_str()), 1;
  auto lowered = runSequential(passes.value(), mod, PassContext());
  if (!lowered.ok()) return std::fprintf(stderr, "%s: %s\n", w.name.c_str(), lowered.error().message.c_str()), 1;
  std::vector<PrimFuncRef> kernels;
  for (auto& e : lowered.value()->functions)
    if (auto f = e.func.as<PrimFunc>()) kernels.push_back(f);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<const CompiledKernel*> compiled;
  std::vector<std::vector<TirArg>> args;
  std::mt19937 rng(1);
  for (auto& k : kernels) {
    auto c = compileKernel(k, "bench");
    if (!c.ok()) return std::fprintf(stderr, "%s: compileKernel: %s\n", w.name.c_str(), c.error().message.c_str()), 1;
    compiled.push_back(*c);
    std::vector<TirArg> a;
    for (auto& [param, buf] : k->bufferMap) {
      std::vector<int64_t> shape;
      for (auto& d : buf->shape) shape.push_back(asIntImm(d) ? asIntImm(d)->value : 1);
      auto arr = make<NDArray>(buf->dtype, shape);
      for (int64_t i = 0; i < arr->numel(); ++i) arr->setDouble(i, std::uniform_real_distribution<double>(0, 1)(rng));
      a.push_back(arr);
    }
    args.push_back(std::move(a));
  }
  double compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  double best = 1e30;
  std::vector<double> each(kernels.size(), 1e30);  // per kernel, to see what an epilogue or transpose costs
  for (int r = 0; r <= reps; ++r) {  // the first run warms up
    auto s = std::chrono::steady_clock::now();
    for (size_t k = 0; k < kernels.size(); ++k) {
      auto ks = std::chrono::steady_clock::now();
      if (auto st = runKernel(*compiled[k], *kernels[k], args[k]); !st.ok()) return std::fprintf(stderr, "%s: runKernel: %s\n", w.name.c_str(), st.error().message.c_str()), 1;
      if (r > 0) each[k] = std::min(each[k], std::chrono::duration<double>(std::chrono::steady_clock::now() - ks).count());
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
    if (r > 0 && secs < best) best = secs;
  }
  std::printf("%-36s %zu kernel(s): rlx %7.2f GFLOP/s (%8.3f ms, compile %4.0f ms)", w.name.c_str(), kernels.size(), w.flops / best * 1e-9, best * 1e3, compileMs);
  // Debian's python3-numpy belongs to /usr/bin/python3, which a pyenv python3 on PATH may hide.
  double np = numpySeconds("/usr/bin/python3", w, reps);
  if (np < 0) np = numpySeconds("python3", w, reps);
  if (np > 0) std::printf(", numpy %7.2f GFLOP/s (%8.3f ms), rlx/numpy = %.3f\n", w.flops / np * 1e-9, np * 1e3, np / best);
  else std::printf(", numpy not available (apt-get install python3-numpy)\n");
  if (kernels.size() > 1)
    for (size_t k = 0; k < kernels.size(); ++k) {
      std::string name;
      for (auto& e : lowered.value()->functions)
        if (e.func.get() == kernels[k].get()) name = e.gvar->name;
      std::printf("    %-32s %8.3f ms\n", name.c_str(), each[k] * 1e3);
    }
  std::fflush(stdout);
  return 0;
}

}  // namespace

// rlx_bench_sgemm [n] [filter]: n for the square matmul (1024), filter a substring of workload names.
int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 1024;
  std::string filter = argc > 2 ? argv[2] : "";
  int failed = 0;
  for (auto& w : workloads(n))
    if (w.name.find(filter) != std::string::npos) failed += run(w, 10);
  return failed ? 1 : 0;
}
