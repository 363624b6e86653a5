# Runs the ONNX backend suite's nine `light` architectures (ResNet-50, DenseNet-121, Inception v1/v2,
# VGG-19, AlexNet, ShuffleNet, SqueezeNet, ZFNet-512; weights made by ConstantOfShape) through
# `rlx run` on their standard input arange(n)/n and compares with the shipped outputs at the ONNX
# runner's tolerances (rtol 1e-3, atol 1e-7).
# usage: pip install onnx==1.22.0 && python3 tools/onnx/run_light_models.py build/tools/rlx
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

rlx = sys.argv[1] if len(sys.argv) > 1 else "build/tools/rlx"
light = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
failures = 0
for name in sorted(f for f in os.listdir(light) if f.endswith(".onnx")):
    path = os.path.join(light, name)
    model = onnx.load(path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in inits]
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    n = int(np.prod(shape))
    x = (np.arange(n, dtype=np.float32) / n).reshape(shape)
    want = numpy_helper.to_array(onnx.load_tensor(path.replace(".onnx", "_output_0.pb")))
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "x.npy"), x)
        param = "".join(c if c.isalnum() or c == "_" else "_" for c in inp.name)
        if not param[0].isalpha():
            param = "input_" + param
        t0 = time.time()
        run = subprocess.run([rlx, "run", path, f"{param}={tmp}/x.npy", "--output-dir", tmp], capture_output=True, text=True)
        seconds = time.time() - t0
        outs = [f for f in os.listdir(tmp) if f != "x.npy" and f.endswith(".npy")]
        if run.returncode != 0 or len(outs) != 1:
            print(f"FAIL {name}: rlx run exited {run.returncode}: {run.stderr.strip()[:300]}")
            failures += 1
            continue
        got = np.load(os.path.join(tmp, outs[0]))
    ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-3, atol=1e-7)
    err = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("nan")
    print(f"{'PASS' if ok else 'FAIL'} {name}: shape {got.shape}, max |diff| {err:.3g}, {seconds:.1f} s (import, lower, compile, run)")
    failures += not ok
print(f"{9 - failures if failures <= 9 else 0} of 9 light models match")
sys.exit(1 if failures else 0)
