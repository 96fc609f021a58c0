// SPDX-License-Identifier: Apache-2.0
//
// Trace files: a recorded session is the wire stream exactly as it arrived, behind a small
// header, so replaying it runs the very decoder the live link uses (same counters, same
// resynchronisation) and a trace of a noisy line shows the same losses.
//
// Layout (little-endian; docs/protocol.md, "Trace files"):
//   0  magic "TSTRACE1" (8 bytes)
//   8  u16 header_bytes (32; readers skip whatever a newer writer added)
//  10  u16 protocol_version of the recorded stream
//  12  u32 reserved (0)
//  16  u64 model_hash (FNV-1a 64 of the model; 0 = not known when recording started)
//  24  u64 created_unix_ms
//  32  raw framed bytes
//
// TraceWriter appends with one write(2) per Append and no user-space buffer, so everything
// appended survives the recording process being killed (Sync() adds power-loss durability).
// The reader tolerates the torn last frame such a kill leaves: it is reported, not fatal.
//
//   TraceWriter writer;
//   Status s = writer.Create("session.tstrace", model_hash);
//   s = writer.Append(bytes, n);             // as they come off the transport
//
//   TraceReplay replay;
//   s = ReplayTrace("session.tstrace", &router, &replay);   // router: any wire::FrameSink
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/status.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope {

inline constexpr char kTraceMagic[8] = {'T', 'S', 'T', 'R', 'A', 'C', 'E', '1'};
inline constexpr size_t kTraceHeaderBytes = 32;

struct TraceHeader {
  uint16_t header_bytes = kTraceHeaderBytes;
  uint16_t protocol_version = 0;
  uint64_t model_hash = 0;
  uint64_t created_unix_ms = 0;
};

// Parses and checks a header from the first bytes of a file. `path` only names the file in
// error messages.
Status ParseTraceHeader(const uint8_t* data, size_t size, const std::string& path,
                        TraceHeader* out);

class TraceWriter {
 public:
  TraceWriter() = default;
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Creates (or truncates) the file and writes the header.
  Status Create(const std::string& path, uint64_t model_hash);
  Status Append(const uint8_t* data, size_t size);
  // Fills in the model hash once MODEL_ANNOUNCE has arrived.
  Status SetModelHash(uint64_t model_hash);
  // fdatasync: survives power loss, not only a killed process. Slow; call rarely.
  Status Sync();
  void Close();

  bool is_open() const { return fd_ >= 0; }
  uint64_t stream_bytes() const { return stream_bytes_; }  // appended, header excluded

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t stream_bytes_ = 0;
};

struct TraceReplay {
  TraceHeader header;
  wire::LinkCounters counters;  // of the replay's decoder
  size_t torn_tail_bytes = 0;   // bytes of a last frame that never got its delimiter
};

// Reads a whole trace and pushes its stream through a fresh StreamDecoder into `sink`
// (which may be null to only count).
Status ReplayTrace(const std::string& path, wire::FrameSink* sink, TraceReplay* out);

// Incremental reading, e.g. to follow a trace another process is still writing.
class TraceReader {
 public:
  TraceReader() = default;
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  Status Open(const std::string& path);
  // Reads what the file has beyond the last call (at most max_bytes) into the decoder.
  Status Pump(wire::FrameSink* sink, size_t max_bytes, size_t* consumed);
  void Close();

  const TraceHeader& header() const { return header_; }
  const wire::StreamDecoder& decoder() const { return decoder_; }

 private:
  std::string path_;
  int fd_ = -1;
  TraceHeader header_;
  wire::StreamDecoder decoder_;
};

}  // namespace trainscope
