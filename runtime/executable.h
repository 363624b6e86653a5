// The bytecode executable: function table, constant pool and the flat instruction stream of the
// four opcodes (Call, Ret, Goto, If), with TVM's argument encoding and text dump.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/tir.h"
#include "runtime/value.h"

namespace rlx::vm {

enum class Opcode : int64_t { Call = 1, Ret = 2, Goto = 3, If = 4 };

// An instruction argument word: the top 8 bits say what the low 56 bits (sign-extended) mean.
struct Arg {
  enum Kind : int64_t { Register = 0, Immediate = 1, ConstIdx = 2, FuncIdx = 3 };
  int64_t word = 0;
  static constexpr int kValueBits = 56;
  static Arg make(Kind k, int64_t v) { return Arg{int64_t(uint64_t(k) << kValueBits | (uint64_t(v) & ((uint64_t(1) << kValueBits) - 1)))}; }
  Kind kind() const { return Kind(uint64_t(word) >> kValueBits); }
  int64_t value() const { return int64_t(uint64_t(word) << 8) >> 8; }
};

// Register numbers at and above kBeginSpecialReg name no register-file slot.
constexpr int64_t kBeginSpecialReg = int64_t(1) << 54;
constexpr int64_t kVoidRegister = kBeginSpecialReg;     // writes are dropped; reads give null
constexpr int64_t kVMRegister = kBeginSpecialReg + 1;   // reads give the VM context (the *_with_ctx builtins)
constexpr int64_t kMaxImmediate = int64_t(1) << 55;     // |immediate| must stay below this

struct FuncInfo {
  enum Kind : uint8_t { Packed = 0, VMFunc = 1 };
  Kind kind = Packed;
  std::string name;
  int64_t startInstr = 0, endInstr = 0;  // VMFunc: instruction index range
  int64_t numArgs = 0;
  int64_t registerFileSize = 0;
  std::vector<std::string> paramNames;
};

// A decoded view of one instruction (pointers into instrData).
struct Instruction {
  Opcode op;
  int64_t dst = 0, funcIdx = 0, numArgs = 0;  // Call
  const Arg* args = nullptr;                  // Call
  int64_t result = 0;                         // Ret
  int64_t pcOffset = 0;                       // Goto
  int64_t cond = 0, falseOffset = 0;          // If
};

struct Executable {
  std::vector<FuncInfo> funcTable;
  std::map<std::string, int64_t> funcMap;  // name -> funcTable index
  std::vector<Value> constants;
  std::vector<int64_t> instrOffset;  // instruction i starts at instrData[instrOffset[i]]
  std::vector<int64_t> instrData;
  // The kernels (PrimFuncs) packed entries may name; the VM compiles them when it loads.
  std::map<std::string, PrimFuncRef> kernels;

  Instruction instruction(int64_t index) const;
  // TVM's `as_text()` layout: one `@name packed_func;` line per packed entry, then each function's
  // instructions (`call  f  in: %0, i2, c[0] dst: %3`, `ret %3`, `goto 4`, `If %2, 3`).
  std::string asText() const;
};

// Builds an Executable instruction by instruction (used by the compiler in codegen.cc).
class ExecBuilder {
 public:
  // Declares a function; packed entries are looked up by name when the VM loads.
  int64_t declareFunction(const std::string& name, FuncInfo::Kind kind);
  void beginFunction(const std::string& name, const std::vector<std::string>& params);
  void endFunction(int64_t registerFileSize);
  // A constant's pool index (values that are equal share one slot).
  int64_t constant(const Value& v);
  // Emitters return the instruction index (patchable for If/Goto offsets).
  int64_t emitCall(int64_t funcIdx, const std::vector<Arg>& args, int64_t dst);
  int64_t emitRet(int64_t reg);
  int64_t emitGoto(int64_t offset);
  int64_t emitIf(int64_t condReg, int64_t falseOffset);
  int64_t nextInstr() const { return int64_t(exec_.instrOffset.size()); }
  // Patches the offset of a Goto or If emitted earlier.
  void patchOffset(int64_t instr, int64_t offset);
  Executable& exec() { return exec_; }

 private:
  Executable exec_;
  std::string current_;
};

}  // namespace rlx::vm
