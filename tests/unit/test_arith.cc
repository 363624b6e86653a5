// Unit tests of the shape-arithmetic simplifier (ir/arith.h): canonical forms, constant folding,
// Python floordiv/floormod semantics, proveEqual. Expected strings are TVM's canonical prints.
#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <string>

#include "ir/arith.h"
#include "ir/tir.h"

using namespace rlx;

namespace {

// A minimal TVMScript-like rendering (Python precedence) so expectations read like TVM output;
// independent of the real printer so these tests only exercise the simplifier.
int prec(NodeKind k) {
  switch (k) {
    case NodeKind::Add: case NodeKind::Sub: return 1;
    case NodeKind::Mul: case NodeKind::FloorDiv: case NodeKind::FloorMod: case NodeKind::Div: case NodeKind::Mod: return 2;
    default: return 0;
  }
}

std::string show(const PrimExpr& e) {
  switch (e->kind()) {
    case NodeKind::IntImm: return std::to_string(static_cast<const IntImm*>(e.get())->value);
    case NodeKind::PrimVar: return static_cast<const PrimVar*>(e.get())->name;
    case NodeKind::Min:
    case NodeKind::Max: {
      auto* b = static_cast<const PrimBinary*>(e.get());
      return std::string(e->kind() == NodeKind::Min ? "T.min(" : "T.max(") + show(b->a) + ", " + show(b->b) + ")";
    }
    default: break;
  }
  if (PrimBinary::classOf(e->kind())) {
    auto* b = static_cast<const PrimBinary*>(e.get());
    int p = prec(e->kind());
    std::string l = show(b->a), r = show(b->b);
    if (p && prec(b->a->kind()) && prec(b->a->kind()) < p) l = "(" + l + ")";
    if (p && prec(b->b->kind()) && prec(b->b->kind()) <= p) r = "(" + r + ")";
    return l + " " + binaryOpSymbol(e->kind()) + " " + r;
  }
  return "?";
}

PrimExpr var(const char* name) { return make<PrimVar>(name, DataType::int64()); }
PrimExpr i64(int64_t v) { return intImm(v); }
PrimExpr B(NodeKind k, PrimExpr a, PrimExpr b) { return binary(k, std::move(a), std::move(b)); }
PrimExpr S(NodeKind k, PrimExpr a, PrimExpr b) { return simplify(binary(k, std::move(a), std::move(b))); }

// Deep structural identity of two trees (same shape, same constants, same var objects).
bool sameTree(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return true;
  if (a->kind() != b->kind() || a->dtype != b->dtype) return false;
  if (auto* x = asIntImm(a)) return x->value == asIntImm(b)->value;
  if (!PrimBinary::classOf(a->kind())) return false;
  auto *x = static_cast<const PrimBinary*>(a.get()), *y = static_cast<const PrimBinary*>(b.get());
  return sameTree(x->a, y->a) && sameTree(x->b, y->b);
}

}  // namespace

TEST_CASE("n*2+1 built three ways gives the same tree", "[arith]") {
  auto n = var("n");
  auto a = simplify(B(NodeKind::Add, B(NodeKind::Mul, n, i64(2)), i64(1)));
  auto b = simplify(B(NodeKind::Add, i64(1), B(NodeKind::Mul, i64(2), n)));
  auto c = simplify(B(NodeKind::Add, B(NodeKind::Add, n, n), i64(1)));
  CHECK(show(a) == "n * 2 + 1");
  CHECK(sameTree(a, b));
  CHECK(sameTree(a, c));
  CHECK(a->dtype == DataType::int64());
}

TEST_CASE("canonical forms print like TVM", "[arith]") {
  auto n = var("n"), m = var("m"), h = var("h");
  CHECK(show(S(NodeKind::Mul, n, m)) == "n * m");
  CHECK(show(S(NodeKind::Sub, h, i64(2))) == "h - 2");
  CHECK(show(S(NodeKind::Add, i64(1), n)) == "n + 1");
  CHECK(show(S(NodeKind::FloorDiv, n, i64(2))) == "n // 2");
  CHECK(show(S(NodeKind::FloorDiv, B(NodeKind::Add, i64(1), n), i64(2))) == "(n + 1) // 2");
  CHECK(show(S(NodeKind::Sub, B(NodeKind::Mul, n, m), n)) == "n * m - n");
  // Terms sort by descending coefficient (stable), constants between positive and negative terms.
  CHECK(show(S(NodeKind::Sub, B(NodeKind::Add, n, B(NodeKind::Mul, m, i64(2))), B(NodeKind::Sub, h, i64(3)))) == "m * 2 + n + 3 - h");
  CHECK(show(S(NodeKind::Sub, i64(1), n)) == "1 - n");
  // A product keeps its factors in order with the constant last: n * m * 2.
  CHECK(show(S(NodeKind::Mul, B(NodeKind::Mul, n, i64(2)), m)) == "n * m * 2");
  // A product of sums stays a product.
  CHECK(show(S(NodeKind::Mul, B(NodeKind::Add, n, i64(1)), m)) == "(n + 1) * m");
  // Distribution of a constant over a sum.
  CHECK(show(S(NodeKind::Mul, B(NodeKind::Add, n, i64(1)), i64(2))) == "n * 2 + 2");
}

TEST_CASE("like terms merge and cancel", "[arith]") {
  auto n = var("n"), m = var("m");
  CHECK(show(S(NodeKind::Sub, B(NodeKind::Add, n, m), n)) == "m");
  CHECK(show(S(NodeKind::Sub, n, n)) == "0");
  CHECK(show(S(NodeKind::Add, B(NodeKind::Mul, n, m), B(NodeKind::Mul, m, n))) == "n * m * 2");
  CHECK(show(S(NodeKind::Mul, n, i64(0))) == "0");
}

TEST_CASE("2*n and n+n are provably equal", "[arith]") {
  auto n = var("n"), m = var("m");
  CHECK(proveEqual(B(NodeKind::Mul, i64(2), n), B(NodeKind::Add, n, n)));
  CHECK_FALSE(proveEqual(B(NodeKind::Mul, i64(2), n), B(NodeKind::Add, n, m)));
  // Needs distribution, which only proveEqual does.
  CHECK(proveEqual(B(NodeKind::Mul, B(NodeKind::Add, n, i64(1)), m), B(NodeKind::Add, B(NodeKind::Mul, m, n), m)));
  CHECK(proveEqual(B(NodeKind::FloorDiv, B(NodeKind::Add, n, m), i64(2)), B(NodeKind::FloorDiv, B(NodeKind::Add, m, n), i64(2))));
}

TEST_CASE("exact division and modulo by constants", "[arith]") {
  auto n = var("n"), m = var("m");
  CHECK(show(S(NodeKind::FloorDiv, B(NodeKind::Mul, n, i64(4)), i64(4))) == "n");
  CHECK(show(S(NodeKind::FloorMod, B(NodeKind::Mul, n, i64(4)), i64(4))) == "0");
  CHECK(show(S(NodeKind::FloorDiv, n, i64(1))) == "n");
  CHECK(show(S(NodeKind::FloorMod, n, i64(1))) == "0");
  // (n * 4 + m * 2 + 6) // 2 = n * 2 + m + 3
  auto sum = B(NodeKind::Add, B(NodeKind::Add, B(NodeKind::Mul, n, i64(4)), B(NodeKind::Mul, m, i64(2))), i64(6));
  CHECK(show(S(NodeKind::FloorDiv, sum, i64(2))) == "n * 2 + m + 3");
  // (n * 4 + m) // 4 = n + m // 4 ; (n * 2 + 1) // 2 = n
  CHECK(show(S(NodeKind::FloorDiv, B(NodeKind::Add, B(NodeKind::Mul, n, i64(4)), m), i64(4))) == "n + m // 4");
  CHECK(show(S(NodeKind::FloorDiv, B(NodeKind::Add, B(NodeKind::Mul, n, i64(2)), i64(1)), i64(2))) == "n");
  // (n * 2) // 4 = n // 2 ; (n // 2) // 3 = n // 6
  CHECK(show(S(NodeKind::FloorDiv, B(NodeKind::Mul, n, i64(2)), i64(4))) == "n // 2");
  CHECK(show(S(NodeKind::FloorDiv, B(NodeKind::FloorDiv, n, i64(2)), i64(3))) == "n // 6");
  // (n * 4 + 5) % 4 = 1 ; (n - 5) % 3 = (n + 1) % 3 ; (n * 2) % 4 = n % 2 * 2
  CHECK(show(S(NodeKind::FloorMod, B(NodeKind::Add, B(NodeKind::Mul, n, i64(4)), i64(5)), i64(4))) == "1");
  CHECK(show(S(NodeKind::FloorMod, B(NodeKind::Sub, n, i64(5)), i64(3))) == "(n + 1) % 3");
  CHECK(show(S(NodeKind::FloorMod, B(NodeKind::Mul, n, i64(2)), i64(4))) == "n % 2 * 2");
  // Symbolic exact division: n * m // m = n, (n * m) % m = 0.
  CHECK(show(S(NodeKind::FloorDiv, B(NodeKind::Mul, n, m), m)) == "n");
  CHECK(show(S(NodeKind::FloorMod, B(NodeKind::Mul, n, m), m)) == "0");
}

TEST_CASE("floordiv and floormod fold with Python semantics", "[arith]") {
  auto fd = [](int64_t a, int64_t b) { return asIntImm(floordiv(i64(a), i64(b)))->value; };
  auto fm = [](int64_t a, int64_t b) { return asIntImm(floormod(i64(a), i64(b)))->value; };
  CHECK(fd(7, 2) == 3);
  CHECK(fd(-7, 2) == -4);
  CHECK(fd(7, -2) == -4);
  CHECK(fd(-7, -2) == 3);
  CHECK(fm(7, 2) == 1);
  CHECK(fm(-7, 2) == 1);
  CHECK(fm(7, -2) == -1);
  CHECK(fm(-7, -2) == -1);
  CHECK(fm(-6, 3) == 0);
}

TEST_CASE("constants fold for every operator", "[arith]") {
  CHECK(asIntImm(add(i64(2), i64(3)))->value == 5);
  CHECK(asIntImm(sub(i64(2), i64(3)))->value == -1);
  CHECK(asIntImm(mul(i64(4), i64(3)))->value == 12);
  CHECK(asIntImm(minExpr(i64(4), i64(3)))->value == 3);
  CHECK(asIntImm(maxExpr(i64(4), i64(3)))->value == 4);
  CHECK(constInt(B(NodeKind::Mul, B(NodeKind::Add, i64(1), i64(2)), i64(5))) == 15);
  auto lt = simplify(B(NodeKind::LT, i64(1), i64(2)));
  REQUIRE(asIntImm(lt));
  CHECK(lt->dtype.isBool());
  CHECK(asIntImm(lt)->value == 1);
  CHECK(asIntImm(simplify(B(NodeKind::And, boolImm(true), boolImm(false))))->value == 0);
  CHECK(asIntImm(simplify(B(NodeKind::Or, boolImm(true), boolImm(false))))->value == 1);
  CHECK(asIntImm(simplify(make<PrimNot>(boolImm(false))))->value == 1);
  // int32 arithmetic wraps like TVM's folding.
  auto big = make<IntImm>(DataType::int32(), 2147483647);
  auto wrapped = add(big, make<IntImm>(DataType::int32(), 1));
  CHECK(asIntImm(wrapped)->value == -2147483648LL);
  CHECK(wrapped->dtype == DataType::int32());
  // Floats fold only when both sides are constants.
  auto f = simplify(B(NodeKind::Mul, floatImm(1.5), floatImm(2.0)));
  REQUIRE(f->kind() == NodeKind::FloatImm);
  CHECK(static_cast<const FloatImm*>(f.get())->value == 3.0);
}

TEST_CASE("comparisons and min/max decide from constant differences", "[arith]") {
  auto n = var("n");
  CHECK(asIntImm(simplify(B(NodeKind::LT, n, B(NodeKind::Add, n, i64(1)))))->value == 1);
  CHECK(asIntImm(simplify(B(NodeKind::EQ, B(NodeKind::Mul, n, i64(2)), B(NodeKind::Add, n, n))))->value == 1);
  CHECK(simplify(B(NodeKind::Min, n, B(NodeKind::Add, n, i64(3)))).get() == n.get());
  CHECK(show(simplify(B(NodeKind::Max, n, B(NodeKind::Add, n, i64(3))))) == "n + 3");
  CHECK(minExpr(n, n).get() == n.get());
  auto m = var("m");
  CHECK(show(maxExpr(n, m)) == "T.max(n, m)");
}

TEST_CASE("simplify returns the same node when nothing changes", "[arith]") {
  auto n = var("n"), m = var("m");
  auto e = B(NodeKind::Add, B(NodeKind::Mul, n, i64(2)), i64(1));
  CHECK(simplify(e).get() == e.get());
  auto p = B(NodeKind::Mul, n, m);
  CHECK(simplify(p).get() == p.get());
  auto d = B(NodeKind::FloorDiv, B(NodeKind::Add, n, i64(1)), i64(2));
  CHECK(simplify(d).get() == d.get());
  CHECK(simplify(n).get() == n.get());
  // Idempotence on a busier expression.
  auto busy = simplify(B(NodeKind::Sub, B(NodeKind::Add, B(NodeKind::Mul, m, i64(3)), B(NodeKind::FloorMod, n, i64(4))), i64(7)));
  CHECK(simplify(busy).get() == busy.get());
}

TEST_CASE("folding constructors take fast paths", "[arith]") {
  auto n = var("n");
  CHECK(add(n, i64(0)).get() == n.get());
  CHECK(mul(n, i64(1)).get() == n.get());
  CHECK(floordiv(n, i64(1)).get() == n.get());
  CHECK(asIntImm(floormod(n, i64(1)))->value == 0);
  CHECK(asIntImm(mul(n, i64(0)))->value == 0);
  CHECK(show(mul(add(n, i64(1)), i64(2))) == "n * 2 + 2");
  // An int32 literal adopts the symbolic operand's int64 dtype.
  CHECK(add(n, make<IntImm>(DataType::int32(), 1))->dtype == DataType::int64());
  CHECK(show(sub(mul(n, i64(2)), n)) == "n");
}

TEST_CASE("collectVars lists vars in first-occurrence order", "[arith]") {
  auto n = var("n"), m = var("m"), k = var("k");
  std::vector<Ref<PrimVar>> vars;
  collectVars(B(NodeKind::Add, B(NodeKind::Mul, m, n), B(NodeKind::FloorDiv, k, m)), vars);
  REQUIRE(vars.size() == 3);
  CHECK(vars[0].get() == m.get());
  CHECK(vars[1].get() == n.get());
  CHECK(vars[2].get() == k.get());
}

TEST_CASE("results keep the expression's dtype", "[arith]") {
  auto k = make<PrimVar>("k", DataType::int32());
  auto e = simplify(binary(NodeKind::Add, binary(NodeKind::Mul, make<IntImm>(DataType::int32(), 2), k), make<IntImm>(DataType::int32(), 1)));
  CHECK(show(e) == "k * 2 + 1");
  CHECK(e->dtype == DataType::int32());
  auto* sum = static_cast<const PrimBinary*>(e.get());
  CHECK(sum->b->dtype == DataType::int32());
  CHECK(static_cast<const PrimBinary*>(sum->a.get())->b->dtype == DataType::int32());
}

namespace {

// Evaluates an integer expression with Python semantics; nullopt on division by zero.
std::optional<int64_t> evalInt(const PrimExpr& e, const std::vector<std::pair<const Object*, int64_t>>& env) {
  if (auto* i = asIntImm(e)) return i->value;
  if (e->kind() == NodeKind::PrimVar) {
    for (auto& [v, x] : env)
      if (v == e.get()) return x;
    return std::nullopt;
  }
  auto* b = static_cast<const PrimBinary*>(e.get());
  auto x = evalInt(b->a, env), y = evalInt(b->b, env);
  if (!x || !y) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::Add: return *x + *y;
    case NodeKind::Sub: return *x - *y;
    case NodeKind::Mul: return *x * *y;
    case NodeKind::Min: return std::min(*x, *y);
    case NodeKind::Max: return std::max(*x, *y);
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod: {
      if (*y == 0) return std::nullopt;
      int64_t q = *x / *y;
      if (*x % *y != 0 && ((*x < 0) != (*y < 0))) --q;
      return e->kind() == NodeKind::FloorDiv ? q : *x - q * *y;
    }
    default: return std::nullopt;
  }
}

PrimExpr randomExpr(std::mt19937& rng, const std::vector<PrimExpr>& vars, int depth) {
  int pick = int(rng() % 10);
  if (depth == 0 || pick < 2) {
    if (rng() % 2) return vars[rng() % vars.size()];
    return intImm(int64_t(rng() % 9) - 3);
  }
  static const NodeKind ops[] = {NodeKind::Add, NodeKind::Sub, NodeKind::Mul, NodeKind::Add, NodeKind::FloorDiv, NodeKind::FloorMod, NodeKind::Min, NodeKind::Max};
  NodeKind k = ops[rng() % 8];
  PrimExpr a = randomExpr(rng, vars, depth - 1);
  PrimExpr b = (k == NodeKind::FloorDiv || k == NodeKind::FloorMod) && rng() % 3 ? intImm(int64_t(rng() % 5) + 1) : randomExpr(rng, vars, depth - 1);
  return binary(k, a, b);
}

}  // namespace

TEST_CASE("randomized: simplify preserves values and is idempotent", "[arith]") {
  std::mt19937 rng(12345);
  std::vector<PrimExpr> vars{var("a"), var("b"), var("c")};
  for (int iter = 0; iter < 2000; ++iter) {
    PrimExpr e = randomExpr(rng, vars, 4);
    PrimExpr s = simplify(e);
    INFO("expr: " << show(e) << "  simplified: " << show(s));
    CHECK(sameTree(simplify(s), s));
    for (int sample = 0; sample < 6; ++sample) {
      std::vector<std::pair<const Object*, int64_t>> env;
      for (auto& v : vars) env.emplace_back(v.get(), int64_t(rng() % 15) - 7);
      auto want = evalInt(e, env);
      if (!want) continue;
      auto got = evalInt(s, env);
      REQUIRE(got);
      CHECK(*got == *want);
    }
  }
}

TEST_CASE("randomized: proveEqual is sound and sees through simplification", "[arith]") {
  std::mt19937 rng(777);
  std::vector<PrimExpr> vars{var("a"), var("b")};
  int proved = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    PrimExpr e = randomExpr(rng, vars, 3), f = randomExpr(rng, vars, 3);
    CHECK(proveEqual(e, simplify(e)));
    if (!proveEqual(e, f)) continue;
    ++proved;
    INFO("claimed equal: " << show(e) << "  vs  " << show(f));
    for (int sample = 0; sample < 8; ++sample) {
      std::vector<std::pair<const Object*, int64_t>> env;
      for (auto& v : vars) env.emplace_back(v.get(), int64_t(rng() % 15) - 7);
      auto x = evalInt(e, env), y = evalInt(f, env);
      if (x && y) CHECK(*x == *y);
    }
  }
  CHECK(proved > 0);
}
