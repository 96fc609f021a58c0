// SPDX-License-Identifier: Apache-2.0
//
// BoardProbe: walks a live board through one optimizer step at the points of a ProbePlan and
// reads the plan's tensors there. It pauses the board, steps to the boundary before the step
// (STEP_BATCH), reads the start state, then takes the step one backward operator at a time
// (STEP_BACKWARD_OP) and the update (STEP_BATCH), reading at each stop with REQUEST_TENSOR.
// Every wait is bounded by `timeout_ms` without progress; a board that refuses, finishes, goes
// quiet or stops somewhere else than the plan expects ends the probe with a sentence saying so.
//
// Lifetime: the session must outlive the probe. Single-threaded.
//
//   BoardProbe probe(&session, &plan, {.step = 0, .timeout_ms = 10000});
//   Status s = probe.Connect(hash);          // HELLO, MODEL_ANNOUNCE, capabilities
//   if (s.ok()) s = probe.Run(&board_readings);
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "app/cli/attach_session.h"
#include "engine/core/status.h"
#include "serial/compare/probe_plan.h"

namespace trainscope::cli {

struct BoardProbeOptions {
  uint32_t step = 0;  // optimizer step to read (from 1); 0: the next one the board starts
  int timeout_ms = 10000;
  bool stay_paused = false;  // leave the board paused after the update instead of RESUME
};

struct ProbeTransfer {
  uint64_t requests = 0;
  uint64_t refused = 0;  // answered "not held" / unsupported
  uint64_t values = 0;
  uint64_t chunks = 0;
  uint64_t payload_bytes = 0;
  // Bytes the line carried for the answers: payloads plus framing (header, CRC, COBS, delimiter).
  uint64_t wire_bytes = 0;
  double seconds = 0.0;  // from the first request to the last value, waits for the board included
};

class BoardProbe {
 public:
  BoardProbe(AttachSession* session, const ProbePlan* plan, const BoardProbeOptions& options)
      : session_(session), plan_(plan), options_(options) {}

  // Waits for HELLO and the whole MODEL_ANNOUNCE; checks the hash and the capabilities.
  Status Connect(uint64_t model_hash);
  // The step that Run() read (valid after it succeeded).
  uint32_t step() const { return step_; }
  // Reads every point of the plan; `readings` gets the start state first, in plan order.
  Status Run(std::vector<ProbeReading>* readings);
  const ProbeTransfer& transfer() const { return transfer_; }

 private:
  using Clock = std::chrono::steady_clock;
  Status WaitUntil(const std::function<bool()>& done, const char* what);
  Status SendAndWaitForPause(wire::MessageType command, const char* what);
  Status ReadAt(const ProbePoint& point, std::vector<ProbeReading>* readings);

  AttachSession* session_;
  const ProbePlan* plan_;
  BoardProbeOptions options_;
  uint32_t step_ = 0;
  ProbeTransfer transfer_;
};

}  // namespace trainscope::cli
