// The interpreter loop (Call, Ret, Goto, If over a register file), function-pool resolution at
// load time, and the packed-function registry shared by builtins and user C++ functions.
#include "runtime/vm.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <new>

namespace rlx::vm {

void registerBuiltins();     // builtins.cc
void registerRunBuiltins();  // run_builtins.cc

namespace {
std::map<std::string, PackedFn>& packedRegistry() {
  static std::map<std::string, PackedFn> r;
  static bool init = false;
  if (!init) {
    init = true;
    registerBuiltins();
    registerRunBuiltins();
  }
  return r;
}
}  // namespace

void registerPackedFunction(const std::string& name, PackedFn fn) { packedRegistry()[name] = std::move(fn); }

const PackedFn* findPackedFunction(const std::string& name) {
  auto& r = packedRegistry();
  auto it = r.find(name);
  return it == r.end() ? nullptr : &it->second;
}

std::vector<std::string> packedFunctionNames() {
  std::vector<std::string> names;
  for (auto& [n, f] : packedRegistry()) names.push_back(n);
  return names;
}

Result<std::unique_ptr<VirtualMachine>> VirtualMachine::load(std::shared_ptr<const Executable> exec, VMOptions options) {
  auto vm = std::unique_ptr<VirtualMachine>(new VirtualMachine());
  vm->options_ = options;
  for (auto& info : exec->funcTable) {
    Callee c;
    if (info.kind == FuncInfo::VMFunc) {
      c.isVMFunc = true;
    } else if (auto k = exec->kernels.find(info.name); k != exec->kernels.end()) {
      RLX_TRY(kernel, Kernel::create(info.name, k->second, options.interpretKernels));
      c.kernel = std::move(kernel);
    } else if (const PackedFn* fn = findPackedFunction(info.name)) {
      c.packed = fn;
    } else {
      std::string hint = closestName(info.name, packedFunctionNames());
      return Error(fmt::format("no function named \"{}\": it is neither a kernel of the module, a VM builtin nor a registered C++ function", info.name), {},
                   hint.empty() ? "" : fmt::format("did you mean \"{}\"?", hint));
    }
    vm->pool_.push_back(std::move(c));
  }
  vm->exec_ = std::move(exec);
  return vm;
}

NDArrayRef VirtualMachine::allocateStorage(int64_t bytes) {
  auto& blocks = storagePool_[bytes];
  for (auto& b : blocks)
    if (b->useCount() == 1) return b;
  NDArrayRef block = NDArray::uninitialized(DataType(DataType::UInt, 8), {bytes});
  if (!block) throwVMError(fmt::format("cannot allocate a storage block of {} bytes", bytes));
  blocks.push_back(block);
  return block;
}

void VirtualMachine::print(const std::string& text) const {
  if (options_.printSink) options_.printSink(text);
  else std::fputs(text.c_str(), stdout);
}

bool VirtualMachine::hasFunction(const std::string& name) const {
  auto it = exec_->funcMap.find(name);
  return it != exec_->funcMap.end() && exec_->funcTable[size_t(it->second)].kind == FuncInfo::VMFunc;
}

Result<Value> VirtualMachine::invoke(const std::string& func, std::vector<Value> args) {
  auto it = exec_->funcMap.find(func);
  if (it == exec_->funcMap.end() || exec_->funcTable[size_t(it->second)].kind != FuncInfo::VMFunc) {
    std::vector<std::string> names;
    for (auto& f : exec_->funcTable)
      if (f.kind == FuncInfo::VMFunc) names.push_back(f.name);
    std::string hint = closestName(func, names);
    return Error(fmt::format("the module has no Relax function named \"{}\"", func), {}, hint.empty() ? "" : fmt::format("did you mean \"{}\"?", hint));
  }
  depth_ = 0;
  try {
    return callFunction(it->second, args.data(), int64_t(args.size()));
  } catch (const VMError& e) {
    return Error(e.where.empty() ? e.message : fmt::format("{} (in {})", e.message, e.where));
  } catch (const std::bad_alloc&) {
    return Error(fmt::format("out of memory while running {}", func));
  }
}

Value VirtualMachine::callFunction(int64_t funcIdx, const Value* args, int64_t n) {
  const Callee& c = pool_[size_t(funcIdx)];
  if (c.kernel) return c.kernel->call(args, n);
  if (c.packed) return (*c.packed)(*this, args, n);
  return runFrame(exec_->funcTable[size_t(funcIdx)], args, n);
}

Value VirtualMachine::callValue(const Value& callee, const Value* args, int64_t n) {
  if (callee.kind == Value::Func) return callFunction(callee.i, args, n);
  if (callee.kind == Value::Closure) {
    std::vector<Value> all = callee.closureCaptured();
    all.insert(all.end(), args, args + n);
    return callFunction(callee.closureFunc(), all.data(), int64_t(all.size()));
  }
  throwVMError(fmt::format("cannot call {}", callee.describe()));
}

namespace {
struct DepthGuard {
  int64_t& depth;
  ~DepthGuard() { --depth; }
};
}  // namespace

Value VirtualMachine::runFrame(const FuncInfo& info, const Value* args, int64_t n) {
  if (n != info.numArgs) throwVMError(fmt::format("function {} takes {} arguments but was called with {}", info.name, info.numArgs, n));
  if (++depth_ > options_.maxCallDepth) {
    --depth_;
    throwVMError(fmt::format("call depth exceeds {} (unbounded recursion?) in {}", options_.maxCallDepth, info.name));
  }
  DepthGuard guard{depth_};
  const Executable& ex = *exec_;
  std::vector<Value> regs(size_t(std::max(info.registerFileSize, n)));
  for (int64_t k = 0; k < n; ++k) regs[size_t(k)] = args[k];
  std::vector<Value> callArgs;
  int64_t pc = info.startInstr;
  try {
    for (;;) {
      Instruction in = ex.instruction(pc);
      switch (in.op) {
        case Opcode::Call: {
          callArgs.resize(size_t(in.numArgs));
          for (int64_t k = 0; k < in.numArgs; ++k) {
            Arg a = in.args[k];
            Value& slot = callArgs[size_t(k)];
            switch (a.kind()) {
              case Arg::Register: slot = a.value() >= kBeginSpecialReg ? Value() : regs[size_t(a.value())]; break;
              case Arg::Immediate: slot = Value::ofInt(a.value()); break;
              case Arg::ConstIdx: slot = ex.constants[size_t(a.value())]; break;
              case Arg::FuncIdx: slot = Value::ofFunc(a.value()); break;
            }
          }
          Value result = callFunction(in.funcIdx, callArgs.data(), in.numArgs);
          if (in.dst < kBeginSpecialReg) regs[size_t(in.dst)] = std::move(result);
          ++pc;
          break;
        }
        case Opcode::Ret: return in.result >= kBeginSpecialReg ? Value() : regs[size_t(in.result)];
        case Opcode::Goto: pc += in.pcOffset; break;
        case Opcode::If: {
          const Value& c = regs[size_t(in.cond)];
          pc += (c.kind == Value::Int && c.i != 0) ? 1 : in.falseOffset;
          break;
        }
      }
    }
  } catch (VMError& e) {
    if (e.where.empty()) {
      Instruction in = ex.instruction(pc);
      e.where = in.op == Opcode::Call ? fmt::format("{}, instruction {} (call {})", info.name, pc - info.startInstr, ex.funcTable[size_t(in.funcIdx)].name)
                                      : fmt::format("{}, instruction {}", info.name, pc - info.startInstr);
    }
    throw;
  }
}

}  // namespace rlx::vm
