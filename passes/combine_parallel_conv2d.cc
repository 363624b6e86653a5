// CombineParallelConv2D(min_num_branches=3): merges parallel 2-D convolutions of one input into a
// single convolution (Relay's CombineParallelConv2D; TVM Relax has no such pass).
// Why: one convolution with more output channels (the branches of an Inception block) makes
// better use of the machine than several small ones.
// Relax semantics: within a dataflow block, at least min_num_branches bindings
// `y_i = R.nn.conv2d(x, w_i, ...)` on the same input var x with equal attrs (strides, padding,
// dilation, groups, layouts, out_dtype) and weights equal in every dim but the output-channel one
// (kernel size, input channels, dtype) become
//   lv = R.concat((w_0, w_1, ...), axis=<O of kernel_layout>); lv1 = R.nn.conv2d(x, lv, ...)
//   s = R.split(lv1, indices_or_sections=<running channel counts>, axis=<C of the output layout>)
//   y_i = s[i]
// placed where the first branch was (the same machinery as CombineParallelMatmul). Only groups=1
// (a grouped convolution's groups would change), unpacked layouts, and constant channel counts
// except for the last branch. Unlike Relay, the element-wise ops after the convolutions (bias,
// activation) are not folded into the combined one; they stay after the split.
// Unused bindings are removed afterwards.
#include <algorithm>
#include <map>

#include "ir/arith.h"
#include "ir/ops/infer_util.h"
#include "ir/structural_equal.h"
#include "passes/combine_parallel.h"
#include "passes/op_builder.h"
#include "passes/registry.h"

namespace rlx {

namespace {

using namespace build;

bool unpacked(const std::string& layout) {
  return std::none_of(layout.begin(), layout.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); });
}

struct ConvBranch {
  const Binding* binding;
  const Call* conv;
  const std::vector<PrimExpr>* weight;
};

class Conv2DCombiner {
 public:
  explicit Conv2DCombiner(int64_t minBranches) : minBranches_(std::max<int64_t>(minBranches, 2)) {}

  std::vector<ParallelCombination> plan(const BindingBlock& block) const {
    // Candidate convolutions by input var, in block order.
    std::vector<const Var*> order;
    std::map<const Var*, std::vector<ConvBranch>> byInput;
    for (auto& b : block.bindings) {
      auto c = b->value.as<Call>();
      if (b->isMatchCast() || !c || c->opName() != "relax.nn.conv2d" || c->args.size() != 2) continue;
      auto x = c->args[0].as<Var>();
      auto w = sinfoOf(c->args[1]).as<TensorSInfo>();
      if (!x || !w || !w->dims() || w->dims()->size() != 4 || ops::attrInt(*c, "groups", 1) != 1) continue;
      std::string kl = ops::attrString(*c, "kernel_layout", "OIHW"), dl = ops::attrString(*c, "data_layout", "NCHW"), ol = ops::attrString(*c, "out_layout", dl);
      if (!unpacked(kl) || !unpacked(dl) || !unpacked(ol) || kl.find('O') == std::string::npos || ol.find('C') == std::string::npos) continue;
      if (!byInput.count(x.get())) order.push_back(x.get());
      byInput[x.get()].push_back({b.get(), c.get(), w->dims()});
    }
    std::vector<ParallelCombination> out;
    for (auto* x : order) {
      // Split the branches on one input into classes of combinable convolutions (first come first).
      std::vector<std::vector<const ConvBranch*>> classes;
      for (auto& br : byInput[x]) {
        auto it = std::find_if(classes.begin(), classes.end(), [&](auto& cls) { return compatible(*cls[0], br); });
        if (it == classes.end()) classes.push_back({&br});
        else it->push_back(&br);
      }
      for (auto& cls : classes)
        if (auto combo = combine(cls)) out.push_back(*combo);
    }
    return out;
  }

 private:
  static size_t outChannelAxis(const Call& c) { return ops::attrString(c, "kernel_layout", "OIHW").find('O'); }

  static bool compatible(const ConvBranch& a, const ConvBranch& b) {
    if (!structuralEqual(a.conv->attrs, b.conv->attrs)) return false;
    if (sinfoOf(a.conv->args[1]).as<TensorSInfo>()->dtype != sinfoOf(b.conv->args[1]).as<TensorSInfo>()->dtype) return false;
    size_t o = outChannelAxis(*a.conv);
    for (size_t k = 0; k < 4; ++k)
      if (k != o && !proveEqual((*a.weight)[k], (*b.weight)[k])) return false;
    return true;
  }

  std::optional<ParallelCombination> combine(std::vector<const ConvBranch*> members) const {
    size_t o = outChannelAxis(*members[0]->conv);
    auto channels = [&](const ConvBranch* b) { return (*b->weight)[o]; };
    // Constant channel counts first; one symbolic count at most, last (split needs constant indices).
    std::stable_sort(members.begin(), members.end(), [&](auto* a, auto* b) { return !asIntImm(channels(a)) < !asIntImm(channels(b)); });
    auto dyn = std::find_if(members.begin(), members.end(), [&](auto* b) { return !asIntImm(channels(b)); });
    if (dyn != members.end()) members.erase(dyn + 1, members.end());
    if (int64_t(members.size()) < minBranches_) return std::nullopt;
    const Call& first = *members[0]->conv;
    ParallelCombination combo;
    std::vector<Expr> weights;
    std::vector<int64_t> sections;
    int64_t running = 0;
    for (size_t k = 0; k < members.size(); ++k) {
      weights.push_back(members[k]->conv->args[1]);
      combo.outputs.push_back(members[k]->binding->var);
      if (k + 1 < members.size()) sections.push_back(running += asIntImm(channels(members[k]))->value);
    }
    // The combined convolution: the first branch's call with the concatenated weight.
    Expr weight = call("concat", {e(make<Tuple>(weights))}, {{"axis", i(int64_t(o))}});
    auto conv = make<Call>(first.op, std::vector<Expr>{first.args[0], weight}, first.attrs, first.sinfoArgs);
    std::string dl = ops::attrString(first, "data_layout", "NCHW");
    int64_t axis = int64_t(ops::attrString(first, "out_layout", dl).find('C'));
    combo.combined = call("split", {e(conv), ints(sections)}, {{"axis", i(axis)}});
    return combo;
  }

  int64_t minBranches_;
};

}  // namespace

Result<Pass> createCombineParallelConv2DPass(PassOptions& options) {
  int64_t minBranches = options.integer("min_num_branches").value_or(3);
  if (minBranches < 1) return Error("CombineParallelConv2D: min_num_branches must be at least 1");
  Conv2DCombiner combiner(minBranches);
  return makeFunctionPass({"CombineParallelConv2D", 4, {}}, [combiner](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    return combineParallelBranches(func, [&](const BindingBlock& b) { return combiner.plan(b); });
  });
}

}  // namespace rlx
