// SPDX-License-Identifier: Apache-2.0
//
// BoardSimulator: the engine's Trainer plus the serial Agent behind a BoardPort, playing the part
// of a board that trains with onert-micro and runs the TrainScope agent. Desktops attach to it
// exactly as to hardware, so device-path tests run the real protocol end to end.
//
// What it does, in the order a firmware would:
//   - greets with 0x00, HELLO and MODEL_ANNOUNCE (hash of the model file as loaded), and again
//     whenever a desktop (re)connects;
//   - trains epoch after epoch, reporting every event through the agent; the agent is also the
//     trainer's ExecutionGate, so PAUSE, STEP_* and breakpoints stop the run between backward
//     operators and wait there while still answering commands and sending heartbeats;
//   - applies SET_TRAINABILITY at the next optimizer-step boundary: weights are written back to
//     the model, the trainer is initialised again with the new config (Adam state restarts), the
//     model is announced again with its new trainable ops, and a LOG line says what changed;
//   - before each optimizer step it waits until the TX queue is at most half full, as firmware
//     waiting for its UART, so the line's rate paces training and link frames are never refused;
//   - once the epochs are done it keeps answering commands until killed (or returns, with
//     exit_when_done, once its queue drained).
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
#include "serial/agent/agent.h"
#include "serial/protocol/messages.h"

namespace trainscope {

struct SimulatorOptions {
  TrainingOptions training;
  TrainabilityConfig trainability;
  uint32_t baud_rate = 0;  // 0: as fast as the port takes bytes
  LineFaults faults;
  bool exit_when_done = false;
  size_t tx_buffer_bytes = 8192;  // the agent's TX ring, as a firmware would size it
  FILE* log = stderr;             // progress and warnings (at most one line per second); or null
};

class BoardSimulator final : private ExecutionGate {
 public:
  BoardSimulator(Model* model, DataSet data, const SimulatorOptions& options, BoardPort* port);
  ~BoardSimulator() override;
  BoardSimulator(const BoardSimulator&) = delete;
  BoardSimulator& operator=(const BoardSimulator&) = delete;

  // Initialises the trainer and the agent, then greets.
  Status Start();
  // Trains, then serves commands. Returns only with exit_when_done (the training status).
  Status Run();

  const LineStats& line_stats() const { return line_.stats(); }

 private:
  static void PollThunk(void* self);
  static const char* NameThunk(void* self, wire::NameKind kind, uint32_t id);
  void BeforeBackwardStep(const BackwardStepEvent& event) override;

  Status Train();
  void Serve();
  void PollLink(int timeout_ms);
  void Greet();
  void WaitForLine();
  void ApplyTrainabilityChanges();
  void DescribeOps();
  uint32_t NowMs() const;
  void Log(wire::LogLevel level, const std::string& text);

  Model* model_;
  DataSet data_;
  SimulatorOptions options_;
  BoardPort* port_;
  SimulatedLine line_;
  std::vector<uint8_t> delivered_;  // what the line let through of one read
  uint64_t model_hash_ = 0;
  int64_t start_ns_ = 0;
  bool port_error_reported_ = false;

  std::unique_ptr<Trainer> trainer_;
  std::vector<wire::OpSummary> ops_;  // stays at one address: the agent keeps a pointer
  std::vector<uint8_t> tx_storage_;
  std::unique_ptr<Agent> agent_;
};

}  // namespace trainscope
