// The binding-name table of one export, shared by every function it emits (TVM's NameSupply):
// '.' becomes '_', and a repeated name gets a counter appended (add, add1; split_0, split_01).
#pragma once
#include <map>
#include <string>

namespace rlx::nn {

class NameSupply {
 public:
  // A fresh name derived from `hint`, recorded as used.
  std::string fresh(const std::string& hint);
  // Marks `name` as used without renaming it (method names).
  void reserve(const std::string& name);

 private:
  std::map<std::string, int> counters_;
};

}  // namespace rlx::nn
