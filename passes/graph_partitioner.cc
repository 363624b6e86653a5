// TVM's GraphPartitioner (src/relax/analysis/graph_partitioner.cc) on our ForwardGraph: every node
// tries to join its immediate post-dominator when all paths to it satisfy the phase's rule.
#include "passes/graph_partitioner.h"

#include <algorithm>
#include <unordered_set>

namespace rlx::fusion {

namespace {

constexpr long kNone = -1;

PatternKind combine(PatternKind a, PatternKind b) { return std::max(a, b); }

// Immediate post-dominators: a node's parent is the LCA of its consumers, and `pattern` the
// strongest pattern met on the way (edges and the nodes walked through).
struct PostDomTree {
  struct Node {
    long parent = kNone;
    int depth = 1;
    PatternKind pattern = kOpaque;
  };
  std::vector<Node> nodes;

  explicit PostDomTree(const ForwardGraph& g) : nodes(g.nodes.size()) {
    for (size_t i = g.nodes.size(); i-- > 0;) {
      const ForwardGraph::Node& gn = g.nodes[i];
      Node& t = nodes[i];
      if (gn.externRef) continue;  // depth 1, no parent, opaque
      PatternKind pattern = kElemWise;
      long parent = lcaOfOutputs(gn.outputs, pattern);
      t.parent = parent;
      t.depth = parent == kNone ? 1 : nodes[parent].depth + 1;
      t.pattern = pattern;
    }
  }

  long lca(long a, long b, PatternKind& pattern) const {
    while (a != b) {
      if (a == kNone || b == kNone) return kNone;
      if (nodes[a].depth < nodes[b].depth) {
        pattern = combine(pattern, nodes[b].pattern);
        b = nodes[b].parent;
      } else if (nodes[b].depth < nodes[a].depth) {
        pattern = combine(pattern, nodes[a].pattern);
        a = nodes[a].parent;
      } else {
        pattern = combine(combine(pattern, nodes[a].pattern), nodes[b].pattern);
        a = nodes[a].parent;
        b = nodes[b].parent;
      }
    }
    return a;
  }

  long lcaOfOutputs(const std::vector<ForwardGraph::Edge>& outs, PatternKind& pattern) const {
    if (outs.empty()) return kNone;
    long parent = long(outs[0].node);
    pattern = combine(pattern, outs[0].pattern);
    for (size_t i = 1; i < outs.size(); ++i) {
      parent = lca(parent, long(outs[i].node), pattern);
      pattern = combine(pattern, outs[i].pattern);
    }
    return parent;
  }
};

class Partitioner {
 public:
  Partitioner(const ForwardGraph& g, size_t maxDepth) : g_(g), maxDepth_(maxDepth), groups_(g.nodes.size()) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      groups_[i].pattern = g.nodes[i].pattern;
      groups_[i].anchor = g.nodes[i].pattern == kOutEWiseFusable;
    }
  }

  void run() {
    PostDomTree tree(g_);
    for (int phase = 0; phase < 3; ++phase) runPhase(tree, phase);
  }

  Partition result() {
    Partition p;
    p.root.resize(groups_.size());
    p.size.assign(groups_.size(), 0);
    for (size_t i = 0; i < groups_.size(); ++i) {
      p.root[i] = findRoot(i);
      p.size[p.root[i]] = groups_[p.root[i]].numNodes;
    }
    return p;
  }

 private:
  // A union-find group; fields of a non-root group keep the values it had when it was merged
  // (TVM reads some of them, e.g. the node's own pattern and size).
  struct Group {
    long parent = kNone;
    PatternKind pattern = kOpaque;
    bool anchor = false;  // holds an out-elementwise-fusable op (at most one per group)
    size_t numNodes = 1;
  };

  const ForwardGraph& g_;
  size_t maxDepth_;
  std::vector<Group> groups_;
  std::unordered_set<size_t> visited_;

  size_t findRoot(size_t i) {
    size_t root = i;
    while (groups_[root].parent != kNone) root = size_t(groups_[root].parent);
    for (size_t p = i; p != root;) {
      size_t next = size_t(groups_[p].parent);
      groups_[p].parent = long(root);
      p = next;
    }
    return root;
  }

  template <typename F>
  bool checkPathFrom(size_t src, size_t sink, const F& ok) {
    if (!visited_.insert(src).second) return true;
    if (!ok(groups_[findRoot(src)].pattern, src == sink)) return false;
    if (src == sink) return true;
    for (auto& e : g_.nodes[src].outputs)
      if (!checkPathFrom(e.node, sink, ok)) return false;
    return true;
  }

  // Whether every path from src's consumers to sink satisfies `ok`.
  template <typename F>
  bool checkPath(size_t src, size_t sink, const F& ok) {
    visited_.clear();
    for (auto& e : g_.nodes[src].outputs)
      if (!checkPathFrom(e.node, sink, ok)) return false;
    return true;
  }

  void mergeInto(size_t child, size_t parent) {
    child = findRoot(child);
    parent = findRoot(parent);
    if (child == parent) return;
    groups_[parent].numNodes += groups_[child].numNodes;
    groups_[child].parent = long(parent);
    if (groups_[child].anchor) {
      groups_[parent].anchor = true;
      groups_[parent].pattern = combine(groups_[child].pattern, groups_[parent].pattern);
    }
  }

  void commitFrom(size_t src, size_t sink, size_t target) {
    if (src == sink || !visited_.insert(src).second) return;
    mergeInto(src, target);
    for (auto& e : g_.nodes[src].outputs) commitFrom(e.node, sink, target);
  }

  // Puts every node on the paths from src to sink into sink's group.
  void commit(size_t src, size_t sink) {
    visited_.clear();
    commitFrom(src, sink, sink);
  }

  size_t countUpToSink(size_t src, size_t sink) {
    if (src == sink || !visited_.insert(src).second) return 0;
    size_t sum = groups_[src].numNodes;
    for (auto& e : g_.nodes[src].outputs) sum += countUpToSink(e.node, sink);
    return sum;
  }

  size_t fusedSizeWith(size_t child, size_t domParent) {
    visited_.clear();
    return groups_[findRoot(domParent)].numNodes + countUpToSink(child, domParent);
  }

  void runPhase(const PostDomTree& tree, int phase) {
    for (size_t nid = 0; nid < groups_.size(); ++nid) {
      const PatternKind own = groups_[nid].pattern;
      const PostDomTree::Node& dom = tree.nodes[nid];
      if (own == kOpaque || dom.parent == kNone) continue;
      size_t parent = size_t(dom.parent);
      if (fusedSizeWith(nid, parent) > maxDepth_) continue;

      if (phase == 2) {
        // Injective ops join a tuple that was already fused into later injective ops.
        if (own > kInjective) continue;
        const Group& parentOwn = groups_[parent];
        PatternKind parentRoot = groups_[findRoot(parent)].pattern;
        if (parentRoot == kTuple) continue;
        if (parentOwn.pattern == kTuple && parentRoot <= kInjective) {
          if (checkPath(nid, parent, [](PatternKind k, bool) { return k <= kInjective; })) commit(nid, parent);
        }
        continue;
      }
      if (findRoot(nid) == findRoot(parent)) continue;
      if (groups_[parent].pattern == kTuple) continue;
      if (own == kOutEWiseFusable) {
        // matmul/conv take the elementwise and broadcast ops that follow them.
        if (phase != 0 || dom.pattern != kElemWise) continue;
        if (checkPath(nid, parent, [](PatternKind k, bool) { return k <= kBroadcast; })) commit(nid, parent);
      } else if (own <= kBroadcast) {
        if (dom.pattern > kInjective && dom.pattern != kCommReduce) continue;
        auto ok = [](PatternKind k, bool isSink) {
          if (!isSink) return k <= kInjective;
          return k <= kBroadcast || k == kCommReduce || k == kInjective || k == kOutEWiseFusable;
        };
        if (checkPath(nid, parent, ok)) commit(nid, parent);
      } else if (own == kInjective || own == kTuple) {
        // Deferred to phase 1 so that out-elementwise-fusable ops finish fusing first.
        if (phase != 1) continue;
        if (checkPath(nid, parent, [](PatternKind k, bool) { return k <= kInjective; })) commit(nid, parent);
      }
    }
  }
};

}  // namespace

Partition partitionGraph(const ForwardGraph& graph, int optLevel, size_t maxDepth) {
  Partitioner p(graph, maxDepth);
  if (optLevel != 0) p.run();
  return p.result();
}

}  // namespace rlx::fusion
