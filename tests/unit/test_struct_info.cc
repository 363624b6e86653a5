// Unit tests of the StructInfo algebra (ir/struct_info.h): equality, is-base-of, LCA,
// substitution and matching, with hand-checked expectations from TVM's semantics.
#include <catch2/catch.hpp>

#include "ir/arith.h"
#include "ir/struct_info.h"
#include "ir/tir.h"

using namespace rlx;

namespace {

PrimExpr var(const char* name) { return make<PrimVar>(name, DataType::int64()); }
PrimExpr i64(int64_t v) { return intImm(v); }
StructInfo tensor(std::vector<PrimExpr> dims, DataType t = DataType::float32()) { return tensorSInfo(std::move(dims), t); }
StructInfo tensorNdim(int ndim, DataType t = DataType::float32()) { return make<TensorSInfo>(nullptr, t, ndim); }
const TensorSInfo* asT(const StructInfo& s) { return s.as<TensorSInfo>().get(); }
StructInfo tuple(std::vector<StructInfo> f) { return make<TupleSInfo>(std::move(f)); }
StructInfo func(std::vector<StructInfo> params, StructInfo ret, bool pure = true) { return make<FuncSInfo>(std::move(params), std::move(ret), pure); }
StructInfo opaqueFunc(StructInfo ret = objectSInfo(), bool pure = false) { return make<FuncSInfo>(std::nullopt, std::move(ret), pure); }

}  // namespace

TEST_CASE("sinfoEqual compares dims by provable equality", "[struct_info]") {
  auto n = var("n"), m = var("m");
  CHECK(sinfoEqual(tensor({n, i64(4)}), tensor({n, i64(4)})));
  CHECK(sinfoEqual(tensor({binary(NodeKind::Mul, n, i64(2))}), tensor({binary(NodeKind::Add, n, n)})));
  CHECK_FALSE(sinfoEqual(tensor({n}), tensor({m})));
  CHECK_FALSE(sinfoEqual(tensor({n}), tensor({n}, DataType(DataType::Float, 16))));
  CHECK_FALSE(sinfoEqual(tensor({n}), tensorNdim(1)));
  CHECK(sinfoEqual(make<PrimSInfo>(DataType::int64(), n), make<PrimSInfo>(DataType::int64(), n)));
  CHECK_FALSE(sinfoEqual(make<PrimSInfo>(DataType::int64(), n), make<PrimSInfo>(DataType::int64())));
  CHECK(sinfoEqual(tuple({tensor({i64(2)}), objectSInfo()}), tuple({tensor({i64(2)}), objectSInfo()})));
  CHECK_FALSE(sinfoEqual(tuple({tensor({i64(2)})}), tuple({tensor({i64(3)})})));
}

TEST_CASE("sinfoEqual compares shape vars by identity", "[struct_info]") {
  auto s1 = make<Var>("s", make<ShapeSInfo>(std::nullopt, 2));
  auto s2 = make<Var>("s", make<ShapeSInfo>(std::nullopt, 2));
  StructInfo a = make<TensorSInfo>(s1, DataType::float32(), -1);
  StructInfo b = make<TensorSInfo>(s1, DataType::float32(), -1);
  StructInfo c = make<TensorSInfo>(s2, DataType::float32(), -1);
  CHECK(asT(a)->ndim == 2);
  CHECK(sinfoEqual(a, b));
  CHECK_FALSE(sinfoEqual(a, c));
}

TEST_CASE("R.Object is the base of everything", "[struct_info]") {
  CHECK(sinfoIsBaseOf(objectSInfo(), tensor({i64(2)})));
  CHECK(sinfoIsBaseOf(objectSInfo(), tuple({})));
  CHECK(sinfoIsBaseOf(objectSInfo(), opaqueFunc()));
  CHECK_FALSE(sinfoIsBaseOf(tensor({i64(2)}), objectSInfo()));
}

TEST_CASE("tensor subtyping: unknown dtype, ndim and shape are bases", "[struct_info]") {
  auto n = var("n");
  auto t23 = tensor({i64(2), i64(3)});
  CHECK(sinfoIsBaseOf(tensorNdim(-1, DataType::void_()), t23));
  CHECK(sinfoIsBaseOf(tensorNdim(2), t23));
  CHECK(sinfoIsBaseOf(tensorNdim(2, DataType::void_()), t23));
  CHECK_FALSE(sinfoIsBaseOf(tensorNdim(3), t23));
  CHECK_FALSE(sinfoIsBaseOf(tensorNdim(2, DataType(DataType::Float, 16)), t23));
  CHECK_FALSE(sinfoIsBaseOf(t23, tensorNdim(2)));
  CHECK(sinfoIsBaseOf(tensor({n}), tensor({n})));
  CHECK_FALSE(sinfoIsBaseOf(tensor({n}), tensor({i64(4)})));
  CHECK_FALSE(sinfoIsBaseOf(t23, tensor({i64(2), i64(4)})));
}

TEST_CASE("prim and shape subtyping", "[struct_info]") {
  auto n = var("n");
  CHECK(sinfoIsBaseOf(make<PrimSInfo>(DataType::int64()), make<PrimSInfo>(DataType::int64(), n)));
  CHECK_FALSE(sinfoIsBaseOf(make<PrimSInfo>(DataType::int64(), n), make<PrimSInfo>(DataType::int64())));
  CHECK_FALSE(sinfoIsBaseOf(make<PrimSInfo>(DataType::int32()), make<PrimSInfo>(DataType::int64())));
  auto shape2 = make<ShapeSInfo>(std::vector<PrimExpr>{i64(1), n}, 2);
  CHECK(sinfoIsBaseOf(make<ShapeSInfo>(std::nullopt, -1), shape2));
  CHECK(sinfoIsBaseOf(make<ShapeSInfo>(std::nullopt, 2), shape2));
  CHECK_FALSE(sinfoIsBaseOf(make<ShapeSInfo>(std::nullopt, 3), shape2));
}

TEST_CASE("tuple subtyping is fieldwise", "[struct_info]") {
  auto t = tuple({tensor({i64(2)}), make<PrimSInfo>(DataType::int64())});
  CHECK(sinfoIsBaseOf(tuple({tensorNdim(1), objectSInfo()}), t));
  CHECK_FALSE(sinfoIsBaseOf(tuple({tensorNdim(1)}), t));
  CHECK_FALSE(sinfoIsBaseOf(tuple({tensorNdim(2), objectSInfo()}), t));
}

TEST_CASE("function subtyping: opaque base, contravariant params, purity", "[struct_info]") {
  auto f = func({tensorNdim(2)}, tensor({i64(2), i64(3)}));
  CHECK(sinfoIsBaseOf(opaqueFunc(), f));
  // The derived function accepts any 2-d tensor, so it can stand for one accepting (2, 3) only.
  CHECK(sinfoIsBaseOf(func({tensor({i64(2), i64(3)})}, tensorNdim(2)), f));
  CHECK_FALSE(sinfoIsBaseOf(func({tensorNdim(-1)}, tensorNdim(2)), f));
  // A pure function can stand where an impure one is expected, not vice versa.
  CHECK(sinfoIsBaseOf(func({tensorNdim(2)}, objectSInfo(), false), f));
  CHECK_FALSE(sinfoIsBaseOf(func({tensorNdim(2)}, objectSInfo(), true), func({tensorNdim(2)}, objectSInfo(), false)));
}

TEST_CASE("LCA of tensors keeps what both agree on", "[struct_info]") {
  auto lca = sinfoLCA(tensor({i64(2), i64(3)}), tensor({i64(2), i64(4)}));
  REQUIRE(asT(lca));
  CHECK(asT(lca)->ndim == 2);
  CHECK(asT(lca)->dtype == DataType::float32());
  CHECK_FALSE(asT(lca)->shape);

  auto same = tensor({i64(2), i64(3)});
  CHECK(sinfoLCA(same, tensor({i64(2), i64(3)})).get() == same.get());

  auto mixed = sinfoLCA(tensor({i64(2)}, DataType::float32()), tensor({i64(2)}, DataType::int32()));
  REQUIRE(asT(mixed));
  CHECK(asT(mixed)->dtype.isVoid());
  REQUIRE(asT(mixed)->dims());
  CHECK(asT(mixed)->dims()->size() == 1);

  auto rank = sinfoLCA(tensor({i64(2)}), tensor({i64(2), i64(2)}));
  CHECK(asT(rank)->ndim == -1);
}

TEST_CASE("LCA of different kinds is Object; tuples are fieldwise", "[struct_info]") {
  CHECK(sinfoLCA(tensor({i64(2)}), make<PrimSInfo>(DataType::int64()))->kind() == NodeKind::ObjectSInfo);
  CHECK(sinfoLCA(tuple({tensor({i64(1)})}), tuple({tensor({i64(1)}), tensor({i64(1)})}))->kind() == NodeKind::ObjectSInfo);
  auto t = sinfoLCA(tuple({tensor({i64(1)}), make<PrimSInfo>(DataType::int64())}), tuple({tensor({i64(2)}), make<PrimSInfo>(DataType::int64())}));
  auto tt = t.as<TupleSInfo>();
  REQUIRE(tt);
  CHECK(asT(tt->fields[0])->ndim == 1);
  CHECK_FALSE(asT(tt->fields[0])->shape);
  CHECK(tt->fields[1]->kind() == NodeKind::PrimSInfo);
  auto p = sinfoLCA(make<PrimSInfo>(DataType::int64(), i64(1)), make<PrimSInfo>(DataType::int64(), i64(2)));
  CHECK_FALSE(p.as<PrimSInfo>()->value);
  auto f = sinfoLCA(func({tensorNdim(1)}, tensor({i64(1)})), func({tensorNdim(2)}, tensor({i64(2)})));
  CHECK_FALSE(f.as<FuncSInfo>()->params);
}

TEST_CASE("substitution rebuilds only what changes and simplifies", "[struct_info]") {
  auto n = var("n"), m = var("m");
  PrimVarMap map{{static_cast<const PrimVar*>(n.get()), i64(4)}};
  auto s = tensor({binary(NodeKind::Mul, n, i64(2)), m});
  auto r = sinfoSubstitute(s, map);
  REQUIRE(asT(r)->dims());
  CHECK(asIntImm((*asT(r)->dims())[0])->value == 8);
  CHECK((*asT(r)->dims())[1].get() == m.get());
  auto untouched = tensor({m});
  CHECK(sinfoSubstitute(untouched, map).get() == untouched.get());
  auto tup = tuple({untouched, make<PrimSInfo>(DataType::int64(), binary(NodeKind::Add, n, i64(1)))});
  auto rt = sinfoSubstitute(tup, map).as<TupleSInfo>();
  CHECK(rt->fields[0].get() == untouched.get());
  CHECK(asIntImm(rt->fields[1].as<PrimSInfo>()->value)->value == 5);
  auto mm = binary(NodeKind::Add, m, m);
  CHECK(primSubstitute(mm, map).get() == mm.get());  // no mapped var inside: same node back
}

TEST_CASE("collect vars of a struct info in order", "[struct_info]") {
  auto n = var("n"), m = var("m");
  std::vector<Ref<PrimVar>> vars;
  sinfoCollectVars(func({tensor({m, n}), tensor({n})}, make<PrimSInfo>(DataType::int64(), binary(NodeKind::Add, m, var("k")))), vars);
  REQUIRE(vars.size() == 3);
  CHECK(vars[0].get() == m.get());
  CHECK(vars[1].get() == n.get());
  CHECK(vars[2]->name == "k");
}

TEST_CASE("matching binds pattern vars to actual dims", "[struct_info]") {
  auto n = var("n"), m = var("m");
  PrimVarMap map;
  CHECK(sinfoMatch(tuple({tensor({n, m}), tensor({m})}), tuple({tensor({i64(4), i64(5)}), tensor({i64(5)})}), map));
  CHECK(asIntImm(map.at(static_cast<const PrimVar*>(n.get())))->value == 4);
  CHECK(asIntImm(map.at(static_cast<const PrimVar*>(m.get())))->value == 5);

  PrimVarMap clash;
  CHECK_FALSE(sinfoMatch(tuple({tensor({n}), tensor({n})}), tuple({tensor({i64(4)}), tensor({i64(5)})}), clash));
  PrimVarMap rank;
  CHECK_FALSE(sinfoMatch(tensor({n}), tensor({i64(4), i64(5)}), rank));
  PrimVarMap dtype;
  CHECK_FALSE(sinfoMatch(tensor({n}), tensor({i64(4)}, DataType::int32()), dtype));
}

TEST_CASE("matching checks compound dims after substitution", "[struct_info]") {
  auto n = var("n"), k = var("k");
  PrimVarMap ok;
  CHECK(sinfoMatch(tensor({n, binary(NodeKind::Mul, n, i64(2))}), tensor({i64(3), i64(6)}), ok));
  PrimVarMap bad;
  CHECK_FALSE(sinfoMatch(tensor({n, binary(NodeKind::Mul, n, i64(2))}), tensor({i64(3), i64(7)}), bad));
  // A lone compound dim with one unknown var is solved: n * 2 + 1 = 9 gives n = 4.
  PrimVarMap solved;
  CHECK(sinfoMatch(tensor({binary(NodeKind::Add, binary(NodeKind::Mul, n, i64(2)), i64(1))}), tensor({i64(9)}), solved));
  CHECK(asIntImm(solved.at(static_cast<const PrimVar*>(n.get())))->value == 4);
  // Symbolic actuals bind symbolically.
  PrimVarMap sym;
  CHECK(sinfoMatch(tensor({n}), tensor({binary(NodeKind::Add, k, i64(1))}), sym));
  CHECK(proveEqual(sym.at(static_cast<const PrimVar*>(n.get())), binary(NodeKind::Add, k, i64(1))));
  // Unknown actual info does not fail the match.
  PrimVarMap unknown;
  CHECK(sinfoMatch(tensor({n}), tensorNdim(-1), unknown));
  CHECK(sinfoMatch(tensor({n}), objectSInfo(), unknown));
}
