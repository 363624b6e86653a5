// Reference evaluator against hand-computed values: matmul (broadcasting, 1-D operands), outer, einsum,
// activations, softmax, prelu, dropout, pad, pixel_shuffle, normalizations, attention, losses.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/unit/eval_nn_test_util.h"

using namespace rlx;
using namespace rlx::test;

// ---------------------------------------------------------------- linear algebra
TEST_CASE("eval: matmul of matrices", "[eval][nn]") {
  auto r = ev("relax.matmul", {C("float32", {2, 3}, {1, 2, 3, 4, 5, 6}), C("float32", {3, 2}, {7, 8, 9, 10, 11, 12})});
  checkNear(r, {2, 2}, {58, 64, 139, 154});
  CHECK(r.dtype == "float32");
  // size-1 dims everywhere
  checkNear(ev("relax.matmul", {C("float32", {1, 1}, {3}), C("float32", {1, 1}, {4})}), {1, 1}, {12});
}

TEST_CASE("eval: matmul broadcasts batch dims", "[eval][nn]") {
  // (1, 2, 2) @ (3, 2, 2): the lhs batch of 1 repeats
  auto a = C("float32", {1, 2, 2}, {1, 2, 3, 4});
  auto b = C("float32", {3, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0, 0});
  checkNear(ev("relax.matmul", {a, b}), {3, 2, 2}, {1, 2, 3, 4, 2, 1, 4, 3, 2, 0, 6, 0});
  // (2, 1, 2) @ (2, 1): a 2-D rhs applies to every batch
  checkNear(ev("relax.matmul", {C("float32", {2, 1, 2}, {1, 2, 3, 4}), C("float32", {2, 1}, {5, 6})}), {2, 1, 1}, {17, 39});
  // (2, 1, 1, 2) @ (3, 2, 1) → (2, 3, 1, 1)
  auto r = ev("relax.matmul", {C("float32", {2, 1, 1, 2}, {1, 2, 3, 4}), C("float32", {3, 2, 1}, {1, 1, 0, 1, 1, 0})});
  checkNear(r, {2, 3, 1, 1}, {3, 2, 1, 7, 4, 3});
}

TEST_CASE("eval: matmul with 1-D operands", "[eval][nn]") {
  auto v = [] { return C("float32", {3}, {1, 2, 3}); };
  checkNear(ev("relax.matmul", {v(), C("float32", {3, 2}, {1, 2, 3, 4, 5, 6})}), {2}, {22, 28});
  checkNear(ev("relax.matmul", {C("float32", {2, 3}, {1, 2, 3, 4, 5, 6}), v()}), {2}, {14, 32});
  checkNear(ev("relax.matmul", {v(), C("float32", {3}, {4, 5, 6})}), {}, {32});
  // a vector against a batch of matrices: (2) @ (3, 2, 2) → (3, 2)
  checkNear(ev("relax.matmul", {C("float32", {2}, {1, 10}), iota("float32", {3, 2, 2})}), {3, 2}, {20, 31, 64, 75, 108, 119});
}

TEST_CASE("eval: matmul out_dtype and integer wrapping", "[eval][nn]") {
  auto r = ev("relax.matmul", {C("int8", {1, 2}, {100, 100}), C("int8", {2, 1}, {2, 2})}, {{"out_dtype", S("int32")}});
  CHECK(r.dtype == "int32");
  CHECK(r.values == V{400});
  // without out_dtype int8 wraps: 400 mod 256 = 144 → -112
  CHECK(ev("relax.matmul", {C("int8", {1, 2}, {100, 100}), C("int8", {2, 1}, {2, 2})}).values == V{-112});
  CHECK(ev("relax.matmul", {C("int32", {1, 1}, {65536}), C("int32", {1, 1}, {65536})}).values == V{0});
  auto h = ev("relax.matmul", {C("float32", {1, 2}, {0.5, 0.25}), C("float32", {2, 1}, {2, 4})}, {{"out_dtype", S("float64")}});
  CHECK(h.dtype == "float64");
  CHECK(h.values == V{2});
}

TEST_CASE("eval: matmul rejects operands that disagree with its struct info", "[eval][nn]") {
  auto a = C("float32", {2, 3}, {}), b = C("float32", {3, 2}, {});
  CHECK(evalOn("relax.matmul", {a, b}, {}, {TV("float32", {2, 3}, {}), TV("float32", {4, 2}, {})}) == "error: R.matmul: reduction dims differ: 3 vs 4");
  CHECK(evalOn("relax.matmul", {a, b}, {}, {TV("float32", {2, 3}, {}), TV("float32", {3, 5}, {})}) == "error: R.matmul: the result shape does not match the operands");
  CHECK(evalOn("relax.matmul", {a, b}, {}, {TV("float32", {2, 3}, {})}) == "error: R.matmul: evaluator got 1 values for 2 arguments");
}

TEST_CASE("eval: outer", "[eval][nn]") {
  checkNear(ev("relax.outer", {C("float32", {2}, {1, 2}), C("float32", {3}, {3, 4, 5})}), {2, 3}, {3, 4, 5, 6, 8, 10});
  CHECK(ev("relax.outer", {C("int32", {1}, {-2}), C("int32", {2}, {3, 0})}).values == V{-6, 0});
}

TEST_CASE("eval: einsum", "[eval][nn]") {
  auto m = [] { return C("float32", {2, 2}, {1, 2, 3, 4}); };
  auto es = [](std::vector<PyValue> ops, const char* subs) { return ev("relax.einsum", {Tup(std::move(ops))}, {{"subscripts", S(subs)}}); };
  checkNear(es({m(), C("float32", {2, 2}, {5, 6, 7, 8})}, "ij,jk->ik"), {2, 2}, {19, 22, 43, 50});
  checkNear(es({m()}, "ij->ji"), {2, 2}, {1, 3, 2, 4});
  checkNear(es({m()}, "ii->i"), {2}, {1, 4});   // diagonal
  checkNear(es({m()}, "ii"), {}, {5});          // implicit output: trace
  checkNear(es({m()}, "ij->"), {}, {10});
  checkNear(es({C("float32", {2}, {1, 2}), C("float32", {3}, {1, 10, 100})}, "i,j"), {2, 3}, {1, 10, 100, 2, 20, 200});
  checkNear(es({iota("float32", {2, 3}), C("float32", {3}, {1, 1, 1})}, "...j,j->..."), {2}, {3, 12});
  // batched with a broadcast ellipsis: (2, 1, 2) and (1, 2) share "..."
  checkNear(es({C("float32", {2, 1, 2}, {1, 2, 3, 4}), C("float32", {2, 1}, {1, 10})}, "...ij,jk->...ik"), {2, 1, 1}, {21, 43});
  checkNear(es({iota("float32", {1, 2, 2}, 1), iota("float32", {1, 2, 2}, 1)}, "bij,bjk->bik"), {1, 2, 2}, {7, 10, 15, 22});
  CHECK(es({C("int32", {2}, {2, 3}), C("int32", {2}, {4, 5})}, "i,i->").values == V{23});
  auto two = Tup({C("float32", {2}, {}), C("float32", {2}, {})});
  CHECK(evalOn("relax.einsum", {two}, {{"subscripts", S("i,i->i")}}, {Value::ofTuple({TV("float32", {2}, {}), TV("float32", {3}, {})})}) ==
        "error: R.einsum: dimension 0 of operand 1 has extent 3 but its label has extent 2");
}

// ---------------------------------------------------------------- activations
TEST_CASE("eval: relu, gelu, gelu_tanh, silu, selu", "[eval][nn]") {
  auto x = [] { return C("float32", {4}, {-1, 0, 1, 2}); };
  checkNear(ev("relax.nn.relu", {x()}), {4}, {0, 0, 1, 2});
  CHECK(ev("relax.nn.relu", {C("int32", {2}, {-3, 4})}).values == V{0, 4});
  checkNear(ev("relax.nn.gelu", {x()}), {4}, {-0.15865525393145702, 0, 0.841344746068543, 1.9544997361036416});
  checkNear(ev("relax.nn.gelu_tanh", {x()}), {4}, {-0.15880800939172324, 0, 0.8411919906082768, 1.954597694087775});
  checkNear(ev("relax.nn.silu", {x()}), {4}, {-0.2689414213699951, 0, 0.7310585786300049, 1.7615941559557646});
  checkNear(ev("relax.nn.selu", {x()}), {4}, {-1.1113307378125625, 0, 1.0507009873554805, 2.101401974710961});
  auto h = ev("relax.nn.gelu", {C("float16", {1}, {1})});
  CHECK(h.dtype == "float16");
  CHECK(h.values[0] == Approx(0.8413).epsilon(1e-3));
}

TEST_CASE("eval: leakyrelu, softplus, prelu", "[eval][nn]") {
  checkNear(ev("relax.nn.leakyrelu", {C("float32", {2}, {-2, 3})}, {{"alpha", F(0.1)}}), {2}, {-0.2, 3});
  checkNear(ev("relax.nn.leakyrelu", {C("float32", {1}, {-100})}), {1}, {-1});
  // beta * x above the threshold returns x itself
  checkNear(ev("relax.nn.softplus", {C("float32", {4}, {-1, 0, 1, 2})}, {{"beta", F(2)}, {"threshold", F(3)}}), {4},
            {0.06346400552148625, 0.34657359027997264, 1.0634640055214863, 2});
  auto x = C("float32", {1, 2, 2}, {-1, 2, -3, 4});
  checkNear(ev("relax.nn.prelu", {x, C("float32", {2}, {0.5, 0.25})}), {1, 2, 2}, {-0.5, 2, -0.75, 4});
  checkNear(ev("relax.nn.prelu", {C("float32", {2, 2}, {-1, -2, -3, 4}), C("float32", {2}, {0.5, 0.25})}, {{"axis", I(-1)}}), {2, 2}, {-0.5, -0.5, -1.5, 4});
  checkNear(ev("relax.nn.prelu", {C("float32", {1, 3}, {-1, -2, 3}), C("float32", {1}, {0.1})}), {1, 3}, {-0.1, -0.2, 3});
}

TEST_CASE("eval: softmax and log_softmax", "[eval][nn]") {
  checkNear(ev("relax.nn.softmax", {C("float32", {3}, {1, 2, 3})}), {3}, {0.09003057317038046, 0.24472847105479764, 0.6652409557748218});
  checkNear(ev("relax.nn.log_softmax", {C("float32", {3}, {1, 2, 3})}), {3}, {-2.4076059644443806, -1.4076059644443804, -0.4076059644443804});
  // axis 0 of a 2x2: columns normalize independently; large values do not overflow
  checkNear(ev("relax.nn.softmax", {C("float32", {2, 2}, {1000, 0, 1000, 0})}, {{"axis", I(0)}}), {2, 2}, {0.5, 0.5, 0.5, 0.5});
  checkNear(ev("relax.nn.softmax", {C("float32", {1, 1}, {7})}), {1, 1}, {1});
}

TEST_CASE("eval: dropout is the identity with a full mask", "[eval][nn]") {
  auto x = [] { return C("float32", {2}, {1.5, -2}); };
  checkNear(evField("relax.nn.dropout", {x()}, {{"rate", F(0.3)}}, 0), {2}, {1.5, -2});
  checkNear(evField("relax.nn.dropout", {x()}, {}, 1), {2}, {1, 1});
}

TEST_CASE("eval: pad modes", "[eval][nn]") {
  auto m = [] { return C("float32", {2, 2}, {1, 2, 3, 4}); };
  checkNear(ev("relax.nn.pad", {m()}, {{"pad_width", Ints({1, 0, 0, 2})}, {"pad_value", F(9)}}), {3, 4}, {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9});
  auto v = [] { return C("float32", {3}, {1, 2, 3}); };
  auto pad = [&](const char* mode, int64_t lo, int64_t hi) { return ev("relax.nn.pad", {v()}, {{"pad_width", Ints({lo, hi})}, {"pad_mode", S(mode)}}); };
  checkNear(pad("reflect", 2, 2), {7}, {3, 2, 1, 2, 3, 2, 1});
  checkNear(pad("replicate", 2, 1), {6}, {1, 1, 1, 2, 3, 3});
  checkNear(pad("edge", 0, 2), {5}, {1, 2, 3, 3, 3});
  checkNear(pad("circular", 2, 2), {7}, {2, 3, 1, 2, 3, 1, 2});
  checkNear(pad("circular", 4, 0), {7}, {3, 1, 2, 3, 1, 2, 3});
  CHECK(pad("reflect", 3, 0).error == "error: R.nn.pad: reflect padding (3, 0) must be smaller than the dimension 0 (3)");
  checkNear(ev("relax.nn.pad", {m()}, {{"pad_width", Ints({0, 1, 1, 0})}, {"pad_mode", S("reflect")}}), {3, 3}, {2, 1, 2, 4, 3, 4, 2, 1, 2});
  CHECK(ev("relax.nn.pad", {C("int32", {1}, {5})}, {{"pad_width", Ints({1, 1})}, {"pad_value", F(-1)}}).values == V{-1, 5, -1});
}

TEST_CASE("eval: pixel_shuffle", "[eval][nn]") {
  // in[c][h] = 10c + h (W = 1); out[y][x] = in[(y % 2) * 2 + x][y / 2]
  auto x = C("float32", {1, 4, 2, 1}, {0, 1, 10, 11, 20, 21, 30, 31});
  checkNear(ev("relax.nn.pixel_shuffle", {x}, {{"upscale_factor", I(2)}}), {1, 1, 4, 2}, {0, 10, 20, 30, 1, 11, 21, 31});
  checkNear(ev("relax.nn.pixel_shuffle", {iota("float32", {4, 1, 1})}, {{"upscale_factor", I(2)}}), {1, 2, 2}, {0, 1, 2, 3});
}

// ---------------------------------------------------------------- normalizations
TEST_CASE("eval: layer_norm and rms_norm", "[eval][nn]") {
  auto x = C("float32", {2, 3}, {1, 2, 3, 4, 6, 8});
  auto r = ev("relax.nn.layer_norm", {x, C("float32", {3}, {1, 1, 2}), C("float32", {3}, {0, 1, 0})}, {{"axes", Ints({-1})}});
  checkNear(r, {2, 3}, {-1.2247356859083902, 1, 2.4494713718167804, -1.2247425750014138, 1, 2.4494851500028276});
  // two normalized axes: gamma is 2-D
  auto r2 = ev("relax.nn.layer_norm", {C("float32", {1, 2, 2}, {1, 2, 3, 4}), C("float32", {2, 2}, {1, 1, 1, 1}), C("float32", {2, 2}, {0, 0, 0, 0})},
               {{"axes", Ints({1, 2})}, {"epsilon", F(1e-5)}});
  checkNear(r2, {1, 2, 2}, {-1.3416354199689269, -0.447211806656309, 0.447211806656309, 1.3416354199689269});
  // TVM's layer_norm kernel applies gamma and beta whatever center/scale say
  auto r3 = ev("relax.nn.layer_norm", {C("float32", {2}, {1, 3}), C("float32", {2}, {2, 2}), C("float32", {2}, {1, 1})},
               {{"axes", Ints({0})}, {"epsilon", F(0)}, {"center", B(false)}, {"scale", B(false)}});
  checkNear(r3, {2}, {-1, 3});
  checkNear(ev("relax.nn.rms_norm", {C("float32", {1, 3}, {1, 2, 3}), C("float32", {3}, {1, 1, 2})}), {1, 3},
            {0.4629095539120194, 0.9258191078240388, 2 * 1.3887286617360581});
}

TEST_CASE("eval: group_norm and instance_norm", "[eval][nn]") {
  // groups {1, 2} and {3, 5}; gamma/beta per channel
  auto r = ev("relax.nn.group_norm", {C("float32", {1, 4, 1}, {1, 2, 3, 5}), C("float32", {4}, {1, 2, 1, 1}), C("float32", {4}, {0, 0, 0, 1})},
              {{"num_groups", I(2)}, {"channel_axis", I(1)}, {"axes", Ints({2})}});
  checkNear(r, {1, 4, 1}, {-0.9999800005999799, 1.9999600011999599, -0.9999950000374997, 1.9999950000374997});
  // instance_norm: channel 1 is constant → 0 + beta
  auto in = ev("relax.nn.instance_norm", {C("float32", {1, 2, 2}, {1, 3, 2, 2}), C("float32", {2}, {1, 1}), C("float32", {2}, {0, 5})}, {{"axes", Ints({2})}});
  checkNear(in, {1, 2, 2}, {-0.9999950000374997, 0.9999950000374997, 5, 5});
  // channels last
  auto nl = ev("relax.nn.instance_norm", {C("float32", {1, 2, 2}, {1, 2, 3, 2}), C("float32", {2}, {1, 1}), C("float32", {2}, {0, 5})},
               {{"channel_axis", I(-1)}, {"axes", Ints({1})}});
  checkNear(nl, {1, 2, 2}, {-0.9999950000374997, 5, 0.9999950000374997, 5});
  auto g = [] { return C("float32", {3}, {1, 1, 1}); };
  CHECK(evalOn("relax.nn.group_norm", {C("float32", {1, 3, 1}, {}), g(), g()}, {{"num_groups", I(1)}, {"channel_axis", I(1)}, {"axes", Ints({2})}},
               {TV("float32", {1, 3, 1}, {}), TV("float32", {2}, {}), TV("float32", {3}, {})}) == "error: R.nn.group_norm: gamma has 2 entries but 3 are needed");
}

TEST_CASE("eval: batch_norm in inference and training mode", "[eval][nn]") {
  auto args = [] {
    return std::vector<PyValue>{C("float32", {2, 2}, {1, 2, 3, 4}), C("float32", {2}, {1, 2}), C("float32", {2}, {0, 1}), C("float32", {2}, {1, 2}), C("float32", {2}, {4, 1})};
  };
  KwArgs infer = {{"epsilon", F(0)}, {"training", B(false)}};
  checkNear(evField("relax.nn.batch_norm", args(), infer, 0), {2, 2}, {0, 1, 1, 5});
  checkNear(evField("relax.nn.batch_norm", args(), infer, 1), {2}, {1, 2});
  checkNear(evField("relax.nn.batch_norm", args(), infer, 2), {2}, {4, 1});
  // training: batch mean (2, 3), biased variance (1, 1); statistics move by momentum 0.1
  KwArgs train = {{"epsilon", F(0)}, {"training", B(true)}};
  checkNear(evField("relax.nn.batch_norm", args(), train, 0), {2, 2}, {-1, -1, 1, 3});
  checkNear(evField("relax.nn.batch_norm", args(), train, 1), {2}, {1.1, 2.1});
  checkNear(evField("relax.nn.batch_norm", args(), train, 2), {2}, {3.7, 1.0});
  KwArgs bare = {{"epsilon", F(0)}, {"training", B(false)}, {"center", B(false)}, {"scale", B(false)}};
  checkNear(evField("relax.nn.batch_norm", args(), bare, 0), {2, 2}, {0, 0, 1, 2});
  // axis -1 of a 3-D tensor
  auto x3 = C("float32", {1, 1, 2}, {5, 7});
  auto one = [] { return C("float32", {2}, {1, 1}); };
  auto zero = [] { return C("float32", {2}, {0, 0}); };
  checkNear(evField("relax.nn.batch_norm", {x3, one(), zero(), C("float32", {2}, {1, 3}), one()}, {{"axis", I(-1)}, {"epsilon", F(0)}, {"training", B(false)}}, 0),
            {1, 1, 2}, {4, 4});
}

// ---------------------------------------------------------------- attention and losses
namespace {
// B = 1, S = 2, N = 1, H = 1 with q = (1, 2), k = (1, 0), v = (10, 20).
std::vector<PyValue> qkv() { return {C("float32", {1, 2, 1, 1}, {1, 2}), C("float32", {1, 2, 1, 1}, {1, 0}), C("float32", {1, 2, 1, 1}, {10, 20})}; }
}  // namespace

TEST_CASE("eval: attention", "[eval][nn]") {
  checkNear(ev("relax.nn.attention", qkv()), {1, 2, 1, 1}, {12.689414213699951, 11.192029220221176});
  checkNear(ev("relax.nn.attention", qkv(), {{"causal_mask", S("TopLeft")}}), {1, 2, 1, 1}, {10, 11.192029220221176});
  checkNear(ev("relax.nn.attention", qkv(), {{"scale", F(0.5)}}), {1, 2, 1, 1}, {13.775406687981455, 12.689414213699951});
  // bias (1, 1, 2, 2): query 0 scores become (1, 1)
  auto withBias = qkv();
  withBias.push_back(C("float32", {1, 1, 2, 2}, {0, 1, 0, 0}));
  checkNear(ev("relax.nn.attention", withBias), {1, 2, 1, 1}, {15, 11.192029220221176});
  auto bias2 = qkv();
  bias2.push_back(C("float32", {2, 2}, {0, 1, 0, 0}));  // broadcast over batch and heads
  checkNear(ev("relax.nn.attention_bias", bias2), {1, 2, 1, 1}, {15, 11.192029220221176});
  // BottomRight with seq 1 < seq_kv 2: offset 1, the single query sees both keys
  std::vector<PyValue> one = {C("float32", {1, 1, 1, 1}, {1}), C("float32", {1, 2, 1, 1}, {1, 0}), C("float32", {1, 2, 1, 1}, {10, 20})};
  checkNear(ev("relax.nn.attention", one, {{"causal_mask", S("BottomRight")}}), {1, 1, 1, 1}, {12.689414213699951});
  checkNear(ev("relax.nn.attention", one, {{"causal_mask", S("TopLeft")}}), {1, 1, 1, 1}, {10});
  CHECK(ev("relax.nn.attention", qkv(), {{"causal_mask", S("Diagonal")}}).error == "error: R.nn.attention: unknown causal_mask \"Diagonal\" (TopLeft or BottomRight)");
  CHECK(ev("relax.nn.attention", qkv(), {{"window_size", I(4)}}).error == "error: R.nn.attention: sliding-window attention (window_size) has no reference semantics");
}

TEST_CASE("eval: attention keeps heads and batches apart", "[eval][nn]") {
  // B = 2, S = 1, N = 2, H = 2, S_kv = 1: one key per head, so the output is that head's value
  auto q = iota("float32", {2, 1, 2, 2}), k = iota("float32", {2, 1, 2, 2});
  auto v = C("float32", {2, 1, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  checkNear(ev("relax.nn.attention", {q, k, v}), {2, 1, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // H = 2 without a scale divides by sqrt(2): scores (q·k) = (1, 0) / sqrt(2)
  auto q2 = C("float32", {1, 1, 1, 2}, {1, 1}), k2 = C("float32", {1, 2, 1, 2}, {1, 0, 0, 0}), v2 = C("float32", {1, 2, 1, 1}, {1, 0});
  double p = std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 1);
  checkNear(ev("relax.nn.attention", {q2, k2, v2}), {1, 1, 1, 1}, {p});
}

TEST_CASE("eval: cross_entropy_with_logits and nll_loss", "[eval][nn]") {
  checkNear(ev("relax.nn.cross_entropy_with_logits", {C("float32", {2, 2}, {1, 2, 3, 4}), C("float32", {2, 2}, {1, 0, 0, 1})}), {}, {-2.5});
  checkNear(ev("relax.nn.cross_entropy_with_logits", {C("float32", {2}, {1, 2}), C("float32", {2}, {3, 4})}), {}, {-11});
  auto pred = [] { return C("float32", {2, 3}, {-1, -2, -3, -4, -5, -6}); };
  auto tgt = [] { return C("int64", {2}, {2, 0}); };
  checkNear(ev("relax.nn.nll_loss", {pred(), tgt()}), {}, {3.5});
  checkNear(ev("relax.nn.nll_loss", {pred(), tgt()}, {{"reduction", S("sum")}}), {}, {7});
  checkNear(ev("relax.nn.nll_loss", {pred(), tgt()}, {{"reduction", S("none")}}), {2}, {3, 4});
  checkNear(ev("relax.nn.nll_loss", {pred(), tgt(), C("float32", {3}, {1, 2, 3})}), {}, {3.25});
  checkNear(ev("relax.nn.nll_loss", {pred(), tgt()}, {{"ignore_index", I(0)}}), {}, {3});
  checkNear(ev("relax.nn.nll_loss", {C("float32", {3}, {-1, -2, -3}), C("int64", {}, {1})}), {}, {2});
  // spatial: predictions (N, C, d), targets (N, d)
  checkNear(ev("relax.nn.nll_loss", {C("float32", {1, 2, 2}, {-1, -2, -3, -4}), C("int32", {1, 2}, {1, 0})}, {{"reduction", S("none")}}), {1, 2}, {3, 2});
  CHECK(ev("relax.nn.nll_loss", {pred(), C("int64", {2}, {3, 0})}).error == "error: R.nn.nll_loss: target 3 is out of range for 3 classes");
}

TEST_CASE("eval: nn evaluators reject values that disagree with the call", "[eval][nn]") {
  auto x3 = [] { return C("float32", {3}, {}); };
  CHECK(evalOn("relax.nn.softmax", {x3()}, {}, {TV("float32", {2}, {})}) == "error: R.nn.softmax: the result has shape (3,) but (2,) was expected");
  CHECK(evalOn("relax.nn.gelu", {x3()}, {}, {TV("float32", {2, 2}, {})}) == "error: R.nn.gelu: the result has shape (3,) but (2, 2) was expected");
  CHECK(evalOn("relax.nn.layer_norm", {x3(), x3(), x3()}, {{"axes", Ints({0})}}, {TV("float32", {4}, {}), TV("float32", {3}, {}), TV("float32", {3}, {})}) ==
        "error: R.nn.layer_norm: the result has shape (3,) but (4,) was expected");
  CHECK(evalOn("relax.nn.pixel_shuffle", {C("float32", {4, 1, 1}, {})}, {{"upscale_factor", I(2)}}, {TV("float32", {1, 2, 2}, {})}) ==
        "error: R.nn.pixel_shuffle: the data has shape (1, 2, 2) but (4, 1, 1) was expected");
  CHECK(evalOn("relax.nn.pad", {x3()}, {{"pad_width", Ints({1, 1})}}, {TV("float32", {2, 2}, {})}) == "error: R.nn.pad: pad_width must have 4 values");
  auto q = C("float32", {1, 2, 1, 1}, {});
  CHECK(evalOn("relax.nn.attention", {q, q, q}, {}, {TV("float32", {1, 2, 1, 1}, {}), TV("float32", {1, 2, 1, 1}, {}), TV("float32", {1, 2, 1, 2}, {})}) ==
        "error: R.nn.attention: the result has shape (1, 2, 1, 1) but (1, 2, 1, 2) was expected");
  CHECK(evalOn("relax.nn.nll_loss", {C("float32", {2, 3}, {}), C("int64", {2}, {})}, {}, {TV("float32", {2, 3}, {}), TV("int64", {3}, {})}) ==
        "error: R.nn.nll_loss: targets must have the predictions' shape without the class dimension");
}

TEST_CASE("eval: attention_var_len attends within each packed sequence", "[eval][nn]") {
  // sequences [0, 1) and [1, 3) of q = (1, 1, 2), k = (1, 1, 0), v = (10, 20, 30)
  auto args = [](std::vector<double> starts) {
    return std::vector<PyValue>{C("float32", {1, 3, 1, 1}, {1, 1, 2}), C("float32", {1, 3, 1, 1}, {1, 1, 0}), C("float32", {1, 3, 1, 1}, {10, 20, 30}),
                                C("int32", {int64_t(starts.size())}, starts), None(), C("int32", {}, {2})};
  };
  checkNear(ev("relax.nn.attention_var_len", args({0, 1, 3})), {1, 3, 1, 1}, {10, 22.689414213699951, 21.192029220221176});
  checkNear(ev("relax.nn.attention_var_len", args({0, 1, 3}), {{"causal_mask", S("TopLeft")}}), {1, 3, 1, 1}, {10, 20, 21.192029220221176});
  // one sequence of all three tokens
  checkNear(ev("relax.nn.attention_var_len", args({0, 3}), {{"scale", F(0)}}), {1, 3, 1, 1}, {20, 20, 20});
  CHECK(ev("relax.nn.attention_var_len", args({0, 5})).error ==
        "error: R.nn.attention_var_len: seqstart_q must be a 1-D cumulative sum of sequence lengths starting at 0 and ending within 3");
}

TEST_CASE("eval: every linear algebra, nn, image and vision op has an evaluator", "[eval][nn]") {
  std::vector<std::string> missing;
  for (const OpInfo* op : allOps()) {
    const std::string& n = op->name;
    bool family = n == "relax.matmul" || n == "relax.outer" || n == "relax.einsum" || n == "relax.quantize" || n == "relax.dequantize" ||
                  n.rfind("relax.nn.", 0) == 0 || n.rfind("relax.image.", 0) == 0 || n.rfind("relax.vision.", 0) == 0;
    if (family && !findEval(n)) missing.push_back(n);
  }
  CHECK(missing == std::vector<std::string>{});
}
