#!/usr/bin/env bash
# Sets up a Debian 12 machine and runs the whole test suite:
#   1. the development build and every test (ctest), the firmware on QEMU among them,
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer,
#   3. the engine built alone without Qt, and the engine and agent for a Cortex-M4F (-Werror),
#   4. a short libFuzzer smoke run of every fuzzer,
#   5. the release build packaged as a .deb, installed with apt-get, smoke-tested and removed.
# Third-party fixtures are read from ../shared/models (override: TRAINSCOPE_MODELS_DIR=...).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
models_dir="${TRAINSCOPE_MODELS_DIR:-$(pwd)/../shared/models}"
fuzz_seconds="${TRAINSCOPE_FUZZ_SECONDS:-20}"
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# Objects cached by one checkout are reused by another (paths below the root are made relative).
export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
# install-deps.sh installed QEMU and the cross toolchain: the firmware tests must run, not skip.
export TRAINSCOPE_REQUIRE_QEMU=1

step() { printf '\n=== %s\n' "$*"; }

step "development build"
cmake --preset dev -DTRAINSCOPE_MODELS_DIR="$models_dir" > /dev/null
cmake --build --preset dev
ctest --preset dev

step "ASan + UBSan build"
cmake --preset asan -DTRAINSCOPE_MODELS_DIR="$models_dir" > /dev/null
cmake --build --preset asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS="suppressions=$(pwd)/tests/sanitizers/lsan.supp" ctest --preset asan

step "engine alone, without Qt"
cmake --preset engine-only > /dev/null
cmake --build --preset engine-only

step "engine and agent for a Cortex-M4F board (arm-none-eabi, -Werror)"
cmake --preset cortex-m4 > /dev/null
cmake --build --preset cortex-m4

step "Debian package: release build, cpack, install, smoke test, remove"
# The package needs the programs only: the tests already ran twice above.
cmake --preset release -DTRAINSCOPE_MODELS_DIR="$models_dir" -DTRAINSCOPE_BUILD_TESTS=OFF \
  -DTRAINSCOPE_BUILD_BENCHMARKS=OFF > /dev/null
cmake --build --preset release
rm -f build/release/trainscope_*.deb
(cd build/release && cpack -G DEB > /dev/null)
deb="$(ls build/release/trainscope_*.deb)"
dpkg-deb --field "$deb" Package Version Depends
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$(pwd)/$deb" > /dev/null
smoke="$(mktemp -d)"
# The installed files only; the CLI picks the offscreen platform itself when none is set.
installed_smoke_test() {
  /usr/bin/trainscope-cli --version &&
    env -u QT_QPA_PLATFORM /usr/bin/trainscope-cli report /usr/share/trainscope/demo/demo.circle \
      --format html -o "$smoke/demo.html" &&
    grep -q "<svg" "$smoke/demo.html" &&
    desktop-file-validate /usr/share/applications/org.trainscope.TrainScope.desktop &&
    if command -v appstreamcli > /dev/null; then
      appstreamcli validate --no-net /usr/share/metainfo/org.trainscope.TrainScope.metainfo.xml
    fi
}
smoke_status=0
installed_smoke_test || smoke_status=$?
rm -rf "$smoke"
DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y -qq trainscope > /dev/null
if [ "$smoke_status" -ne 0 ]; then
  echo "the installed package failed its smoke test" >&2
  exit 1
fi

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
