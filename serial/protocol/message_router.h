// SPDX-License-Identifier: Apache-2.0
//
// MessageRouter is the FrameSink that turns decoded frames back into calls: training events go
// to a TrainingObserver exactly as the in-process engine would have made them, link messages
// and commands go to a LinkHandler. This is what makes the device and replay sources produce
// the same stream as the embedded engine.
//
// Frames whose payload does not decode are counted (malformed_payloads) and reported to
// LinkHandler::OnMalformed; they never reach the observer.
//
//   MyObserver events;  MyLinkHandler link;
//   wire::MessageRouter router(&events, &link);
//   decoder.Push(bytes, n, &router);
#pragma once

#include <cstdint>

#include "engine/core/events.h"
#include "serial/protocol/messages.h"
#include "serial/protocol/payload_codec.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope::wire {

// Every method defaults to doing nothing; override what you need.
class LinkHandler {
 public:
  virtual ~LinkHandler() = default;
  virtual void OnHello(const HelloMessage&) {}
  virtual void OnModelAnnounce(const ModelAnnounceMessage&) {}
  virtual void OnInternName(const InternNameMessage&) {}
  virtual void OnLog(const LogMessage&) {}
  virtual void OnHeartbeat(const HeartbeatMessage&) {}
  virtual void OnAck(const AckMessage&) {}
  virtual void OnRunState(const RunStateMessage&) {}
  virtual void OnDeviceMemory(const DeviceMemoryMessage&) {}
  virtual void OnCommand(const BasicCommand&) {}
  virtual void OnSetBreakpoint(const SetBreakpointCommand&) {}
  virtual void OnSetTrainability(const SetTrainabilityCommand&) {}
  virtual void OnRequestTensor(const RequestTensorCommand&) {}
  virtual void OnTensorHeader(const TensorHeaderMessage&) {}
  virtual void OnTensorChunk(const TensorChunkMessage&) {}
  virtual void OnMalformed(const FrameView&, DecodeStatus) {}
};

class MessageRouter : public FrameSink {
 public:
  // Either target may be null; its messages are then decoded and dropped.
  MessageRouter(TrainingObserver* events, LinkHandler* link);

  void OnFrame(const FrameView& frame) override;

  uint64_t malformed_payloads() const { return malformed_payloads_; }

 private:
  TrainingObserver* events_;
  LinkHandler* link_;
  uint64_t malformed_payloads_ = 0;
};

}  // namespace trainscope::wire
