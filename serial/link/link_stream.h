// SPDX-License-Identifier: Apache-2.0
//
// LinkStream: the protocol state of the desktop end of one board link, shared by every desktop
// front end (the GUI's DeviceEventSource reader, the CLI's `attach`). It reads a Transport,
// optionally records each chunk as it arrives, decodes frames into calls on a TrainingObserver
// and a wire::LinkHandler, and encodes commands with fresh command ids.
//
// Joining mid-stream is normal (the board talks whether or not anyone listens), so when the
// first frame candidate before the first delimiter of a connection is bad it is excused:
// frames_bad() leaves it out. Everything else counts exactly as wire::StreamDecoder counts it.
//
// Ownership: the observer and handler (either may be null) must outlive the stream; the
// transport and the trace writer are borrowed per call. Not thread-safe: one thread owns it.
// Desktop only (std::chrono, std::string), but like all of serial/ free of Qt, exceptions, RTTI.
//
//   LinkStream stream(&observer, &handler);
//   uint8_t out[LinkStream::kMaxCommandBytes];
//   uint16_t id = 0;
//   size_t n = stream.EncodeCommand(wire::BasicCommand{wire::MessageType::kPause, 0}, out, &id);
//   TS_RETURN_IF_ERROR(link->Write(out, n));
//   TS_RETURN_IF_ERROR(stream.Pump(link, 50, &writer, LinkStream::RecordingFailure::kEndPump));
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/events.h"
#include "engine/core/status.h"
#include "serial/protocol/frame_encoder.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/stream_decoder.h"
#include "serial/trace/trace_file.h"
#include "serial/transport/transport.h"

namespace trainscope {

class LinkStream {
 public:
  using Clock = std::chrono::steady_clock;

  // A command frame plus the leading delimiter of a fresh connection.
  static constexpr size_t kMaxCommandBytes = 64;
  // What one Pump() reads at most.
  static constexpr size_t kReadChunkBytes = 4096;

  // What Pump() does when appending to the recording fails. Either way the recording stops for
  // good (recording_failed()) and its error is kept (recording_error()).
  enum class RecordingFailure {
    kEndPump,       // return the error before decoding the chunk: the file was the point
    kKeepDecoding,  // decode the chunk and return Ok: the live link matters more than the file
  };

  LinkStream(TrainingObserver* events, wire::LinkHandler* handler);

  // Reads once from `link`, waiting up to timeout_ms, appends what arrived to `record` (unless it
  // is null or failed before) and decodes it. An error means the link is gone or, with kEndPump,
  // that recording failed (message prefixed "recording").
  Status Pump(Transport* link, int timeout_ms, TraceWriter* record, RecordingFailure on_failure);
  // Decodes bytes that came from the board; every completed frame reaches the observer/handler.
  void Decode(const uint8_t* data, size_t size);
  // A new connection starts now: forgets the partial frame and the sequence baseline (counters
  // stay), excuses the new stream's first bad candidate again, restarts the silence clock, and
  // the next command starts with a delimiter again.
  void Restart();

  // Gives the command the next command id (never 0: ACKs use 0 for "no id"; the first is drawn at
  // random, so a board that still remembers the last desktop's ids takes none of ours for a
  // repeat) and encodes it into
  // `out`. Returns the byte count (0 when it cannot be encoded) and the id through `command_id`.
  template <class Command>
  size_t EncodeCommand(Command command, uint8_t (&out)[kMaxCommandBytes], uint16_t* command_id) {
    command.command_id = next_command_id_++;
    if (next_command_id_ == 0) next_command_id_ = 1;
    size_t size = 0;
    if (!delimiter_sent_) out[size++] = 0;  // ends whatever noise came before
    const size_t n = encoder_.Encode(command, out + size, kMaxCommandBytes - size);
    if (n == 0) return 0;
    delimiter_sent_ = true;
    *command_id = command.command_id;
    return size + n;
  }

  // A desktop replaying a recorded session numbers its commands as the recorded desktop did, so
  // the recorded ACKs answer them (0 is skipped as always).
  void set_next_command_id(uint16_t id) { next_command_id_ = id == 0 ? 1 : id; }

  const wire::LinkCounters& counters() const { return decoder_.counters(); }
  uint64_t frames_bad() const { return decoder_.counters().frames_bad - excused_bad_; }
  // Good frames whose payload did not decode.
  uint64_t malformed() const { return router_.malformed_payloads(); }
  // When the last good frame arrived; the construction or last Restart() before the first one.
  Clock::time_point last_frame_time() const { return last_frame_time_; }
  bool recording_failed() const { return recording_failed_; }
  // Why the recording stopped (the failed append's message); empty while recording works.
  const std::string& recording_error() const { return recording_error_; }

 private:
  wire::StreamDecoder decoder_;
  wire::MessageRouter router_;
  wire::FrameEncoder encoder_;
  uint16_t next_command_id_;
  bool synced_ = false;  // the first delimiter of this connection has been seen
  bool delimiter_sent_ = false;
  bool recording_failed_ = false;
  uint64_t excused_bad_ = 0;
  Clock::time_point last_frame_time_;
  std::string recording_error_;
};

}  // namespace trainscope
