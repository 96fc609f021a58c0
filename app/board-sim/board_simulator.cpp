// SPDX-License-Identifier: Apache-2.0
#include "app/board-sim/board_simulator.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace trainscope {

namespace {

TrainingBoardOptions NamedBoardOptions(TrainingBoardOptions options) {
  options.name = "trainscope-board-sim";
  return options;
}

}  // namespace

BoardSimulator::BoardSimulator(Model* model, DataSet data, const SimulatorOptions& options,
                               BoardPort* port)
    : port_(port),
      log_(options.board.log),
      line_(port, options.baud_rate, options.faults),
      start_ns_(MonotonicNowNs()),
      wait_for_desktop_(options.wait_for_desktop),
      board_(model, std::move(data), NamedBoardOptions(options.board), this) {}

BoardSimulator::~BoardSimulator() = default;

Status BoardSimulator::Run() {
  if (wait_for_desktop_) {
    if (log_) std::fprintf(log_, "waiting for a desktop before training\n");
    board_.PollUntil([](void* port) { return static_cast<BoardPort*>(port)->connected(); }, port_);
  }
  return board_.Run();
}

uint32_t BoardSimulator::NowMs() const {
  return static_cast<uint32_t>((MonotonicNowNs() - start_ns_) / 1000000);
}

size_t BoardSimulator::Write(const uint8_t* data, size_t size) {
  return line_.Write(data, size, MonotonicNowNs());
}

size_t BoardSimulator::Read(uint8_t* data, size_t capacity, int timeout_ms) {
  line_.Pump();
  if (delivered_offset_ == delivered_.size()) {
    delivered_.clear();
    delivered_offset_ = 0;
    uint8_t buffer[512];
    size_t received = 0;
    Status status = port_->Read(buffer, sizeof buffer, timeout_ms, &received);
    if (!status.ok()) {
      if (!port_error_reported_ && log_) std::fprintf(log_, "warning: %s\n", status.message());
      port_error_reported_ = true;
      return 0;
    }
    // The line may hold a frame back until its delimiter arrives, then hand it over whole.
    line_.Receive(buffer, received, &delivered_);
  }
  const size_t size = std::min(capacity, delivered_.size() - delivered_offset_);
  if (size > 0) std::memcpy(data, delivered_.data() + delivered_offset_, size);
  delivered_offset_ += size;
  return size;
}

}  // namespace trainscope
