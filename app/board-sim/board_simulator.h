// SPDX-License-Identifier: Apache-2.0
//
// BoardSimulator: a TrainingBoard (serial/board/) whose board layer is a BoardPort (pty or TCP)
// behind a SimulatedLine, so desktops attach to it exactly as to hardware and device-path tests
// run the real protocol end to end. What the board does — greeting, training, pausing,
// trainability changes, the memory it reports — is TrainingBoard's; this class adds the line
// (rate, faults) and the cable (desktops coming and going).
//
// The simulator cannot measure its own heap, so its DEVICE_MEMORY is the board's accounting of
// what it allocated (wire::MemorySource::kAccounted).
//
// Lifetime: `model` and `port` must outlive the simulator. Single-threaded.
//
//   BoardSimulator sim(&model, std::move(data), options, port.get());
//   TS_RETURN_IF_ERROR(sim.Start());
//   return sim.Run();
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "app/board-sim/board_port.h"
#include "app/board-sim/simulated_line.h"
#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"
#include "serial/board/board_layer.h"
#include "serial/board/training_board.h"

namespace trainscope {

struct SimulatorOptions {
  TrainingBoardOptions board;  // what it trains and how (its name is the simulator's own)
  uint32_t baud_rate = 0;      // 0: as fast as the port takes bytes
  LineFaults faults;
  bool wait_for_desktop = false;  // train only once a desktop is there
};

class BoardSimulator final : private BoardLayer {
 public:
  BoardSimulator(Model* model, DataSet data, const SimulatorOptions& options, BoardPort* port);
  ~BoardSimulator() override;
  BoardSimulator(const BoardSimulator&) = delete;
  BoardSimulator& operator=(const BoardSimulator&) = delete;

  // Initialises the trainer and the agent, then greets.
  Status Start() { return board_.Start(); }
  // Trains (with wait_for_desktop: once a desktop is there), then serves commands. Returns only
  // with exit_when_done (the training status).
  Status Run();

  const LineStats& line_stats() const { return line_.stats(); }

 private:
  // BoardLayer over the port and the simulated line.
  size_t Read(uint8_t* data, size_t capacity, int timeout_ms) override;
  size_t Write(const uint8_t* data, size_t size) override;
  bool TakeNewPeer() override { return port_->TakeNewPeer(); }
  bool LinkIdle() const override { return line_.idle(); }
  uint32_t NowMs() const override;

  BoardPort* port_;
  FILE* log_;
  SimulatedLine line_;
  std::vector<uint8_t> delivered_;  // what the line let through, not yet read
  size_t delivered_offset_ = 0;
  int64_t start_ns_ = 0;
  bool port_error_reported_ = false;
  bool wait_for_desktop_ = false;
  TrainingBoard board_;
};

}  // namespace trainscope
