// The dataflow graph FuseOps partitions and TVM's dominator-based partitioner over it: a
// post-dominator tree built by LCA on the DAG, then three fusion phases with union-find groups.
#pragma once
#include <cstddef>
#include <vector>

namespace rlx::fusion {

// TVM's OpPatternKind; the order matters (lower kinds fuse more freely).
enum PatternKind : int { kElemWise = 0, kBroadcast = 1, kInjective = 2, kCommReduce = 3, kOutEWiseFusable = 4, kTuple = 7, kOpaque = 8 };

// Nodes in post-DFS (definition) order; an edge goes from a value to a use of it.
struct ForwardGraph {
  struct Edge {
    size_t node;
    PatternKind pattern;
  };
  struct Node {
    PatternKind pattern = kOpaque;
    bool externRef = false;  // used outside the graph (params, block outputs): never an inner node
    std::vector<Edge> outputs;
  };
  std::vector<Node> nodes;
};

// For every node, the representative of its group and the group's size (nodes in the group).
struct Partition {
  std::vector<size_t> root;
  std::vector<size_t> size;  // indexed by representative
};

// Groups the graph's nodes as TVM's GraphPartitioner does (fuse_opt_level 0 keeps every node
// alone; maxDepth caps the nodes per group).
Partition partitionGraph(const ForwardGraph& graph, int optLevel, size_t maxDepth);

}  // namespace rlx::fusion
