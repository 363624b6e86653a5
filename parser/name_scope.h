// NameScope: the Relax names one scope of a function body binds (vars, local functions), with an
// open-addressing index for lookups and the declaration order kept for "did you mean" suggestions.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/expr.h"
#include "ir/flat_map.h"

namespace rlx {

// A node-based std::unordered_map cost one allocation and a few cache misses per name, and its
// iteration order (which decided ties between equally close suggestions) was the hash table's.
// Here names live in a vector in the order they were first bound; the index maps a name to its slot.
class NameScope {
 public:
  const Expr* find(const std::string& name) const {
    const uint32_t* i = index_.find(name);
    return i ? &entries_[*i].value : nullptr;
  }
  // Binds `name`; rebinding keeps the name's place in the order.
  void define(const std::string& name, Expr value) {
    bool inserted;
    uint32_t& i = index_.emplace(name, inserted);
    if (inserted) {
      i = uint32_t(entries_.size());
      entries_.push_back({name, std::move(value)});
    } else {
      entries_[i].value = std::move(value);
    }
  }
  void erase(const std::string& name) {
    const uint32_t* i = index_.find(name);
    if (!i) return;
    entries_[*i] = {};  // a hole in the order: an empty name is never a binding
    index_.erase(name);
  }
  // Visits the bound names from the most recently declared to the oldest.
  template <typename F>
  void forEachNewestFirst(F&& f) const {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
      if (!it->name.empty()) f(it->name);
  }

 private:
  struct Entry {
    std::string name;
    Expr value;
  };
  std::vector<Entry> entries_;
  FlatMap<std::string, uint32_t> index_;
};

}  // namespace rlx
