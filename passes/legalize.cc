// Legalize (Relay's name and option): runs the op-level rewrite hooks of one table over every call
// binding, e.g. rlx's CPU target widening 8-bit integer GEMMs and convolutions to int32 operands.
// Relax semantics (TVM Relax has no such pass; its LegalizeOps lowers ops to TIR, a different job):
// a Relax -> Relax rewrite per op, before LegalizeOps, with the same result as the op it replaces.
// Hooks live in a registry keyed by table and op name (passes/legalize_hooks.h), so a target adds
// its rewrites without touching this pass.
//
// The "FTVMLegalize" table (rlx's CPU target, which has no 8-bit dot-product instructions, like
// Relay's x86 legalization for CPUs without VNNI): R.matmul and R.nn.conv1d/2d/3d(_transpose) of two
// 8-bit integer tensors whose result is int32 read int32 copies of their operands:
//   Before: `y = R.matmul(a, b, out_dtype="int32")` with a, b int8
//   After:  `y = R.matmul(R.astype(a, "int32"), R.astype(b, "int32"), out_dtype="int32")`
#include <algorithm>
#include <map>
#include <mutex>

#include "ir/struct_info.h"
#include "passes/binding_rewriter.h"
#include "passes/legalize_hooks.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using HookTable = std::map<std::string, std::map<std::string, LegalizeHook>>;

bool isByteInt(const Expr& e) {
  auto t = sinfoOf(e).as<TensorSInfo>();
  return t && (t->dtype.isInt() || t->dtype.isUInt()) && t->dtype.bits == 8 && t->dtype.lanes == 1;
}

// Widen both 8-bit operands of a GEMM-like call that accumulates into int32.
Expr widenByteOperands(const Call& c) {
  auto out = c.sinfo ? c.sinfo.as<TensorSInfo>() : Ref<TensorSInfo>();
  if (c.args.size() < 2 || !out || out->dtype != DataType::int32() || !isByteInt(c.args[0]) || !isByteInt(c.args[1])) return nullptr;
  std::vector<Expr> args = c.args;
  for (int k = 0; k < 2; ++k) args[size_t(k)] = build::call("astype", {build::e(c.args[size_t(k)]), build::s("int32")});
  return make<Call>(c.op, args, c.attrs, c.sinfoArgs);
}

HookTable& tables() {
  static HookTable t = [] {
    HookTable init;
    for (const char* op : {"relax.matmul", "relax.nn.conv1d", "relax.nn.conv2d", "relax.nn.conv3d", "relax.nn.conv1d_transpose", "relax.nn.conv2d_transpose"})
      init["FTVMLegalize"][op] = widenByteOperands;
    return init;
  }();
  return t;
}

std::mutex& tablesMutex() {
  static std::mutex m;
  return m;
}

class HookRewriter : public BindingRewriter {
 public:
  explicit HookRewriter(std::string table) : table_(std::move(table)) {}

 protected:
  Expr rewriteValue(const BindingRef&, const Expr& value) override {
    auto c = value.as<Call>();
    if (!c || !c->op.is<Op>()) return nullptr;
    const LegalizeHook* hook = findLegalizeHook(table_, c->opName());
    return hook ? (*hook)(*c) : nullptr;
  }

 private:
  std::string table_;
};

}  // namespace

const LegalizeHook* findLegalizeHook(const std::string& table, const std::string& op) {
  std::lock_guard<std::mutex> lock(tablesMutex());
  auto t = tables().find(table);
  if (t == tables().end()) return nullptr;
  auto h = t->second.find(op);
  return h == t->second.end() ? nullptr : &h->second;
}

std::vector<std::string> legalizeTables() {
  std::lock_guard<std::mutex> lock(tablesMutex());
  std::vector<std::string> out;
  for (auto& [name, hooks] : tables()) out.push_back(name);
  return out;
}

void registerLegalizeHook(const std::string& table, const std::string& op, LegalizeHook hook) {
  std::lock_guard<std::mutex> lock(tablesMutex());
  tables()[table][op] = std::move(hook);
}

Result<Pass> createLegalizePass(PassOptions& options) {
  std::string table = options.string("legalize_map_attr_name").value_or("FTVMLegalize");
  auto known = legalizeTables();
  if (std::find(known.begin(), known.end(), table) == known.end()) {
    std::string list;
    for (auto& k : known) list += (list.empty() ? "" : ", ") + ("\"" + k + "\"");
    return Error("Legalize: no rewrite hooks are registered under legalize_map_attr_name=\"" + table + "\"", {}, "tables with hooks: " + list);
  }
  return makeFunctionPass({"Legalize", 1, {}}, [table](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    HookRewriter r(table);
    return r.mutate(func);
  });
}

}  // namespace rlx
