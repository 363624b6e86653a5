// FuseOpsByPattern: TVM's relax.transform.FuseOpsByPattern with a textual pattern table
// (passes/pattern.h). Each pattern, in table order, is matched at every call binding of every
// dataflow block; a match groups the root binding with the bindings its call and tuple-field
// nodes matched, and each group is outlined (passes/function_outliner.h, FuseOps' machinery) into
// a private function {Composite: name, Primitive: True}. Why: BYOC flows hand these composite
// functions to an external codegen (MergeCompositeFunctions, RunCodegen).
// A match is dropped when one of its inner bindings already belongs to a match of the same pattern;
// bindings fused by an earlier pattern are calls of its function and no longer match.
// bind_constants=True keeps constants inside the composite function; False makes them parameters.
// annotate_codegen=True wraps each composite function in a public function named
// <composite fn>_<codegen> with {Codegen: <codegen>, global_symbol} whose body calls a local copy
// of it (without Primitive); the codegen is the pattern name up to its first dot.
// Before: lv = R.nn.conv2d(x, w); gv = R.nn.relu(lv)  with ("dnnl.conv2d_relu", "nn.relu(nn.conv2d(_, _))")
// After:  gv = cls.fused_relax_nn_conv2d_relax_nn_relu(x, w), the two bindings moved into it.
#include <unordered_map>

#include "ir/expr_mutator.h"
#include "passes/composite.h"
#include "passes/copy_with_new_vars.h"
#include "passes/function_outliner.h"

namespace rlx {

namespace {

// Union-find over params and binding vars: a match joins its inner bindings to the root's group.
struct Groups {
  std::vector<size_t> parent, size;
  size_t add() {
    parent.push_back(parent.size());
    size.push_back(1);
    return parent.size() - 1;
  }
  size_t find(size_t n) {
    while (parent[n] != n) n = parent[n] = parent[parent[n]];
    return n;
  }
};

IRModuleRef applyPattern(const IRModuleRef& mod, const NamedPattern& np, bool bindConstants) {
  fusion::Grouping grouping;
  grouping.liftConstants = !bindConstants;
  Groups groups;
  auto node = [&](const Object* key) {
    size_t n = groups.add();
    grouping.index[key] = n;
    return n;
  };
  bool matched = false;
  for (auto& e : mod->functions) {
    if (!fusion::isFusionTarget(e.func)) continue;
    auto f = e.func.as<Function>();
    for (auto& p : f->params) node(p.get());
    auto seq = f->body.as<SeqExpr>();
    if (!seq) continue;
    for (auto& block : seq->blocks) {
      std::unordered_map<const Var*, Expr> bindings;  // earlier var bindings of this block
      for (auto& b : block->bindings) {
        size_t n = node(b->var.get());
        if (!block->isDataflow() || b->isMatchCast()) continue;
        if (b->value.is<Call>()) {
          if (auto m = matchPattern(*np.pattern, *b, bindings)) {
            bool taken = false;
            for (size_t i = 1; i < m->vars.size(); ++i) taken |= groups.size[groups.find(grouping.index.at(m->vars[i]))] > 1;
            if (!taken) {
              matched = true;
              grouping.attrs[n] = {{"Composite", AttrValue::str(np.name)}};
              for (size_t i = 1; i < m->vars.size(); ++i) {
                size_t inner = groups.find(grouping.index.at(m->vars[i]));
                groups.parent[inner] = n;
                groups.size[n] += groups.size[inner];
              }
            }
          }
        }
        bindings[b->var.get()] = b->value;
      }
    }
  }
  if (!matched) return mod;
  grouping.part.root.resize(groups.parent.size());
  for (size_t i = 0; i < groups.parent.size(); ++i) grouping.part.root[i] = groups.find(i);
  grouping.part.size = groups.size;
  return fusion::outlineGroups(mod, grouping);
}

FunctionRef withSInfo(FunctionRef f) {
  std::vector<StructInfo> params;
  for (auto& p : f->params) params.push_back(p->sinfo);
  f->sinfo = make<FuncSInfo>(std::move(params), f->retSInfo, f->isPure);
  return f;
}

AttrsRef withoutAttr(const AttrsRef& attrs, const std::string& key) {
  std::vector<std::pair<std::string, Attr>> kept;
  if (attrs)
    for (auto& kv : attrs->fields)
      if (kv.first != key) kept.push_back(kv);
  return kept.empty() ? AttrsRef() : makeDictAttrs(std::move(kept));
}

// TVM's CompositeFunctionAnnotator: calls of composite functions become calls of their public
// Codegen wrappers; the composite functions themselves leave the module.
class CodegenAnnotator : public ExprMutator {
 public:
  explicit CodegenAnnotator(IRModuleRef& mod) : mod_(mod), original_(mod) {}

 protected:
  Expr visitCall(const Ref<Call>& c) override {
    Expr out = ExprMutator::visitCall(c);
    auto call = out.as<Call>();
    auto gv = call->op.as<GlobalVar>();
    auto f = gv ? original_->lookup(gv->name).as<Function>() : nullptr;
    auto composite = f ? attrStr(f->attrs, "Composite") : std::nullopt;
    if (!composite) return out;
    auto wrapper = wrap(*gv, f, codegenOfComposite(*composite));
    auto nc = make<Call>(wrapper, call->args, call->attrs, call->sinfoArgs);
    nc->sinfo = call->sinfo;
    nc->span = call->span;
    return nc;
  }

 private:
  IRModuleRef& mod_;
  IRModuleRef original_;
  std::unordered_map<std::string, GlobalVarRef> wrappers_;

  GlobalVarRef wrap(const GlobalVar& gv, const FunctionRef& compositeRef, const std::string& codegen) {
    const Function& composite = *compositeRef;
    if (auto it = wrappers_.find(gv.name); it != wrappers_.end()) return it->second;
    std::string name = gv.name + "_" + codegen;
    for (int i = 1; mod_->find(name); ++i) name = gv.name + "_" + codegen + std::to_string(i);
    auto inner = localCompositeCopy(compositeRef);
    std::vector<VarRef> params;
    std::vector<Expr> args;
    for (auto& p : composite.params) {
      params.push_back(make<Var>(p->name, p->sinfo));
      args.push_back(params.back());
    }
    auto local = make<Var>(gv.name, inner->sinfo);
    auto call = make<Call>(local, std::move(args));
    call->sinfo = composite.retSInfo;
    auto result = make<Var>("gv", composite.retSInfo);
    auto block = make<BindingBlock>(std::vector<BindingRef>{make<Binding>(local, inner), make<Binding>(result, call)}, false);
    auto seq = make<SeqExpr>(std::vector<BlockRef>{block}, result);
    seq->sinfo = result->sinfo;
    auto attrs = makeDictAttrs({{"Codegen", AttrValue::str(codegen)}, {"global_symbol", AttrValue::str(name)}});
    auto outer = withSInfo(make<Function>(std::move(params), seq, composite.retSInfo, inner->isPure, attrs));
    auto ngv = make<GlobalVar>(name);
    ngv->sinfo = outer->sinfo;
    // The composite function leaves the module; its wrapper takes its place.
    auto out = make<IRModule>();
    out->attrs = mod_->attrs;
    out->globalInfos = mod_->globalInfos;
    for (auto& e : mod_->functions)
      if (e.gvar->name != gv.name) out->functions.push_back(e);
    mod_ = withFunction(out, ngv, outer);
    wrappers_[gv.name] = ngv;
    return ngv;
  }
};

IRModuleRef annotateCodegen(const IRModuleRef& mod) {
  IRModuleRef out = mod;
  CodegenAnnotator annotator(out);
  for (auto& e : mod->functions) {
    auto f = e.func.as<Function>();
    if (!f || attrStr(f->attrs, "Composite")) continue;
    Expr nf = annotator.mutate(e.func);
    if (!nf.same(e.func)) out = withFunction(out, e.gvar, nf);
  }
  return out;
}

// Pipeline errors reach the CLI, the shell and `rlx test` as one message: the pattern's line and a
// caret under the bad token go into it.
Error locatedInMessage(const Error& e, const std::string& name) {
  if (!e.span.known()) return Error("pattern '" + name + "': " + e.message, {}, e.hint);
  std::string text(sources::line(e.span.file, e.span.line));
  std::string where = e.span.line > 1 ? "line " + std::to_string(e.span.line) + ", column " : "column ";
  std::string caret(e.span.col - 1, ' ');
  for (size_t i = 0; i + 1 < e.span.col && i < text.size(); ++i)
    if (text[i] == '\t') caret[i] = '\t';
  caret += '^';
  if (e.span.len > 1) caret += std::string(e.span.len - 1, '~');
  return Error("pattern '" + name + "', " + where + std::to_string(e.span.col) + ": " + e.message + "\n    " + text + "\n    " + caret, {}, e.hint);
}

}  // namespace

std::string codegenOfComposite(const std::string& composite) {
  auto dot = composite.find('.');
  return dot == std::string::npos ? std::string() : composite.substr(0, dot);
}

FunctionRef localCompositeCopy(const FunctionRef& f) {
  auto copy = copyWithNewVars(f).as<Function>();
  auto out = make<Function>(copy->params, copy->body, copy->retSInfo, copy->isPure, withoutAttr(copy->attrs, "Primitive"));
  out->span = f->span;
  return withSInfo(out);
}

Result<std::vector<NamedPattern>> readPatternTable(PassOptions& options, const std::string& key) {
  std::vector<NamedPattern> table;
  auto raw = options.raw(key);
  if (!raw || !*raw) return table;
  const std::string expected = "a list of (\"name\", \"PATTERN\") tuples";
  if ((*raw)->kind != AttrValue::Array) {
    options.wrongType(key, expected);
    return table;
  }
  for (auto& item : (*raw)->array) {
    if (!item || item->kind != AttrValue::Array || item->array.size() != 2 || !item->array[0] || !item->array[1] ||
        item->array[0]->kind != AttrValue::Str || item->array[1]->kind != AttrValue::Str) {
      return Error("option '" + key + "' expects " + expected + ", got the entry " + (item ? describeOptionValue(item) : std::string("None")));
    }
    const std::string& name = item->array[0]->s;
    if (name.empty()) return Error("option '" + key + "': a pattern name must not be empty");
    auto pattern = parsePattern(item->array[1]->s, "pattern '" + name + "'");
    if (!pattern.ok()) return locatedInMessage(pattern.error(), name);
    table.push_back({name, pattern.value()});
  }
  return table;
}

IRModuleRef fuseOpsByPattern(const IRModuleRef& mod, const std::vector<NamedPattern>& patterns, bool bindConstants, bool annotate) {
  IRModuleRef out = mod;
  for (auto& p : patterns) out = applyPattern(out, p, bindConstants);
  if (annotate) out = annotateCodegen(out);  // composites made earlier are wrapped too, as in TVM
  return out;
}

Result<Pass> createFuseOpsByPatternPass(PassOptions& options) {
  RLX_TRY(patterns, readPatternTable(options, "patterns"));
  bool bindConstants = options.boolean("bind_constants").value_or(true);
  bool annotate = options.boolean("annotate_codegen").value_or(false);
  if (annotate)
    for (auto& p : patterns)
      if (codegenOfComposite(p.name).empty())
        return Error("FuseOpsByPattern(annotate_codegen=True): pattern name '" + p.name + "' must start with its codegen and a dot (\"dnnl." + p.name + "\")");
  return Pass({"FuseOpsByPattern", 0, {}}, [patterns, bindConstants, annotate](const IRModuleRef& mod, const PassContext&) -> Result<IRModuleRef> {
    return fuseOpsByPattern(mod, patterns, bindConstants, annotate);
  });
}

}  // namespace rlx
