// SPDX-License-Identifier: Apache-2.0
#include "app/cli/attach_session.h"

namespace trainscope::cli {

AttachSession::AttachSession(Transport* link, TraceWriter* record)
    : link_(link), record_(record), stream_(this, this) {}

Status AttachSession::Pump(int timeout_ms) {
  const Clock::time_point now = Clock::now();
  TS_RETURN_IF_ERROR(ledger_.Resend(now, link_));
  for (const CommandLedger::Expired& lost : ledger_.TakeExpired(now)) {
    ++stats_.unanswered_commands;
    stats_.last_unanswered_type = lost.type;
    const char* name = wire::MessageTypeName(lost.type);
    stats_.last_unanswered = std::string(name ? name : "command") + " (sent " +
                             std::to_string(lost.attempts) + " times)";
  }
  return stream_.Pump(link_, timeout_ms, record_, LinkStream::RecordingFailure::kEndPump);
}

Status AttachSession::SendCommand(wire::MessageType type) {
  uint8_t bytes[LinkStream::kMaxCommandBytes];
  uint16_t command_id = 0;
  const size_t size = stream_.EncodeCommand(wire::BasicCommand{type, 0}, bytes, &command_id);
  if (size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "command %s cannot be encoded",
                         wire::MessageTypeName(type) ? wire::MessageTypeName(type) : "?");
  }
  TS_RETURN_IF_ERROR(link_->Write(bytes, size));
  ledger_.Sent(command_id, type, bytes, size, Clock::now());
  return Status::Ok();
}

Status AttachSession::RequestTensor(int32_t tensor, wire::TensorAspect aspect) {
  uint8_t bytes[LinkStream::kMaxCommandBytes];
  uint16_t command_id = 0;
  const size_t size =
      stream_.EncodeCommand(wire::RequestTensorCommand{0, tensor, aspect}, bytes, &command_id);
  if (size == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "REQUEST_TENSOR cannot be encoded");
  }
  tensor_.Expect(command_id, tensor, aspect);
  TS_RETURN_IF_ERROR(link_->Write(bytes, size));
  ledger_.Sent(command_id, wire::MessageType::kRequestTensor, bytes, size, Clock::now());
  return Status::Ok();
}

void AttachSession::OnTensorHeader(const wire::TensorHeaderMessage& header) {
  tensor_.OnHeader(header);
}

void AttachSession::OnTensorChunk(const wire::TensorChunkMessage& chunk) {
  tensor_.OnChunk(chunk);
}

void AttachSession::OnOptimizerStep(const OptimizerStepEvent& event) {
  ++stats_.optimizer_steps;
  stats_.last_optimizer_step = event.optimizer_step;
}

void AttachSession::OnBackwardStep(const BackwardStepEvent& event) {
  if (!event.begin) ++stats_.backward_steps;
}

void AttachSession::OnLoss(const LossEvent& event) {
  stats_.has_loss = true;
  stats_.last_loss = event.value;
}

void AttachSession::OnHello(const wire::HelloMessage& hello) {
  stats_.has_hello = true;
  stats_.hello = hello;
}

void AttachSession::OnModelAnnounce(const wire::ModelAnnounceMessage& announce) {
  stats_.has_model = true;
  stats_.model_hash = announce.model_hash;
  stats_.op_count = announce.op_count;
  stats_.optimizer = announce.optimizer;
  stats_.batch_size = announce.batch_size;
  if (announce.op_count <= (1u << 20)) stats_.ops.resize(announce.op_count);
  for (size_t i = 0; i < announce.entry_count; ++i) {
    const uint64_t at = uint64_t{announce.first_op} + i;
    if (at < stats_.ops.size()) stats_.ops[static_cast<size_t>(at)] = announce.ops[i];
  }
  if (record_ != nullptr && record_->is_open()) {
    static_cast<void>(record_->SetModelHash(announce.model_hash));  // the header is a hint only
  }
}

void AttachSession::OnLog(const wire::LogMessage& log) {
  stats_.last_log = log.text.c_str();
  if (log.level == wire::LogLevel::kError) stats_.last_error = stats_.last_log;
}

void AttachSession::OnDeviceMemory(const wire::DeviceMemoryMessage& memory) {
  stats_.has_device_memory = true;
  stats_.device_memory = memory;
}

void AttachSession::OnHeartbeat(const wire::HeartbeatMessage& heartbeat) {
  ++stats_.heartbeats;
  stats_.agent_drops = heartbeat.dropped_frames;
}

void AttachSession::OnAck(const wire::AckMessage& ack) {
  // An ACK nothing waits for (a resent command's second answer, a late one) is only counted.
  if (!ledger_.Acknowledge(ack, Clock::now()).was_pending) return;
  if (ack.result == wire::AckResult::kOk) return;
  ++stats_.refused_commands;
  const char* command = wire::MessageTypeName(ack.command);
  stats_.last_refusal =
      std::string(command ? command : "command") + ": " + wire::AckResultName(ack.result);
}

void AttachSession::OnRunState(const wire::RunStateMessage& state) {
  // The board repeats its state with every heartbeat under the same transition number.
  if (state.transition != 0 && state.transition == stats_.last_transition) return;
  stats_.last_transition = state.transition;
  stats_.run_state = state;
  stats_.activity = state.activity;
  stats_.paused = state.state == wire::RunStateKind::kPaused;
  if (!stats_.paused) return;
  ++stats_.paused_reports;
  if (state.reason == wire::PauseReason::kStepDone) ++stats_.step_done_reports;
  stats_.steps_at_last_pause = stats_.backward_steps;
}

}  // namespace trainscope::cli
