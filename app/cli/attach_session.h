// SPDX-License-Identifier: Apache-2.0
//
// AttachSession: the CLI's view of one live link. The link itself (reading, recording every byte
// as it arrives, decoding with the mid-stream join excused, command encoding, link counters) is
// the shared LinkStream; this adds the numbers the attach command reports and its policy that a
// failed recording ends the session. Commands are kept by a CommandLedger and written again
// until the board acknowledges them; the board's repeated RUN_STATE reports count once.
//
// Lifetime: `link` and `record` must outlive the session. Single-threaded.
//
//   AttachSession session(link.get(), &writer);
//   TS_RETURN_IF_ERROR(session.SendCommand(wire::MessageType::kRequestHello));
//   while (session.stats().backward_steps < 30) TS_RETURN_IF_ERROR(session.Pump(50));
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "serial/link/command_ledger.h"
#include "serial/link/link_stream.h"
#include "serial/link/tensor_assembler.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/messages.h"
#include "serial/trace/trace_file.h"
#include "serial/transport/transport.h"

namespace trainscope::cli {

struct AttachStats {
  uint64_t backward_steps = 0;   // BACKWARD_STEP end events
  uint64_t optimizer_steps = 0;  // OPTIMIZER_STEP events
  uint32_t last_optimizer_step = 0;
  bool has_loss = false;
  float last_loss = 0.0f;
  bool has_hello = false;
  wire::HelloMessage hello;
  bool has_model = false;
  uint64_t model_hash = 0;
  uint32_t op_count = 0;
  std::vector<wire::OpSummary> ops;  // as announced (every MODEL_ANNOUNCE frame)
  uint8_t optimizer = wire::kOptimizerUnknown;
  uint32_t batch_size = 0;          // 0: the board did not say
  wire::RunStateMessage run_state;  // the last RUN_STATE counted
  uint32_t agent_drops = 0;         // the board's own count of discarded frames (last HEARTBEAT)
  uint64_t heartbeats = 0;
  uint64_t paused_reports = 0;       // RUN_STATE frames saying "paused"
  uint64_t step_done_reports = 0;    // ... of which because a STEP_* command finished
  uint64_t steps_at_last_pause = 0;  // backward_steps when the last "paused" arrived
  bool paused = false;
  uint64_t refused_commands = 0;     // ACKs other than OK for a command we were waiting on
  std::string last_refusal;          // "PAUSE: not supported by this firmware"
  uint64_t unanswered_commands = 0;  // given up on after CommandLedger::give_up_ms()
  std::string last_unanswered;       // "PAUSE (sent 12 times)"
  wire::MessageType last_unanswered_type = wire::MessageType::kPing;
  uint32_t last_transition = 0;                                  // of the last RUN_STATE counted
  wire::BoardActivity activity = wire::BoardActivity::kUnknown;  // as the last RUN_STATE said
  std::string last_log;
  std::string last_error;  // the last LOG at error level ("out of memory: ...")
  bool has_device_memory = false;
  wire::DeviceMemoryMessage device_memory;  // the last DEVICE_MEMORY
};

class AttachSession final : public TrainingObserver, public wire::LinkHandler {
 public:
  using Clock = LinkStream::Clock;

  AttachSession(Transport* link, TraceWriter* record);

  // Writes again the commands due for a retry, reads once, waiting up to timeout_ms, and handles
  // every frame that completed. An error means the link is gone, or the recording failed
  // (recording_failed()).
  Status Pump(int timeout_ms);
  // Sends a command without arguments (PAUSE, STEP_BACKWARD_OP, REQUEST_HELLO, ...) and keeps
  // it until acknowledged.
  Status SendCommand(wire::MessageType type);
  // Sends REQUEST_TENSOR and makes tensor() wait for its answer.
  Status RequestTensor(int32_t tensor, wire::TensorAspect aspect);
  TensorAssembler& tensor() { return tensor_; }
  // For a replay: the recorded desktop's first command id (FirstRecordedCommandId).
  void set_next_command_id(uint16_t id) { stream_.set_next_command_id(id); }

  const AttachStats& stats() const { return stats_; }
  const wire::LinkCounters& counters() const { return stream_.counters(); }
  const CommandLedger& commands() const { return ledger_; }
  uint64_t frames_bad() const { return stream_.frames_bad(); }
  uint64_t malformed() const { return stream_.malformed(); }
  bool recording_failed() const { return stream_.recording_failed(); }
  // When the last good frame arrived (the session's start before the first one).
  Clock::time_point last_frame_time() const { return stream_.last_frame_time(); }

  // TrainingObserver
  void OnOptimizerStep(const OptimizerStepEvent& event) override;
  void OnBackwardStep(const BackwardStepEvent& event) override;
  void OnLoss(const LossEvent& event) override;
  // LinkHandler
  void OnHello(const wire::HelloMessage& hello) override;
  void OnModelAnnounce(const wire::ModelAnnounceMessage& announce) override;
  void OnLog(const wire::LogMessage& log) override;
  void OnHeartbeat(const wire::HeartbeatMessage& heartbeat) override;
  void OnAck(const wire::AckMessage& ack) override;
  void OnRunState(const wire::RunStateMessage& state) override;
  void OnDeviceMemory(const wire::DeviceMemoryMessage& memory) override;
  void OnTensorHeader(const wire::TensorHeaderMessage& header) override;
  void OnTensorChunk(const wire::TensorChunkMessage& chunk) override;

 private:
  Transport* link_;
  TraceWriter* record_;
  LinkStream stream_;
  CommandLedger ledger_;
  AttachStats stats_;
  TensorAssembler tensor_;
};

}  // namespace trainscope::cli
