// nn effects: state threaded through exported methods as extra inputs and outputs (TVM's Effect
// protocol), the debug IOEffect, and the KV cache a module registers with registerEffect.
//
// An export with effects gets `_initialize_effect() -> (states...)` and every method takes the
// states after its spec args and returns `(result, (new_states...))`. Each effectful op binds a new
// state var that replaces the current one, so the IR stays pure and the order of effects explicit.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/nn/tensor.h"
#include "frontend/nn/types.h"
#include "ir/diagnostic.h"

namespace rlx::nn {

class Effect {
 public:
  virtual ~Effect() = default;
  // Binds the initial state in `_initialize_effect` (the current function), named after `name`
  // (the effect's dotted path; "" for the IOEffect). Returns the state values.
  virtual std::vector<Expr> emitInit(const std::string& name) = 0;
  // The parameters that carry the state into a method.
  virtual std::vector<VarRef> create(const std::string& name) = 0;
  // The current state: the vars from create (or their packed_effects items), then what each
  // effectful op rebinds. Empty while the effect is unavailable (effect_mode none, not exporting).
  virtual void setState(std::vector<Expr> state) = 0;
  // The final state, returned by the method; the effect is unavailable afterwards.
  virtual std::vector<Expr> finalize() = 0;
  // Module::to: effects that hold data of some dtype follow it.
  virtual Status to(DType dtype) { return okStatus(); }
  // The C++ class name, for messages.
  std::string typeName() const;
};

// The IO effect of a debug export (ExportOptions::debug): a null object token that op::debugFunc
// and op::print pass through vm.builtin.invoke_debug_func, which orders the calls.
class IOEffect final : public Effect {
 public:
  std::vector<Expr> emitInit(const std::string& name) override;
  std::vector<VarRef> create(const std::string& name) override;
  void setState(std::vector<Expr> state) override;
  std::vector<Expr> finalize() override;
  // Binds `R.call_pure_packed("vm.builtin.invoke_debug_func", io, R.str(func), R.str(lineInfo),
  // args...)` as the new token.
  void invoke(const std::string& func, const std::string& lineInfo, std::vector<Expr> args);

 private:
  Expr token_;
};

// A growable cache of rows of `unitShape` (TVM's nn.KVCache): `_initialize_effect` creates it with
// room for initSeqLen rows; append adds rows in place, view(n) reads the n rows appended so far.
// Runs on the VM through vm.builtin.attention_kv_cache_{create,append,view}.
class KVCache final : public Effect {
 public:
  // dtype defaults to defaultDtype() at construction.
  KVCache(int64_t initSeqLen, std::vector<int64_t> unitShape, std::optional<DType> dtype = std::nullopt);
  static std::shared_ptr<KVCache> create(int64_t initSeqLen, std::vector<int64_t> unitShape, std::optional<DType> dtype = std::nullopt) {
    return std::make_shared<KVCache>(initSeqLen, std::move(unitShape), dtype);
  }

  int64_t initSeqLen() const { return initSeqLen_; }
  const std::vector<int64_t>& unitShape() const { return unitShape_; }
  DataType dtype() const { return dtype_; }

  // Appends the rows of `x` (shape (rows, *unitShape), the cache's dtype).
  void append(const Tensor& x);
  // The first seqLen rows, as a (seqLen, *unitShape) tensor; at run time seqLen must be the number
  // of rows appended so far.
  Tensor view(const Dim& seqLen);

  std::vector<Expr> emitInit(const std::string& name) override;
  std::vector<VarRef> create(const std::string& name) override;
  void setState(std::vector<Expr> state) override;
  std::vector<Expr> finalize() override;
  Status to(DType dtype) override;

 private:
  const Expr& state(const char* op) const;
  int64_t initSeqLen_;
  std::vector<int64_t> unitShape_;
  DataType dtype_;
  Expr cache_;
};

}  // namespace rlx::nn
