#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Training steps of TrainScope and PyTorch side by side (scripts/bench_vs_pytorch.py): builds
# training_peer in a Release build directory, then runs both sides interleaved on one core.
# PyTorch is Debian's python3-torch under /usr/bin/python3, one thread, with OpenBLAS; the script
# skips (exit 0) when it is absent.
#
#   scripts/bench-vs-pytorch.sh [build dir, default build/release] [bench_vs_pytorch.py options]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$here/build/release"}
[ $# -gt 0 ] && shift
python=/usr/bin/python3
if ! "$python" -c 'import torch' 2>/dev/null; then
  echo "SKIP: python3-torch is not installed for $python (apt install python3-torch)"
  exit 0
fi
models=${TRAINSCOPE_MODELS_DIR:-"$here/../shared/models"}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRAINSCOPE_BUILD_GUI=OFF \
    -DTRAINSCOPE_MODELS_DIR="$models"
fi
cmake --build "$build" --target training_peer
# One thread on each side; OpenBLAS, not the reference BLAS, behind PyTorch's libblas.so.3.
openblas=/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3
if [ -f "$openblas" ]; then
  export LD_PRELOAD="$openblas"
else
  echo "warning: $openblas not found; PyTorch may use the slow reference BLAS" >&2
fi
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
exec "$python" "$here/scripts/bench_vs_pytorch.py" "$build/tests/benchmarks/training_peer" \
  "$models" "$@"
