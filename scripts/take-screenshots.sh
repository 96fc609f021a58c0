#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Regenerates docs/screenshots: the whole window and every view, light and dark, under Xvfb,
# fed by the synthetic stream on the generated convolutional model, plus the real app training
# the bundled demo. Needs a built dev tree (cmake --preset dev && cmake --build --preset dev).
#
#   scripts/take-screenshots.sh [BUILD_DIR]
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/dev}"
out="$root/docs/screenshots"
shot="$build/tests/ui/ui_screenshot"
app="$build/app/gui/trainscope"
for tool in "$shot" "$app"; do
  [[ -x "$tool" ]] || { echo "error: $tool is not built (build the dev preset first)" >&2; exit 1; }
done
command -v xvfb-run >/dev/null || { echo "error: xvfb-run is missing (apt install xvfb)" >&2; exit 1; }
mkdir -p "$out"

run() { xvfb-run -a -s "-screen 0 1600x1000x24" "$@" >/dev/null; }

for theme in light dark; do
  flag=()
  [[ $theme == dark ]] && flag=(--dark)
  run "$shot" "$out/window-$theme.png" "${flag[@]}"
  run "$shot" "$out/graph-backward-$theme.png" --view graph --overlay 1 "${flag[@]}"
  run "$shot" "$out/memory-timeline-$theme.png" --view memory --memory-tab 0 "${flag[@]}"
  run "$shot" "$out/memory-address-map-$theme.png" --view memory --memory-tab 1 "${flag[@]}"
  run "$shot" "$out/gradients-per-layer-$theme.png" --view gradients --tab 0 "${flag[@]}"
  run "$shot" "$out/gradients-heatmap-$theme.png" --view gradients --tab 1 "${flag[@]}"
  run "$shot" "$out/gradients-histogram-$theme.png" --view gradients --tab 2 "${flag[@]}"
  run "$shot" "$out/loss-$theme.png" --view loss "${flag[@]}"
  run "$shot" "$out/layers-$theme.png" --view layers "${flag[@]}"
done
# The questions Run asks (a Layers change not applied, a finished schedule), Edit's Undo, and
# File > Recording Settings.
run "$shot" "$out/run-question-pending-layers.png" --dialog run-question
run "$shot" "$out/run-question-finished.png" --dialog finished-question
run "$shot" "$out/edit-menu-undo.png" --dialog edit-menu
run "$shot" "$out/recording-settings.png" --dialog recordings
# File > Open Comparison on a generated diff report: the first divergent op in graph and table.
run "$shot" "$out/comparison-first-divergent.png" --dialog comparison
# The app itself under Xvfb's X server (--screenshot alone would pick the offscreen platform).
app_run() {
  local screen="$1"
  shift
  QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 ${screen}x24" "$app" "$@" >/dev/null
}
app_run 1600x1000 --screenshot "$out/main-window-demo.png" --steps 40
# All layers against the last 2 layers, from the same initial weights (Training > Compare
# Trainability).
app_run 1600x1000 --screenshot "$out/experiments-all-vs-last-two.png" --experiment
# Training at full speed: every step's loss, the per-op detail of the last detailed step.
app_run 1600x1000 --screenshot "$out/main-window-full-speed.png" --full-speed --steps 1500 \
  --epochs 1000
# A layer's weight gradient, paused after one more sample (Tensor values dock).
app_run 1600x1000 --screenshot "$out/tensor-values-gradient.png" --steps 40 --inspect 3
# Laptop screens: the default layout sized for the screen it opens on.
for size in 1366x768 1280x720 1024x700; do
  app_run "$size" --screenshot "$out/main-window-$size.png" --steps 40
done
ls -1 "$out"
