// SPDX-License-Identifier: Apache-2.0
//
// Feeds one arbitrary payload to every DecodePayload overload, to DecodeMessage under the frame
// type the first input byte names, and to a MessageRouter. For every payload that decodes:
//   - encoding the value again succeeds, takes as many bytes as the decoder read from the
//     input, and decodes to the same value (floats compared bit for bit);
//   - the re-encoded frame, pushed through a StreamDecoder and the router, reaches the observer
//     or link handler as that same value.
// A payload that does not decode must not reach the observer or the link handler, and is
// counted as malformed by the router.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "serial/protocol/byte_io.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/payload_codec.h"
#include "serial/protocol/stream_decoder.h"
#include "tests/serial/sample_messages.h"

namespace trainscope::wire {
namespace {

// Names the failed condition and its line before aborting, so a crash report says which
// invariant broke.
#define Check(condition) CheckAt((condition), #condition, __LINE__)
void CheckAt(bool condition, const char* text, int line) {
  if (condition) return;
  std::fprintf(stderr, "invariant failed at line %d: %s\n", line, text);
  std::abort();
}

// Keeps the last message the router delivered, whichever interface it came through.
class Capture final : public TrainingObserver, public LinkHandler {
 public:
  void OnSample(const SampleEvent& e) override { Keep(e); }
  void OnOptimizerStep(const OptimizerStepEvent& e) override { Keep(e); }
  void OnForwardOp(const ForwardOpEvent& e) override { Keep(e); }
  void OnBackwardStep(const BackwardStepEvent& e) override { Keep(e); }
  void OnMemory(const MemoryEvent& e) override { Keep(e); }
  void OnMemorySummary(const MemorySummaryEvent& e) override { Keep(e); }
  void OnGradientStats(const GradientStatsEvent& e) override { Keep(e); }
  void OnUpdateRatio(const UpdateRatioEvent& e) override { Keep(e); }
  void OnLoss(const LossEvent& e) override { Keep(e); }
  void OnMetric(const MetricEvent& e) override { Keep(e); }
  void OnHello(const HelloMessage& m) override { Keep(m); }
  void OnModelAnnounce(const ModelAnnounceMessage& m) override { Keep(m); }
  void OnInternName(const InternNameMessage& m) override { Keep(m); }
  void OnLog(const LogMessage& m) override { Keep(m); }
  void OnHeartbeat(const HeartbeatMessage& m) override { Keep(m); }
  void OnAck(const AckMessage& m) override { Keep(m); }
  void OnRunState(const RunStateMessage& m) override { Keep(m); }
  void OnDeviceMemory(const DeviceMemoryMessage& m) override { Keep(m); }
  void OnCommand(const BasicCommand& m) override { Keep(m); }
  void OnSetBreakpoint(const SetBreakpointCommand& m) override { Keep(m); }
  void OnSetTrainability(const SetTrainabilityCommand& m) override { Keep(m); }
  void OnRequestTensor(const RequestTensorCommand& m) override { Keep(m); }
  void OnTensorHeader(const TensorHeaderMessage& m) override { Keep(m); }
  void OnTensorChunk(const TensorChunkMessage& m) override { Keep(m); }
  void OnMalformed(const FrameView&, DecodeStatus status) override {
    Check(status != DecodeStatus::kOk);
    ++malformed;
  }

  std::optional<Message> last;
  int delivered = 0;
  int malformed = 0;

 private:
  template <class T>
  void Keep(const T& value) {
    last = Message(value);
    ++delivered;
  }
};

// Bytes a successful decode read: the shortest prefix of the payload that decodes to the same
// message (a longer prefix does too, since trailing bytes are ignored, so a binary search finds
// it; a shorter one fails or, for fields appended later, decodes to the older message).
template <class T>
size_t BytesRead(const uint8_t* data, size_t size, const T& decoded) {
  const auto same = [&](size_t prefix) {
    T shorter;
    return DecodePayload(data, prefix, &shorter) == DecodeStatus::kOk &&
           testing::SameMessage(Message(shorter), Message(decoded));
  };
  size_t low = 0;      // largest prefix known not to give the message, or 0
  size_t high = size;  // smallest prefix known to give it
  if (same(0)) high = 0;
  while (high > low + 1) {
    const size_t middle = low + (high - low) / 2;
    (same(middle) ? high : low) = middle;
  }
  Check(same(high));  // trailing bytes ignored
  return high;
}

std::vector<uint8_t> EncodeOrDie(const Message& message) {
  std::vector<uint8_t> bytes(kMaxPayloadBytes);
  ByteWriter writer(bytes.data(), bytes.size());
  const bool ok =
      std::visit([&](const auto& value) { return EncodePayload(value, &writer); }, message);
  Check(ok && writer.ok());
  Check(writer.size() <= MaxPayloadSize(MessageTypeOf(message)));
  bytes.resize(writer.size());
  return bytes;
}

// Decode, re-encode and decode again: the value must survive.
template <class T>
void RoundTrip(const uint8_t* data, size_t size) {
  T decoded;
  if (DecodePayload(data, size, &decoded) != DecodeStatus::kOk) return;
  const std::vector<uint8_t> encoded = EncodeOrDie(Message(decoded));
  Check(encoded.size() == BytesRead(data, size, decoded));
  T again;
  Check(DecodePayload(encoded.data(), encoded.size(), &again) == DecodeStatus::kOk);
  Check(testing::SameMessage(Message(decoded), Message(again)));
}

void RoundTripBasicCommand(MessageType type, const uint8_t* data, size_t size) {
  BasicCommand decoded;
  const DecodeStatus status = DecodePayload(type, data, size, &decoded);
  Check(status != DecodeStatus::kOk || decoded.type == type);
  if (status != DecodeStatus::kOk) return;
  const std::vector<uint8_t> encoded = EncodeOrDie(Message(decoded));
  BasicCommand again;
  Check(DecodePayload(type, encoded.data(), encoded.size(), &again) == DecodeStatus::kOk);
  Check(decoded == again);
}

// The frame path: router on a frame view with the fuzzed type, then the re-encoded frame through
// the stream decoder and the router once more.
void RouteFrame(uint8_t type, uint8_t flags, const uint8_t* payload, size_t size) {
  FrameView view;
  view.type = static_cast<MessageType>(type);
  view.flags = flags;
  view.payload = payload;
  view.payload_size = size;
  Message direct;
  const DecodeStatus status = DecodeMessage(view, &direct);
  Check(status != DecodeStatus::kOk || MessageTypeOf(direct) == view.type);
  Check(status != DecodeStatus::kUnknownType || !IsKnownMessageType(type));

  Capture capture;
  MessageRouter router(&capture, &capture);
  router.OnFrame(view);
  if (status != DecodeStatus::kOk) {
    Check(capture.delivered == 0 && capture.malformed == 1 && router.malformed_payloads() == 1);
    return;
  }
  Check(capture.delivered == 1 && capture.malformed == 0 && router.malformed_payloads() == 0);
  Check(testing::SameMessage(*capture.last, direct));

  FrameEncoder encoder(static_cast<uint16_t>(flags * 257u));
  std::vector<uint8_t> wire(kMaxWireFrameBytes);
  const size_t written = EncodeMessage(direct, &encoder, wire.data(), wire.size());
  Check(written > 0);
  StreamDecoder decoder;
  Capture relayed;
  MessageRouter relay(&relayed, &relayed);
  decoder.Push(wire.data(), written, &relay);
  Check(decoder.counters().frames_ok == 1 && decoder.counters().frames_bad == 0);
  Check(relayed.delivered == 1 && relayed.malformed == 0);
  Check(testing::SameMessage(*relayed.last, direct));
}

}  // namespace
}  // namespace trainscope::wire

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainscope;
  using namespace trainscope::wire;
  if (size < 2) return 0;
  const uint8_t type = data[0];
  const uint8_t flags = data[1];
  const uint8_t* payload = data + 2;
  const size_t payload_size = size - 2 > kMaxPayloadBytes ? kMaxPayloadBytes : size - 2;

  RoundTrip<HelloMessage>(payload, payload_size);
  RoundTrip<ModelAnnounceMessage>(payload, payload_size);
  RoundTrip<InternNameMessage>(payload, payload_size);
  RoundTrip<LogMessage>(payload, payload_size);
  RoundTrip<HeartbeatMessage>(payload, payload_size);
  RoundTrip<AckMessage>(payload, payload_size);
  RoundTrip<RunStateMessage>(payload, payload_size);
  RoundTrip<DeviceMemoryMessage>(payload, payload_size);
  RoundTrip<SetBreakpointCommand>(payload, payload_size);
  RoundTrip<SetTrainabilityCommand>(payload, payload_size);
  RoundTrip<RequestTensorCommand>(payload, payload_size);
  RoundTrip<TensorHeaderMessage>(payload, payload_size);
  RoundTrip<TensorChunkMessage>(payload, payload_size);
  RoundTrip<SampleEvent>(payload, payload_size);
  RoundTrip<OptimizerStepEvent>(payload, payload_size);
  RoundTrip<ForwardOpEvent>(payload, payload_size);
  RoundTrip<BackwardStepEvent>(payload, payload_size);
  RoundTrip<MemoryEvent>(payload, payload_size);
  RoundTrip<MemorySummaryEvent>(payload, payload_size);
  RoundTrip<GradientStatsEvent>(payload, payload_size);
  RoundTrip<UpdateRatioEvent>(payload, payload_size);
  RoundTrip<LossEvent>(payload, payload_size);
  RoundTrip<MetricEvent>(payload, payload_size);
  RoundTripBasicCommand(static_cast<MessageType>(type), payload, payload_size);
  RouteFrame(type, flags, payload, payload_size);
  return 0;
}
