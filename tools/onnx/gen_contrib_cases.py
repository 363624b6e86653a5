# Writes test cases for ONNX Runtime's com.microsoft contrib ops in the ONNX backend-test layout
# (CASE/model.onnx, CASE/test_data_set_0/input_N.pb, output_N.pb), with ONNX Runtime's outputs as
# the expected ones; tests/onnx/contrib holds the result (a few KB) and `make test` runs it.
# usage: pip install onnx onnxruntime && python3 tools/onnx/gen_contrib_cases.py tests/onnx/contrib
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from ort_cases import save_case

MS = "com.microsoft"
rng = np.random.default_rng(0)


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def write_case(root, name, node, inputs, outputs_info, initializers=()):
    """inputs: list of (name, array); outputs_info: list of (name, elem_type, shape or None)."""
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs_info],
        initializer=[numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    save_case(root, name, model, inputs)


def main(root):
    shutil.rmtree(root, ignore_errors=True)
    F = TensorProto.FLOAT
    x = f32(2, 3, 8)
    write_case(root, "test_gelu", helper.make_node("Gelu", ["x"], ["y"], domain=MS), [("x", x)], [("y", F, None)])
    write_case(root, "test_fast_gelu_bias", helper.make_node("FastGelu", ["x", "b"], ["y"], domain=MS), [("x", x), ("b", f32(8))], [("y", F, None)])
    write_case(root, "test_bias_gelu", helper.make_node("BiasGelu", ["x", "b"], ["y"], domain=MS), [("x", x), ("b", f32(8))], [("y", F, None)])
    write_case(root, "test_quick_gelu", helper.make_node("QuickGelu", ["x"], ["y"], domain=MS, alpha=1.5), [("x", x)], [("y", F, None)])
    write_case(root, "test_fused_matmul_trans", helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS, alpha=0.5, transA=1, transB=1),
               [("a", f32(2, 5, 4)), ("b", f32(2, 3, 5))], [("y", F, None)])
    write_case(root, "test_skip_layer_norm", helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"], ["y", "mean", "inv_std", "sum"], domain=MS, epsilon=1e-5),
               [("x", x), ("skip", f32(2, 3, 8)), ("gamma", f32(8)), ("beta", f32(8)), ("bias", f32(8))],
               [("y", F, None), ("mean", F, None), ("inv_std", F, None), ("sum", F, None)])
    write_case(root, "test_skip_simplified_layer_norm", helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma"], ["y"], domain=MS, epsilon=1e-5),
               [("x", x), ("skip", f32(2, 3, 8)), ("gamma", f32(8))], [("y", F, None)])
    ids = rng.integers(0, 20, size=(2, 6)).astype(np.int32)
    seg = rng.integers(0, 2, size=(2, 6)).astype(np.int32)
    mask = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], dtype=np.int32)
    write_case(root, "test_embed_layer_norm", helper.make_node("EmbedLayerNormalization", ["ids", "seg", "word", "pos", "segemb", "gamma", "beta", "mask"], ["y", "mask_index"], domain=MS, epsilon=1e-5),
               [("ids", ids), ("seg", seg), ("word", f32(20, 8)), ("pos", f32(16, 8)), ("segemb", f32(2, 8)), ("gamma", f32(8)), ("beta", f32(8)), ("mask", mask)],
               [("y", F, None), ("mask_index", TensorProto.INT32, None)])
    hidden, heads = 8, 2
    inp = f32(2, 4, hidden)
    w, bq = f32(hidden, 3 * hidden, scale=0.3), f32(3 * hidden)
    raw_mask = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], dtype=np.int32)
    write_case(root, "test_attention_mask", helper.make_node("Attention", ["input", "weights", "bias", "mask"], ["y"], domain=MS, num_heads=heads),
               [("input", inp), ("weights", w), ("bias", bq), ("mask", raw_mask)], [("y", F, None)])
    write_case(root, "test_attention_unidirectional", helper.make_node("Attention", ["input", "weights", "bias"], ["y"], domain=MS, num_heads=heads, unidirectional=1),
               [("input", inp), ("weights", w), ("bias", bq)], [("y", F, None)])
    lengths = np.array([2, 4], dtype=np.int32)
    write_case(root, "test_attention_mask_lengths", helper.make_node("Attention", ["input", "weights", "bias", "mask"], ["y"], domain=MS, num_heads=heads),
               [("input", inp), ("weights", w), ("bias", bq), ("mask", lengths)], [("y", F, None)])
    q, k, v = f32(2, 3, hidden), f32(2, 5, hidden), f32(2, 5, hidden)
    kpm = np.array([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]], dtype=np.int32)
    write_case(root, "test_multi_head_attention", helper.make_node("MultiHeadAttention", ["q", "k", "v", "bias", "kpm"], ["y"], domain=MS, num_heads=heads),
               [("q", q), ("k", k), ("v", v), ("bias", f32(3 * hidden)), ("kpm", kpm)], [("y", F, None)])
    print(f"wrote {len(os.listdir(root))} cases to {root}")


if __name__ == "__main__":
    main(sys.argv[1])
