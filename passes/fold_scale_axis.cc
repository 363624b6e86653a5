// ForwardFoldScaleAxis / BackwardFoldScaleAxis / FoldScaleAxis: Relay's passes with Relax
// semantics — a per-channel scale by a constant is folded into the constant weights of the
// adjacent R.nn.conv2d or R.matmul, so inference graphs (a batch_norm after SimplifyInference and
// FoldConstant) lose the multiply.
//
// In dataflow blocks, with W a constant and s a constant that varies only along the channel axis:
//  - Backward: y = conv2d(x, W) (NCHW / OIHW) or matmul(x, W) (W 2-D), then optionally a chain of
//    R.add / R.subtract of per-channel constants (bias), then z = y * s (or y / s): W's output
//    channels and each bias are scaled by s and z becomes the last value of the chain.
//  - Forward: z = x * s (or x / s) with s along the input channels, optionally r = relu(z) (only
//    when every s > 0), then y = conv2d(z or r, W) (groups = 1) or matmul: W's input channels
//    absorb s and the conv reads x (or relu(x)).
// Every intermediate must have no other use. The scaled constants are computed here, in the
// weight's dtype (so numerics change only by rounding), and folding repeats until nothing
// matches (subtract / divide / multiply of a decomposed batch_norm fold one after the other).
// FoldScaleAxis = Backward, Forward, FoldConstant (Relay's sequence).
// Before: `lv = R.nn.conv2d(x, W); lv1 = R.multiply(lv, s)`, s of shape (1, C, 1, 1)
// After:  `lv = R.nn.conv2d(x, W')` with W'[o] = W[o] * s[o], and lv1's uses read lv.
#include <unordered_map>

#include "ir/eval.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "ir/ops/infer_util.h"
#include "passes/registry.h"

namespace rlx {

namespace {

struct Folder {
  const Function& fn;
  std::unordered_map<const Var*, int> uses;
  std::unordered_map<const Var*, Expr> defs;

  explicit Folder(const Function& f) : fn(f) {
    walkExpr(f.body, [&](const Expr& e) {
      if (auto v = e.as<Var>()) ++uses[v.get()];
    });
    if (auto seq = f.body.as<SeqExpr>())
      for (auto& b : seq->blocks)
        for (auto& x : b->bindings) defs[x->var.get()] = x->value;
  }

  // The constant `e` is, directly or through a var bound to a constant.
  NDArrayRef constant(const Expr& e) const {
    if (auto c = e.as<Constant>()) return c->data;
    if (auto v = e.as<Var>()) {
      auto it = defs.find(v.get());
      if (it != defs.end())
        if (auto c = it->second.as<Constant>()) return c->data;
    }
    return nullptr;
  }

  Ref<Call> callOf(const Expr& e, const char* op) const {
    auto v = e.as<Var>();
    if (!v) return nullptr;
    auto it = defs.find(v.get());
    if (it == defs.end()) return nullptr;
    auto c = it->second.as<Call>();
    return c && c->op.as<Op>() && c->opName() == op ? c : nullptr;
  }

  bool singleUse(const Expr& e) const {
    auto v = e.as<Var>();
    return v && v->isDataflow() && uses.count(v.get()) && uses.at(v.get()) == 1;
  }
};

// The per-channel values of constant `c` against a rank-`rank` tensor whose channel axis is
// `axis` with `channels` entries: nullopt unless every other (right-aligned) dim of c is 1.
std::optional<std::vector<double>> perChannel(const NDArrayRef& c, int rank, int axis, int64_t channels) {
  if (!c || !c->dtype.isFloat() || int(c->shape.size()) > rank) return std::nullopt;
  int offset = rank - int(c->shape.size());
  for (int d = 0; d < int(c->shape.size()); ++d)
    if (c->shape[d] != 1 && !(d + offset == axis && c->shape[d] == channels)) return std::nullopt;
  std::vector<double> out(static_cast<size_t>(channels));
  for (int64_t k = 0; k < channels; ++k) out[size_t(k)] = c->getDouble(c->numel() == 1 ? 0 : k);
  return out;
}

// `w` with every element whose index along `axis` is k multiplied by scale[k].
Expr scaleAlong(const NDArrayRef& w, int axis, const std::vector<double>& scale) {
  auto out = make<NDArray>(w->dtype, w->shape);
  int64_t inner = 1;
  for (size_t d = size_t(axis) + 1; d < w->shape.size(); ++d) inner *= w->shape[d];
  int64_t n = w->shape[size_t(axis)];
  for (int64_t i = 0; i < w->numel(); ++i) out->setDouble(i, w->getDouble(i) * scale[size_t((i / inner) % n)]);
  return valueToExpr(Value::ofTensor(out));
}

// A bias constant scaled per channel: same shape when it already has one value per channel.
Expr scaleBias(const NDArrayRef& c, int rank, int axis, const std::vector<double>& scale) {
  if (c->numel() == int64_t(scale.size()) && scale.size() > 1) {
    auto out = make<NDArray>(c->dtype, c->shape);
    for (int64_t i = 0; i < c->numel(); ++i) out->setDouble(i, c->getDouble(i) * scale[size_t(i)]);
    return valueToExpr(Value::ofTensor(out));
  }
  std::vector<int64_t> shape(size_t(rank), 1);
  shape[size_t(axis)] = int64_t(scale.size());
  auto out = make<NDArray>(c->dtype, shape);
  for (size_t k = 0; k < scale.size(); ++k) out->setDouble(int64_t(k), c->getDouble(0) * scale[k]);
  return valueToExpr(Value::ofTensor(out));
}

Expr withArgs(const Call& c, std::vector<Expr> args) {
  auto n = make<Call>(c.op, std::move(args), c.attrs, c.sinfoArgs);
  n->sinfo = c.sinfo;
  n->span = c.span;
  return n;
}

int rankOf(const Expr& e) {
  auto t = sinfoOf(e).as<TensorSInfo>();
  return t ? t->ndim : -1;
}

// Where the channels of a conv2d / matmul live: the weight's axis for output (backward) or input
// (forward) channels, the activation's channel axis and the channel count.
struct Channels {
  int weightAxis, dataAxis, rank;
  int64_t count;
};

std::optional<Channels> channelsOf(const Call& c, const NDArrayRef& w, bool output) {
  if (c.opName() == "relax.nn.conv2d") {
    if (ops::attrString(c, "data_layout", "NCHW") != "NCHW" || ops::attrString(c, "kernel_layout", "OIHW") != "OIHW" ||
        ops::attrString(c, "out_layout", "NCHW") != "NCHW" || w->shape.size() != 4)
      return std::nullopt;
    if (!output && ops::attrInt(c, "groups", 1) != 1) return std::nullopt;
    return Channels{output ? 0 : 1, 1, 4, w->shape[output ? 0 : 1]};
  }
  if (c.opName() == "relax.matmul" && w->shape.size() == 2) {
    int rank = output ? rankOf(Expr(const_cast<Call*>(&c))) : rankOf(c.args[0]);
    if (rank < 1) return std::nullopt;
    return Channels{output ? 1 : 0, rank - 1, rank, w->shape[output ? 1 : 0]};
  }
  return std::nullopt;
}

// A scaling binding z = a * s, s * a or a / s: the scaled operand and the per-channel factors.
struct Scale {
  Expr operand;
  NDArrayRef factor;
  bool reciprocal;
};

std::optional<Scale> scaleOf(const Folder& f, const Expr& value) {
  auto c = value.as<Call>();
  if (!c || !c->op.as<Op>() || c->args.size() != 2) return std::nullopt;
  if (c->opName() == "relax.multiply") {
    if (auto s = f.constant(c->args[1]); s && !f.constant(c->args[0])) return Scale{c->args[0], s, false};
    if (auto s = f.constant(c->args[0]); s && !f.constant(c->args[1])) return Scale{c->args[1], s, false};
  }
  if (c->opName() == "relax.divide")
    if (auto s = f.constant(c->args[1]); s && !f.constant(c->args[0])) return Scale{c->args[0], s, true};
  return std::nullopt;
}

bool sameShape(const Expr& a, const Expr& b) {
  auto x = sinfoOf(a).as<TensorSInfo>(), y = sinfoOf(b).as<TensorSInfo>();
  if (!x || !y || !x->dims() || !y->dims() || x->dims()->size() != y->dims()->size() || x->dtype != y->dtype) return false;
  for (size_t i = 0; i < x->dims()->size(); ++i)
    if (!(*x->dims())[i].same((*y->dims())[i]) && ops::asConst((*x->dims())[i]) != ops::asConst((*y->dims())[i])) return false;
  return true;
}

// One rewrite: the replaced bindings (by var) and vars to substitute.
struct Rewrite {
  std::unordered_map<const Var*, Expr> newValues;
  std::unordered_map<const Var*, Expr> replaceUses;  // dropped var -> its replacement
};

std::optional<Rewrite> tryBackward(const Folder& f, const BindingRef& b) {
  auto sc = scaleOf(f, b->value);
  if (!sc || !f.singleUse(sc->operand)) return std::nullopt;
  // Walk up the bias chain to the conv / matmul.
  std::vector<std::pair<VarRef, Ref<Call>>> chain;
  Expr cur = sc->operand;
  Ref<Call> base;
  for (int depth = 0; depth < 16; ++depth) {
    if (!f.singleUse(cur)) return std::nullopt;
    auto v = cur.as<Var>();
    if ((base = f.callOf(cur, "relax.nn.conv2d")) || (base = f.callOf(cur, "relax.matmul"))) break;
    auto add = f.callOf(cur, "relax.add");
    auto sub = f.callOf(cur, "relax.subtract");
    auto link = add ? add : sub;
    if (!link || link->args.size() != 2 || !sameShape(link->args[0], cur)) return std::nullopt;
    chain.push_back({v, link});
    cur = link->args[0];
  }
  if (!base) return std::nullopt;
  auto w = f.constant(base->args[1]);
  if (!w || f.constant(base->args[0])) return std::nullopt;
  auto ch = channelsOf(*base, w, true);
  if (!ch) return std::nullopt;
  auto factors = perChannel(sc->factor, ch->rank, ch->dataAxis, ch->count);
  if (!factors || !sameShape(b->var, sc->operand)) return std::nullopt;
  if (sc->reciprocal)
    for (auto& x : *factors) {
      if (x == 0) return std::nullopt;
      x = 1 / x;
    }
  Rewrite rw;
  for (auto& [var, link] : chain) {
    auto bias = f.constant(link->args[1]);
    if (!bias || !perChannel(bias, ch->rank, ch->dataAxis, ch->count)) return std::nullopt;
    rw.newValues[var.get()] = withArgs(*link, {link->args[0], scaleBias(bias, ch->rank, ch->dataAxis, *factors)});
  }
  rw.newValues[cur.as<Var>().get()] = withArgs(*base, {base->args[0], scaleAlong(w, ch->weightAxis, *factors)});
  if (b->var->isDataflow()) rw.replaceUses[b->var.get()] = sc->operand;
  else rw.newValues[b->var.get()] = sc->operand;
  return rw;
}

std::optional<Rewrite> tryForward(const Folder& f, const BindingRef& b) {
  auto c = b->value.as<Call>();
  if (!c || !c->op.as<Op>() || (c->opName() != "relax.nn.conv2d" && c->opName() != "relax.matmul") || c->args.size() != 2) return std::nullopt;
  auto w = f.constant(c->args[1]);
  if (!w || !f.singleUse(c->args[0])) return std::nullopt;
  auto ch = channelsOf(*c, w, false);
  if (!ch) return std::nullopt;
  Expr in = c->args[0];
  auto relu = f.callOf(in, "relax.nn.relu");
  Expr scaled = relu ? relu->args[0] : in;
  if (relu && !f.singleUse(scaled)) return std::nullopt;
  auto sv = scaled.as<Var>();
  if (!sv || !f.defs.count(sv.get())) return std::nullopt;
  auto sc = scaleOf(f, f.defs.at(sv.get()));
  if (!sc || !sameShape(sc->operand, scaled)) return std::nullopt;
  auto factors = perChannel(sc->factor, ch->rank, ch->dataAxis, ch->count);
  if (!factors) return std::nullopt;
  for (auto& x : *factors) {
    if (x == 0 || (relu && x < 0)) return std::nullopt;
    if (sc->reciprocal) x = 1 / x;
  }
  Rewrite rw;
  Expr newIn = sc->operand;
  if (relu) {
    rw.newValues[in.as<Var>().get()] = withArgs(*relu, {sc->operand});
    newIn = in;
  }
  rw.newValues[b->var.get()] = withArgs(*c, {newIn, scaleAlong(w, ch->weightAxis, *factors)});
  rw.replaceUses[sv.get()] = sc->operand;  // the scaling binding is dropped
  return rw;
}

// Applies one rewrite to the function: new values, dropped bindings, substituted uses.
FunctionRef apply(const Function& fn, const Rewrite& rw) {
  auto seq = fn.body.as<SeqExpr>();
  std::vector<BlockRef> blocks;
  for (auto& blk : seq->blocks) {
    std::vector<BindingRef> out;
    for (auto& x : blk->bindings) {
      if (rw.replaceUses.count(x->var.get())) continue;
      auto it = rw.newValues.find(x->var.get());
      out.push_back(it == rw.newValues.end() ? x : make<Binding>(x->var, it->second));
    }
    blocks.push_back(make<BindingBlock>(std::move(out), blk->isDataflow()));
  }
  auto nseq = make<SeqExpr>(std::move(blocks), seq->body);
  nseq->sinfo = seq->sinfo;
  Expr body = rw.replaceUses.empty() ? Expr(nseq) : substituteVars(nseq, rw.replaceUses);
  auto nf = make<Function>(fn.params, body, fn.retSInfo, fn.isPure, fn.attrs);
  nf->sinfo = fn.sinfo;
  nf->span = fn.span;
  return nf;
}

Expr foldFunction(const Expr& func, bool forward) {
  auto fn = func.as<Function>();
  if (!fn || !fn->body.as<SeqExpr>()) return func;
  for (int round = 0; round < 10000; ++round) {
    Folder f(*fn);
    std::optional<Rewrite> rw;
    for (auto& blk : fn->body.as<SeqExpr>()->blocks) {
      if (!blk->isDataflow()) continue;
      for (auto& b : blk->bindings) {
        if (b->isMatchCast()) continue;
        rw = forward ? tryForward(f, b) : tryBackward(f, b);
        if (rw) break;
      }
      if (rw) break;
    }
    if (!rw) break;
    fn = apply(*fn, *rw);
  }
  return fn.same(func) ? func : Expr(fn);
}

Pass foldPass(const char* name, bool forward) {
  return makeFunctionPass({name, 0, {}}, [forward](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> { return foldFunction(func, forward); });
}

}  // namespace

Result<Pass> createBackwardFoldScaleAxisPass(PassOptions&) { return foldPass("BackwardFoldScaleAxis", false); }
Result<Pass> createForwardFoldScaleAxisPass(PassOptions&) { return foldPass("ForwardFoldScaleAxis", true); }

Result<Pass> createFoldScaleAxisPass(PassOptions&) {
  RLX_TRY(steps, parsePipeline("BackwardFoldScaleAxis,ForwardFoldScaleAxis,FoldConstant"));
  return Pass({"FoldScaleAxis", 0, {}}, [steps](const IRModuleRef& mod, const PassContext& ctx) -> Result<IRModuleRef> {
    return runSequential(steps, mod, ctx);
  });
}

}  // namespace rlx
