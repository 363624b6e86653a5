// ExportContext (see export_context.h): emission with TVM's naming, function assembly, add_func.
#include "frontend/nn/export_context.h"

#include "frontend/nn/error.h"
#include "ir/attrs.h"
#include "ir/structural_equal.h"
#include "ir/struct_info.h"

namespace rlx::nn {

namespace {
thread_local ExportContext* activeContext = nullptr;
}

ExportContext::ExportContext() : module_(make<IRModule>()) {}

ExportContext* ExportContext::active() { return activeContext; }

ExportContext& ExportContext::current() {
  if (!activeContext || !activeContext->inFunction())
    fail("nn ops build IR and can only run while a module is being exported", "call them from a method exported with Module::exportIR");
  return *activeContext;
}

ExportContext::Scope::Scope(ExportContext& ctx) : prev_(activeContext) { activeContext = &ctx; }
ExportContext::Scope::~Scope() { activeContext = prev_; }

void ExportContext::beginFunction(const std::string& name) {
  frames_.push_back(Frame{name, BlockBuilder(), {}, false});
  frames_.back().bb.beginFunction();
  frames_.back().bb.beginBlock(true);
  names_.reserve(name);
}

ExportContext::Frame& ExportContext::frame() {
  RLX_CHECK(!frames_.empty(), "no function is being built");
  return frames_.back();
}

const std::string& ExportContext::functionName() const {
  RLX_CHECK(!frames_.empty(), "no function is being built");
  return frames_.back().name;
}

PrimVarRef ExportContext::symbolicVar(const std::string& name) {
  auto& vars = frame().symVars;
  auto it = vars.find(name);
  if (it != vars.end()) return it->second;
  auto v = make<PrimVar>(name, DataType::int64());
  vars.emplace(name, v);
  return v;
}

Expr ExportContext::bindArgument(const Expr& a, std::unordered_map<const ExprNode*, Expr>& memo) {
  Expr na = bindNested(a, memo);
  if (isLeafExpr(na) || na->kind() == NodeKind::Tuple) return na;
  na = emit(na, "lv");
  memo[a.get()] = na;  // a sub-expression used twice is bound once
  return na;
}

Expr ExportContext::bindNested(const Expr& e, std::unordered_map<const ExprNode*, Expr>& memo) {
  if (isLeafExpr(e)) return e;
  auto it = memo.find(e.get());
  if (it != memo.end()) return it->second;
  Expr out = e;
  switch (e->kind()) {
    case NodeKind::Tuple: {
      // Tuples stay inline (R.concat((a, b))); their non-leaf fields are bound.
      auto& t = static_cast<const Tuple&>(*e);
      std::vector<Expr> fields;
      bool changed = false;
      for (auto& f : t.fields) {
        fields.push_back(bindArgument(f, memo));
        changed |= !fields.back().same(f);
      }
      if (changed) out = make<Tuple>(std::move(fields));
      break;
    }
    case NodeKind::Call: {
      auto& c = static_cast<const Call&>(*e);
      std::vector<Expr> args;
      bool changed = false;
      for (auto& a : c.args) {
        args.push_back(bindArgument(a, memo));
        changed |= !args.back().same(a);
      }
      if (changed) out = make<Call>(c.op, std::move(args), c.attrs, c.sinfoArgs);
      break;
    }
    case NodeKind::TupleGetItem: {
      auto& g = static_cast<const TupleGetItem&>(*e);
      Expr t = bindArgument(g.tuple, memo);
      if (!t.same(g.tuple)) out = make<TupleGetItem>(t, g.index);
      break;
    }
    default:
      break;
  }
  if (!memo.count(e.get())) memo[e.get()] = out;
  return out;
}

Expr ExportContext::emit(const Expr& value, const std::string& nameHint, bool bindLeaf) {
  if (!bindLeaf && isLeafExpr(value)) return value;
  std::unordered_map<const ExprNode*, Expr> memo;
  Expr v = bindNested(value, memo);
  auto var = orThrow(frame().bb.emit(v, names_.fresh(nameHint), {}));
  return var;
}

VarRef ExportContext::emitOutput(const Expr& value, const std::string& nameHint) {
  std::unordered_map<const ExprNode*, Expr> memo;
  Expr v = bindNested(value, memo);
  return orThrow(frame().bb.emit(v, names_.fresh(nameHint), {}, nullptr, /*asOutput=*/true));
}

GlobalVarRef ExportContext::endFunction(std::vector<VarRef> params, const Expr& output, AttrsRef attrs, bool isPrivate) {
  std::string name = functionName();
  std::vector<BlockRef> blocks;
  if (auto b = frame().bb.endBlock()) blocks.push_back(b);
  frames_.pop_back();
  auto seq = make<SeqExpr>(std::move(blocks), output);
  seq->sinfo = sinfoOf(output);
  std::vector<const PrimVar*> sigVars;
  for (auto& p : params) {
    std::vector<Ref<PrimVar>> vs;
    sinfoCollectVars(p->sinfo, vs);
    for (auto& v : vs) sigVars.push_back(v.get());
  }
  StructInfo ret = eraseUndefinedVars(sinfoOf(output), sigVars);
  if (!isPrivate) attrs = withDictAttr(attrs, "global_symbol", AttrValue::str(name));
  auto func = make<Function>(std::move(params), seq, ret, true, attrs);
  std::vector<StructInfo> ps;
  for (auto& p : func->params) ps.push_back(sinfoOf(p));
  func->sinfo = make<FuncSInfo>(std::move(ps), ret, true);
  auto gv = make<GlobalVar>(name);
  gv->sinfo = func->sinfo;
  module_->functions.push_back({gv, func});
  return gv;
}

GlobalVarRef ExportContext::addFunction(const Expr& func, const std::string& nameHint) {
  for (auto& e : module_->functions)
    if (e.func->kind() == func->kind() && structuralEqual(e.func, func).equal) return e.gvar;
  auto gv = make<GlobalVar>(names_.fresh(nameHint));
  gv->sinfo = func->sinfo ? func->sinfo : (func->kind() == NodeKind::PrimFunc ? primFuncSInfo() : objectSInfo());
  module_->functions.push_back({gv, func});
  return gv;
}

}  // namespace rlx::nn
