// SPDX-License-Identifier: Apache-2.0
#include "app/cli/attach_session.h"

#include <cstring>

namespace trainscope::cli {

AttachSession::AttachSession(Transport* link, TraceWriter* record)
    : link_(link), record_(record), router_(this, this), last_frame_time_(Clock::now()) {}

Status AttachSession::Pump(int timeout_ms) {
  uint8_t buffer[4096];
  size_t received = 0;
  TS_RETURN_IF_ERROR(link_->Read(buffer, sizeof buffer, timeout_ms, &received));
  if (received == 0) return Status::Ok();
  if (record_ != nullptr) {
    Status status = record_->Append(buffer, received);
    if (!status.ok()) {
      recording_failed_ = true;
      return status.Prepend("recording");
    }
  }
  Decode(buffer, received);
  return Status::Ok();
}

void AttachSession::Decode(const uint8_t* data, size_t size) {
  const uint64_t frames_ok = decoder_.counters().frames_ok;
  if (!synced_) {
    const void* zero = std::memchr(data, 0, size);
    if (zero != nullptr) {
      // Bytes before the first delimiter may be the tail of a frame sent before we listened.
      const size_t head = static_cast<size_t>(static_cast<const uint8_t*>(zero) - data) + 1;
      const uint64_t bad_before = decoder_.counters().frames_bad;
      decoder_.Push(data, head, &router_);
      excused_bad_ += decoder_.counters().frames_bad - bad_before;
      synced_ = true;
      data += head;
      size -= head;
    }
  }
  decoder_.Push(data, size, &router_);
  if (decoder_.counters().frames_ok != frames_ok) last_frame_time_ = Clock::now();
}

Status AttachSession::SendCommand(wire::MessageType type) {
  uint8_t bytes[64];
  size_t size = 0;
  if (encoder_.next_sequence() == 0) bytes[size++] = 0;  // end whatever noise came before
  const size_t n = encoder_.Encode(wire::BasicCommand{type, next_command_id_++}, bytes + size,
                                   sizeof bytes - size);
  if (n == 0) {
    return Status::Error(StatusCode::kInvalidArgument, "command %s cannot be encoded",
                         wire::MessageTypeName(type) ? wire::MessageTypeName(type) : "?");
  }
  return link_->Write(bytes, size + n);
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
  if (record_ != nullptr && record_->is_open()) {
    static_cast<void>(record_->SetModelHash(announce.model_hash));  // the header is a hint only
  }
}

void AttachSession::OnLog(const wire::LogMessage& log) {
  stats_.last_log = log.text.c_str();
}

void AttachSession::OnHeartbeat(const wire::HeartbeatMessage& heartbeat) {
  ++stats_.heartbeats;
  stats_.agent_drops = heartbeat.dropped_frames;
}

void AttachSession::OnAck(const wire::AckMessage& ack) {
  if (ack.result == wire::AckResult::kOk) return;
  ++stats_.refused_commands;
  const char* command = wire::MessageTypeName(ack.command);
  stats_.last_refusal =
      std::string(command ? command : "command") + ": " + wire::AckResultName(ack.result);
}

void AttachSession::OnRunState(const wire::RunStateMessage& state) {
  stats_.paused = state.state == wire::RunStateKind::kPaused;
  if (!stats_.paused) return;
  ++stats_.paused_reports;
  if (state.reason == wire::PauseReason::kStepDone) ++stats_.step_done_reports;
  stats_.steps_at_last_pause = stats_.backward_steps;
}

}  // namespace trainscope::cli
