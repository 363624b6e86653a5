# Import speed: `rlx import` of a ResNet-50 ONNX file with 100 MB of random weights, wall time and
# peak RSS per run, against peers measured in the same run on the same file: onnx.load (the
# protobuf parse alone), ONNX Runtime's InferenceSession creation, TVM's from_onnx when installed.
# usage: python3 bench/bench_import.py [RLX] [--runs N]   (needs pip onnx; onnxruntime/tvm optional)
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.environ.get("RLX_BENCH_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "rlx-bench"))


def timed(cmd):
    """Wall seconds and peak RSS (MB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[0]} failed: {err.strip()}")
    return wall, usage.ru_maxrss / 1024.0


PEERS = {
    "onnx.load": "import onnx,sys; onnx.load(sys.argv[1])",
    "onnxruntime session": "import onnxruntime as ort,sys; o=ort.SessionOptions(); o.intra_op_num_threads=1; ort.InferenceSession(sys.argv[1], o, providers=['CPUExecutionProvider'])",
    "tvm from_onnx": "import onnx,sys; from tvm.relax.frontend.onnx import from_onnx; from_onnx(onnx.load(sys.argv[1]))",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rlx", nargs="?", default=os.path.join(ROOT, "build", "tools", "rlx"))
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    os.makedirs(CACHE, exist_ok=True)
    model = os.path.join(CACHE, "resnet50.onnx")
    if not os.path.exists(model):
        subprocess.check_call([sys.executable, os.path.join(ROOT, "tools", "onnx", "make_resnet50.py"), model])
    weights = os.path.getsize(model) / 1e6
    baseline = timed([args.rlx, "--help"])[1]
    out = os.path.join(CACHE, "resnet50.relax")
    rows = {"rlx import -o": [args.rlx, "import", model, "-o", out]}
    for name, code in PEERS.items():
        rows[name] = [sys.executable, "-c", code, model]
    results = {}
    for _ in range(args.runs):  # interleaved, so that the machine's load hits every row alike
        for name, cmd in rows.items():
            try:
                results.setdefault(name, []).append(timed(cmd))
            except RuntimeError as e:
                results[name] = None
                print(f"skipped {name}: {str(e).splitlines()[-1] if str(e) else e}", file=sys.stderr)
        rows = {k: v for k, v in rows.items() if results.get(k) is not None}
    print(f"model: {model} ({weights:.1f} MB); rlx process baseline RSS {baseline:.0f} MB ({args.runs} interleaved runs)")
    print(f"{'':22} {'median s':>9} {'range s':>13} {'peak RSS MB':>12} {'RSS/weights':>12}")
    ours = statistics.median(w for w, _ in results["rlx import -o"])
    for name, runs in results.items():
        if not runs:
            continue
        walls = [w for w, _ in runs]
        rss = max(r for _, r in runs)
        med = statistics.median(walls)
        ratio = "" if name == "rlx import -o" else f"  rlx/peer {ours / med:.2f}x"
        print(f"{name:22} {med:9.3f} {min(walls):6.3f}-{max(walls):.3f} {rss:12.0f} {rss / weights:11.2f}x{ratio}")


if __name__ == "__main__":
    main()
