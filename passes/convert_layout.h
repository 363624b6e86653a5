// ConvertLayout's internals shared by the mutator (convert_layout.cc) and the per-op layout rules
// (convert_layout_ops.cc): nested layout decisions and the rule table's interface.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "passes/layout.h"

namespace rlx::convert_layout {

// The layout decision of a value, mirroring its struct info: a leaf (a tensor's abstract layout,
// "" for a scalar) or the fields of a tuple. `unknown` marks values whose rank is not known and
// non-tensors: they are never converted.
struct NLayout {
  bool isLeaf = true;
  bool unknown = false;
  std::string name;
  std::vector<NLayout> fields;

  static NLayout leaf(std::string n) { return NLayout{true, false, std::move(n), {}}; }
  static NLayout unknownDim() { return NLayout{true, true, "", {}}; }
  static NLayout tuple(std::vector<NLayout> f) { return NLayout{false, false, "", std::move(f)}; }
  bool operator==(const NLayout& o) const;
  bool operator!=(const NLayout& o) const { return !(*this == o); }
};

// The layout every value starts from: its original dims in order.
NLayout initialNLayout(const StructInfo& s);

// What a rule sees: the desired layouts and the current layout of any argument.
class RuleContext {
 public:
  virtual ~RuleContext() = default;
  // The desired layouts given for `op` (its Relax name), or null.
  virtual const std::vector<std::string>* desired(const std::string& op) const = 0;
  virtual NLayout layoutOf(const Expr& e) const = 0;
  // The leaf decision of a tensor argument (its initial layout when unknown).
  std::string leafOf(const Expr& e) const;
};

// What a rule decides: the layout each leading argument is converted to, the result's layout, and
// the rewritten attrs / arguments (null / absent = unchanged).
struct LayoutDecision {
  std::vector<NLayout> inputs;
  NLayout output;
  AttrsRef attrs;
  std::map<size_t, Expr> args;
};

// A rule gets the original call (original argument shapes); nullopt means "no opinion": the
// default policy converts every argument back to its initial layout.
using LayoutRule = std::function<std::optional<LayoutDecision>(const RuleContext&, const Call&)>;

// The rule of op `name` ("relax.nn.conv2d"), or null.
const LayoutRule* findLayoutRule(const std::string& name);
// Whether the op takes an entry in desired_layouts (the convolutions and resizes).
bool acceptsDesiredLayout(const std::string& name);
// The primal axes a desired layout of op `name` must hold at `position` (0 data, 1 kernel, 2
// output), in canonical order: "NCHW" for conv2d's data, "OIHW" for its kernel.
std::string desiredLayoutAxes(const std::string& name, size_t position);

}  // namespace rlx::convert_layout
