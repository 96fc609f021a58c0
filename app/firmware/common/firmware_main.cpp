// SPDX-License-Identifier: Apache-2.0
//
// The main program of every TrainScope firmware: the embedded run (embedded_run.h) trained by a
// TrainingBoard whose board layer is this board's UARTs, timer and RAM measurement. Running out
// of memory is reported to the desktop (an error LOG and the DEVICE_MEMORY at that moment) and
// the board then keeps answering commands, instead of aborting silently.
//
// Built with TRAINSCOPE_FIRMWARE_COUNTED_STEPS > 0 it is the step-counting firmware instead
// (step_count.h): it counts the instructions of that many optimizer steps in the phase QEMU's
// semihosting command line names, prints them and stops QEMU; any failure stops QEMU too, with a
// "count: error" line.
#include <cstdio>
#include <new>
#include <utility>
#include <vector>

#include "app/firmware/common/board_support.h"
#include "app/firmware/common/embedded_run.h"
#include "app/firmware/common/ram_usage.h"
#include "app/firmware/common/step_count.h"
#include "engine/core/clock.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "serial/board/board_layer.h"
#include "serial/board/training_board.h"

#ifndef TRAINSCOPE_FIRMWARE_COUNTED_STEPS
#define TRAINSCOPE_FIRMWARE_COUNTED_STEPS 0
#endif

namespace trainscope::firmware {
namespace {

constexpr uint32_t kCountedSteps = TRAINSCOPE_FIRMWARE_COUNTED_STEPS;
static_assert(kCountedSteps <= kMaxCountedSteps, "TRAINSCOPE_FIRMWARE_COUNTED_STEPS is too large");

// How long Read keeps collecting once bytes flow: QEMU (and a UART) hands over one byte at a time.
constexpr uint64_t kInterByteWaitUs = 200;

class FirmwareLayer final : public BoardLayer {
 public:
  size_t Read(uint8_t* data, size_t capacity, int timeout_ms) override {
    size_t received = 0;
    uint64_t deadline = BoardNowUs() + static_cast<uint64_t>(timeout_ms) * 1000u;
    while (received < capacity) {
      if (LinkReadByte(&data[received])) {
        ++received;
        deadline = BoardNowUs() + kInterByteWaitUs;
      } else if (BoardNowUs() >= deadline) {
        break;
      }
    }
    return received;
  }
  size_t Write(const uint8_t* data, size_t size) override {
    size_t written = 0;
    while (written < size && LinkWriteByte(data[written])) ++written;
    if (kCountedSteps > 0) CountLinkBytes(written);
    return written;
  }
  uint32_t NowMs() const override { return static_cast<uint32_t>(BoardNowUs() / 1000u); }
  bool MeasureMemory(MeasuredMemory* out) const override {
    *out = MeasureRam();
    return true;
  }
};

uint64_t NowNs() {
  return BoardNowNs();
}

TrainingBoard* running_board = nullptr;

// operator new calls this when malloc found no room; it never returns.
void OnOutOfMemory() {
  static bool reporting = false;
  char text[120];
  std::snprintf(text, sizeof text, "out of memory: the heap reached the stack (%lu bytes free)",
                static_cast<unsigned long>(HeapFreeBytes()));
  if (kCountedSteps > 0) CountingFailed(text);
  if (running_board == nullptr || reporting) {
    std::fputs(text, stderr);
    std::fputs("\n", stderr);
    for (;;) {
    }
  }
  reporting = true;
  running_board->HaltWithError(text);
}

DataSet EmbeddedDataSet(const EmbeddedRun& run) {
  DataSet data;
  data.sample_count = run.sample_count;
  for (uint32_t k = 0; k < run.input_count; ++k) {
    const size_t floats = size_t{run.input_elements[k]} * run.sample_count;
    data.inputs.emplace_back(run.inputs[k], run.inputs[k] + floats);
  }
  data.targets.assign(run.targets, run.targets + size_t{run.target_elements} * run.sample_count);
  return data;
}

TrainabilityConfig EmbeddedTrainability(const EmbeddedRun& run) {
  TrainabilityConfig config;
  config.num_train_layers = run.num_train_layers;
  for (uint32_t i = 0; i < run.op_rank_count; ++i) {
    config.op_ranks[run.op_ranks[i].op] = run.op_ranks[i].rank;
  }
  return config;
}

[[noreturn]] void Stop(const char* what, const Status& status) {
  std::fprintf(stderr, "firmware: %s: %s\n", what, status.message());
  if (kCountedSteps > 0) CountingFailed(status.message());
  for (;;) {
  }
}

}  // namespace

// The firmware's main(), called by Reset_Handler (startup.cpp); it never returns.
[[noreturn]] void RunFirmware() {
  BoardInit();
  // stdio without buffers: nothing allocates behind the firmware's back, and text goes out at once.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::setvbuf(stderr, nullptr, _IONBF, 0);
  std::set_new_handler(&OnOutOfMemory);
  SetMonotonicClock(kCountedSteps > 0 ? &CountingNowNs : &NowNs);
  std::fprintf(stderr, "%s: %s\n", kBoardName, kEmbeddedRun.description);

  const EmbeddedRun& run = kEmbeddedRun;
  Model model;
  Status status =
      Model::FromBytes(std::vector<uint8_t>(run.model, run.model + run.model_bytes), &model);
  if (!status.ok()) Stop("the embedded model", status);

  DataSet counted_data;
  if (kCountedSteps > 0) {
    counted_data = EmbeddedDataSet(run);
    // Returns only for the board phase.
    status =
        StartCounting(&model, counted_data, run.options, EmbeddedTrainability(run), kCountedSteps);
    if (!status.ok()) Stop("counting", status);
  }

  TrainingBoardOptions options;
  options.training = run.options;
  options.trainability = EmbeddedTrainability(run);
  options.name = kBoardName;
  options.emulated_time = kEmulatedTime;
  options.tx_buffer_bytes = 8192;
  options.log = stderr;
  FirmwareLayer layer;
  // The samples come after the start, so that a board too small for them still says so.
  TrainingBoard board(&model, DataSet{}, options, &layer);
  running_board = &board;
  status = board.Start();
  if (!status.ok()) {
    if (kCountedSteps > 0) Stop("the board", status);
    board.HaltWithError(status.message());
  }
  board.set_data(kCountedSteps > 0 ? std::move(counted_data) : EmbeddedDataSet(run));
  if (kCountedSteps > 0) CountBoardSteps();
  status = board.Run();  // trains, then serves commands; returns only with exit_when_done
  if (kCountedSteps > 0) {
    Stop("the board", status.ok() ? Status::Error(StatusCode::kInvalidArgument,
                                                  "training ended before the last counted step")
                                  : status);
  }
  board.HaltWithError(status.message());
}

}  // namespace trainscope::firmware
