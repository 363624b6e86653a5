// The scalar -> vector function table for glibc's libmvec (x86_64 vector ABI names: _ZGV, ISA letter
// e = AVX-512 or d = AVX2, N = unmasked, lane count, one v per vector argument, then the scalar name).
#include "runtime/llvm/vector_math.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Support/DynamicLibrary.h>

#include <deque>
#include <mutex>

namespace rlx {

namespace {

struct MathFn {
  const char* name;  // the double-precision C name; float adds "f"
  int args;
  const char* intrinsic;  // the LLVM intrinsic's base name, when there is one
};

// Every function libmvec has in both ISAs and precisions (glibc >= 2.35).
constexpr MathFn kFunctions[] = {
    {"exp", 1, "llvm.exp"},    {"exp2", 1, "llvm.exp2"},   {"exp10", 1, "llvm.exp10"}, {"expm1", 1, nullptr}, {"log", 1, "llvm.log"},
    {"log2", 1, "llvm.log2"},  {"log10", 1, "llvm.log10"}, {"log1p", 1, nullptr},      {"sin", 1, "llvm.sin"}, {"cos", 1, "llvm.cos"},
    {"tan", 1, "llvm.tan"},    {"asin", 1, nullptr},       {"acos", 1, nullptr},       {"atan", 1, nullptr},   {"sinh", 1, nullptr},
    {"cosh", 1, nullptr},      {"tanh", 1, nullptr},       {"asinh", 1, nullptr},      {"acosh", 1, nullptr},  {"atanh", 1, nullptr},
    {"erf", 1, nullptr},       {"erfc", 1, nullptr},       {"cbrt", 1, nullptr},       {"pow", 2, "llvm.pow"}, {"atan2", 2, nullptr},
    {"hypot", 2, nullptr},
};

}  // namespace

bool loadVectorMathLibrary() {
  static const bool loaded = !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  return loaded;
}

void addVectorMath(llvm::TargetLibraryInfoImpl& tlii, const std::string& features) {
  char isa = features.find("+avx512f") != std::string::npos ? 'e' : features.find("+avx2") != std::string::npos ? 'd' : 0;
  if (!isa || !loadVectorMathLibrary()) return;
  int floatLanes = isa == 'e' ? 16 : 8, doubleLanes = floatLanes / 2;
  // VecDesc holds StringRefs: the names live as long as the process (one set per ISA).
  static std::mutex mutex;
  static std::deque<std::string> names;
  static std::vector<llvm::VecDesc> table[2];
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<llvm::VecDesc>& descs = table[isa == 'e'];
  if (descs.empty()) {
    auto keep = [&](std::string s) -> llvm::StringRef { return names.emplace_back(std::move(s)); };
    for (const MathFn& f : kFunctions) {
      std::string vs(size_t(f.args), 'v');
      for (bool single : {true, false}) {
        int lanes = single ? floatLanes : doubleLanes;
        std::string scalar = std::string(f.name) + (single ? "f" : "");
        llvm::StringRef vector = keep("_ZGV" + std::string(1, isa) + "N" + std::to_string(lanes) + vs + "_" + scalar);
        llvm::StringRef abi = keep("_ZGV_LLVM_N" + std::to_string(lanes) + vs);
        auto lanesOf = llvm::ElementCount::getFixed(unsigned(lanes));
        descs.emplace_back(keep(scalar), vector, lanesOf, false, abi);
        if (f.intrinsic) descs.emplace_back(keep(std::string(f.intrinsic) + (single ? ".f32" : ".f64")), vector, lanesOf, false, abi);
      }
    }
  }
  tlii.addVectorizableFunctions(descs);
}

}  // namespace rlx
