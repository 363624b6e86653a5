#!/bin/sh
# Installs what tools/models/export_models.py needs (as root, Debian 12): Debian's PyTorch and
# torchvision, and a venv that sees them (--system-site-packages) with transformers, onnx and ONNX
# Runtime from PyPI, numpy kept at Debian's 1.x (Debian's torch is built against it).
set -eu
VENV=${RLX_MODELS_VENV:-/opt/rlx-models-venv}
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-torchvision python3-venv
[ -x "$VENV/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/pip" install -q "numpy<2" "transformers==4.40.2" "onnx==1.16.2" "onnxruntime==1.19.2"
echo "ready: $VENV/bin/python tools/models/export_models.py"
