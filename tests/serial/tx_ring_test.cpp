// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <vector>

#include "serial/agent/tx_ring.h"

namespace trainscope {
namespace {

// A frame of `size` bytes whose every byte is `tag`, so the drained output shows which survived.
std::vector<uint8_t> Frame(uint8_t tag, size_t size) {
  return std::vector<uint8_t>(size, tag);
}

struct Uart {
  std::vector<uint8_t> bytes;
  size_t per_call = SIZE_MAX;  // how many bytes the UART takes per write call
  bool busy = false;
};

size_t UartWrite(void* context, const uint8_t* data, size_t size) {
  auto* uart = static_cast<Uart*>(context);
  if (uart->busy) return 0;
  const size_t n = size < uart->per_call ? size : uart->per_call;
  uart->bytes.insert(uart->bytes.end(), data, data + n);
  return n;
}

// The tags of the frames in a drained byte stream made of Frame(tag, size) records.
std::vector<uint8_t> Tags(const std::vector<uint8_t>& bytes, size_t size) {
  std::vector<uint8_t> tags;
  for (size_t i = 0; i + size <= bytes.size(); i += size) tags.push_back(bytes[i]);
  return tags;
}

TEST(TxRing, FillingItDropsTheOldestLossyFramesAndCountsThem) {
  uint8_t storage[10 * 12];  // ten 10-byte frames with their 2-byte records
  TxRing ring(storage, sizeof storage);
  for (uint8_t tag = 1; tag <= 15; ++tag) EXPECT_TRUE(ring.Push(Frame(tag, 10).data(), 10, true));
  EXPECT_EQ(ring.dropped_frames(), 5u);
  EXPECT_EQ(ring.queued_frames(), 10u);

  Uart uart;
  ring.Drain(&UartWrite, &uart);
  EXPECT_EQ(Tags(uart.bytes, 10), (std::vector<uint8_t>{6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(ring.queued_bytes(), 0u);
}

TEST(TxRing, LinkFramesAreNeverEvicted) {
  uint8_t storage[4 * 12];
  TxRing ring(storage, sizeof storage);
  ring.Push(Frame(1, 10).data(), 10, false);               // link
  ring.Push(Frame(2, 10).data(), 10, true);                // stats
  ring.Push(Frame(3, 10).data(), 10, false);               // link
  ring.Push(Frame(4, 10).data(), 10, true);                // stats
  EXPECT_TRUE(ring.Push(Frame(5, 10).data(), 10, false));  // evicts 2
  EXPECT_TRUE(ring.Push(Frame(6, 10).data(), 10, true));   // evicts 4
  EXPECT_EQ(ring.dropped_frames(), 2u);

  Uart uart;
  ring.Drain(&UartWrite, &uart);
  EXPECT_EQ(Tags(uart.bytes, 10), (std::vector<uint8_t>{1, 3, 5, 6}));
}

TEST(TxRing, AFullQueueOfLinkFramesRefusesTheNewFrameAndCountsIt) {
  uint8_t storage[2 * 12];
  TxRing ring(storage, sizeof storage);
  ring.Push(Frame(1, 10).data(), 10, false);
  ring.Push(Frame(2, 10).data(), 10, false);
  EXPECT_FALSE(ring.Push(Frame(3, 10).data(), 10, false));
  EXPECT_FALSE(ring.Push(Frame(4, 10).data(), 10, true));
  EXPECT_EQ(ring.dropped_link_frames(), 1u);
  EXPECT_EQ(ring.dropped_frames(), 1u);
  EXPECT_FALSE(ring.Push(Frame(5, 30).data(), 30, true));  // can never fit
  EXPECT_EQ(ring.dropped_frames(), 2u);
}

TEST(TxRing, AFramePartlyOnTheWireIsNotEvictedSoTheWireStaysWhole) {
  uint8_t storage[3 * 12];
  TxRing ring(storage, sizeof storage);
  for (uint8_t tag = 1; tag <= 3; ++tag) ring.Push(Frame(tag, 10).data(), 10, true);
  Uart uart;
  uart.per_call = 4;
  uart.busy = false;
  // Hand over 4 bytes of frame 1, then the UART is busy.
  size_t calls = 0;
  auto write_once = [](void* context, const uint8_t* data, size_t size) -> size_t {
    auto* state = static_cast<std::pair<Uart*, size_t*>*>(context);
    if ((*state->second)++ > 0) return 0;
    return UartWrite(state->first, data, size);
  };
  std::pair<Uart*, size_t*> state{&uart, &calls};
  EXPECT_EQ(ring.Drain(write_once, &state), 4u);
  ring.Push(Frame(4, 10).data(), 10, true);  // must evict frame 2, not the half-sent frame 1
  EXPECT_EQ(ring.dropped_frames(), 1u);
  uart.per_call = 3;
  while (ring.queued_bytes() > 0) ring.Drain(&UartWrite, &uart);
  EXPECT_EQ(Tags(uart.bytes, 10), (std::vector<uint8_t>{1, 3, 4}));
}

TEST(TxRing, BusyWriterKeepsFramesQueuedAndTracksThePeak) {
  uint8_t storage[256];
  TxRing ring(storage, sizeof storage);
  Uart uart;
  uart.busy = true;
  for (uint8_t tag = 1; tag <= 5; ++tag) ring.Push(Frame(tag, 20).data(), 20, true);
  EXPECT_EQ(ring.Drain(&UartWrite, &uart), 0u);
  EXPECT_EQ(ring.queued_bytes(), 5u * 22u);
  EXPECT_EQ(ring.peak_bytes(), 5u * 22u);
  uart.busy = false;
  EXPECT_EQ(ring.Drain(&UartWrite, &uart), 100u);
  EXPECT_EQ(ring.queued_frames(), 0u);
  EXPECT_EQ(ring.peak_bytes(), 5u * 22u);
}

TEST(TxRing, WrapsByCompactingWithoutLosingOrder) {
  uint8_t storage[64];
  TxRing ring(storage, sizeof storage);
  Uart uart;
  uart.per_call = 7;
  uint8_t next_tag = 1;
  for (int round = 0; round < 50; ++round) {
    while (ring.Push(Frame(next_tag, 9).data(), 9, false)) ++next_tag;
    ring.Drain(&UartWrite, &uart);
  }
  while (ring.queued_bytes() > 0) ring.Drain(&UartWrite, &uart);
  const std::vector<uint8_t> tags = Tags(uart.bytes, 9);
  ASSERT_EQ(tags.size(), static_cast<size_t>(next_tag - 1));
  for (size_t i = 0; i < tags.size(); ++i) EXPECT_EQ(tags[i], static_cast<uint8_t>(i + 1));
}

}  // namespace
}  // namespace trainscope
