// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "serial/protocol/cobs.h"
#include "serial/protocol/crc32.h"
#include "serial/protocol/messages.h"
#include "serial/protocol/wire_format.h"

namespace trainscope::wire {
namespace {

std::vector<uint8_t> Bytes(std::initializer_list<int> values) {
  std::vector<uint8_t> bytes;
  for (int v : values) bytes.push_back(static_cast<uint8_t>(v));
  return bytes;
}

std::vector<uint8_t> Encode(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(CobsMaxEncodedSize(in.size()));
  const size_t n = CobsEncode(in.data(), in.size(), out.data(), out.size());
  EXPECT_GT(n, 0u);
  out.resize(n);
  return out;
}

TEST(Crc32, MatchesTheStandardCheckValue) {
  const char* text = "123456789";
  EXPECT_EQ(Crc32(reinterpret_cast<const uint8_t*>(text), 9), 0xCBF43926u);
}

TEST(Crc32, OfNothingIsZeroAndChainingEqualsOnePass) {
  EXPECT_EQ(Crc32(nullptr, 0), 0u);
  const uint8_t data[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(Crc32(data + 4, 6, Crc32(data, 4)), Crc32(data, 10));
}

// The bit-at-a-time definition, as the reference for the table-driven code: every length around
// the eight-byte folding, at every alignment, and chained at every split.
uint32_t BitwiseCrc32(const uint8_t* data, size_t size) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

TEST(Crc32, EqualsTheBitwiseDefinitionForEveryLengthAlignmentAndSplit) {
  std::mt19937 rng(29);
  std::vector<uint8_t> buffer(80);
  for (uint8_t& b : buffer) b = static_cast<uint8_t>(rng());
  for (size_t start = 0; start < 8; ++start) {
    for (size_t size = 0; start + size <= buffer.size(); ++size) {
      const uint8_t* data = buffer.data() + start;
      const uint32_t want = BitwiseCrc32(data, size);
      ASSERT_EQ(Crc32(data, size), want) << "start " << start << " size " << size;
      const size_t split = size / 3;
      ASSERT_EQ(Crc32(data + split, size - split, Crc32(data, split)), want) << size;
    }
  }
}

TEST(Cobs, EncodesTheReferenceExamples) {
  // Examples from the COBS description (Cheshire & Baker, 1999) as commonly tabulated.
  EXPECT_EQ(Encode(Bytes({0x00})), Bytes({0x01, 0x01}));
  EXPECT_EQ(Encode(Bytes({0x00, 0x00})), Bytes({0x01, 0x01, 0x01}));
  EXPECT_EQ(Encode(Bytes({0x11, 0x22, 0x00, 0x33})), Bytes({0x03, 0x11, 0x22, 0x02, 0x33}));
  EXPECT_EQ(Encode(Bytes({0x11, 0x22, 0x33, 0x44})), Bytes({0x05, 0x11, 0x22, 0x33, 0x44}));
  EXPECT_EQ(Encode(Bytes({0x11, 0x00, 0x00, 0x00})), Bytes({0x02, 0x11, 0x01, 0x01, 0x01}));
  EXPECT_EQ(Encode({}), Bytes({0x01}));
}

TEST(Cobs, SplitsRunsOf254NonZeroBytes) {
  // 01 02 ... FE encodes as FF 01 02 ... FE; with a leading 00 it becomes 01 FF 01 ... FE.
  std::vector<uint8_t> in(254);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i + 1);
  std::vector<uint8_t> expected = {0xFF};
  expected.insert(expected.end(), in.begin(), in.end());
  EXPECT_EQ(Encode(in), expected);

  std::vector<uint8_t> leading_zero = {0x00};
  leading_zero.insert(leading_zero.end(), in.begin(), in.end());
  expected.insert(expected.begin(), 0x01);
  EXPECT_EQ(Encode(leading_zero), expected);

  // 01 ... FE FF: the 255th byte opens a second block, FF 01..FE 02 FF.
  std::vector<uint8_t> with_ff = in;
  with_ff.push_back(0xFF);
  const std::vector<uint8_t> out = Encode(with_ff);
  ASSERT_EQ(out.size(), 257u);
  EXPECT_EQ(out[0], 0xFF);
  EXPECT_EQ(out[255], 0x02);
  EXPECT_EQ(out[256], 0xFF);
}

TEST(Cobs, RoundTripsRandomBlocksWithoutZerosInTheOutput) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<uint8_t> in(rng() % 1200);
    const auto zero_odds =
        static_cast<unsigned>(1 + rng() % 300);  // from mostly zeros to almost none
    for (uint8_t& b : in) b = (rng() % zero_odds == 0) ? 0 : static_cast<uint8_t>(1 + rng() % 255);
    const std::vector<uint8_t> stuffed = Encode(in);
    ASSERT_LE(stuffed.size(), CobsMaxEncodedSize(in.size()));
    for (uint8_t b : stuffed) ASSERT_NE(b, 0);
    std::vector<uint8_t> back(in.size() + 1);
    size_t n = 0;
    ASSERT_EQ(CobsDecode(stuffed.data(), stuffed.size(), back.data(), back.size(), &n),
              CobsResult::kOk);
    back.resize(n);
    ASSERT_EQ(back, in) << "trial " << trial;
  }
}

TEST(Cobs, WorksInPlaceWhenInputSitsAtTheEndOfTheOutputArea) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint8_t> in(rng() % 800);
    for (uint8_t& b : in) b = (rng() % 7 == 0) ? 0 : static_cast<uint8_t>(rng());
    const size_t room = CobsMaxEncodedSize(in.size());
    std::vector<uint8_t> area(room);
    const size_t offset = room - in.size();
    if (!in.empty()) std::memcpy(area.data() + offset, in.data(), in.size());
    const size_t n = CobsEncode(area.data() + offset, in.size(), area.data(), room);
    area.resize(n);
    ASSERT_EQ(area, Encode(in)) << "trial " << trial;
    // Decoding in place restores the input.
    size_t decoded = 0;
    ASSERT_EQ(CobsDecode(area.data(), area.size(), area.data(), area.size(), &decoded),
              CobsResult::kOk);
    area.resize(decoded);
    ASSERT_EQ(area, in);
  }
}

TEST(Cobs, EncodeReportsAnOutputBufferThatIsTooSmall) {
  const std::vector<uint8_t> in(300, 0x55);
  std::vector<uint8_t> out(CobsMaxEncodedSize(in.size()));
  EXPECT_EQ(CobsEncode(in.data(), in.size(), out.data(), in.size()), 0u);
  EXPECT_GT(CobsEncode(in.data(), in.size(), out.data(), out.size()), 0u);
  EXPECT_EQ(CobsEncode(in.data(), 0, out.data(), 0), 0u);
}

TEST(Cobs, DecodeRejectsMalformedBlocks) {
  uint8_t out[16];
  size_t n = 0;
  const std::vector<uint8_t> with_zero = Bytes({0x03, 0x11, 0x00});
  EXPECT_EQ(CobsDecode(with_zero.data(), with_zero.size(), out, sizeof out, &n),
            CobsResult::kZeroInInput);
  const std::vector<uint8_t> zero_code = Bytes({0x00, 0x11});
  EXPECT_EQ(CobsDecode(zero_code.data(), zero_code.size(), out, sizeof out, &n),
            CobsResult::kZeroInInput);
  const std::vector<uint8_t> short_block = Bytes({0x05, 0x11, 0x22});
  EXPECT_EQ(CobsDecode(short_block.data(), short_block.size(), out, sizeof out, &n),
            CobsResult::kTruncated);
  const std::vector<uint8_t> long_block = Bytes({0x05, 0x11, 0x22, 0x33, 0x44, 0x02, 0x55});
  EXPECT_EQ(CobsDecode(long_block.data(), long_block.size(), out, 4, &n), CobsResult::kTooLong);
}

TEST(ModelHash, IsFnv1a64) {
  // Published FNV-1a 64 test vectors.
  EXPECT_EQ(ModelHash(nullptr, 0), 0xCBF29CE484222325ull);
  const uint8_t a[] = {'a'};
  EXPECT_EQ(ModelHash(a, 1), 0xAF63DC4C8601EC8Cull);
  const char* foobar = "foobar";
  EXPECT_EQ(ModelHash(reinterpret_cast<const uint8_t*>(foobar), 6), 0x85944171F73967E8ull);
}

}  // namespace
}  // namespace trainscope::wire
