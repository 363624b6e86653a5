#!/usr/bin/env python3
# Execution benchmark driver: runs every bench/workloads/*.relax on `rlx run` and on the peers that
# are installed (numpy, PyTorch, oneDNN, ONNX Runtime, TVM), same inputs, same run, and prints one
# table of medians and rlx/best-peer ratios. A slow or failing rlx prints "timeout"/"error", never hangs.
#
#   /usr/bin/python3 bench/run_bench.py [--rlx build/tools/rlx] [--only mlp,sgemm] [--threads 1,2]
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import peers  # noqa: E402  (workload parameters and shapes)

# (workload file, rlx pipeline, what it is)
WORKLOADS = [
    ("mlp_b1", "O2", "W1 MLP 784-512-512-10 ReLU, softmax, batch 1"),
    ("mlp_b64", "O2", "W1 same MLP, batch 64"),
    ("gpt2_block", "O2", "W2 GPT-2-small block, seq 128"),
    ("resnet_block", "O2", "W3 ResNet basic block 64ch 56x56"),
    ("add_chain", "build", "W4 1000 adds on [4], unfused (per-op overhead)"),
    ("add_chain", "O2", "W4 same, O2 (fusion allowed)"),
    ("sgemm_1024x1024x1024", "O2", "sgemm 1024^3"),
    ("sgemm_1x784x512", "O2", "sgemm 1x784x512"),
    ("sgemm_64x784x512", "O2", "sgemm 64x784x512"),
    ("sgemm_128x768x2304", "O2", "sgemm 128x768x2304"),
    ("sgemm_128x768x3072", "O2", "sgemm 128x768x3072"),
    ("sgemm_128x3072x768", "O2", "sgemm 128x3072x768"),
]
PEERS = ["numpy", "torch", "onednn", "ort", "tvm"]
TOL = 2e-3  # max |a - b| / max(1, max |ref|) for an output to count as equal


def make_inputs(workload, d, seed=0):
    """Random parameters, scaled like a trained net's so that softmax/LayerNorm stay in range."""
    import numpy as np
    rng = np.random.RandomState(seed)
    paths = {}
    for name, shape in peers.params(workload):
        v = rng.standard_normal(shape)
        if name.startswith("ln") and name.endswith("_w"):
            v = 1 + 0.1 * v
        elif len(shape) == 1 and name not in ("x", "y"):
            v = 0.1 * v
        elif name.startswith("w") or name.endswith("_w"):
            fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
            v = v / np.sqrt(fan_in)
        path = os.path.join(d, name + ".npy")
        np.save(path, v.astype(np.float32))
        paths[name] = path
    return paths


def close(out, ref):
    import numpy as np
    if out.shape != ref.shape:
        return False, "shape %s vs %s" % (out.shape, ref.shape)
    if not np.all(np.isfinite(out)):
        return False, "non-finite"
    err = float(np.max(np.abs(out.astype(np.float64) - ref)) / max(1.0, float(np.max(np.abs(ref)))))
    return err <= TOL, "%.1e" % err


def run_rlx(rlx, workload, pipeline, inputs, threads, reps, timeout, outdir):
    """(median ms or None, status): status is 'ok', 'timeout' or 'error: ...'."""
    cmd = [rlx, "run", os.path.join(BENCH, "workloads", workload + ".relax"), "--pipeline", pipeline,
           "--time", str(reps), "--output-dir", outdir] + ["%s=%s" % (n, p) for n, p in inputs.items()]
    env = dict(os.environ, RLX_NUM_THREADS=str(threads))
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    except OSError as e:
        return None, "error: %s" % e
    m = re.search(r"time: median ([\d.]+) ms", r.stderr)
    if r.returncode != 0 or not m:
        last = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
        return None, "error: " + last[:100]
    return float(m.group(1)), "ok"


def peer_cmd(peer, args):
    if peer == "onednn":
        return [args.onednn] if args.onednn and os.path.exists(args.onednn) else None
    py = args.venv_python if peer in ("ort", "tvm") else args.python
    return [py, os.path.join(BENCH, "peers.py"), peer] if py and os.path.exists(py) else None


def run_peer(peer, args, workload, inputs_dir, threads, out):
    base = peer_cmd(peer, args)
    if base is None:
        return None, "not installed"
    t = str(threads)
    env = dict(os.environ, OMP_NUM_THREADS=t, OPENBLAS_NUM_THREADS=t, MKL_NUM_THREADS=t, TVM_NUM_THREADS=t)
    # Some machines here pin OpenBLAS to an older core type (OPENBLAS_CORETYPE, with its L2 size) for
    # the sake of old OpenBLAS builds; it halves numpy's and PyTorch's GEMMs on a current one. The
    # peers run with OpenBLAS's own choice; their outputs are still checked against the reference.
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(var, None)
    cmd = base + [workload, "--inputs", inputs_dir, "--out", out, "--threads", t, "--reps", str(args.reps),
                  "--budget", str(args.budget)]
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    if r.returncode != 0 or not lines:
        return None, "error: " + ((r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1])[:100]
    res = json.loads(lines[-1])
    if "skip" in res:
        return None, res["skip"]
    return res["median_ms"], "ok"


def fmt(ms):
    if ms is None:
        return "-"
    return "%.3g" % ms if ms < 100 else "%.0f" % ms


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rlx", default=os.environ.get("RLX", os.path.join(ROOT, "build", "tools", "rlx")))
    ap.add_argument("--onednn", default=None, help="rlx_bench_onednn binary (default: next to rlx's build)")
    ap.add_argument("--python", default="/usr/bin/python3", help="python with Debian numpy and torch")
    ap.add_argument("--venv-python", default=os.environ.get("RLX_BENCH_VENV_PYTHON", "/opt/rlx-bench-venv/bin/python"),
                    help="python with pip onnxruntime/onnx and apache-tvm")
    ap.add_argument("--only", default="", help="comma-separated workload name prefixes")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per rlx or peer process")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds of timed runs per measurement")
    ap.add_argument("--rounds", type=int, default=3,
                    help="measurements per tool, interleaved (rlx and every peer in turn); the median is reported")
    ap.add_argument("--reps", type=int, default=5000,
                    help="most timed runs per measurement (the budget ends it first for all but tiny workloads)")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    if args.onednn is None:
        args.onednn = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.rlx))), "bench", "rlx_bench_onednn")
    threads = [int(t) for t in args.threads.split(",")]
    peer_list = [p for p in args.peers.split(",") if p]
    only = [o for o in args.only.split(",") if o]
    todo = [w for w in WORKLOADS if not only or any(w[0].startswith(o) for o in only)]

    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print("# %s  %s  %s" % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), platform.node(), uptime), flush=True)
    print("# rlx: %s   peers: %s   threads: %s" % (args.rlx, ",".join(peer_list), args.threads), flush=True)
    import numpy as np
    rows, raw, notes = [], [], []
    peer_cache = {}  # (workload, threads, peer) -> (ms, status): add_chain has two rlx rows
    tmp = tempfile.mkdtemp(prefix="rlx-bench-")
    try:
        for workload, pipeline, what in todo:
            d = os.path.join(tmp, workload)
            os.makedirs(d, exist_ok=True)
            inputs = make_inputs(workload, d) if not os.path.exists(os.path.join(d, "inputs.done")) else \
                {n: os.path.join(d, n + ".npy") for n, _ in peers.params(workload)}
            open(os.path.join(d, "inputs.done"), "w").close()
            ref = None
            est = None  # rlx's ms per run at 1 thread, to choose --time N
            for t in threads:
                # Rounds interleave rlx and the peers, so that a noisy stretch of a shared host
                # lands on all of them rather than on whichever ran then; each reports the median of
                # its rounds' medians.
                times = {p: [] for p in peer_list}
                statuses = {}
                rlx_times, rlx_status = [], "not run"
                outdir = os.path.join(d, "rlx_%s_t%d" % (pipeline, t))
                for rnd in range(args.rounds):
                    for p in peer_list:
                        out = os.path.join(d, "%s_t%d.npy" % (p, t))
                        key = (workload, t, p, rnd)
                        if key not in peer_cache:
                            peer_cache[key] = run_peer(p, args, workload, d, t, out)
                        ms, statuses[p] = peer_cache[key]
                        if ms is not None:
                            times[p].append(ms)
                    if est is None:
                        # a short probe run, then enough runs per round to fill the budget
                        ms, rlx_status = run_rlx(args.rlx, workload, pipeline, inputs, t, 3, args.timeout, outdir)
                        if ms is None:
                            break
                        est = ms
                    reps = max(3, min(args.reps, int(args.budget * 1e3 / max(est, 1e-3))))
                    ms, rlx_status = run_rlx(args.rlx, workload, pipeline, inputs, t, reps, args.timeout, outdir)
                    if ms is None:
                        break
                    rlx_times.append(ms)
                res = {}
                # numpy's output is the reference for every check
                for p in peer_list:
                    out = os.path.join(d, "%s_t%d.npy" % (p, t))
                    ms = statistics.median(times[p]) if times[p] else None
                    status = statuses.get(p, "not run")
                    check = ""
                    if ms is not None and os.path.exists(out):
                        o = np.load(out)
                        if ref is None and p == "numpy":
                            ref = o.astype(np.float64)
                        elif ref is not None:
                            ok, check = close(o, ref)
                            if not ok:
                                notes.append("%s %s t%d: output differs from numpy (%s)" % (workload, p, t, check))
                    elif ms is None and status != "not installed" and t == threads[0] and pipeline == "O2":
                        notes.append("%s %s: %s" % (workload, p, status))
                    res[p] = ms
                ms = statistics.median(rlx_times) if rlx_times and len(rlx_times) == args.rounds else None
                status = rlx_status
                check = status
                if ms is not None:
                    out = os.path.join(outdir, "main.npy")
                    if ref is not None and os.path.exists(out):
                        ok, err = close(np.load(out), ref)
                        check = "ok (%s)" % err if ok else "WRONG (%s)" % err
                        if not ok:
                            notes.append("%s rlx %s t%d: output differs from numpy (%s)" % (workload, pipeline, t, err))
                    else:
                        check = "unchecked"
                elif t == threads[0]:
                    notes.append("%s rlx %s: %s" % (workload, pipeline, status))
                best = min(((v, p) for p, v in res.items() if v is not None), default=(None, None))
                ratio = "%.2f" % (ms / best[0]) if ms is not None and best[0] else ("timeout" if status == "timeout" else "-")
                label = workload + ("" if pipeline == "O2" else " [%s]" % pipeline)
                rlx_cell = fmt(ms) if ms is not None else ("timeout" if status == "timeout" else "error")
                row = [label, str(t), rlx_cell] + [fmt(res[p]) for p in peer_list] + [best[1] or "-", ratio, check]
                rows.append(row)
                raw.append({"workload": workload, "pipeline": pipeline, "threads": t, "rlx_ms": ms, "rlx_status": status,
                            "peers_ms": res, "check": check})
                print("  " + " | ".join(row), file=sys.stderr, flush=True)
                if workload == "add_chain" and ms is not None:
                    n = peers.chain_length(workload)
                    notes.append("add_chain [%s] t%d: rlx %.2f us/op; %s" % (
                        pipeline, t, ms * 1e3 / n, ", ".join("%s %.2f us/op" % (p, v * 1e3 / n) for p, v in res.items() if v)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    head = ["workload", "thr", "rlx ms"] + ["%s ms" % p for p in peer_list] + ["best peer", "rlx/best", "rlx output"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    for n in dict.fromkeys(notes):
        print("- " + n)
    print("# end %s  %s" % (datetime.datetime.now().strftime("%H:%M"), subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    main()
