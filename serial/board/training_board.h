// SPDX-License-Identifier: Apache-2.0
//
// TrainingBoard: what a board that trains with onert-micro and runs the TrainScope agent does,
// independent of the hardware. The engine's Trainer reports every event to the Agent; the board
// layer (BoardLayer) moves the bytes. The simulator and the Cortex-M firmware both run this
// class, so the desktop sees the same board behaviour from either.
//
// In the order a firmware does it:
//   - greets with 0x00, HELLO and MODEL_ANNOUNCE (hash of the model as loaded), and again
//     whenever a desktop (re)connects; reports DEVICE_MEMORY after greeting and whenever a
//     figure grew (checked at most once a second);
//   - trains epoch after epoch; the agent is the trainer's ExecutionGate, so PAUSE, STEP_* and
//     breakpoints stop the run between backward operators and wait there while still answering
//     commands and sending heartbeats;
//   - applies SET_TRAINABILITY at the next optimizer-step boundary: weights are written back to
//     the model, the trainer is initialised again with the new config (Adam state restarts), the
//     model is announced again with its new trainable ops, and a LOG line says what changed;
//   - before each optimizer step it waits until the TX queue is at most half full, as firmware
//     waiting for its UART, so the line's rate paces training and link frames are never refused;
//   - once the epochs are done it keeps answering commands (Serve), or returns with
//     exit_when_done once its queue drained.
//
// Lifetime: `model` and `layer` must outlive the board. Single-threaded.
//
//   TrainingBoard board(&model, std::move(data), options, &layer);
//   Status s = board.Start();
//   if (s.ok()) s = board.Run();
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "engine/plan/trainability.h"
#include "serial/agent/agent.h"
#include "serial/board/board_layer.h"
#include "serial/protocol/messages.h"

namespace trainscope {

struct TrainingBoardOptions {
  TrainingOptions training;
  TrainabilityConfig trainability;
  const char* name = "trainscope-board";  // HELLO's agent name; must outlive the board
  bool emulated_time = false;             // durations are an emulator's time (said in a LOG)
  bool exit_when_done = false;
  // Trains the schedule again, from the weights reached, each time it ends (a demo board that
  // never finishes); each round is logged.
  bool loop = false;
  size_t tx_buffer_bytes = 8192;  // the agent's TX ring
  FILE* log = stderr;             // progress and warnings (at most one line per second); or null
};

class TrainingBoard final : private ExecutionGate {
 public:
  TrainingBoard(Model* model, DataSet data, const TrainingBoardOptions& options, BoardLayer* layer);
  ~TrainingBoard() override;
  TrainingBoard(const TrainingBoard&) = delete;
  TrainingBoard& operator=(const TrainingBoard&) = delete;

  // Starts the agent, initialises the trainer, then greets. On error the agent is already up:
  // HaltWithError() can still tell the desktop.
  Status Start();
  // Replaces the training data; a firmware loads it after Start(), so that running out of memory
  // while copying it can still be reported to the desktop.
  void set_data(DataSet data);
  // Answers the desktop (commands, heartbeats, greetings) without training until `done` says so:
  // a simulator waiting for its first desktop.
  void PollUntil(bool (*done)(void* context), void* context);
  // Trains, then serves commands. Returns only with exit_when_done (the training status).
  Status Run();
  // Says `text` as an error LOG (and on the log), then only answers the desktop, forever. For
  // what a board cannot continue from: a failed start, running out of memory. Call after Start.
  [[noreturn]] void HaltWithError(const char* text);

  // The DEVICE_MEMORY this board would report now.
  wire::DeviceMemoryMessage DeviceMemory() const;
  const AgentStats& agent_stats() const { return agent_->stats(); }

 private:
  static size_t WriteThunk(void* self, const uint8_t* data, size_t size);
  static void PollThunk(void* self);
  static const char* NameThunk(void* self, wire::NameKind kind, uint32_t id);
  static wire::TensorReadResult ReadTensorThunk(void* self, int32_t tensor,
                                                wire::TensorAspect aspect, AgentTensorView* view);
  void BeforeBackwardStep(const BackwardStepEvent& event) override;

  Status Train();
  void Serve();
  void PollLink(int timeout_ms);
  void Greet();
  void WaitForLine();
  void ApplyTrainabilityChanges();
  void DescribeOps();
  void ReportMemory(bool now);
  void Log(wire::LogLevel level, const std::string& text);

  Model* model_;
  DataSet data_;
  TrainingBoardOptions options_;
  BoardLayer* layer_;
  uint64_t model_hash_ = 0;
  uint32_t last_memory_report_ms_ = 0;
  bool greeted_ = false;

  std::vector<uint8_t> tx_storage_;
  std::unique_ptr<Agent> agent_;
  std::unique_ptr<Trainer> trainer_;
  std::vector<wire::OpSummary> ops_;  // stays at one address: the agent keeps a pointer
  std::string read_reason_;           // why the last REQUEST_TENSOR could not be answered
};

}  // namespace trainscope
