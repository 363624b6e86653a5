// FuseTIR: TVM's relax.transform.FuseTIR. Every Relax function marked {"Primitive": True}
// (FuseOps' groups of call_tir bindings) becomes one PrimFunc of the same name: the callees'
// bodies in binding order, each copied with its buffers bound to the fused function's (parameters
// `p_<name>` for inputs, `p_output<i>` for results, `<buffer>_intermediate` allocations for values
// passed between kernels) and its symbolic vars unified with the group's; block names are made
// unique (T_add, T_add1). The group's call becomes one R.call_tir of the new kernel (shape and
// scalar parameters travel as tir_vars), then, as TVM's pipeline does, DeadCodeElimination drops
// the kernels and bindings no longer used. Why: one kernel per group keeps intermediates in
// kernel-local buffers. call_tir_inplace outputs stay in their input's buffer; a group whose result
// is such a buffer becomes one call_tir_inplace. Preconditions: groups hold call_tir(_inplace) and
// tuple bindings of schedulable kernels (a root block body) with known output shapes; no tuple
// parameters.
// Before: lv = cls.fused_matmul_add(x, w, b) with fused_matmul_add calling matmul then add.
// After:  lv = R.call_tir(cls.fused_matmul_add, (x, w, b), out_sinfo=...) and one PrimFunc whose
//         matmul block writes matmul_intermediate, read by the T_add block writing the output.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "ir/op.h"
#include "passes/binding_rewriter.h"
#include "passes/call_graph.h"
#include "passes/registry.h"
#include "passes/remove_all_unused.h"
#include "passes/tir_merge.h"

namespace rlx {

namespace {

bool isPrimitive(const Expr& func) {
  auto f = func.as<Function>();
  auto a = f && f->attrs ? f->attrs->find("Primitive") : nullptr;
  return a && *a && ((*a)->kind == AttrValue::Bool ? (*a)->b : (*a)->i != 0);
}

size_t tensorCount(const StructInfo& s) {
  if (auto t = s.as<TupleSInfo>()) {
    size_t n = 0;
    for (auto& f : t->fields) n += tensorCount(f);
    return n;
  }
  return 1;
}

// The output shapes of a call_tir, one per result tensor.
Result<std::vector<std::pair<std::vector<PrimExpr>, DataType>>> outputShapes(const Call& call) {
  std::vector<std::pair<std::vector<PrimExpr>, DataType>> out;
  if (call.sinfoArgs.size() != 1) return Error("FuseTIR: call_tir without out_sinfo");
  std::vector<StructInfo> fields{call.sinfoArgs[0]};
  if (auto t = call.sinfoArgs[0].as<TupleSInfo>()) fields = t->fields;
  for (auto& f : fields) {
    auto t = f.as<TensorSInfo>();
    if (!t || !t->dims()) return Error("FuseTIR expects call_tir outputs with known shapes");
    out.push_back({*t->dims(), t->dtype});
  }
  return out;
}

// A kernel buffer's name before TVMScript printing made it unique: TVM names every buffer of a
// compute op alike (five `T_multiply` in gelu) and its printer shows them as T_multiply,
// T_multiply_1, ...; a parsed kernel keeps the printed names. FuseTIR names buffers after the
// original ones, and the fused kernel is de-duplicated afresh when printed.
std::string originalName(const std::string& name, const std::unordered_set<std::string>& kernelNames) {
  size_t us = name.rfind('_');
  if (us == std::string::npos || us + 1 == name.size()) return name;
  if (!std::all_of(name.begin() + long(us) + 1, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) return name;
  std::string base = name.substr(0, us);
  return kernelNames.count(base) ? base : name;
}

// TVM's FusedTIRConstructor: builds the fused kernel of one Primitive function.
class FusedKernelBuilder {
 public:
  explicit FusedKernelBuilder(const IRModule& mod) : mod_(mod) {}
  // After build: per result, the tensor parameter it is written into (-1: a new output).
  std::vector<int64_t> inplaceIndices;
  // After build: per tensor or tuple parameter, the tuple fields passed (empty for a tensor).
  std::vector<std::vector<int>> usedFields_;

  Result<PrimFuncRef> build(const Function& f) {
    auto func = make<PrimFunc>();
    std::vector<PrimVarRef> scalars;
    // Tensor parameters, and the tensor fields of tuple parameters (lv_0, lv_1, ...): candidates
    // for buffer params; a tuple's fields are kept only when the group reads them.
    struct Candidate {
      BufferRef buf;
      std::string name;
      bool fromTuple;
    };
    std::vector<Candidate> candidates;
    for (auto& p : f.params) {
      const StructInfo& s = p->sinfo;
      if (auto t = s.as<TensorSInfo>()) {
        if (!t->dims()) return Error("FuseTIR expects tensor parameters with known shapes: " + p->name);
        BufferRef buf = tir_merge::declBuffer(p->name, *t->dims(), t->dtype);
        candidates.push_back({buf, p->name, false});
        buffersOf_[p.get()] = {buf};
        paramBuffers_.insert(buf.get());
        usedFields_.push_back({});
      } else if (auto tup = s.as<TupleSInfo>()) {
        std::vector<BufferRef> fields;
        for (size_t k = 0; k < tup->fields.size(); ++k) {
          auto ft = tup->fields[k].as<TensorSInfo>();
          if (!ft || !ft->dims()) return Error("FuseTIR expects tuple parameters of tensors with known shapes: " + p->name);
          BufferRef buf = tir_merge::declBuffer(p->name + "_" + std::to_string(k), *ft->dims(), ft->dtype);
          candidates.push_back({buf, buf->name, true});
          fields.push_back(buf);
          paramBuffers_.insert(buf.get());
        }
        buffersOf_[p.get()] = fields;
        usedFields_.push_back({});
      } else if (auto sh = s.as<ShapeSInfo>(); sh && sh->values) {
        for (auto& v : *sh->values) {
          auto var = v.as<PrimVar>();
          if (!var) return Error("FuseTIR expects shape parameters of symbolic vars: " + p->name);
          scalars.push_back(var);
        }
      } else if (auto pr = s.as<PrimSInfo>(); pr && pr->value && pr->value.is<PrimVar>()) {
        scalars.push_back(pr->value.as<PrimVar>());
      } else {
        return Error("FuseTIR: unsupported parameter " + p->name);
      }
    }
    auto seq = f.body.as<SeqExpr>();
    if (!seq) return Error("FuseTIR expects a normalized Primitive function");
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) {
        if (b->isMatchCast()) return Error("FuseTIR: match_cast is not supported in Primitive functions");
        RLX_TRY(bufs, buffersOfValue(b->value));
        buffersOf_[b->var.get()] = bufs;
      }
    RLX_TRY(results, buffersOfValue(seq->body));
    // Buffer params in parameter order; an unread tuple field is no parameter at all.
    for (auto& c : candidates) {
      if (c.fromTuple && !readBuffers_.count(c.buf.get())) continue;
      auto handle = make<PrimVar>("p_" + c.name, DataType::handle());
      func->params.push_back(handle);
      func->bufferMap.emplace_back(handle, c.buf);
    }
    // Which fields of each tuple parameter the fused call passes.
    size_t pi = 0;
    for (auto& p : f.params) {
      if (!p->sinfo.is<TensorSInfo>() && !p->sinfo.is<TupleSInfo>()) continue;
      if (p->sinfo.is<TupleSInfo>()) {
        auto& fields = buffersOf_[p.get()];
        std::vector<int> used;
        for (size_t k = 0; k < fields.size(); ++k)
          if (readBuffers_.count(fields[k].get())) used.push_back(int(k));
        usedFields_[pi] = used;
      }
      ++pi;
    }
    int outIndex = 0;
    std::unordered_set<const Buffer*> outputs;
    inplaceIndices.clear();
    for (auto& buf : results) {
      // A result written into a parameter's buffer makes the fused call in place on that param.
      auto param = std::find_if(func->bufferMap.begin(), func->bufferMap.end(), [&](auto& pb) { return pb.second.get() == buf.get(); });
      inplaceIndices.push_back(param == func->bufferMap.end() ? -1 : int64_t(param - func->bufferMap.begin()));
      if (paramBuffers_.count(buf.get())) continue;
      auto handle = make<PrimVar>("p_output" + std::to_string(outIndex++), DataType::handle());
      func->params.push_back(handle);
      func->bufferMap.emplace_back(handle, buf);
      outputs.insert(buf.get());
    }
    for (auto& v : scalars) func->params.push_back(v);

    auto root = make<TirBlock>();
    root->name = "root";
    root->body = tir_merge::flatten(bodies_);
    for (auto& a : allocs_)
      if (!outputs.count(a.get())) root->allocBuffers.push_back(a);
    auto realize = make<BlockRealize>();
    realize->predicate = boolImm(true);
    realize->block = root;
    func->body = realize;
    func->attrs = makeDictAttrs({{"tir.noalias", AttrValue::boolean(true)}});
    func->sinfo = primFuncSInfo();
    return func;
  }

 private:
  const IRModule& mod_;
  std::unordered_map<const Object*, std::vector<BufferRef>> buffersOf_;  // Relax values → fused buffers
  std::unordered_set<const Buffer*> paramBuffers_;
  std::unordered_set<const Buffer*> readBuffers_;  // buffers some inlined kernel reads or writes
  std::vector<BufferRef> allocs_;  // in TVM's order: each callee's allocations, then its results
  std::vector<Stmt> bodies_;
  tir_merge::BlockNames blockNames_;

  Result<std::vector<BufferRef>> buffersOfValue(const Expr& e) {
    if (auto it = buffersOf_.find(e.get()); it != buffersOf_.end()) return it->second;
    if (auto t = e.as<Tuple>()) {
      std::vector<BufferRef> out;
      for (auto& f : t->fields) {
        RLX_TRY(fb, buffersOfValue(f));
        out.insert(out.end(), fb.begin(), fb.end());
      }
      return out;
    }
    if (auto g = e.as<TupleGetItem>()) {
      RLX_TRY(all, buffersOfValue(g->tuple));
      auto fields = g->tuple->sinfo.as<TupleSInfo>();
      if (!fields) return Error("FuseTIR: tuple access on a non-tuple value");
      size_t begin = 0;
      for (int i = 0; i < g->index; ++i) begin += tensorCount(fields->fields[size_t(i)]);
      size_t end = begin + tensorCount(fields->fields[size_t(g->index)]);
      if (end > all.size()) return Error("FuseTIR: tuple access out of range");
      return std::vector<BufferRef>(all.begin() + long(begin), all.begin() + long(end));
    }
    if (auto c = e.as<Call>(); c && (c->opName() == "relax.call_tir" || c->opName() == "relax.call_tir_inplace")) return inlineCall(*c);
    return Error("FuseTIR: Primitive functions may only hold call_tir and tuple bindings");
  }

  // Copies one callee's body into the fused kernel; returns the buffers holding its results.
  Result<std::vector<BufferRef>> inlineCall(const Call& call) {
    auto gv = call.args[0].as<GlobalVar>();
    auto callee = gv ? mod_.lookup(gv->name).as<PrimFunc>() : nullptr;
    if (!callee) return Error("FuseTIR: call_tir of something that is not a PrimFunc in the module");
    auto realize = callee->body.as<BlockRealize>();
    if (!realize || realize->block->name != "root") return Error("FuseTIR: only kernels whose body is the root block can be fused: " + gv->name);
    auto args = call.args[1].as<Tuple>();
    if (!args) return Error("FuseTIR: call_tir arguments must be a tuple");

    tir_merge::Substituter sub;
    sub.blockNames = &blockNames_;
    std::vector<BufferRef> calleeInputs, targets;
    for (size_t i = 0; i < args->fields.size() && i < callee->params.size(); ++i) {
      const Expr& arg = args->fields[i];
      if (const BufferRef* b = callee->bufferOf(callee->params[i])) {
        calleeInputs.push_back(*b);
      } else if (auto pv = arg.as<PrimValue>()) {
        tir_merge::matchSymbolic(callee->params[i], pv->value, sub.vars);
      } else {
        return Error("FuseTIR: scalar kernel parameter without a prim value argument in " + gv->name);
      }
    }
    for (size_t i = 0; i < args->fields.size(); ++i) {
      if (!args->fields[i].is<Var>()) continue;
      auto it = buffersOf_.find(args->fields[i].get());
      if (it == buffersOf_.end()) continue;
      targets.insert(targets.end(), it->second.begin(), it->second.end());
    }
    if (targets.size() != calleeInputs.size()) return Error("FuseTIR: the arguments of " + gv->name + " do not match its buffers");
    for (auto& t : targets) readBuffers_.insert(t.get());
    for (size_t i = 0; i < targets.size(); ++i) {
      for (size_t d = 0; d < calleeInputs[i]->shape.size() && d < targets[i]->shape.size(); ++d)
        tir_merge::matchSymbolic(calleeInputs[i]->shape[d], targets[i]->shape[d], sub.vars);
      sub.buffers[calleeInputs[i].get()] = targets[i];
      // A physical layout (axis_separators) the kernel declares for its input holds for the
      // fused kernel's buffer too (TVM copies it onto the parameter).
      if (targets[i]->axisSeparators.empty()) targets[i]->axisSeparators = calleeInputs[i]->axisSeparators;
    }

    RLX_TRY(shapes, outputShapes(call));
    // call_tir_inplace: output i is written into input inplace[i] (-1: a new buffer, which alone
    // is a parameter of the callee after its inputs).
    std::vector<int64_t> inplace(shapes.size(), -1);
    if (call.opName() == "relax.call_tir_inplace") {
      const Attr* ix = call.attrs ? call.attrs->find("inplace_indices") : nullptr;
      if (!ix || !*ix || (*ix)->kind != AttrValue::Array || (*ix)->array.size() != shapes.size()) return Error("FuseTIR: call_tir_inplace needs one inplace index per output");
      for (size_t i = 0; i < shapes.size(); ++i) inplace[i] = (*ix)->array[i] ? (*ix)->array[i]->i : -1;
    }
    size_t numNew = size_t(std::count(inplace.begin(), inplace.end(), int64_t(-1)));
    size_t numInputs = args->fields.size();
    if (callee->params.size() < numInputs + numNew) return Error("FuseTIR: " + gv->name + " has fewer parameters than the call passes");
    std::unordered_set<std::string> kernelNames;
    for (auto& [p, b] : callee->bufferMap) kernelNames.insert(b->name);
    for (auto& a : realize->block->allocBuffers) kernelNames.insert(a->name);
    std::vector<std::string> taken;
    for (auto& a : allocs_) taken.push_back(a->name);
    for (auto& a : realize->block->allocBuffers) taken.push_back(originalName(a->name, kernelNames));
    std::vector<BufferRef> results;
    size_t newIndex = 0;
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (inplace[i] >= 0) {
        if (size_t(inplace[i]) >= targets.size()) return Error("FuseTIR: an inplace index of " + gv->name + " is out of range");
        results.push_back(targets[size_t(inplace[i])]);
        continue;
      }
      const BufferRef* b = callee->bufferOf(callee->params[numInputs + newIndex++]);
      if (!b) return Error("FuseTIR: output parameter of " + gv->name + " is not a buffer");
      std::string name = originalName((*b)->name, kernelNames) + "_intermediate";
      // TVM appends "_<k>" to the candidate itself on each clash (x_intermediate_1_2 ...).
      for (size_t k = 1; std::find(taken.begin(), taken.end(), name) != taken.end(); ++k) name += "_" + std::to_string(k);
      taken.push_back(name);
      BufferRef buf = tir_merge::declBuffer(name, shapes[i].first, (*b)->dtype);
      buf->scope = (*b)->scope;
      buf->axisSeparators = (*b)->axisSeparators;
      for (size_t d = 0; d < (*b)->shape.size() && d < buf->shape.size(); ++d) tir_merge::matchSymbolic((*b)->shape[d], buf->shape[d], sub.vars);
      sub.buffers[b->get()] = buf;
      results.push_back(buf);
    }
    for (auto& a : realize->block->allocBuffers) {
      allocs_.push_back(sub.renewBuffer(a));
      allocs_.back()->name = originalName(a->name, kernelNames);
    }
    for (size_t i = 0; i < results.size(); ++i)
      if (inplace[i] < 0) allocs_.push_back(results[i]);
    bodies_.push_back(sub.stmt(realize->block->body));
    return results;
  }
};

// Replaces calls of Primitive functions by R.call_tir of their fused kernels; the tuple fields a
// kernel reads are bound (lv = tup[0]) and passed one by one.
class CallRewriter : public BindingRewriter {
 public:
  std::unordered_map<std::string, GlobalVarRef> fused;  // Primitive function name → kernel
  std::unordered_map<std::string, std::vector<int64_t>> inplace;  // its in-place outputs, if any
  std::unordered_map<std::string, std::vector<std::vector<int>>> tupleFields;

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto call = value.as<Call>();
    auto g = call ? call->op.as<GlobalVar>() : nullptr;
    auto it = g ? fused.find(g->name) : fused.end();
    if (it == fused.end()) return nullptr;
    const auto& fields = tupleFields[g->name];
    std::vector<Expr> tensors;
    std::vector<PrimExpr> tirVars;
    size_t pi = 0;
    for (auto& a : call->args) {
      const StructInfo& s = sinfoOf(a);
      if (auto sh = s.as<ShapeSInfo>(); sh && sh->values) {
        tirVars.insert(tirVars.end(), sh->values->begin(), sh->values->end());
      } else if (auto pr = s.as<PrimSInfo>(); pr && pr->value) {
        tirVars.push_back(pr->value);
      } else if (auto ts = s.as<TupleSInfo>()) {
        if (pi < fields.size())
          for (int k : fields[pi]) {
            Expr item = make<TupleGetItem>(a, k);
            item->sinfo = ts->fields[size_t(k)];
            tensors.push_back(item);
          }
        ++pi;
      } else {
        tensors.push_back(a);
        ++pi;
      }
    }
    std::vector<Expr> args{it->second, tupleOf(std::move(tensors))};
    if (!tirVars.empty()) {
      auto shape = make<ShapeExpr>(tirVars);
      shape->sinfo = make<ShapeSInfo>(tirVars, 0);
      args.push_back(shape);
    }
    Expr out;
    auto ip = inplace.find(g->name);
    if (ip != inplace.end()) {
      const OpInfo* op = findOp("relax.call_tir_inplace");
      auto attrs = make<Attrs>();
      attrs->typeKey = op->attrsType;
      attrs->fields = {{"inplace_indices", AttrValue::ints(ip->second)}};
      out = makeCall("relax.call_tir_inplace", std::move(args), attrs, {call->sinfo});
    } else {
      out = makeCall("relax.call_tir", std::move(args), nullptr, {call->sinfo});
    }
    out->span = call->span;
    return out;
  }
};

Result<IRModuleRef> fuseTIR(const IRModuleRef& mod) {
  IRModuleRef out = mod;
  CallRewriter rewriter;
  for (auto& e : mod->functions) {
    if (!isPrimitive(e.func)) continue;
    FusedKernelBuilder builder(*mod);
    auto kernel = builder.build(*e.func.as<Function>());
    if (!kernel.ok()) return Error(kernel.error().message + " (in " + e.gvar->name + ")", kernel.error().span);
    auto gv = make<GlobalVar>(e.gvar->name);
    gv->sinfo = kernel.value()->sinfo;
    out = withFunction(out, gv, kernel.value());
    rewriter.fused[e.gvar->name] = gv;
    rewriter.tupleFields[e.gvar->name] = builder.usedFields_;
    if (std::any_of(builder.inplaceIndices.begin(), builder.inplaceIndices.end(), [](int64_t i) { return i >= 0; }))
      rewriter.inplace[e.gvar->name] = builder.inplaceIndices;
  }
  // Each loop iterates a module kept alive by its own reference while `out` is replaced: assigning
  // `out` may free the module whose function list is being walked.
  const IRModuleRef withKernels = out;
  for (auto& e : withKernels->functions) {
    if (e.func->kind() != NodeKind::Function) continue;
    Expr f = rewriter.mutate(e.func);
    if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
  }
  // TVM's FuseTIR ends with DeadCodeElimination: the merged kernels are usually unused now.
  out = keepFunctions(out, reachableFunctions(out, {}));
  const IRModuleRef reachable = out;
  for (auto& e : reachable->functions) {
    if (e.func->kind() != NodeKind::Function) continue;
    Expr f = removeAllUnused(e.func);
    if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
  }
  return out;
}

}  // namespace

Result<Pass> createFuseTIRPass(PassOptions&) { return Pass({"FuseTIR", 0, {}}, [](const IRModuleRef& mod, const PassContext&) { return fuseTIR(mod); }); }

}  // namespace rlx
