// FuseOps and FuseTIR keep the numbers: a module of legalized kernels, the same module after
// FuseOps (Primitive functions) and after FuseTIR (fused kernels) run through the TIR interpreter
// on the same random inputs and agree.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "ir/arith.h"
#include "ir/struct_info.h"
#include "ir/tir_eval.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/registry.h"

using namespace rlx;

namespace {

// A value of the small Relax subset the lowered modules use: a tensor, a tuple of values, or a
// shape (the tir_vars FuseOps passes).
struct Val {
  NDArrayRef tensor;
  std::vector<Val> fields;
  std::vector<PrimExpr> shape;
};

// Evaluates functions made of call_tir, calls of module functions, tuples and t[i] bindings.
class KernelRunner {
 public:
  explicit KernelRunner(const IRModule& mod) : mod_(mod) {}

  Val call(const Function& f, const std::vector<Val>& args) {
    std::unordered_map<const Var*, Val> env;
    PrimVarMap shapes;
    for (size_t i = 0; i < f.params.size(); ++i) {
      env[f.params[i].get()] = args[i];
      if (args[i].tensor) {
        std::vector<PrimExpr> dims;
        for (int64_t d : args[i].tensor->shape) dims.push_back(intImm(d));
        REQUIRE(sinfoMatch(f.params[i]->sinfo, tensorSInfo(dims, args[i].tensor->dtype), shapes));
      } else if (!args[i].shape.empty()) {
        REQUIRE(sinfoMatch(f.params[i]->sinfo, make<ShapeSInfo>(args[i].shape, 0), shapes));
      }
    }
    auto seq = f.body.as<SeqExpr>();
    REQUIRE(seq);
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) env[b->var.get()] = eval(b->value, env, shapes);
    return eval(seq->body, env, shapes);
  }

 private:
  const IRModule& mod_;

  static int64_t dimValue(const PrimExpr& d, const PrimVarMap& shapes) {
    auto v = constInt(primSubstitute(d, shapes));
    REQUIRE(v);
    return *v;
  }

  static NDArrayRef alloc(const StructInfo& s, const PrimVarMap& shapes) {
    auto t = s.as<TensorSInfo>();
    REQUIRE(t);
    REQUIRE(t->dims());
    std::vector<int64_t> dims;
    for (auto& d : *t->dims()) dims.push_back(dimValue(d, shapes));
    return make<NDArray>(t->dtype, dims);
  }

  Val eval(const Expr& e, std::unordered_map<const Var*, Val>& env, const PrimVarMap& shapes) {
    if (auto v = e.as<Var>()) return env.at(v.get());
    if (auto c = e.as<Constant>()) return Val{c->data, {}, {}};
    if (auto sh = e.as<ShapeExpr>()) {
      Val out;
      for (auto& d : sh->values) out.shape.push_back(intImm(dimValue(d, shapes)));
      return out;
    }
    if (auto t = e.as<Tuple>()) {
      Val out;
      for (auto& f : t->fields) out.fields.push_back(eval(f, env, shapes));
      return out;
    }
    if (auto g = e.as<TupleGetItem>()) return eval(g->tuple, env, shapes).fields.at(size_t(g->index));
    auto c = e.as<Call>();
    REQUIRE(c);
    if (auto gv = c->op.as<GlobalVar>()) {
      std::vector<Val> args;
      for (auto& a : c->args) args.push_back(eval(a, env, shapes));
      return call(*mod_.lookup(gv->name).as<Function>(), args);
    }
    REQUIRE(c->opName() == "relax.call_tir");
    auto kernel = mod_.lookup(c->args[0].as<GlobalVar>()->name).as<PrimFunc>();
    REQUIRE(kernel);
    std::vector<TirArg> args;
    for (auto& a : c->args[1].as<Tuple>()->fields) args.push_back(TirArg(eval(a, env, shapes).tensor));
    Val out;
    std::vector<StructInfo> outs{c->sinfoArgs[0]};
    if (auto t = c->sinfoArgs[0].as<TupleSInfo>()) outs = t->fields;
    for (auto& s : outs) {
      out.fields.push_back(Val{alloc(s, shapes), {}, {}});
      args.push_back(TirArg(out.fields.back().tensor));
    }
    if (c->args.size() > 2)
      for (auto& d : c->args[2].as<ShapeExpr>()->values) args.push_back(TirArg(dimValue(d, shapes)));
    auto st = runPrimFunc(*kernel, args);
    INFO(c->args[0].as<GlobalVar>()->name << ": " << (st.ok() ? "" : st.error().message));
    REQUIRE(st.ok());
    return c->sinfoArgs[0].is<TupleSInfo>() ? out : out.fields[0];
  }
};

void flatten(const Val& v, std::vector<NDArrayRef>& out) {
  if (v.tensor) out.push_back(v.tensor);
  for (auto& f : v.fields) flatten(f, out);
}

IRModuleRef run(const IRModuleRef& mod, const std::string& pipeline) {
  auto passes = parsePipeline(pipeline);
  REQUIRE(passes.ok());
  auto out = runSequential(passes.value(), mod, PassContext());
  INFO(pipeline << ": " << (out.ok() ? "" : out.error().message));
  REQUIRE(out.ok());
  auto problems = verifyModule(out.value());
  INFO((problems.empty() ? "" : problems[0].message));
  REQUIRE(problems.empty());
  return out.value();
}

std::vector<NDArrayRef> runMain(const IRModuleRef& mod, const std::vector<Val>& inputs) {
  KernelRunner runner(*mod);
  std::vector<NDArrayRef> out;
  flatten(runner.call(*mod->lookup("main").as<Function>(), inputs), out);
  return out;
}

// Random inputs for main's parameters, with the given values for its symbolic dims.
std::vector<Val> randomInputs(const IRModule& mod, const PrimVarMap& dims, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<Val> out;
  for (auto& p : mod.lookup("main").as<Function>()->params) {
    auto t = p->sinfo.as<TensorSInfo>();
    REQUIRE(t);
    std::vector<int64_t> shape;
    for (auto& d : *t->dims()) shape.push_back(*constInt(primSubstitute(d, dims)));
    auto a = make<NDArray>(t->dtype, shape);
    for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, dist(rng));
    out.push_back(Val{a, {}, {}});
  }
  return out;
}

// Legalized, fused and fused-to-TIR versions of `text` compute the same outputs.
void checkFusion(const std::string& text, const std::map<std::string, int64_t>& symbolic = {}) {
  DiagnosticEngine diag;
  IRModuleRef source = parseModule(text, "test", diag);
  REQUIRE(source);
  IRModuleRef legal = run(source, "LegalizeOps,AnnotateTIROpPattern");
  IRModuleRef grouped = run(legal, "FuseOps");
  IRModuleRef fused = run(grouped, "FuseTIR");
  // Something was fused, and FuseTIR left no grouped function behind.
  auto relaxFunctions = [](const IRModule& m) {
    size_t n = 0;
    for (auto& e : m.functions) n += e.func->kind() == NodeKind::Function;
    return n;
  };
  CHECK(relaxFunctions(*grouped) > 1);
  CHECK(relaxFunctions(*fused) == 1);
  PrimVarMap dims;
  for (auto& p : legal->lookup("main").as<Function>()->params) {
    std::vector<PrimVarRef> vars;
    sinfoCollectVars(p->sinfo, vars);
    for (auto& v : vars) dims[v.get()] = intImm(symbolic.at(v->name));
  }
  std::mt19937 rng(7);
  auto inputs = randomInputs(*legal, dims, rng);
  auto expected = runMain(legal, inputs);
  for (auto* mod : {&grouped, &fused}) {
    auto got = runMain(*mod, inputs);
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      REQUIRE(got[i]->shape == expected[i]->shape);
      for (int64_t j = 0; j < got[i]->numel(); ++j) CHECK(got[i]->getDouble(j) == Approx(expected[i]->getDouble(j)).margin(1e-5));
    }
  }
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("fusion numerics: matmul + bias + relu, softmax", "[fuse]") {
  checkFusion(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), "float32"), w: R.Tensor((5, 7), "float32"), b: R.Tensor((7,), "float32")) -> R.Tensor((3, 7), "float32"):
        with R.dataflow():
            lv = R.matmul(x, w)
            lv1 = R.add(lv, b)
            lv2 = R.nn.relu(lv1)
            gv = R.nn.softmax(lv2, axis=-1)
            R.output(gv)
        return gv
)");
}

TEST_CASE("fusion numerics: diamond, reduction after elementwise, injective chain", "[fuse]") {
  checkFusion(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), "float32"), y: R.Tensor((6,), "float32")) -> R.Tuple(R.Tensor((4, 6), "float32"), R.Tensor((4,), "float32"), R.Tensor((6, 4), "float32")):
        with R.dataflow():
            a = R.exp(x)
            b = R.negative(a)
            c = R.multiply(a, y)
            d = R.add(b, c)
            e = R.sum(R.tanh(x), axis=1)
            f = R.reshape(x, (2, 12))
            g = R.reshape(f, (6, 4))
            h = R.sigmoid(g)
            gv = (d, e, h)
            R.output(gv)
        return gv
)");
}

TEST_CASE("fusion numerics: tuple-producing kernel inside a group", "[fuse]") {
  checkFusion(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), "float32")) -> R.Tensor((4, 3), "float32"):
        with R.dataflow():
            a = R.exp(x)
            s = R.split(a, 2, axis=1)
            s0 = s[0]
            s1 = s[1]
            gv = R.add(s0, s1)
            R.output(gv)
        return gv
)");
}

TEST_CASE("fusion numerics: a group returning a tuple; equal layers sharing one fused kernel", "[fuse]") {
  checkFusion(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.exp(x)
            s = R.split(a, 2, axis=1)
            r0 = R.sum(s[0], axis=1)
            r1 = R.sum(s[1], axis=1)
            gv = (r0, r1)
            R.output(gv)
        return gv
)");
  checkFusion(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), "float32"), w1: R.Tensor((8, 8), "float32"), b1: R.Tensor((8,), "float32"), w2: R.Tensor((8, 8), "float32"), b2: R.Tensor((8,), "float32")) -> R.Tensor((2, 8), "float32"):
        with R.dataflow():
            lv2 = R.nn.relu(R.add(R.matmul(x, w1), b1))
            gv = R.nn.relu(R.add(R.matmul(lv2, w2), b2))
            R.output(gv)
        return gv
)");
}

TEST_CASE("fusion numerics: symbolic shapes", "[fuse]") {
  checkFusion(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), w: R.Tensor((8, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tuple(R.Tensor(("n", 8), "float32"), R.Tensor(("n", 8), "float32")):
        n = T.int64()
        with R.dataflow():
            lv = R.matmul(x, w)
            lv1 = R.add(lv, b)
            lv2 = R.add(lv1, x)
            lv3 = R.nn.gelu_tanh(lv2)
            o = R.ones(R.shape([n, 8]), "float32")
            lv4 = R.add(o, b)
            gv = (lv3, lv4)
            R.output(gv)
        return gv
)",
              {{"n", 3}});
}

TEST_CASE("fusion numerics: TVM's lowering corpus (mlp, gpt2 block with n = 2)", "[fuse]") {
  for (auto [file, n] : {std::pair{"01_mlp__03_FoldConstant.relax", 0}, std::pair{"03_gpt2_block_dyn__03_FoldConstant.relax", 2}}) {
    INFO(file);
    std::string text = readFile(std::string(RLX_SOURCE_DIR) + "/tests/corpus_lowering/" + file);
    DiagnosticEngine diag;
    IRModuleRef legal = parseModule(text, file, diag);
    REQUIRE(legal);
    IRModuleRef fused = run(legal, "FuseOps,FuseTIR");
    PrimVarMap dims;
    for (auto& p : legal->lookup("main").as<Function>()->params) {
      std::vector<PrimVarRef> vars;
      sinfoCollectVars(p->sinfo, vars);
      for (auto& v : vars) dims[v.get()] = intImm(n);
    }
    std::mt19937 rng(11);
    auto inputs = randomInputs(*legal, dims, rng);
    auto expected = runMain(legal, inputs);
    auto got = runMain(fused, inputs);
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      for (int64_t j = 0; j < got[i]->numel(); ++j) CHECK(got[i]->getDouble(j) == Approx(expected[i]->getDouble(j)).margin(1e-4));
  }
}
