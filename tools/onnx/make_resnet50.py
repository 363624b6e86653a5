# Writes a ResNet-50 ONNX model with random weights (about 100 MB of float32 initializers), built
# from onnx's `light_resnet50` test model by turning each ConstantOfShape weight into a random
# initializer (seed 0). Used by bench/bench_import.py; the file is cached, not committed.
# usage: pip install onnx==1.22.0 && python3 tools/onnx/make_resnet50.py OUT.onnx
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main(out):
    light = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", "light_resnet50.onnx")
    model = onnx.load(light)
    graph = model.graph
    shapes = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    rng = np.random.default_rng(0)
    kept, weights = [], []
    for node in graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in shapes:
            shape = tuple(int(d) for d in shapes[node.input[0]])
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            data = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
            if len(shape) == 1:  # batch-norm scales, biases, means: keep them near their roles
                data = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
            weights.append(numpy_helper.from_array(data, node.output[0]))
        else:
            kept.append(node)
    used_shapes = {n.input[0] for n in graph.node if n.op_type == "ConstantOfShape"}
    inits = [t for t in graph.initializer if t.name not in used_shapes] + weights
    del graph.node[:]
    graph.node.extend(kept)
    del graph.initializer[:]
    graph.initializer.extend(inits)
    names = {t.name for t in inits}
    inputs = [i for i in graph.input if i.name not in names and i.name not in used_shapes]
    del graph.input[:]
    graph.input.extend(inputs)
    model.ir_version = max(model.ir_version, 7)  # initializers need not be graph inputs from IR 4 on
    onnx.checker.check_model(model)
    onnx.save(model, out)
    total = sum(np.prod(t.dims) * 4 for t in weights)
    print(f"wrote {out}: {len(weights)} weights, {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main(sys.argv[1])
