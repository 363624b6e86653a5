// TopologicalSort: reorders the bindings of every dataflow block by a depth-first or breadth-first
// walk of the function's def-use graph, from its inputs or from its outputs (TVM's pass).
// Why: a canonical binding order (e.g. each chain of producers right before its consumer) makes
// modules built in different orders compare equal and keeps related work together.
// The graph spans the whole function: an extra "inputs" node feeds the parameters and every binding
// that uses no var (constants); an extra "outputs" node uses the function's result and every
// binding nobody uses, so every binding is reached from either end. A binding is emitted once all
// the nodes it depends on (from-inputs) or all its users (from-outputs) have been visited; the
// from-outputs order is built backwards and reversed. Non-dataflow blocks keep their order
// (they may hold side effects).
// Options: order="depth-first" | "breadth-first", direction="from-inputs" | "from-outputs".
// Before (depth-first, from-inputs): `b1 = c1; b2 = c2; x2 = f(a, b2); x1 = f(a, b1); y = g(x1, x2)`
// After:                              `b1 = c1; x1 = f(a, b1); b2 = c2; x2 = f(a, b2); y = g(x1, x2)`
#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "ir/expr_mutator.h"
#include "passes/registry.h"

namespace rlx {

namespace {

// A node of the def-use graph: a var, or one of the two sentinels below.
using Node = const void*;
const char kInputs = 0, kOutputs = 0;
constexpr Node inputsNode() { return &kInputs; }
constexpr Node outputsNode() { return &kOutputs; }

struct Dependencies {
  std::unordered_map<Node, std::deque<Node>> users;     // node -> the bindings that use it
  std::unordered_map<Node, std::deque<Node>> needs;  // binding -> the nodes it uses
};

// Records, in visit order, which nodes every binding (or the function's result) uses.
class DependencyCollector {
 public:
  static Dependencies collect(const Function& f) {
    DependencyCollector c;
    c.function(f);
    std::vector<Node> noInputs, unused;
    for (Node v : c.bindingOrder_) {
      if (!c.deps_.needs.count(v)) noInputs.push_back(v);
      if (!c.deps_.users.count(v)) unused.push_back(v);
    }
    for (Node v : noInputs) c.edge(inputsNode(), v);
    // Unused bindings come before the result among the outputs node's requirements.
    for (auto it = unused.rbegin(); it != unused.rend(); ++it) {
      c.deps_.needs[outputsNode()].push_front(*it);
      c.deps_.users[*it].push_front(outputsNode());
    }
    return std::move(c.deps_);
  }

 private:
  Dependencies deps_;
  std::vector<Node> bindingOrder_;
  Node current_ = outputsNode();

  void edge(Node from, Node to) {
    deps_.users[from].push_back(to);
    deps_.needs[to].push_back(from);
  }

  void function(const Function& f) {
    for (auto& p : f.params) edge(inputsNode(), p.get());
    expr(f.body);
  }

  void expr(const Expr& e) {
    if (!e) return;
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::DataflowVar: edge(e.get(), current_); break;
      case NodeKind::Call: {
        auto& c = static_cast<const Call&>(*e);
        expr(c.op);
        for (auto& a : c.args) expr(a);
        break;
      }
      case NodeKind::Tuple:
        for (auto& f : static_cast<const Tuple&>(*e).fields) expr(f);
        break;
      case NodeKind::TupleGetItem: expr(static_cast<const TupleGetItem&>(*e).tuple); break;
      case NodeKind::If: {
        auto& i = static_cast<const If&>(*e);
        expr(i.cond);
        expr(i.thenBranch);
        expr(i.elseBranch);
        break;
      }
      case NodeKind::SeqExpr: {
        auto& s = static_cast<const SeqExpr&>(*e);
        for (auto& block : s.blocks)
          for (auto& b : block->bindings) {
            Node saved = current_;
            current_ = b->var.get();
            expr(b->value);
            current_ = saved;
            bindingOrder_.push_back(b->var.get());
          }
        expr(s.body);
        break;
      }
      case NodeKind::Function: function(static_cast<const Function&>(*e)); break;
      default: break;
    }
  }
};

enum class Order { DepthFirst, BreadthFirst };
enum class Direction { FromInputs, FromOutputs };

class Sorter : public ExprMutator {
 public:
  Sorter(Order order, Direction direction) : order_(order), direction_(direction) {}

 protected:
  Expr visitFunction(const Ref<Function>& f) override {
    Dependencies saved = std::move(deps_);
    deps_ = DependencyCollector::collect(*f);
    // Depth-first pops the last pushed node: reversing the user lists makes the first user of a
    // node the first one visited.
    if (order_ == Order::DepthFirst)
      for (auto& [node, users] : deps_.users) std::reverse(users.begin(), users.end());
    Expr out = ExprMutator::visitFunction(f);
    deps_ = std::move(saved);
    return out;
  }

  BlockRef visitBlock(const BlockRef& block) override {
    if (!block->isDataflow()) return ExprMutator::visitBlock(block);
    std::unordered_map<Node, BindingRef> toEmit;
    for (auto& b : block->bindings) toEmit[b->var.get()] = b;
    bool fromInputs = direction_ == Direction::FromInputs;
    auto& forward = fromInputs ? deps_.users : deps_.needs;
    auto& backward = fromInputs ? deps_.needs : deps_.users;
    std::deque<Node> work{fromInputs ? inputsNode() : outputsNode()};
    std::unordered_set<Node> visited;
    std::vector<BindingRef> sorted;
    while (!work.empty()) {
      Node n;
      if (order_ == Order::DepthFirst) {
        n = work.back();
        work.pop_back();
      } else {
        n = work.front();
        work.pop_front();
      }
      if (auto it = toEmit.find(n); it != toEmit.end()) {
        sorted.push_back(it->second);
        toEmit.erase(it);
      }
      visited.insert(n);
      auto next = forward.find(n);
      if (next == forward.end()) continue;
      for (Node m : next->second) {
        if (visited.count(m)) continue;
        auto prereq = backward.find(m);
        bool ready = prereq == backward.end() || std::all_of(prereq->second.begin(), prereq->second.end(), [&](Node p) { return visited.count(p) > 0; });
        if (ready) work.push_back(m);
      }
    }
    // A binding the walk cannot reach (a cycle through a recursive local function) keeps its place
    // after the sorted ones rather than being lost.
    for (auto& b : block->bindings)
      if (toEmit.count(b->var.get())) sorted.push_back(b);
    if (!fromInputs) std::reverse(sorted.begin(), sorted.end());
    bool same = true;
    for (size_t i = 0; i < sorted.size(); ++i) same &= sorted[i].same(block->bindings[i]);
    BlockRef reordered = same ? block : make<BindingBlock>(std::move(sorted), true);
    BlockRef out = ExprMutator::visitBlock(reordered);
    return out;
  }

 private:
  Order order_;
  Direction direction_;
  Dependencies deps_;
};

}  // namespace

Result<Pass> createTopologicalSortPass(PassOptions& options) {
  std::string orderText = options.string("order").value_or("depth-first");
  std::string directionText = options.string("direction").value_or("from-inputs");
  Order order;
  Direction direction;
  if (orderText == "depth-first") order = Order::DepthFirst;
  else if (orderText == "breadth-first") order = Order::BreadthFirst;
  else return Error("TopologicalSort: order must be \"depth-first\" or \"breadth-first\", not \"" + orderText + "\"");
  if (directionText == "from-inputs") direction = Direction::FromInputs;
  else if (directionText == "from-outputs") direction = Direction::FromOutputs;
  else return Error("TopologicalSort: direction must be \"from-inputs\" or \"from-outputs\", not \"" + directionText + "\"");
  return makeFunctionPass({"TopologicalSort", 0, {}}, [order, direction](const Expr& func, const GlobalVarRef&, const IRModuleRef&) -> Result<Expr> {
    Sorter sorter(order, direction);
    return sorter.mutate(func);
  });
}

}  // namespace rlx
