// Custom-kernel ops: tensor_ir_op / tensor_ir_inplace_op (a PrimFunc, e.g. parsed from TVMScript)
// and tensor_expr_op (a kernel built with the TE kernel builder), each called through R.call_tir.
#include "frontend/nn/export_context.h"
#include "frontend/nn/op.h"
#include "frontend/nn/op_util.h"
#include "ir/arith.h"
#include "ir/struct_info.h"
#include "parser/parser.h"

namespace rlx::nn::op {

using namespace detail;

namespace {

Expr parsePrimFunc(const std::string& text) {
  DiagnosticEngine diag;
  auto mod = parseModule(text, "<tensor_ir_op>", diag);
  if (!mod) fail("tensor_ir_op: the TVMScript does not parse:\n" + diag.render());
  if (mod->functions.size() != 1 || mod->functions[0].func->kind() != NodeKind::PrimFunc) fail("tensor_ir_op: the TVMScript must hold exactly one T.prim_func");
  return mod->functions[0].func;
}

StructInfo outSInfo(const std::vector<Tensor>& outs) {
  if (outs.empty()) fail("a kernel call needs at least one output");
  if (outs.size() == 1) return sinfoOf(outs[0].expr());
  std::vector<StructInfo> fields;
  for (auto& o : outs) fields.push_back(sinfoOf(o.expr()));
  return make<TupleSInfo>(std::move(fields));
}

PyValue outSInfoArg(const std::vector<Tensor>& outs) {
  if (outs.size() == 1) return sinfo(sinfoOf(outs[0].expr()));
  PyValue list;
  list.kind = PyValue::List;
  for (auto& o : outs) list.items.push_back(sinfo(sinfoOf(o.expr())));
  return list;
}

// The call result: one tensor, or the items of the tuple bound as <nameHint>_<i>.
std::vector<Tensor> results(const Expr& var, size_t n, const std::string& nameHint) {
  if (n == 1) return {Tensor(var)};
  auto& ctx = ExportContext::current();
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(ctx.emit(make<TupleGetItem>(var, int(i)), nameHint + "_" + std::to_string(i)));
  return out;
}

std::vector<Tensor> tirCall(const Expr& func, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<int64_t>* inplace, const std::vector<Tensor>& outs) {
  if (!func || func->kind() != NodeKind::PrimFunc) fail("tensor_ir_op needs a PrimFunc");
  (void)outSInfo(outs);
  auto& ctx = ExportContext::current();
  std::vector<Expr> tensors;
  std::vector<PrimExpr> tirVars;
  for (auto& a : args) {
    if (a.kind() == Nested::TensorKind) tensors.push_back(a.tensor().expr());
    else if (a.kind() == Nested::PrimKind) tirVars.push_back(a.prim());
    else fail("tensor_ir_op arguments are tensors or symbolic ints, not tuples");
  }
  GlobalVarRef gv = ctx.addFunction(func, nameHint);
  Expr inputs = make<Tuple>(std::move(tensors));
  Expr c;
  if (inplace) {
    c = call("call_tir_inplace", {ex(gv), ex(inputs), build::ints(*inplace), outSInfoArg(outs)}, {{"tir_vars", ex(shapeExpr(tirVars))}});
  } else {
    KwArgs kw;
    if (!tirVars.empty()) kw.push_back({"tir_vars", ex(shapeExpr(tirVars))});
    c = call("call_tir", {ex(gv), ex(inputs), outSInfoArg(outs)}, std::move(kw));
  }
  return results(ctx.emit(c, "lv"), outs.size(), nameHint);
}

}  // namespace

std::vector<Tensor> tensorIrOp(const std::string& funcText, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<Tensor>& outs) {
  return tirCall(parsePrimFunc(funcText), nameHint, args, nullptr, outs);
}
std::vector<Tensor> tensorIrOp(const Expr& primFunc, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<Tensor>& outs) {
  return tirCall(primFunc, nameHint, args, nullptr, outs);
}
std::vector<Tensor> tensorIrInplaceOp(const std::string& funcText, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<int64_t>& inplaceIndices,
                                      const std::vector<Tensor>& outs) {
  return tirCall(parsePrimFunc(funcText), nameHint, args, &inplaceIndices, outs);
}
std::vector<Tensor> tensorIrInplaceOp(const Expr& primFunc, const std::string& nameHint, const std::vector<Nested>& args, const std::vector<int64_t>& inplaceIndices,
                                      const std::vector<Tensor>& outs) {
  return tirCall(primFunc, nameHint, args, &inplaceIndices, outs);
}

std::vector<Tensor> tensorExprOp(const TensorExprFn& fn, const std::string& nameHint, const std::vector<Tensor>& args) {
  (void)ExportContext::current();  // fail early outside an export, before building the kernel
  te::KernelBuilder kb;
  std::vector<te::Tensor> inputs;
  PrimVarMap back;  // kernel var -> Relax symbolic var, to state the output shapes in Relax terms
  for (size_t i = 0; i < args.size(); ++i) {
    auto dims = args[i].shape();
    std::vector<Ref<PrimVar>> vars;
    for (auto& d : dims) collectVars(d, vars);
    for (auto& v : vars)
      if (auto kv = kb.mapShape(PrimExpr(v)).as<PrimVar>()) back[kv.get()] = v;
    auto var = args[i].expr().as<Var>();
    std::string name = var ? var->name : std::string(1, char('A' + i % 26));
    inputs.push_back(kb.placeholder(name, kb.mapShape(dims), args[i].dtype()));
  }
  auto outsTe = fn(kb, inputs);
  if (outsTe.empty()) fail("tensor_expr_op: the function returned no tensors");
  std::vector<Tensor> outs;
  for (auto& o : outsTe) {
    std::vector<PrimExpr> dims;
    for (auto& d : o.shape()) dims.push_back(primSubstitute(d, back));
    outs.push_back(Tensor::placeholder(std::vector<Dim>(dims.begin(), dims.end()), o.dtype()));
  }
  PrimFuncRef func = kb.build(inputs, outsTe);
  std::vector<Nested> vals(args.begin(), args.end());
  return tirCall(func, nameHint, vals, nullptr, outs);
}

}  // namespace rlx::nn::op
