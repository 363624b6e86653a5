// rlx::nn umbrella header: the PyTorch-like API that builds Relax IRModules (TVM's relax.frontend.nn).
// Tensor, Parameter, Module (+ ModuleList/ModuleDict), Mutator, ModuleSpec, layers, op, files.
#pragma once
#include "frontend/nn/error.h"
#include "frontend/nn/export.h"
#include "frontend/nn/module.h"
#include "frontend/nn/modules.h"
#include "frontend/nn/mutator.h"
#include "frontend/nn/op.h"
#include "frontend/nn/parameter.h"
#include "frontend/nn/spec.h"
#include "frontend/nn/state_dict.h"
#include "frontend/nn/tensor.h"
#include "frontend/nn/types.h"
