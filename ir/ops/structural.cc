// Structural and runtime-interface ops: call_tir and its variants, packed calls, closures, print and
// assert, shape/tensor conversions, device hints and the inspect.* tensor-field queries.
#include <algorithm>
#include <fmt/format.h>

#include <set>

#include "ir/ops/infer_util.h"
#include "ir/struct_info.h"

namespace rlx {
namespace {
using namespace ops;
using KwArgs = std::vector<std::pair<std::string, PyValue>>;

// out_sinfo=S or [S1, S2]: one tensor → itself, several → TupleSInfo.
Result<StructInfo> outSInfo(const std::string& label, const PyValue& v) {
  RLX_TRY(s, toSInfo(v, label + " out_sinfo"));
  std::vector<StructInfo> list;
  bool isList = v.kind == PyValue::List || v.kind == PyValue::Tuple;
  if (isList) list = s.as<TupleSInfo>()->fields;
  else list = {s};
  for (auto& f : list) {
    auto t = f.as<TensorSInfo>();
    if (t && !t->dims()) {
      Error e(fmt::format("{}: out_sinfo must describe tensors with a known shape, but got {}", label, sinfoStr(f)));
      e.span = v.span;
      return e;
    }
  }
  if (list.size() == 1) return list[0];
  return StructInfo(make<TupleSInfo>(std::move(list)));
}

std::vector<StructInfo> sinfoArgList(const PyValue* v, const std::string& label, Error* err) {
  if (!v || v->kind == PyValue::None) return {};
  auto s = toSInfo(*v, label + " sinfo_args");
  if (!s.ok()) {
    *err = s.error();
    return {};
  }
  if (v->kind == PyValue::List || v->kind == PyValue::Tuple) return s->as<TupleSInfo>()->fields;
  return {*s};
}

Result<Expr> tirVarsExpr(const PyValue* v, const std::string& label) {
  if (!v || v->kind == PyValue::None) return Expr();
  return toShapeExpr(*v, label + " tir_vars");
}

Ref<Call> newCall(const OpInfo& op, std::vector<Expr> args, AttrsRef attrs, std::vector<StructInfo> sargs) {
  return make<Call>(opRef(op.name), std::move(args), std::move(attrs), std::move(sargs));
}

AttrsRef attrsOf(const OpInfo& op, std::vector<std::pair<std::string, Attr>> fields) {
  auto a = make<Attrs>();
  a->typeKey = op.attrsType;
  a->fields = std::move(fields);
  return a;
}

// R.call_tir(func, args, out_sinfo, tir_vars=None) and R.call_dps_packed(func, args, out_sinfo).
BuildFn buildCallTIRLike(bool withTirVars, bool stringCallee) {
  return [=](const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) -> Result<Expr> {
    std::string label = op.scriptName();
    std::vector<std::string> names = {"func", "args", "out_sinfo"};
    if (withTirVars) names.push_back("tir_vars");
    RLX_TRY(p, bindPy(label, names, 3, args, kwargs));
    RLX_TRY(func, stringCallee ? calleeExpr(*p[0], label + " func") : toExpr(*p[0], label + " func"));
    RLX_TRY(inputs, wrapArgTuple(*p[1], label + " args"));
    RLX_TRY(out, outSInfo(label, *p[2]));
    std::vector<Expr> callArgs = {func, inputs};
    if (withTirVars) {
      RLX_TRY(tv, tirVarsExpr(p[3], label));
      if (tv) callArgs.push_back(tv);
    }
    return Expr(newCall(op, std::move(callArgs), nullptr, {out}));
  };
}

Result<StructInfo> inferCallTIR(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 2, 3));
  if (call.sinfoArgs.size() != 1) return opError(call, "expects exactly one output struct info (out_sinfo)");
  if (call.opName() == "relax.call_tir" || call.opName() == "relax.call_tir_with_grad" || call.opName() == "relax.call_tir_inplace") {
    if (!call.args[0].is<GlobalVar>()) return opError(call, "expects the callee to be a GlobalVar of a PrimFunc (cls.func)");
  }
  if (!call.args[1].is<Tuple>() && !sinfoOf(call.args[1]).is<TupleSInfo>()) return opError(call, "expects its inputs as a tuple");
  if (call.args.size() == 3 && !sinfoOf(call.args[2]).is<ShapeSInfo>() && !call.args[2].is<ShapeExpr>())
    return opError(call, "expects tir_vars to be a shape (R.shape([..]))");
  return call.sinfoArgs[0];
}

std::vector<StructInfo> outputsOf(const StructInfo& s) {
  if (auto t = s.as<TupleSInfo>()) return t->fields;
  return {s};
}

bool sameTensorSInfo(const StructInfo& a, const StructInfo& b) {
  auto x = a.as<TensorSInfo>(), y = b.as<TensorSInfo>();
  if (!x || !y) return false;
  if (x->dtype != y->dtype || x->ndim != y->ndim) return false;
  auto dx = x->dims(), dy = y->dims();
  if (!dx || !dy) return true;
  for (size_t i = 0; i < dx->size(); ++i)
    if (!proveEqual((*dx)[i], (*dy)[i])) return false;
  return true;
}

// Validates inplace_indices against the inputs and outputs of an in-place call.
Status checkInplace(const Call& call, const std::vector<StructInfo>& inputs, const std::vector<StructInfo>& outputs) {
  auto idx = attrInts(call, "inplace_indices");
  if (idx.size() != outputs.size())
    return opError(call, fmt::format("inplace_indices has {} entries but there are {} outputs", idx.size(), outputs.size()));
  std::set<int64_t> seen;
  for (size_t i = 0; i < idx.size(); ++i) {
    int64_t k = idx[i];
    if (k < -1 || k >= int64_t(inputs.size()))
      return opError(call, fmt::format("in-place index {} is {}, out of range [-1, {}]", i, k, int64_t(inputs.size()) - 1));
    if (k == -1) continue;
    if (!seen.insert(k).second) return opError(call, fmt::format("in-place index {} appears more than once", k));
    if (!sameTensorSInfo(outputs[i], inputs[size_t(k)]) && !sinfoIsBaseOf(outputs[i], inputs[size_t(k)]))
      return opError(call, fmt::format("output {} ({}) does not match the in-place input {} ({})", i, sinfoStr(outputs[i]), k, sinfoStr(inputs[size_t(k)])));
  }
  if (seen.empty()) return opError(call, "at least one in-place index must differ from -1");
  return okStatus();
}

Result<StructInfo> inferCallTIRInplace(const Call& call) {
  RLX_TRY(out, inferCallTIR(call));
  std::vector<StructInfo> inputs;
  if (auto t = call.args[1].as<Tuple>())
    for (auto& f : t->fields) inputs.push_back(sinfoOf(f));
  else if (auto ts = sinfoOf(call.args[1]).as<TupleSInfo>())
    inputs = ts->fields;
  RLX_TRY_OK(checkInplace(call, inputs, outputsOf(out)));
  return out;
}

// Struct info a packed callee returns: a known callable's ret, else the sinfo_args.
StructInfo bySInfoArgs(const Call& call) {
  if (call.sinfoArgs.empty()) return objectSInfo();
  if (call.sinfoArgs.size() == 1) return call.sinfoArgs[0];
  return make<TupleSInfo>(call.sinfoArgs);
}

Result<StructInfo> packedRet(const Call& call) {
  if (call.args.empty()) return opError(call, "expects the packed function as its first argument");
  if (call.args[0].is<Op>()) return opError(call, "cannot call an operator");
  StructInfo s = sinfoOf(call.args[0]);
  if (call.args[0].is<ExternFunc>()) return bySInfoArgs(call);
  auto f = s.as<FuncSInfo>();
  if (!f) return opError(call, fmt::format("expects a function as its first argument, but it is {}", sinfoStr(s)));
  if (f->params) return opError(call, "expects an opaque packed function, not a function with a known signature");
  if (!call.sinfoArgs.empty()) return bySInfoArgs(call);
  return f->ret ? f->ret : objectSInfo();
}

BuildFn buildPacked(bool inplace) {
  return [=](const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) -> Result<Expr> {
    std::string label = op.scriptName();
    if (args.empty()) return Error(label + " missing required argument 'func'");
    RLX_TRY(func, calleeExpr(args[0], label + " func"));
    std::vector<Expr> callArgs = {func};
    for (size_t i = 1; i < args.size(); ++i) {
      RLX_TRY(e, toExpr(args[i], label + " argument"));
      callArgs.push_back(e);
    }
    const PyValue* sargs = nullptr;
    const PyValue* indices = nullptr;
    for (auto& [k, v] : kwargs) {
      if (k == "sinfo_args") sargs = &v;
      else if (inplace && k == "inplace_indices") indices = &v;
      else {
        Error e(fmt::format("{} got an unexpected keyword argument '{}'", label, k));
        e.span = v.span;
        return e;
      }
    }
    if (!sargs) return Error(label + " requires sinfo_args");
    Error err;
    auto sinfos = sinfoArgList(sargs, label, &err);
    if (!err.message.empty()) return err;
    AttrsRef attrs;
    if (inplace) {
      if (!indices) return Error(label + " missing required argument 'inplace_indices'");
      RLX_TRY(ints, toInts(*indices, label + " inplace_indices"));
      attrs = attrsOf(op, {{"inplace_indices", AttrValue::ints(ints)}});
    }
    return Expr(newCall(op, std::move(callArgs), attrs, std::move(sinfos)));
  };
}

Result<StructInfo> inferCallInplacePacked(const Call& call) {
  if (call.args.size() < 2) return opError(call, "expects the packed function and at least one argument");
  RLX_TRY(ret, packedRet(call));
  std::vector<StructInfo> inputs;
  for (size_t i = 1; i < call.args.size(); ++i) inputs.push_back(sinfoOf(call.args[i]));
  auto outs = attrInts(call, "inplace_indices").size() == 1 ? std::vector<StructInfo>{ret} : outputsOf(ret);
  RLX_TRY_OK(checkInplace(call, inputs, outs));
  return ret;
}

// R.call_builtin_with_ctx(func, args, sinfo_args=None) / R.invoke_closure(closure, args, sinfo_args).
BuildFn buildWithSInfoArgs(bool calleeIsSymbol, bool sinfoRequired) {
  return [=](const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) -> Result<Expr> {
    std::string label = op.scriptName();
    RLX_TRY(p, bindPy(label, {calleeIsSymbol ? "func" : "closure", "args", "sinfo_args"}, sinfoRequired ? 3 : 2, args, kwargs));
    RLX_TRY(func, calleeIsSymbol ? calleeExpr(*p[0], label + " func") : toExpr(*p[0], label + " closure"));
    RLX_TRY(inputs, wrapArgTuple(*p[1], label + " args"));
    Error err;
    auto sinfos = sinfoArgList(p[2], label, &err);
    if (!err.message.empty()) return err;
    return Expr(newCall(op, {func, inputs}, nullptr, std::move(sinfos)));
  };
}

Result<StructInfo> inferBuiltinWithCtx(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 2, 2));
  if (call.sinfoArgs.empty()) return voidSInfo();
  if (call.sinfoArgs.size() != 1) return opError(call, "expects at most one sinfo_args entry");
  return call.sinfoArgs[0];
}

Result<StructInfo> inferInvokeClosure(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 2, 2));
  return bySInfoArgs(call);
}

// R.print(*values, format="") → args (format, values...).
Result<Expr> buildPrint(const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) {
  std::string label = op.scriptName();
  Expr format = make<StringImm>("");
  for (auto& [k, v] : kwargs) {
    if (k != "format") {
      Error e(fmt::format("{} got an unexpected keyword argument '{}'", label, k));
      e.span = v.span;
      e.hint = "did you mean 'format'?";
      return e;
    }
    if (v.kind == PyValue::Str) format = make<StringImm>(v.s);
    else if (v.kind == PyValue::Expr && v.expr.is<StringImm>()) format = v.expr;
    else return Error(label + " format expects a string, but got " + v.describe());
  }
  format->sinfo = objectSInfo();
  std::vector<Expr> callArgs = {format};
  for (auto& v : args) {
    RLX_TRY(e, toExpr(v, label + " value"));
    callArgs.push_back(e);
  }
  return Expr(newCall(op, std::move(callArgs), nullptr, {}));
}

// R.assert_op(condition, *format_args, format="") → args (condition, format, format_args...).
Result<Expr> buildAssert(const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) {
  std::string label = op.scriptName();
  const PyValue* cond = args.empty() ? nullptr : &args[0];
  std::vector<const PyValue*> fmtArgs;
  for (size_t i = 1; i < args.size(); ++i) fmtArgs.push_back(&args[i]);
  Expr format = make<StringImm>("");
  for (auto& [k, v] : kwargs) {
    if (k == "format") {
      if (v.kind == PyValue::Str) format = make<StringImm>(v.s);
      else if (v.kind == PyValue::Expr && v.expr.is<StringImm>()) format = v.expr;
      else return Error(label + " format expects a string, but got " + v.describe());
    } else if (k == "condition" && !cond) {
      cond = &v;
    } else if (k == "format_args") {
      fmtArgs.push_back(&v);
    } else {
      Error e(fmt::format("{} got an unexpected keyword argument '{}'", label, k));
      e.span = v.span;
      return e;
    }
  }
  if (!cond) return Error(label + " missing required argument 'condition'");
  format->sinfo = objectSInfo();
  RLX_TRY(c, toPrimValue(*cond, label + " condition"));
  std::vector<Expr> callArgs = {c, format};
  for (auto* v : fmtArgs) {
    if (v->kind == PyValue::None) continue;
    if (v->kind == PyValue::List || v->kind == PyValue::Tuple) {
      for (auto& x : v->items) {
        RLX_TRY(e, toExpr(x, label + " format argument"));
        callArgs.push_back(e);
      }
      continue;
    }
    RLX_TRY(e, toExpr(*v, label + " format argument"));
    callArgs.push_back(e);
  }
  return Expr(newCall(op, std::move(callArgs), nullptr, {}));
}

Result<StructInfo> inferAssert(const Call& call) {
  if (call.args.size() < 2) return opError(call, "expects a condition and a format string");
  StructInfo s = sinfoOf(call.args[0]);
  bool ok = false;
  if (auto p = s.as<PrimSInfo>()) ok = p->dtype.isBool() || p->dtype.isVoid();
  else if (auto t = s.as<TensorSInfo>()) ok = (t->ndim == 0 || t->ndim == -1) && (t->dtype.isBool() || t->dtype.isVoid());
  if (!ok) return opError(call, fmt::format("the condition must be a boolean scalar, but it is {}", sinfoStr(s)));
  return voidSInfo();
}

Result<StructInfo> inferShapeOf(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(x, tensorArg(call, 0, "expr"));
  if (x->ndim == -1) return StructInfo(make<ShapeSInfo>(std::nullopt, -1));
  if (auto d = x->dims()) return makeShape(*d);
  return StructInfo(make<ShapeSInfo>(std::nullopt, x->ndim));
}

Result<StructInfo> inferTensorToShape(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(x, tensorArg(call, 0, "expr"));
  if (x->ndim != 1 && x->ndim != -1) return opError(call, fmt::format("expects a 1-D tensor, but it has {} dimensions", x->ndim));
  if (!x->dtype.isVoid() && !x->dtype.isInt()) return opError(call, fmt::format("expects an integer tensor, but its dtype is {}", x->dtype.str()));
  if (auto d = x->dims())
    if (auto n = asConst((*d)[0])) return StructInfo(make<ShapeSInfo>(std::nullopt, int(*n)));
  return StructInfo(make<ShapeSInfo>(std::nullopt, -1));
}

Result<StructInfo> inferShapeToTensor(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(s, shapeArg(call, 0, "expr"));
  if (s->ndim >= 0) return makeTensor({i64(s->ndim)}, DataType::int64(), "");
  return makeTensorNdim(DataType::int64(), 1, "");
}

Result<StructInfo> inferSize(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(x, tensorArg(call, 0, "expr"));
  return makeTensor({}, DataType::int64(), "");
}

// R.hint_on_device(data, dst_vdevice, memory_scope="global"); the device is R.device(type, index),
// a (type, index) pair, a device name ("cpu", "cuda:1") or a device type number.
Result<Expr> buildHintOnDevice(const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) {
  std::string label = op.scriptName();
  RLX_TRY(p, bindPy(label, {"data", "dst_vdevice", "memory_scope"}, 2, args, kwargs));
  RLX_TRY(data, toExpr(*p[0], label + " data"));
  int64_t devType = 1, devId = 0;
  const PyValue& d = *p[1];
  auto intOfPy = [](const PyValue& v) -> std::optional<int64_t> {
    if (v.kind == PyValue::Int) return v.i;
    if (v.kind == PyValue::Prim)
      if (auto c = asIntImm(v.prim)) return c->value;
    return std::nullopt;
  };
  if (auto i = intOfPy(d)) devType = *i;
  else if (d.kind == PyValue::Dict) {
    for (auto& [k, v] : d.dict) {
      auto i = intOfPy(v);
      if (!i) return Error(label + ": device fields must be ints");
      if (k == "device_type" || k == "dev_type") devType = *i;
      else if (k == "index" || k == "dev_id" || k == "device_id") devId = *i;
    }
  } else if ((d.kind == PyValue::Tuple || d.kind == PyValue::List) && d.items.size() == 2 && intOfPy(d.items[0]) && intOfPy(d.items[1])) {
    devType = *intOfPy(d.items[0]);
    devId = *intOfPy(d.items[1]);
  } else if (d.kind == PyValue::Str) {
    std::string name = d.s;
    auto colon = name.find(':');
    if (colon != std::string::npos) {
      devId = std::atoll(name.c_str() + colon + 1);
      name = name.substr(0, colon);
    }
    static const std::pair<const char*, int> kinds[] = {{"cpu", 1}, {"llvm", 1}, {"cuda", 2}, {"gpu", 2}, {"opencl", 4}, {"vulkan", 7}, {"metal", 8}, {"rocm", 10}};
    bool found = false;
    for (auto& [n, t] : kinds)
      if (name == n) devType = t, found = true;
    if (!found) return Error(fmt::format("{}: unknown device \"{}\"", label, d.s));
  } else {
    return Error(label + " dst_vdevice expects R.device(device_type, index), but got " + d.describe());
  }
  std::string scope = "global";
  if (p[2]) {
    if (p[2]->kind != PyValue::Str) return Error(label + " memory_scope expects a string, but got " + p[2]->describe());
    scope = p[2]->s;
  }
  return Expr(newCall(op, {data}, attrsOf(op, {{"dev_type", AttrValue::integer(devType)}, {"dev_id", AttrValue::integer(devId)}, {"memory_scope", AttrValue::str(scope)}}), {}));
}

Result<StructInfo> inferToVDevice(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(x, tensorArg(call, 0, "data"));
  std::string vdev = attrString(call, "dst_vdevice");
  return StructInfo(make<TensorSInfo>(x->shape, x->dtype, x->ndim, vdev));
}

Result<StructInfo> inferHintOnDevice(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(x, tensorArg(call, 0, "data"));
  return StructInfo(x);
}

// inspect.* helpers
Result<StructInfo> inspectField(const Call& call, DataType t, std::optional<int64_t> known) {
  RLX_TRY_OK(checkArgCount(call, 1, 1));
  RLX_TRY(x, tensorArg(call, 0, "tensor"));
  if (known) return StructInfo(make<PrimSInfo>(t, intImm(*known, t)));
  return StructInfo(make<PrimSInfo>(t));
}

Result<std::pair<TensorRef, PrimExpr>> inspectAxis(const Call& call) {
  RLX_TRY_OK(checkArgCount(call, 2, 2));
  RLX_TRY(x, tensorArg(call, 0, "tensor"));
  StructInfo as = sinfoOf(call.args[1]);
  if (!as.is<PrimSInfo>() && !call.args[1].is<PrimValue>()) return opError(call, fmt::format("expects axis to be a prim value, but it is {}", sinfoStr(as)));
  PrimExpr axis = primArgValue(call, 1);
  if (auto c = asConst(axis)) {
    if (*c < 0) return opError(call, fmt::format("axis must not be negative, but it is {}", *c));
    if (x->ndim >= 0 && *c >= x->ndim) return opError(call, fmt::format("axis {} is out of range for a tensor of {} dimensions", *c, x->ndim));
  }
  return std::make_pair(x, axis);
}

void registerInspect() {
  auto field = [](const char* name, std::function<Result<StructInfo>(const Call&)> f) {
    OpDef(std::string("relax.inspect.") + name).params({arg("tensor")}).infer(std::move(f)).doc("DLTensor field query").done();
  };
  field("tensor_dtype_code", [](const Call& c) -> Result<StructInfo> {
    RLX_TRY(x, tensorArg(c, 0, "tensor"));
    return inspectField(c, DataType(DataType::UInt, 8), x->dtype.isVoid() ? std::nullopt : std::optional<int64_t>(int(x->dtype.code)));
  });
  field("tensor_dtype_bits", [](const Call& c) -> Result<StructInfo> {
    RLX_TRY(x, tensorArg(c, 0, "tensor"));
    return inspectField(c, DataType(DataType::UInt, 8), x->dtype.isVoid() ? std::nullopt : std::optional<int64_t>(x->dtype.bits));
  });
  field("tensor_dtype_lanes", [](const Call& c) -> Result<StructInfo> {
    RLX_TRY(x, tensorArg(c, 0, "tensor"));
    return inspectField(c, DataType(DataType::UInt, 16), x->dtype.isVoid() ? std::nullopt : std::optional<int64_t>(x->dtype.lanes));
  });
  field("tensor_ndim", [](const Call& c) -> Result<StructInfo> {
    RLX_TRY(x, tensorArg(c, 0, "tensor"));
    return inspectField(c, DataType::int32(), x->ndim < 0 ? std::nullopt : std::optional<int64_t>(x->ndim));
  });
  field("tensor_byte_offset", [](const Call& c) -> Result<StructInfo> {
    RLX_TRY(x, tensorArg(c, 0, "tensor"));
    return inspectField(c, DataType(DataType::UInt, 64), x->dims() ? std::optional<int64_t>(0) : std::nullopt);
  });
  field("tensor_elem_offset", [](const Call& c) -> Result<StructInfo> {
    RLX_TRY(x, tensorArg(c, 0, "tensor"));
    return inspectField(c, DataType(DataType::UInt, 64), x->dims() ? std::optional<int64_t>(0) : std::nullopt);
  });
  OpDef("relax.inspect.tensor_shape_i").params({arg("tensor"), arg("axis", OpParam::PrimArg)}).doc("extent of one axis").infer([](const Call& c) -> Result<StructInfo> {
    RLX_TRY(xa, inspectAxis(c));
    auto [x, axis] = xa;
    auto ax = asConst(axis);
    if (ax && x->dims()) return StructInfo(make<PrimSInfo>(DataType::int64(), (*x->dims())[size_t(*ax)]));
    return StructInfo(make<PrimSInfo>(DataType::int64()));
  }).done();
  OpDef("relax.inspect.tensor_stride_i").params({arg("tensor"), arg("axis", OpParam::PrimArg)}).doc("stride of one axis").infer([](const Call& c) -> Result<StructInfo> {
    RLX_TRY(xa, inspectAxis(c));
    auto [x, axis] = xa;
    auto ax = asConst(axis);
    if (ax && x->dims()) {
      PrimExpr stride = i64(1);
      for (size_t i = size_t(*ax) + 1; i < x->dims()->size(); ++i) stride = mul(stride, (*x->dims())[i]);
      return StructInfo(make<PrimSInfo>(DataType::int64(), stride));
    }
    return StructInfo(make<PrimSInfo>(DataType::int64()));
  }).done();
}

}  // namespace

void registerStructuralOps() {
  OpDef("relax.call_tir").build(buildCallTIRLike(true, false)).infer(inferCallTIR).doc("call a TIR PrimFunc in destination-passing style").done();
  OpDef("relax.call_tir_inplace")
      .attrs("relax.attrs.CallTIRInplaceAttrs")
      .build([](const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) -> Result<Expr> {
        std::string label = op.scriptName();
        RLX_TRY(p, bindPy(label, {"func", "args", "inplace_indices", "out_sinfo", "tir_vars"}, 4, args, kwargs));
        RLX_TRY(func, toExpr(*p[0], label + " func"));
        RLX_TRY(inputs, wrapArgTuple(*p[1], label + " args"));
        RLX_TRY(ints, toInts(*p[2], label + " inplace_indices"));
        RLX_TRY(out, outSInfo(label, *p[3]));
        std::vector<Expr> callArgs = {func, inputs};
        RLX_TRY(tv, tirVarsExpr(p[4], label));
        if (tv) callArgs.push_back(tv);
        return Expr(newCall(op, std::move(callArgs), attrsOf(op, {{"inplace_indices", AttrValue::ints(ints)}}), {out}));
      })
      .infer(inferCallTIRInplace)
      .doc("call_tir whose outputs alias some inputs")
      .done();
  OpDef("relax.call_tir_with_grad")
      .attrs("relax.attrs.CallTIRWithGradAttrs")
      .build([](const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) -> Result<Expr> {
        std::string label = op.scriptName();
        RLX_TRY(p, bindPy(label, {"func", "args", "out_sinfo", "te_grad_name", "te_grad_kwargs", "tir_vars"}, 4, args, kwargs));
        RLX_TRY(func, toExpr(*p[0], label + " func"));
        RLX_TRY(inputs, wrapArgTuple(*p[1], label + " args"));
        RLX_TRY(out, outSInfo(label, *p[2]));
        if (p[3]->kind != PyValue::Str) return Error(label + " te_grad_name expects a string, but got " + p[3]->describe());
        Attr kw = AttrValue::map_({});
        if (p[4] && p[4]->kind != PyValue::None) {
          if (p[4]->kind != PyValue::Dict) return Error(label + " te_grad_kwargs expects a dict, but got " + p[4]->describe());
          RLX_TRY(m, pyToAttr(*p[4], label + " te_grad_kwargs"));
          kw = m;
        }
        std::vector<Expr> callArgs = {func, inputs};
        RLX_TRY(tv, tirVarsExpr(p[5], label));
        if (tv) callArgs.push_back(tv);
        return Expr(newCall(op, std::move(callArgs), attrsOf(op, {{"te_grad_name", AttrValue::str(p[3]->s)}, {"te_grad_kwargs", kw}}), {out}));
      })
      .infer(inferCallTIR)
      .doc("call_tir with a registered TE gradient")
      .done();
  OpDef("relax.call_dps_packed").build(buildCallTIRLike(false, true)).infer(inferCallTIR).doc("call a packed function in destination-passing style").done();
  OpDef("relax.call_py_func")
      .build([](const OpInfo& op, std::vector<PyValue>& args, KwArgs& kwargs) -> Result<Expr> {
        std::string label = op.scriptName();
        // TVM prints the output struct info back as sinfo_args=(...,): both spellings are read.
        for (auto& [k, v] : kwargs)
          if (k == "sinfo_args") {
            k = "out_sinfo";
            if ((v.kind == PyValue::Tuple || v.kind == PyValue::List) && v.items.size() == 1) v = PyValue(v.items[0]);
          }
        RLX_TRY(p, bindPy(label, {"func_name", "args", "out_sinfo"}, 3, args, kwargs));
        Expr name;
        if (p[0]->kind == PyValue::Str) {
          name = make<StringImm>(p[0]->s);
          name->sinfo = objectSInfo();
        } else if (p[0]->kind == PyValue::Expr && p[0]->expr.is<StringImm>()) {
          name = p[0]->expr;
        } else {
          return Error(label + " func_name expects a string, but got " + p[0]->describe());
        }
        // TVM keeps the arguments as a tuple holding the tuple of inputs (it prints `((x,),)`);
        // that form, read back, is taken as it is.
        RLX_TRY(inputs, wrapArgTuple(*p[1], label + " args"));
        auto t = inputs.as<Tuple>();
        bool wrapped = t && t->fields.size() == 1 && t->fields[0].is<Tuple>();
        if (!wrapped) {
          Expr outer = make<Tuple>(std::vector<Expr>{inputs});
          outer->sinfo = make<TupleSInfo>(std::vector<StructInfo>{sinfoOf(inputs)});
          inputs = outer;
        }
        RLX_TRY(out, outSInfo(label, *p[2]));
        return Expr(newCall(op, {name, inputs}, nullptr, {out}));
      })
      .infer([](const Call& call) -> Result<StructInfo> {
        RLX_TRY_OK(checkArgCount(call, 2, 2));
        if (!call.args[0].is<StringImm>()) return opError(call, "expects the Python function name as a string");
        if (call.sinfoArgs.size() != 1) return opError(call, "expects exactly one output struct info");
        return call.sinfoArgs[0];
      })
      .doc("call a Python function of the module")
      .done();
  OpDef("relax.call_pure_packed").build(buildPacked(false)).infer(packedRet).doc("a packed call asserted to be pure").done();
  OpDef("relax.call_inplace_packed").attrs("relax.attrs.CallInplacePackedAttrs").build(buildPacked(true)).infer(inferCallInplacePacked).doc("a packed call mutating some arguments in place").done();
  OpDef("relax.call_builtin_with_ctx").build(buildWithSInfoArgs(true, false)).infer(inferBuiltinWithCtx).impure().doc("call a VM builtin that receives the VM context").done();
  OpDef("relax.make_closure").params({arg("func"), arg("args", OpParam::TupleOfExpr)}).infer([](const Call& c) -> Result<StructInfo> {
    RLX_TRY_OK(checkArgCount(c, 2, 2));
    return objectSInfo();
  }).doc("create a closure capturing values").done();
  OpDef("relax.invoke_closure").build(buildWithSInfoArgs(false, true)).infer(inferInvokeClosure).impure().doc("invoke a closure").done();
  OpDef("relax.invoke_pure_closure").build(buildWithSInfoArgs(false, true)).infer(inferInvokeClosure).doc("invoke a closure asserted to be pure").done();
  OpDef("relax.null_value").params({}).infer([](const Call& c) -> Result<StructInfo> {
    RLX_TRY_OK(checkArgCount(c, 0, 0));
    return objectSInfo();
  }).doc("a null object").done();
  OpDef("relax.print").build(buildPrint).infer([](const Call& c) -> Result<StructInfo> {
    if (c.args.empty()) return opError(c, "expects a format string");
    return voidSInfo();
  }).impure().doc("print values at run time").done();
  OpDef("relax.assert_op").build(buildAssert).infer(inferAssert).impure().doc("assert a condition at run time").done();
  OpDef("relax.shape_of").params({arg("expr")}).infer(inferShapeOf).doc("the shape of a tensor").done();
  OpDef("relax.tensor_to_shape").params({arg("expr")}).infer(inferTensorToShape).doc("a 1-D int tensor as a shape").done();
  OpDef("relax.shape_to_tensor").params({arg("expr")}).infer(inferShapeToTensor).doc("a shape as a 1-D int64 tensor").done();
  OpDef("relax.size").params({arg("expr")}).infer(inferSize).doc("number of elements of a tensor").done();
  OpDef("relax.hint_on_device").attrs("relax.attrs.HintOnDeviceAttrs").build(buildHintOnDevice).infer(inferHintOnDevice).doc("device placement hint").done();
  OpDef("relax.to_vdevice")
      .attrs("relax.attrs.ToVDeviceAttrs")
      .params({arg("data"), reqAttr("dst_vdevice", OpParam::StrAttr)})
      .fixup([](Call& c) -> Status {
        // "llvm" and "llvm:0" name "llvm:0:global", as in R.Tensor(..., vdevice=...).
        if (const Attr* a = findAttr(c, "dst_vdevice"); a && *a && (*a)->kind == AttrValue::Str) setAttr(c, "dst_vdevice", AttrValue::str(fullVDevice((*a)->s)));
        return okStatus();
      })
      .infer(inferToVDevice)
      .doc("copy to a virtual device")
      .done();
  registerInspect();
}

}  // namespace rlx
