// Depthwise convolutions over small planes with 16 channels in a vector's lanes: a 7 x 7 or 14 x 14
// row fills a fraction of the row kernel's 16 lanes, while every channel-lane vector is full.
#pragma once
#include <cstdint>

#include "runtime/llvm/window_geometry.h"

namespace rlx {

// Whether the padded window `w` (rlx_sgemm_padded's, its taps split) runs with channels in the lanes:
// enough channels, small padded planes, compact output planes, and every plane's window starting at
// the same place of its padded plane.
bool channelLanesFit(const Window& w);

// Computes `w` (channelLanesFit) on the thread pool, 16 channels of one image per unit: their padded
// planes transposed into one channel-minor plane, the window's taps accumulated per output pixel (the
// row kernel's sums in its order, so the results are the same), transposed back and passed to the
// epilogue as a block of 16 channels. Returns the first failure code.
int32_t runChannelLanes(Window& w);

}  // namespace rlx
