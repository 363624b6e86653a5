// Benchmark: generates a deep transformer-like module (~100,000 bindings, symbolic sequence length)
// and reports parse, verify and print throughput (MB/s) and peak RSS. No peers: this is our own floor.
#include <malloc.h>
#include <sys/resource.h>

#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "parser/parser.h"
#include "parser/syntax.h"
#include "ir/verifier.h"
#include "printer/printer.h"

namespace {

// One block: layer_norm, qkv projection, split, heads, attention with a causal mask, MLP.
void appendLayer(std::string& s, int i, const std::string& in, std::string& out) {
  auto v = [&](const char* n) { return std::string(n) + std::to_string(i); };
  auto line = [&](const std::string& name, const std::string& ann, const std::string& rhs) {
    s += "            " + name + ": " + ann + " = " + rhs + "\n";
  };
  std::string t768 = "R.Tensor((1, n, 768), dtype=\"float32\")";
  std::string t2304 = "R.Tensor((1, n, 2304), dtype=\"float32\")";
  std::string heads = "R.Tensor((1, n, 12, 64), dtype=\"float32\")";
  std::string headsT = "R.Tensor((1, 12, n, 64), dtype=\"float32\")";
  std::string scores = "R.Tensor((1, 12, n, n), dtype=\"float32\")";
  line(v("ln"), t768, "R.nn.layer_norm(" + in + ", ln_w, ln_b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)");
  line(v("qkv"), t2304, "R.matmul(" + v("ln") + ", attn_wt, out_dtype=\"void\")");
  line(v("qkvb"), t2304, "R.add(" + v("qkv") + ", attn_b)");
  line(v("parts"), "R.Tuple(" + t768 + ", " + t768 + ", " + t768 + ")", "R.split(" + v("qkvb") + ", indices_or_sections=3, axis=2)");
  line(v("q"), t768, v("parts") + "[0]");
  line(v("k"), t768, v("parts") + "[1]");
  line(v("vv"), t768, v("parts") + "[2]");
  line(v("qh"), heads, "R.reshape(" + v("q") + ", R.shape([1, n, 12, 64]))");
  line(v("kh"), heads, "R.reshape(" + v("k") + ", R.shape([1, n, 12, 64]))");
  line(v("vh"), heads, "R.reshape(" + v("vv") + ", R.shape([1, n, 12, 64]))");
  line(v("qt"), headsT, "R.permute_dims(" + v("qh") + ", axes=[0, 2, 1, 3])");
  line(v("kt"), "R.Tensor((1, 12, 64, n), dtype=\"float32\")", "R.permute_dims(" + v("kh") + ", axes=[0, 2, 3, 1])");
  line(v("vt"), headsT, "R.permute_dims(" + v("vh") + ", axes=[0, 2, 1, 3])");
  line(v("sc"), scores, "R.matmul(" + v("qt") + ", " + v("kt") + ", out_dtype=\"void\")");
  line(v("scs"), scores, "R.multiply(" + v("sc") + ", R.const(0.125, \"float32\"))");
  line(v("msk"), scores, "R.where(future, R.const(-1000000000.0, \"float32\"), " + v("scs") + ")");
  line(v("pr"), scores, "R.nn.softmax(" + v("msk") + ", axis=-1)");
  line(v("cx"), headsT, "R.matmul(" + v("pr") + ", " + v("vt") + ", out_dtype=\"void\")");
  line(v("cxt"), heads, "R.permute_dims(" + v("cx") + ", axes=[0, 2, 1, 3])");
  line(v("cxm"), t768, "R.reshape(" + v("cxt") + ", R.shape([1, n, 768]))");
  line(v("ao"), t768, "R.matmul(" + v("cxm") + ", proj_wt, out_dtype=\"void\")");
  line(v("h"), t768, "R.add(" + in + ", " + v("ao") + ")");
  line(v("fc"), "R.Tensor((1, n, 3072), dtype=\"float32\")", "R.matmul(" + v("h") + ", fc_wt, out_dtype=\"void\")");
  line(v("act"), "R.Tensor((1, n, 3072), dtype=\"float32\")", "R.nn.gelu_tanh(" + v("fc") + ")");
  line(v("mlp"), t768, "R.matmul(" + v("act") + ", out_wt, out_dtype=\"void\")");
  out = v("out");
  line(out, t768, "R.add(" + v("h") + ", " + v("mlp") + ")");
}

std::string generate(int layers) {
  std::string s =
      "# from tvm.script import ir as I\n# from tvm.script import tir as T\n# from tvm.script import relax as R\n\n"
      "@I.ir_module\nclass Module:\n    @R.function\n"
      "    def main(x: R.Tensor((1, \"n\", 768), dtype=\"float32\"), future: R.Tensor((\"n\", \"n\"), dtype=\"bool\"), "
      "ln_w: R.Tensor((768,), dtype=\"float32\"), ln_b: R.Tensor((768,), dtype=\"float32\"), attn_wt: R.Tensor((768, 2304), dtype=\"float32\"), "
      "attn_b: R.Tensor((2304,), dtype=\"float32\"), proj_wt: R.Tensor((768, 768), dtype=\"float32\"), fc_wt: R.Tensor((768, 3072), dtype=\"float32\"), "
      "out_wt: R.Tensor((3072, 768), dtype=\"float32\")) -> R.Tensor((1, \"n\", 768), dtype=\"float32\"):\n"
      "        n = T.int64()\n        with R.dataflow():\n";
  std::string cur = "x";
  for (int i = 0; i < layers; ++i) appendLayer(s, i, cur, cur);
  s += "            gv: R.Tensor((1, n, 768), dtype=\"float32\") = R.add(" + cur + ", x)\n            R.output(gv)\n        return gv\n";
  return s;
}

// Resident memory now (MB), from /proc/self/statm.
double rssNowMb() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return double(resident) * 4096.0 / 1e6;
}

// CPU time of this process: stable on a shared, busy machine where wall time is not.
double cpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  int layers = argc > 1 ? std::atoi(argv[1]) : 4000;  // 25 bindings a layer: 100,000 bindings
  std::string text = generate(layers);
  double mb = double(text.size()) / 1e6;
  std::printf("module: %d layers, %d bindings, %.1f MB of text\n", layers, layers * 25 + 1, mb);
  // The syntax alone (PEGTL), to see how parse time splits between grammar and IR building. Read
  // the way parseModule reads it: dataflow bodies one statement at a time (finish() drains them).
  double ts = cpuNow();
  {
    rlx::ast::Arena arena;
    rlx::DiagnosticEngine d;
    uint32_t file = rlx::sources::add("bench-syntax.relax", text);
    rlx::syntax::DeferRule all{[](const rlx::ast::Stmt&) { return true; }, [](const rlx::ast::Stmt&) { return true; }};
    rlx::syntax::Reader reader(text, file, arena, 200, all);
    auto stmts = reader.parseTop();
    reader.finish(d);
    (void)stmts;
  }
  double tSyntax = cpuNow() - ts;
  double t0 = cpuNow();
  rlx::DiagnosticEngine diag;
  auto mod = rlx::parseModule(text, "bench.relax", diag);
  double tParse = cpuNow() - t0;
  if (!mod) {
    std::fputs(diag.render(false).c_str(), stderr);
    return 1;
  }
  std::fprintf(stderr, "rss after parse: %.0f MB, heap in use: %.0f MB\n", rssNowMb(), double(mallinfo2().uordblks) / 1e6);
  double tv0 = cpuNow();
  auto problems = rlx::verifyModule(mod);
  double tVerify = cpuNow() - tv0;
  if (!problems.empty()) std::fprintf(stderr, "verifier: %s\n", problems[0].message.c_str());
  double t1 = cpuNow();
  std::string out = rlx::printModule(mod);
  double tPrint = cpuNow() - t1;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rssMb = double(ru.ru_maxrss) / 1024.0;
  std::printf("parse (incl. normalize + struct-info inference): %.3f s  (%.1f MB/s)\n", tParse, mb / tParse);
  std::printf("  of which syntax tree alone (PEGTL):            %.3f s  (%.1f MB/s)\n", tSyntax, mb / tSyntax);
  std::printf("verify:                                         %.3f s  (%.1f MB/s)\n", tVerify, mb / tVerify);
  std::printf("print:                                          %.3f s  (%.1f MB/s)\n", tPrint, mb / tPrint);
  std::printf("total parse+verify+print (CPU):                            %.3f s\n", tParse + tVerify + tPrint);
  std::printf("round trip identical: %s\n", out == text ? "yes" : "NO");
  std::printf("peak RSS: %.0f MB (%.1fx the text size)\n", rssMb, rssMb / mb);
  return out == text ? 0 : 1;
}
