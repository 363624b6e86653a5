// TIR interpreter, statements and entry point: binds the PrimFunc's parameters and buffer shapes,
// then executes loops, blocks (iter vars, T.where, init, alloc/match buffers), stores and lets.
#include <unordered_map>

#include "ir/tir_empty_reduction.h"
#include "ir/tir_eval_internal.h"

namespace rlx::tireval {

namespace {

// Dtypes NDArray stores element by element (no vectors).
bool storableDtype(DataType t) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case DataType::Float: return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case DataType::BFloat: return t.bits == 16;
    case DataType::Int: return t.bits == 2 || t.bits == 4 || t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case DataType::UInt: return t.bits == 1 || t.bits == 2 || t.bits == 4 || t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case DataType::Handle: return false;
    default: return t.isMiniFloat();
  }
}

Status checkStorable(const Buffer& buf) {
  if (storableDtype(buf.dtype)) return okStatus();
  return Error("buffer '" + buf.name + "' has dtype " + buf.dtype.str() + ", which the TIR interpreter does not support");
}

std::vector<int64_t> compactStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  return strides;
}

std::string dimName(const Buffer& buf, const char* what, size_t k) { return "buffer '" + buf.name + "' " + what + " " + std::to_string(k); }

// Allocations above this many bytes are refused with an Error rather than an abort in malloc.
constexpr int64_t kMaxAllocBytes = int64_t(1) << 32;

// Buffer views a block installs (alloc/match buffers) and the previous views they hide.
class ScopedBuffers {
 public:
  explicit ScopedBuffers(Interp& in) : in_(in) {}
  ~ScopedBuffers() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) in_.buffers[it->first] = std::move(*it->second);
      else in_.buffers.erase(it->first);
    }
  }
  void save(const Buffer* b) {
    auto it = in_.buffers.find(b);
    saved_.emplace_back(b, it == in_.buffers.end() ? std::nullopt : std::optional<BufferView>(it->second));
  }

 private:
  Interp& in_;
  std::vector<std::pair<const Buffer*, std::optional<BufferView>>> saved_;
};

}  // namespace

Status Interp::bindOrCheck(const PrimExpr& e, int64_t value, const std::string& what) {
  if (auto v = e.as<PrimVar>(); v && !isBound(v.get())) {
    bind(v.get(), Scalar::ofInt(v->dtype, value));
    origins[v.get()] = what;
    return okStatus();
  }
  RLX_TRY(want, evalInt(e));
  if (want == value) return okStatus();
  std::string msg = what + " is " + std::to_string(value) + ", but ";
  if (auto v = e.as<PrimVar>()) {
    msg += "'" + v->name + "' is already " + std::to_string(want);
    if (auto it = origins.find(v.get()); it != origins.end()) msg += " (from " + it->second + ")";
  } else {
    msg += "the buffer declares " + std::to_string(want);
  }
  return Error(msg);
}

Status Interp::allocate(const BufferRef& buf) {
  RLX_TRY_STATUS(checkStorable(*buf));
  BufferView view;
  for (size_t k = 0; k < buf->shape.size(); ++k) {
    RLX_TRY(d, evalInt(buf->shape[k]));
    if (d < 0) return Error(dimName(*buf, "dim", k) + " is negative (" + std::to_string(d) + ")");
    view.shape.push_back(d);
  }
  view.strides = compactStrides(view.shape);
  for (size_t k = 0; k < buf->strides.size() && k < view.shape.size(); ++k) {
    RLX_TRY(s, evalInt(buf->strides[k]));
    view.strides[k] = s;
  }
  if (buf->elemOffset) {
    RLX_TRY(off, evalInt(buf->elemOffset));
    view.offset = off;
  }
  // Enough elements for the furthest index the declared strides reach.
  int64_t last = view.offset;
  bool empty = false;
  for (size_t k = 0; k < view.shape.size(); ++k) {
    empty |= view.shape[k] == 0;
    if (view.strides[k] < 0) return Error(dimName(*buf, "stride", k) + " is negative");
    int64_t step;
    if (__builtin_mul_overflow(view.shape[k] > 0 ? view.shape[k] - 1 : 0, view.strides[k], &step) || __builtin_add_overflow(last, step, &last))
      return Error("buffer '" + buf->name + "' is too large to allocate");
  }
  int64_t elems = empty ? 0 : last + 1;
  if (view.offset < 0 || elems > kMaxAllocBytes / buf->dtype.bytes()) return Error("buffer '" + buf->name + "' is too large to allocate (" + std::to_string(elems) + " elements)");
  view.storage = make<NDArray>(buf->dtype, std::vector<int64_t>{elems});
  buffers[buf.get()] = std::move(view);
  return okStatus();
}

Status Interp::matchRegion(const BufferRef& buf, const BufferRegion& source) {
  auto it = buffers.find(source.buffer.get());
  if (it == buffers.end()) return Error("T.match_buffer source '" + source.buffer->name + "' has no storage here");
  BufferView src = it->second;
  if (buf->dtype != source.buffer->dtype) return Error("T.match_buffer '" + buf->name + "' has dtype " + buf->dtype.str() + " but its source '" + source.buffer->name + "' is " + source.buffer->dtype.str());
  size_t n = source.region.size(), m = buf->shape.size();
  if (n != src.shape.size() || m > n) return Error("T.match_buffer '" + buf->name + "': the region of '" + source.buffer->name + "' does not fit the buffer's " + std::to_string(m) + " dimension(s)");
  BufferView view{src.storage, {}, {}, src.offset};
  for (size_t k = 0; k < n; ++k) {
    RLX_TRY(lo, evalInt(source.region[k].min));
    RLX_TRY(ext, evalInt(source.region[k].extent));
    if (lo < 0 || ext < 0 || lo + ext > src.shape[k])
      return Error("T.match_buffer '" + buf->name + "': region [" + std::to_string(lo) + ", " + std::to_string(lo + ext) + ") is out of bounds for dim " + std::to_string(k) + " of '" + source.buffer->name + "' (extent " + std::to_string(src.shape[k]) + ")");
    view.offset += lo * src.strides[k];
    // The buffer matches the region's trailing dims; the leading ones must be single elements.
    if (k < n - m) {
      if (ext != 1) return Error("T.match_buffer '" + buf->name + "' has fewer dimensions than the region, whose dim " + std::to_string(k) + " has extent " + std::to_string(ext) + " (must be 1)");
      continue;
    }
    size_t j = k - (n - m);
    RLX_TRY_STATUS(bindOrCheck(buf->shape[j], ext, dimName(*buf, "dim", j)));
    if (j < buf->strides.size()) RLX_TRY_STATUS(bindOrCheck(buf->strides[j], src.strides[k], dimName(*buf, "stride", j)));
    view.shape.push_back(ext);
    view.strides.push_back(src.strides[k]);
  }
  if (buf->elemOffset) RLX_TRY_STATUS(bindOrCheck(buf->elemOffset, view.offset, "buffer '" + buf->name + "' elem_offset"));
  buffers[buf.get()] = std::move(view);
  return okStatus();
}

Status Interp::execStore(const BufferStore& s) {
  const Buffer& buf = *s.buffer;
  if (buf.dtype.lanes > 1) return Error("buffer '" + buf.name + "' has the vector dtype " + buf.dtype.str() + ", which the TIR interpreter does not support");
  int lanes = lanesOf(s.value);
  for (auto& i : s.indices) lanes = std::max(lanes, lanesOf(i));
  for (int lane = 0; lane < lanes; ++lane) {
    RLX_TRY(v, eval(s.value, lane));
    NDArray* a = nullptr;
    RLX_TRY(off, elementOffset(buf, s.indices, lane, a));
    Scalar x = castScalar(buf.dtype, v);
    if (buf.dtype == DataType::float32()) a->as<float>()[off] = float(x.f);  // the common case
    else if (buf.dtype.isFloat()) a->setDouble(off, x.f);
    else a->setInt(off, x.i);
  }
  return okStatus();
}

Status Interp::execFor(const For& f) {
  RLX_TRY(lo, eval(f.min));
  RLX_TRY(extent, evalInt(f.extent));
  if (extent <= 0) return okStatus();
  DataType t = f.loopVar->dtype;
  BindingScope scope(*this);
  VarValue& slot = bind(f.loopVar.get(), Scalar::ofInt(t, lo.i));
  for (int64_t k = 0; k < extent; ++k) {
    slot.scalar = Scalar::ofInt(t, int64_t(uint64_t(lo.i) + uint64_t(k)));
    RLX_TRY_STATUS(exec(f.body));
  }
  return okStatus();
}

Status Interp::execLet(const LetStmt& s) {
  std::vector<Scalar> lanes;
  for (int lane = 0; lane < lanesOf(s.value); ++lane) {
    RLX_TRY(v, eval(s.value, lane));
    lanes.push_back(castScalar(s.var->dtype, v));
  }
  BindingScope scope(*this);
  bindLanes(s.var.get(), std::move(lanes));
  return exec(s.body);
}

Status Interp::execRealize(const BlockRealize& r) {
  const TirBlock& b = *r.block;
  if (r.iterValues.size() != b.iterVars.size())
    return Error("block '" + b.name + "' has " + std::to_string(b.iterVars.size()) + " iter var(s) but " + std::to_string(r.iterValues.size()) + " binding value(s)");
  if (r.predicate) {
    RLX_TRY(p, eval(r.predicate));
    if (!p.truthy()) return okStatus();
  }
  std::vector<Scalar> values;
  for (size_t k = 0; k < r.iterValues.size(); ++k) {
    RLX_TRY(v, eval(r.iterValues[k]));
    values.push_back(castScalar(b.iterVars[k].var->dtype, v));
  }
  return execBlock(b, values);
}

Status Interp::execBlock(const TirBlock& b, const std::vector<Scalar>& iterValues) {
  // Iter vars and the variables match_buffer shapes bind are unbound when the block ends, so the
  // next iteration can bind them to new values.
  BindingScope scope(*this);
  for (size_t k = 0; k < b.iterVars.size(); ++k) bind(b.iterVars[k].var.get(), iterValues[k]);
  ScopedBuffers scopedBuffers(*this);
  for (auto& buf : b.allocBuffers) {
    scopedBuffers.save(buf.get());
    RLX_TRY_STATUS(allocate(buf));
  }
  for (auto& mb : b.matchBuffers) {
    scopedBuffers.save(mb.buffer.get());
    RLX_TRY_STATUS(matchRegion(mb.buffer, mb.source));
  }
  if (b.init) {
    // TVM's LowerInitBlock: the init runs when every reduction iter var is at its domain's start.
    bool first = true;
    for (size_t k = 0; k < b.iterVars.size() && first; ++k) {
      if (b.iterVars[k].kind != IterVar::CommReduce) continue;
      RLX_TRY(lo, evalInt(b.iterVars[k].dom.min));
      first = iterValues[k].i == lo;
    }
    if (first) RLX_TRY_STATUS(exec(b.init));
  }
  return exec(b.body);
}

Status Interp::exec(const Stmt& s) {
  if (!s || returned) return okStatus();
  Status st = execNode(*s);
  if (!st.ok()) st.error().at(s->span);
  return st;
}

Status Interp::execNode(const StmtNode& s) {
  switch (s.kind()) {
    case NodeKind::BufferStore: return execStore(static_cast<const BufferStore&>(s));
    case NodeKind::SeqStmt:
      for (auto& x : static_cast<const SeqStmt&>(s).seq) RLX_TRY_STATUS(exec(x));
      return okStatus();
    case NodeKind::For: return execFor(static_cast<const For&>(s));
    case NodeKind::IfThenElse: {
      auto& i = static_cast<const IfThenElse&>(s);
      RLX_TRY(c, eval(i.cond));
      return exec(c.truthy() ? i.thenCase : i.elseCase);
    }
    case NodeKind::LetStmt: return execLet(static_cast<const LetStmt&>(s));
    case NodeKind::Evaluate: {
      auto& v = static_cast<const Evaluate&>(s).value;
      if (auto call = v.as<PrimCall>(); call && call->op == "tir.ret" && call->args.size() == 1) {
        RLX_TRY(r, eval(call->args[0]));
        returned = r;
        return okStatus();
      }
      for (int lane = 0; lane < lanesOf(v); ++lane) RLX_TRY_STATUS(eval(v, lane));
      return okStatus();
    }
    case NodeKind::AssertStmt: {
      auto& a = static_cast<const AssertStmt&>(s);
      RLX_TRY(c, eval(a.cond));
      if (c.truthy()) return exec(a.body);
      auto* msg = a.message && a.message->kind() == NodeKind::TirStringImm ? static_cast<const TirStringImm*>(a.message.get()) : nullptr;
      return Error("T.Assert failed" + (msg ? ": " + msg->value : std::string()));
    }
    case NodeKind::BlockRealize: return execRealize(static_cast<const BlockRealize&>(s));
    case NodeKind::TirBlock: {
      auto& b = static_cast<const TirBlock&>(s);
      if (!b.iterVars.empty()) return Error("block '" + b.name + "' has iter vars but no BlockRealize binding them");
      return execBlock(b, {});
    }
    default: return Error(std::string("the TIR interpreter cannot run a ") + nodeKindName(s.kind()) + " statement");
  }
}

}  // namespace rlx::tireval

namespace rlx {

namespace {

using tireval::Interp;
using tireval::Scalar;

std::string argName(const PrimFunc& func, size_t i) { return "argument " + std::to_string(i) + " ('" + func.params[i]->name + "')"; }

// Checks a buffer parameter's array (dtype, rank) and binds the bare shape variables it determines.
Status bindBufferShape(Interp& in, const Buffer& buf, const NDArray& a) {
  RLX_TRY_STATUS(tireval::checkStorable(buf));
  if (a.dtype != buf.dtype) return Error("buffer '" + buf.name + "' has dtype " + buf.dtype.str() + " but the array is " + a.dtype.str());
  if (a.shape.size() != buf.shape.size())
    return Error("buffer '" + buf.name + "' has " + std::to_string(buf.shape.size()) + " dimension(s) but the array has " + std::to_string(a.shape.size()));
  for (size_t k = 0; k < buf.shape.size(); ++k) {
    auto v = buf.shape[k].as<PrimVar>();
    if (v && !in.isBound(v.get())) RLX_TRY_STATUS(in.bindOrCheck(buf.shape[k], a.shape[k], "buffer '" + buf.name + "' dim " + std::to_string(k)));
  }
  return okStatus();
}

// Checks every dim, stride and elem_offset of a buffer parameter against its (compact) array and
// makes the array the buffer's storage.
Status bindBufferView(Interp& in, const BufferRef& buf, const NDArrayRef& a) {
  for (size_t k = 0; k < buf->shape.size(); ++k) RLX_TRY_STATUS(in.bindOrCheck(buf->shape[k], a->shape[k], "buffer '" + buf->name + "' dim " + std::to_string(k)));
  tireval::BufferView view{a, a->shape, tireval::compactStrides(a->shape), 0};
  // Arrays are always compact, as TVM's ArgBinder requires of a DLTensor without strides.
  for (size_t k = 0; k < buf->strides.size() && k < view.strides.size(); ++k)
    RLX_TRY_STATUS(in.bindOrCheck(buf->strides[k], view.strides[k], "buffer '" + buf->name + "' stride " + std::to_string(k)));
  if (buf->elemOffset) RLX_TRY_STATUS(in.bindOrCheck(buf->elemOffset, 0, "buffer '" + buf->name + "' elem_offset"));
  in.buffers[buf.get()] = std::move(view);
  return okStatus();
}

void bindScalar(Interp& in, const PrimVar& p, const TirArg& arg) {
  Scalar v = arg.kind == TirArg::Float ? Scalar::ofFloat(DataType::float64(), arg.f) : Scalar::ofInt(DataType::int64(), arg.i);
  in.bind(&p, tireval::castScalar(p.dtype, v));
  in.origins[&p] = "parameter '" + p.name + "'";
}

}  // namespace

Status runPrimFunc(const PrimFunc& func, const std::vector<TirArg>& args, TirArg* result) {
  if (args.size() != func.params.size())
    return Error("the PrimFunc takes " + std::to_string(func.params.size()) + " argument(s) but got " + std::to_string(args.size()));
  Interp in;
  // 1. Scalar parameters first: a buffer dim may name one, and is then checked against it.
  for (size_t i = 0; i < args.size(); ++i) {
    const PrimVarRef& p = func.params[i];
    bool isArray = args[i].kind == TirArg::Array;
    if (isArray && !args[i].array) return Error(argName(func, i) + " is a null array");
    if (func.bufferOf(p) || p->dtype.isHandle()) {
      if (!isArray) return Error(argName(func, i) + " must be an NDArray");
      continue;
    }
    if (isArray) return Error(argName(func, i) + " is a " + p->dtype.str() + " scalar, not an array");
    bindScalar(in, *p, args[i]);
  }
  // 2. The shape variables that bare dims determine (any parameter's dims may use them).
  for (size_t i = 0; i < args.size(); ++i)
    if (const BufferRef* buf = func.bufferOf(func.params[i])) RLX_TRY_STATUS(bindBufferShape(in, **buf, *args[i].array));
  // 3. Every dim, stride and offset checked (dims like `n * 2` only now), arrays installed.
  for (size_t i = 0; i < args.size(); ++i)
    if (const BufferRef* buf = func.bufferOf(func.params[i])) RLX_TRY_STATUS(bindBufferView(in, *buf, args[i].array));
  // 4. The body; a host function's T.ret value is its result.
  RLX_TRY_STATUS(in.exec(initEmptyReductions(func.body)));
  if (result && in.returned) *result = in.returned->isFloat() ? TirArg(in.returned->toDouble()) : TirArg(in.returned->i);
  if (result && !in.returned && !func.retType.isVoid()) return Error("the PrimFunc returns " + func.retType.str() + " but ended without T.ret");
  return okStatus();
}

}  // namespace rlx
