// RealizeVDevice: TVM's relax.transform.RealizeVDevice. Infers the virtual device of every tensor
// var from the known ones (vdevices in struct info, the function's annotated return, outputs of
// R.hint_on_device) and, second, from the inputs of R.hint_on_device, spreading each along
// bindings: the vars one binding uses and defines share a device, except across R.hint_on_device
// and R.to_vdevice. The inferred vdevice is written into each var's struct info and the function
// signature; a hint whose input is already on its device disappears (y = x), any other becomes
// R.to_vdevice. Why: later passes and codegen read placement from struct info only.
// Relay's RewriteAnnotatedOps (on_device annotations into device copies) is this pass's alias.
// Before: x2 = R.hint_on_device(x1, R.cpu()); lv = R.add(x2, y)  (global info: I.vdevice("llvm"))
// After:  x, y, x1, x2, lv all R.Tensor(..., "llvm"); x2 = x1.
#include <functional>
#include <map>
#include <unordered_map>

#include "ir/block_builder.h"
#include "ir/expr_mutator.h"
#include "ir/expr_walk.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// The module's vdevices (I.module_global_infos({"vdevice": [...]})) by device type and id, each
// with the name struct info uses for it: "kind:<index among that kind>:scope".
struct VDevices {
  struct Entry {
    int64_t devType, devId;
    std::string name;
  };
  std::vector<Entry> entries;

  static int64_t deviceType(const std::string& kind) {
    static const std::map<std::string, int64_t> types = {{"llvm", 1}, {"c", 1}, {"cuda", 2}, {"nvptx", 2}, {"opencl", 4}, {"vulkan", 7}, {"metal", 8}, {"rocm", 10}, {"webgpu", 15}};
    auto it = types.find(kind);
    return it == types.end() ? -1 : it->second;
  }

  explicit VDevices(const IRModule& mod) {
    const Attr* list = mod.globalInfos ? mod.globalInfos->find("vdevice") : nullptr;
    if (!list || !*list || (*list)->kind != AttrValue::Array) return;
    std::map<std::string, int> perKind;
    for (auto& v : (*list)->array) {
      if (!v || v->kind != AttrValue::Ctor || v->array.empty() || !v->array[0]) continue;
      std::string kind;
      if (v->array[0]->kind == AttrValue::Map) {
        for (auto& [k, a] : v->array[0]->map)
          if (k == "kind" && a && a->kind == AttrValue::Str) kind = a->s;
      } else if (v->array[0]->kind == AttrValue::Str) {
        kind = v->array[0]->s.substr(0, v->array[0]->s.find(' '));
      }
      int64_t id = v->array.size() > 1 && v->array[1] && v->array[1]->kind == AttrValue::Int ? v->array[1]->i : 0;
      std::string scope = v->array.size() > 2 && v->array[2] && v->array[2]->kind == AttrValue::Str ? v->array[2]->s : "global";
      entries.push_back({deviceType(kind), id, kind + ":" + std::to_string(perKind[kind]++) + ":" + scope});
    }
  }

  Result<std::string> lookup(const Call& hint) const {
    auto type = attrInt(hint.attrs, "dev_type").value_or(1), id = attrInt(hint.attrs, "dev_id").value_or(0);
    if (id < 0) return Error("RealizeVDevice: the device id in R.hint_on_device must not be negative, got " + std::to_string(id));
    for (auto& e : entries)
      if (e.devType == type && e.devId == id) return e.name;
    return Error("RealizeVDevice: R.hint_on_device names device type " + std::to_string(type) + " id " + std::to_string(id) +
                 ", but the module's \"vdevice\" global infos declare no such device");
  }
};

bool isHint(const Expr& e) {
  auto c = e.as<Call>();
  return c && c->opName() == "relax.hint_on_device";
}

std::string vdeviceOf(const StructInfo& s) {
  auto t = s ? s.as<TensorSInfo>() : nullptr;
  return t ? t->vdevice : std::string();
}

StructInfo withVDevice(const StructInfo& s, const std::string& vdev) {
  auto t = s.as<TensorSInfo>();
  if (!t || t->vdevice == vdev) return s;
  auto out = make<TensorSInfo>(t->shape, t->dtype, t->ndim, vdev);
  return out;
}

// Steps 1-3 of TVM's InferVDevice: explicit devices, co-located vars, propagation in two rounds.
class Inference {
 public:
  explicit Inference(const VDevices& table) : table_(table) {}
  std::string error;
  std::unordered_map<const Var*, std::string> known;

  void collect(const Function& f) {
    for (auto& p : f.params) defineVar(*p);
    std::unordered_map<const Var*, Expr> bound;
    walkBindings(f.body, bound);
    // A return annotated with a vdevice places the returned var (through tuples, unwrapping aliases).
    std::function<void(Expr, const StructInfo&)> ret = [&](Expr e, const StructInfo& s) {
      if (auto v = e.as<Var>(); v && !vdeviceOf(s).empty()) explicit_.emplace(v.get(), vdeviceOf(s));
      if (auto ts = s.as<TupleSInfo>()) {
        while (auto v = e.as<Var>()) {
          auto it = bound.find(v.get());
          if (it == bound.end()) break;
          e = it->second;
        }
        if (auto t = e.as<Tuple>(); t && t->fields.size() == ts->fields.size())
          for (size_t i = 0; i < t->fields.size(); ++i) ret(t->fields[i], ts->fields[i]);
      }
    };
    if (auto seq = f.body.as<SeqExpr>()) ret(seq->body, f.retSInfo);
  }

  void propagate() {
    std::vector<const Var*> todo;
    auto run = [&] {
      while (!todo.empty()) {
        const Var* v = todo.back();
        todo.pop_back();
        std::string dev = known.at(v);
        for (const Var* u : colocated_[v])
          if (known.emplace(u, dev).second) todo.push_back(u);
      }
    };
    for (auto& [v, d] : explicit_)
      if (known.emplace(v, d).second) todo.push_back(v);
    run();
    for (auto& [v, d] : hintInputs_)
      if (known.emplace(v, d).second) todo.push_back(v);
    run();
  }

 private:
  const VDevices& table_;
  std::map<const Var*, std::string> explicit_, hintInputs_;  // ordered: deterministic first wins
  std::unordered_map<const Var*, std::vector<const Var*>> colocated_;

  void defineVar(const Var& v) {
    if (auto d = vdeviceOf(v.sinfo); !d.empty()) explicit_.emplace(&v, d);
  }

  void walkBindings(const Expr& e, std::unordered_map<const Var*, Expr>& bound) {
    auto seq = e.as<SeqExpr>();
    if (!seq) return;
    for (auto& block : seq->blocks)
      for (auto& b : block->bindings) {
        defineVar(*b->var);
        bound[b->var.get()] = b->value;
        if (isHint(b->value)) {
          auto c = b->value.as<Call>();
          auto dev = table_.lookup(*c);
          if (!dev.ok()) {
            if (error.empty()) error = dev.error().message;
            continue;
          }
          explicit_[b->var.get()] = dev.value();
          if (auto in = c->args.size() == 1 ? c->args[0].as<Var>() : nullptr) hintInputs_[in.get()] = dev.value();
          continue;
        }
        if (auto c = b->value.as<Call>(); c && c->opName() == "relax.to_vdevice") continue;
        walkExpr(b->value, [&](const Expr& x) {
          if (auto v = x.as<Var>()) {
            colocated_[b->var.get()].push_back(v.get());
            colocated_[v.get()].push_back(b->var.get());
          }
        });
        if (auto i = b->value.as<If>()) {
          walkBindings(i->thenBranch, bound);
          walkBindings(i->elseBranch, bound);
        }
      }
  }
};

// TVM's VDeviceStructInfoUpdater: new vars with the inferred vdevice, hints resolved.
class Updater : public ExprMutator {
 public:
  Updater(const VDevices& table, const std::unordered_map<const Var*, std::string>& known) : table_(table), known_(known) {}

  Expr updateFunction(const FunctionRef& f) {
    std::vector<VarRef> params;
    bool changed = false;
    for (auto& p : f->params) {
      auto it = known_.find(p.get());
      StructInfo s = it == known_.end() ? p->sinfo : withVDevice(p->sinfo, it->second);
      if (s.same(p->sinfo)) {
        params.push_back(p);
        continue;
      }
      auto np = make<Var>(p->name, s, p->isDataflow());
      np->span = p->span;
      varMap[p.get()] = np;
      params.push_back(np);
      changed = true;
    }
    Expr body = mutate(f->body);
    if (!changed && body.same(f->body)) return f;
    // The return takes the vdevice its value now has where the annotation names none.
    std::function<StructInfo(const StructInfo&, const StructInfo&)> ret = [&](const StructInfo& r, const StructInfo& b) -> StructInfo {
      if (r.is<TensorSInfo>() && vdeviceOf(r).empty() && !vdeviceOf(b).empty()) return withVDevice(r, vdeviceOf(b));
      auto rt = r.as<TupleSInfo>();
      auto bt = b ? b.as<TupleSInfo>() : nullptr;
      if (!rt || !bt || rt->fields.size() != bt->fields.size()) return r;
      std::vector<StructInfo> fields;
      bool any = false;
      for (size_t i = 0; i < rt->fields.size(); ++i) {
        fields.push_back(ret(rt->fields[i], bt->fields[i]));
        any |= !fields.back().same(rt->fields[i]);
      }
      return any ? StructInfo(make<TupleSInfo>(std::move(fields))) : r;
    };
    auto seq = body.as<SeqExpr>();
    StructInfo bodySInfo = seq ? currentSInfo(seq->body) : currentSInfo(body);
    if (seq && !seq.same(f->body)) seq->sinfo = bodySInfo;
    StructInfo retSInfo = ret(f->retSInfo, bodySInfo);
    auto nf = make<Function>(params, body, retSInfo, f->isPure, f->attrs);
    nf->span = f->span;
    std::vector<StructInfo> ps;
    for (auto& p : params) ps.push_back(p->sinfo);
    nf->sinfo = make<FuncSInfo>(std::move(ps), retSInfo, f->isPure);
    return nf;
  }

 protected:
  // The struct info of a returned value after the update (vars carry it; tuples are rebuilt).
  static StructInfo currentSInfo(const Expr& e) {
    if (auto t = e.as<Tuple>()) {
      std::vector<StructInfo> fields;
      for (auto& f : t->fields) fields.push_back(currentSInfo(f));
      return make<TupleSInfo>(std::move(fields));
    }
    return sinfoOf(e);
  }

  Expr visitTuple(const Ref<Tuple>& t) override {
    Expr out = ExprMutator::visitTuple(t);
    if (!out.same(t)) out->sinfo = currentSInfo(out);
    return out;
  }

  BindingRef visitBinding(const BindingRef& b) override {
    Expr value = mutate(b->value);
    if (isHint(value)) {
      auto c = value.as<Call>();
      auto dev = table_.lookup(*c);  // resolved during inference already
      Expr arg = c->args[0];
      if (vdeviceOf(arg->sinfo) == dev.value()) {
        value = arg;
      } else {
        value = build::call("to_vdevice", {build::e(arg)}, {{"dst_vdevice", build::s(dev.value())}});
      }
    }
    auto it = known_.find(b->var.get());
    StructInfo s = remapSInfo(b->var->sinfo);
    if (it != known_.end()) s = withVDevice(s, it->second);
    if (!s.same(b->var->sinfo)) return rebind(b, value, s, b->var->isDataflow());
    if (value.same(b->value)) return b;
    auto nb = make<Binding>(b->var, value, b->castSInfo);
    nb->span = b->span;
    return nb;
  }

  Expr visitCall(const Ref<Call>& c) override {
    Expr out = ExprMutator::visitCall(c);
    if (out.same(c)) return out;
    // Op results follow their arguments' new vdevice.
    auto call = out.as<Call>();
    if (call->op.is<Op>()) {
      if (auto s = inferCallSInfo(*call); s.ok()) call->sinfo = s.value();
    }
    return out;
  }

 private:
  const VDevices& table_;
  const std::unordered_map<const Var*, std::string>& known_;
};

}  // namespace

Result<Pass> createRealizeVDevicePass(PassOptions&) {
  return Pass({"RealizeVDevice", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    VDevices table(*mod);
    Inference inference(table);
    for (auto& e : mod->functions)
      if (auto f = e.func.as<Function>()) inference.collect(*f);
    if (!inference.error.empty()) return Error(inference.error);
    inference.propagate();
    if (inference.known.empty()) return mod;
    IRModuleRef out = mod;
    for (auto& e : mod->functions) {
      auto f = e.func.as<Function>();
      if (!f) continue;
      Updater updater(table, inference.known);
      Expr nf = updater.updateFunction(f);
      if (!nf.same(e.func)) out = withFunction(out, e.gvar, nf);
    }
    return out;
  });
}

}  // namespace rlx
