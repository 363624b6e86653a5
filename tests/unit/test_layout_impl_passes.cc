// AlterOpImpl and SplitLayoutRewritePreproc keep what functions compute: every golden of theirs
// that rewrites runs before and after its RUN pipeline on the reference evaluator (the TIR
// interpreter for kernels; the VM cannot lower R.layout_transform yet), on random inputs. The
// goldens made from TVM's tests give results structurally equal to TVM's Expected modules
// (tvm_expected/ beside them).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/structural_equal.h"
#include "parser/parser.h"
#include "passes/registry.h"
#include "vm_test_util.h"

using namespace rlx;

namespace {

struct Golden {
  std::string pipeline;
  IRModuleRef mod;
};

// The input module and the RUN pipeline of a golden file; relative file names in the pipeline
// (impl/kernels.relax) are made absolute, as `rlx test` runs in the golden's folder.
Golden readGolden(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text = text.substr(0, text.find("# ---- expected output"));
  const std::string run = "# RUN: opt -p ";
  Golden g;
  g.pipeline = text.substr(run.size(), text.find('\n') - run.size());
  for (size_t at = g.pipeline.find("\"impl/"); at != std::string::npos; at = g.pipeline.find("\"impl/", at + 1))
    g.pipeline.insert(at + 1, path.parent_path().string() + "/");
  DiagnosticEngine diag;
  g.mod = parseModule(text, path.string(), diag);
  return g;
}

}  // namespace

TEST_CASE("passes: AlterOpImpl and SplitLayoutRewritePreproc keep what their goldens compute", "[passes][numerics]") {
  int compared = 0, matchedTvm = 0;
  for (const char* dir : {"alter_op_impl", "split_layout_rewrite_preproc"}) {
    std::vector<std::filesystem::path> files;
    for (auto& e : std::filesystem::directory_iterator(std::string(RLX_SOURCE_DIR) + "/tests/golden/passes/" + dir))
      if (e.path().extension() == ".relax" && e.path().filename().string().rfind("error_", 0) != 0) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (auto& file : files) {
      INFO(file.string());
      Golden g = readGolden(file);
      REQUIRE(g.mod);
      auto passes = parsePipeline(g.pipeline);
      REQUIRE(passes.ok());
      auto out = runSequential(passes.value(), g.mod, PassContext());
      REQUIRE(out.ok());
      auto tvm = file.parent_path() / "tvm_expected" / file.filename();
      if (std::filesystem::exists(tvm)) {
        DiagnosticEngine diag;
        IRModuleRef expected = parseFile(tvm.string(), diag);
        REQUIRE(expected);
        auto eq = structuralEqual(out.value(), expected);
        INFO("differs from TVM's Expected at " << eq.path << ": " << eq.lhs << " vs " << eq.rhs);
        CHECK(eq.equal);
        ++matchedTvm;
      }
      for (auto& e : g.mod->functions) {
        auto f = e.func.as<Function>();
        if (!f || !out.value()->lookup(e.gvar->name)) continue;
        INFO(e.gvar->name);
        std::map<std::string, int64_t> syms;
        for (auto& p : f->params)
          if (auto t = sinfoOf(p).as<TensorSInfo>(); t && t->dims())
            for (auto& d : *t->dims())
              if (auto v = d.as<PrimVar>()) syms[v->name] = 3;
        auto inputs = testing::randomInputs(*f, syms, 7);
        auto before = evaluateFunction(*g.mod, e.gvar->name, inputs);
        auto after = evaluateFunction(*out.value(), e.gvar->name, inputs);
        INFO((before.ok() ? "" : before.error().message) << (after.ok() ? "" : after.error().message));
        REQUIRE(before.ok());
        REQUIRE(after.ok());
        CHECK(testing::compareValues(after.value(), before.value(), 1e-6) == "");
        ++compared;
      }
    }
  }
  CHECK(compared >= 10);
  CHECK(matchedTvm == 9);
}
