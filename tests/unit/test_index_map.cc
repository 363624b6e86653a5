// index_map::inverse: hand-checked inverses of layout maps (splits, fusions, mixed radix) and the maps
// it must refuse (not injective, digits missing or overlapping), since a guess would be a wrong answer.
#include <catch2/catch.hpp>

#include "ir/arith.h"
#include "passes/index_map.h"
#include "printer/printer.h"

using namespace rlx;

namespace {

struct Fixture {
  Ref<PrimVar> i = make<PrimVar>("i", DataType::int64()), j = make<PrimVar>("j", DataType::int64());
  PrimExpr c(int64_t v) { return intImm(v); }
  PrimExpr div(const PrimExpr& a, int64_t b) { return make<PrimBinary>(NodeKind::FloorDiv, DataType::int64(), a, c(b)); }
  PrimExpr mod(const PrimExpr& a, int64_t b) { return make<PrimBinary>(NodeKind::FloorMod, DataType::int64(), a, c(b)); }
  PrimExpr mulc(const PrimExpr& a, int64_t b) { return make<PrimBinary>(NodeKind::Mul, DataType::int64(), a, c(b)); }
  PrimExpr plus(const PrimExpr& a, const PrimExpr& b) { return make<PrimBinary>(NodeKind::Add, DataType::int64(), a, b); }
  std::vector<std::string> show(const index_map::Inverse& inv) {
    std::vector<std::string> out;
    for (auto& e : inv.map.results) out.push_back(printPrimExpr(e));
    out.push_back(inv.padded ? "padded" : "no padding");
    return out;
  }
  // The inverse when there is one (shapes of the map's input only).
  std::optional<index_map::Inverse> invert(const index_map::IndexMap& m, const std::vector<PrimExpr>& shape) {
    auto inv = index_map::inverse(m, shape);
    if (!inv.ok()) return std::nullopt;
    return inv.value();
  }
};

}  // namespace

TEST_CASE("index maps: a channel split inverts to c * 4 + c4, with padding only when 4 does not divide", "[index_map]") {
  Fixture f;
  index_map::IndexMap m{{f.i, f.j}, {f.div(f.i, 4), f.j, f.mod(f.i, 4)}};
  auto inv = f.invert(m, {f.c(8), f.c(3)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"axis0 * 4 + axis2", "axis1", "no padding"});
  inv = f.invert(m, {f.c(7), f.c(3)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"axis0 * 4 + axis2", "axis1", "padded"});
}

TEST_CASE("index maps: a fusion inverts to a division and a remainder (TVM keeps the top digit's modulus)", "[index_map]") {
  Fixture f;
  index_map::IndexMap m{{f.i, f.j}, {f.plus(f.mulc(f.i, 4), f.j)}};
  auto inv = f.invert(m, {f.c(3), f.c(4)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"axis0 // 4 % 3", "axis0 % 4", "no padding"});
}

TEST_CASE("index maps: mixed-radix digits of one param sum back", "[index_map]") {
  Fixture f;
  index_map::IndexMap m{{f.i}, {f.div(f.i, 16), f.div(f.mod(f.i, 16), 4), f.mod(f.i, 4)}};
  auto inv = f.invert(m, {f.c(64)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"axis0 * 16 + axis1 * 4 + axis2", "no padding"});
}

TEST_CASE("index maps: maps that are not bijections onto their image are refused", "[index_map]") {
  Fixture f;
  CHECK_FALSE(f.invert(index_map::IndexMap{{f.i}, {f.i, f.i}}, {f.c(4)}));                     // i twice
  CHECK_FALSE(f.invert(index_map::IndexMap{{f.i}, {f.div(f.i, 4)}}, {f.c(8)}));                          // i % 4 lost
  CHECK_FALSE(f.invert(index_map::IndexMap{{f.i}, {f.mod(f.i, 4), f.div(f.i, 2)}}, {f.c(8)}));  // digits overlap
  CHECK_FALSE(f.invert(index_map::IndexMap{{f.i}, {f.mulc(f.i, 2)}}, {f.c(4)}));                         // gaps
  CHECK_FALSE(f.invert(index_map::IndexMap{{f.i, f.j}, {f.i}}, {f.c(4), f.c(2)}));                       // j unused
  CHECK_FALSE(f.invert(index_map::IndexMap{{f.i}, {f.mod(f.i, 4)}}, {f.c(8)}));                          // i // 4 lost
}
