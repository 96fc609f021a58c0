// SPDX-License-Identifier: Apache-2.0
#include "serial/protocol/message.h"

namespace trainscope::wire {
namespace {

template <class T>
DecodeStatus DecodeAs(const FrameView& frame, Message* out) {
  T value;
  const DecodeStatus status = DecodePayload(frame.payload, frame.payload_size, &value);
  if (status == DecodeStatus::kOk) *out = value;
  return status;
}

}  // namespace

MessageType MessageTypeOf(const Message& message) {
  return std::visit([](const auto& value) { return MessageTypeOf(value); }, message);
}

DecodeStatus DecodeMessage(const FrameView& frame, Message* out) {
  switch (frame.type) {
    case MessageType::kHello:
      return DecodeAs<HelloMessage>(frame, out);
    case MessageType::kModelAnnounce:
      return DecodeAs<ModelAnnounceMessage>(frame, out);
    case MessageType::kInternName:
      return DecodeAs<InternNameMessage>(frame, out);
    case MessageType::kLog:
      return DecodeAs<LogMessage>(frame, out);
    case MessageType::kHeartbeat:
      return DecodeAs<HeartbeatMessage>(frame, out);
    case MessageType::kAck:
      return DecodeAs<AckMessage>(frame, out);
    case MessageType::kRunState:
      return DecodeAs<RunStateMessage>(frame, out);
    case MessageType::kDeviceMemory:
      return DecodeAs<DeviceMemoryMessage>(frame, out);
    case MessageType::kSample:
      return DecodeAs<SampleEvent>(frame, out);
    case MessageType::kOptimizerStep:
      return DecodeAs<OptimizerStepEvent>(frame, out);
    case MessageType::kForwardOp:
      return DecodeAs<ForwardOpEvent>(frame, out);
    case MessageType::kBackwardStep:
      return DecodeAs<BackwardStepEvent>(frame, out);
    case MessageType::kMemory:
      return DecodeAs<MemoryEvent>(frame, out);
    case MessageType::kMemorySummary:
      return DecodeAs<MemorySummaryEvent>(frame, out);
    case MessageType::kGradientStats:
      return DecodeAs<GradientStatsEvent>(frame, out);
    case MessageType::kUpdateRatio:
      return DecodeAs<UpdateRatioEvent>(frame, out);
    case MessageType::kLoss:
      return DecodeAs<LossEvent>(frame, out);
    case MessageType::kMetric:
      return DecodeAs<MetricEvent>(frame, out);
    case MessageType::kSetBreakpoint:
      return DecodeAs<SetBreakpointCommand>(frame, out);
    case MessageType::kSetTrainability:
      return DecodeAs<SetTrainabilityCommand>(frame, out);
    case MessageType::kRequestTensor:
      return DecodeAs<RequestTensorCommand>(frame, out);
    case MessageType::kTensorHeader:
      return DecodeAs<TensorHeaderMessage>(frame, out);
    case MessageType::kTensorChunk:
      return DecodeAs<TensorChunkMessage>(frame, out);
    case MessageType::kPing:
    case MessageType::kPause:
    case MessageType::kResume:
    case MessageType::kStepBackwardOp:
    case MessageType::kStepSample:
    case MessageType::kStepBatch:
    case MessageType::kRequestMemoryPlan:
    case MessageType::kRequestHello: {
      BasicCommand command;
      const DecodeStatus status =
          DecodePayload(frame.type, frame.payload, frame.payload_size, &command);
      if (status == DecodeStatus::kOk) *out = command;
      return status;
    }
  }
  return DecodeStatus::kUnknownType;
}

size_t EncodeMessage(const Message& message, FrameEncoder* encoder, uint8_t* out, size_t capacity) {
  return std::visit([&](const auto& value) { return encoder->Encode(value, out, capacity); },
                    message);
}

}  // namespace trainscope::wire
