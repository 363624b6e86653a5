// Unit tests of structural equality and hashing (ir/structural_equal.h): alpha-equivalence,
// mismatch paths and descriptions, free-var identity, module order-insensitivity, TIR binders.
#include <catch2/catch.hpp>

#include "ir/module.h"
#include "ir/structural_equal.h"

using namespace rlx;

namespace {

PrimVarRef pvar(const char* name) { return make<PrimVar>(name, DataType::int64()); }

Expr constant(std::vector<float> values) {
  auto nd = make<NDArray>(DataType::float32(), std::vector<int64_t>{int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i) nd->setDouble(int64_t(i), values[i]);
  return make<Constant>(nd);
}

// def f(x: R.Tensor((n, 4), "float32")) { with dataflow: lv = add(x, c); gv = lv; return gv }
// built with fresh vars named after the arguments, so two calls give alpha-equivalent functions.
FunctionRef makeFunc(const char* xName, const char* nName, std::vector<float> data, bool dataflowLv = true) {
  auto n = pvar(nName);
  auto sinfo = tensorSInfo({n, intImm(4)}, DataType::float32());
  auto x = make<Var>(xName, sinfo);
  auto lv = make<Var>("lv", sinfo, dataflowLv);
  auto gv = make<Var>("gv", sinfo);
  auto call = make<Call>(make<ExternFunc>("my_add"), std::vector<Expr>{x, constant(std::move(data))});
  std::vector<BindingRef> bindings{make<Binding>(lv, call), make<Binding>(gv, lv)};
  auto block = make<BindingBlock>(std::move(bindings), true);
  auto body = make<SeqExpr>(std::vector<BlockRef>{block}, gv);
  return make<Function>(std::vector<VarRef>{x}, body, sinfo, true, makeDictAttrs({{"global_symbol", AttrValue::str("f")}}));
}

// A T.prim_func copying A to B over a loop, with fresh buffers/vars each call.
PrimFuncRef makeCopy(const char* loopName, int64_t extent) {
  auto mkBuf = [extent](const char* name) {
    auto b = make<Buffer>();
    b->name = name;
    b->shape = {intImm(extent)};
    b->data = make<PrimVar>(std::string(name) + "_data", DataType::handle());
    return b;
  };
  auto a = mkBuf("A"), bb = mkBuf("B");
  auto pa = make<PrimVar>("a", DataType::handle()), pb = make<PrimVar>("b", DataType::handle());
  auto i = pvar(loopName);
  auto loop = make<For>();
  loop->loopVar = i;
  loop->min = intImm(0);
  loop->extent = intImm(extent);
  loop->body = make<BufferStore>(bb, make<BufferLoad>(DataType::float32(), a, std::vector<PrimExpr>{i}), std::vector<PrimExpr>{i});
  auto f = make<PrimFunc>();
  f->params = {pa, pb};
  f->bufferMap = {{pa, a}, {pb, bb}};
  f->body = loop;
  return f;
}

}  // namespace

TEST_CASE("alpha-equivalent functions are equal and hash alike", "[structural_equal]") {
  auto f = makeFunc("x", "n", {1, 2, 3});
  auto g = makeFunc("y", "m", {1, 2, 3});
  auto r = structuralEqual(f, g);
  CHECK(r.equal);
  CHECK(r.path.empty());
  CHECK(structuralHash(f) == structuralHash(g));
  CHECK(structuralEqual(f, f).equal);
}

TEST_CASE("different constant data are unequal with the path to the data", "[structural_equal]") {
  auto f = makeFunc("x", "n", {1, 2, 3});
  auto g = makeFunc("x", "n", {1, 5, 3});
  auto r = structuralEqual(f, g);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Function.body.blocks[0].bindings[0].value.args[1].data");
  CHECK(r.lhs == "NDArray float32[3]: data[1] = 2");
  CHECK(r.rhs == "NDArray float32[3]: data[1] = 5");
  CHECK(structuralHash(f) != structuralHash(g));
}

TEST_CASE("DataflowVar and Var differ", "[structural_equal]") {
  auto r = structuralEqual(makeFunc("x", "n", {1}, true), makeFunc("x", "n", {1}, false));
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Function.body.blocks[0].bindings[0].var");
  CHECK(r.lhs == "DataflowVar lv");
  CHECK(r.rhs == "Var lv");
}

TEST_CASE("free vars compare by identity unless mapped", "[structural_equal]") {
  auto n = pvar("n"), m = pvar("m");
  auto a = binary(NodeKind::Add, n, intImm(1));
  auto b = binary(NodeKind::Add, m, intImm(1));
  auto c = binary(NodeKind::Add, n, intImm(1));
  auto r = structuralEqual(a, b);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Add.a");
  CHECK(r.lhs == "PrimVar n (int64)");
  CHECK(r.rhs == "PrimVar m (int64)");
  CHECK(structuralEqual(a, c).equal);
  CHECK(structuralHash(a) == structuralHash(c));
  CHECK(structuralEqual(a, b, /*mapFreeVars=*/true).equal);
  // Mapping stays bijective: n + n vs n + m cannot both map.
  CHECK_FALSE(structuralEqual(binary(NodeKind::Add, n, n), binary(NodeKind::Add, n, m), true).equal);
  // Free Relax vars too.
  auto x = make<Var>("x", objectSInfo()), y = make<Var>("x", objectSInfo());
  CHECK_FALSE(structuralEqual(x, y).equal);
  CHECK(structuralEqual(x, y, true).equal);
}

TEST_CASE("bound vars must be used consistently", "[structural_equal]") {
  auto mk = [](bool returnFirst) {
    auto x = make<Var>("x", objectSInfo()), y = make<Var>("y", objectSInfo());
    auto body = make<SeqExpr>(std::vector<BlockRef>{}, returnFirst ? Expr(x) : Expr(y));
    return make<Function>(std::vector<VarRef>{x, y}, body, objectSInfo(), true, nullptr);
  };
  auto r = structuralEqual(mk(true), mk(false));
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Function.body.body");
  CHECK(r.lhs == "Var x");
  CHECK(r.rhs == "Var y");
  CHECK(structuralHash(mk(true)) != structuralHash(mk(false)));
}

TEST_CASE("symbolic dims bound by the signature are alpha-renamed", "[structural_equal]") {
  // x: R.Tensor((n,)) returning R.Tensor((n,)) vs a body that uses a different free var.
  auto n = pvar("n"), k = pvar("k");
  auto x = make<Var>("x", tensorSInfo({n}, DataType::float32()));
  auto f = make<Function>(std::vector<VarRef>{x}, make<SeqExpr>(std::vector<BlockRef>{}, x), tensorSInfo({n}, DataType::float32()), true, nullptr);
  auto m = pvar("m");
  auto y = make<Var>("y", tensorSInfo({m}, DataType::float32()));
  auto g = make<Function>(std::vector<VarRef>{y}, make<SeqExpr>(std::vector<BlockRef>{}, y), tensorSInfo({m}, DataType::float32()), true, nullptr);
  CHECK(structuralEqual(f, g).equal);
  auto z = make<Var>("z", tensorSInfo({m}, DataType::float32()));
  auto h = make<Function>(std::vector<VarRef>{z}, make<SeqExpr>(std::vector<BlockRef>{}, z), tensorSInfo({k}, DataType::float32()), true, nullptr);
  auto r = structuralEqual(f, h);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Function.ret_struct_info.shape.values[0]");
}

TEST_CASE("GlobalVar names matter", "[structural_equal]") {
  auto a = make<Call>(make<GlobalVar>("foo"), std::vector<Expr>{});
  auto b = make<Call>(make<GlobalVar>("bar"), std::vector<Expr>{});
  auto r = structuralEqual(a, b);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Call.op");
  CHECK(r.lhs == "GlobalVar foo");
  CHECK(r.rhs == "GlobalVar bar");
  CHECK(structuralEqual(a, make<Call>(make<GlobalVar>("foo"), std::vector<Expr>{})).equal);
}

TEST_CASE("modules compare functions by name, in any order", "[structural_equal]") {
  auto m1 = withFunction(withFunction(nullptr, make<GlobalVar>("main"), makeFunc("x", "n", {1})), make<GlobalVar>("copy"), makeCopy("i", 8));
  auto m2 = withFunction(withFunction(nullptr, make<GlobalVar>("copy"), makeCopy("j", 8)), make<GlobalVar>("main"), makeFunc("y", "m", {1}));
  CHECK(structuralEqual(m1, m2).equal);
  CHECK(structuralHash(m1) == structuralHash(m2));

  auto m3 = withFunction(withFunction(nullptr, make<GlobalVar>("main"), makeFunc("x", "n", {2})), make<GlobalVar>("copy"), makeCopy("i", 8));
  auto r = structuralEqual(m1, m3);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Module.functions[\"main\"].body.blocks[0].bindings[0].value.args[1].data");

  auto m4 = withFunction(nullptr, make<GlobalVar>("main"), makeFunc("x", "n", {1}));
  auto missing = structuralEqual(m1, m4);
  CHECK_FALSE(missing.equal);
  CHECK(missing.path == "Module.functions[\"copy\"]");
  CHECK(missing.rhs == "missing");
}

TEST_CASE("TIR loop vars and buffers are binders", "[structural_equal]") {
  CHECK(structuralEqual(makeCopy("i", 8), makeCopy("j", 8)).equal);
  CHECK(structuralHash(makeCopy("i", 8)) == structuralHash(makeCopy("j", 8)));
  auto r = structuralEqual(makeCopy("i", 8), makeCopy("i", 16));
  CHECK_FALSE(r.equal);
  CHECK(r.path == "PrimFunc.buffer_map[0].shape[0]");
  CHECK(r.lhs == "IntImm 8 (int64)");
  CHECK(r.rhs == "IntImm 16 (int64)");
}

TEST_CASE("attrs differences report the key", "[structural_equal]") {
  auto a = makeDictAttrs({{"num_input", AttrValue::integer(1)}, {"tag", AttrValue::str("x")}});
  auto b = makeDictAttrs({{"num_input", AttrValue::integer(2)}, {"tag", AttrValue::str("x")}});
  auto r = structuralEqual(a, b);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "Attrs[\"num_input\"]");
  CHECK(r.lhs == "1");
  CHECK(r.rhs == "2");
}

TEST_CASE("struct info compares dtype and shape fields", "[structural_equal]") {
  auto a = tensorSInfo({intImm(2), intImm(3)}, DataType::float32());
  auto b = tensorSInfo({intImm(2), intImm(3)}, DataType::int32());
  auto r = structuralEqual(a, b);
  CHECK_FALSE(r.equal);
  CHECK(r.path == "TensorSInfo.dtype");
  CHECK(r.lhs == "float32");
  CHECK(r.rhs == "int32");
  CHECK(structuralEqual(a, tensorSInfo({intImm(2), intImm(3)}, DataType::float32())).equal);
}

TEST_CASE("the sampled hash: small arrays exactly, large ones by a sample, equal when equal", "[structural_equal]") {
  std::vector<float> small = {1, 2, 3}, large(4096, 0.5f);
  CHECK(structuralHashSampled(constant(small)) == structuralHash(constant(small)));
  auto other = small;
  other[1] = 5;
  CHECK(structuralHashSampled(constant(small)) != structuralHashSampled(constant(other)));
  // 16 KB: equal arrays hash alike; a change at either end or in a sampled chunk is seen; a change
  // between samples may not be (structuralEqual, which confirms every hit, tells them apart).
  CHECK(structuralHashSampled(constant(large)) == structuralHashSampled(constant(large)));
  auto head = large, tail = large, between = large;
  head[3] = 1, tail[4090] = 1, between[1024 / 4 + 2] = 1;
  CHECK(structuralHashSampled(constant(head)) != structuralHashSampled(constant(large)));
  CHECK(structuralHashSampled(constant(tail)) != structuralHashSampled(constant(large)));
  CHECK_FALSE(structuralEqual(constant(between), constant(large)).equal);
  CHECK(structuralHash(constant(between)) != structuralHash(constant(large)));
}
