// The normalization decompositions SimplifyInference applies, shared with DecomposeOpsForInference
// and DecomposeOpsForTraining (passes/decompose_ops_for_inference.cc, ..._for_training.cc).
#pragma once
#include "ir/expr.h"

namespace rlx {

// How a 1-D per-channel parameter is reshaped to broadcast against the data.
enum class ChannelExpand {
  WhenNeeded,  // only when the channel axes are not the trailing ones (SimplifyInference)
  Always,      // always R.expand_dims, even to a leading-ones shape (TVM's DecomposeOps)
};

// batch_norm `c` on ndim-D data of dtype `dtype` at inference: the tuple
// ((x - mean) / sqrt(var + eps) * gamma + beta, moving_mean, moving_var) from the moving
// statistics (args 3 and 4), unnormalized (nested calls).
Expr decomposeBatchNorm(const Call& c, int ndim, DataType dtype, ChannelExpand expand);
// layer_norm `c`: (x - mean(x)) / sqrt(variance(x) + eps) * gamma + beta over its axes.
Expr decomposeLayerNorm(const Call& c, int ndim, DataType dtype);

}  // namespace rlx
