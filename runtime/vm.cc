// The interpreter loop (Call, Ret, Goto, If over a register file), function-pool resolution at
// load time, and the packed-function registry shared by builtins and user C++ functions.
#include "runtime/vm.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <new>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

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
    } else {
      std::string hint = closestName(info.name, packedFunctionNames());
      return Error(fmt::format("no function named \"{}\": it is neither a kernel of the module, a VM builtin nor a registered C++ function", info.name), {},
                   hint.empty() ? "" : fmt::format("did you mean \"{}\"?", hint));
    }
    vm->pool_.push_back(std::move(c));
  }
  vm->exec_ = std::move(exec);
  RLX_TRY_STATUS(vm->prepareCode());
  vm->resetProfile();
  return vm;
}

namespace {
const Value kNullValue;  // what %vm and %void read as
}  // namespace

Status VirtualMachine::prepareCode() {
  const Executable& ex = *exec_;
  int64_t count = int64_t(ex.instrOffset.size());
  code_.resize(size_t(count));
  constexpr int64_t kMax = INT32_MAX;
  fixed_.push_back(&kNullValue);
  for (auto& info : ex.funcTable) {
    if (info.kind != FuncInfo::VMFunc) continue;
    if (info.startInstr < 0 || info.endInstr > count || info.startInstr > info.endInstr || info.registerFileSize > kMax)
      return Error(fmt::format("function {}: malformed bytecode (instructions {}..{} of {}, {} registers)", info.name, info.startInstr, info.endInstr,
                               count, info.registerFileSize));
    int64_t regs = std::max(info.registerFileSize, info.numArgs);
    auto bad = [&](int64_t pc, const std::string& what) {
      return Error(fmt::format("function {}, instruction {}: malformed bytecode ({})", info.name, pc - info.startInstr, what));
    };
    // A register operand: its index, -1 for %void and %vm (reads give null, writes are dropped).
    auto regOf = [&](int64_t r, int32_t& out) {
      if (r >= kBeginSpecialReg) out = -1;
      else if (r >= 0 && r < regs) out = int32_t(r);
      else return false;
      return true;
    };
    for (int64_t pc = info.startInstr; pc < info.endInstr; ++pc) {
      Instruction in = ex.instruction(pc);
      Op& op = code_[size_t(pc)];
      switch (in.op) {
        case Opcode::Ret:
          op.step = Step::Ret;
          if (!regOf(in.result, op.reg)) return bad(pc, fmt::format("register {} out of range", in.result));
          break;
        case Opcode::Goto:
        case Opcode::If: {
          int64_t offset = in.op == Opcode::Goto ? in.pcOffset : in.falseOffset;
          if (pc + offset < info.startInstr || pc + offset >= info.endInstr) return bad(pc, fmt::format("jump by {} leaves the function", offset));
          op.step = in.op == Opcode::Goto ? Step::Goto : Step::If;
          op.target = int32_t(offset);
          if (in.op == Opcode::If && (!regOf(in.cond, op.reg) || op.reg < 0)) return bad(pc, fmt::format("register {} out of range", in.cond));
          break;
        }
        case Opcode::Call: {
          if (in.funcIdx < 0 || in.funcIdx >= int64_t(pool_.size())) return bad(pc, fmt::format("function index {} out of range", in.funcIdx));
          if (in.numArgs < 0 || in.numArgs > kMax) return bad(pc, fmt::format("{} arguments", in.numArgs));
          const Callee& c = pool_[size_t(in.funcIdx)];
          const std::string& name = ex.funcTable[size_t(in.funcIdx)].name;
          op.step = c.kernel ? (c.kernel->compiled() ? Step::CompiledKernel : Step::Kernel)
                    : c.packed && name == "vm.builtin.alloc_tensor" ? Step::AllocTensor
                    // null_value ignores its arguments; kill_object is lowered to it.
                    : c.packed && name == "vm.builtin.null_value" ? Step::Null
                                                                  : Step::Call;
          op.numArgs = int32_t(in.numArgs);
          op.target = int32_t(in.funcIdx);
          if (!regOf(in.dst, op.reg)) return bad(pc, fmt::format("register {} out of range", in.dst));
          op.firstArg = uint32_t(args_.size());
          for (int64_t k = 0; k < in.numArgs; ++k) {
            Arg a = in.args[k];
            const Value* fixed = nullptr;
            switch (a.kind()) {
              case Arg::Register: {
                int32_t r = -1;
                if (!regOf(a.value(), r)) return bad(pc, fmt::format("register {} out of range", a.value()));
                if (r < 0) fixed = &kNullValue;
                else args_.push_back(r);
                break;
              }
              case Arg::Immediate: fixed = &immediates_.emplace_back(Value::ofInt(a.value())); break;
              case Arg::ConstIdx:
                if (a.value() < 0 || a.value() >= int64_t(ex.constants.size())) return bad(pc, fmt::format("constant {} out of range", a.value()));
                fixed = &ex.constants[size_t(a.value())];
                break;
              case Arg::FuncIdx:
                if (a.value() < 0 || a.value() >= int64_t(pool_.size())) return bad(pc, fmt::format("function index {} out of range", a.value()));
                fixed = &immediates_.emplace_back(Value::ofFunc(a.value()));
                break;
            }
            if (fixed) {
              if (fixed_.size() > size_t(kMax)) return bad(pc, "too many constant arguments");
              args_.push_back(~int32_t(fixed_.size()));
              fixed_.push_back(fixed);
            }
          }
          if (args_.size() > size_t(UINT32_MAX)) return bad(pc, "too many arguments");
          maxCallArgs_ = std::max(maxCallArgs_, in.numArgs);
          break;
        }
      }
    }
    // Straight-line code must not run past the function's end into the next one.
    Step last = info.endInstr > info.startInstr ? code_[size_t(info.endInstr - 1)].step : Step::Call;
    if (last != Step::Ret && last != Step::Goto) return bad(info.endInstr, "the function does not end with ret");
    markSelfTailCalls(info);
  }
  return okStatus();
}

void VirtualMachine::markSelfTailCalls(const FuncInfo& info) {
  const Executable& ex = *exec_;
  for (int64_t pc = info.startInstr; pc < info.endInstr; ++pc) {
    Op& call = code_[size_t(pc)];
    if (call.step != Step::Call || &ex.funcTable[size_t(call.target)] != &info || call.reg < 0) continue;
    // Follow the result: kills of other registers, copies of it, jumps, until a ret of it.
    int32_t result = call.reg;
    int64_t q = pc + 1;
    for (int steps = 0; steps < 64 && q >= info.startInstr && q < info.endInstr; ++steps) {
      const Op& next = code_[size_t(q)];
      if (next.step == Step::Null && next.reg != result) {
        ++q;
      } else if (next.step == Step::Call && ex.funcTable[size_t(next.target)].name == "vm.builtin.copy" && next.numArgs == 1 &&
                 args_[next.firstArg] == result && next.reg >= 0) {
        result = next.reg;
        ++q;
      } else if (next.step == Step::Goto) {
        q += next.target;
      } else {
        if (next.step == Step::Ret && next.reg == result) call.step = Step::SelfTailCall;
        break;
      }
    }
  }
}

// Free when nothing but the record and its idle views holds the block.
bool VirtualMachine::storageFree(const StorageBlock& s) const {
  if (s.block->useCount() != uint32_t(1 + s.numViews)) return false;
  for (int k = 0; k < s.numViews; ++k)
    if (s.views[k]->useCount() != 1) return false;
  return true;
}

Value VirtualMachine::allocateStorage(int64_t bytes) {
  auto& blocks = storageBySize_[bytes];
  size_t index = storage_.size();
  for (size_t b : blocks)
    if (storageFree(storage_[b])) {
      index = b;
      break;
    }
  if (index == storage_.size()) {
    NDArrayRef block = NDArray::uninitialized(DataType(DataType::UInt, 8), {bytes});
    if (!block) throwVMError(fmt::format("cannot allocate a storage block of {} bytes", bytes));
    storage_.emplace_back().block = std::move(block);
    blocks.push_back(index);
  }
  Value v = Value::ofStorage(storage_[index].block);
  v.i = int64_t(index);
  return v;
}

void VirtualMachine::print(const std::string& text) const {
  if (options_.printSink) options_.printSink(text);
  else std::fputs(text.c_str(), stdout);
}

bool VirtualMachine::hasFunction(const std::string& name) const {
  auto it = exec_->funcMap.find(name);
  return it != exec_->funcMap.end() && exec_->funcTable[size_t(it->second)].kind == FuncInfo::VMFunc;
}

#if defined(__x86_64__) || defined(__i386__)
DenormalsAsZero::DenormalsAsZero(bool on) : on_(on) {
  if (!on_) return;
  saved_ = _mm_getcsr();
  _mm_setcsr(saved_ | 0x8040);  // FTZ (bit 15) and DAZ (bit 6)
}
DenormalsAsZero::~DenormalsAsZero() {
  if (on_) _mm_setcsr(saved_);
}
#else
DenormalsAsZero::DenormalsAsZero(bool) {}
DenormalsAsZero::~DenormalsAsZero() {}
#endif

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
  DenormalsAsZero ftz(options_.flushDenormals);
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
    // The captured values are the callee's last parameters (LambdaLift appends them; TVM's
    // VMClosure binds them last too).
    std::vector<Value> all(args, args + n);
    const auto& captured = callee.closureCaptured();
    all.insert(all.end(), captured.begin(), captured.end());
    return callFunction(callee.closureFunc(), all.data(), int64_t(all.size()));
  }
  throwVMError(fmt::format("cannot call {}", callee.describe()));
}

// For alloc_tensor(storage, offset, shape, dtype[, scope]): an idle view of the pooled block that
// describes the same tensor (validated when it was made), else null.
inline const NDArrayRef* VirtualMachine::idleView(const Value* const* args, int64_t n) const {
  if (n < 4) return nullptr;
  const Value &storage = *args[0], &offset = *args[1], &shape = *args[2], &dtype = *args[3];
  if (storage.kind != Value::Storage || uint64_t(storage.i) >= storage_.size() || offset.kind != Value::Int || shape.kind != Value::Shape ||
      dtype.kind != Value::DType)
    return nullptr;
  const StorageBlock& rec = storage_[size_t(storage.i)];
  if (rec.block.get() != storage.array.get()) return nullptr;
  const char* data = static_cast<const char*>(rec.block->data()) + offset.i;
  size_t ndim = size_t(shape.shapeSize());
  const int64_t* dims = shape.shapeData();
  for (int k = 0; k < rec.numViews; ++k) {
    const NDArray& view = *rec.views[k];
    bool same = view.useCount() == 1 && view.data() == data && view.dtype == dtype.dt && view.shape.size() == ndim;
    // A plain loop: std::equal becomes a memcmp call, costly for the usual one to four dims.
    for (size_t d = 0; same && d < ndim; ++d) same = view.shape[d] == dims[d];
    if (same) return &rec.views[k];
  }
  return nullptr;
}

// alloc_tensor when no idle view fits: the builtin's new view, kept for reuse in a free slot of its
// block's record, else in place of an idle view (when all are in use it is not kept).
Value VirtualMachine::allocTensor(const Callee& c, const Value* const* args, int64_t n) {
  std::vector<Value> copies(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) copies[size_t(k)] = *args[k];
  Value made = (*c.packed)(*this, copies.data(), n);
  const Value& storage = copies[0];
  if (made.kind != Value::Tensor || storage.kind != Value::Storage || uint64_t(storage.i) >= storage_.size()) return made;
  StorageBlock& rec = storage_[size_t(storage.i)];
  if (rec.block.get() != storage.array.get() || made.array->owner().get() != rec.block.get()) return made;
  int slot = rec.numViews < kViewsPerBlock ? rec.numViews++ : -1;
  for (int k = 0; slot < 0 && k < rec.numViews; ++k)
    if (rec.views[k]->useCount() == 1) slot = k;
  if (slot >= 0) rec.views[slot] = made.array;
  return made;
}

namespace {
// Makes `v` null (what kill_object does), releasing what it held.
inline void clear(Value& v) {
  v.kind = Value::Null;
  if (v.array) v.array = nullptr;
  if (v.obj) v.obj = nullptr;
}

struct DepthGuard {
  int64_t& depth;
  ~DepthGuard() { --depth; }
};
}  // namespace

Value VirtualMachine::runFrame(const FuncInfo& info, const Value* args, int64_t n) {
  return options_.profile ? runFrame<true>(info, args, n) : runFrame<false>(info, args, n);
}

template <bool kProfile>
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
  Value* reg = regs.data();
  std::vector<Value> callArgs;
  std::vector<const Value*> argRefs(static_cast<size_t>(maxCallArgs_));
  // Arguments as pointers to registers and fixed values: kernels and alloc_tensor read them in
  // place, packed functions get copies. No reference count moves on the hot path.
  auto gather = [&](const Op& op) {
    const StepArg* a = &args_[op.firstArg];
    for (int32_t k = 0; k < op.numArgs; ++k) argRefs[size_t(k)] = a[k] >= 0 ? &reg[a[k]] : fixed_[size_t(~a[k])];
    return argRefs.data();
  };
  int64_t pc = info.startInstr;
  try {
    for (;;) {
      const Op& op = code_[size_t(pc)];
      std::chrono::steady_clock::time_point start;
      if constexpr (kProfile) start = std::chrono::steady_clock::now();
      switch (op.step) {
        case Step::CompiledKernel:
          pool_[size_t(op.target)].kernel->runCompiled(gather(op), op.numArgs);
          if (op.reg >= 0) clear(reg[op.reg]);
          ++pc;
          break;
        case Step::Kernel: {
          Value result = pool_[size_t(op.target)].kernel->call(gather(op), op.numArgs);
          if (op.reg >= 0) reg[op.reg] = std::move(result);
          ++pc;
          break;
        }
        case Step::AllocTensor: {
          const Value* const* a = gather(op);
          if (const NDArrayRef* view = idleView(a, op.numArgs)) {
            if (op.reg >= 0) {
              Value& out = reg[op.reg];
              clear(out);
              out.kind = Value::Tensor;
              out.array = *view;
            }
          } else {
            Value result = allocTensor(pool_[size_t(op.target)], a, op.numArgs);
            if (op.reg >= 0) reg[op.reg] = std::move(result);
          }
          ++pc;
          break;
        }
        case Step::Null:
          if (op.reg >= 0) clear(reg[op.reg]);
          ++pc;
          break;
        case Step::Call: {
          const Value* const* refs = gather(op);
          callArgs.resize(size_t(op.numArgs));
          for (size_t k = 0; k < size_t(op.numArgs); ++k) callArgs[k] = *refs[k];
          Value result = callFunction(op.target, callArgs.data(), op.numArgs);
          if (op.reg >= 0) reg[op.reg] = std::move(result);
          ++pc;
          break;
        }
        case Step::SelfTailCall: {
          const Value* const* refs = gather(op);
          callArgs.resize(size_t(op.numArgs));
          for (size_t k = 0; k < size_t(op.numArgs); ++k) callArgs[k] = *refs[k];
          if (op.numArgs != info.numArgs) throwVMError(fmt::format("function {} takes {} arguments but was called with {}", info.name, info.numArgs, op.numArgs));
          for (auto& r : regs) clear(r);
          for (size_t k = 0; k < size_t(op.numArgs); ++k) regs[k] = std::move(callArgs[k]);
          pc = info.startInstr;
          break;
        }
        case Step::Ret: return op.reg < 0 ? Value() : reg[op.reg];
        case Step::Goto: pc += op.target; break;
        case Step::If: {
          const Value& c = reg[op.reg];
          pc += (c.kind == Value::Int && c.i != 0) ? 1 : op.target;
          break;
        }
      }
      // Kernels and builtins only: a call to another VM function is profiled by its own steps.
      if constexpr (kProfile)
        if (op.step != Step::Goto && op.step != Step::If && !pool_[size_t(op.target)].isVMFunc) {
          CallProfile& p = profile_[size_t(op.target)];
          ++p.calls;
          p.ns += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
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

std::vector<ProfileEntry> VirtualMachine::profile() const {
  std::vector<ProfileEntry> out;
  for (size_t i = 0; i < profile_.size(); ++i)
    if (profile_[i].calls > 0) out.push_back({exec_->funcTable[i].name, profile_[i].calls, double(profile_[i].ns) / 1e6});
  std::stable_sort(out.begin(), out.end(), [](const ProfileEntry& a, const ProfileEntry& b) { return a.ms > b.ms; });
  return out;
}

void VirtualMachine::resetProfile() { profile_.assign(pool_.size(), CallProfile{}); }

}  // namespace rlx::vm
