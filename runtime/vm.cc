// The interpreter loop (Call, Ret, Goto, If over a register file), function-pool resolution at
// load time, and the packed-function registry shared by builtins and user C++ functions.
#include "runtime/vm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <new>

namespace rlx::vm {

void registerBuiltins();     // builtins.cc
void registerRunBuiltins();  // run_builtins.cc
void registerNNBuiltins();   // nn_builtins.cc

namespace {
std::map<std::string, PackedFn>& packedRegistry() {
  static std::map<std::string, PackedFn> r;
  static bool init = false;
  if (!init) {
    init = true;
    registerBuiltins();
    registerRunBuiltins();
    registerNNBuiltins();
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
  if (!options.interpretKernels) {
    // All kernels at once, so that they compile in parallel; Kernel::create below then finds them
    // compiled (and reports the errors of those that failed).
    std::vector<KernelRequest> requests;
    for (auto& info : exec->funcTable)
      if (auto k = exec->kernels.find(info.name); info.kind != FuncInfo::VMFunc && k != exec->kernels.end() && k->second->retType.isVoid())
        requests.push_back({k->second, info.name});
    compileKernels(requests);
  }
  for (auto& info : exec->funcTable) {
    Callee c;
    if (info.kind == FuncInfo::VMFunc) {
      c.isVMFunc = true;
    } else if (auto k = exec->kernels.find(info.name); k != exec->kernels.end()) {
      RLX_TRY(kernel, Kernel::create(info.name, k->second, options.interpretKernels));
      c.kernel = std::move(kernel);
    } else if (const PackedFn* fn = findPackedFunction(info.name)) {
      c.packed = fn;
      c.isAllocTensor = info.name == "vm.builtin.alloc_tensor";
    } else {
      std::string hint = closestName(info.name, packedFunctionNames());
      return Error(fmt::format("no function named \"{}\": it is neither a kernel of the module, a VM builtin nor a registered C++ function", info.name), {},
                   hint.empty() ? "" : fmt::format("did you mean \"{}\"?", hint));
    }
    vm->pool_.push_back(std::move(c));
  }
  int64_t count = int64_t(exec->instrOffset.size());
  vm->code_.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i) {
    vm->code_.push_back(exec->instruction(i));
    if (vm->code_.back().op == Opcode::Call) vm->maxCallArgs_ = std::max(vm->maxCallArgs_, vm->code_.back().numArgs);
  }
  vm->viewCache_.resize(size_t(count));
  vm->exec_ = std::move(exec);
  return vm;
}

// Free when nothing but the pool and idle cached views holds the block. Sites whose cached view has
// since moved to another block are pruned from its list.
bool VirtualMachine::storageFree(const NDArrayRef& block) {
  if (block->useCount() == 1) return true;
  auto it = viewSites_.find(block.get());
  if (it == viewSites_.end()) return false;
  auto& sites = it->second;
  std::erase_if(sites, [&](int64_t pc) { return !viewCache_[size_t(pc)] || viewCache_[size_t(pc)]->owner().get() != block.get(); });
  if (block->useCount() != 1 + sites.size()) return false;
  for (int64_t pc : sites)
    if (viewCache_[size_t(pc)]->useCount() != 1) return false;
  return true;
}

NDArrayRef VirtualMachine::allocateStorage(int64_t bytes) {
  auto& blocks = storagePool_[bytes];
  for (auto& b : blocks)
    if (storageFree(b)) return b;
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
  if (c.kernel) {
    std::vector<const Value*> refs(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) refs[size_t(k)] = &args[k];
    return c.kernel->call(refs.data(), n);
  }
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

// alloc_tensor(storage, offset, shape, dtype[, scope]) at instruction `pc`: the cached view when it is
// idle and describes the same tensor (validated when it was made), else the builtin's new view.
Value VirtualMachine::allocTensorAt(int64_t pc, const Callee& c, const Value* const* args, int64_t n) {
  NDArrayRef& cached = viewCache_[size_t(pc)];
  if (cached && cached->useCount() == 1 && n >= 4) {
    const Value &storage = *args[0], &offset = *args[1], &shape = *args[2], &dtype = *args[3];
    const NDArray& view = *cached;
    bool same = storage.kind == Value::Storage && offset.kind == Value::Int && shape.kind == Value::Shape && dtype.kind == Value::DType &&
                view.owner().get() == storage.array.get() && view.data() == static_cast<const char*>(storage.array->data()) + offset.i &&
                view.dtype == dtype.dt && int64_t(view.shape.size()) == shape.shapeSize();
    // A plain loop: std::equal becomes a memcmp call, costly for the usual one to four dims.
    for (size_t d = 0; same && d < view.shape.size(); ++d) same = view.shape[d] == shape.shapeData()[d];
    if (same) return Value::ofTensor(cached);
  }
  std::vector<Value> copies(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) copies[size_t(k)] = *args[k];
  Value made = (*c.packed)(*this, copies.data(), n);
  if (made.kind == Value::Tensor && made.array->owner()) {
    cached = made.array;
    auto& sites = viewSites_[made.array->owner().get()];
    if (std::find(sites.begin(), sites.end(), pc) == sites.end()) sites.push_back(pc);
  }
  return made;
}

namespace {
const Value kNullValue;  // what %vm and %void read as

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
  std::vector<Value> callArgs, scratch(static_cast<size_t>(maxCallArgs_));
  std::vector<const Value*> argRefs(static_cast<size_t>(maxCallArgs_));
  int64_t pc = info.startInstr;
  try {
    for (;;) {
      const Instruction& in = code_[size_t(pc)];
      switch (in.op) {
        case Opcode::Call: {
          // Arguments as pointers to registers and constants (immediates and function references
          // made in `scratch`): kernels and alloc_tensor read them in place, packed functions get
          // copies. No reference count moves on the hot path.
          size_t count = size_t(in.numArgs);
          for (size_t k = 0; k < count; ++k) {
            Arg a = in.args[k];
            switch (a.kind()) {
              case Arg::Register: argRefs[k] = a.value() >= kBeginSpecialReg ? &kNullValue : &regs[size_t(a.value())]; break;
              case Arg::Immediate: scratch[k] = Value::ofInt(a.value()), argRefs[k] = &scratch[k]; break;
              case Arg::ConstIdx: argRefs[k] = &ex.constants[size_t(a.value())]; break;
              case Arg::FuncIdx: scratch[k] = Value::ofFunc(a.value()), argRefs[k] = &scratch[k]; break;
            }
          }
          const Callee& callee = pool_[size_t(in.funcIdx)];
          Value result;
          if (callee.kernel) {
            result = callee.kernel->call(argRefs.data(), in.numArgs);
          } else if (callee.isAllocTensor) {
            result = allocTensorAt(pc, callee, argRefs.data(), in.numArgs);
          } else {
            callArgs.resize(count);
            for (size_t k = 0; k < count; ++k) callArgs[k] = *argRefs[k];
            result = callFunction(in.funcIdx, callArgs.data(), in.numArgs);
          }
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
