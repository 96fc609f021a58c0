// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/message_router.h"

#include "serial/protocol/message.h"

namespace trainscope::wire {
namespace {

// One overload per alternative of Message; a new alternative fails to compile until routed.
struct Router {
  TrainingObserver* events;
  LinkHandler* link;

  void operator()(const HelloMessage& m) const { link->OnHello(m); }
  void operator()(const ModelAnnounceMessage& m) const { link->OnModelAnnounce(m); }
  void operator()(const InternNameMessage& m) const { link->OnInternName(m); }
  void operator()(const LogMessage& m) const { link->OnLog(m); }
  void operator()(const HeartbeatMessage& m) const { link->OnHeartbeat(m); }
  void operator()(const AckMessage& m) const { link->OnAck(m); }
  void operator()(const RunStateMessage& m) const { link->OnRunState(m); }
  void operator()(const DeviceMemoryMessage& m) const { link->OnDeviceMemory(m); }
  void operator()(const BasicCommand& m) const { link->OnCommand(m); }
  void operator()(const SetBreakpointCommand& m) const { link->OnSetBreakpoint(m); }
  void operator()(const SetTrainabilityCommand& m) const { link->OnSetTrainability(m); }
  void operator()(const RequestTensorCommand& m) const { link->OnRequestTensor(m); }
  void operator()(const TensorHeaderMessage& m) const { link->OnTensorHeader(m); }
  void operator()(const TensorChunkMessage& m) const { link->OnTensorChunk(m); }
  void operator()(const SampleEvent& e) const { events->OnSample(e); }
  void operator()(const OptimizerStepEvent& e) const { events->OnOptimizerStep(e); }
  void operator()(const ForwardOpEvent& e) const { events->OnForwardOp(e); }
  void operator()(const BackwardStepEvent& e) const { events->OnBackwardStep(e); }
  void operator()(const MemoryEvent& e) const { events->OnMemory(e); }
  void operator()(const MemorySummaryEvent& e) const { events->OnMemorySummary(e); }
  void operator()(const GradientStatsEvent& e) const { events->OnGradientStats(e); }
  void operator()(const UpdateRatioEvent& e) const { events->OnUpdateRatio(e); }
  void operator()(const LossEvent& e) const { events->OnLoss(e); }
  void operator()(const MetricEvent& e) const { events->OnMetric(e); }
};

// Stand-ins for a missing target: every method of both interfaces defaults to doing nothing.
TrainingObserver* IgnoredEvents() {
  static TrainingObserver ignored;
  return &ignored;
}
LinkHandler* IgnoredLink() {
  static LinkHandler ignored;
  return &ignored;
}

}  // namespace

MessageRouter::MessageRouter(TrainingObserver* events, LinkHandler* link)
    : events_(events ? events : IgnoredEvents()), link_(link ? link : IgnoredLink()) {}

void MessageRouter::OnFrame(const FrameView& frame) {
  Message message;
  const DecodeStatus status = DecodeMessage(frame, &message);
  if (status != DecodeStatus::kOk) {
    ++malformed_payloads_;
    link_->OnMalformed(frame, status);
    return;
  }
  std::visit(Router{events_, link_}, message);
}

}  // namespace trainscope::wire
