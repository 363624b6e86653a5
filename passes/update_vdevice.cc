// UpdateVDevice: TVM's relax.transform.UpdateVDevice(new_vdevice, index). The vdevice at `index` of
// the module's "vdevice" global infos becomes new_vdevice, and every tensor that was on it (struct
// info of parameters, bindings, returns, call outputs, R.to_vdevice destinations) is on the new one.
// Why: retarget part of a module (e.g. cuda -> metal) without rewriting its functions by hand.
// Struct info names a vdevice "kind:<index among that kind>:scope", so replacing one may renumber
// others of the old or new kind; those names are updated too (they still mean the same device).
// R.hint_on_device names a device (type, id), not a global info, and stays as it is.
// new_vdevice is I.vdevice(target, vdevice_id=0, memory_scope="global"), written out or as text
// ('I.vdevice("metal", 1, "global")'), a dict {"target": "metal", "vdevice_id": 1}, or a target
// string alone ("metal", "cuda -arch=sm_80": vdevice_id 0, global memory).
// Before: I.vdevice("cuda", 0) at index 1, x: R.Tensor((2,), "float32", "cuda:0")
// After (UpdateVDevice(new_vdevice=I.vdevice("llvm", 1), index=1)): x: R.Tensor(..., "llvm:1:global").
#include <map>
#include <unordered_map>

#include "ir/expr_mutator.h"
#include "ir/structural_equal.h"
#include "ir/target.h"
#include "passes/registry.h"
#include "passes/signature_change.h"

namespace rlx {

namespace {

// The kind ("cuda") and memory scope of an I.vdevice(...) global info.
struct VDeviceInfo {
  std::string kind, scope;
};

VDeviceInfo infoOf(const Attr& v) {
  VDeviceInfo out{"", "global"};
  if (!v || v->kind != AttrValue::Ctor || v->array.empty() || !v->array[0]) return out;
  const Attr& target = v->array[0];
  if (target->kind == AttrValue::Map) {
    for (auto& [k, a] : target->map)
      if (k == "kind" && a && a->kind == AttrValue::Str) out.kind = a->s;
  } else if (target->kind == AttrValue::Str) {
    out.kind = target->s.substr(0, target->s.find(' '));
  }
  if (v->array.size() > 2 && v->array[2] && v->array[2]->kind == AttrValue::Str) out.scope = v->array[2]->s;
  return out;
}

// How struct info names the vdevices of `list`: "kind:<index among that kind>:scope".
std::vector<std::string> namesOf(const std::vector<VDeviceInfo>& list) {
  std::map<std::string, int> perKind;
  std::vector<std::string> out;
  for (auto& v : list) out.push_back(v.kind + ":" + std::to_string(perKind[v.kind]++) + ":" + v.scope);
  return out;
}

// Old vdevice names to new ones: the replaced vdevice takes the new one's name, the others keep
// their kind and scope with their index among that kind in the new list.
class Renamer {
 public:
  Renamer(const std::vector<VDeviceInfo>& before, const std::vector<VDeviceInfo>& after, size_t index) : before_(before), after_(after), index_(index) {
    newNames_ = namesOf(after);
  }

  std::string operator()(const std::string& name) const {
    if (name.empty()) return name;
    size_t c1 = name.find(':'), c2 = c1 == std::string::npos ? c1 : name.find(':', c1 + 1);
    if (c2 == std::string::npos) return name;
    std::string kind = name.substr(0, c1), k = name.substr(c1 + 1, c2 - c1 - 1), scope = name.substr(c2 + 1);
    if (k.empty() || k.find_first_not_of("0123456789") != std::string::npos) return name;
    // The global index of the vdevice the name refers to.
    size_t wanted = std::stoul(k), seen = 0, g = before_.size();
    for (size_t i = 0; i < before_.size() && g == before_.size(); ++i)
      if (before_[i].kind == kind && seen++ == wanted) g = i;
    if (g == before_.size()) return name;  // names no declared vdevice: left alone
    if (g == index_) return newNames_[g];
    size_t within = 0;
    for (size_t i = 0; i < g; ++i) within += after_[i].kind == kind;
    return kind + ":" + std::to_string(within) + ":" + scope;
  }

 private:
  std::vector<VDeviceInfo> before_, after_;
  size_t index_;
  std::vector<std::string> newNames_;
};

class Updater : public ExprMutator {
 public:
  explicit Updater(const Renamer& rename) : rename_(rename) {}
  std::map<std::string, GlobalVarRef> gvars;  // module functions whose signature changes

  StructInfo mapSInfo(const StructInfo& s) const {
    if (!s) return s;
    if (auto t = s.as<TensorSInfo>()) {
      std::string v = rename_(t->vdevice);
      if (v == t->vdevice) return s;
      auto out = make<TensorSInfo>(t->shape, t->dtype, t->ndim, v);
      return out;
    }
    if (auto t = s.as<TupleSInfo>()) {
      std::vector<StructInfo> fields;
      bool changed = false;
      for (auto& f : t->fields) {
        fields.push_back(mapSInfo(f));
        changed |= !fields.back().same(f);
      }
      return changed ? StructInfo(make<TupleSInfo>(std::move(fields))) : s;
    }
    if (auto f = s.as<FuncSInfo>()) {
      bool changed = false;
      std::optional<std::vector<StructInfo>> params;
      if (f->params) {
        params.emplace();
        for (auto& p : *f->params) {
          params->push_back(mapSInfo(p));
          changed |= !params->back().same(p);
        }
      }
      StructInfo ret = mapSInfo(f->ret);
      changed |= !ret.same(f->ret);
      return changed ? StructInfo(make<FuncSInfo>(std::move(params), ret, f->isPure)) : s;
    }
    return s;
  }

  Expr updateFunction(const Ref<Function>& f) {
    std::vector<VarRef> params;
    bool changed = false;
    for (auto& p : f->params) {
      VarRef np = renewed(p);
      changed |= !np.same(p);
      params.push_back(np);
    }
    Expr body = mutate(f->body);
    StructInfo ret = mapSInfo(f->retSInfo);
    if (!changed && body.same(f->body) && ret.same(f->retSInfo)) return f;
    return rebuildFunction(*f, std::move(params), body, ret);
  }

 protected:
  Expr visitFunction(const Ref<Function>& f) override { return updateFunction(f); }

  BindingRef visitBinding(const BindingRef& b) override {
    VarRef var = renewed(b->var);  // first: a recursive local function's body refers to it
    Expr value = mutate(b->value);
    StructInfo cast = mapSInfo(b->castSInfo);
    if (var.same(b->var) && value.same(b->value) && cast.same(b->castSInfo)) return b;
    auto nb = make<Binding>(var, value, cast);
    nb->span = b->span;
    return nb;
  }

  Expr visitCall(const Ref<Call>& c) override {
    Expr out = ExprMutator::visitCall(c);
    auto call = out.as<Call>();
    std::vector<StructInfo> sinfoArgs;
    bool changed = false;
    for (auto& s : call->sinfoArgs) {
      sinfoArgs.push_back(mapSInfo(s));
      changed |= !sinfoArgs.back().same(s);
    }
    AttrsRef attrs = call->attrs;
    if (call->opName() == "relax.to_vdevice")
      if (auto dst = attrStr(attrs, "dst_vdevice"); dst && rename_(*dst) != *dst) {
        auto na = make<Attrs>();
        na->typeKey = attrs->typeKey;
        na->fields = attrs->fields;
        for (auto& [k, v] : na->fields)
          if (k == "dst_vdevice") v = AttrValue::str(rename_(*dst));
        attrs = na;
        changed = true;
      }
    StructInfo s = mapSInfo(call->sinfo);
    if (!changed && s.same(call->sinfo)) return out;
    auto nc = make<Call>(call->op, call->args, attrs, std::move(sinfoArgs));
    nc->sinfo = s;
    nc->span = call->span;
    return nc;
  }

  Expr visitTuple(const Ref<Tuple>& t) override {
    Expr out = ExprMutator::visitTuple(t);
    return retyped<Tuple>(out, [](const Tuple& x) { return make<Tuple>(x.fields); });
  }
  Expr visitTupleGetItem(const Ref<TupleGetItem>& t) override {
    Expr out = ExprMutator::visitTupleGetItem(t);
    return retyped<TupleGetItem>(out, [](const TupleGetItem& x) { return make<TupleGetItem>(x.tuple, x.index); });
  }
  Expr visitIf(const Ref<If>& i) override {
    Expr out = ExprMutator::visitIf(i);
    return retyped<If>(out, [](const If& x) { return make<If>(x.cond, x.thenBranch, x.elseBranch); });
  }
  Expr visitSeqExpr(const Ref<SeqExpr>& s) override {
    Expr out = ExprMutator::visitSeqExpr(s);
    return retyped<SeqExpr>(out, [](const SeqExpr& x) { return make<SeqExpr>(x.blocks, x.body); });
  }
  Expr visitLeaf(const Expr& e) override {
    if (auto g = e.as<GlobalVar>()) {
      auto it = gvars.find(g->name);
      return it == gvars.end() ? e : Expr(it->second);
    }
    if (e.is<Constant>()) return retyped<Constant>(e, [](const Constant& x) { return make<Constant>(x.data); });
    return e;
  }

 private:
  // `e` (a node just rebuilt or kept) with its struct info renamed; a copy when that changes it.
  template <class T, class Copy>
  Expr retyped(const Expr& e, Copy copy) const {
    StructInfo s = mapSInfo(e->sinfo);
    if (s.same(e->sinfo)) return e;
    Ref<T> n = copy(*e.as<T>());
    n->sinfo = s;
    n->span = e->span;
    return n;
  }

  // `v`, or a var of the same name with its struct info renamed (later uses follow via varMap).
  VarRef renewed(const VarRef& v) {
    StructInfo s = mapSInfo(remapSInfo(v->sinfo));
    if (s.same(v->sinfo)) return v;
    auto nv = make<Var>(v->name, s, v->isDataflow());
    nv->span = v->span;
    varMap[v.get()] = nv;
    return nv;
  }

  const Renamer& rename_;
};

// new_vdevice as I.vdevice(canonical target, id, scope), from the forms the option accepts.
Result<Attr> newVDeviceOption(PassOptions& options) {
  const char* expected = "an I.vdevice(target, vdevice_id, memory_scope) (written out or as a string), a target string or a dict {\"target\": ..., \"vdevice_id\": 0, \"memory_scope\": \"global\"}";
  auto raw = options.raw("new_vdevice");
  if (!raw || !*raw) return Error("UpdateVDevice needs new_vdevice=I.vdevice(\"TARGET\", ID, \"SCOPE\") and index=N (the position in the module's \"vdevice\" global infos)");
  Attr v = *raw;
  if (v->kind == AttrValue::Str && v->s.find('(') == std::string::npos) {
    v = AttrValue::ctor("I.vdevice", {v, AttrValue::integer(0), AttrValue::str("global")});  // a target string: I.vdevice(target)
  } else if (v->kind == AttrValue::Str) {
    auto parsed = parseOptionLiteral(v->s);
    if (!parsed.ok() || !parsed.value() || parsed.value()->kind != AttrValue::Ctor)
      return Error("UpdateVDevice: new_vdevice='" + v->s + "' is not an I.vdevice(...)" + (parsed.ok() ? std::string() : ": " + parsed.error().message));
    v = parsed.value();
  } else if (v->kind == AttrValue::Map) {
    std::vector<Attr> args = {Attr(), AttrValue::integer(0), AttrValue::str("global")};
    for (auto& [k, a] : v->map) {
      if (k == "target") args[0] = a;
      else if (k == "vdevice_id") args[1] = a;
      else if (k == "memory_scope") args[2] = a;
      else return Error("UpdateVDevice: new_vdevice has no field '" + k + "' (it takes target, vdevice_id, memory_scope)");
    }
    if (!args[0]) return Error("UpdateVDevice: new_vdevice needs a \"target\"");
    v = AttrValue::ctor("I.vdevice", std::move(args));
  } else if (v->kind != AttrValue::Ctor) {
    options.wrongType("new_vdevice", expected);
    return Attr();
  }
  const Attr& target = v->array[0];
  if (!target || (target->kind != AttrValue::Str && target->kind != AttrValue::Map))
    return Error("UpdateVDevice: the target of new_vdevice must be a string (\"cuda -arch=sm_80\") or a dict ({\"kind\": \"cuda\"}), got " + describeOptionValue(target));
  if (!v->array[1] || v->array[1]->kind != AttrValue::Int || v->array[1]->i < 0)
    return Error("UpdateVDevice: the vdevice_id of new_vdevice must be a non-negative integer, got " + describeOptionValue(v->array[1]));
  if (!v->array[2] || v->array[2]->kind != AttrValue::Str) return Error("UpdateVDevice: the memory_scope of new_vdevice must be a string, got " + describeOptionValue(v->array[2]));
  auto canonical = canonicalTarget(target);
  if (!canonical.ok()) return Error("UpdateVDevice: new_vdevice: " + canonical.error().message);
  return AttrValue::ctor("I.vdevice", {canonical.value(), v->array[1], v->array[2]});
}

}  // namespace

Result<Pass> createUpdateVDevicePass(PassOptions& options) {
  RLX_TRY(newVDevice, newVDeviceOption(options));
  auto index = options.raw("index");
  if (!index) return Error("UpdateVDevice needs index=N: the position in the module's \"vdevice\" global infos of the vdevice to replace");
  if (!*index || (*index)->kind != AttrValue::Int) options.wrongType("index", "an integer");
  // A wrong type is reported by the registry (options.finish) before this pass can run.
  if (!newVDevice || !*index || (*index)->kind != AttrValue::Int) return Pass({"UpdateVDevice", 0, {}}, [](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> { return mod; });
  int64_t at = (*index)->i;
  return Pass({"UpdateVDevice", 0, {}}, [newVDevice, at](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    const Attr* list = mod->globalInfos ? mod->globalInfos->find("vdevice") : nullptr;
    if (!list || !*list || (*list)->kind != AttrValue::Array || (*list)->array.empty())
      return Error("UpdateVDevice: the module declares no vdevices (I.module_global_infos({\"vdevice\": [...]}))");
    auto& old = (*list)->array;
    if (at < 0 || size_t(at) >= old.size())
      return Error("UpdateVDevice: index=" + std::to_string(at) + " is out of range: the module declares " + std::to_string(old.size()) + " vdevices (0 to " +
                   std::to_string(old.size() - 1) + ")");
    if (structuralEqual(old[size_t(at)], newVDevice)) return mod;
    std::vector<Attr> replaced = old;
    replaced[size_t(at)] = newVDevice;
    std::vector<VDeviceInfo> before, after;
    for (auto& v : old) before.push_back(infoOf(v));
    for (auto& v : replaced) after.push_back(infoOf(v));
    Renamer rename(before, after, size_t(at));
    Updater updater(rename);
    for (auto& e : mod->functions) {
      StructInfo s = updater.mapSInfo(e.gvar->sinfo);
      if (s.same(e.gvar->sinfo)) continue;
      auto gv = make<GlobalVar>(e.gvar->name);
      gv->sinfo = s;
      updater.gvars[gv->name] = gv;
    }
    auto out = make<IRModule>();
    out->attrs = mod->attrs;
    out->globalInfos = withDictAttr(mod->globalInfos, "vdevice", AttrValue::array_(std::move(replaced)));
    for (auto& e : mod->functions) {
      auto it = updater.gvars.find(e.gvar->name);
      GlobalVarRef gv = it == updater.gvars.end() ? e.gvar : it->second;
      Expr f = e.func;
      if (auto fn = e.func.as<Function>()) f = updater.updateFunction(fn);
      out->functions.push_back({gv, f});
    }
    return out;
  });
}

}  // namespace rlx
