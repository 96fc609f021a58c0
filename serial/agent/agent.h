// SPDX-License-Identifier: Apache-2.0
//
// Agent: the board side of the TrainScope link. It is a TrainingObserver, so the training loop
// reports events to it exactly as the desktop engine reports them to its views; the agent
// encodes them into frames, queues them in a TxRing and hands bytes to the firmware's UART
// writer. Bytes from the desktop go to Receive(); commands are applied to a ControlState and
// answered with ACK frames.
//
// Freestanding: no heap, no exceptions, no RTTI, no Qt, no std containers. Every buffer is a
// member or caller-provided (the TX storage); sizeof(Agent) is about 1 KB (1000 bytes on
// x86-64). It needs memcpy, memmove, memchr, memcmp and strlen from the C library; the virtual
// destructor inherited from TrainingObserver references operator delete, which is never called.
//
// Lifetime: the config's pointers (name, tx storage, ops passed to AnnounceModel, callback
// contexts) must outlive the agent. Single-threaded: call everything from the training thread,
// including Receive() with bytes an RX interrupt collected into a FIFO.
//
//   static uint8_t tx[4096];
//   AgentConfig config;
//   config.name = "stm32f7-trainer";
//   config.capabilities = wire::capability::kBackwardSteps | wire::capability::kPauseStep;
//   config.tx_storage = tx;  config.tx_storage_size = sizeof tx;
//   config.write = &UartWrite;  config.poll = &PollUart;      // see docs/agent-guide.md
//   Agent agent(config);
//   agent.Start();
//   agent.AnnounceModel(hash, tensor_count, ops, op_count);
//   agent.OnBackwardStep(event);   // from the training loop; may wait here while paused
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/events.h"
#include "serial/agent/control_state.h"
#include "serial/agent/recent_commands.h"
#include "serial/agent/sent_names.h"
#include "serial/agent/tx_ring.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/messages.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope {

// Called while the run is paused (and once per safe point while running) so the firmware can
// move UART bytes into Receive(), send heartbeats with Tick() and sleep briefly.
using AgentPollFn = void (*)(void* context);
// Returns the name of a tensor or operator (or nullptr if none). Used to intern names lazily.
using AgentNameLookupFn = const char* (*)(void* context, wire::NameKind kind, uint32_t id);

// Where a tensor's values are in the board's memory, for REQUEST_TENSOR. The agent sends them
// from there, chunk by chunk, and the run does not continue until the last chunk is queued, so
// the board keeps nothing extra to answer.
struct AgentTensorView {
  const float* values = nullptr;
  uint32_t count = 0;
  uint8_t rank = 0;
  int32_t dims[wire::kMaxTensorRank] = {};
  const char* reason = nullptr;  // for any result but kOk; must live until the call returns
};
// Looks a tensor up where the run waits now. Called only from the agent, at a safe point.
using AgentTensorReadFn = wire::TensorReadResult (*)(void* context, int32_t tensor,
                                                     wire::TensorAspect aspect,
                                                     AgentTensorView* view);

struct AgentConfig {
  const char* name = "trainscope-agent";
  uint32_t capabilities = 0;  // wire::capability bits the firmware implements
  uint32_t ram_bytes = 0;
  uint32_t arena_bytes = 0;
  uint8_t* tx_storage = nullptr;  // at least kAgentMaxFrameBytes + 2; 2-8 KiB is typical
  size_t tx_storage_size = 0;
  AgentWriteFn write = nullptr;
  void* write_context = nullptr;
  AgentPollFn poll = nullptr;  // null: the agent never waits (pause state is still reported)
  void* poll_context = nullptr;
  AgentNameLookupFn lookup_name = nullptr;  // null: names only via InternName()
  void* lookup_context = nullptr;
  AgentTensorReadFn read_tensor = nullptr;  // null: REQUEST_TENSOR is answered UNSUPPORTED
  void* read_context = nullptr;
  uint32_t event_mask = wire::kAllEventsMask;  // wire::EventMaskBit() of the events to send
};

// Largest payload the agent sends (MODEL_ANNOUNCE with a full op list; a TENSOR_CHUNK is 199).
inline constexpr size_t kAgentMaxPayloadBytes = 21 + 3 * wire::kMaxOpsPerAnnounce + 5;
inline constexpr size_t kAgentMaxFrameBytes = wire::WireFrameSize(kAgentMaxPayloadBytes);
// Commands are at most 16 bytes of payload; anything longer is not for the agent.
inline constexpr size_t kAgentRxFrameBytes = 40;

struct AgentStats {
  uint32_t frames_queued = 0;
  uint32_t encode_failures = 0;  // should stay 0: a message larger than the agent's buffer
  uint32_t commands_applied = 0;
  uint32_t commands_rejected = 0;  // acknowledged with a result other than kOk
  uint32_t ignored_frames = 0;     // good frames that are not commands (never answered)
  uint32_t repeated_commands = 0;  // commands sent again (a lost ACK): answered, not re-applied
  uint32_t tensors_sent = 0;       // REQUEST_TENSOR answers whose last chunk was queued
  uint64_t tensor_bytes_sent = 0;  // the values of those answers (4 bytes each)
};

class Agent final : public TrainingObserver, private wire::FrameSink {
 public:
  explicit Agent(const AgentConfig& config);

  // Sends a delimiter (to end any noise on the line) and HELLO. Call once the UART is up.
  void Start();
  // Sends MODEL_ANNOUNCE frames for `ops` (kept by pointer: re-sent on REQUEST_HELLO).
  void AnnounceModel(uint64_t model_hash, uint32_t tensor_count, const wire::OpSummary* ops,
                     uint32_t op_count);
  // The optimizer (OptimizerKind) and batch size the board trains with, carried by every
  // MODEL_ANNOUNCE from now on so the desktop plans the board's memory for them.
  void SetTrainingSetup(uint8_t optimizer, uint32_t batch_size) {
    optimizer_ = optimizer;
    batch_size_ = batch_size;
  }
  // The arena HELLO advertises from the next HELLO on (a board learns it once its plan is made).
  void set_arena_bytes(uint32_t bytes) { config_.arena_bytes = bytes; }
  // Sends a name once per session; later calls with the same (kind, id) send nothing.
  void InternName(wire::NameKind kind, uint32_t id, const char* name);
  void Log(wire::LogLevel level, const char* text);
  // Sends DEVICE_MEMORY when it differs from the last report, and again with every answer to
  // REQUEST_HELLO, so a desktop that attaches late still learns what the board used.
  void ReportDeviceMemory(const wire::DeviceMemoryMessage& memory);
  // Sends HEARTBEAT when kHeartbeatPeriodMs passed since the last one, and with it the current
  // RUN_STATE again, so a desktop that lost a report (or just connected) learns the state.
  void Tick(uint32_t now_ms);

  // Bytes received from the desktop, any chunking.
  void Receive(const uint8_t* data, size_t size);
  // Hands queued bytes to the writer; the agent also does this after every frame it queues.
  size_t Flush();
  // Blocks in the poll callback while paused (returns at once without one).
  void WaitWhilePaused();

  bool paused() const { return control_.paused(); }
  // A REQUEST_TENSOR answer still has chunks to queue; the run waits until it has none.
  bool sending_tensor() const { return transfer_.active; }
  // Queues the rest of a REQUEST_TENSOR answer, polling while the ring is full. A firmware that
  // receives outside the agent's safe points calls this before the run goes on, since the
  // values are sent from where the tensor lives.
  void FinishTensorTransfer();
  // Says what the board's schedule is at (training, finished, waiting, halted): a RUN_STATE now
  // and with every heartbeat after.
  void SetActivity(wire::BoardActivity activity) {
    control_.SetActivity(activity);
    ReportRunState();
  }
  bool TakeTrainabilityChange(TrainabilityChange* out) {
    return control_.TakeTrainabilityChange(out);
  }
  bool TakeMemoryPlanRequest() { return control_.TakeMemoryPlanRequest(); }

  const AgentStats& stats() const { return stats_; }
  const TxRing& tx_ring() const { return ring_; }
  const wire::LinkCounters& rx_counters() const { return rx_.counters(); }

  // TrainingObserver: encode, queue, then stop here if the event paused the run.
  void OnSample(const SampleEvent& event) override;
  void OnOptimizerStep(const OptimizerStepEvent& event) override;
  void OnForwardOp(const ForwardOpEvent& event) override;
  void OnBackwardStep(const BackwardStepEvent& event) override;
  void OnMemory(const MemoryEvent& event) override;
  void OnMemorySummary(const MemorySummaryEvent& event) override;
  void OnGradientStats(const GradientStatsEvent& event) override;
  void OnUpdateRatio(const UpdateRatioEvent& event) override;
  void OnLoss(const LossEvent& event) override;
  void OnMetric(const MetricEvent& event) override;

 private:
  void OnFrame(const wire::FrameView& frame) override;  // a command arrived
  template <class Message>
  void Send(const Message& message);
  void SendHello();
  void SendModelAnnounce();
  void LookUpName(wire::NameKind kind, int64_t id);
  void Acknowledge(const wire::FrameView& frame, uint16_t command_id, wire::AckResult result);
  // After an event: report a run-state change, let the firmware poll, wait while paused.
  void SafePoint();
  void ReportRunState();
  // REQUEST_TENSOR: whether it can be answered now, then (after its ACK) the header and chunks.
  wire::AckResult AcceptTensorRequest() const;
  void StartTensorTransfer(const wire::RequestTensorCommand& command);
  // Queues chunks while the TX ring has room for them and for the link frames that may follow.
  void SendTensorChunks();

  struct TensorTransfer {
    bool active = false;
    uint16_t command_id = 0;
    const float* values = nullptr;
    uint32_t count = 0;
    uint32_t sent = 0;
  };

  AgentConfig config_;
  wire::FrameEncoder encoder_;
  TxRing ring_;
  ControlState control_;
  RecentCommands recent_commands_;
  SentNames sent_names_;
  wire::BasicStreamDecoder<kAgentRxFrameBytes> rx_;
  AgentStats stats_;
  uint8_t frame_[kAgentMaxFrameBytes];

  const wire::OpSummary* ops_ = nullptr;
  uint32_t op_count_ = 0;
  uint32_t tensor_count_ = 0;
  uint64_t model_hash_ = 0;
  uint8_t optimizer_ = wire::kOptimizerUnknown;
  uint32_t batch_size_ = 0;
  bool started_ = false;
  bool in_poll_ = false;
  uint32_t last_heartbeat_ms_ = 0;
  wire::DeviceMemoryMessage device_memory_;
  bool has_device_memory_ = false;
  TensorTransfer transfer_;
};

}  // namespace trainscope
