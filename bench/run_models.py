#!/usr/bin/env python3
# Real-model benchmark: each model exported by tools/models/export_models.py runs on `rlx run` and on
# ONNX Runtime, PyTorch eager and TVM (pip apache-tvm, default pipeline), same inputs, same run, at
# each thread count; prints median latency, peak RSS and the ratios, and checks every output against
# ONNX Runtime's reference (max |out - ref| <= 1e-4 * max |ref|). A failing or slow tool prints
# "error"/"timeout" and the bench goes on. `--cold` also times rlx's first run of each model with an
# empty kernel cache and again with it warm (wall clock of the whole process). At 2 threads and more
# each round also records the core-to-core round trip (build/bench/rlx_bench_core_latency) before and
# after it: on a VM the host moves the vCPUs, and 2-thread timings follow their distance.
#
#   /usr/bin/python3 bench/run_models.py [--rlx build/tools/rlx] [--models resnet18,bert] [--threads 1,2]
import argparse
import datetime
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
TOL = 1e-4
DEFAULT_MODELS = ["resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "convnext_tiny", "vit_b_32", "swin_t",
                  "bert_base", "gpt2_prefill", "gpt2_decode", "whisper_tiny_encoder", "bert_dynamic"]


def rel_err(out, ref):
    import numpy as np
    if out.shape != ref.shape:
        return None, "shape %s vs %s" % (out.shape, ref.shape)
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(out.astype(np.float64) - ref))) if ref.size else 0.0
    err = err / scale if scale > 0 else err
    return err, "%.1e" % err


def check_dir(out_dir, ref_dir):
    """'ok (err)' or 'WRONG (...)' for the out_*.npy files against ref_dir/ort_*.npy."""
    import numpy as np
    refs = sorted(glob.glob(os.path.join(ref_dir, "ort_*.npy")), key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    outs = [os.path.join(out_dir, "out_%d.npy" % i) for i in range(len(refs))]
    worst = 0.0
    for o, r in zip(outs, refs):
        if not os.path.exists(o):
            return "WRONG (missing output)"
        err, text = rel_err(np.load(o), np.load(r))
        if err is None or err > TOL:
            return "WRONG (%s)" % text
        worst = max(worst, err)
    return "ok (%.1e)" % worst


def timed_process(cmd, env, timeout):
    """(returncode, stdout, stderr, peak RSS in MB, wall seconds); returncode None on timeout.

    The peak RSS is /usr/bin/time's: a process forked from this (large) Python driver and exec'd
    reports the driver's high-water mark as its own when that is larger (Linux keeps the pre-exec
    peak in ru_maxrss), so every small model measured the driver; the small `time` in between
    forks the tool from a few MB instead."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(["/usr/bin/time", "-f", "rlx-bench-peak-rss-kb %M"] + cmd, env=env, stdout=out, stderr=err, text=True)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                return None, "", "timeout", None, timeout
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        out.seek(0), err.seek(0)
        text = err.read()
        m = re.search(r"rlx-bench-peak-rss-kb (\d+)", text)
        text = re.sub(r".*rlx-bench-peak-rss-kb \d+\n?", "", text)
        return os.waitstatus_to_exitcode(status), out.read(), text, int(m.group(1)) / 1024 if m else None, wall


def rlx_inputs(model_dir, meta, size_dir=None):
    d = size_dir or model_dir
    return ["%s=%s" % (p, os.path.join(d, "in_%s.npy" % p)) for p in meta["inputs"]]


def rlx_expect(ref_dir):
    refs = sorted(glob.glob(os.path.join(ref_dir, "ort_*.npy")), key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    return sum((["--expect", r] for r in refs), [])


def run_rlx(args, model_dir, meta, threads, reps):
    """(median ms, rss MB, status)."""
    cmd = [args.rlx, "run", os.path.join(model_dir, "model.onnx"), "--time", str(reps)] + rlx_inputs(model_dir, meta) + rlx_expect(model_dir)
    env = dict(os.environ, RLX_NUM_THREADS=str(threads))
    rc, out, err, rss, _ = timed_process(cmd, env, args.timeout)
    if rc is None:
        return None, None, "timeout"
    m = re.search(r"time: median ([\d.]+) ms", err)
    if rc != 0 or not m:
        last = ((err + out).strip().splitlines() or ["exit %d" % rc])[-1]
        return None, rss, "error: " + last[:120]
    worst = max([float(x) for x in re.findall(r"= ([\d.e+-]+) \(tolerance", out)] or [0.0])
    return float(m.group(1)), rss, "ok (%.1e)" % worst


def core_latency(args):
    """The core-to-core round trip in ns (CPUs 0 and 1), or None without the probe."""
    if not args.core_probe or not os.path.exists(args.core_probe):
        return None
    r = subprocess.run([args.core_probe], capture_output=True, text=True)
    m = re.search(r": (\d+) ns", r.stdout)
    return int(m.group(1)) if r.returncode == 0 and m else None


def run_peer(args, peer, model_dir, threads, out_dir):
    """(median ms, rss MB, status)."""
    py = {"ort": args.ort_python, "torch": args.torch_python, "tvm": args.tvm_python}[peer]
    if not os.path.exists(py):
        return None, None, "not installed"
    t = str(threads)
    env = dict(os.environ, OMP_NUM_THREADS=t, OPENBLAS_NUM_THREADS=t, MKL_NUM_THREADS=t, TVM_NUM_THREADS=t)
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(var, None)
    cmd = [py, os.path.join(BENCH, "model_peer.py"), peer, model_dir, "--threads", t, "--budget", str(args.budget), "--out", out_dir]
    rc, out, err, rss, _ = timed_process(cmd, env, args.timeout)
    if rc is None:
        return None, None, "timeout"
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if rc != 0 or not lines:
        return None, None, "error: " + ((err.strip().splitlines() or ["exit %d" % rc])[-1])[:120]
    res = json.loads(lines[-1])
    return res["median_ms"], rss, check_dir(out_dir, model_dir)


def fmt(v):
    if v is None:
        return "-"
    return "%.3g" % v if v < 100 else "%.0f" % v


def cold_start(args, name, model_dir, meta):
    """Wall seconds of `rlx run` with an empty kernel cache, then with it warm."""
    cache = tempfile.mkdtemp(prefix="rlx-cold-")
    try:
        env = dict(os.environ, RLX_CACHE_DIR=cache, RLX_NUM_THREADS="2")
        cmd = [args.rlx, "run", os.path.join(model_dir, "model.onnx")] + rlx_inputs(model_dir, meta) + rlx_expect(model_dir)
        rc, _, err, _, cold = timed_process(cmd, env, args.timeout)
        rc2, _, _, _, warm = timed_process(cmd, env, args.timeout)
        status = "ok" if rc == 0 and rc2 == 0 else "error: " + (err.strip().splitlines() or ["?"])[-1][:100]
        print("- cold start %s: first run %.2f s (empty kernel cache), second %.2f s (warm); %s" % (name, cold, warm, status), flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rlx", default=os.environ.get("RLX", os.path.join(ROOT, "build", "tools", "rlx")))
    ap.add_argument("--cache", default=os.environ.get("RLX_MODEL_CACHE", os.path.expanduser("~/.cache/rlx/models")))
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS), help="comma-separated model names (prefixes)")
    ap.add_argument("--peers", default="ort,torch,tvm")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3, help="measurements per tool, interleaved; the median is reported")
    ap.add_argument("--budget", type=float, default=2.0, help="seconds of timed runs per measurement")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per process")
    ap.add_argument("--ort-python", default="/opt/rlx-bench-venv/bin/python")
    ap.add_argument("--tvm-python", default="/opt/rlx-bench-venv/bin/python")
    ap.add_argument("--torch-python", default="/opt/rlx-models-venv/bin/python")
    ap.add_argument("--core-probe", default=None, help="core round-trip probe (default: bench/rlx_bench_core_latency beside the rlx build)")
    ap.add_argument("--cold", action="store_true", help="also time each model's first rlx run, cold and warm kernel cache")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    if args.core_probe is None:
        args.core_probe = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.rlx))), "bench", "rlx_bench_core_latency")
    threads = [int(t) for t in args.threads.split(",")]
    peers = [p for p in args.peers.split(",") if p]
    wanted = [m for m in args.models.split(",") if m]
    names = sorted(os.listdir(args.cache)) if os.path.isdir(args.cache) else []
    todo = [n for w in wanted for n in names if n == w or (n.startswith(w) and w not in names)]
    todo = list(dict.fromkeys(todo))
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print("# %s  %s" % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), uptime), flush=True)
    print("# rlx: %s  peers: %s  threads: %s  rounds: %d  budget: %.1f s" % (args.rlx, ",".join(peers), args.threads, args.rounds, args.budget), flush=True)
    if not todo:
        print("no exported models under %s: run tools/models/export_models.py first" % args.cache)
        return 1
    rows, raw, notes = [], [], []
    tmp = tempfile.mkdtemp(prefix="rlx-models-")
    try:
        for name in todo:
            model_dir = os.path.join(args.cache, name)
            meta = json.load(open(os.path.join(model_dir, "meta.json")))
            if args.cold:
                cold_start(args, name, model_dir, meta)
            est = None
            for t in threads:
                times = {p: [] for p in peers}
                rss = {p: [] for p in peers}
                checks = {}
                rlx_times, rlx_rss, rlx_status = [], [], "not run"
                core_ns = []
                for rnd in range(args.rounds):
                    if t > 1:
                        core_ns.append(core_latency(args))
                    for p in peers:
                        ms, mb, checks[p] = run_peer(args, p, model_dir, t, os.path.join(tmp, "%s_%s_t%d" % (name, p, t)))
                        if ms is not None:
                            times[p].append(ms)
                            rss[p].append(mb)
                    if est is None:
                        ms, _, rlx_status = run_rlx(args, model_dir, meta, t, 3)
                        if ms is None:
                            break
                        est = ms
                    reps = max(3, min(1000, int(args.budget * 1e3 / max(est, 1e-3))))
                    ms, mb, rlx_status = run_rlx(args, model_dir, meta, t, reps)
                    if ms is None:
                        break
                    rlx_times.append(ms)
                    rlx_rss.append(mb)
                    if t > 1:
                        core_ns.append(core_latency(args))
                med = {p: statistics.median(v) if v else None for p, v in times.items()}
                mem = {p: max(v) if v else None for p, v in rss.items()}
                ms = statistics.median(rlx_times) if len(rlx_times) == args.rounds else None
                mb = max(rlx_rss) if rlx_rss else None
                best = min(((v, p) for p, v in med.items() if v is not None), default=(None, None))
                ratio = "%.2f" % (ms / best[0]) if ms and best[0] else "-"
                ort_ratio = "%.2f" % (ms / med["ort"]) if ms and med.get("ort") else "-"
                ort_mem = "%.2f" % (mb / mem["ort"]) if mb and mem.get("ort") else "-"
                # Each round runs the peers then rlx back to back. On a shared host whose speed shifts
                # over seconds (an in-cache GEMM micro-kernel at 52 to 84 G FMA/s from one second to
                # the next, a register-only FMA loop steady at 84-87), the ratio within a round says
                # more than the ratio of two medians taken minutes apart.
                paired = [r / o for r, o in zip(rlx_times, times.get("ort", [])) if o]
                by_round = "%.2f-%.2f" % (min(paired), max(paired)) if len(paired) == args.rounds and ms else "-"
                cell = fmt(ms) if ms is not None else ("timeout" if rlx_status == "timeout" else "error")
                known = [n for n in core_ns if n is not None]
                core = "%d-%d" % (min(known), max(known)) if known else "-"
                row = [name, str(t), cell] + [fmt(med[p]) for p in peers] + [best[1] or "-", ratio, ort_ratio, by_round,
                                                                              fmt(mb), fmt(mem.get("ort")), ort_mem, core, rlx_status]
                rows.append(row)
                for p in peers:
                    if checks.get(p, "").startswith(("WRONG", "error", "timeout")):
                        notes.append("%s %s t%d: %s" % (name, p, t, checks[p]))
                raw.append({"model": name, "threads": t, "rlx_ms": ms, "rlx_rss_mb": mb, "rlx_status": rlx_status,
                            "peers_ms": med, "peers_rss_mb": mem, "peer_checks": checks, "rlx_rounds": rlx_times,
                            "peer_rounds": times, "rlx_ort_by_round": paired, "core_round_trip_ns": core_ns})
                print("  " + " | ".join(row), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    head = ["model", "thr", "rlx ms"] + ["%s ms" % p for p in peers] + ["best peer", "rlx/best", "rlx/ort", "rlx/ort by round", "rlx RSS MB", "ort RSS MB",
                                                                         "RSS rlx/ort", "core ns", "rlx output"]
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
