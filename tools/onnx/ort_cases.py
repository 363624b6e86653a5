# The shared tail of the gen_*_cases.py generators: one case in the ONNX backend-test layout
# (CASE/model.onnx, CASE/test_data_set_0/input_N.pb, output_N.pb), ONNX Runtime's outputs expected.
import os

import onnx
import onnxruntime as ort
from onnx import numpy_helper


def save_case(root, name, model, inputs):
    """inputs: list of (name, array). Runs `model` in ONNX Runtime; writes it, the inputs and outputs."""
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    results = sess.run(None, dict(inputs))
    d = os.path.join(root, name, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(root, name, "model.onnx"))
    for k, (n, a) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(a, n), os.path.join(d, f"input_{k}.pb"))
    for k, (out, r) in enumerate(zip(model.graph.output, results)):
        onnx.save_tensor(numpy_helper.from_array(r, out.name), os.path.join(d, f"output_{k}.pb"))
