// How FuseSoftmaxAttention marks the kernels it makes, for the CPU schedule that runs them whole
// (runtime/llvm/schedule_attention.cc): the PrimFunc attr kKernelAttr = kSoftmaxAttention.
#pragma once

namespace rlx {

inline constexpr const char* kKernelAttr = "rlx.kernel";
inline constexpr const char* kSoftmaxAttention = "softmax_attention";

}  // namespace rlx
