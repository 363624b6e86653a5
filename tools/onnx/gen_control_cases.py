# Writes ONNX Loop/Scan cases whose trip counts, conditions or lengths only the run decides, in the
# ONNX backend-test layout, with ONNX Runtime's outputs as the expected ones. tests/onnx/control
# holds the result (a few KB); `make test` runs it with --no-specialize, so each case must import
# without its input values (rlx builds a recursive function for these loops).
# usage: pip install onnx onnxruntime && python3 tools/onnx/gen_control_cases.py tests/onnx/control
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from ort_cases import save_case

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
rng = np.random.default_rng(0)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value), name))


def write_case(root, name, nodes, inputs, input_infos, outputs_info, opset=17):
    graph = helper.make_graph(nodes, name, input_infos, [vi(n, t, s) for n, t, s in outputs_info])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    save_case(root, name, model, inputs)


def loop_body(name, nodes, state_in, outs, cond_out="cond_out"):
    """state_in: list of (name, type, shape); outs: list of (name, type, shape) after cond."""
    return helper.make_graph(nodes, name, [vi("i", I64, []), vi("cond_in", B, [])] + [vi(n, t, s) for n, t, s in state_in],
                             [vi(cond_out, B, [])] + [vi(n, t, s) for n, t, s in outs])


def main(root):
    shutil.rmtree(root, ignore_errors=True)
    keep_going = helper.make_node("Identity", ["cond_in"], ["cond_out"])

    # A run-time trip count; the state and a scan output of it.
    body = loop_body("body", [keep_going, helper.make_node("Cast", ["i"], ["fi"], to=F), const("k", np.float32(1.5)),
                              helper.make_node("Mul", ["x_in", "k"], ["x2"]), helper.make_node("Add", ["x2", "fi"], ["x_out"]),
                              helper.make_node("Identity", ["x_out"], ["x_scan"])],
                     [("x_in", F, [2, 3])], [("x_out", F, [2, 3]), ("x_scan", F, [2, 3])])
    x = f32(2, 3)
    write_case(root, "test_loop_runtime_trips", [helper.make_node("Loop", ["m", "c", "x"], ["y", "ys"], body=body)],
               [("m", np.array(4, dtype=np.int64)), ("c", np.array(True)), ("x", x)],
               [vi("m", I64, []), vi("c", B, []), vi("x", F, [2, 3])], [("y", F, [2, 3]), ("ys", F, None)])
    # The same run zero times: the scan output is empty with the element's shape.
    write_case(root, "test_loop_zero_trips", [helper.make_node("Loop", ["m", "c", "x"], ["y", "ys"], body=body)],
               [("m", np.array(0, dtype=np.int64)), ("c", np.array(True)), ("x", x)],
               [vi("m", I64, []), vi("c", B, []), vi("x", F, [2, 3])], [("y", F, [2, 3]), ("ys", F, None)])

    # A while loop: no trip count; doubles until the sum passes 100.
    body = loop_body("body", [const("two", np.float32(2)), helper.make_node("Mul", ["y_in", "two"], ["y_out"]),
                              helper.make_node("ReduceSum", ["y_out"], ["s"], keepdims=0), const("limit", np.float32(100)),
                              helper.make_node("Less", ["s", "limit"], ["cond_out"])],
                     [("y_in", F, [2])], [("y_out", F, [2])])
    write_case(root, "test_loop_while", [helper.make_node("Loop", ["", "c", "y"], ["r"], body=body)],
               [("c", np.array(True)), ("y", np.array([1, 2], dtype=np.float32))],
               [vi("c", B, []), vi("y", F, [2])], [("r", F, [2])])

    # The body reads a graph input from the outer scope.
    body = loop_body("body", [keep_going, helper.make_node("MatMul", ["h_in", "w"], ["hw"]), helper.make_node("Tanh", ["hw"], ["h_out"])],
                     [("h_in", F, [1, 4])], [("h_out", F, [1, 4])])
    write_case(root, "test_loop_outer_value", [helper.make_node("Loop", ["m", "c", "h"], ["r"], body=body)],
               [("m", np.array(3, dtype=np.int64)), ("c", np.array(True)), ("h", f32(1, 4)), ("w", f32(4, 4))],
               [vi("m", I64, []), vi("c", B, []), vi("h", F, [1, 4]), vi("w", F, [4, 4])], [("r", F, [1, 4])])

    # A loop-carried value that grows every step.
    body = loop_body("body", [keep_going, helper.make_node("Cast", ["i"], ["fi"], to=F), helper.make_node("Unsqueeze", ["fi", "zero"], ["fi1"]),
                              const("zero", np.array([0], dtype=np.int64)), helper.make_node("Concat", ["v_in", "fi1"], ["v_out"], axis=0)],
                     [("v_in", F, ["n"])], [("v_out", F, ["m"])])
    body.node.insert(0, body.node.pop(3))  # the constant first
    write_case(root, "test_loop_growing_state", [helper.make_node("Loop", ["m", "c", "v"], ["r"], body=body)],
               [("m", np.array(5, dtype=np.int64)), ("c", np.array(True)), ("v", np.array([7], dtype=np.float32))],
               [vi("m", I64, []), vi("c", B, []), vi("v", F, [1])], [("r", F, None)])

    # Scan over a sequence of symbolic length: a running sum (state) and each partial sum.
    sbody = helper.make_graph([helper.make_node("Add", ["acc_in", "x_t"], ["acc_out"]), helper.make_node("Identity", ["acc_out"], ["partial"])], "scan_body",
                              [vi("acc_in", F, [3]), vi("x_t", F, [3])], [vi("acc_out", F, [3]), vi("partial", F, [3])])
    write_case(root, "test_scan_symbolic_length", [helper.make_node("Scan", ["a", "xs"], ["total", "partials"], body=sbody, num_scan_inputs=1)],
               [("a", np.zeros(3, dtype=np.float32)), ("xs", f32(5, 3))],
               [vi("a", F, [3]), vi("xs", F, ["T", 3])], [("total", F, [3]), ("partials", F, None)])
    # ... read backwards along axis 1, the partial sums stacked along axis 1.
    write_case(root, "test_scan_reverse_axis", [helper.make_node("Scan", ["a", "xs"], ["total", "partials"], body=sbody, num_scan_inputs=1,
                                                                  scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])],
               [("a", np.zeros(3, dtype=np.float32)), ("xs", f32(3, 4))],
               [vi("a", F, [3]), vi("xs", F, [3, "T"])], [("total", F, [3]), ("partials", F, None)])
    print(f"wrote {len(os.listdir(root))} cases to {root}")


if __name__ == "__main__":
    main(sys.argv[1])
