// Vector math for kernels: loops that call expf, tanhf, ... vectorize into glibc's libmvec
// variants (AVX-512 or AVX2), which the JIT resolves from libmvec.so.1 loaded into the process.
#pragma once
#include <string>

namespace llvm {
class TargetLibraryInfoImpl;
}

namespace rlx {

// Loads libmvec once (permanently, for the JIT's symbol lookup); false when it is not installed.
bool loadVectorMathLibrary();

// Registers libmvec's vector variants of the math functions kernels call with `tlii`, for the
// widest vector ISA in `features` (the target's feature string: "+avx512f", "+avx2"). Does nothing
// when libmvec cannot be loaded, so the loops stay scalar calls.
void addVectorMath(llvm::TargetLibraryInfoImpl& tlii, const std::string& features);

}  // namespace rlx
