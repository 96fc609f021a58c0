// SPDX-License-Identifier: Apache-2.0
//
// BoardLayer: what TrainingBoard needs from the hardware it runs on, and nothing more — the link
// to the desktop, a millisecond clock and, where the board can tell, the RAM it really used.
// A firmware implements it over its UART, timer, allocator and linker symbols
// (app/firmware/); the simulator over a pty or TCP port with a simulated line (app/board-sim/).
//
// Writes never wait: a UART takes what fits in its FIFO now and the agent keeps the rest queued.
// Single-threaded: the training loop makes every call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope {

// What a board measured of itself since boot.
struct MeasuredMemory {
  uint32_t heap_peak_bytes = 0;   // the allocator's high-water mark
  uint32_t stack_peak_bytes = 0;  // deepest stack use (stack painting)
  uint32_t static_bytes = 0;      // .data + .bss from the linker's symbols
  uint32_t ram_bytes = 0;         // all the RAM the firmware may use
};

class BoardLayer {
 public:
  virtual ~BoardLayer() = default;

  // Bytes from the desktop into `data`; 0 when none came within timeout_ms.
  virtual size_t Read(uint8_t* data, size_t capacity, int timeout_ms) = 0;
  // Takes what the line carries now (possibly nothing); the agent's AgentWriteFn.
  virtual size_t Write(const uint8_t* data, size_t size) = 0;
  // True once per desktop that (re)connected since the last call, so the board greets it.
  virtual bool TakeNewPeer() { return false; }
  // Whether every byte handed to Write has left the board.
  virtual bool LinkIdle() const { return true; }
  virtual uint32_t NowMs() const = 0;
  // Fills *out and returns true when the board can measure itself; false makes the board report
  // its own accounting of what it allocated instead (wire::MemorySource::kAccounted).
  virtual bool MeasureMemory(MeasuredMemory* out) const {
    (void)out;
    return false;
  }
};

}  // namespace trainscope
