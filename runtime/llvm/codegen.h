// PrimFunc -> LLVM IR: the code generator's state, shared by its files (entry: arguments and shape
// checks; stmt: loops and blocks; expr: operators and casts; intrin: TIR intrinsics). Internal.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "ir/diagnostic.h"
#include "ir/tir.h"

namespace rlx::codegen {

// A TIR value in its compute representation: i1 for bool, iN for (u)intN, float for float16,
// bfloat16, float32 and the float8/float4 types (holding values exactly representable in the
// dtype), double for float64.
struct TV {
  llvm::Value* v = nullptr;
  DataType t;
};

// Where a buffer's elements live: element 0 of its storage, and its view in elements (i64 values).
struct BufferBinding {
  llvm::Value* base = nullptr;
  std::vector<llvm::Value*> shape, strides;
  llvm::Value* offset = nullptr;
};

// Thrown by Codegen::fail and caught by generate(); it unwinds only codegen frames, never LLVM's.
struct Unsupported {
  Error error;
};

// Generates one kernel into a module, following runPrimFunc's semantics (ir/tir_eval*.cc) exactly,
// except that buffer accesses are not bounds-checked (the shape checks at entry stand for them).
class Codegen {
 public:
  Codegen(llvm::Module& m, const PrimFunc& f);

  // Defines `symbol` with the RlxKernelFn signature (entry.cc). The first construct the generator
  // does not support is the Error; the module is then incomplete and must be dropped.
  Status generate(const std::string& symbol);
  // messages[code - 1] describes the check that returns `code`.
  std::vector<std::string> messages;

  // ---- shared by the codegen files ----
  llvm::LLVMContext& ctx;
  llvm::Module& mod;
  const PrimFunc& func;
  llvm::IRBuilder<> b;

  llvm::Type* computeType(DataType t);
  llvm::Type* storageType(DataType t);  // i8 for bool, float8/float4 and sub-byte ints, i16 for float16/bfloat16
  // A float holding a value of the float8/float4 type `t` to its code (i8), and back.
  llvm::Value* encodeMiniFloat(llvm::Value* f, DataType t);
  llvm::Value* decodeMiniFloat(llvm::Value* code, DataType t);
  llvm::IntegerType* i64() { return b.getInt64Ty(); }

  // Stops code generation at an unsupported construct: generate() returns `message` as its Error.
  [[noreturn]] void fail(const std::string& message);

  // At run time, returns a fresh 1-based code (whose message is `message`) when `ok` is false,
  // freeing the heap buffers that are live here.
  void check(llvm::Value* ok, const std::string& message);

  // Variables in scope: one value per lane (scalars have one, used for every lane).
  std::unordered_map<const PrimVar*, std::vector<llvm::Value*>> vars;
  std::unordered_map<const Buffer*, BufferBinding> buffers;
  std::vector<llvm::Value*> heapBuffers;  // workspace blocks live at the insertion point
  void freeHeapBuffers(size_t from = 0);   // emits the release of heapBuffers[from..], newest first

  // expr.cc
  TV emit(const PrimExpr& e, int lane = 0);
  llvm::Value* emitI64(const PrimExpr& e);  // an integer expression, extended to i64
  llvm::Value* truthy(const TV& x);          // i1: x != 0 (NaN is true)
  TV cast(const TV& x, DataType to);         // TVM's Cast, as castScalar
  TV binary(NodeKind k, DataType t, const TV& a, const TV& b);
  llvm::Value* toI64(const TV& x);                 // sign- or zero-extended per x's dtype
  TV fromI64(llvm::Value* v, DataType t);          // wrapped to t's width (bool: != 0)
  llvm::Value* toDouble(const TV& x);
  TV roundTo(llvm::Value* f, DataType t);          // a float/double rounded to float dtype t
  // Emits `whenTrue` or `whenFalse` under a branch on `cond`, as a value of dtype t (lazily:
  // only the chosen side runs, so guarded loads never read out of bounds).
  TV choose(llvm::Value* cond, const std::function<TV()>& whenTrue, const std::function<TV()>& whenFalse, DataType t);
  llvm::Value* elementPtr(const Buffer& buf, const std::vector<PrimExpr>& indices, int lane);
  TV loadElement(const Buffer& buf, llvm::Value* ptr);
  void storeElement(const Buffer& buf, llvm::Value* ptr, const TV& v);

  // intrin.cc: a PrimCall other than tir.if_then_else.
  TV intrinsic(const PrimCall& c, int lane);
  llvm::Value* callMath(const std::string& name, llvm::Type* ty, std::vector<llvm::Value*> args);

  // stmt.cc
  void exec(const Stmt& s);
  // Iterations [begin, end) of `f`, its variable being min + the counter.
  // `atEachStep`, when given, is emitted at the top of every iteration (the loop variable bound).
  void emitLoop(const For& f, const TV& lo, llvm::Value* begin, llvm::Value* end, const std::function<void()>& atEachStep = nullptr);
  // parallel.cc: a T.parallel loop as a function of an iteration range, run by rlx_parallel_for.
  void execParallelFor(const For& f, const TV& lo, llvm::Value* extent);
  // A statement outlined into a function the runtime calls as `function(context, ranges...)`: the
  // values in scope it uses travel in `context` (8-byte slots the caller has filled), `extra` values
  // too; `emitBody(extra inside, range arguments)` writes its code with those bindings in place.
  struct Outlined {
    llvm::Function* function;
    llvm::Value* context;
  };
  using EmitOutlined = std::function<void(const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>&)>;
  Outlined outline(const Stmt& body, const std::vector<llvm::Value*>& extra, unsigned ranges, const std::string& name, const EmitOutlined& emitBody);
  // Returns `code` from the kernel (releasing its heap buffers) unless it is 0.
  void returnOnFailure(llvm::Value* code);
  // runtime_call.cc: a loop the schedule marked kGemmEpilogueAnnotation: its GEMM call, with the loop
  // nest (over C's flattened rows and a column range) as the epilogue of each finished block.
  void execGemmEpilogue(const For& f, const PrimCall& gemm);
  // runtime_call.cc: rlx.sgemm (the schedule's recognized matmul) as a call of rlx_sgemm, or of
  // rlx_sgemm_epilogue with an outlined epilogue; rlx.transpose32 as a call of rlx_transpose32.
  TV sgemmCall(const PrimCall& c, const Outlined* epilogue = nullptr);
  TV transposeCall(const PrimCall& c);
  // runtime_call.cc: rlx.pool_padded (schedule_window.cc) as a call of rlx_pool_padded, returning its
  // code when it fails.
  TV poolCall(const PrimCall& c);
  // runtime_call.cc: rlx.attention (schedule_attention.cc) as a call of rlx_attention; the kernel
  // returns its code when it fails.
  TV attentionCall(const PrimCall& c);
  // runtime_call.cc: a runtime call's arguments: `pointers` element pointers (BufferLoads), then a
  // stack array of the remaining integer arguments (its descriptor).
  std::vector<llvm::Value*> pointersAndDescriptor(const PrimCall& c, size_t pointers);
  // entry.cc: whether buffer pointers may be marked noalias (the PrimFunc's tir.noalias).
  bool noAlias() const;

  // Binds `v` for the lifetime of the returned guard (restoring any outer binding).
  class ScopedVar {
   public:
    ScopedVar(Codegen& cg, const PrimVar* v, std::vector<llvm::Value*> lanes);
    ~ScopedVar();
    ScopedVar(const ScopedVar&) = delete;
    ScopedVar& operator=(const ScopedVar&) = delete;

   private:
    Codegen& cg_;
    const PrimVar* v_;
    std::optional<std::vector<llvm::Value*>> saved_;
  };

 private:
  void execFor(const For& f);
  // The value `st` stores; inside a loop the schedule marked kReassociateAnnotation, an update
  // `acc = acc OP x` combines with reassociation allowed, so that the loop vectorizes.
  TV storedValue(const BufferStore& st, int lane);
  void execRealize(const BlockRealize& r);
  void execBlock(const TirBlock& blk, const std::vector<TV>& iterValues);
  // `zeroed`: filled with zeros first (as the interpreter's are), unless the schedule found that the
  // kernel overwrites the buffer before reading it (schedule_alloc.h).
  void allocate(const BufferRef& buf, bool zeroed);
  void matchRegion(const BufferRef& buf, const BufferRegion& source);
  void bindOrCheck(const PrimExpr& e, llvm::Value* value, const std::string& what);
  void emitEntry(const std::string& symbol);
  llvm::Function* emitBody(const std::string& symbol, const std::vector<const PrimVar*>& entryVars);

  std::unordered_map<const PrimVar*, std::string> origins_;
  int parallelLoops_ = 0;
  bool reassociating_ = false;  // inside a loop marked kReassociateAnnotation  // where each entry var got its value
};

}  // namespace rlx::codegen
