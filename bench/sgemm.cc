// sgemm benchmark: the kernel LegalizeOps makes for R.matmul (n x n x n, float32), JIT-compiled by
// runtime/llvm, in GFLOP/s and as a ratio to numpy's matmul (OpenBLAS) measured in the same run.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "parser/parser.h"
#include "passes/registry.h"
#include "runtime/llvm/jit.h"

using namespace rlx;

namespace {

// Best of `reps` wall times of numpy's a @ b in seconds run by `python`, or a negative value when it
// has no numpy.
double numpySeconds(const std::string& python, int64_t n, int reps) {
  std::string cmd = python + " -c \"import numpy as np, time\nn = " + std::to_string(n) +
                    "\na = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32); a @ b\nts = []\nfor _ in range(" +
                    std::to_string(reps) + "):\n    t = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t)\nprint(min(ts))\" 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  double s = -1;
  if (std::fscanf(p, "%lf", &s) != 1) s = -1;
  pclose(p);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 1024;
  int reps = 5;
  std::string dim = std::to_string(n);
  std::string text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(a: R.Tensor((" + dim + ", " + dim + "), \"float32\"), b: R.Tensor((" + dim + ", " + dim +
                     "), \"float32\")):\n        gv = R.matmul(a, b)\n        return gv\n";
  DiagnosticEngine diag;
  auto mod = parseModule(text, "sgemm.relax", diag);
  auto passes = parsePipeline("LegalizeOps");
  if (!mod || !passes.ok()) return std::fprintf(stderr, "cannot build the module\n"), 1;
  auto legal = runSequential(passes.value(), mod, PassContext());
  if (!legal.ok()) return std::fprintf(stderr, "LegalizeOps: %s\n", legal.error().message.c_str()), 1;
  PrimFuncRef kernel;
  for (auto& e : legal.value()->functions)
    if (auto f = e.func.as<PrimFunc>()) kernel = f;
  auto t0 = std::chrono::steady_clock::now();
  auto compiled = compileKernel(kernel, "sgemm");
  if (!compiled.ok()) return std::fprintf(stderr, "compileKernel: %s\n", compiled.error().message.c_str()), 1;
  double compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::mt19937 rng(1);
  auto a = make<NDArray>(DataType::float32(), std::vector<int64_t>{n, n}), b = make<NDArray>(DataType::float32(), std::vector<int64_t>{n, n});
  auto c = make<NDArray>(DataType::float32(), std::vector<int64_t>{n, n});
  for (int64_t i = 0; i < n * n; ++i) a->as<float>()[i] = std::uniform_real_distribution<float>(0, 1)(rng), b->as<float>()[i] = std::uniform_real_distribution<float>(0, 1)(rng);
  std::vector<TirArg> args = {a, b, c};
  double best = 1e30;
  for (int r = 0; r <= reps; ++r) {  // the first run warms up
    auto s = std::chrono::steady_clock::now();
    auto st = runKernel(**compiled, *kernel, args);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
    if (!st.ok()) return std::fprintf(stderr, "runKernel: %s\n", st.error().message.c_str()), 1;
    if (r > 0 && secs < best) best = secs;
  }
  double flops = 2.0 * double(n) * double(n) * double(n);
  std::printf("sgemm %lldx%lldx%lld: rlx %.2f GFLOP/s (%.2f ms, compile %.0f ms)", (long long)n, (long long)n, (long long)n, flops / best * 1e-9, best * 1e3, compileMs);
  // Debian's python3-numpy belongs to /usr/bin/python3, which a pyenv python3 on PATH may hide.
  double np = numpySeconds("/usr/bin/python3", n, reps);
  if (np < 0) np = numpySeconds("python3", n, reps);
  if (np > 0) std::printf(", numpy %.2f GFLOP/s (%.2f ms), rlx/numpy = %.3f\n", flops / np * 1e-9, np * 1e3, np / best);
  else std::printf(", numpy not available (apt-get install python3-numpy)\n");
  return 0;
}
