// SPDX-License-Identifier: Apache-2.0
//
// TraceTransport: a recorded session (a .tstrace file) as a Transport, so a command that talks
// to a board (trainscope-cli diff) can run again on what that board said, with the same decoder,
// the same reassembly and the same comparison. Reads hand out the recorded stream one frame at
// a time (up to and including each 0x00 delimiter), so the caller sees answers no earlier than
// it saw them live; writes are accepted and dropped, since the recording already holds the
// board's answers. The end of the recording is an error that says so, as a lost link would be.
//
//   TraceTransport replay("session.tstrace");
//   TS_RETURN_IF_ERROR(replay.Open());
//   AttachSession session(&replay, nullptr);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "serial/trace/trace_file.h"
#include "serial/transport/transport.h"

namespace trainscope {

class TraceTransport final : public Transport {
 public:
  // A recording larger than this is refused: a diff session is megabytes, not gigabytes.
  static constexpr uint64_t kMaxTraceBytes = uint64_t{1} << 30;

  explicit TraceTransport(std::string path) : path_(std::move(path)) {}

  Status Open() override;
  void Close() override { open_ = false; }
  bool is_open() const override { return open_; }
  Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) override;
  Status Write(const uint8_t* data, size_t size) override;
  std::string Describe() const override { return "recording " + path_; }

  // After Open(): the id of the first command the recorded desktop sent, from the board's ACK of
  // its REQUEST_HELLO (what every desktop of this project sends first), or, when that answer was
  // lost, of the PAUSE diff sends next, minus one. A replaying desktop that sends the same
  // commands in the same order numbers them from here.
  Status FirstCommandId(uint16_t* id) const;

 private:
  std::string path_;
  bool open_ = false;
  std::vector<uint8_t> stream_;  // the recorded bytes after the header
  size_t position_ = 0;
};

// Whether `path` names a file that starts like a trace (the magic), without reading the rest.
bool LooksLikeTrace(const std::string& path);

}  // namespace trainscope
