// Pass infrastructure tests: Sequential's opt-level / required / disabled rules, instruments,
// pipeline-text errors, and unified diffs with hand-checked hunks.
#include <catch2/catch.hpp>

#include <set>

#include "ir/expr_walk.h"
#include "ir/structural_equal.h"
#include "parser/parser.h"
#include "passes/pass_help.h"
#include "passes/registry.h"
#include "printer/printer.h"
#include "printer/diff.h"

using namespace rlx;

namespace {
struct Recorder : PassInstrument {
  std::vector<std::string> ran;
  void beforePass(const PassInfo& info, const IRModuleRef&) override { ran.push_back(info.name); }
};
Pass named(const std::string& name, int level) {
  return Pass({name, level, {}}, [](const IRModuleRef& m, const PassContext&) -> Result<IRModuleRef> { return m; });
}
}  // namespace

TEST_CASE("passes: Sequential skips passes above the opt level unless required; disabled wins", "[passes]") {
  auto mod = make<IRModule>();
  auto rec = std::make_shared<Recorder>();
  PassContext ctx;
  ctx.optLevel = 1;
  ctx.instruments.push_back(rec);
  ctx.requiredPass = {"C"};
  ctx.disabledPass = {"D"};
  auto r = runSequential({named("A", 0), named("B", 2), named("C", 3), named("D", 0)}, mod, ctx);
  REQUIRE(r.ok());
  CHECK(rec->ran == std::vector<std::string>{"A", "C"});
}

TEST_CASE("passes: pipeline text errors name the problem", "[passes]") {
  auto bad = parsePipeline("DeadCodeElimnation");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message == "unknown pass 'DeadCodeElimnation'");
  CHECK(bad.error().hint == "did you mean 'DeadCodeElimination'?");
  auto opt = parsePipeline("RemoveUnusedFunctions(entry=[\"main\"])");
  REQUIRE(!opt.ok());
  CHECK(opt.error().message.find("has no option 'entry'") != std::string::npos);
  auto ok = parsePipeline("DeadCodeElimination(entry_functions=[\"main\", \"f\"]), AttachGlobalSymbol");
  REQUIRE(ok.ok());
  CHECK(ok.value().size() == 2);
}

TEST_CASE("diff: unified hunks with context and line numbers", "[passes]") {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n";
  std::string d = unifiedDiff(a, b, "a", "b", 2);
  CHECK(d == "--- a\n+++ b\n@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n@@ -9,2 +9,3 @@\n 9\n 10\n+11\n");
  CHECK(unifiedDiff(a, a, "a", "b").empty());
}

#include "repl/session.h"

TEST_CASE("repl: completion of commands, passes and file names", "[repl]") {
  repl::Session s([](const std::string&) {});
  CHECK(s.complete(":hi") == std::vector<std::string>{":history"});
  CHECK(s.complete("DeadCode") == std::vector<std::string>{"DeadCodeElimination"});
  CHECK(s.complete("ToNonDataflow,Remove") == std::vector<std::string>{"RemovePurityChecking", "RemoveRedundantReshape", "RemoveUnusedFunctions", "RemoveUnusedOutputs", "RemoveUnusedParameters"});
  auto files = s.complete(std::string(":load ") + RLX_SOURCE_DIR + "/tests/corpus/01_m");
  REQUIRE(files.size() == 1);
  CHECK(files[0] == std::string(RLX_SOURCE_DIR) + "/tests/corpus/01_mlp.relax");
  // Options of the pass whose parentheses the cursor is in; :set's settings; presets.
  CHECK(s.complete("DeadCodeElimination(") == std::vector<std::string>{"entry_functions="});
  CHECK(s.complete("FoldConstant,EtaExpand(expand_c") == std::vector<std::string>{"expand_constructor="});
  CHECK(s.complete("BindParams(func_name=\"main\", p") == std::vector<std::string>{"params="});
  CHECK(s.complete("DeadCodeElimination(entry_functions=[\"main\"]),O") == std::vector<std::string>{"OptimizeLayoutTransform", "O0", "O1", "O2", "O3"});
  CHECK(s.complete(":set sc") == std::vector<std::string>{"scope"});
}

TEST_CASE("passes: option names come from passes.def; unknown options get suggestions", "[passes]") {
  CHECK(passOptionNames(*findPass("EtaExpand")) == std::vector<std::string>{"expand_global_var", "expand_constructor"});
  CHECK(passOptionNames(*findPass("BindParams")) == std::vector<std::string>{"func_name", "params"});
  CHECK(passOptionNames(*findPass("FoldConstant")).empty());
  auto typo = parsePipeline("DeadCodeElimination(entry_function=[\"main\"])");
  REQUIRE(!typo.ok());
  CHECK(typo.error().hint == "did you mean 'entry_functions'?");
  auto none = parsePipeline("FoldConstant(x=1)");
  REQUIRE(!none.ok());
  CHECK(none.error().hint == "FoldConstant takes no options");
  auto o2 = parsePipeline("O2");
  REQUIRE(o2.ok());
  CHECK(o2.value().size() == 7);
  CHECK(o2.value().front().info().name == "SimplifyInference");
}

TEST_CASE("passes: options are Python literals, dicts included; a wrong type names the expected one", "[passes]") {
  auto ok = parsePipeline("DeadCodeElimination(entry_functions=(\"main\", \"f\"))");
  REQUIRE(ok.ok());
  auto wrong = parsePipeline("EliminateCommonSubexpr(call_only=\"yes\")");
  REQUIRE(!wrong.ok());
  CHECK(wrong.error().message == "option 'call_only' of EliminateCommonSubexpr expects a boolean (True or False), got \"yes\"");
  auto list = parsePipeline("DeadCodeElimination(entry_functions=[\"main\", 3])");
  REQUIRE(!list.ok());
  CHECK(list.error().message == "option 'entry_functions' of DeadCodeElimination expects a list of strings, got [\"main\", 3]");
  auto dict = parsePipeline("ConvertToDataflow(min_size={\"relax.nn.conv2d\": [\"NHWC\", \"OHWI\"], \"a\": None})");
  REQUIRE(!dict.ok());
  CHECK(dict.error().message == "option 'min_size' of ConvertToDataflow expects an integer, got {\"a\": None, \"relax.nn.conv2d\": [\"NHWC\", \"OHWI\"]}");
  auto badKey = parsePipeline("ConvertToDataflow(min_size={1: 2})");
  REQUIRE(!badKey.ok());
  CHECK(badKey.error().message == "ConvertToDataflow(min_size=...): dict keys in pass options are strings");
  auto negative = parsePipeline("ConvertToDataflow(min_size=-1.5)");
  REQUIRE(!negative.ok());
  CHECK(negative.error().message.find("expects an integer, got -1.5") != std::string::npos);
}

TEST_CASE("passes: a second registry name runs the same implementation and is explained with it", "[passes]") {
  const PassEntry* normalize = findPass("Normalize");
  REQUIRE(normalize);
  CHECK(std::string(normalize->aliasOf) == "InferType");
  CHECK(passAliases("InferType") == std::vector<std::string>{"Normalize"});
  auto p = parsePipeline("Normalize");
  REQUIRE(p.ok());
  CHECK(p.value()[0].info().name == "InferType");
  auto help = explainPass("FastMathTransform", false);
  REQUIRE(help.ok());
  CHECK(help.value().find("also registered as: FastMath") != std::string::npos);
  CHECK(help.value().find("+++ after FastMath") != std::string::npos);
  CHECK(!explainPass("FoldConstnt", false).ok());
}

TEST_CASE("passes: every pass has a worked example for :help (BindParams needs a weights file)", "[passes]") {
  for (auto& e : passRegistry()) {
    INFO(e.name);
    if (e.aliasOf || std::string(e.name) == "BindParams") continue;
    CHECK(passExample(e.name) != nullptr);
  }
}

TEST_CASE("passes: the seed catalogue (tvm.relay.transform's passes) is registered, gaps named", "[passes]") {
  const char* seed[] = {"AlterOpLayout", "AnnotateTarget", "BackwardFoldScaleAxis", "CanonicalizeCast", "CanonicalizeOps", "ChangeBatch",
                        "CombineParallelConv2D", "CombineParallelDense", "ConvertLayout", "DeadCodeElimination", "EliminateCommonSubexpr",
                        "EtaExpand", "FastMath", "FoldConstant", "FoldScaleAxis", "ForwardFoldScaleAxis", "FuseOps", "InferType", "Inline",
                        "LambdaLift", "LazyGradientInit", "Legalize", "MergeCompilerRegions", "MergeComposite", "PartialEvaluate",
                        "PartitionGraph", "PrintIR", "RemoveUnusedFunctions", "RewriteAnnotatedOps", "SimplifyInference", "ToANormalForm",
                        "ToCPS", "ToGraphNormalForm", "gradient", "to_cps", "un_cps"};
  for (const char* name : seed) {
    INFO(name);
    CHECK(findPass(name) != nullptr);
  }
}

TEST_CASE("passes: ToANormalForm binds nested calls a pass left behind", "[passes]") {
  DiagnosticEngine diag;
  auto mod = parseModule(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        with R.dataflow():
            gv = R.add(x, y)
            R.output(gv)
        return R.exp(gv)
)", "m.relax", diag);
  REQUIRE(mod);
  // Nest R.multiply(x, y) into the add, as a pass building expressions by hand would.
  auto f = mod->functions[0].func.as<Function>();
  auto seq = f->body.as<SeqExpr>();
  auto& b = seq->blocks[0]->bindings[0];
  auto add = b->value.as<Call>();
  add->args[1] = makeCall("relax.multiply", {add->args[0], add->args[1]});
  add->args[1]->sinfo = add->sinfo;
  auto passes = parsePipeline("ToANormalForm");
  REQUIRE(passes.ok());
  auto out = runSequential(passes.value(), mod, PassContext());
  REQUIRE(out.ok());
  std::string text = printModule(out.value());
  CHECK(text.find("            lv: R.Tensor((2,), dtype=\"float32\") = R.multiply(x, y)\n"
                  "            gv: R.Tensor((2,), dtype=\"float32\") = R.add(x, lv)\n") != std::string::npos);
  // Normalized input comes back as the same object.
  auto again = runSequential(passes.value(), out.value(), PassContext());
  REQUIRE(again.ok());
  CHECK(again.value().same(out.value()));
}

TEST_CASE("passes: ConvChannelsLast permutes a consumed module's weights in their own memory", "[passes]") {
  // Two convolutions (channels last), each weight read once: with the input module consumed
  // (`rlx run`), the pass permutes them in place instead of FoldConstant's copies, to the same values
  // (the 1x1 weight's bytes stay as they are: only its unit dims move).
  auto weight = [](int64_t o, int64_t i, int64_t k, int seed) {
    std::string s = "R.const([";
    for (int64_t a = 0; a < o; ++a) {
      s += a ? ", [" : "[";
      for (int64_t b = 0; b < i; ++b) {
        s += b ? ", [" : "[";
        for (int64_t y = 0; y < k; ++y) {
          s += y ? ", [" : "[";
          for (int64_t x = 0; x < k; ++x) s += (x ? ", " : "") + std::to_string(double((a * 7 + b * 5 + y * 3 + x + seed) % 13) / 4 - 1.5);
          s += "]";
        }
        s += "]";
      }
      s += "]";
    }
    return s + "], \"float32\")";
  };
  std::string text = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 3, 6, 6), \"float32\")):\n        with R.dataflow():\n"
                     "            y = R.nn.conv2d(x, " + weight(4, 3, 3, 0) + ", padding=[1, 1, 1, 1])\n"
                     "            z = R.nn.conv2d(y, " + weight(5, 4, 1, 1) + ")\n"
                     "            R.output(z)\n        return z\n";
  auto pass = parsePipeline("ConvChannelsLast");
  REQUIRE(pass.ok());
  auto run = [&](bool consume, std::vector<const void*>* weights) {
    DiagnosticEngine diag;
    IRModuleRef mod = parseModule(text, "in.relax", diag);
    REQUIRE(mod);
    if (weights)
      walkExpr(mod->functions[0].func, [&](const Expr& e) {
        if (auto c = e.as<Constant>()) weights->push_back(c->data->data());
      });
    PassContext ctx;
    ctx.consumesInput = consume;
    auto out = runSequential(*pass, mod, ctx);
    REQUIRE(out.ok());
    return *out;
  };
  std::vector<const void*> original;
  IRModuleRef copied = run(false, nullptr), inPlace = run(true, &original);
  CHECK(structuralEqual(copied, inPlace).equal);
  std::vector<const void*> after;
  walkExpr(inPlace->functions[0].func, [&](const Expr& e) {
    if (auto c = e.as<Constant>(); c && c->data->shape.size() == 4) after.push_back(c->data->data());
  });
  REQUIRE(original.size() == 2);
  REQUIRE(after.size() == 2);
  CHECK(std::set<const void*>(original.begin(), original.end()) == std::set<const void*>(after.begin(), after.end()));
}
