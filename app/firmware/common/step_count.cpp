// SPDX-License-Identifier: Apache-2.0
#include "app/firmware/common/step_count.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "app/firmware/common/board_support.h"
#include "engine/core/clock.h"
#include "engine/core/events.h"
#include "engine/model/opcodes.h"

namespace trainscope::firmware {
namespace {

struct CountingClock {
  uint64_t last_read = 0;
  uint32_t reads = 0;
  // Reads until the board's next step starts; so large outside the board phase that it never
  // reaches 0.
  uint32_t until_step = 0xFFFFFFFFu;
  uint32_t reads_per_step = 0;
  uint32_t steps = 0;
  uint32_t recorded = 0;
  uint64_t step_starts[kMaxCountedSteps + 1] = {};
  uint64_t unrecorded = 0;  // where the reads that start no step are stored
  uint32_t link_bytes = 0;  // handed to the link UART so far
  uint32_t link_bytes_at_start[kMaxCountedSteps + 1] = {};
};

CountingClock counting;

[[noreturn]] void StopEmulator(bool ok) {
  // Semihosting SYS_EXIT (0x18) with ADP_Stopped_ApplicationExit, or ADP_Stopped_InternalError.
  register uint32_t operation asm("r0") = 0x18;
  register uint32_t reason asm("r1") = ok ? 0x20026u : 0x20024u;
  asm volatile("bkpt 0xab" : : "r"(operation), "r"(reason) : "memory");
  for (;;) {
  }
}

unsigned long Count(uint64_t value) {
  if (value > 0xFFFFFFFFull) CountingFailed("a count does not fit 32 bits");
  return static_cast<unsigned long>(value);  // newlib-nano's printf has no %llu
}

uint64_t* NextStepStart() {
  CountingClock& c = counting;
  c.until_step = c.reads_per_step;
  c.link_bytes_at_start[c.recorded] = c.link_bytes;
  return &c.step_starts[c.recorded++];
}

[[noreturn]] void ReportBoardSteps() {
  const CountingClock& c = counting;
  for (uint32_t s = 1; s <= c.steps; ++s) {
    std::fprintf(
        stderr, "count: board %lu %lu bytes=%lu\n", static_cast<unsigned long>(s),
        Count(c.step_starts[s] - c.step_starts[s - 1]),
        static_cast<unsigned long>(c.link_bytes_at_start[s] - c.link_bytes_at_start[s - 1]));
  }
  std::fputs("count: done\n", stderr);
  StopEmulator(true);
}

// Semihosting SYS_GET_CMDLINE (0x15): the words QEMU's -semihosting-config arg=... gave.
bool ReadCommandLine(char* text, uint32_t size) {
  struct {
    char* buffer;
    uint32_t length;
  } block = {text, size};
  register uint32_t operation asm("r0") = 0x15;
  register void* argument asm("r1") = &block;
  asm volatile("bkpt 0xab" : "+r"(operation) : "r"(argument) : "memory");
  return operation == 0;
}

// Wants what the engine times and the two events that end the loss and the optimizer, and reads
// the clock at those two only.
class TimedObserver final : public TrainingObserver {
 public:
  explicit TimedObserver(size_t ops) : forward(ops), backward(ops) {}

  uint32_t wanted_events() const override {
    return kEventForwardOp | kEventBackwardStep | kEventLoss | kEventOptimizerStep;
  }
  void OnForwardOp(const ForwardOpEvent& event) override {
    forward[event.op_index] += event.duration_ns;
    forward_end_ = counting.last_read;  // the read that ended this op
  }
  void OnLoss(const LossEvent&) override { loss += MonotonicNowNs() - forward_end_; }
  void OnBackwardStep(const BackwardStepEvent& event) override {
    if (event.begin) return;
    backward[event.op_index] += event.duration_ns;
    backward_end_ = counting.last_read;
  }
  void OnOptimizerStep(const OptimizerStepEvent&) override {
    optimizer = MonotonicNowNs() - backward_end_;
  }

  void Clear() {
    for (uint64_t& value : forward) value = 0;
    for (uint64_t& value : backward) value = 0;
    loss = 0;
    optimizer = 0;
  }

  std::vector<uint64_t> forward;
  std::vector<uint64_t> backward;
  uint64_t loss = 0;
  uint64_t optimizer = 0;

 private:
  uint64_t forward_end_ = 0;
  uint64_t backward_end_ = 0;
};

// Wants the events of a mask (every event by default) and drops them.
class DroppingObserver final : public TrainingObserver {
 public:
  explicit DroppingObserver(uint32_t wanted) : wanted_(wanted) {}
  uint32_t wanted_events() const override { return wanted_; }

 private:
  uint32_t wanted_;
};

void PrintList(const char* name, const std::vector<uint64_t>& values) {
  std::fprintf(stderr, " %s=", name);
  for (size_t i = 0; i < values.size(); ++i) {
    std::fprintf(stderr, i == 0 ? "%lu" : ",%lu", Count(values[i]));
  }
}

// Trains `steps` steps with a fresh trainer and `observer`, as the board will: sample after
// sample from the first, and prints one line a step. Returns the engine's clock reads per step
// (the same for every step, or an error).
Status RunPhase(const char* phase, Model* model, const DataSet& data,
                const TrainingOptions& options, const TrainabilityConfig& trainability,
                uint32_t steps, TrainingObserver* observer, TimedObserver* timed,
                uint32_t* reads_per_step) {
  Trainer trainer;
  TS_RETURN_IF_ERROR(trainer.Init(model, options, trainability));
  if (observer != nullptr) trainer.set_observer(observer);
  const uint32_t per_epoch = data.sample_count / options.batch_size;
  // The observer's own reads: one at each loss (one a sample) and one at the optimizer step.
  const uint32_t observer_reads = timed != nullptr ? options.batch_size + 1 : 0;
  for (uint32_t s = 0; s < steps; ++s) {
    if (timed != nullptr) timed->Clear();
    const uint32_t reads_before = counting.reads;
    const uint64_t start = MonotonicNowNs();
    const Status status = trainer.TrainStep(data, (s % per_epoch) * options.batch_size);
    const uint64_t end = MonotonicNowNs();
    TS_RETURN_IF_ERROR(status);
    const uint32_t reads = counting.reads - reads_before - 2 - observer_reads;
    if (s == 0) *reads_per_step = reads;
    if (reads != *reads_per_step) {
      return Status::Error(StatusCode::kUnsupported,
                           "%s: step %lu read the clock %lu times, not %lu", phase,
                           static_cast<unsigned long>(s + 1), static_cast<unsigned long>(reads),
                           static_cast<unsigned long>(*reads_per_step));
    }
    std::fprintf(stderr, "count: %s %lu %lu", phase, static_cast<unsigned long>(s + 1),
                 Count(end - start));
    if (timed != nullptr) {
      std::fprintf(stderr, " loss=%lu optimizer=%lu", Count(timed->loss), Count(timed->optimizer));
      PrintList("forward", timed->forward);
      PrintList("backward", timed->backward);
    }
    std::fputs("\n", stderr);
  }
  return Status::Ok();
}

}  // namespace

uint64_t CountingNowNs() {
  CountingClock& c = counting;
  // The board phase's bookkeeping comes before the timer read, so that none of it lands in the
  // interval this read opens (an operator's duration): after the read every call does the same.
  if (c.recorded > c.steps) ReportBoardSteps();
  uint64_t* slot = &c.unrecorded;
  if (--c.until_step == 0) slot = NextStepStart();
  const uint64_t now = BoardNowNs();
  c.last_read = now;
  *slot = now;
  ++c.reads;
  return now;
}

Status StartCounting(Model* model, const DataSet& data, const TrainingOptions& options,
                     const TrainabilityConfig& trainability, uint32_t steps) {
  char command[64] = {};
  if (!ReadCommandLine(command, sizeof command)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "no phase to count: start QEMU with -semihosting-config "
                         "enable=on,target=native,arg=PHASE (scripts/cortex-m-steps.sh does)");
  }
  char* number_text = std::strchr(command, ' ');
  if (number_text != nullptr) *number_text++ = '\0';
  const char* phase = command;
  const unsigned long number = number_text != nullptr ? std::strtoul(number_text, nullptr, 10) : 0;

  const uint32_t per_epoch = options.batch_size > 0 ? data.sample_count / options.batch_size : 0;
  if (per_epoch < 2) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%lu samples make fewer than two batches of %lu: no step to count "
                         "before an epoch's end",
                         static_cast<unsigned long>(data.sample_count),
                         static_cast<unsigned long>(options.batch_size));
  }
  if (steps > per_epoch - 1) steps = per_epoch - 1;
  if (steps > kMaxCountedSteps) steps = kMaxCountedSteps;

  const uint64_t first = MonotonicNowNs();
  const uint64_t second = MonotonicNowNs();
  const Subgraph& main = model->graph().main();
  std::fprintf(stderr,
               "count: setup board=%s resolution_ns=%lu clock=%lu steps=%lu batch=%lu ops=%lu\n",
               kBoardName, static_cast<unsigned long>(kClockResolutionNs), Count(second - first),
               static_cast<unsigned long>(steps), static_cast<unsigned long>(options.batch_size),
               static_cast<unsigned long>(main.operators.size()));
  for (size_t k = 0; k < main.operators.size(); ++k) {
    std::fprintf(stderr, "count: op %lu %s\n", static_cast<unsigned long>(k),
                 OpcodeName(main.operators[k].opcode));
  }

  if (std::strcmp(phase, "board") == 0) {
    if (number == 0) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "board: give the clock reads per step (arg=board,arg=READS)");
    }
    counting.steps = steps;
    counting.reads_per_step = static_cast<uint32_t>(number);
    return Status::Ok();
  }
  TimedObserver timed(main.operators.size());
  DroppingObserver dropping(number_text != nullptr ? static_cast<uint32_t>(number) : kAllEvents);
  uint32_t reads = 0;
  if (std::strcmp(phase, "engine") == 0) {
    TS_RETURN_IF_ERROR(
        RunPhase(phase, model, data, options, trainability, steps, nullptr, nullptr, &reads));
    if (reads != 0) {
      return Status::Error(StatusCode::kUnsupported,
                           "the engine read the clock %lu times a step without an observer",
                           static_cast<unsigned long>(reads));
    }
  } else if (std::strcmp(phase, "timed") == 0) {
    TS_RETURN_IF_ERROR(
        RunPhase(phase, model, data, options, trainability, steps, &timed, &timed, &reads));
    std::fprintf(stderr, "count: reads %lu\n", static_cast<unsigned long>(reads));
  } else if (std::strcmp(phase, "events") == 0) {
    TS_RETURN_IF_ERROR(
        RunPhase(phase, model, data, options, trainability, steps, &dropping, nullptr, &reads));
    std::fprintf(stderr, "count: reads %lu\n", static_cast<unsigned long>(reads));
  } else {
    return Status::Error(StatusCode::kInvalidArgument,
                         "unknown phase '%s': expected engine, timed, events [MASK] or board READS",
                         phase);
  }
  std::fputs("count: done\n", stderr);
  StopEmulator(true);
}

void CountLinkBytes(size_t bytes) {
  counting.link_bytes += static_cast<uint32_t>(bytes);
}

void CountBoardSteps() {
  counting.recorded = 0;
  counting.until_step = 1;
}

void CountingFailed(const char* text) {
  std::fprintf(stderr, "count: error %s\n", text);
  StopEmulator(false);
}

}  // namespace trainscope::firmware
