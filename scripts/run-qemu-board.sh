#!/usr/bin/env bash
# Starts an emulated board that trains MODEL: builds the TrainScope firmware for it (cached) and
# runs it on QEMU with deterministic time, the link on a TCP port, a pty or nowhere.
#
#   scripts/run-qemu-board.sh MODEL --input F --target F [training options] \
#       [--board mps2-an386|netduinoplus2] (--tcp PORT | --pty | --null) [--log FILE] \
#       [--count-steps PHASE]
#
# Training options are those of trainscope-board-sim (--loss, --optimizer, --epochs, ...), resolved
# by it exactly as for `trainscope-cli train`. The first stdout line names the endpoint, as the
# simulator's does: "tcp: 127.0.0.1:PORT" (PORT 0 picks a free one) or "pty: /dev/pts/N"; then
# attach with `trainscope-cli attach tcp://127.0.0.1:PORT` or the app's Device > Connect. Over TCP
# the board waits for the desktop before it runs, so nothing is lost. --null runs the board with
# nobody on the link (what it sends is dropped) and prints no endpoint. The firmware's own text
# (progress, errors) goes to --log FILE, or stderr. The script exits when QEMU does; QEMU is
# stopped with it.
#
# --count-steps PHASE runs the step-counting firmware instead (app/firmware/common/step_count.h)
# under -icount shift=0, where one instruction is one nanosecond of guest time: PHASE is
# "engine", "timed", "events [MASK]" or "board READS" (one word each on its semihosting command
# line).
# It writes its counts on the log and stops QEMU itself, exit status 0 (1 after a "count: error"
# line). scripts/cortex-m-steps.sh runs every phase and reads them.
#
# Environment: TRAINSCOPE_HOST_BUILD (default build/dev, else build/release): where
# trainscope-board-sim is; TRAINSCOPE_FIRMWARE_BUILD (default build/cortex-m4): the cross build.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "run-qemu-board: $*" >&2; exit 2; }

board="mps2-an386"
count_phase=""
link=""
port=""
log="/dev/stderr"
run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --board) [ $# -ge 2 ] || die "--board needs a value"; board="$2"; shift 2 ;;
    --tcp) [ $# -ge 2 ] || die "--tcp needs a PORT"; link="tcp"; port="$2"; shift 2 ;;
    --pty) link="pty"; shift ;;
    --null) link="null"; shift ;;
    --count-steps) [ $# -ge 2 ] || die "--count-steps needs a PHASE"; count_phase="$2"; shift 2 ;;
    --log) [ $# -ge 2 ] || die "--log needs a FILE"; log="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) run_args+=("$1"); shift ;;
  esac
done
case "$board" in
  mps2-an386|netduinoplus2) ;;
  *) die "--board '$board': expected mps2-an386 or netduinoplus2" ;;
esac
[ -n "$link" ] || die "give exactly one of --tcp PORT, --pty and --null"
if [ "$link" = tcp ] && ! [[ "$port" =~ ^[0-9]+$ && "$port" -le 65535 ]]; then
  die "--tcp '$port': expected a port number 0..65535"
fi
[ ${#run_args[@]} -gt 0 ] || die "no MODEL given (see --help)"

for tool in qemu-system-arm arm-none-eabi-g++ cmake ninja; do
  command -v "$tool" > /dev/null || die "$tool is missing: run scripts/install-deps.sh"
done
host_build="${TRAINSCOPE_HOST_BUILD:-}"
if [ -z "$host_build" ]; then
  for candidate in "$root/build/dev" "$root/build/release"; do
    if [ -x "$candidate/app/board-sim/trainscope-board-sim" ]; then host_build="$candidate"; break; fi
  done
fi
board_sim="${host_build:-$root/build/dev}/app/board-sim/trainscope-board-sim"
[ -x "$board_sim" ] || die "no trainscope-board-sim: build the host tools first (cmake --build --preset dev)"

firmware_build="${TRAINSCOPE_FIRMWARE_BUILD:-$root/build/cortex-m4}"
mkdir -p "$firmware_build"
work="$(mktemp -d "${TMPDIR:-/tmp}/trainscope-qemu.XXXXXX")"
qemu_pid=""
cleanup() {
  if [ -n "$qemu_pid" ]; then kill "$qemu_pid" 2> /dev/null || true; wait "$qemu_pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

firmware="trainscope-firmware-$board"
# -icount shift=4: 16 ns of guest time per instruction (about 60 MIPS), the same every run.
qemu_time=(-icount shift=4)
if [ -n "$count_phase" ]; then
  [[ "$count_phase" =~ ^(engine|timed|events|events\ [0-9]+|board\ [0-9]+)$ ]] ||
    die "--count-steps '$count_phase': expected engine, timed, 'events [MASK]' or 'board READS'"
  firmware="$firmware-steps"
  # shift=0: a nanosecond of guest time per instruction. Semihosting gives the firmware its phase
  # and lets it stop QEMU.
  semihosting="enable=on,target=native"
  for word in $count_phase; do semihosting+=",arg=$word"; done
  qemu_time=(-icount shift=0 -semihosting-config "$semihosting")
fi

# The run as a source; the cross build recompiles only when its bytes changed. One build at a time
# per build folder: runs for different models take turns, each leaves with its own ELF.
"$board_sim" "${run_args[@]}" --firmware-source "$work/run.cpp" > /dev/null
(
  flock 9
  run="$firmware_build/embedded_run.cpp"
  cmp -s "$work/run.cpp" "$run" 2> /dev/null || cp "$work/run.cpp" "$run"
  if [ ! -f "$firmware_build/build.ninja" ] ||
     ! grep -q "TRAINSCOPE_FIRMWARE_RUN:FILEPATH=$run" "$firmware_build/CMakeCache.txt" 2> /dev/null; then
    (cd "$root" && cmake --preset cortex-m4 -B "$firmware_build" -DTRAINSCOPE_FIRMWARE_RUN="$run") > "$work/configure.log" 2>&1 ||
      { cat "$work/configure.log" >&2; exit 1; }
  fi
  cmake --build "$firmware_build" --target "$firmware" > "$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; exit 1; }
  cp "$firmware_build/app/firmware/$firmware.elf" "$work/firmware.elf"
) 9> "$firmware_build/.firmware.lock" || die "the firmware did not build (see above)"

case "$link" in
  tcp) serial0="tcp:127.0.0.1:$port,server=on,wait=on" ;;
  pty) serial0="pty" ;;
  null) serial0="null" ;;
esac
# Created here, not by the background job's redirection: the loop below reads it at once.
: > "$work/qemu.out"
qemu-system-arm -M "$board" -display none -monitor none "${qemu_time[@]}" \
  -serial "$serial0" -serial "file:$log" -kernel "$work/firmware.elf" \
  > "$work/qemu.out" 2>&1 &
qemu_pid=$!

endpoint=""
for _ in $(seq 1 200); do
  [ "$link" = null ] && break
  if [ "$link" = tcp ]; then
    endpoint="$(sed -n 's/.*waiting for connection on: disconnected:tcp:\(127\.0\.0\.1:[0-9]*\).*/tcp: \1/p' "$work/qemu.out")"
  else
    endpoint="$(sed -n 's/^char device redirected to \(\/dev\/[^ ]*\) (label serial0).*/pty: \1/p' "$work/qemu.out")"
  fi
  [ -n "$endpoint" ] && break
  kill -0 "$qemu_pid" 2> /dev/null || break
  sleep 0.05
done
if [ "$link" != null ]; then
  if [ -z "$endpoint" ]; then
    cat "$work/qemu.out" >&2
    die "QEMU did not open its link"
  fi
  echo "$endpoint"
fi
status=0
wait "$qemu_pid" || status=$?
qemu_pid=""
grep -v "waiting for connection\|char device redirected" "$work/qemu.out" >&2 || true
exit "$status"
