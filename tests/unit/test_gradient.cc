// Numeric check of the Gradient pass: every gradient `<f>_adjoint` returns is compared with central
// finite differences of `f` on the reference evaluator, in float64 (an MLP with a loss, a CNN, one function per op family).
#include <catch2/catch.hpp>

#include "ir/eval_function.h"
#include "parser/parser.h"
#include "passes/registry.h"
#include "vm_test_util.h"

using namespace rlx;

namespace {

IRModuleRef parseText(const std::string& text) {
  DiagnosticEngine diag;
  IRModuleRef mod = parseModule(text, "gradient_test", diag);
  if (!mod) FAIL(diag.render(false));
  return mod;
}

Result<IRModuleRef> runPass(const IRModuleRef& mod, const std::string& pipeline) {
  RLX_TRY(passes, parsePipeline(pipeline));
  return runSequential(passes, mod, PassContext{});
}

double scalarOf(const Value& v) { return v.tensor->getDouble(0); }

Value copyTensor(const Value& v) {
  auto a = make<NDArray>(v.tensor->dtype, v.tensor->shape);
  for (int64_t i = 0; i < a->numel(); ++i) a->setDouble(i, v.tensor->getDouble(i));
  return Value::ofTensor(a);
}

// Gradient(main) on `text`; each float parameter's gradient against (f(x + h) - f(x - h)) / 2h.
void checkGradients(const std::string& text, double lo = -1, double tol = 1e-6, double h = 1e-6) {
  IRModuleRef mod = parseText(text);
  auto main = mod->lookup("main").as<Function>();
  REQUIRE(main);
  std::string names;
  std::vector<size_t> required;  // the float parameters, in order: their gradients come back
  for (size_t p = 0; p < main->params.size(); ++p) {
    auto t = sinfoOf(main->params[p]).as<TensorSInfo>();
    if (!t || !t->dtype.isFloat()) continue;
    names += std::string(names.empty() ? "" : ", ") + "\"" + main->params[p]->name + "\"";
    required.push_back(p);
  }
  auto out = runPass(mod, "Gradient(require_grads=[" + names + "])");
  if (!out.ok()) FAIL(out.error().message);
  auto inputs = testing::randomInputs(*main, {}, 7, lo);
  auto adjoint = evaluateFunction(*out.value(), "main_adjoint", inputs);
  if (!adjoint.ok()) FAIL(adjoint.error().message);
  auto value = evaluateFunction(*mod, "main", inputs);
  REQUIRE(value.ok());
  CHECK(std::abs(scalarOf(adjoint.value().fields[0]) - scalarOf(value.value())) <= 1e-12 + 1e-12 * std::abs(scalarOf(value.value())));
  const auto& grads = adjoint.value().fields[1].fields;
  REQUIRE(grads.size() == required.size());
  for (size_t r = 0; r < required.size(); ++r) {
    size_t p = required[r];
    for (int64_t i = 0; i < inputs[p].tensor->numel(); ++i) {
      auto args = inputs;
      args[p] = copyTensor(inputs[p]);
      double x = inputs[p].tensor->getDouble(i);
      args[p].tensor->setDouble(i, x + h);
      auto up = evaluateFunction(*mod, "main", args);
      args[p].tensor->setDouble(i, x - h);
      auto down = evaluateFunction(*mod, "main", args);
      REQUIRE((up.ok() && down.ok()));
      double numeric = (scalarOf(up.value()) - scalarOf(down.value())) / (2 * h);
      double analytic = grads[r].tensor->getDouble(i);
      INFO("parameter " << main->params[p]->name << " element " << i);
      CHECK(std::abs(numeric - analytic) <= tol * (1 + std::abs(numeric)));
    }
  }
}

}  // namespace

TEST_CASE("gradient: MLP with log_softmax cross-entropy loss", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4, 6), "float64"), w1: R.Tensor((6, 5), "float64"), b1: R.Tensor((5,), "float64"), w2: R.Tensor((5, 3), "float64"), y: R.Tensor((4, 3), "float64")):
        with R.dataflow():
            h = R.nn.relu(R.add(R.matmul(x, w1), b1))
            logits = R.matmul(h, w2)
            lp = R.nn.log_softmax(logits, axis=-1)
            loss = R.nn.cross_entropy_with_logits(lp, y)
            R.output(loss)
        return loss
)");
}

TEST_CASE("gradient: conv2d + pooling + softmax / nll_loss", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 2, 6, 6), "float64"), w: R.Tensor((3, 2, 3, 3), "float64"), w2: R.Tensor((12, 4), "float64"), t: R.Tensor((2,), "int64")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            p = R.nn.max_pool2d(c, pool_size=[2, 2], strides=[2, 2])
            q = R.nn.avg_pool2d(p, pool_size=[2, 2], strides=[1, 1])
            f = R.reshape(q, R.shape([2, 12]))
            s = R.nn.softmax(R.matmul(f, w2), axis=1)
            loss = R.nn.nll_loss(R.log(s), t)
            R.output(loss)
        return loss
)", 0.0);
}

TEST_CASE("gradient: strided, grouped and dilated conv2d", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((1, 4, 7, 7), "float64"), w: R.Tensor((4, 2, 3, 3), "float64"), v: R.Tensor((2, 4, 2, 2), "float64"), c: R.Tensor((1, 2, 2, 2), "float64")):
        with R.dataflow():
            a = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], groups=2)
            b = R.nn.conv2d(a, v, dilation=[2, 2])
            loss = R.sum(R.multiply(b, c))
            R.output(loss)
        return loss
)");
}

TEST_CASE("gradient: binary arithmetic with broadcasting", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(a: R.Tensor((2, 3), "float64"), b: R.Tensor((3,), "float64"), c: R.Tensor((2, 1), "float64")):
        with R.dataflow():
            s = R.add(a, b)
            d = R.subtract(s, c)
            m = R.multiply(d, b)
            q = R.divide(m, c)
            p = R.power(a, b)
            mx = R.maximum(q, p)
            mn = R.minimum(mx, R.multiply(a, c))
            loss = R.sum(R.add(mn, q))
            R.output(loss)
        return loss
)", 0.25);
}

TEST_CASE("gradient: unary math", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float64"), c: R.Tensor((2, 3), "float64")):
        with R.dataflow():
            a = R.add(R.exp(x), R.log(x))
            b = R.add(R.sqrt(x), R.rsqrt(x))
            d = R.add(R.sin(x), R.cos(x))
            e = R.add(R.tanh(x), R.sigmoid(x))
            f = R.add(R.abs(R.subtract(x, c)), R.negative(R.square(x)))
            g = R.add(R.add(a, b), R.add(d, R.add(e, f)))
            loss = R.sum(R.multiply(g, c))
            R.output(loss)
        return loss
)", 0.25);
}

TEST_CASE("gradient: reductions and scans", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((3, 4), "float64"), c: R.Tensor((3,), "float64")):
        with R.dataflow():
            s = R.sum(x, axis=[1])
            m = R.mean(x, axis=[1], keepdims=True)
            v = R.variance(x, axis=[1])
            mx = R.max(x, axis=[1])
            mn = R.min(x)
            cs = R.cumsum(x, axis=1)
            t = R.add(R.add(s, R.reshape(m, R.shape([3]))), R.add(v, mx))
            loss = R.add(R.add(R.sum(R.multiply(t, c)), mn), R.sum(R.multiply(cs, x)))
            R.output(loss)
        return loss
)");
}

TEST_CASE("gradient: layout changes", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float64"), c: R.Tensor((3, 2), "float64")):
        with R.dataflow():
            p = R.permute_dims(x, axes=[1, 0])
            e = R.expand_dims(p, axis=[0])
            s = R.squeeze(e, axis=[0])
            f = R.flatten(s)
            r = R.reshape(f, R.shape([3, 2]))
            loss = R.sum(R.multiply(R.multiply(r, c), r))
            R.output(loss)
        return loss
)", -1, 1e-5);
}

// A float32 parameter: steps of 1/64 are exact in float32, and central differences are exact for
// the quadratic loss.
TEST_CASE("gradient: astype", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), c: R.Tensor((2, 3), "float64")):
        with R.dataflow():
            a = R.astype(x, "float64")
            loss = R.sum(R.multiply(R.multiply(a, a), c))
            R.output(loss)
        return loss
)", -1, 1e-5, 1.0 / 64);
}

TEST_CASE("gradient: broadcast_to, concat and split", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float64"), y: R.Tensor((1, 3), "float64")):
        with R.dataflow():
            b = R.broadcast_to(y, R.shape([2, 3]))
            cat = R.concat((x, b), axis=0)
            parts = R.split(cat, indices_or_sections=[1, 3], axis=0)
            p0 = parts[0]
            p2 = parts[2]
            loss = R.add(R.sum(R.multiply(p0, p0)), R.sum(R.multiply(p2, b)))
            R.output(loss)
        return loss
)");
}

TEST_CASE("gradient: take, where and triu", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float64"), y: R.Tensor((1, 3), "float64"), c: R.Tensor((3, 2), "float64"), i: R.Tensor((2,), "int64")):
        with R.dataflow():
            tk = R.take(x, i, axis=1)
            w = R.where(R.greater(x, y), x, y)
            tri = R.triu(R.matmul(x, c))
            l1 = R.add(R.sum(R.multiply(tk, tk)), R.sum(R.multiply(w, w)))
            loss = R.add(l1, R.sum(R.multiply(tri, tri)))
            R.output(loss)
        return loss
)", 0.0);
}

TEST_CASE("gradient: activations and softmax", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 4), "float64"), c: R.Tensor((2, 4), "float64")):
        with R.dataflow():
            a = R.add(R.nn.relu(x), R.nn.gelu(x))
            b = R.add(R.nn.silu(x), R.nn.gelu_tanh(x))
            d = R.add(R.nn.leakyrelu(x, alpha=0.1), R.nn.softmax(x, axis=1))
            e = R.nn.log_softmax(R.add(a, b), axis=0)
            loss = R.sum(R.multiply(R.add(d, e), c))
            R.output(loss)
        return loss
)");
}

TEST_CASE("gradient: matmul of every rank combination", "[gradient]") {
  checkGradients(R"(
@I.ir_module
class M:
    @R.function
    def main(a: R.Tensor((2, 3, 4), "float64"), b: R.Tensor((4, 5), "float64"), v: R.Tensor((2,), "float64"), u: R.Tensor((5,), "float64")):
        with R.dataflow():
            m = R.matmul(a, b)
            mv = R.matmul(m, u)
            vm = R.matmul(v, mv)
            vv = R.matmul(u, u)
            loss = R.add(R.sum(vm), vv)
            R.output(loss)
        return loss
)");
}

TEST_CASE("gradient: require_grads, target_index and checkpoints", "[gradient]") {
  IRModuleRef mod = parseText(R"(
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32"), n: R.Tensor((3,), "int64")):
        with R.dataflow():
            s = R.sum(R.multiply(x, y))
            v = R.add(x, y)
            R.output(s, v)
        return (v, s)
)");
  auto ok = runPass(mod, "Gradient(require_grads=[\"y\"], target_index=1)");
  REQUIRE(ok.ok());
  auto f = ok.value()->lookup("main_adjoint").as<Function>();
  REQUIRE(f);
  CHECK(f->attrs->find("global_symbol"));
  auto bad = [&](const std::string& pipeline, const std::string& fragment) {
    auto r = runPass(mod, pipeline);
    REQUIRE(!r.ok());
    INFO(r.error().message);
    CHECK(r.error().message.find(fragment) != std::string::npos);
  };
  bad("Gradient", "float scalar");                                    // target 0 is the vector v
  bad("Gradient(target_index=2)", "out of range");
  bad("Gradient(func_name=\"nope\")", "no function 'nope'");
  bad("Gradient(require_grads=[\"z\"], target_index=1)", "no parameter named 'z'");
  bad("Gradient(require_grads=[\"x\", \"x\"], target_index=1)", "more than once");
  bad("Gradient(require_grads=[\"n\"], target_index=1)", "float tensors");
  CHECK(!parsePipeline("Gradient(target_index=\"a\")").ok());
  CHECK(!parsePipeline("Gradient(bogus=1)").ok());
  CHECK(parsePipeline("gradient(func_name=\"main\")").ok());
}

TEST_CASE("gradient: the adjoint compiles and runs on the VM, agreeing with the evaluator (grad.* kernels)", "[gradient]") {
  // Every backward op with its own kernel (max/avg_pool2d, take, nll_loss) plus a checkpoint.
  IRModuleRef mod = parseText(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 6, 6), dtype="float32"), e: R.Tensor((5, 3), dtype="float32"), i: R.Tensor((4,), dtype="int64"), t: R.Tensor((1,), dtype="int64")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            p = R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])
            q = R.nn.avg_pool2d(p, pool_size=[2, 2], strides=[1, 1], padding=[1, 1, 1, 1])
            c = R.grad.start_checkpoint(q)
            m = R.mean(c, axis=[2, 3])
            r = R.take(e, i, axis=0)
            s = R.add(m, R.sum(r, axis=[0], keepdims=True))
            l = R.nn.log_softmax(s)
            loss = R.nn.nll_loss(l, t)
            R.output(loss)
        return loss
)");
  auto out = runPass(mod, "Gradient(func_name=\"main\", require_grads=[\"x\", \"e\"])");
  REQUIRE(out.ok());
  std::vector<Value> inputs = testing::randomInputs(*out.value()->lookup("main").as<Function>(), {}, 7);
  auto indices = make<NDArray>(DataType::int64(), std::vector<int64_t>{4});
  for (int64_t k = 0; k < 4; ++k) indices->setInt(k, (k * 3) % 5);
  inputs[2] = Value::ofTensor(indices);
  auto target = make<NDArray>(DataType::int64(), std::vector<int64_t>{1});
  target->setInt(0, 2);
  inputs[3] = Value::ofTensor(target);
  auto expected = evaluateFunction(*out.value(), "main_adjoint", inputs);
  REQUIRE(expected.ok());
  auto got = testing::runBuilt(out.value(), "build_fused", "main_adjoint", inputs);
  if (!got.ok()) FAIL(got.error().message);
  CHECK(testing::compareValues(got.value(), expected.value(), 1e-5) == "");
}
