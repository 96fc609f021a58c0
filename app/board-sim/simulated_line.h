// SPDX-License-Identifier: Apache-2.0
//
// SimulatedLine sits between the agent's TX ring and a BoardPort and plays the wire: a line rate
// (10 bits per byte, like 8N1) and the faults tests ask for. It is the agent's write callback:
// it takes what the line can carry now and the agent keeps the rest queued, so a slow line makes
// the agent thin out statistics exactly as on a board, and training never waits inside a write.
//
// Faults work on whole frames (bytes up to a 0x00 delimiter, which only ever ends a frame):
//   - drop_rate: a frame vanishes with this probability (the desktop sees a sequence gap);
//   - corrupt_rate: each byte of a frame, delimiter included, gets one random bit flipped with
//     this probability (the desktop sees bad CRCs or torn frames);
//   - command_drop_rate: a frame from the desktop vanishes with this probability before the
//     agent sees it (a lost command; the desktop must send it again);
//   - disconnect_after: once this many frames went out, the cable is pulled (BoardPort::Unplug),
//     once per run; the next desktop that connects gets a steady link;
//   - disconnect_in_tensor: the same, once this many TENSOR_CHUNK frames went out: a cut in the
//     middle of a tensor's values, wherever the rest of the run puts it.
// The random stream is seeded, so a run with the same seed injects the same faults.
//
//   SimulatedLine line(port, 115200, faults);
//   config.write = &SimulatedLine::WriteThunk;  config.write_context = &line;
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "app/board-sim/board_port.h"
#include "serial/protocol/stream_decoder.h"

namespace trainscope {

struct LineFaults {
  double corrupt_rate = 0.0;          // per byte
  double drop_rate = 0.0;             // per frame
  double command_drop_rate = 0.0;     // per frame from the desktop
  uint64_t disconnect_after = 0;      // frames; 0 = never
  uint64_t disconnect_in_tensor = 0;  // TENSOR_CHUNK frames; 0 = never
  uint64_t seed = 1;
};

struct LineStats {
  uint64_t frames_sent = 0;  // handed to the port while a desktop was there (faulty or not)
  uint64_t frames_dropped = 0;
  uint64_t bytes_corrupted = 0;
  uint64_t bytes_sent = 0;
  uint64_t commands_dropped = 0;    // frames from the desktop that command_drop_rate removed
  bool disconnected = false;        // disconnect_after or disconnect_in_tensor fired
  uint64_t tensor_chunks_sent = 0;  // counted only with disconnect_in_tensor
};

// A token bucket of bytes: the line rate at 10 bits per byte, with up to 50 ms of catch-up.
class ByteRate {
 public:
  explicit ByteRate(uint32_t baud_rate);  // 0 = unlimited
  // Bytes out of `wanted` the line carries at `now_ns` (a monotonic clock).
  size_t Take(size_t wanted, int64_t now_ns);
  bool unlimited() const { return bytes_per_second_ == 0.0; }

 private:
  double bytes_per_second_;
  double burst_;
  double tokens_;
  int64_t last_ns_ = -1;
};

// xorshift64*: the same faults for the same seed on every platform.
class FaultRandom {
 public:
  explicit FaultRandom(uint64_t seed) : state_(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  uint64_t Next();
  double Uniform();  // [0, 1)

 private:
  uint64_t state_;
};

class SimulatedLine {
 public:
  SimulatedLine(BoardPort* port, uint32_t baud_rate, const LineFaults& faults);
  SimulatedLine(const SimulatedLine&) = delete;
  SimulatedLine& operator=(const SimulatedLine&) = delete;

  // The agent's AgentWriteFn (context = the line).
  static size_t WriteThunk(void* line, const uint8_t* data, size_t size);
  size_t Write(const uint8_t* data, size_t size, int64_t now_ns);
  // Retries bytes the port refused earlier; call it whenever the board polls.
  void Pump();
  // Bytes from the desktop, any chunking: appends to *out what reaches the board. A frame is
  // held until its delimiter arrives, then kept or dropped as a whole.
  void Receive(const uint8_t* data, size_t size, std::vector<uint8_t>* out);

  bool idle() const { return pending_.size() == pending_sent_ && frame_.empty(); }
  const LineStats& stats() const { return stats_; }

 private:
  void EndFrame();
  void Disconnect();

  // Reads the type of each outgoing frame, for disconnect_in_tensor.
  class ChunkCounter final : public wire::FrameSink {
   public:
    explicit ChunkCounter(uint64_t* chunks) : chunks_(chunks) {}
    void OnFrame(const wire::FrameView& frame) override {
      *chunks_ += frame.type == wire::MessageType::kTensorChunk;
    }

   private:
    uint64_t* chunks_;
  };
  wire::StreamDecoder outgoing_decoder_;
  ChunkCounter chunk_counter_{&stats_.tensor_chunks_sent};

  BoardPort* port_;
  ByteRate rate_;
  LineFaults faults_;
  FaultRandom random_;
  FaultRandom command_random_;  // its own stream: the outgoing faults stay those of the seed
  LineStats stats_;
  std::vector<uint8_t> incoming_;  // a frame from the desktop, delimiter not yet seen
  std::vector<uint8_t> frame_;     // the frame being assembled, delimiter not yet seen
  std::vector<uint8_t> pending_;   // frames ready for the port
  size_t pending_sent_ = 0;        // bytes of pending_ the port already took
};

int64_t MonotonicNowNs();

}  // namespace trainscope
