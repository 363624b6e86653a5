// rlx::nn umbrella header: the PyTorch-like API that builds Relax IRModules (TVM's relax.frontend.nn).
// Tensor, Parameter, Module (+ ModuleList/ModuleDict), Mutator, ModuleSpec, layers, op, files.
//
//   struct MLP : nn::Module {
//     nn::ModuleRef<nn::Linear> fc1 = registerModule("fc1", std::make_shared<nn::Linear>(8, 16));
//     nn::ModuleRef<nn::Linear> fc2 = registerModule("fc2", std::make_shared<nn::Linear>(16, 8));
//     nn::Tensor forward(const nn::Tensor& x) override { return fc2(nn::op::relu(fc1(x))); }
//   };
//   MLP mlp;
//   nn::ModuleSpec spec;
//   spec.add("forward", {{"x", nn::spec::Tensor({"n", 8}, "float32")}}, &MLP::forward);
//   auto exported = mlp.exportIR(spec);  // Result<Exported>: the IRModule and (name, shape, dtype) params
#pragma once
#include "frontend/nn/error.h"
#include "frontend/nn/export.h"
#include "frontend/nn/extern.h"
#include "frontend/nn/jit.h"
#include "frontend/nn/module.h"
#include "frontend/nn/modules.h"
#include "frontend/nn/mutator.h"
#include "frontend/nn/op.h"
#include "frontend/nn/parameter.h"
#include "frontend/nn/spec.h"
#include "frontend/nn/state_dict.h"
#include "frontend/nn/tensor.h"
#include "frontend/nn/types.h"
