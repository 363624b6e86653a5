// invertIndexMap: hand-checked inverses of layout maps (splits, fusions, mixed radix) and the maps
// it must refuse (not injective, digits missing or overlapping), since a guess would be a wrong answer.
#include <catch2/catch.hpp>

#include "ir/arith.h"
#include "ir/index_map.h"
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
  std::vector<std::string> show(const IndexMapInverse& inv) {
    std::vector<std::string> out;
    for (auto& e : inv.inputIndex) out.push_back(printPrimExpr(e));
    out.push_back(inv.padding ? printPrimExpr(inv.padding) : "no padding");
    return out;
  }
};

}  // namespace

TEST_CASE("index maps: a channel split inverts to c * 4 + c4, with padding only when 4 does not divide", "[index_map]") {
  Fixture f;
  IndexMap m{{f.i, f.j}, {f.div(f.i, 4), f.j, f.mod(f.i, 4)}};
  auto inv = invertIndexMap(m, {f.c(8), f.c(3)}, {f.c(2), f.c(3), f.c(4)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"i0 * 4 + i2", "i1", "no padding"});
  inv = invertIndexMap(m, {f.c(7), f.c(3)}, {f.c(2), f.c(3), f.c(4)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"i0 * 4 + i2", "i1", "i0 * 4 + i2 >= 7"});
}

TEST_CASE("index maps: a fusion inverts to a division and a remainder", "[index_map]") {
  Fixture f;
  IndexMap m{{f.i, f.j}, {f.plus(f.mulc(f.i, 4), f.j)}};
  auto inv = invertIndexMap(m, {f.c(3), f.c(4)}, {f.c(12)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"i0 // 4", "i0 % 4", "no padding"});
}

TEST_CASE("index maps: mixed-radix digits of one param sum back", "[index_map]") {
  Fixture f;
  IndexMap m{{f.i}, {f.div(f.i, 16), f.div(f.mod(f.i, 16), 4), f.mod(f.i, 4)}};
  auto inv = invertIndexMap(m, {f.c(64)}, {f.c(4), f.c(4), f.c(4)});
  REQUIRE(inv);
  CHECK(f.show(*inv) == std::vector<std::string>{"i0 * 16 + i1 * 4 + i2", "no padding"});
}

TEST_CASE("index maps: maps that are not bijections onto their image are refused", "[index_map]") {
  Fixture f;
  CHECK_FALSE(invertIndexMap({{f.i}, {f.i, f.i}}, {f.c(4)}, {f.c(4), f.c(4)}));                     // i twice
  CHECK_FALSE(invertIndexMap({{f.i}, {f.div(f.i, 4)}}, {f.c(8)}, {f.c(2)}));                          // i % 4 lost
  CHECK_FALSE(invertIndexMap({{f.i}, {f.mod(f.i, 4), f.div(f.i, 2)}}, {f.c(8)}, {f.c(4), f.c(4)}));  // digits overlap
  CHECK_FALSE(invertIndexMap({{f.i}, {f.mulc(f.i, 2)}}, {f.c(4)}, {f.c(8)}));                         // gaps
  CHECK_FALSE(invertIndexMap({{f.i, f.j}, {f.i}}, {f.c(4), f.c(2)}, {f.c(4)}));                       // j unused
  CHECK_FALSE(invertIndexMap({{f.i}, {f.mod(f.i, 4)}}, {f.c(8)}, {f.c(4)}));                          // i // 4 lost
}
