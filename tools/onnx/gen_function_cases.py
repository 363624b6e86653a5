# Writes ONNX models that call model-local functions (ModelProto.functions), in the ONNX backend-test
# layout with ONNX Runtime's outputs as the expected ones: a function attribute taken from the
# call, from the function's own default (FunctionProto.attribute_proto), and a function calling
# another. tests/onnx/functions holds the result; `make test` runs it.
# usage: pip install onnx onnxruntime && python3 tools/onnx/gen_function_cases.py tests/onnx/functions
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from ort_cases import save_case

F = TensorProto.FLOAT
LOCAL = "local.fn"
rng = np.random.default_rng(0)


def scaled_leaky():
    """y = LeakyRelu(x, alpha) * scale, with alpha defaulting to 0.25 and scale to 3.0."""
    alpha = helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT)
    scale = helper.make_node("Constant", [], ["s"], value_float=0.0)
    scale.attribute[0].ref_attr_name = "scale"
    leaky = helper.make_node("LeakyRelu", ["x"], ["l"])
    leaky.attribute.append(alpha)
    nodes = [leaky, scale, helper.make_node("Mul", ["l", "s"], ["y"])]
    return helper.make_function(LOCAL, "ScaledLeaky", ["x"], ["y"], nodes, [helper.make_opsetid("", 17)],
                                attributes=[], attribute_protos=[helper.make_attribute("alpha", 0.25), helper.make_attribute("scale", 3.0)])


def twice():
    """ScaledLeaky applied twice, the second time with alpha = 0.5."""
    nodes = [helper.make_node("ScaledLeaky", ["x"], ["a"], domain=LOCAL), helper.make_node("ScaledLeaky", ["a"], ["y"], domain=LOCAL, alpha=0.5)]
    return helper.make_function(LOCAL, "Twice", ["x"], ["y"], nodes, [helper.make_opsetid("", 17), helper.make_opsetid(LOCAL, 1)])


def write_case(root, name, node, x):
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", F, x.shape)], [helper.make_tensor_value_info("y", F, x.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(LOCAL, 1)], functions=[scaled_leaky(), twice()])
    model.ir_version = 9
    save_case(root, name, model, [("x", x)])


def main(root):
    shutil.rmtree(root, ignore_errors=True)
    x = rng.standard_normal((2, 5)).astype(np.float32)
    write_case(root, "test_function_defaults", helper.make_node("ScaledLeaky", ["x"], ["y"], domain=LOCAL), x)
    write_case(root, "test_function_call_attrs", helper.make_node("ScaledLeaky", ["x"], ["y"], domain=LOCAL, alpha=0.1, scale=-2.0), x)
    write_case(root, "test_function_nested", helper.make_node("Twice", ["x"], ["y"], domain=LOCAL), x)
    print(f"wrote {len(os.listdir(root))} cases to {root}")


if __name__ == "__main__":
    main(sys.argv[1])
