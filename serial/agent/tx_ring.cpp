// SPDX-License-Identifier: Apache-2.0
#include "serial/agent/tx_ring.h"

#include <cstring>

namespace trainscope {
namespace {
constexpr uint16_t kLossyBit = 0x8000;
}  // namespace

TxRing::TxRing(uint8_t* storage, size_t size) : storage_(storage), capacity_(storage ? size : 0) {}

size_t TxRing::RecordSize(size_t at) const {
  const uint16_t header = static_cast<uint16_t>(storage_[at] | (storage_[at + 1] << 8));
  return header & 0x7FFFu;
}

bool TxRing::RecordLossy(size_t at) const {
  return (storage_[at + 1] & 0x80) != 0;
}

bool TxRing::Push(const uint8_t* frame, size_t size, bool lossy) {
  const size_t needed = kRecordHeaderBytes + size;
  if (frame == nullptr || size == 0 || size > kMaxFrameBytes || needed > capacity_) {
    ++(lossy ? dropped_frames_ : dropped_link_frames_);
    return false;
  }
  while (capacity_ - queued_bytes() < needed) {
    if (!EvictOldestLossy()) {
      ++(lossy ? dropped_frames_ : dropped_link_frames_);
      return false;
    }
  }
  if (capacity_ - tail_ < needed) Compact();

  const uint16_t header = static_cast<uint16_t>(size | (lossy ? kLossyBit : 0u));
  storage_[tail_] = static_cast<uint8_t>(header);
  storage_[tail_ + 1] = static_cast<uint8_t>(header >> 8);
  std::memcpy(storage_ + tail_ + kRecordHeaderBytes, frame, size);
  tail_ += needed;
  ++frames_;
  if (queued_bytes() > peak_bytes_) peak_bytes_ = queued_bytes();
  return true;
}

bool TxRing::EvictOldestLossy() {
  size_t at = head_;
  // The head record may be half on the wire; cutting it would corrupt the frame in flight.
  if (head_sent_ > 0 && at < tail_) at += kRecordHeaderBytes + RecordSize(at);
  while (at < tail_) {
    const size_t record = kRecordHeaderBytes + RecordSize(at);
    if (RecordLossy(at)) {
      std::memmove(storage_ + at, storage_ + at + record, tail_ - at - record);
      tail_ -= record;
      --frames_;
      ++dropped_frames_;
      if (head_ == tail_) head_ = tail_ = 0;
      return true;
    }
    at += record;
  }
  return false;
}

void TxRing::Compact() {
  const size_t used = queued_bytes();
  if (head_ > 0 && used > 0) std::memmove(storage_, storage_ + head_, used);
  head_ = 0;
  tail_ = used;
}

size_t TxRing::Drain(AgentWriteFn write, void* context) {
  if (write == nullptr) return 0;
  size_t handed = 0;
  while (head_ < tail_) {
    const size_t size = RecordSize(head_);
    const size_t remaining = size - head_sent_;
    size_t taken = write(context, storage_ + head_ + kRecordHeaderBytes + head_sent_, remaining);
    if (taken > remaining) taken = remaining;  // a writer claiming more is not believed
    handed += taken;
    head_sent_ += taken;
    if (head_sent_ < size) break;
    head_ += kRecordHeaderBytes + size;
    head_sent_ = 0;
    --frames_;
  }
  if (head_ == tail_) head_ = tail_ = 0;
  return handed;
}

void TxRing::Clear() {
  head_ = tail_ = head_sent_ = 0;
  frames_ = 0;
}

}  // namespace trainscope
