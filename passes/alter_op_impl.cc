// AlterOpImpl (TVM v0.23's; Relay's AlterOpLayout is its alias): every R.call_tir of a PrimFunc
// whose "operator_name" attr is a key of op_impl_map calls the replacement PrimFunc instead, added
// as <operator_name>_replacement (dots become underscores) and marked with that operator_name.
// op_buffer_transforms gives one index map (or None) per buffer, inputs then outputs: each input
// goes through R.layout_transform(index_map=...) first, the call's out_sinfo is the outputs'
// transformed shapes, and each output is transformed back by the map's inverse (TVM's
// NonSurjectiveInverse). An inverse whose domain is padded (i % 16 on 14 elements) is followed by
// R.call_tir of a private "remove_pad" kernel cutting the tensor back to its shape.
// op_buffer_axis_separators / op_buffer_input_axis_separators give each buffer's layout_transform
// axis_separators / input_axis_separators (the inverse uses the output's entries too, as TVM does).
// Options are text: op_impl_map values name a PrimFunc of the module ("add_2d") or of another file
// ("kernels.relax:add_2d"); index maps are lambdas in TVMScript syntax ("lambda i: (i // 4, i % 4)").
// Kernels the pass leaves uncalled (the replaced ones, an in-module replacement's source) go when
// private, as the DeadCodeElimination TVM's tests run afterwards removes them. The replacement is
// private: it implements a call, it is not a new entry point.
// Before: `lv = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((16,)))`, add has operator_name
// "relax.add", op_impl_map={"relax.add": "add_2d"}, maps (i) -> (i // 4, i % 4) for all three
// After:  `lv = lt(x); lv1 = lt(y); lv2 = R.call_tir(cls.relax_add_replacement, (lv, lv1),
//          out_sinfo=R.Tensor((4, 4))); lv_1 = R.layout_transform(lv2, (a0, a1) -> (a0 * 4 + a1,))`
#include <map>
#include <set>

#include "ir/arith.h"
#include "ir/block_builder.h"
#include "ir/ops/infer_util.h"
#include "parser/parser.h"
#include "passes/binding_rewriter.h"
#include "passes/call_graph.h"
#include "passes/index_map.h"
#include "passes/op_builder.h"
#include "passes/registry.h"
#include "printer/printer.h"

namespace rlx {

namespace {

using index_map::IndexMap;
using Separators = std::vector<std::vector<int64_t>>;

// What op_impl_map and the other options say about one operator_name.
struct OpRule {
  std::string name;        // the PrimFunc's name (in the module, or in the file)
  PrimFuncRef external;    // read from a file; null when the module holds it
  std::vector<std::optional<IndexMap>> transforms;  // empty: no buffer changes layout
  std::optional<Separators> axisSeparators, inputAxisSeparators;
};

std::string keyStr(const std::string& option, const std::string& key) { return option + "[\"" + key + "\"]"; }

AttrsRef withoutAttr(const AttrsRef& attrs, const std::string& key) {
  if (!attrs || !attrs->find(key)) return attrs;
  std::vector<std::pair<std::string, Attr>> kept;
  for (auto& f : attrs->fields)
    if (f.first != key) kept.push_back(f);
  return kept.empty() ? AttrsRef() : makeDictAttrs(std::move(kept));
}

// "op_buffer_transforms[...][1], column 12: unknown name 'j'" with the text and a caret under it.
Error locatedInText(const std::string& label, const std::string& text, const Error& e) {
  if (!e.span.known() || e.span.line != 1) return Error("AlterOpImpl: " + label + ": " + e.message, {}, e.hint);
  std::string caret(e.span.col - 1, ' ');
  caret += '^';
  if (e.span.len > 1) caret += std::string(e.span.len - 1, '~');
  return Error("AlterOpImpl: " + label + ", column " + std::to_string(e.span.col) + ": " + e.message + "\n    " + text + "\n    " + caret, {}, e.hint);
}

// A PrimFunc `name` of the file `path`, parsed with rlx's parser.
Result<PrimFuncRef> primFuncFromFile(const std::string& label, const std::string& path, const std::string& name) {
  DiagnosticEngine diag;
  IRModuleRef m = parseFile(path, diag);
  if (!m) {
    std::string why = diag.render(false);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return Error("AlterOpImpl: " + label + ": cannot use \"" + path + "\":\n" + why);
  }
  auto* entry = m->find(name);
  std::vector<std::string> prims;
  for (auto& e : m->functions)
    if (e.func.is<PrimFunc>()) prims.push_back(e.gvar->name);
  if (!entry) {
    std::string hint = closestName(name, prims);
    return Error("AlterOpImpl: " + label + ": \"" + path + "\" has no function \"" + name + "\"", {}, hint.empty() ? "" : "did you mean '" + hint + "'?");
  }
  auto f = entry->func.as<PrimFunc>();
  if (!f) return Error("AlterOpImpl: " + label + ": \"" + name + "\" in \"" + path + "\" is a Relax function; the replacement must be a T.prim_func");
  return f;
}

Result<std::optional<Separators>> readSeparators(const std::string& option, const std::string& key, const Attr& value) {
  if (!value) return std::optional<Separators>();
  std::string expected = "must be a list with one list of ints per buffer, such as [[1], [1], [], []]";
  if (value->kind != AttrValue::Array) return Error("AlterOpImpl: " + keyStr(option, key) + " " + expected + ", got " + describeOptionValue(value));
  Separators out;
  for (auto& item : value->array) {
    std::vector<int64_t> seps;
    if (item) {
      if (item->kind != AttrValue::Array) return Error("AlterOpImpl: " + keyStr(option, key) + " " + expected + ", got " + describeOptionValue(value));
      for (auto& s : item->array) {
        if (!s || s->kind != AttrValue::Int) return Error("AlterOpImpl: " + keyStr(option, key) + " " + expected + ", got " + describeOptionValue(value));
        seps.push_back(s->i);
      }
    }
    out.push_back(std::move(seps));
  }
  return std::optional<Separators>(std::move(out));
}

// The layout_transform of `x` by `map` (fresh vars) with the given separators.
Expr layoutTransform(const Expr& x, const IndexMap& map, const std::vector<int64_t>& axisSeps, const std::vector<int64_t>& inputAxisSeps) {
  return build::call("layout_transform", {build::e(x)},
                     {{"index_map", index_map::toPy(index_map::withFreshVars(map))}, {"pad_value", PyValue::none()}, {"axis_separators", build::ints(axisSeps)},
                      {"input_axis_separators", build::ints(inputAxisSeps)}});
}

bool isScalarConstant(const Expr& e) {
  auto c = e.as<Constant>();
  return c && c->data->shape.empty();
}

// The module-level state of one run: names in use, functions added, kernels replaced.
struct ModuleState {
  IRModuleRef mod;                      // the input module (callees are looked up here)
  std::set<std::string> names;          // every function name, added ones included
  std::vector<std::pair<GlobalVarRef, Expr>> added;
  std::map<const PrimFunc*, GlobalVarRef> replacements;  // by replacement PrimFunc (TVM's cache)
  std::map<std::pair<size_t, std::string>, GlobalVarRef> removePads;  // by (ndim, dtype)
  std::set<std::string> replaced;       // kernels some call stopped calling

  // <base>, <base>1, ... : the first free name, with characters TVM's name supply would not keep
  // (dots) made underscores.
  std::string freshName(std::string base) {
    for (char& ch : base)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
    std::string name = base;
    for (int n = 1; names.count(name); ++n) name = base + std::to_string(n);
    names.insert(name);
    return name;
  }

  GlobalVarRef add(const std::string& base, Expr func) {
    auto gv = make<GlobalVar>(freshName(base));
    added.emplace_back(gv, std::move(func));
    return gv;
  }
};

// TVM's remove_pad kernel: output[i0, ...] = input[i0, ...] over symbolic shapes, private.
Result<GlobalVarRef> removePadKernel(ModuleState& st, size_t ndim, DataType dtype) {
  auto key = std::make_pair(ndim, dtype.str());
  if (auto it = st.removePads.find(key); it != st.removePads.end()) return it->second;
  std::string ps, is, loops, vs, idx, remap;
  for (size_t k = 0; k < ndim; ++k) {
    std::string n = std::to_string(k), sep = k ? ", " : "";
    ps += sep + "p" + n;
    is += sep + "i" + n;
    loops += sep + "ax" + n;
    vs += sep + "v_ax" + n;
    remap += "S";
  }
  std::string dt = dtype == DataType::float32() ? "" : ", \"" + dtype.str() + "\"";
  std::string text = "@T.prim_func(private=True)\ndef remove_pad(var_input: T.handle, var_output: T.handle):\n"
                     "    T.func_attr({\"operator_name\": \"remove_pad\", \"tir.noalias\": True})\n";
  for (size_t k = 0; k < ndim; ++k) text += "    p" + std::to_string(k) + " = T.int64()\n";
  text += "    input = T.match_buffer(var_input, (" + ps + (ndim == 1 ? "," : "") + ")" + dt + ")\n";
  for (size_t k = 0; k < ndim; ++k) text += "    i" + std::to_string(k) + " = T.int64()\n";
  text += "    output = T.match_buffer(var_output, (" + is + (ndim == 1 ? "," : "") + ")" + dt + ")\n";
  text += "    for " + loops + " in T.grid(" + is + "):\n";
  text += "        with T.block(\"output\"):\n";
  text += "            " + vs + " = T.axis.remap(\"" + remap + "\", [" + loops + "])\n";
  text += "            T.reads(input[" + vs + "])\n            T.writes(output[" + vs + "])\n";
  text += "            output[" + vs + "] = input[" + vs + "]\n";
  DiagnosticEngine diag;
  IRModuleRef m = parseModule(text, "<AlterOpImpl remove_pad>", diag);
  if (!m || m->functions.empty()) return Error("cannot build the remove_pad kernel for " + dtype.str() + ":\n" + diag.render(false));
  GlobalVarRef gv = st.add("remove_pad", m->functions[0].func);
  st.removePads[key] = gv;
  return gv;
}

class ImplAlterer : public BindingRewriter {
 public:
  ImplAlterer(ModuleState& st, const std::map<std::string, OpRule>& rules, const std::map<std::string, PrimFuncRef>& impls) : st_(st), rules_(rules), impls_(impls) {}
  Status status = okStatus();

 protected:
  Expr rewriteValue(const BindingRef& binding, const Expr& value) override {
    if (!status.ok()) return nullptr;
    auto c = value.as<Call>();
    if (!c || c->opName() != "relax.call_tir" || c->args.size() < 2) return nullptr;
    auto gv = c->args[0].as<GlobalVar>();
    auto* entry = gv ? st_.mod->find(gv->name) : nullptr;
    auto old = entry ? entry->func.as<PrimFunc>() : PrimFuncRef();
    if (!old) return nullptr;
    auto kind = attrStr(old->attrs, "operator_name");
    if (!kind || !rules_.count(*kind)) return nullptr;
    auto r = rewrite(*c, *gv, *old, *kind, rules_.at(*kind), impls_.at(*kind));
    if (!r.ok()) {
      Error e = r.error();
      if (!e.span.known()) e.span = binding->span.known() ? binding->span : c->span;
      status = e;
      return nullptr;
    }
    st_.replaced.insert(gv->name);
    return r.value();
  }

 private:
  Result<Expr> rewrite(const Call& c, const GlobalVar& oldGv, const PrimFunc& old, const std::string& kind, const OpRule& rule, const PrimFuncRef& repl) {
    std::string where = "the call of \"" + oldGv.name + "\" (operator_name \"" + kind + "\")";
    auto args = c.args[1].as<Tuple>();
    if (!args) return Error(where + " does not pass its arguments as a tuple");
    if (c.sinfoArgs.size() != 1) return Error(where + " has no out_sinfo");
    size_t nParams = repl->params.size();
    if (old.params.size() != nParams)
      return Error(where + ": the replacement \"" + rule.name + "\" takes " + std::to_string(nParams) + " parameters but \"" + oldGv.name + "\" takes " + std::to_string(old.params.size()));
    const auto& transforms = rule.transforms;
    if (!transforms.empty() && transforms.size() != nParams)
      return Error(where + ": " + keyStr("op_buffer_transforms", kind) + " has " + std::to_string(transforms.size()) + " entries but \"" + rule.name + "\" has " + std::to_string(nParams) +
                   " buffers (one index map or None per input and output)");
    for (auto* seps : {&rule.axisSeparators, &rule.inputAxisSeparators})
      if (*seps && !transforms.empty() && (*seps)->size() != nParams)
        return Error(where + ": " + keyStr(seps == &rule.axisSeparators ? "op_buffer_axis_separators" : "op_buffer_input_axis_separators", kind) + " has " +
                     std::to_string((*seps)->size()) + " entries, one per buffer (" + std::to_string(nParams) + ") expected");
    // The outputs, one tensor each (TVM's pass supports no nested tuples either).
    StructInfo outSInfo = c.sinfoArgs[0];
    auto outTuple = outSInfo.as<TupleSInfo>();
    std::vector<Ref<TensorSInfo>> outs;
    for (auto& s : outTuple ? outTuple->fields : std::vector<StructInfo>{outSInfo}) {
      auto t = s.as<TensorSInfo>();
      if (!t) return Error(where + ": its outputs must be tensors or a tuple of tensors (nested tuples are not supported)");
      outs.push_back(t);
    }
    size_t nIn = args->fields.size();
    if (nIn + outs.size() > nParams) return Error(where + " passes " + std::to_string(nIn + outs.size()) + " buffers but \"" + oldGv.name + "\" takes " + std::to_string(nParams));
    auto seps = [&](const std::optional<Separators>& s, size_t k) { return s && k < s->size() ? (*s)[k] : std::vector<int64_t>{}; };
    auto mapOf = [&](size_t k) -> const IndexMap* { return transforms.empty() || !transforms[k] ? nullptr : &*transforms[k]; };
    auto label = [&](size_t k) { return keyStr("op_buffer_transforms", kind) + "[" + std::to_string(k) + "]"; };

    GlobalVarRef replGv = replacementFor(kind, repl);
    std::vector<Expr> inputs;
    for (size_t k = 0; k < nIn; ++k) {
      const Expr& x = args->fields[k];
      const IndexMap* map = mapOf(k);
      if (!map || isScalarConstant(x)) {
        inputs.push_back(x);
        continue;
      }
      auto t = sinfoOf(x).as<TensorSInfo>();
      if (!t || t->ndim < 0) return Error(where + ": input " + std::to_string(k) + " is not a tensor of known rank, which " + label(k) + " needs");
      if (size_t(t->ndim) != map->params.size())
        return Error(where + ": " + label(k) + " takes " + std::to_string(map->params.size()) + " indices but input " + std::to_string(k) + " has " + std::to_string(t->ndim) + " dimensions");
      inputs.push_back(layoutTransform(x, *map, seps(rule.axisSeparators, k), seps(rule.inputAxisSeparators, k)));
    }
    for (size_t k = 0; k < nIn; ++k) {
      if (!mapOf(k) || isScalarConstant(inputs[k])) continue;
      auto probe = make<Var>("x", sinfoOf(args->fields[k]));
      auto lt = layoutTransform(probe, *mapOf(k), {}, {}).as<Call>();
      RLX_TRY(s, inferCallSInfo(*lt));
      RLX_TRY_STATUS(checkBuffer(where, "input " + std::to_string(k), s, *repl, k, rule.name));
    }
    // The outputs' shapes in the replacement's layout: what layout_transform infers for them.
    std::vector<StructInfo> newOuts;
    for (size_t k = 0; k < outs.size(); ++k) {
      const IndexMap* map = mapOf(nIn + k);
      if (!map) {
        newOuts.push_back(outs[k]);
        continue;
      }
      if (!outs[k]->dims()) return Error(where + ": output " + std::to_string(k) + " has no known shape, which " + label(nIn + k) + " needs");
      if (outs[k]->dims()->size() != map->params.size())
        return Error(where + ": " + label(nIn + k) + " takes " + std::to_string(map->params.size()) + " indices but output " + std::to_string(k) + " has " + std::to_string(outs[k]->dims()->size()) + " dimensions");
      auto probe = make<Var>("x", StructInfo(outs[k]));
      auto lt = layoutTransform(probe, *map, {}, {}).as<Call>();
      RLX_TRY(s, inferCallSInfo(*lt));
      RLX_TRY_STATUS(checkBuffer(where, "output " + std::to_string(k), s, *repl, nIn + k, rule.name));
      newOuts.push_back(s);
    }
    StructInfo newOutSInfo = outTuple ? StructInfo(make<TupleSInfo>(newOuts)) : newOuts[0];
    std::vector<Expr> callArgs = c.args;
    callArgs[0] = replGv;
    callArgs[1] = make<Tuple>(inputs);
    RLX_TRY(updated, builder().normalize(make<Call>(c.op, callArgs, c.attrs, std::vector<StructInfo>{newOutSInfo})));
    if (transforms.empty()) return updated;
    // Each output back to its old layout.
    auto back = [&](const Expr& y, size_t k) -> Result<Expr> {
      const IndexMap* map = mapOf(nIn + k);
      if (!map) return y;
      auto invOr = index_map::inverse(*map, *outs[k]->dims());
      if (!invOr.ok()) return Error(where + ": output " + std::to_string(k) + ": " + invOr.error().message);
      const index_map::Inverse& inv = invOr.value();
      Expr lt = layoutTransform(y, inv.map, seps(rule.axisSeparators, nIn + k), seps(rule.inputAxisSeparators, nIn + k));
      if (!inv.padded) return lt;
      RLX_TRY(padded, builder().normalize(lt));
      RLX_TRY(removePad, removePadKernel(st_, outs[k]->dims()->size(), outs[k]->dtype));
      PyValue out;
      out.kind = PyValue::SInfo;
      out.sinfo = StructInfo(outs[k]);
      return build::call("call_tir", {build::e(removePad), build::e(make<Tuple>(std::vector<Expr>{padded}))}, {{"out_sinfo", out}});
    };
    if (!outTuple) return back(updated, 0);
    Expr tuple = bind(updated);
    std::vector<Expr> fields;
    for (size_t k = 0; k < outs.size(); ++k) {
      RLX_TRY(item, builder().normalize(make<TupleGetItem>(tuple, int(k))));
      RLX_TRY(f, back(item, k));
      fields.push_back(f);
    }
    return Expr(make<Tuple>(fields));
  }

  // A relaid-out operand whose static shape is not the one the replacement's buffer declares
  // would make an ill-typed call (TVM does not check; rlx says which buffer).
  static Status checkBuffer(const std::string& where, const std::string& what, const StructInfo& s, const PrimFunc& repl, size_t param, const std::string& replName) {
    auto t = s.as<TensorSInfo>();
    const BufferRef* buf = param < repl.params.size() ? repl.bufferOf(repl.params[param]) : nullptr;
    if (!t || !t->dims() || !buf) return okStatus();
    const auto& dims = *t->dims();
    const auto& shape = (*buf)->shape;
    bool differs = dims.size() != shape.size();
    for (size_t d = 0; !differs && d < dims.size(); ++d) {
      auto a = constInt(dims[d]), b = constInt(shape[d]);
      differs = a && b && *a != *b;
    }
    if (!differs) return okStatus();
    std::string got, want;
    for (size_t d = 0; d < dims.size(); ++d) got += (d ? ", " : "") + printPrimExpr(dims[d]);
    for (size_t d = 0; d < shape.size(); ++d) want += (d ? ", " : "") + printPrimExpr(shape[d]);
    return Error(where + ": " + what + " becomes (" + got + ") in the new layout but buffer \"" + (*buf)->name + "\" of \"" + replName + "\" is (" + want + ")");
  }

  // The module's copy of the replacement: operator_name set to the op's, private, named
  // <operator_name>_replacement; one per replacement PrimFunc.
  GlobalVarRef replacementFor(const std::string& kind, const PrimFuncRef& repl) {
    if (auto it = st_.replacements.find(repl.get()); it != st_.replacements.end()) return it->second;
    AttrsRef attrs = withoutAttr(withDictAttr(repl->attrs, "operator_name", AttrValue::str(kind)), "global_symbol");
    GlobalVarRef gv = st_.add(kind + "_replacement", withPrimFuncAttrs(*repl, attrs));
    st_.replacements[repl.get()] = gv;
    return gv;
  }

  ModuleState& st_;
  const std::map<std::string, OpRule>& rules_;
  const std::map<std::string, PrimFuncRef>& impls_;
};

Result<IRModuleRef> alterOpImpl(const IRModuleRef& mod, const PassContext& ctx, const std::map<std::string, OpRule>& rules) {
  if (rules.empty()) return mod;
  // The replacements: from their files, or functions of this module.
  std::map<std::string, PrimFuncRef> impls;
  std::set<std::string> sources;
  std::vector<std::string> names;
  for (auto& e : mod->functions) names.push_back(e.gvar->name);
  for (auto& [kind, rule] : rules) {
    if (rule.external) {
      impls[kind] = rule.external;
      continue;
    }
    auto* entry = mod->find(rule.name);
    if (!entry) {
      std::string hint = closestName(rule.name, names);
      return Error(keyStr("op_impl_map", kind) + " names \"" + rule.name + "\", which is not a function of the module (write \"FILE.relax:" + rule.name + "\" for one in another file)", {},
                   hint.empty() ? "" : "did you mean '" + hint + "'?");
    }
    auto f = entry->func.as<PrimFunc>();
    if (!f) return Error(keyStr("op_impl_map", kind) + " names \"" + rule.name + "\", a Relax function; the replacement must be a T.prim_func");
    impls[kind] = f;
    sources.insert(rule.name);
  }
  ModuleState st;
  st.mod = mod;
  st.names.insert(names.begin(), names.end());
  IRModuleRef out = mod;
  for (auto& e : mod->functions) {
    if (!e.func.is<Function>() || !ctx.inScope(e.gvar->name)) continue;
    ImplAlterer alterer(st, rules, impls);
    Expr f = alterer.mutate(e.func);
    if (!alterer.status.ok()) return alterer.status.error();
    if (!f.same(e.func)) out = withFunction(out, e.gvar, f);
  }
  if (st.added.empty()) return mod;
  for (auto& [gv, f] : st.added) out = withFunction(out, gv, f);
  // Kernels left uncalled go when private (public ones are entry points).
  std::vector<std::string> relaxFunctions;
  for (auto& e : out->functions)
    if (e.func.is<Function>()) relaxFunctions.push_back(e.gvar->name);
  std::set<std::string> used = reachableFunctions(out, relaxFunctions), keep;
  for (auto& e : out->functions) {
    bool candidate = st.replaced.count(e.gvar->name) || sources.count(e.gvar->name);
    if (!candidate || used.count(e.gvar->name)) keep.insert(e.gvar->name);
  }
  return keepFunctions(out, keep);
}

// An operator_name the other options name but op_impl_map does not (TVM ignores it; here it is
// most likely a typo, so it is an error).
Error unmatchedKey(const std::string& option, const std::string& kind, const std::map<std::string, OpRule>& rules) {
  std::vector<std::string> keys;
  for (auto& [k, r] : rules) keys.push_back(k);
  std::string hint = closestName(kind, keys);
  return Error("AlterOpImpl: " + keyStr(option, kind) + " names an operator_name op_impl_map has no replacement for", {}, hint.empty() ? "" : "did you mean '" + hint + "'?");
}

}  // namespace

Result<Pass> createAlterOpImplPass(PassOptions& options) {
  std::map<std::string, OpRule> rules;
  auto implMap = options.dict("op_impl_map");
  for (auto& [kind, value] : implMap.value_or(std::vector<std::pair<std::string, Attr>>{})) {
    std::string label = keyStr("op_impl_map", kind);
    if (!value || value->kind != AttrValue::Str || value->s.empty())
      return Error("AlterOpImpl: " + label + " must be a string naming the replacement PrimFunc: \"add_2d\" (a function of the module) or \"FILE.relax:add_2d\", got " +
                   (value ? describeOptionValue(value) : std::string("None")));
    OpRule rule;
    auto colon = value->s.rfind(':');
    if (colon == std::string::npos) {
      rule.name = value->s;
    } else {
      std::string path = value->s.substr(0, colon);
      rule.name = value->s.substr(colon + 1);
      if (path.empty() || rule.name.empty()) return Error("AlterOpImpl: " + label + " must be \"FILE.relax:FUNCTION\", got \"" + value->s + "\"");
      RLX_TRY(f, primFuncFromFile(label, path, rule.name));
      rule.external = f;
    }
    rules[kind] = std::move(rule);
  }
  auto transforms = options.dict("op_buffer_transforms");
  for (auto& [kind, value] : transforms.value_or(std::vector<std::pair<std::string, Attr>>{})) {
    std::string label = keyStr("op_buffer_transforms", kind);
    if (!value) continue;
    if (value->kind != AttrValue::Array)
      return Error("AlterOpImpl: " + label + " must be a list of index maps (\"lambda i: (i // 4, i % 4)\") or None, one per buffer, got " + describeOptionValue(value));
    std::vector<std::optional<IndexMap>> maps;
    for (size_t k = 0; k < value->array.size(); ++k) {
      const Attr& item = value->array[k];
      std::string itemLabel = label + "[" + std::to_string(k) + "]";
      if (!item) {
        maps.push_back(std::nullopt);
        continue;
      }
      if (item->kind != AttrValue::Str) return Error("AlterOpImpl: " + itemLabel + " must be an index map as text (\"lambda i: (i // 4, i % 4)\") or None, got " + describeOptionValue(item));
      auto parsed = parseIndexMap(item->s, itemLabel);
      if (!parsed.ok()) return locatedInText(itemLabel, item->s, parsed.error());
      maps.push_back(index_map::fromPy(parsed.value()));
    }
    if (!rules.count(kind)) return unmatchedKey("op_buffer_transforms", kind, rules);
    rules[kind].transforms = std::move(maps);
  }
  for (const char* option : {"op_buffer_axis_separators", "op_buffer_input_axis_separators"}) {
    auto seps = options.dict(option);
    for (auto& [kind, value] : seps.value_or(std::vector<std::pair<std::string, Attr>>{})) {
      RLX_TRY(s, readSeparators(option, kind, value));
      if (!rules.count(kind)) return unmatchedKey(option, kind, rules);
      (std::string(option) == "op_buffer_axis_separators" ? rules[kind].axisSeparators : rules[kind].inputAxisSeparators) = std::move(s);
    }
  }
  return Pass({"AlterOpImpl", 0, {}}, [rules](const IRModuleRef& mod, const PassContext& ctx) { return alterOpImpl(mod, ctx, rules); });
}

}  // namespace rlx
