# One peer's measurement of one exported model (bench/run_models.py starts it in its own process):
# loads the model, runs it once (its outputs saved and checked by the driver), then times calls
# for up to --budget seconds, and prints one JSON line: median ms, runs, seconds to the first result
# (peak RSS is measured by the driver, around the whole process).
#
#   PY bench/model_peer.py ort|torch|tvm MODEL_DIR --threads T --budget S --out DIR
import argparse
import glob
import json
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def feeds_of(model_dir, meta):
    """{onnx input name: array}, in the model's input order."""
    return {info["onnx"]: np.load(os.path.join(model_dir, "in_%s.npy" % p)) for p, info in meta["inputs"].items()}


def ort_fn(model_dir, meta, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), so, providers=["CPUExecutionProvider"])
    feeds = feeds_of(model_dir, meta)
    return lambda: sess.run(None, feeds)


def torch_fn(model_dir, meta, threads):
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tools", "models"))
    import export_models
    torch.set_num_threads(threads)
    name = os.path.basename(os.path.normpath(model_dir))
    model, feeds, _ = export_models.MODELS[name][0]()
    args = [torch.from_numpy(feeds[n]) for n in feeds]

    def run():
        with torch.inference_mode():
            out = model(*args)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [o.numpy() for o in outs]
    return run


def tvm_fn(model_dir, meta, threads):
    os.environ["TVM_NUM_THREADS"] = str(threads)
    os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    import onnx
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx
    from tvm.target import codegen
    model = onnx.load(os.path.join(model_dir, "model.onnx"))
    feeds = feeds_of(model_dir, meta)
    mod = from_onnx(model, shape_dict={n: list(v.shape) for n, v in feeds.items()}, keep_params_in_input=False)
    mod = relax.transform.DecomposeOpsForInference()(mod)
    target = tvm.target.Target({"kind": "llvm", "mcpu": codegen.llvm_get_system_cpu()})
    ex = tvm.compile(mod, target=target)
    dev = tvm.cpu()
    vm = relax.VirtualMachine(ex, dev)
    tensor = tvm.runtime.tensor if hasattr(tvm.runtime, "tensor") else tvm.nd.array
    args = [tensor(v, dev) for v in feeds.values()]

    def run():
        out = vm["main"](*args)
        outs = list(out) if isinstance(out, (tuple, list)) or hasattr(out, "__len__") and not hasattr(out, "numpy") else [out]
        return [o.numpy() for o in outs]
    return run


PEERS = {"ort": ort_fn, "torch": torch_fn, "tvm": tvm_fn}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("peer", choices=sorted(PEERS))
    ap.add_argument("model_dir")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    meta = json.load(open(os.path.join(a.model_dir, "meta.json")))
    t0 = time.perf_counter()
    run = PEERS[a.peer](a.model_dir, meta, a.threads)
    outs = run()  # warm-up; its outputs are what the driver checks
    first_s = time.perf_counter() - t0
    os.makedirs(a.out, exist_ok=True)
    for old in glob.glob(os.path.join(a.out, "*.npy")):
        os.remove(old)
    for i, o in enumerate(outs):
        np.save(os.path.join(a.out, "out_%d.npy" % i), np.asarray(o))
    times = []
    start = time.perf_counter()
    # At least one timed run (a slow peer: untuned TVM takes seconds a run), then more until the budget.
    while len(times) < a.reps and (not times or time.perf_counter() - start < a.budget):
        t = time.perf_counter()
        run()
        times.append((time.perf_counter() - t) * 1e3)
    print(json.dumps({"median_ms": statistics.median(times), "runs": len(times), "first_s": first_s}))


if __name__ == "__main__":
    main()
