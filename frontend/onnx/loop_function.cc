// Loop and Scan with a run-time trip count or condition become a private recursive function:
//   f(i, trips, cond, state..., acc..., captured...) =
//     if cond and i < trips: f(i + 1, trips, cond', state'..., acc ++ [elem]..., captured...)
//     else: (state..., acc...)
// Outer values the body reads become trailing parameters. A loop-carried value whose shape
// changes between steps gets fresh size vars for the dims that change; the caller recovers sizes
// with a match_cast, so later ops keep seeing shapes.
#include "frontend/onnx/loop_function.h"

#include <set>

#include "frontend/onnx/importer.h"
#include "ir/arith.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/struct_info.h"

namespace rlx::onnx {

namespace {

using VarSet = std::set<const Object*>;

// The param struct info `p` widened so that the body's result `o` for the same value fits it: a
// dim that differs becomes a fresh size var (recorded in `fresh`; it then matches anything).
StructInfo widen(GraphImporter& g, const StructInfo& p, const StructInfo& o, VarSet& fresh, bool& changed) {
  auto pt = p.as<TensorSInfo>();
  auto ot = o.as<TensorSInfo>();
  if (pt && ot) {
    if (!pt->dtype.isVoid() && pt->dtype != ot->dtype)
      fail("a loop-carried value changes dtype from " + pt->dtype.str() + " to " + ot->dtype.str());
    auto pd = pt->dims();
    if (!pd) return p;
    if (ot->ndim != pt->ndim) {
      changed = true;
      return make<TensorSInfo>(nullptr, pt->dtype, -1);
    }
    // A result of unknown sizes (a broadcast of unrelated size vars) still fits fresh dims: the
    // recursive call binds them anew.
    auto od = ot->dims();
    std::vector<PrimExpr> dims = *pd;
    bool widened = false;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (fresh.count(dims[k].get()) || (od && proveEqual(dims[k], (*od)[k]))) continue;
      dims[k] = g.freshDim("loop_n");
      fresh.insert(dims[k].get());
      widened = true;
    }
    if (!widened) return p;
    changed = true;
    return tensorSInfo(dims, pt->dtype);
  }
  auto ptu = p.as<TupleSInfo>();
  auto otu = o.as<TupleSInfo>();
  if (ptu && otu) {
    if (ptu->fields.size() != otu->fields.size())
      fail("a loop-carried sequence changes length between steps (" + std::to_string(ptu->fields.size()) + " to " +
           std::to_string(otu->fields.size()) + " elements); rlx keeps sequences as tuples of fixed length");
    std::vector<StructInfo> fields;
    bool any = false;
    for (size_t k = 0; k < ptu->fields.size(); ++k) {
      bool c = false;
      fields.push_back(widen(g, ptu->fields[k], otu->fields[k], fresh, c));
      any = any || c;
    }
    if (!any) return p;
    changed = true;
    return make<TupleSInfo>(std::move(fields));
  }
  if ((pt != nullptr) != (ot != nullptr) || (ptu != nullptr) != (otu != nullptr)) fail("a loop-carried value changes kind between steps");
  return p;
}

void addSizeVars(const StructInfo& s, VarSet& out) {
  std::vector<Ref<PrimVar>> vs;
  sinfoCollectVars(s, vs);
  for (auto& v : vs) out.insert(v.get());
}

// The size vars used in `block` that nothing inside defines (a match_cast defines its vars).
std::vector<Ref<PrimVar>> outerSizeVars(const BlockRef& block, const VarSet& definedByParams) {
  VarSet definedInside = definedByParams;
  std::vector<Ref<PrimVar>> out;
  VarSet seen;
  for (auto& b : block->bindings) {
    std::vector<Ref<PrimVar>> vs;
    sinfoCollectVars(b->var->sinfo, vs);
    if (b->isMatchCast()) {
      for (auto& v : vs) definedInside.insert(v.get());
      continue;
    }
    for (auto& v : vs)
      if (!definedInside.count(v.get()) && seen.insert(v.get()).second) out.push_back(v);
  }
  return out;
}

// A SeqExpr of `block` (none when null) returning `result`.
Expr seqOf(const BlockRef& block, const Expr& result) {
  auto seq = make<SeqExpr>(block ? std::vector<BlockRef>{block} : std::vector<BlockRef>{}, result);
  seq->sinfo = sinfoOfExpr(result);
  return seq;
}

// A value whose sizes the call could not state (they change in the loop) gets fresh size vars.
Expr withSizes(NodeCtx& c, const Expr& e) {
  auto t = tensorInfo(e);
  if (!t || t->dims() || t->ndim < 0) return e;
  std::vector<PrimExpr> dims;
  for (int k = 0; k < t->ndim; ++k) dims.push_back(c.graph().freshDim("loop_n"));
  auto bound = c.graph().builder().emitMatchCast(e, tensorSInfo(dims, t->dtype), "", {});
  if (!bound) fail(bound.error().message);
  return *bound;
}

}  // namespace

Outputs emitRunTimeLoop(NodeCtx& c, const ::onnx::GraphProto& body, const RunTimeLoop& loop) {
  GraphImporter& g = c.graph();
  BlockBuilder& bb = g.builder();
  const size_t n = loop.state.size();
  const size_t first = loop.isLoop ? 1 : 0;  // body outputs: [cond], state..., scan elements...
  if (size_t(body.output_size()) < first + n) fail("the body has fewer outputs than there are loop-carried values");
  const size_t k = size_t(body.output_size()) - first - n;
  auto bodyName = [&](size_t input, const std::string& def) {
    return input < size_t(body.input_size()) && !body.input(int(input)).name().empty() ? body.input(int(input)).name() : def;
  };

  auto i64 = DataType::int64();
  VarRef iVar = make<Var>(loop.isLoop ? bodyName(0, "i") : "i", tensorSInfo({}, i64));
  VarRef tripsVar = make<Var>("trips", tensorSInfo({}, i64));
  VarRef condVar = make<Var>(loop.isLoop ? bodyName(1, "cond") : "cond", tensorSInfo({}, DataType::boolean()));

  // Convert the body with the state params typed like the initial values, widening the dims that
  // the body changes until its results fit the params.
  std::vector<StructInfo> stateSInfo;
  for (auto& s : loop.state) stateSInfo.push_back(sinfoOfExpr(s.expr));
  VarSet fresh;
  std::vector<VarRef> stateVars;
  std::vector<Expr> outs;
  BlockRef bodyBlock;
  for (int attempt = 0;; ++attempt) {
    stateVars.clear();
    for (size_t j = 0; j < n; ++j) stateVars.push_back(make<Var>(bodyName(j + (loop.isLoop ? 2 : 0), "v" + std::to_string(j)), stateSInfo[j]));
    std::vector<OValue> inputs;
    if (loop.isLoop) inputs = {{iVar}, {condVar}};
    for (auto& v : stateVars) inputs.push_back({v});
    bodyBlock = inBlock(bb, [&] {
      for (auto& s : loop.scanInputs) {
        Expr at = iVar;
        if (s.reverse) at = c.op("subtract", {ex(c.op("subtract", {ex(tripsVar), ex(c.scalar(1, i64))})), ex(iVar)});
        inputs.push_back({c.op("take", {ex(s.x), ex(at)}, {{"axis", build::i(s.axis)}})});
      }
      outs = g.inlineSubgraph(body, inputs);
    });
    bool changed = false;
    for (size_t j = 0; j < n; ++j) stateSInfo[j] = widen(g, stateSInfo[j], sinfoOfExpr(outs[first + j]), fresh, changed);
    if (!changed) break;
    if (attempt == 8) fail("the shapes of the loop-carried values do not settle");
  }

  // Outer values the body reads become params (bound to the same values at every call).
  std::vector<Expr> outsExprs(outs.begin(), outs.end());
  std::vector<BlockRef> blocks;
  if (bodyBlock) blocks.push_back(bodyBlock);
  std::set<const Var*> own = {iVar.get(), tripsVar.get(), condVar.get()};
  for (auto& v : stateVars) own.insert(v.get());
  std::vector<VarRef> captured;
  for (auto& v : freeVars(make<SeqExpr>(blocks, make<Tuple>(outsExprs))))
    if (!own.count(v.get())) captured.push_back(v);
  std::vector<VarRef> capturedParams;
  std::unordered_map<const Var*, Expr> toParam;
  for (auto& v : captured) {
    capturedParams.push_back(make<Var>(v->name, v->sinfo));
    toParam[v.get()] = capturedParams.back();
  }

  // Scan outputs: accumulators of the elements so far, (steps, element dims...).
  VarSet paramVars;
  for (auto& s : stateSInfo) addSizeVars(s, paramVars);
  for (auto& v : captured) addSizeVars(v->sinfo, paramVars);
  std::vector<VarRef> accVars;
  std::vector<Expr> accInit;
  std::vector<bool> startsAtFirstStep;  // the accumulator starts as a placeholder the first step replaces
  PrimVarMap atCall;  // the params' size vars in terms of the caller's values
  for (size_t j = 0; j < n; ++j)
    if (!sinfoMatch(stateSInfo[j], sinfoOfExpr(loop.state[j].expr), atCall)) fail("the initial value of a loop-carried value does not fit its steps");
  for (size_t j = 0; j < k; ++j) {
    auto t = tensorInfo(outs[first + n + j]);
    if (!t || t->ndim < 0) fail("scan output " + std::to_string(j) + " must be a tensor of known rank");
    // Element dims the caller can state start the output empty with its exact shape; a dim only
    // a step knows gets a fresh var, and the output starts as an all-zero-dims placeholder.
    std::vector<PrimExpr> accDims = {g.freshDim("steps")}, initDims = {intImm(0)};
    bool exact = true;
    for (int a = 0; a < t->ndim; ++a) {
      PrimExpr d = t->dims() ? (*t->dims())[size_t(a)] : PrimExpr();
      bool known = bool(d);
      if (known) {
        std::vector<Ref<PrimVar>> used;
        collectVars(d, used);
        for (auto& v : used) known = known && paramVars.count(v.get());
      }
      if (known) {
        accDims.push_back(d);
        initDims.push_back(primSubstitute(d, atCall));
      } else {
        accDims.push_back(g.freshDim("loop_n"));
        initDims.push_back(intImm(0));
        exact = false;
      }
    }
    accVars.push_back(make<Var>(body.output(int(first + n + j)).name() + "_scan", tensorSInfo(accDims, t->dtype)));
    accInit.push_back(c.op("zeros", {ex(shapeExpr(initDims))}, {{"dtype", build::s(t->dtype.str())}}));
    startsAtFirstStep.push_back(!exact);
  }

  // Size vars of the caller that the body uses without any param carrying them come in a shape.
  VarSet defined = paramVars;
  for (auto& a : accVars) addSizeVars(a->sinfo, defined);
  std::vector<PrimExpr> sizeArgs;
  VarRef sizesVar;
  if (bodyBlock) {
    auto extra = outerSizeVars(bodyBlock, defined);
    if (!extra.empty()) {
      for (auto& v : extra) sizeArgs.push_back(v);
      sizesVar = make<Var>("sizes", make<ShapeSInfo>(sizeArgs, int(sizeArgs.size())));
    }
  }

  // The signature: results that change shape in the loop are stated without their sizes.
  std::vector<VarRef> params = {iVar, tripsVar, condVar};
  params.insert(params.end(), stateVars.begin(), stateVars.end());
  params.insert(params.end(), accVars.begin(), accVars.end());
  params.insert(params.end(), capturedParams.begin(), capturedParams.end());
  if (sizesVar) params.push_back(sizesVar);
  std::vector<const PrimVar*> steady;
  for (auto* v : paramVars)
    if (!fresh.count(v)) steady.push_back(static_cast<const PrimVar*>(v));
  std::vector<StructInfo> retFields;
  for (auto& s : stateSInfo) retFields.push_back(eraseUndefinedVars(s, steady));
  for (auto& a : accVars) retFields.push_back(eraseUndefinedVars(a->sinfo, {}));
  StructInfo ret = make<TupleSInfo>(retFields);
  std::vector<StructInfo> paramSInfo;
  for (auto& p : params) paramSInfo.push_back(p->sinfo);
  auto fsinfo = make<FuncSInfo>(paramSInfo, ret, true);
  std::string name = c.node.name().empty() ? (loop.isLoop ? "loop" : "scan") : c.node.name();
  GlobalVarRef self = g.declareFunction(name, fsinfo);

  // Then-branch: the step's bindings, the grown accumulators, the recursive call.
  Expr thenResult;
  BlockRef thenBlock = inBlock(bb, [&] {
    if (bodyBlock)
      for (auto& b : bodyBlock->bindings) bb.addBinding(b);
    Expr nextCond = condVar;
    if (loop.isLoop) {
      nextCond = outs[0];
      auto t = tensorInfo(nextCond);
      if (!t || t->ndim < 0) fail("the body's condition output must be a tensor");
      if (t->ndim != 0) nextCond = c.op("reshape", {ex(nextCond), ex(shapeExpr({}))});
      if (!t->dtype.isBool()) nextCond = c.op("astype", {ex(nextCond)}, {{"dtype", build::s("bool")}});
    }
    std::vector<Expr> args = {c.op("add", {ex(iVar), ex(c.scalar(1, i64))}), tripsVar, nextCond};
    for (size_t j = 0; j < n; ++j) args.push_back(outs[first + j]);
    for (size_t j = 0; j < k; ++j) {
      Expr elem = c.op("expand_dims", {ex(outs[first + n + j])}, {{"axis", ints({0})}});
      // Every step's element has the same shape (ONNX requires it): a match_cast states that to the
      // concat, whose operands' sizes may only agree at run time.
      auto append = [&] {
        auto accDims = *accVars[j]->sinfo.as<TensorSInfo>()->dims();
        accDims[0] = intImm(1);
        Expr same = elem;
        if (!sinfoEqual(sinfoOfExpr(elem), tensorSInfo(accDims, tensorInfo(elem)->dtype))) {
          auto cast = bb.emitMatchCast(elem, tensorSInfo(accDims, tensorInfo(elem)->dtype), "", {});
          if (!cast) fail(cast.error().message);
          same = *cast;
        }
        return c.op("concat", {ex(make<Tuple>(std::vector<Expr>{accVars[j], same}))}, {{"axis", build::i(0)}});
      };
      if (!startsAtFirstStep[j]) {
        args.push_back(append());
        continue;
      }
      // grown = elem[None] if i == 0 else concat(acc, elem[None])
      Expr appended;
      BlockRef appendBlock = inBlock(bb, [&] { appended = append(); });
      Expr isFirst = c.op("equal", {ex(iVar), ex(c.scalar(0, i64))});
      args.push_back(c.emit(make<If>(isFirst, seqOf(nullptr, elem), seqOf(appendBlock, appended))));
    }
    args.insert(args.end(), captured.begin(), captured.end());
    if (sizesVar) args.push_back(shapeExpr(sizeArgs));
    thenResult = c.emit(make<Call>(self, args));
  });
  std::vector<Expr> finals(stateVars.begin(), stateVars.end());
  finals.insert(finals.end(), accVars.begin(), accVars.end());
  Expr finalTuple = bb.normalize(make<Tuple>(finals)).value();

  Expr result;
  BlockRef fnBlock = inBlock(bb, [&] {
    Expr go = c.op("logical_and", {ex(condVar), ex(c.op("less", {ex(iVar), ex(tripsVar)}))});
    result = c.emit(make<If>(go, seqOf(thenBlock, thenResult), seqOf(nullptr, finalTuple)));
  });
  Expr bodyExpr = substituteVars(seqOf(fnBlock, result), toParam);
  auto fn = make<Function>(params, bodyExpr, ret, true, nullptr);
  fn->sinfo = fsinfo;
  g.defineFunction(self, fn);

  // The call.
  std::vector<Expr> callArgs = {c.scalar(0, i64), loop.trips, loop.cond};
  for (auto& s : loop.state) callArgs.push_back(s.expr);
  callArgs.insert(callArgs.end(), accInit.begin(), accInit.end());
  callArgs.insert(callArgs.end(), captured.begin(), captured.end());
  if (sizesVar) callArgs.push_back(shapeExpr(sizeArgs));
  Expr r = c.emit(make<Call>(self, callArgs));
  Outputs results;
  for (size_t j = 0; j < n + k; ++j) results.push_back({withSizes(c, c.emit(make<TupleGetItem>(r, int(j))))});
  return results;
}

}  // namespace rlx::onnx
