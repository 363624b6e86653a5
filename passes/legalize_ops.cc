// LegalizeOps: replaces every call of an op that has a legalization rule (passes/legalize/) by
// R.call_tir of a private TIR kernel built from the rule's tensor expression, as TVM's
// relax.transform.LegalizeOps does with topi. Why: the VM runs kernels, not high-level ops.
// Kernels are named after the op (add, add1, ...); structurally equal kernels are shared; scalar
// constants may be folded into a kernel. Ops without a rule, and calls whose shapes are not known,
// stay as they are. Before: `lv1 = R.add(lv, b)`; after: `lv1 = R.call_tir(cls.add, (lv, b),
// out_sinfo=R.Tensor((1, 256), dtype="float32"))` plus `@T.prim_func(private=True) def add(...)`.
#include <functional>
#include <map>
#include <set>

#include "ir/arith.h"
#include "ir/structural_equal.h"
#include "ir/verifier.h"
#include "ir/struct_info.h"
#include "ir/ops/infer_util.h"
#include "passes/binding_rewriter.h"
#include "passes/legalize/legalize.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

class Legalizer : public BindingRewriter {
 public:
  struct Kernel {
    GlobalVarRef gvar;
    PrimFuncRef func;
  };
  using KernelCache = std::multimap<uint64_t, Kernel>;
  Legalizer(IRModuleRef& mod, KernelCache& kernels) : mod_(mod), kernels_(kernels) {}

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || !c->op || c->op->kind() != NodeKind::Op || !c->sinfo) return nullptr;
    const legalize::Entry* entry = legalize::findRule(c->opName());
    if (!entry) return packedCall(*c);
    if (entry->fold)
      if (Expr e = entry->fold(*c)) return legalizeInner(e);
    if (!entry->rule) return nullptr;
    // Kernels are shared when equal up to names; block names derived from argument names (x_red,
    // ...) count for our structural equality, so the comparison uses a build with positional names.
    legalize::Ctx canon(*c, true);
    std::vector<te::Tensor> canonOuts = entry->rule(canon);
    if (canonOuts.empty()) return nullptr;
    PrimFuncRef key = canon.kb.build(canon.inputs, canonOuts);
    legalize::Ctx ctx(*c);
    PrimFuncRef own = ctx.kb.build(ctx.inputs, entry->rule(ctx));
    std::vector<PrimVarRef> scalarParams = unboundVars(*own);
    own->params.insert(own->params.end(), scalarParams.begin(), scalarParams.end());  // freshly built: no one else holds it
    GlobalVarRef gv = kernelFor(key, canon.kernelName.empty() ? entry->kernelName : canon.kernelName, [&] { return own; });
    PyValue outSInfo;
    outSInfo.kind = PyValue::SInfo;
    outSInfo.sinfo = c->sinfo;
    build::KwArgs kwargs = {{"out_sinfo", outSInfo}};
    if (Expr tirVars = tirVarsOf(*c, scalarParams)) kwargs.push_back({"tir_vars", build::e(tirVars)});
    return build::call("call_tir", {build::e(gv), build::e(make<Tuple>(ctx.tirArgs))}, std::move(kwargs));
  }

 private:
  // A fold's replacement may call other ops (a scatter's reshape): those are legalized in turn,
  // innermost first, as TVM's legalizer visits what a rule emits.
  Expr legalizeInner(const Expr& e) {
    if (auto t = e.as<Tuple>()) {
      std::vector<Expr> fields;
      bool changed = false;
      for (auto& f : t->fields) {
        fields.push_back(legalizeInner(f));
        changed |= !fields.back().same(f);
      }
      return changed ? tupleOf(std::move(fields)) : e;
    }
    auto c = e.as<Call>();
    if (!c) return e;
    std::vector<Expr> args;
    for (auto& a : c->args) args.push_back(legalizeInner(a));
    auto nc = make<Call>(c->op, std::move(args), c->attrs, c->sinfoArgs);
    nc->span = c->span;
    auto s = inferCallSInfo(*nc);
    if (!s.ok()) return e;
    nc->sinfo = s.value();
    if (nc->op && nc->op->kind() == NodeKind::Op && legalize::findRule(nc->opName()))
      if (Expr r = rewriteValue(nullptr, nc)) {
        if (auto rc = r.as<Call>(); rc && !rc->sinfo)
          if (auto rs = inferCallSInfo(*rc); rs.ok()) r->sinfo = rs.value();
        return r;
      }
    return nc;
  }

  // Ops the runtime implements as packed functions (TVM's FCallPacked attribute) become calls of
  // that function: `R.print(x, format=f)` -> `R.call_packed("relax.run.print", f, x, ...)`.
  static Expr packedCall(const Call& c) {
    static const std::map<std::string, std::string> packed = {{"relax.print", "relax.run.print"},
                                                                {"relax.assert_op", "relax.run.assert_op"},
                                                                {"relax.unique", "relax.run.unique"},
                                                                {"relax.nonzero", "relax.run.nonzero"},
                                                                {"relax.vision.all_class_non_max_suppression", "relax.run.all_class_non_max_suppression"},
                                                                {"relax.memory.view", "runtime.TVMArrayCreateView"}};
    auto it = packed.find(c.opName());
    if (it == packed.end()) return nullptr;
    // The host function takes no attrs: only the default (ONNX) output format goes there.
    if (c.opName() == "relax.vision.all_class_non_max_suppression" && ops::attrString(c, "output_format", "onnx") != "onnx") return nullptr;
    return make<Call>(make<ExternFunc>(it->second), c.args, nullptr, std::vector<StructInfo>{c.sinfo});
  }

  // Symbolic vars the kernel uses that no buffer shape binds (n in a compound dim n + 1 after a
  // concat, a slice's run-time start): they become trailing int64 params, passed by call_tir's
  // tir_vars (TVM's call_te does the same with its unbound TIR vars).
  static std::vector<PrimVarRef> unboundVars(const PrimFunc& f) { return primFuncFreeVars(f); }
  // R.shape([the call's own vars of those names]), or null when the kernel has no scalar params.
  static Expr tirVarsOf(const Call& c, const std::vector<PrimVarRef>& extra) {
    if (extra.empty()) return nullptr;
    std::vector<PrimVarRef> relaxVars;
    auto collect = [&](const StructInfo& s, auto& self) -> void {
      if (auto t = s.as<TensorSInfo>()) {
        if (auto* dims = t->dims())
          for (auto& d : *dims) collectVars(d, relaxVars);
      } else if (auto tu = s.as<TupleSInfo>()) {
        for (auto& f : tu->fields) self(f, self);
      }
    };
    // ... and the prim values among the arguments (a slice's begin, a full's fill value).
    auto collectValues = [&](const Expr& e, auto& self) -> void {
      if (auto p = e.as<PrimValue>()) collectVars(p->value, relaxVars);
      else if (auto sh = e.as<ShapeExpr>()) for (auto& v : sh->values) collectVars(v, relaxVars);
      else if (auto t = e.as<Tuple>()) for (auto& f : t->fields) self(f, self);
    };
    for (auto& a : c.args) {
      collect(sinfoOf(a), collect);
      collectValues(a, collectValues);
    }
    collect(c.sinfo, collect);
    std::vector<PrimExpr> values;
    for (auto& v : extra) {
      PrimExpr match;
      for (auto& r : relaxVars)
        if (r->name == v->name) match = r;
      if (!match) return nullptr;
      values.push_back(match);
    }
    return make<ShapeExpr>(std::move(values));
  }

  GlobalVarRef kernelFor(const PrimFuncRef& key, const std::string& base, const std::function<PrimFuncRef()>& named) {
    uint64_t h = structuralHashSampled(key);
    auto [lo, hi] = kernels_.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (structuralEqual(it->second.func, key)) return it->second.gvar;
    PrimFuncRef func = named();
    std::string name = base;
    for (int i = 1; mod_->find(name); ++i) name = base + std::to_string(i);
    auto gv = make<GlobalVar>(name);
    gv->sinfo = func->sinfo;
    mod_ = withFunction(mod_, gv, func);
    kernels_.emplace(h, Kernel{gv, key});
    return gv;
  }

  IRModuleRef& mod_;
  KernelCache& kernels_;
};

}  // namespace

Result<Pass> createLegalizeOpsPass(PassOptions&) {
  return Pass({"LegalizeOps", 0, {}}, [](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    IRModuleRef out = mod;
    Legalizer::KernelCache kernels;
    for (auto& e : mod->functions) {
      if (e.func->kind() != NodeKind::Function || !ctx.inScope(e.gvar->name)) continue;
      Legalizer rewriter(out, kernels);
      Expr f = rewriter.mutate(e.func);
      if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
    }
    return out;
  });
}

}  // namespace rlx
