// IOEffect and KVCache (see effect.h): their init bindings, state vars and the packed calls their
// ops emit, spelled exactly as TVM v0.23 exports them.
#include "frontend/nn/effect.h"

#include "frontend/nn/export_context.h"
#include "frontend/nn/op_util.h"

namespace rlx::nn {

using namespace detail;

std::string Effect::typeName() const { return typeNameOf(typeid(*this)); }

namespace {

// Effect states live in the exported method; a subroutine cannot see them (TVM's cannot either).
ExportContext& effectContext(const std::string& what) {
  auto& ctx = ExportContext::current();
  if (ctx.inSubroutine())
    fail(what + " is used inside subroutine '" + ctx.functionName() + "', but effects are threaded through exported methods only",
         "call it from the method, outside modules that setDefineSubroutine");
  return ctx;
}

// The single state var of a one-var effect.
Expr single(std::vector<Expr>& state, const char* effect) {
  if (state.empty()) return Expr();
  if (state.size() != 1) fail(std::string(effect) + " has one state var, got " + std::to_string(state.size()));
  return state[0];
}

Expr packedCall(const std::string& opName, const std::string& func, std::vector<Expr> args, StructInfo ret, KwArgs extra = {}) {
  std::vector<PyValue> pargs = {PyValue::ofStr(func)};
  for (auto& a : args) pargs.push_back(ex(std::move(a)));
  extra.emplace_back("sinfo_args", sinfo(std::move(ret)));
  return call(opName, std::move(pargs), std::move(extra));
}

}  // namespace

// ---------------------------------------------------------------- IOEffect
// TVM names the token "<prefix>.io", which the name table turns into "_io" for the root.
std::vector<Expr> IOEffect::emitInit(const std::string& name) {
  return {ExportContext::current().emit(call("null_value", {}), name + ".io")};
}

std::vector<VarRef> IOEffect::create(const std::string& name) { return {make<Var>(name + ".io", objectSInfo())}; }

void IOEffect::setState(std::vector<Expr> state) { token_ = single(state, "IOEffect"); }

std::vector<Expr> IOEffect::finalize() {
  Expr t = std::move(token_);
  token_ = Expr();
  return {t};
}

void IOEffect::invoke(const std::string& func, const std::string& lineInfo, std::vector<Expr> args) {
  if (!token_) fail("debug functions need the IO effect, which this method does not have (its effect_mode is none)");
  auto var = token_.as<Var>();
  std::string hint = var ? var->name : "_io";
  std::vector<Expr> all = {token_, make<StringImm>(func), make<StringImm>(lineInfo)};
  for (auto& a : args) all.push_back(std::move(a));
  // The new token is named after the old one (_io, _io1, ...), as TVM does.
  token_ = effectContext("op::debugFunc").emit(packedCall("call_pure_packed", "vm.builtin.invoke_debug_func", std::move(all), objectSInfo()), hint);
}

// ---------------------------------------------------------------- KVCache
KVCache::KVCache(int64_t initSeqLen, std::vector<int64_t> unitShape, std::optional<DType> dtype)
    : initSeqLen_(initSeqLen), unitShape_(std::move(unitShape)), dtype_(dtype ? dtype->get() : defaultDtype()) {
  if (initSeqLen < 0) fail("KVCache: initSeqLen must be non-negative, got " + std::to_string(initSeqLen));
  for (auto d : unitShape_)
    if (d < 0) fail("KVCache: the unit shape has a negative dim");
}

std::vector<Expr> KVCache::emitInit(const std::string& name) {
  std::vector<PrimExpr> dims = {intImm(initSeqLen_)};
  for (auto d : unitShape_) dims.push_back(intImm(d));
  Expr zeros = call("zeros", {ex(shapeExpr(dims))}, {{"dtype", build::s(dtype_.str())}});
  Expr create = packedCall("call_pure_packed", "vm.builtin.attention_kv_cache_create", {zeros, shapeExpr(dims), make<PrimValue>(intImm(0))}, objectSInfo());
  return {ExportContext::current().emit(create, name)};
}

std::vector<VarRef> KVCache::create(const std::string& name) { return {make<Var>(name, objectSInfo())}; }

void KVCache::setState(std::vector<Expr> state) { cache_ = single(state, "KVCache"); }

std::vector<Expr> KVCache::finalize() {
  Expr c = std::move(cache_);
  cache_ = Expr();
  return {c};
}

Status KVCache::to(DType dtype) {
  dtype_ = dtype;
  return okStatus();
}

const Expr& KVCache::state(const char* op) const {
  if (!cache_)
    fail(std::string("KVCache::") + op + " needs the cache's state, which exists only while a method is exported with effects",
         "register the cache with registerEffect and export with effect_mode plain or packed");
  return cache_;
}

void KVCache::append(const Tensor& x) {
  const Expr& cache = state("append");
  if (x.dtype() != dtype_) fail("KVCache holds " + dtype_.str() + ", but the appended tensor is " + x.dtype().str());
  if (x.ndim() != unitShape_.size() + 1) fail("KVCache::append expects (rows, " + std::to_string(unitShape_.size()) + " unit dims), got a " + std::to_string(x.ndim()) + "-dim tensor");
  cache_ = effectContext("KVCache::append").emit(
      packedCall("call_inplace_packed", "vm.builtin.attention_kv_cache_append", {cache, x.expr()}, objectSInfo(), {{"inplace_indices", build::ints({0})}}), "lv");
}

Tensor KVCache::view(const Dim& seqLen) {
  const Expr& cache = state("view");
  std::vector<PrimExpr> dims = {seqLen.expr()};
  for (auto d : unitShape_) dims.push_back(intImm(d));
  Expr shape = shapeExpr(dims);
  return Tensor(effectContext("KVCache::view").emit(packedCall("call_pure_packed", "vm.builtin.attention_kv_cache_view", {cache, shape}, tensorSInfo(dims, dtype_)), "lv"));
}

}  // namespace rlx::nn
