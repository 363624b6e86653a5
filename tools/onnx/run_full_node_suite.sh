#!/bin/sh
# Runs the full ONNX backend node suite shipped in the pip onnx package (1765 cases in onnx 1.22.0;
# Debian's libonnx-testdata, which `make test` runs, has 932 of an older release) through the
# same runner against tests/onnx/full_node_expectations.txt. UPDATE=1 rewrites that file.
# usage: pip install onnx==1.22.0 && tools/onnx/run_full_node_suite.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
DATA=$(python3 -c "import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), 'backend', 'test', 'data'))")
if [ ! -d "$DATA/node" ]; then echo "no node tests under $DATA (pip install onnx==1.22.0)" >&2; exit 2; fi
exec "$BUILD/tests/rlx_onnx_node_tests" --expect tests/onnx/full_node_expectations.txt ${UPDATE:+--update} "$DATA/node"
