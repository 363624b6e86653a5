// TIR: buffers, statements and PrimFunc kernels (the T.prim_func subset that legalized Relax uses).
// Blocks keep iter vars, read/write regions, init and allocations exactly as TVMScript shows them.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace rlx {


struct Range {
  PrimExpr min, extent;
};

struct BufferRegion {
  BufferRef buffer;
  std::vector<Range> region;
};

struct MatchBufferRegion {
  BufferRef buffer;
  BufferRegion source;
};

struct IterVar {
  enum Kind : uint8_t { DataPar = 0, CommReduce = 2, Ordered = 3, Opaque = 4 };
  PrimVarRef var;
  Range dom;
  Kind kind = DataPar;
};

class StmtNode : public Object {
 public:
  explicit StmtNode(NodeKind k) : Object(k) {}
  static bool classOf(NodeKind k) { return inFamily(k, NodeKind::BufferStore, NodeKind::TirBlock); }
  Span span;
};
using Stmt = Ref<StmtNode>;

class BufferStore final : public StmtNode {
 public:
  BufferStore(BufferRef b, PrimExpr v, std::vector<PrimExpr> i) : StmtNode(NodeKind::BufferStore), buffer(std::move(b)), value(std::move(v)), indices(std::move(i)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::BufferStore; }
  BufferRef buffer;
  PrimExpr value;
  std::vector<PrimExpr> indices;
};

class SeqStmt final : public StmtNode {
 public:
  explicit SeqStmt(std::vector<Stmt> s) : StmtNode(NodeKind::SeqStmt), seq(std::move(s)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::SeqStmt; }
  std::vector<Stmt> seq;
};

class For final : public StmtNode {
 public:
  enum LoopKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
  For() : StmtNode(NodeKind::For) {}
  static bool classOf(NodeKind k) { return k == NodeKind::For; }
  PrimVarRef loopVar;
  PrimExpr min, extent;
  LoopKind loopKind = Serial;
  Stmt body;
  std::string threadTag;  // ThreadBinding only
  AttrsRef annotations;   // null or dict
};

class IfThenElse final : public StmtNode {
 public:
  IfThenElse(PrimExpr c, Stmt t, Stmt e) : StmtNode(NodeKind::IfThenElse), cond(std::move(c)), thenCase(std::move(t)), elseCase(std::move(e)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::IfThenElse; }
  PrimExpr cond;
  Stmt thenCase, elseCase;  // elseCase may be null
};

class LetStmt final : public StmtNode {
 public:
  LetStmt(PrimVarRef v, PrimExpr val, Stmt b) : StmtNode(NodeKind::LetStmt), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::LetStmt; }
  PrimVarRef var;
  PrimExpr value;
  Stmt body;
};

class Evaluate final : public StmtNode {
 public:
  explicit Evaluate(PrimExpr v) : StmtNode(NodeKind::Evaluate), value(std::move(v)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::Evaluate; }
  PrimExpr value;
};

class AssertStmt final : public StmtNode {
 public:
  AssertStmt(PrimExpr c, PrimExpr m, Stmt b) : StmtNode(NodeKind::AssertStmt), cond(std::move(c)), message(std::move(m)), body(std::move(b)) {}
  static bool classOf(NodeKind k) { return k == NodeKind::AssertStmt; }
  PrimExpr cond, message;
  Stmt body;
};

class TirBlock final : public StmtNode {
 public:
  TirBlock() : StmtNode(NodeKind::TirBlock) {}
  static bool classOf(NodeKind k) { return k == NodeKind::TirBlock; }
  std::string name;
  std::vector<IterVar> iterVars;
  std::vector<BufferRegion> reads, writes;
  Stmt init;  // may be null
  Stmt body;
  std::vector<BufferRef> allocBuffers;
  std::vector<MatchBufferRegion> matchBuffers;
  AttrsRef annotations;  // null or dict
};
using TirBlockRef = Ref<TirBlock>;

class BlockRealize final : public StmtNode {
 public:
  BlockRealize() : StmtNode(NodeKind::BlockRealize) {}
  static bool classOf(NodeKind k) { return k == NodeKind::BlockRealize; }
  std::vector<PrimExpr> iterValues;
  PrimExpr predicate;  // bool; IntImm(true) when absent
  TirBlockRef block;
};

// A TIR kernel. Params are PrimVars (handles for buffers, scalars otherwise).
class PrimFunc final : public ExprNode {
 public:
  PrimFunc() : ExprNode(NodeKind::PrimFunc) {}
  static bool classOf(NodeKind k) { return k == NodeKind::PrimFunc; }
  std::vector<PrimVarRef> params;
  std::vector<std::pair<PrimVarRef, BufferRef>> bufferMap;  // in param order
  Stmt body;
  AttrsRef attrs;  // null or dict
  DataType retType = DataType::void_();  // `-> T.int64` (a host function returning via T.ret)
  const BufferRef* bufferOf(const PrimVarRef& param) const {
    for (auto& [p, b] : bufferMap)
      if (p == param) return &b;
    return nullptr;
  }
};
using PrimFuncRef = Ref<PrimFunc>;

// A copy of `f` (params, buffers, body, attributes, return type) for a pass to change one part of.
inline PrimFuncRef copyPrimFunc(const PrimFunc& f) {
  auto np = make<PrimFunc>();
  np->params = f.params;
  np->bufferMap = f.bufferMap;
  np->body = f.body;
  np->attrs = f.attrs;
  np->retType = f.retType;
  np->sinfo = f.sinfo;
  np->span = f.span;
  return np;
}
inline PrimFuncRef withPrimFuncAttrs(const PrimFunc& f, AttrsRef attrs) {
  PrimFuncRef np = copyPrimFunc(f);
  np->attrs = std::move(attrs);
  return np;
}
inline PrimFuncRef withPrimFuncBody(const PrimFunc& f, Stmt body) {
  PrimFuncRef np = copyPrimFunc(f);
  np->body = std::move(body);
  return np;
}

// The loops of the nest at `s`, outermost first, into `loops`; returns the statement inside the
// innermost (s itself when it is not a For).
inline Stmt loopNest(const Stmt& s, std::vector<const For*>& loops) {
  Stmt cur = s;
  while (cur && cur->kind() == NodeKind::For) {
    loops.push_back(static_cast<const For*>(cur.get()));
    cur = loops.back()->body;
  }
  return cur;
}

}  // namespace rlx
