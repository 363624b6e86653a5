// Mutator::visit (see mutator.h).
#include "frontend/nn/mutator.h"

namespace rlx::nn {

std::shared_ptr<Module> Mutator::visit(const std::string& name, const std::shared_ptr<Module>& node) {
  // Copy the slot list: replacement edits the slots, not the list.
  auto slots = node->children();
  for (auto& slot : slots) {
    std::string child = name.empty() ? slot->name : name + "." + slot->name;
    if (slot->param) {
      auto p = visitParam(child, slot->param);
      if (p != slot->param) orThrow(node->replaceParameter(slot->name, p));
    } else if (slot->effect) {
      auto e = visitEffect(child, slot->effect);
      if (e != slot->effect) orThrow(node->replaceEffect(slot->name, e));
    } else if (slot->module) {
      std::shared_ptr<Module> m;
      if (auto list = std::dynamic_pointer_cast<ModuleList>(slot->module)) m = visitModuleList(child, list);
      else m = visitModule(child, slot->module);
      if (m != slot->module) orThrow(node->replaceModule(slot->name, m));
    }
  }
  return node;
}

}  // namespace rlx::nn
