// SPDX-License-Identifier: Apache-2.0
#include "serial/link/link_stream.h"

#include <cstring>
#include <random>

namespace trainscope {

namespace {
uint16_t FirstCommandId() {
  std::random_device entropy;
  return static_cast<uint16_t>(1 + entropy() % 0xFFFFu);  // 1..65535
}
}  // namespace

LinkStream::LinkStream(TrainingObserver* events, wire::LinkHandler* handler)
    : router_(events, handler),
      next_command_id_(FirstCommandId()),
      last_frame_time_(Clock::now()) {}

Status LinkStream::Pump(Transport* link, int timeout_ms, TraceWriter* record,
                        RecordingFailure on_failure) {
  uint8_t buffer[kReadChunkBytes];
  size_t received = 0;
  TS_RETURN_IF_ERROR(link->Read(buffer, sizeof buffer, timeout_ms, &received));
  if (received == 0) return Status::Ok();
  if (record != nullptr && !recording_failed_) {
    Status status = record->Append(buffer, received);
    if (!status.ok()) {
      recording_failed_ = true;
      recording_error_ = status.message();
      if (on_failure == RecordingFailure::kEndPump) return status.Prepend("recording");
    }
  }
  Decode(buffer, received);
  return Status::Ok();
}

void LinkStream::Decode(const uint8_t* data, size_t size) {
  if (size == 0) return;
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

void LinkStream::Restart() {
  decoder_.ResetStream();
  synced_ = false;
  delimiter_sent_ = false;
  last_frame_time_ = Clock::now();
}

}  // namespace trainscope
