// The scalar -> vector function table for glibc's libmvec (x86_64 vector ABI names: _ZGV, ISA letter
// e = AVX-512 or d = AVX2, N = unmasked, lane count, one v per vector argument, then the scalar name).
#include "runtime/llvm/vector_math.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Support/DynamicLibrary.h>

#include <deque>
#include <mutex>
#include <vector>

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
  bool avx512 = features.find("+avx512f") != std::string::npos, avx2 = avx512 || features.find("+avx2") != std::string::npos;
  if (!avx2 || !loadVectorMathLibrary()) return;
  // Every vector width the target runs, not only the widest: the vectorizer picks its factor first
  // (8 floats when the target prefers 256-bit vectors) and finds a variant only of that width, so
  // an AVX-512 host needs the AVX2 variants too, else erff & co. stay eight scalar calls.
  struct Isa {
    char letter;
    int floatLanes;
  };
  std::vector<Isa> isas = {{'d', 8}};
  if (avx512) isas.push_back({'e', 16});
  // VecDesc holds StringRefs: the names live as long as the process (one set per ISA combination).
  static std::mutex mutex;
  static std::deque<std::string> names;
  static std::vector<llvm::VecDesc> table[2];
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<llvm::VecDesc>& descs = table[avx512];
  if (descs.empty()) {
    auto keep = [&](std::string s) -> llvm::StringRef { return names.emplace_back(std::move(s)); };
    for (const Isa& isa : isas) {
      for (const MathFn& f : kFunctions) {
        std::string vs(size_t(f.args), 'v');
        for (bool single : {true, false}) {
          int lanes = single ? isa.floatLanes : isa.floatLanes / 2;
          std::string scalar = std::string(f.name) + (single ? "f" : "");
          llvm::StringRef vector = keep("_ZGV" + std::string(1, isa.letter) + "N" + std::to_string(lanes) + vs + "_" + scalar);
          llvm::StringRef abi = keep("_ZGV_LLVM_N" + std::to_string(lanes) + vs);
          auto lanesOf = llvm::ElementCount::getFixed(unsigned(lanes));
          descs.emplace_back(keep(scalar), vector, lanesOf, false, abi);
          if (f.intrinsic) descs.emplace_back(keep(std::string(f.intrinsic) + (single ? ".f32" : ".f64")), vector, lanesOf, false, abi);
        }
      }
    }
  }
  tlii.addVectorizableFunctions(descs);
}

}  // namespace rlx
