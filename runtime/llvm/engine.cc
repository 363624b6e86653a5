// The host JIT: one ORC LLJIT per process targeting the host CPU (getHostCPUName + host features),
// the CPU schedule, the new pass manager's O2 pipeline without fast-math, and --emit=llvm/asm text.
#include "runtime/llvm/engine.h"

#include <mutex>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "runtime/llvm/attention.h"
#include "runtime/llvm/codegen.h"
#include "runtime/jit.h"
#include "runtime/llvm/schedule.h"
#include "runtime/llvm/sgemm.h"
#include "runtime/llvm/transpose.h"
#include "runtime/llvm/window_conv.h"
#include "runtime/llvm/window_channels_last.h"
#include "runtime/llvm/thread_pool.h"
#include "runtime/llvm/vector_math.h"
#include "runtime/llvm/workspace.h"

extern "C" int32_t rlx_minifloat_encode(float v, int32_t dtypeCode);  // runtime/llvm/expr.cc

namespace rlx::codegen {

namespace {

Error toError(llvm::Error e, const std::string& context) { return Error(context + ": " + llvm::toString(std::move(e))); }

// The process's JIT and the description of the host it compiles for; `error` when LLVM could not
// set them up (then every compile reports it).
struct Host {
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> machine;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::optional<Error> error;
};

Host& host() {
  static Host h = [] {
    Host r;
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) {
      r.error = toError(jtmb.takeError(), "cannot describe the host CPU");
      return r;
    }
    jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    r.machine = std::make_unique<llvm::orc::JITTargetMachineBuilder>(*jtmb);
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
    if (!jit) {
      r.error = toError(jit.takeError(), "cannot create the LLVM JIT");
      return r;
    }
    r.jit = std::move(*jit);
    // Kernels call libm and libmvec (vectorized math loops) from this process.
    loadVectorMathLibrary();
    auto symbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(r.jit->getDataLayout().getGlobalPrefix());
    if (!symbols) {
      r.error = toError(symbols.takeError(), "cannot expose the process's symbols to the JIT");
      return r;
    }
    r.jit->getMainJITDylib().addGenerator(std::move(*symbols));
    // ... and the runtime's entry points (thread pool, GEMM, workspace), which an executable does not export.
    llvm::orc::SymbolMap runtime;
    auto exportFn = [&](const char* name, auto* fn) {
      runtime[r.jit->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    };
    exportFn("rlx_parallel_for", &rlx_parallel_for);
    exportFn("rlx_sgemm", &rlx_sgemm);
    exportFn("rlx_sgemm_epilogue", &rlx_sgemm_epilogue);
    exportFn("rlx_sgemm_padded", &rlx_sgemm_padded);
    exportFn("rlx_sgemm_padded_epilogue", &rlx_sgemm_padded_epilogue);
    exportFn("rlx_pool_padded", &rlx_pool_padded);
    exportFn("rlx_window_channels_last", &rlx_window_channels_last);
    exportFn("rlx_window_channels_last_epilogue", &rlx_window_channels_last_epilogue);
    exportFn("rlx_transpose32", &rlx_transpose32);
    exportFn("rlx_attention", &rlx_attention);
    exportFn("rlx_workspace_alloc", &rlx_workspace_alloc);
    exportFn("rlx_workspace_take", &rlx_workspace_take);
    exportFn("rlx_workspace_free", &rlx_workspace_free);
    exportFn("rlx_minifloat_encode", &rlx_minifloat_encode);
    if (auto e = r.jit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime)))) r.error = toError(std::move(e), "cannot define the JIT's runtime symbols");
    return r;
  }();
  return h;
}

Result<std::unique_ptr<llvm::TargetMachine>> hostMachine() {
  Host& h = host();
  if (h.error) return *h.error;
  auto tm = h.machine->createTargetMachine();
  if (!tm) return toError(tm.takeError(), "cannot create a target machine for the host");
  return std::move(*tm);
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  // Math calls in loops vectorize into libmvec's variants (vector_math.cc); registered before the
  // default analyses, which would otherwise install a library info without them.
  llvm::TargetLibraryInfoImpl tlii{llvm::Triple(m.getTargetTriple())};
  addVectorMath(tlii, tm.getTargetFeatureString().str());
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  // O2, not O3: on the GPT-2 block O3 made the transposes, softmax and the attention epilogue 3-10x
  // larger (full unrolling at the doubled threshold, non-trivial unswitching) and doubled the
  // compile time of a first run, for no measurable gain in run time (bench/README.md).
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(m, mam);
}

}  // namespace

Result<BuiltModule> buildModule(const PrimFuncRef& func, const std::string& symbol) {
  RLX_TRY(tm, hostMachine());
  BuiltModule out;
  out.ctx = std::make_unique<llvm::LLVMContext>();
  out.mod = std::make_unique<llvm::Module>(symbol, *out.ctx);
  out.mod->setDataLayout(tm->createDataLayout());
  out.mod->setTargetTriple(tm->getTargetTriple().str());
  // The CPU schedule (parallel outer loops) first; codegen then compiles what it says.
  PrimFuncRef scheduled = scheduleForCpu(func);
  Codegen cg(*out.mod, *scheduled);
  RLX_TRY_STATUS(cg.generate(symbol));
  out.messages = std::move(cg.messages);
  const bool avx512 = tm->getTargetFeatureString().find("+avx512f") != llvm::StringRef::npos;
  for (llvm::Function& f : *out.mod) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", tm->getTargetCPU());
    f.addFnAttr("target-features", tm->getTargetFeatureString());
    // LLVM tunes Zen 4/5 to prefer 256-bit vectors; Zen 5's full-width AVX-512 units run 512-bit
    // ones at the same rate, so the vectorizer's loops (epilogues, norms, exp) take 16 floats a
    // step (1 thread: EfficientNet-B0 19.3 -> 17.8 ms, MobileNetV2 10.7 -> 10.0 ms).
    if (avx512) f.addFnAttr("prefer-vector-width", "512");
    f.addFnAttr(llvm::Attribute::NoUnwind);
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*out.mod, &os)) return Error("internal error: the LLVM code generator built an invalid module for '" + symbol + "': " + os.str());
  return out;
}

Result<BuiltModule> buildOptimized(const PrimFuncRef& func, const std::string& symbol) {
  RLX_TRY(out, buildModule(func, symbol));
  RLX_TRY(tm, hostMachine());
  optimize(*out.mod, *tm);
  return out;
}

Result<std::string> compileToObject(BuiltModule& built) {
  RLX_TRY(tm, hostMachine());
  optimize(*built.mod, *tm);
  llvm::SmallString<0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) return Error("the host target cannot emit object files");
  pm.run(*built.mod);
  return std::string(bytes.str());
}

std::string hostStamp() {
  auto tm = hostMachine();
  if (!tm.ok()) return "no-host";
  return std::string("llvm-") + LLVM_VERSION_STRING + "-" + (*tm)->getTargetCPU().str() + "-" + (*tm)->getTargetFeatureString().str();
}

Result<RlxKernelFn> addObjectToJit(const std::string& object, const std::string& symbol) {
  Host& h = host();
  if (h.error) return *h.error;
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object, symbol);
  if (auto e = h.jit->addObjectFile(std::move(buffer))) return toError(std::move(e), "cannot add kernel '" + symbol + "' to the JIT");
  auto addr = h.jit->lookup(symbol);
  if (!addr) return toError(addr.takeError(), "cannot compile kernel '" + symbol + "'");
  return addr->toPtr<RlxKernelFn>();
}

}  // namespace rlx::codegen

namespace rlx {

Result<std::string> emitLLVM(const PrimFuncRef& func, const std::string& symbol) {
  RLX_TRY(built, codegen::buildOptimized(func, symbol));
  std::string text;
  llvm::raw_string_ostream os(text);
  built.mod->print(os, nullptr);
  return os.str();
}

Result<std::string> emitAsm(const PrimFuncRef& func, const std::string& symbol) {
  RLX_TRY(built, codegen::buildOptimized(func, symbol));
  RLX_TRY(tm, codegen::hostMachine());
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) return Error("the host target cannot emit assembly");
  pm.run(*built.mod);
  return std::string(text.str());
}

}  // namespace rlx
