#!/usr/bin/env bash
# Sets up a Debian 12 machine, builds TrainScope (release) and runs it on the bundled demo model.
# With a display it opens the app, ready to train (F5 runs, F10 steps one backward op). Without
# one it runs the same app headless: it trains, saves a screenshot of the window and prints what
# the command-line tools report for the demo.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release > /dev/null
cmake --build --preset release

bin=build/release/app
demo=build/release/resources/demo
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${TRAINSCOPE_HEADLESS:-0}" != "1" ]; then
  exec "$bin/gui/trainscope"
fi

export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
echo "== no display: running the app headless on the demo model"
"$bin/gui/trainscope" --screenshot build/release/demo-window.png --steps 60 2> /dev/null
echo
echo "== the demo model"
"$bin/cli/trainscope-cli" inspect "$demo/demo.circle"
echo
echo "== memory of one train step (Adam, all layers)"
"$bin/cli/trainscope-cli" memory "$demo/demo.circle" --optimizer adam | tail -n 4
echo
echo "== training with onert-micro semantics"
"$bin/cli/trainscope-cli" train "$demo/demo.circle" --input "$demo/train_input.bin" \
  --target "$demo/train_target.bin" --test-input "$demo/test_input.bin" \
  --test-target "$demo/test_target.bin" --loss sparse-ce --optimizer adam --lr 0.005 \
  --beta2 0.999 --epochs 3
