#!/usr/bin/env bash
# Instructions per training step on the emulated Cortex-M4F: builds the step-counting firmware
# for a run, runs it on QEMU under -icount shift=0 (one instruction is one nanosecond of guest
# time, so the board's timer counts instructions) and prints what one optimizer step costs, by
# phase and by operator.
#
#   scripts/cortex-m-steps.sh MODEL --input F --target F [training options] \
#       [--board netduinoplus2|mps2-an386] [--log FILE] [--no-events]
#
# Training options are those of trainscope-board-sim (--loss, --optimizer, --batch, ...). The
# firmware (app/firmware/common/step_count.h) trains the run's first 20 optimizer steps (fewer
# when an epoch is shorter) once per phase, each phase in a QEMU run of its own, from a fresh
# heap and the model's weights: the engine alone; with an observer that only reads the clock
# (forward, loss, backward, optimizer); with every event produced and dropped, and again with
# the gradient statistics, the update ratios or the memory events left out (the engine's event
# work by kind); and the board itself, its agent encoding every event for a link nobody listens
# to. The table averages steps 3 to N: step 1 also sends the operator names, and Adam's bias
# corrections cost less in steps 1 and 2 (newlib's pow takes a shortcut for exponents 1 and 2).
# --log FILE keeps the firmware's "count:" lines, every step of every phase.
#
# Then, unless --no-events, the board runs again with `trainscope-cli attach --record` on its
# link: the durations the desktop received (trace dump) must equal the counted ones, op by op and
# step by step (backward exactly; forward within the text dump's 0.1 us; on a timer coarser than
# a nanosecond, within one count).
#
# Every count is a difference of two timer reads. On netduinoplus2 (the default) QEMU's TIM2
# counts nanoseconds: exact to the instruction. On mps2-an386 the timer counts 40 ns: a read is
# within 40 instructions, an interval less the clock call within 80. The clock call itself (the
# setup's clock=C) is subtracted from every interval that brackets code, once per read pair.
#
# Exit status 0; 1 when the firmware failed or a check did not hold; 2 for a usage error or a
# missing tool.
#
# Environment: TRAINSCOPE_HOST_BUILD: a build with trainscope-board-sim and trainscope-cli (when
# unset, build/tools is configured and built as needed: Release, no GUI);
# TRAINSCOPE_FIRMWARE_BUILD (default build/cortex-m4): the cross build.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "cortex-m-steps: $*" >&2; exit 2; }
fail() { echo "cortex-m-steps: $*" >&2; exit 1; }

board="netduinoplus2"
keep_log=""
events=1
run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --board) [ $# -ge 2 ] || die "--board needs a value"; board="$2"; shift 2 ;;
    --log) [ $# -ge 2 ] || die "--log needs a FILE"; keep_log="$2"; shift 2 ;;
    --no-events) events=0; shift ;;
    --tcp|--pty|--null|--count-steps) die "$1: this script chooses the link itself" ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) run_args+=("$1"); shift ;;
  esac
done
case "$board" in
  mps2-an386|netduinoplus2) ;;
  *) die "--board '$board': expected netduinoplus2 or mps2-an386" ;;
esac
[ ${#run_args[@]} -gt 0 ] || die "no MODEL given (see --help)"
for tool in qemu-system-arm arm-none-eabi-g++ cmake ninja flock awk; do
  command -v "$tool" > /dev/null || die "$tool is missing: run scripts/install-deps.sh"
done

host_build="${TRAINSCOPE_HOST_BUILD:-}"
if [ -z "$host_build" ]; then
  host_build="$root/build/tools"
  if [ ! -f "$host_build/build.ninja" ]; then
    echo "cortex-m-steps: configuring the host tools in $host_build" >&2
    cmake -S "$root" -B "$host_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTRAINSCOPE_BUILD_GUI=OFF > /dev/null || die "configuring $host_build failed"
  fi
  cmake --build "$host_build" --target trainscope-board-sim trainscope-cli trainscope_demo \
    > /dev/null || die "building the host tools in $host_build failed"
fi
cli="$host_build/app/cli/trainscope-cli"
[ -x "$cli" ] || die "no trainscope-cli in $host_build: build it (cmake --build $host_build --target trainscope-cli)"
export TRAINSCOPE_HOST_BUILD="$host_build"

work="$(mktemp -d "${TMPDIR:-/tmp}/trainscope-steps.XXXXXX")"
board_pid=""
cleanup() {
  if [ -n "$board_pid" ]; then kill "$board_pid" 2> /dev/null || true; wait "$board_pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# What the firmware printed, or why it stopped.
explain_failure() {
  grep '^count: error' "$1" >&2 || tail -n 20 "$2" >&2 || true
}

# One phase with nobody on the link: nothing a desktop sends can land in a step.
count_phase() {
  local phase="$1" name="${1// /-}"
  "$root/scripts/run-qemu-board.sh" "${run_args[@]}" --board "$board" --null \
    --count-steps "$phase" --log "$work/$name.log" 2> "$work/$name.err" ||
    { explain_failure "$work/$name.log" "$work/$name.err"; fail "the step-counting firmware failed ($name phase)"; }
  grep -q '^count: done' "$work/$name.log" ||
    { explain_failure "$work/$name.log" "$work/$name.err"; fail "the firmware stopped before it counted every step ($name phase)"; }
}

# 1. The counts, each phase in a run of its own: every phase starts from a fresh heap. The events
# phase also runs without the gradient statistics (mask 959: engine/core/events.h's kAllEvents
# less kEventGradientStats), without the update ratios and their norms (895), without the memory
# events and summaries (975), and without all three (783), to split the engine's event work; the
# three parts must add up to what the last run saves.
for phase in engine timed events "events 959" "events 895" "events 975" "events 783"; do
  count_phase "$phase"
done
reads="$(sed -n 's/^count: reads //p' "$work/events.log")"
[ -n "$reads" ] || fail "the events phase did not say how often a step reads the clock"
[ "$reads" = "$(sed -n 's/^count: reads //p' "$work/timed.log")" ] ||
  fail "the timed and events phases read the clock a different number of times a step"
count_phase "board $reads"
for phase in timed events events-959 events-895 events-975 events-783 "board-$reads"; do
  cmp -s <(grep -E '^count: (setup|op) ' "$work/engine.log") <(grep -E '^count: (setup|op) ' "$work/$phase.log") ||
    fail "the $phase phase was set up differently from the engine phase"
done
{
  grep -E '^count: (setup|op) ' "$work/engine.log"
  for phase in engine timed events; do grep "^count: $phase " "$work/$phase.log"; done
  sed -n 's/^count: events /count: no-statistics /p' "$work/events-959.log"
  sed -n 's/^count: events /count: no-ratios /p' "$work/events-895.log"
  sed -n 's/^count: events /count: no-memory /p' "$work/events-975.log"
  sed -n 's/^count: events /count: timing-only /p' "$work/events-783.log"
  grep '^count: reads ' "$work/events.log"
  grep '^count: board ' "$work/board-$reads.log"
  echo "count: done"
} > "$work/count.log"
[ -z "$keep_log" ] || cp "$work/count.log" "$keep_log"

# 2. The board again, on TCP and followed by trainscope-cli: the desktop's view of the same steps.
if [ "$events" = 1 ]; then
  # Backward steps the board sends in the counted steps: each op with a backward count, once a
  # sample.
  expected_backward="$(awk '
    /^count: setup/ { for (i = 3; i <= NF; ++i) { split($i, kv, "="); setup[kv[1]] = kv[2] } }
    /^count: timed 1 / { for (i = 5; i <= NF; ++i) if ($i ~ /^backward=/) {
        n = split(substr($i, 10), b, ","); for (k = 1; k <= n; ++k) ops += b[k] > 0 } }
    END { print setup["steps"] * setup["batch"] * ops }' "$work/count.log")"
  : > "$work/endpoint"
  "$root/scripts/run-qemu-board.sh" "${run_args[@]}" --board "$board" --tcp 0 \
    --count-steps "board $reads" --log "$work/attached.log" > "$work/endpoint" 2> "$work/attached.err" &
  board_pid=$!
  endpoint=""
  for _ in $(seq 1 1200); do
    endpoint="$(sed -n 's/^tcp: //p' "$work/endpoint")"
    [ -n "$endpoint" ] && break
    kill -0 "$board_pid" 2> /dev/null || break
    sleep 0.05
  done
  [ -n "$endpoint" ] || { cat "$work/attached.err" >&2; fail "the board on TCP did not start"; }
  "$cli" attach "tcp://$endpoint" --steps "$expected_backward" --timeout 300 \
    --record "$work/board.tstrace" --json > "$work/attach.json" 2> "$work/attach.err" ||
    { cat "$work/attach.err" >&2; fail "trainscope-cli attach did not receive $expected_backward backward steps"; }
  status=0
  wait "$board_pid" || status=$?
  board_pid=""
  [ "$status" = 0 ] || { explain_failure "$work/attached.log" "$work/attached.err"; fail "the step-counting firmware failed on TCP"; }
  if ! grep -q '"frames_bad": 0,' "$work/attach.json" || ! grep -q '"frames_dropped": 0,' "$work/attach.json"; then
    fail "the link lost frames: $(tr -d '\n ' < "$work/attach.json")"
  fi
  "$cli" trace dump "$work/board.tstrace" --json > "$work/dump.jsonl" 2> /dev/null
  "$cli" trace dump "$work/board.tstrace" > "$work/dump.txt" 2> /dev/null
  # Event durations, summed over each step's samples, against the timed phase's: backward from
  # the JSON dump (nanoseconds), forward from the text dump (0.1 us).
  awk '
    FNR == 1 { file++ }
    file == 1 && /^count: setup/ { for (i = 3; i <= NF; ++i) { split($i, kv, "="); setup[kv[1]] = kv[2] } }
    file == 1 && /^count: timed / {
      s = $3
      for (i = 5; i <= NF; ++i) {
        if ($i ~ /^forward=/) { n = split(substr($i, 9), f, ","); for (k = 1; k <= n; ++k) fwd[s, k - 1] = f[k] }
        if ($i ~ /^backward=/) { n = split(substr($i, 10), b, ","); for (k = 1; k <= n; ++k) { bwd[s, k - 1] = b[k]; if (s == 1 && b[k] > 0) nb++ } }
      }
    }
    file == 2 && /"type":"backward_step"/ {
      match($0, /"duration_ns":[0-9]+/); d = substr($0, RSTART + 14, RLENGTH - 14)
      match($0, /"op_index":[0-9]+/); op = substr($0, RSTART + 11, RLENGTH - 11)
      s = int(backward_seen / (nb * setup["batch"])) + 1; backward_seen++
      got_bwd[s, op] += d
    }
    file == 3 && $2 == "FORWARD_OP" {
      s = int(forward_seen / (setup["ops"] * setup["batch"])) + 1; forward_seen++
      got_fwd[s, $4] += $(NF - 1) * 1000; fwd_events[s, $4]++
    }
    END {
      bad = 0; batch = setup["batch"]
      # A coarser timer may read the same interval one count apart in two runs (mps2-an386: 40 ns).
      tick = setup["resolution_ns"] > 1 ? batch * setup["resolution_ns"] : 0
      for (s = 1; s <= setup["steps"]; ++s) {
        for (k = 0; k < setup["ops"]; ++k) {
          if (bwd[s, k] - got_bwd[s, k] > tick || got_bwd[s, k] - bwd[s, k] > tick) {
            printf "step %d op %d: backward counted %d, the desktop received %d\n", s, k, bwd[s, k], got_bwd[s, k]; bad++
          }
          # The text dump rounds each duration to 0.1 us: 50 ns either way.
          if (fwd[s, k] - got_fwd[s, k] > 50 * batch + tick + 1e-6 || got_fwd[s, k] - fwd[s, k] > 50 * batch + tick + 1e-6) {
            printf "step %d op %d: forward counted %d, the desktop received %.0f\n", s, k, fwd[s, k], got_fwd[s, k]; bad++
          }
        }
      }
      exit bad > 0
    }' "$work/count.log" "$work/dump.jsonl" "$work/dump.txt" > "$work/check.out" ||
    { head -n 10 "$work/check.out" >&2; fail "the durations the desktop received differ from the counted ones"; }
fi

# 3. The table: means over steps 3..N (1..N when fewer than three were counted).
awk -v events="$events" '
  function group(n,   sign, text, out) {
    sign = n < 0 ? "-" : ""
    text = sprintf("%d", (n < 0 ? -n : n) + 0.5)
    out = ""
    while (length(text) > 3) { out = "," substr(text, length(text) - 2) out; text = substr(text, 1, length(text) - 3) }
    return sign text out
  }
  function line(name, value, note) {
    printf "  %-46s %12s", name, group(value)
    printf (note == "" ? "\n" : "  %s\n"), note
  }
  /^count: setup/ { for (i = 3; i <= NF; ++i) { split($i, kv, "="); setup[kv[1]] = kv[2] }; name = $0; sub(/.*board=/, "", name); sub(/ resolution_ns=.*/, "", name) }
  /^count: op / { opname[$3] = $4 }
  /^count: (engine|events|no-statistics|no-ratios|no-memory|timing-only|board) / { total[$2, $3] = $4 }
  /^count: board / { split($5, kv, "="); link_bytes[$3] = kv[2] }
  /^count: timed / {
    s = $3; total["timed", s] = $4
    for (i = 5; i <= NF; ++i) {
      split($i, kv, "=")
      if (kv[1] == "loss" || kv[1] == "optimizer") part[kv[1], s] = kv[2]
      if (kv[1] == "forward" || kv[1] == "backward") { n = split(kv[2], v, ","); for (k = 1; k <= n; ++k) op[kv[1], s, k - 1] = v[k] }
    }
  }
  /^count: reads / { reads = $3 }
  END {
    c = setup["clock"]; b = setup["batch"]; steps = setup["steps"]; ops = setup["ops"]
    first = steps >= 3 ? 3 : 1; used = steps - first + 1
    bad = 0
    for (s = first; s <= steps; ++s) {
      engine = total["engine", s] - c; dropped = total["events", s] - c; whole = total["board", s]
      fwd = 0; bwd = 0
      for (k = 0; k < ops; ++k) {
        f = op["forward", s, k] - b * c; fwd += f; m_fwd[k] += f / used
        if (op["backward", s, k] > 0) { g = op["backward", s, k] - b * c; bwd += g; m_bwd[k] += g / used; has_bwd[k] = 1 }
      }
      loss = part["loss", s] - b * c; opt = part["optimizer", s] - c
      rest = engine - fwd - loss - bwd - opt
      m["board"] += whole / used; m["engine"] += engine / used; m["fwd"] += fwd / used
      m["loss"] += loss / used; m["bwd"] += bwd / used; m["opt"] += opt / used; m["rest"] += rest / used
      m["events"] += (dropped - engine) / used; m["agent"] += (whole - dropped) / used
      m["bytes"] += link_bytes[s] / used
      statistics = total["events", s] - total["no-statistics", s]
      ratios = total["events", s] - total["no-ratios", s]
      memory = total["events", s] - total["no-memory", s]
      m["statistics"] += statistics / used; m["ratios"] += ratios / used; m["memory"] += memory / used
      timing = total["timing-only", s] - c - engine
      m["timing"] += timing / used
      # Measured apart, the three parts must add up to what leaving all three out saves.
      residual = (total["events", s] - total["timing-only", s]) - (statistics + ratios + memory)
      if (residual < 0) residual = -residual
      if (residual > worst) worst = residual
      if (s == first || whole < lo) lo = whole
      if (s == first || whole > hi) hi = whole
      # The parts nest: what the engine does fits in its step, and each phase adds to the one before.
      slack = 4 * (2 * ops * b + 2) * setup["resolution_ns"]
      if (fwd <= 0 || bwd <= 0 || loss <= 0 || opt <= 0 || rest < -slack || dropped < engine || whole < dropped ||
          statistics < 0 || ratios < 0 || memory < 0 || timing < 0 ||
          residual > 4 * setup["resolution_ns"] + 0.01 * (dropped - engine)) {
        printf "cortex-m-steps: step %d does not add up: engine %d, forward %d, loss %d, backward %d, optimizer %d, events %d (statistics %d, ratios %d, memory %d, timing %d, residual %d), board %d\n", s, engine, fwd, loss, bwd, opt, dropped, statistics, ratios, memory, timing, residual, whole > "/dev/stderr"
        bad = 1
      }
    }
    if (bad) exit 1
    printf "%s, batch %d: %d optimizer steps counted, means over steps %d-%d\n", name, b, steps, first, steps
    printf "timer: %d ns a count (%d instruction%s under -icount shift=0); a clock read, %d instructions, is subtracted from each interval\n\n", setup["resolution_ns"], setup["resolution_ns"], (setup["resolution_ns"] > 1 ? "s" : ""), c
    printf "  %-46s %12s\n", "instructions per optimizer step", "mean"
    line("board loop: engine + events + agent", m["board"], sprintf("(per step %s to %s)", group(lo), group(hi)))
    line("  engine alone", m["engine"], "")
    line("    forward", m["fwd"], "")
    line("    loss", m["loss"], "")
    line("    backward", m["bwd"], "")
    line("    optimizer", m["opt"], "")
    line("    rest (arena bindings, input copy, checks)", m["rest"], "")
    line("  event production in the engine", m["events"], "")
    line("    gradient statistics", m["statistics"], "")
    line("    update ratios (weight and update norms)", m["ratios"], "")
    line("    memory events and summaries", m["memory"], "")
    line("    timing and the other events", m["timing"], sprintf("(%d clock reads)", reads))
    line("  agent and link", m["agent"], sprintf("(%s bytes sent: %.0f a byte)", group(m["bytes"]), m["bytes"] > 0 ? m["agent"] / m["bytes"] : 0))
    printf "\n  %-28s %12s %12s\n", "per operator", "forward", "backward"
    for (k = 0; k < ops; ++k) {
      printf "  %-28s %12s %12s\n", k " " opname[k], group(m_fwd[k]), has_bwd[k] ? group(m_bwd[k]) : "-"
    }
    printf "\nchecks: in every counted step the parts of the engine fit in the engine alone and each phase\n"
    printf "adds to the one before; the three event parts, each counted by leaving it out, add up to\n"
    printf "leaving all three out within %d instructions", worst
    if (events) printf "; the durations trainscope-cli received equal the\ncounted ones"
    printf ".\n"
  }' "$work/count.log"
