#!/usr/bin/env bash
# Sets up a Debian 12 machine and runs the whole test suite:
#   1. the development build and every test (ctest),
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer,
#   3. the engine built alone without Qt (as a board build would),
#   4. a short libFuzzer smoke run of every fuzzer.
# Third-party fixtures are read from ../shared/models (override: TRAINSCOPE_MODELS_DIR=...).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
models_dir="${TRAINSCOPE_MODELS_DIR:-$(pwd)/../shared/models}"
fuzz_seconds="${TRAINSCOPE_FUZZ_SECONDS:-20}"
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

step() { printf '\n=== %s\n' "$*"; }

step "development build"
cmake --preset dev -DTRAINSCOPE_MODELS_DIR="$models_dir" > /dev/null
cmake --build --preset dev
ctest --preset dev

step "ASan + UBSan build"
cmake --preset asan -DTRAINSCOPE_MODELS_DIR="$models_dir" > /dev/null
cmake --build --preset asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan

step "engine alone, without Qt"
cmake --preset engine-only > /dev/null
cmake --build --preset engine-only

step "fuzz smoke (${fuzz_seconds}s per fuzzer)"
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
if [ -d "$models_dir" ]; then
  find "$models_dir" \( -name '*.circle' -o -name '*.tflite' \) -size -64k -exec cp {} "$corpus/" \; 2>/dev/null || true
fi
for fuzzer in build/fuzz/tests/fuzz/*_fuzzer; do
  echo "fuzzing $(basename "$fuzzer")"
  "$fuzzer" -max_total_time="$fuzz_seconds" -max_len=65536 -print_final_stats=0 "$corpus" 2>&1 | tail -n 2
done

step "all test stages passed"
