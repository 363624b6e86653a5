# Writes 3-D ConvTranspose cases (strides, pads, output_padding, dilations, groups, output_shape,
# auto_pad) in the ONNX backend-test layout with ONNX Runtime's outputs as the expected ones
# (rlx decomposes the op into a zero-dilated, padded conv3d). tests/onnx/convtranspose3d holds them.
# usage: pip install onnx onnxruntime && python3 tools/onnx/gen_conv_transpose3d_cases.py tests/onnx/convtranspose3d
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from ort_cases import save_case

rng = np.random.default_rng(0)


def write_case(root, name, x, w, b=None, **attrs):
    inputs = [("x", x), ("w", w)] + ([("b", b)] if b is not None else [])
    node = helper.make_node("ConvTranspose", [n for n, _ in inputs], ["y"], **attrs)
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    save_case(root, name, model, inputs)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def main(root):
    shutil.rmtree(root, ignore_errors=True)
    x = f32(1, 2, 3, 4, 3)
    write_case(root, "test_convtranspose3d_strides_pads", x, f32(2, 3, 3, 2, 3), f32(3), strides=[2, 1, 3], pads=[1, 0, 1, 0, 1, 2])
    write_case(root, "test_convtranspose3d_output_padding_dilation", x, f32(2, 2, 2, 3, 2), strides=[2, 2, 2], output_padding=[1, 0, 1], dilations=[1, 2, 1])
    # Positive values: no cancellation for the summation order to show through the tolerance.
    pos = lambda *shape: rng.uniform(0.1, 1.0, shape).astype(np.float32)  # noqa: E731
    write_case(root, "test_convtranspose3d_groups", pos(2, 4, 2, 3, 2), pos(4, 3, 2, 2, 2), pos(6), group=2, strides=[1, 2, 1])
    # An odd total padding from output_shape (no auto_pad): the extra row goes at the start.
    write_case(root, "test_convtranspose3d_output_shape_odd", x, f32(2, 1, 3, 3, 3), strides=[2, 2, 2], output_shape=[6, 8, 6])
    write_case(root, "test_convtranspose3d_output_shape", x, f32(2, 1, 3, 3, 3), strides=[2, 2, 2], output_shape=[6, 8, 7])
    write_case(root, "test_convtranspose3d_same_upper", x, f32(2, 2, 3, 3, 3), strides=[2, 1, 2], auto_pad="SAME_UPPER")
    write_case(root, "test_convtranspose3d_large_pads", x, f32(2, 2, 2, 2, 2), pads=[2, 1, 0, 0, 2, 1])
    print(f"wrote {len(os.listdir(root))} cases to {root}")


if __name__ == "__main__":
    main(sys.argv[1])
