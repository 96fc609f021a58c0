// SPDX-License-Identifier: Apache-2.0
//
// What `trainscope-cli trace dump` prints for a replayed stream.
//
// LinkJsonLines adds the link messages a training event stream does not have to the JSON lines
// of JsonLinesObserver (docs/cli.md, "trace dump"): "hello", "model", "run_state" and "log".
// TextListing prints one readable line per frame, with its sequence number, for every message.
//
// FrameTap sits in front of a MessageRouter and remembers the frame being routed, so a listing
// can show sequence numbers (MessageRouter hands on only the decoded message).
//
//   TextListing listing(stdout);
//   wire::MessageRouter router(&listing, &listing);
//   FrameTap tap(&router, &listing);
//   ReplayTrace(path, &tap, &replay);
#pragma once

#include <cstdio>

#include "engine/core/events.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/messages.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope::cli {

class LinkJsonLines final : public wire::LinkHandler {
 public:
  explicit LinkJsonLines(FILE* out) : out_(out) {}

  void OnHello(const wire::HelloMessage& hello) override;
  void OnModelAnnounce(const wire::ModelAnnounceMessage& announce) override;
  void OnLog(const wire::LogMessage& log) override;
  void OnRunState(const wire::RunStateMessage& state) override;
  void OnDeviceMemory(const wire::DeviceMemoryMessage& memory) override;

 private:
  FILE* out_;
};

class TextListing final : public TrainingObserver, public wire::LinkHandler {
 public:
  explicit TextListing(FILE* out) : out_(out) {}

  void set_frame(const wire::FrameView& frame) { frame_ = frame; }

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

  void OnHello(const wire::HelloMessage& hello) override;
  void OnModelAnnounce(const wire::ModelAnnounceMessage& announce) override;
  void OnInternName(const wire::InternNameMessage& name) override;
  void OnLog(const wire::LogMessage& log) override;
  void OnHeartbeat(const wire::HeartbeatMessage& heartbeat) override;
  void OnAck(const wire::AckMessage& ack) override;
  void OnRunState(const wire::RunStateMessage& state) override;
  void OnDeviceMemory(const wire::DeviceMemoryMessage& memory) override;
  void OnCommand(const wire::BasicCommand& command) override;
  void OnSetBreakpoint(const wire::SetBreakpointCommand& command) override;
  void OnSetTrainability(const wire::SetTrainabilityCommand& command) override;
  void OnMalformed(const wire::FrameView& frame, wire::DecodeStatus status) override;

 private:
  // "  1234  BACKWARD_STEP   " then the caller's details.
  void Line(const char* format, ...) __attribute__((format(printf, 2, 3)));

  FILE* out_;
  wire::FrameView frame_;
};

class FrameTap final : public wire::FrameSink {
 public:
  FrameTap(wire::FrameSink* next, TextListing* listing) : next_(next), listing_(listing) {}
  void OnFrame(const wire::FrameView& frame) override {
    if (listing_ != nullptr) listing_->set_frame(frame);
    next_->OnFrame(frame);
  }

 private:
  wire::FrameSink* next_;
  TextListing* listing_;
};

}  // namespace trainscope::cli
