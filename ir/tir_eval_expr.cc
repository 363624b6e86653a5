// TIR interpreter, expressions: evaluates a PrimExpr lane by lane (vectors are Ramp/Broadcast
// indices and loads), with buffer loads bounds-checked and lazy conditionals.
#include "ir/tir_eval_internal.h"

namespace rlx::tireval {

VarValue& Interp::bind(const PrimVar* v, Scalar s) {
  VarValue& slot = vars[v];
  saved_.emplace_back(&slot, std::move(slot));
  slot.bound = true;
  slot.scalar = s;
  slot.lanes.clear();
  return slot;
}

VarValue& Interp::bindLanes(const PrimVar* v, std::vector<Scalar> lanes) {
  if (lanes.size() == 1) return bind(v, lanes[0]);
  VarValue& slot = bind(v, Scalar());
  slot.lanes = std::move(lanes);
  return slot;
}

bool Interp::isBound(const PrimVar* v) const {
  auto it = vars.find(v);
  return it != vars.end() && it->second.bound;
}

void Interp::restore(size_t mark) {
  while (saved_.size() > mark) {
    *saved_.back().first = std::move(saved_.back().second);
    saved_.pop_back();
  }
}

Result<Scalar> Interp::evalVar(const PrimVar& v, int lane) {
  auto it = vars.find(&v);
  if (it == vars.end() || !it->second.bound) return Error("variable '" + v.name + "' has no value here");
  const VarValue& val = it->second;
  if (val.lanes.empty()) return val.scalar;
  if (lane < 0 || size_t(lane) >= val.lanes.size()) return Error("lane " + std::to_string(lane) + " of the " + std::to_string(val.lanes.size()) + "-lane variable '" + v.name + "'");
  return val.lanes[size_t(lane)];
}

Result<int64_t> Interp::evalInt(const PrimExpr& e) {
  RLX_TRY(v, eval(e));
  if (v.isFloat()) return Error("expected an integer but got a " + v.dtype.str() + " value");
  return v.i;
}

Result<int64_t> Interp::elementOffset(const Buffer& buf, const std::vector<PrimExpr>& indices, int lane, NDArray*& storage) {
  auto it = buffers.find(&buf);
  if (it == buffers.end()) return Error("buffer '" + buf.name + "' has no storage here (not a parameter, nor an alloc_buffer or match_buffer in scope)");
  const BufferView& view = it->second;
  if (indices.size() != view.shape.size())
    return Error("buffer '" + buf.name + "' has " + std::to_string(view.shape.size()) + " dimension(s) but is indexed with " + std::to_string(indices.size()));
  int64_t off = view.offset;
  for (size_t k = 0; k < indices.size(); ++k) {
    RLX_TRY(idx, eval(indices[k], lane));
    if (idx.isFloat()) return Error("index " + std::to_string(k) + " of buffer '" + buf.name + "' is a " + idx.dtype.str() + ", not an integer");
    int64_t i = idx.isUInt64() && idx.i < 0 ? INT64_MAX : idx.i;
    if (i < 0 || i >= view.shape[k])
      return Error("index " + std::to_string(i) + " is out of bounds for dim " + std::to_string(k) + " of buffer '" + buf.name + "' (extent " + std::to_string(view.shape[k]) + ")");
    int64_t step;
    if (__builtin_mul_overflow(i, view.strides[k], &step) || __builtin_add_overflow(off, step, &off)) return Error("the element offset into buffer '" + buf.name + "' overflows");
  }
  if (off < 0 || off >= view.storage->numel())
    return Error("element " + std::to_string(off) + " of buffer '" + buf.name + "' lies outside its storage of " + std::to_string(view.storage->numel()) + " element(s)");
  storage = view.storage.get();
  return off;
}

Result<Scalar> Interp::evalLoad(const BufferLoad& l, int lane) {
  const Buffer& buf = *l.buffer;
  if (buf.dtype.lanes > 1) return Error("buffer '" + buf.name + "' has the vector dtype " + buf.dtype.str() + ", which the TIR interpreter does not support");
  NDArray* a = nullptr;
  RLX_TRY(off, elementOffset(buf, l.indices, lane, a));
  if (buf.dtype == DataType::float32()) return Scalar::ofFloat(buf.dtype, a->as<float>()[off]);  // the common case
  if (buf.dtype.isFloat()) return Scalar::ofFloat(buf.dtype, a->getDouble(off));
  return Scalar::ofInt(buf.dtype, a->getInt(off));
}

namespace {

bool isExternCall(const std::string& op) { return op == "tir.call_extern" || op == "tir.call_pure_extern" || op == "tir.call_intrin" || op == "tir.call_llvm_intrin" || op == "tir.call_llvm_pure_intrin"; }

std::string externName(const PrimCall& c) {
  if (!c.args.empty() && c.args[0]->kind() == NodeKind::TirStringImm) return static_cast<const TirStringImm&>(*c.args[0]).value;
  return "?";
}

}  // namespace

Result<Scalar> Interp::evalCall(const PrimCall& c, int lane) {
  if (c.op == "tir.if_then_else") {
    // Only the chosen branch runs: kernels guard out-of-bounds loads (padding) this way.
    if (c.args.size() != 3) return Error("tir.if_then_else takes 3 arguments");
    RLX_TRY(cond, eval(c.args[0], lane));
    return eval(cond.truthy() ? c.args[1] : c.args[2], lane);
  }
  if (isExternCall(c.op)) return Error("cannot run " + c.op + " of '" + externName(c) + "': the TIR interpreter knows only TVM's built-in intrinsics");
  std::vector<Scalar> args;
  for (auto& a : c.args) {
    if (a->kind() == NodeKind::TirStringImm) return Error("unsupported TIR intrinsic '" + c.op + "'");
    RLX_TRY(v, eval(a, lane));
    args.push_back(v);
  }
  if (c.op == "tir.reinterpret") {
    if (args.size() != 1) return Error("tir.reinterpret takes one argument");
    return reinterpretScalar(c.dtype, args[0]);
  }
  auto r = applyIntrinsic(c.op, c.dtype, args);
  if (!r) return Error("unsupported TIR intrinsic '" + c.op + "'");
  return std::move(*r);
}

Result<Scalar> Interp::eval(const PrimExpr& e, int lane) {
  DataType t = e->dtype.element();
  switch (e->kind()) {
    case NodeKind::IntImm: {
      int64_t v = static_cast<const IntImm&>(*e).value;
      return t.isFloat() ? Scalar::ofFloat(t, double(v)) : Scalar::ofInt(t, v);
    }
    case NodeKind::FloatImm: {
      double v = static_cast<const FloatImm&>(*e).value;
      return t.isFloat() ? Scalar::ofFloat(t, v) : castScalar(t, Scalar::ofFloat(DataType::float64(), v));
    }
    case NodeKind::TirStringImm: return Error("the string \"" + static_cast<const TirStringImm&>(*e).value + "\" cannot be used as a number");
    case NodeKind::PrimVar: return evalVar(static_cast<const PrimVar&>(*e), lane);
    case NodeKind::And:
    case NodeKind::Or: {
      // Short-circuit, so `i < n and A[i] > 0` never reads out of bounds.
      auto& b = static_cast<const PrimBinary&>(*e);
      RLX_TRY(x, eval(b.a, lane));
      if (x.truthy() == (e->kind() == NodeKind::Or)) return Scalar::ofBool(x.truthy());
      RLX_TRY(y, eval(b.b, lane));
      return Scalar::ofBool(y.truthy());
    }
    case NodeKind::Not: {
      RLX_TRY(x, eval(static_cast<const PrimNot&>(*e).a, lane));
      return Scalar::ofBool(!x.truthy());
    }
    case NodeKind::Select: {
      // Both sides have no side effects, so evaluating only the chosen one gives TVM's value.
      auto& s = static_cast<const Select&>(*e);
      RLX_TRY(cond, eval(s.cond, lane));
      return eval(cond.truthy() ? s.trueValue : s.falseValue, lane);
    }
    case NodeKind::Cast: {
      RLX_TRY(x, eval(static_cast<const Cast&>(*e).value, lane));
      return castScalar(t, x);
    }
    case NodeKind::PrimCall: return evalCall(static_cast<const PrimCall&>(*e), lane);
    case NodeKind::BufferLoad: return evalLoad(static_cast<const BufferLoad&>(*e), lane);
    case NodeKind::PrimLet: {
      auto& l = static_cast<const PrimLet&>(*e);
      RLX_TRY(v, eval(l.value, lane));
      BindingScope scope(*this);
      bind(l.var.get(), castScalar(l.var->dtype, v));
      return eval(l.body, lane);
    }
    case NodeKind::Ramp: {
      auto& r = static_cast<const Ramp&>(*e);
      if (lane >= r.lanes) return Error("lane " + std::to_string(lane) + " of a " + std::to_string(r.lanes) + "-lane T.Ramp");
      RLX_TRY(base, eval(r.base));
      RLX_TRY(stride, eval(r.stride));
      RLX_TRY(step, applyBinary(NodeKind::Mul, stride.dtype, stride, Scalar::ofInt(stride.dtype.isFloat() ? DataType::int64() : stride.dtype, lane)));
      return applyBinary(NodeKind::Add, t, base, step);
    }
    case NodeKind::Broadcast: return eval(static_cast<const Broadcast&>(*e).value);
    default: break;
  }
  if (PrimBinary::classOf(e->kind())) {
    auto& b = static_cast<const PrimBinary&>(*e);
    RLX_TRY(x, eval(b.a, lane));
    RLX_TRY(y, eval(b.b, lane));
    return applyBinary(e->kind(), e->dtype, x, y);
  }
  return Error(std::string("the TIR interpreter cannot evaluate a ") + nodeKindName(e->kind()) + " expression");
}

}  // namespace rlx::tireval
