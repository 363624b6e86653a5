// LegalizeOps rule registry and the argument handling rules share: placeholders named after the
// Relax vars, scalar constants, output struct info, topi-style broadcast indexing.
#include "passes/legalize/legalize.h"

#include <map>
#include <mutex>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"

namespace rlx::legalize {

namespace {

std::map<std::string, Entry>& table() {
  static std::map<std::string, Entry> t;
  return t;
}

void registerAll() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerElementwiseRules();
    registerMatmulRules();
    registerNNRules();
    registerManipulateRules();
    registerCreateRules();
    registerReduceRules();
    registerConvRules();
    registerPoolRules();
    registerNormRules();
    registerIndexRules();
    registerAttentionRules();
    registerSearchRules();
    registerGatherScatterRules();
    registerSortRules();
    registerConvTransposeRules();
    registerImageRules();
    registerBitwiseRules();
    registerQuantizeRules();
    registerEinsumRules();
    registerNNExtraRules();
    registerCclRules();
    registerLayoutRules();
    registerGradRules();
  });
}

}  // namespace

void registerRule(const std::string& opName, const std::string& kernelName, Rule rule) {
  Entry& e = table()[opName];
  e.kernelName = kernelName;
  e.rule = std::move(rule);
}

void registerFold(const std::string& opName, Fold fold) { table()[opName].fold = std::move(fold); }

const Entry* findRule(const std::string& opName) {
  registerAll();
  auto it = table().find(opName);
  return it == table().end() ? nullptr : &it->second;
}

std::optional<te::Tensor> Ctx::tensor(const Expr& e) {
  auto t = sinfoOf(e).as<TensorSInfo>();
  if (!t || !t->dims() || t->dtype.isVoid()) return std::nullopt;
  std::string name;
  if (auto v = e.as<Var>(); v && !positional) name = v->name;
  else name = inputs.size() < 26 ? std::string(1, char('A' + inputs.size())) : "input" + std::to_string(inputs.size());
  te::Tensor p = kb.placeholder(name, kb.mapShape(*t->dims()), t->dtype);
  inputs.push_back(p);
  tirArgs.push_back(e);
  return p;
}

PrimExpr Ctx::scalarInput(const Expr& e) {
  auto p = sinfoOf(e).as<PrimSInfo>();
  if (!p || p->dtype.isVoid()) return nullptr;
  std::string name;
  if (auto v = e.as<Var>(); v && !positional) name = v->name;
  else name = inputs.size() < 26 ? std::string(1, char('a' + inputs.size())) : "scalar" + std::to_string(inputs.size());
  te::Tensor t;
  t.scalar = make<PrimVar>(name, p->dtype);
  inputs.push_back(t);
  tirArgs.push_back(e);
  return t.scalar;
}

PrimExpr Ctx::scalarConst(const Expr& e) const {
  if (auto pv = e.as<PrimValue>(); pv && (pv->value->kind() == NodeKind::IntImm || pv->value->kind() == NodeKind::FloatImm)) return pv->value;
  auto c = e.as<Constant>();
  if (!c || !c->data || !c->data->shape.empty()) return nullptr;
  DataType t = c->data->dtype;
  if (t.isFloat()) return floatImm(c->data->getDouble(0), t);
  return intImm(c->data->getInt(0), t);
}

PrimExpr Ctx::primArg(size_t i) {
  if (i >= call.args.size()) return nullptr;
  auto p = call.args[i].as<PrimValue>();
  if (!p) return nullptr;
  return kb.mapShape(p->value);
}

static Ref<TensorSInfo> outTensor(const Call& call, size_t i) {
  StructInfo s = call.sinfo;
  if (auto tup = s.as<TupleSInfo>()) return i < tup->fields.size() ? tup->fields[i].as<TensorSInfo>() : Ref<TensorSInfo>();
  return i == 0 ? s.as<TensorSInfo>() : Ref<TensorSInfo>();
}

std::optional<std::vector<PrimExpr>> Ctx::outShape(size_t i) {
  auto t = outTensor(call, i);
  if (!t || !t->dims()) return std::nullopt;
  return kb.mapShape(*t->dims());
}

DataType Ctx::outDtype(size_t i) const {
  auto t = outTensor(call, i);
  return t ? t->dtype : DataType();
}

size_t Ctx::outCount() const {
  StructInfo s = call.sinfo;
  if (auto tup = s.as<TupleSInfo>()) return tup->fields.size();
  return 1;
}

te::Indices broadcastIndex(const te::Tensor& t, const te::Indices& out, const std::vector<PrimExpr>& outShape) {
  te::Indices idx;
  size_t off = out.size() - t.ndim();
  for (size_t i = 0; i < t.ndim(); ++i) {
    auto d = asIntImm(t.shape()[i]);
    auto o = asIntImm(outShape[off + i]);
    if (d && d->value == 1 && !(o && o->value == 1)) idx.push_back(intImm(0));
    else idx.push_back(out[off + i]);
  }
  return idx;
}

te::Tensor padStage(te::KernelBuilder& kb, const te::Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after, const PrimExpr& value,
                    const std::string& name, const te::LoopNames& loops) {
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < x.ndim(); ++d) shape.push_back(add(x.shape()[d], intImm(before[d] + after[d], x.shape()[d]->dtype)));
  return kb.compute(name, shape, x.dtype(), [&](const te::Indices& i) {
    te::Indices idx;
    PrimExpr cond;
    auto both = [&](const PrimExpr& c) { cond = cond ? te::bin(NodeKind::And, cond, c) : c; };
    for (size_t d = 0; d < x.ndim(); ++d) {
      if (before[d] == 0 && after[d] == 0) {
        idx.push_back(i[d]);
        continue;
      }
      PrimExpr b = intImm(before[d], i[d]->dtype);
      idx.push_back(before[d] ? te::bin(NodeKind::Sub, i[d], b) : i[d]);
      // 0 <= i holds for every loop index: the simplifier drops it.
      if (before[d]) both(te::bin(NodeKind::LE, b, i[d]));
      both(te::bin(NodeKind::LT, i[d], add(x.shape()[d], b)));
    }
    if (!cond) return x(idx);
    return te::call("tir.if_then_else", x.dtype(), {cond, x(idx), value});
  }, loops);
}

PrimExpr idxFloorDiv(const PrimExpr& a, int64_t c) {
  if (c == 1) return a;
  if (auto f = foldConstants(NodeKind::FloorDiv, a, intImm(c, a->dtype))) return f;
  return te::bin(NodeKind::FloorDiv, a, intImm(c, a->dtype));
}

std::optional<std::pair<bool, int64_t>> takeAxisOf(const Call& call, size_t ndim) {
  auto* attr = ops::findAttr(call, "axis");
  if (!attr || !*attr) return std::pair<bool, int64_t>{true, 0};
  int64_t axis = ops::attrInt(call, "axis", 0);
  if (axis < 0) axis += int64_t(ndim);
  if (axis < 0 || axis >= int64_t(ndim)) return std::nullopt;
  return std::pair<bool, int64_t>{false, axis};
}

}  // namespace rlx::legalize
