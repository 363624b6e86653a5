#!/usr/bin/env python3
# Peer implementations of the execution workloads (numpy, PyTorch eager, ONNX Runtime, TVM), timed
# in one process per (peer, workload, threads); run_bench.py launches it and compares the outputs.
#
#   peers.py PEER WORKLOAD --inputs DIR --out FILE.npy --reps N --threads T
# reads DIR/<param>.npy (the parameters of bench/workloads/WORKLOAD.relax), prints one JSON line
# {"median_ms", "min_ms", "runs"} or {"skip": reason}. Thread counts are also set by the caller in
# the environment (OPENBLAS/OMP_NUM_THREADS) before numpy is imported.
import json
import os
import re
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
EPS = 1e-5


def params(workload):
    """[(name, shape)] of main's parameters, read from the .relax file."""
    text = open(os.path.join(BENCH, "workloads", workload + ".relax")).read()
    sig = re.search(r"def main\((.*?)\) ->", text).group(1)
    return [(n, tuple(int(d) for d in s.split(",") if d.strip()))
            for n, s in re.findall(r'(\w+): R\.Tensor\(\(([\d, ]*)\), dtype="float32"\)', sig)]


def kind(workload):
    for k in ("mlp", "gpt2", "resnet", "add_chain", "sgemm"):
        if workload.startswith(k):
            return k
    raise ValueError(workload)


# ---------------------------------------------------------------- numpy
def numpy_fn(workload, a):
    import numpy as np
    k = kind(workload)

    def softmax(z):
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layer_norm(z, w, b):
        mu = z.mean(axis=-1, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=-1, keepdims=True)
        return (z - mu) / np.sqrt(var + EPS) * w + b

    if k == "mlp":
        def f():
            h = np.maximum(a["x"] @ a["w1"] + a["b1"], 0)
            h = np.maximum(h @ a["w2"] + a["b2"], 0)
            return softmax(h @ a["w3"] + a["b3"])
    elif k == "sgemm":
        def f():
            return a["a"] @ a["b"]
    elif k == "add_chain":
        n = chain_length(workload)

        def f():
            v, y = a["x"], a["y"]
            for _ in range(n):
                v = np.add(v, y)
            return v
    elif k == "gpt2":
        def f():
            x = a["x"]
            s = x.shape[1]
            qkv = layer_norm(x, a["ln1_w"], a["ln1_b"]) @ a["attn_w"] + a["attn_b"]
            q, kk, v = np.split(qkv, 3, axis=2)
            q = q.reshape(1, s, 12, 64).transpose(0, 2, 1, 3)
            kk = kk.reshape(1, s, 12, 64).transpose(0, 2, 3, 1)
            v = v.reshape(1, s, 12, 64).transpose(0, 2, 1, 3)
            mask = np.triu(np.full((s, s), -1e9, np.float32), 1)
            p = softmax((q @ kk) * np.float32(0.125) + mask)
            ctx = (p @ v).transpose(0, 2, 1, 3).reshape(1, s, 768)
            h = x + (ctx @ a["proj_w"] + a["proj_b"])
            fc = layer_norm(h, a["ln2_w"], a["ln2_b"]) @ a["fc_w"] + a["fc_b"]
            g = np.float32(0.5) * fc * (1 + np.tanh(np.float32(0.7978845608028654) * (fc + np.float32(0.044715) * fc ** 3)))
            return h + (g @ a["out_w"] + a["out_b"])
    elif k == "resnet":
        from numpy.lib.stride_tricks import sliding_window_view

        def conv(z, w, b):  # 3x3, pad 1, stride 1, NCHW/OIHW, by im2col + one matmul
            c, hh, ww = z.shape[1:]
            p = np.pad(z[0], ((0, 0), (1, 1), (1, 1)))
            cols = sliding_window_view(p, (3, 3), axis=(1, 2))  # c, h, w, 3, 3
            cols = cols.transpose(0, 3, 4, 1, 2).reshape(c * 9, hh * ww)
            return (w.reshape(w.shape[0], -1) @ cols).reshape(1, w.shape[0], hh, ww) + b.reshape(1, -1, 1, 1)

        def f():
            h = np.maximum(conv(a["x"], a["w1"], a["b1"]), 0)
            return np.maximum(conv(h, a["w2"], a["b2"]) + a["x"], 0)
    return f


def chain_length(workload):
    text = open(os.path.join(BENCH, "workloads", workload + ".relax")).read()
    return text.count("R.add(")


# ---------------------------------------------------------------- PyTorch eager
def torch_fn(workload, a, threads):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    torch.set_grad_enabled(False)
    t = {n: torch.from_numpy(v) for n, v in a.items()}
    k = kind(workload)
    if k == "mlp":
        def f():
            h = torch.relu(torch.addmm(t["b1"], t["x"], t["w1"]))
            h = torch.relu(torch.addmm(t["b2"], h, t["w2"]))
            return torch.softmax(torch.addmm(t["b3"], h, t["w3"]), dim=-1)
    elif k == "sgemm":
        def f():
            return torch.matmul(t["a"], t["b"])
    elif k == "add_chain":
        n = chain_length(workload)

        def f():
            v, y = t["x"], t["y"]
            for _ in range(n):
                v = torch.add(v, y)
            return v
    elif k == "gpt2":
        def f():
            x = t["x"]
            s = x.shape[1]
            qkv = F.layer_norm(x, (768,), t["ln1_w"], t["ln1_b"], EPS) @ t["attn_w"] + t["attn_b"]
            q, kk, v = qkv.split(768, dim=2)
            q = q.reshape(1, s, 12, 64).permute(0, 2, 1, 3)
            kk = kk.reshape(1, s, 12, 64).permute(0, 2, 3, 1)
            v = v.reshape(1, s, 12, 64).permute(0, 2, 1, 3)
            mask = torch.triu(torch.full((s, s), -1e9), 1)
            p = torch.softmax(torch.matmul(q, kk) * 0.125 + mask, dim=-1)
            ctx = torch.matmul(p, v).permute(0, 2, 1, 3).reshape(1, s, 768)
            h = x + (ctx @ t["proj_w"] + t["proj_b"])
            fc = F.layer_norm(h, (768,), t["ln2_w"], t["ln2_b"], EPS) @ t["fc_w"] + t["fc_b"]
            return h + (F.gelu(fc, approximate="tanh") @ t["out_w"] + t["out_b"])
    elif k == "resnet":
        def f():
            h = torch.relu(F.conv2d(t["x"], t["w1"], t["b1"], padding=1))
            return torch.relu(F.conv2d(h, t["w2"], t["b2"], padding=1) + t["x"])
    return lambda: f().numpy()


# ---------------------------------------------------------------- ONNX Runtime
def onnx_model(workload, a):
    import onnx
    from onnx import TensorProto, helper as oh
    k = kind(workload)
    nodes, inits = [], []
    n_ = [0]

    def node(op, ins, **attrs):
        n_[0] += 1
        out = "t%d" % n_[0]
        nodes.append(oh.make_node(op, ins, [out], **attrs))
        return out

    def const(name, vals, dtype=TensorProto.INT64, dims=None):
        inits.append(oh.make_tensor(name, dtype, dims if dims is not None else [len(vals)], vals))
        return name

    if k == "mlp":
        h = node("Relu", [node("Add", [node("MatMul", ["x", "w1"]), "b1"])])
        h = node("Relu", [node("Add", [node("MatMul", [h, "w2"]), "b2"])])
        out = node("Softmax", [node("Add", [node("MatMul", [h, "w3"]), "b3"])], axis=-1)
    elif k == "sgemm":
        out = node("MatMul", ["a", "b"])
    elif k == "add_chain":
        out = "x"
        for _ in range(chain_length(workload)):
            out = node("Add", [out, "y"])
    elif k == "resnet":
        h = node("Relu", [node("Conv", ["x", "w1", "b1"], pads=[1, 1, 1, 1])])
        out = node("Relu", [node("Add", [node("Conv", [h, "w2", "b2"], pads=[1, 1, 1, 1]), "x"])])
    elif k == "gpt2":
        s = a["x"].shape[1]
        import numpy as np
        const("heads", [1, s, 12, 64])
        const("flat", [1, s, 768])
        const("split", [768, 768, 768])
        const("scale", [0.125], TensorProto.FLOAT, [])
        mask = np.triu(np.full((s, s), -1e9, np.float32), 1)
        inits.append(oh.make_tensor("mask", TensorProto.FLOAT, [s, s], mask.ravel().tolist()))
        ln1 = node("LayerNormalization", ["x", "ln1_w", "ln1_b"], axis=-1, epsilon=EPS)
        qkv = node("Add", [node("MatMul", [ln1, "attn_w"]), "attn_b"])
        nodes.append(oh.make_node("Split", [qkv, "split"], ["q", "k", "v"], axis=2))
        q = node("Transpose", [node("Reshape", ["q", "heads"])], perm=[0, 2, 1, 3])
        kk = node("Transpose", [node("Reshape", ["k", "heads"])], perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", ["v", "heads"])], perm=[0, 2, 1, 3])
        p = node("Softmax", [node("Add", [node("Mul", [node("MatMul", [q, kk]), "scale"]), "mask"])], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [p, v])], perm=[0, 2, 1, 3]), "flat"])
        h = node("Add", ["x", node("Add", [node("MatMul", [ctx, "proj_w"]), "proj_b"])])
        ln2 = node("LayerNormalization", [h, "ln2_w", "ln2_b"], axis=-1, epsilon=EPS)
        g = node("Gelu", [node("Add", [node("MatMul", [ln2, "fc_w"]), "fc_b"])], approximate="tanh")
        out = node("Add", [h, node("Add", [node("MatMul", [g, "out_w"]), "out_b"])])
    ins = [oh.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape)) for n, v in a.items()]
    outs = [oh.make_tensor_value_info(out, TensorProto.FLOAT, None)]
    graph = oh.make_graph(nodes, workload, ins, outs, inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 20)])
    model.ir_version = 9
    return model.SerializeToString()


def ort_fn(workload, a, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(onnx_model(workload, a), so, providers=["CPUExecutionProvider"])
    return lambda: sess.run(None, a)[0]


# ---------------------------------------------------------------- TVM (the same .relax file)
def tvm_fn(workload, a, threads):
    os.environ["TVM_NUM_THREADS"] = str(threads)
    os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")  # else tvm_ffi may compile a torch extension
    import tvm
    from tvm import relax
    text = open(os.path.join(BENCH, "workloads", workload + ".relax")).read()
    # TVM v0.23 prints out_dtype="void" (the default) but newer parsers reject it as ill-formed.
    mod = tvm.script.from_source(text.replace(', out_dtype="void"', ""))
    from tvm.target import codegen
    target = tvm.target.Target({"kind": "llvm", "mcpu": codegen.llvm_get_system_cpu()})
    ex = tvm.compile(mod, target=target) if hasattr(tvm, "compile") else relax.build(mod, target)
    dev = tvm.cpu()
    vm = relax.VirtualMachine(ex, dev)
    names = [n for n, _ in params(workload)]
    args = [tvm.nd.array(a[n], dev) if hasattr(tvm, "nd") else tvm.runtime.tensor(a[n], dev) for n in names]
    return lambda: vm["main"](*args).numpy()


PEERS = {"numpy": lambda w, a, t: numpy_fn(w, a), "torch": torch_fn, "ort": ort_fn, "tvm": tvm_fn}


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("peer", choices=sorted(PEERS))
    ap.add_argument("workload")
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--out")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--budget", type=float, default=2.0, help="stop timing after this many seconds")
    args = ap.parse_args()
    try:
        import numpy as np
        a = {n: np.load(os.path.join(args.inputs, n + ".npy")) for n, _ in params(args.workload)}
        f = PEERS[args.peer](args.workload, a, args.threads)
    except ImportError as e:
        print(json.dumps({"skip": "not installed (%s)" % e}))
        return
    except Exception as e:  # a peer that cannot express or build the workload is reported, not fatal
        print(json.dumps({"skip": "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:120] if str(e) else "")}))
        return
    out = f()  # warm-up (and the output that is compared with rlx's)
    if args.out:
        np.save(args.out, np.asarray(out, dtype=np.float32))
    ts = []
    start = time.perf_counter()
    for _ in range(args.reps):
        t0 = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t0) * 1e3)
        if time.perf_counter() - start > args.budget and len(ts) >= 3:
            break
    ts.sort()
    print(json.dumps({"median_ms": ts[len(ts) // 2], "min_ms": ts[0], "runs": len(ts)}))


if __name__ == "__main__":
    main()
