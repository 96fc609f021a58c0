// SPDX-License-Identifier: Apache-2.0
//
// TxRing queues encoded frames between the training loop and the UART, in a caller-provided
// buffer. It never blocks and never allocates: when a new frame does not fit, the OLDEST lossy
// frames (statistics the desktop can do without) are evicted until it does, and every discarded
// frame is counted. Link frames (HELLO, ACK, ...) are never evicted; if the buffer is full of
// them, the new frame is refused and counted instead.
//
// A frame already partly handed to the UART is never evicted, so the wire only ever carries
// whole frames. Each queued frame costs 2 bytes of bookkeeping on top of its wire bytes.
//
//   static uint8_t storage[4096];
//   TxRing ring(storage, sizeof storage);
//   ring.Push(frame, n, /*lossy=*/true);
//   ring.Drain(&UartWrite, &uart);   // call again whenever the UART has room
//
// Not thread-safe: Push and Drain run on the training thread (or under one lock).
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope {

// The firmware's UART writer: takes up to `size` bytes (DMA, FIFO) and returns how many it
// took. Returning fewer, even 0, means "busy, try later"; it should not wait if training must
// never stall on the link.
using AgentWriteFn = size_t (*)(void* context, const uint8_t* data, size_t size);

class TxRing {
 public:
  static constexpr size_t kRecordHeaderBytes = 2;
  static constexpr size_t kMaxFrameBytes = 0x7FFF;

  TxRing(uint8_t* storage, size_t size);
  TxRing(const TxRing&) = delete;
  TxRing& operator=(const TxRing&) = delete;

  // Returns false when the frame was discarded (and counted).
  bool Push(const uint8_t* frame, size_t size, bool lossy);
  // Hands queued bytes to `write` until it takes fewer than offered. Returns bytes handed over.
  size_t Drain(AgentWriteFn write, void* context);
  // Forgets every queued frame (e.g. the link was reset); counters stay.
  void Clear();

  size_t queued_bytes() const { return tail_ - head_; }  // bookkeeping included
  size_t queued_frames() const { return frames_; }
  size_t free_bytes() const { return capacity_ - queued_bytes(); }
  size_t peak_bytes() const { return peak_bytes_; }
  uint32_t dropped_frames() const { return dropped_frames_; }  // lossy, evicted or refused
  uint32_t dropped_link_frames() const { return dropped_link_frames_; }  // refused link frames

 private:
  size_t RecordSize(size_t at) const;  // payload bytes of the record at `at`
  bool RecordLossy(size_t at) const;
  bool EvictOldestLossy();
  void Compact();

  uint8_t* storage_;
  size_t capacity_;
  size_t head_ = 0;       // first queued record
  size_t tail_ = 0;       // end of the last queued record
  size_t head_sent_ = 0;  // bytes of the head record already handed to the UART
  size_t frames_ = 0;
  size_t peak_bytes_ = 0;
  uint32_t dropped_frames_ = 0;
  uint32_t dropped_link_frames_ = 0;
};

}  // namespace trainscope
