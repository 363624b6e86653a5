// hasReshapePattern: TVM's structural conditions (loop nest, one data-parallel block, a store of a
// load from the first buffer param into the last one), then the index identity. TVM proves that the
// flattened store index equals the flattened load index with its iter-map simplifier; we decide the
// same identity by evaluating both over the block's iteration domain (all points up to 2^18, else a
// spread sample), for several values of the symbolic shape vars.
#include "passes/reshape_pattern.h"

#include <optional>
#include <unordered_map>

#include "ir/arith.h"

namespace rlx {

namespace {

using Env = std::unordered_map<const PrimVar*, int64_t>;

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Integer index arithmetic; nullopt for anything else (then the kernel is not a plain reshape).
std::optional<int64_t> evalIndex(const PrimExpr& e, const Env& env) {
  if (!e) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::IntImm: return static_cast<const IntImm&>(*e).value;
    case NodeKind::PrimVar: {
      auto it = env.find(static_cast<const PrimVar*>(e.get()));
      return it == env.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    case NodeKind::Cast: return e->dtype.isInt() ? evalIndex(static_cast<const Cast&>(*e).value, env) : std::nullopt;
    default: break;
  }
  if (!PrimBinary::classOf(e->kind())) return std::nullopt;
  auto& bin = static_cast<const PrimBinary&>(*e);
  auto a = evalIndex(bin.a, env), b = evalIndex(bin.b, env);
  if (!a || !b) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::Add: return *a + *b;
    case NodeKind::Sub: return *a - *b;
    case NodeKind::Mul: return *a * *b;
    case NodeKind::Div: return *b ? std::optional<int64_t>(*a / *b) : std::nullopt;
    case NodeKind::Mod: return *b ? std::optional<int64_t>(*a % *b) : std::nullopt;
    case NodeKind::FloorDiv: return *b ? std::optional<int64_t>(floorDiv(*a, *b)) : std::nullopt;
    case NodeKind::FloorMod: return *b ? std::optional<int64_t>(*a - floorDiv(*a, *b) * *b) : std::nullopt;
    case NodeKind::Min: return std::min(*a, *b);
    case NodeKind::Max: return std::max(*a, *b);
    default: return std::nullopt;
  }
}

// Row-major flattened index of `indices` into `buffer`.
std::optional<int64_t> flatIndex(const Buffer& buffer, const std::vector<PrimExpr>& indices, const Env& env) {
  if (indices.size() != buffer.shape.size()) return std::nullopt;
  int64_t idx = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    auto dim = evalIndex(buffer.shape[i], env), at = evalIndex(indices[i], env);
    if (!dim || !at) return std::nullopt;
    idx = idx * *dim + *at;
  }
  return idx;
}

// The block under the loop nest (TVM: each For holds a For or a BlockRealize, every block iter is
// data-parallel, a block whose body is a For is looked through), or null.
const TirBlock* innermostBlock(Stmt s) {
  while (s) {
    if (auto f = s.as<For>()) {
      if (!f->body.is<For>() && !f->body.is<BlockRealize>()) return nullptr;
      s = f->body;
    } else if (auto r = s.as<BlockRealize>()) {
      for (auto& iv : r->block->iterVars)
        if (iv.kind != IterVar::DataPar) return nullptr;
      if (!r->block->body.is<For>()) return r->block.get();
      s = r->block->body;
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

// Checks src/dst flattened indices agree over the domain with the symbolic vars bound as in `env`.
// Returns nullopt when the domain is empty for these values (nothing decided).
std::optional<bool> sameFlatIndices(const TirBlock& block, const BufferStore& store, const BufferLoad& load, Env env) {
  std::vector<int64_t> mins, extents;
  int64_t total = 1;
  for (auto& iv : block.iterVars) {
    auto mn = evalIndex(iv.dom.min, env), ext = evalIndex(iv.dom.extent, env);
    if (!mn || !ext) return false;
    if (*ext <= 0) return std::nullopt;
    mins.push_back(*mn), extents.push_back(*ext);
    total = total > (int64_t(1) << 40) / *ext ? int64_t(1) << 40 : total * *ext;
  }
  const int64_t kAll = int64_t(1) << 18, kSample = int64_t(1) << 14;
  int64_t count = total <= kAll ? total : kSample;
  for (int64_t k = 0; k < count; ++k) {
    // A spread of points (with the first and last) when the domain is too large to walk.
    int64_t linear = total <= kAll ? k : (k == count - 1 ? total - 1 : int64_t((unsigned __int128)k * 2654435761u % uint64_t(total)));
    for (size_t i = block.iterVars.size(); i-- > 0;) {
      env[block.iterVars[i].var.get()] = mins[i] + linear % extents[i];
      linear /= extents[i];
    }
    auto src = flatIndex(*load.buffer, load.indices, env), dst = flatIndex(*store.buffer, store.indices, env);
    if (!src || !dst || *src != *dst) return false;
  }
  return true;
}

template <typename F>
void forEachBufferUse(const PrimExpr& e, F&& f) {
  if (!e) return;
  switch (e->kind()) {
    case NodeKind::BufferLoad: {
      auto& l = static_cast<const BufferLoad&>(*e);
      f(l.buffer.get());
      for (auto& i : l.indices) forEachBufferUse(i, f);
      return;
    }
    case NodeKind::Not: forEachBufferUse(static_cast<const PrimNot&>(*e).a, f); return;
    case NodeKind::Cast: forEachBufferUse(static_cast<const Cast&>(*e).value, f); return;
    case NodeKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      forEachBufferUse(s.cond, f), forEachBufferUse(s.trueValue, f), forEachBufferUse(s.falseValue, f);
      return;
    }
    case NodeKind::PrimCall:
      for (auto& a : static_cast<const PrimCall&>(*e).args) forEachBufferUse(a, f);
      return;
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      forEachBufferUse(l.value, f), forEachBufferUse(l.body, f);
      return;
    }
    case NodeKind::Ramp: {
      auto& r = static_cast<const Ramp&>(*e);
      forEachBufferUse(r.base, f), forEachBufferUse(r.stride, f);
      return;
    }
    case NodeKind::Broadcast: forEachBufferUse(static_cast<const Broadcast&>(*e).value, f); return;
    default:
      if (PrimBinary::classOf(e->kind())) {
        forEachBufferUse(static_cast<const PrimBinary&>(*e).a, f);
        forEachBufferUse(static_cast<const PrimBinary&>(*e).b, f);
      }
  }
}

// Calls f on every buffer a statement loads or stores (TVM's UsesVar on the buffer's data var).
template <typename F>
void forEachBufferUse(const Stmt& s, F&& f) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::BufferStore: {
      auto& st = static_cast<const BufferStore&>(*s);
      f(st.buffer.get());
      forEachBufferUse(st.value, f);
      for (auto& i : st.indices) forEachBufferUse(i, f);
      return;
    }
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(*s).seq) forEachBufferUse(x, f);
      return;
    case NodeKind::For: {
      auto& l = static_cast<const For&>(*s);
      forEachBufferUse(l.min, f), forEachBufferUse(l.extent, f), forEachBufferUse(l.body, f);
      return;
    }
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(*s);
      forEachBufferUse(i.cond, f), forEachBufferUse(i.thenCase, f), forEachBufferUse(i.elseCase, f);
      return;
    }
    case NodeKind::LetStmt: {
      auto& l = static_cast<const LetStmt&>(*s);
      forEachBufferUse(l.value, f), forEachBufferUse(l.body, f);
      return;
    }
    case NodeKind::Evaluate: forEachBufferUse(static_cast<const Evaluate&>(*s).value, f); return;
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(*s);
      forEachBufferUse(a.cond, f), forEachBufferUse(a.body, f);
      return;
    }
    case NodeKind::TirBlock: {
      auto& b = static_cast<const TirBlock&>(*s);
      forEachBufferUse(b.init, f), forEachBufferUse(b.body, f);
      return;
    }
    case NodeKind::BlockRealize: {
      auto& r = static_cast<const BlockRealize&>(*s);
      for (auto& v : r.iterValues) forEachBufferUse(v, f);
      forEachBufferUse(r.predicate, f);
      forEachBufferUse(Stmt(r.block), f);
      return;
    }
    default: return;
  }
}

}  // namespace

std::vector<size_t> usedBufferParams(const PrimFunc& func, size_t count) {
  std::vector<const Buffer*> used;
  forEachBufferUse(func.body, [&](const Buffer* b) { used.push_back(b); });
  std::vector<size_t> out;
  for (size_t i = 0; i < count && i < func.params.size(); ++i) {
    const BufferRef* b = func.bufferOf(func.params[i]);
    if (b && std::find(used.begin(), used.end(), b->get()) != used.end()) out.push_back(i);
  }
  return out;
}

bool hasReshapePattern(const PrimFunc& func) {
  std::vector<const Buffer*> buffers;
  for (auto& p : func.params)
    if (const BufferRef* b = func.bufferOf(p)) buffers.push_back(b->get());
  if (buffers.size() < 2 || !func.body.is<BlockRealize>()) return false;
  const TirBlock* block = innermostBlock(func.body);
  auto store = block ? block->body.as<BufferStore>() : Ref<BufferStore>();
  auto load = store ? store->value.as<BufferLoad>() : Ref<BufferLoad>();
  if (!load || store->buffer.get() != buffers.back() || load->buffer.get() != buffers.front()) return false;

  // Symbolic vars: shape dims and iteration bounds that are not block iter vars.
  std::vector<Ref<PrimVar>> symbolic;
  for (const Buffer* b : {buffers.front(), buffers.back()})
    for (auto& d : b->shape) collectVars(d, symbolic);
  for (auto& iv : block->iterVars) collectVars(iv.dom.min, symbolic), collectVars(iv.dom.extent, symbolic);
  const int64_t values[] = {1, 2, 3, 5, 7, 11};
  bool decided = false;
  for (size_t s = 0; s < (symbolic.empty() ? 1 : 5); ++s) {
    Env env;
    for (size_t j = 0; j < symbolic.size(); ++j) env[symbolic[j].get()] = values[(s + j) % 6];
    auto same = sameFlatIndices(*block, *store, *load, std::move(env));
    if (same && !*same) return false;
    decided |= same.has_value();
  }
  return decided;
}

}  // namespace rlx
