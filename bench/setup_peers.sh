#!/bin/sh
# Installs the peers of bench/run_bench.py (as root, Debian 12): numpy with OpenBLAS, PyTorch and
# oneDNN from Debian; ONNX Runtime and TVM from PyPI into /opt/rlx-bench-venv (kept apart from
# Debian's numpy 1.x, which python3-torch needs). Every step may fail: run_bench.py skips what's missing.
set -u
VENV=${RLX_BENCH_VENV:-/opt/rlx-bench-venv}
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy python3-torch libdnnl-dev libopenblas0-pthread python3-venv
[ -x "$VENV/bin/python" ] || /usr/bin/python3 -m venv "$VENV"
"$VENV/bin/pip" install -q numpy onnx onnxruntime || echo "onnxruntime: not installed"
"$VENV/bin/pip" install -q apache-tvm || echo "apache-tvm: not installed"
