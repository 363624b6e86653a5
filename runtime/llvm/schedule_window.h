// CPU schedule, padded windows: a padding stage whose only reader is a depthwise convolution's GEMM
// nest (or a max pooling nest) is folded into one rlx_sgemm_padded (rlx_pool_padded) call
// (window_conv.h), which pads a plane at a time instead of writing and reading back the padded input;
// over channels-last tensors, into one rlx_window_channels_last call (window_channels_last.h).
#pragma once
#include "ir/tir.h"

namespace rlx {

// `func` with each such pair of root statements replaced by the call: the stage a full write of a
// private compact buffer T = T.if_then_else(bounds, X[i.., y - top, x - left], 0) (or Select) over
// constant shapes, padding only the last two dims, X compact, the bounds exactly X's; the next
// statement a GEMM nest (schedule_gemm.h) of one row reading T as B, with 2+ reduction dims of at
// most 64 taps, T read nowhere else; or, T padded with the lowest float, a max pooling nest from
// that value over it (schedule_window.cc: poolCall); or T padding the two dims before the last (rows
// and columns of an NHWC tensor) and the next statement a depthwise convolution over it with the
// channels last (schedule_window.cc: channelsLastWindow). Only on AVX-512 hosts (the runtime's window
// kernels).
// Returns `func` itself when nothing is fused.
PrimFuncRef fusePaddedWindows(const PrimFuncRef& func);

}  // namespace rlx
