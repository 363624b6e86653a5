// Relax expressions as TVM v0.23 prints them: op calls with every attr as a kwarg, the special forms
// of call_tir / call_dps_packed / call_packed / print / assert_op, constants, tuples and attrs.
#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "ir/op.h"
#include "printer/relax_printer.h"

namespace rlx {

std::string RelaxPrinter::attrValue(const Attr& a) {
  // An index map's lambda binds its own vars, in a scope of its own: they are never hoisted as
  // symbolic vars, and print with their own names.
  bool indexMap = a && a->kind == AttrValue::Ctor && a->s == "T.index_map" && a->array.size() == 2 && a->array[0];
  if (indexMap) {
    ctx.names.push();
    for (auto& v : a->array[0]->array)
      if (v && v->kind == AttrValue::Prim)
        if (auto pv = v->prim.as<PrimVar>()) {
          declared.insert(pv.get());
          ctx.names.bindExact(pv.get(), pv->name);
        }
  }
  struct PopScope {
    PrintContext& ctx;
    bool active;
    ~PopScope() {
      if (active) ctx.names.pop();
    }
  } popScope{ctx, indexMap};
  AttrLeaves leaves;
  leaves.prim = [this](const PrimExpr& p) {
    noteVars(p);
    // Typed scalars (FloatImm) keep their type; symbolic ints print bare.
    return ctx.prim(p, p->kind() == NodeKind::FloatImm ? PrimStyle::Tir : PrimStyle::Relax);
  };
  leaves.expr = [this](const Expr& e) { return expr(e); };
  return printAttrValue(ctx, a, leaves);
}

std::string RelaxPrinter::constant(const Constant& c) {
  ctx.usedRelax = true;
  const NDArray& d = *c.data;
  auto scalar = [&](int64_t i) -> std::string {
    if (d.dtype.isBool()) return d.getInt(i) ? "True" : "False";
    if (d.dtype.isFloat()) return formatDouble(d.getDouble(i));
    if (d.dtype.isUInt() && d.dtype.bits == 64) return std::to_string(uint64_t(d.getInt(i)));
    return std::to_string(d.getInt(i));
  };
  std::string dtype = "\"" + d.dtype.str() + "\"";
  if (ctx.opts.tvmConstants) {
    // TVM prints only 0-d bool, int8..64 and float16..64 constants; the rest are metadata.
    bool printable = d.shape.empty() && d.dtype.lanes == 1 &&
                     (d.dtype.isBool() || ((d.dtype.isInt() || d.dtype.isFloat()) && d.dtype.bits >= (d.dtype.isInt() ? 8 : 16) && d.dtype.bits <= 64));
    if (!printable) {
      auto& seen = ctx.omittedConstants;
      size_t index = std::find(seen.begin(), seen.end(), c.data.get()) - seen.begin();
      if (index == seen.size()) seen.push_back(c.data.get());
      return "metadata[\"relax.expr.Constant\"][" + std::to_string(index) + "]";
    }
  }
  if (d.shape.empty()) return "R.const(" + scalar(0) + ", " + dtype + ")";
  int64_t n = d.numel();
  // Nested lists cannot say the dims after a zero-size one ((1, 0, 5) prints as [[]]): such a
  // constant goes to the sidecar when there is one.
  bool listShowsShape = true;
  for (size_t k = 0; k + 1 < d.shape.size(); ++k)
    if (d.shape[k] == 0) listShowsShape = false;
  if ((n <= 16 && listShowsShape) || !ctx.opts.metadataOut) {
    // Nested list in row-major order; [] for zero-size dims.
    std::string out;
    std::vector<int64_t> strides(d.shape.size(), 1);
    for (int i = int(d.shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * d.shape[i + 1];
    std::function<void(size_t, int64_t)> rec = [&](size_t dim, int64_t base) {
      out += '[';
      for (int64_t i = 0; i < d.shape[dim]; ++i) {
        if (i) out += ", ";
        if (dim + 1 == d.shape.size()) out += scalar(base + i);
        else rec(dim + 1, base + i * strides[dim]);
      }
      out += ']';
    };
    rec(0, 0);
    if ((n <= 16 && listShowsShape) || !ctx.opts.metadataOut) return "R.const(" + out + ", " + dtype + ")";
  }
  // Large tensors go to the sidecar; only the same object reuses an index.
  auto& list = *ctx.opts.metadataOut;
  size_t index = list.size();
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].get() == c.data.get()) index = i;
  if (index == list.size()) list.push_back(c.data);
  return "metadata[\"relax.expr.Constant\"][" + std::to_string(index) + "]";
}

std::string RelaxPrinter::sinfoArgsKw(const std::vector<StructInfo>& s) {
  std::string out = "sinfo_args=(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + sinfo(s[i]);
  if (s.size() == 1) out += ",";
  return out + ")";
}

// out_sinfo=: a tuple of outputs prints as a list, a single one bare.
std::string RelaxPrinter::outSInfo(const StructInfo& s) {
  if (auto t = s.as<TupleSInfo>()) {
    if (t->fields.size() == 1) return sinfo(t->fields[0]);
    std::string out = "[";
    for (size_t i = 0; i < t->fields.size(); ++i) out += (i ? ", " : "") + sinfo(t->fields[i]);
    return out + "]";
  }
  return sinfo(s);
}

std::string RelaxPrinter::tupleArg(const Expr& e) { return expr(e); }

std::string RelaxPrinter::calleeName(const Expr& e) {
  if (auto ext = e.as<ExternFunc>()) return quoteString(ext->symbol);
  return expr(e);
}

namespace {
// The ops whose calls print in a form of their own (callExpr's special cases).
bool hasSpecialForm(const std::string& opName) {
  static const std::unordered_set<std::string_view> names = {
      "relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed", "relax.call_tir_with_grad",
      "relax.call_pure_packed", "relax.call_builtin_with_ctx", "relax.call_inplace_packed", "relax.invoke_closure",
      "relax.invoke_pure_closure", "relax.hint_on_device", "relax.print", "relax.assert_op"};
  return names.count(opName) != 0;
}
}  // namespace

// An op call in the plain form, `R.op(args..., attr=value..., sinfo_args=...)`, written straight
// into one string: this runs for nearly every binding.
std::string RelaxPrinter::opCall(const Call& c, const Op& op) {
  std::string out = op.info->scriptName();
  out += '(';
  const char* sep = "";
  for (auto& a : c.args) {
    out += sep;
    appendExpr(out, a);
    sep = ", ";
  }
  if (c.attrs) {
    for (auto& [k, v] : c.attrs->fields) {
      out += sep;
      out += k;
      out += '=';
      out += attrValue(v);
      sep = ", ";
    }
  }
  if (!c.sinfoArgs.empty()) {
    out += sep;
    out += sinfoArgsKw(c.sinfoArgs);
  }
  out += ')';
  return out;
}

std::string RelaxPrinter::callExpr(const Call& c) {
  ctx.usedRelax = true;
  std::vector<std::string> parts;
  auto args = [&](size_t from) {
    for (size_t i = from; i < c.args.size(); ++i) parts.push_back(expr(c.args[i]));
  };
  auto join = [&](const std::string& head) {
    std::string out = head + "(";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
    return out + ")";
  };
  auto attrKwargs = [&]() {
    if (!c.attrs) return;
    for (auto& [k, v] : c.attrs->fields) parts.push_back(k + "=" + attrValue(v));
  };
  if (auto op = c.op.as<Op>()) {
    const std::string& name = op->name();
    if (!hasSpecialForm(name)) return opCall(c, *op);
    if (name == "relax.call_tir" || name == "relax.call_tir_inplace" || name == "relax.call_dps_packed" || name == "relax.call_tir_with_grad") {
      parts.push_back(calleeName(c.args.at(0)));
      if (c.args.size() > 1) parts.push_back(tupleArg(c.args[1]));
      if (!c.sinfoArgs.empty()) parts.push_back("out_sinfo=" + outSInfo(c.sinfoArgs[0]));
      attrKwargs();
      if (c.args.size() > 2) parts.push_back("tir_vars=" + expr(c.args[2]));
      return join(op->info->scriptName());
    }
    if (name == "relax.call_pure_packed" || name == "relax.call_builtin_with_ctx" || name == "relax.call_inplace_packed" || name == "relax.invoke_closure" || name == "relax.invoke_pure_closure") {
      parts.push_back(calleeName(c.args.at(0)));
      args(1);
      attrKwargs();
      if (!c.sinfoArgs.empty()) parts.push_back(sinfoArgsKw(c.sinfoArgs));
      return join(op->info->scriptName());
    }
    if (name == "relax.hint_on_device" && c.attrs && c.args.size() == 1) {
      auto type = attrInt(c.attrs, "dev_type"), index = attrInt(c.attrs, "dev_id");
      auto scope = attrStr(c.attrs, "memory_scope");
      parts.push_back(expr(c.args[0]));
      parts.push_back("R.device(device_type=" + std::to_string(type.value_or(1)) + ", index=" + std::to_string(index.value_or(0)) + ")");
      parts.push_back(quoteString(scope.value_or("global")));
      return join(op->info->scriptName());
    }
    if (name == "relax.print" || name == "relax.assert_op") {
      // The format string is stored as an argument but printed last as a keyword.
      size_t fmt = name == "relax.print" ? 0 : 1;
      for (size_t i = 0; i < c.args.size(); ++i)
        if (i != fmt) parts.push_back(expr(c.args[i]));
      if (fmt < c.args.size()) parts.push_back("format=" + expr(c.args[fmt]));
      return join(op->info->scriptName());
    }
    return opCall(c, *op);
  }
  if (auto ext = c.op.as<ExternFunc>()) {
    parts.push_back(quoteString(ext->symbol));
    args(0);
    if (c.attrs && !c.attrs->fields.empty()) {
      parts.push_back("attrs_type_key=" + quoteString(c.attrs->typeKey));
      attrKwargs();
    }
    // TVM keeps sinfo_args as written: absent (the result is R.Object) prints nothing.
    if (!c.sinfoArgs.empty()) parts.push_back(sinfoArgsKw(c.sinfoArgs));
    return join("R.call_packed");
  }
  args(0);
  if (!c.sinfoArgs.empty()) parts.push_back(sinfoArgsKw(c.sinfoArgs));
  return join(expr(c.op));
}

void RelaxPrinter::appendExpr(std::string& out, const Expr& e) {
  if (e->kind() == NodeKind::Var || e->kind() == NodeKind::DataflowVar) {  // the usual argument: no copy of its name
    auto& v = static_cast<const Var&>(*e);
    if (voidVars.count(&v)) {
      out += "R.tuple()";
      return;
    }
    if (auto* name = ctx.names.find(&v)) out += *name;
    else out += ctx.names.define(&v, v.name);
    return;
  }
  out += expr(e);
}

std::string RelaxPrinter::expr(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::Var:
    case NodeKind::DataflowVar: {
      auto& v = static_cast<const Var&>(*e);
      if (voidVars.count(&v)) return "R.tuple()";
      return ctx.nameFor(&v, v.name);
    }
    case NodeKind::GlobalVar: {
      auto& g = static_cast<const GlobalVar&>(*e);
      if (!ctx.insideModule) return g.name;
      if (!clsPrinted && hoisted) {
        clsPrinted = true;
        ctx.usedIR = ctx.usedIR;  // `cls = Module` needs no prefix
        hoisted->push_back(ctx.moduleAlias + " = Module");
      }
      return ctx.moduleAlias + "." + g.name;
    }
    case NodeKind::ExternFunc:
      ctx.usedRelax = true;
      return "R.ExternFunc(" + quoteString(static_cast<const ExternFunc&>(*e).symbol) + ")";
    case NodeKind::Constant: return constant(static_cast<const Constant&>(*e));
    case NodeKind::Tuple: {
      auto& t = static_cast<const Tuple&>(*e);
      if (t.fields.empty()) {
        ctx.usedRelax = true;
        return "R.tuple()";
      }
      std::string out = "(";
      for (size_t i = 0; i < t.fields.size(); ++i) out += (i ? ", " : "") + expr(t.fields[i]);
      if (t.fields.size() == 1) out += ",";
      return out + ")";
    }
    case NodeKind::TupleGetItem: {
      auto& t = static_cast<const TupleGetItem&>(*e);
      // Indexing a tuple literal: TVM prints `(x,)[0]`, which Python (and so the parser) reads as
      // x itself; the node constructor keeps the text a round trip.
      if (t.tuple->kind() == NodeKind::Tuple) {
        ctx.usedRelax = true;
        return "R.TupleGetItem(" + expr(t.tuple) + ", " + std::to_string(t.index) + ")";
      }
      return expr(t.tuple) + "[" + std::to_string(t.index) + "]";
    }
    case NodeKind::Call: return callExpr(static_cast<const Call&>(*e));
    case NodeKind::ShapeExpr: {
      ctx.usedRelax = true;
      auto& s = static_cast<const ShapeExpr&>(*e);
      std::string out = "R.shape([";
      for (size_t i = 0; i < s.values.size(); ++i) {
        if (i) out += ", ";
        appendShapeDim(out, s.values[i]);
      }
      return out + "])";
    }
    case NodeKind::PrimValue: {
      ctx.usedRelax = true;
      auto& p = static_cast<const PrimValue&>(*e);
      if (p.value->kind() == NodeKind::FloatImm) return "R.prim_value(" + ctx.prim(p.value, PrimStyle::Tir) + ")";
      return "R.prim_value(" + shapeDim(p.value) + ")";
    }
    case NodeKind::StringImm:
      ctx.usedRelax = true;
      return "R.str(" + quoteString(static_cast<const StringImm&>(*e).value) + ")";
    case NodeKind::DataTypeImm:
      ctx.usedRelax = true;
      return "R.dtype(\"" + static_cast<const DataTypeImm&>(*e).value.str() + "\")";
    case NodeKind::Op:
      ctx.usedRelax = true;
      return static_cast<const Op&>(*e).info->scriptName();
    default:
      return "<unprintable " + std::string(nodeKindName(e->kind())) + ">";
  }
}

}  // namespace rlx
