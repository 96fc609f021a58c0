// SPDX-License-Identifier: Apache-2.0
#include "engine/train/weight_only_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/engine/train/train_test_models.h"

namespace trainscope {
namespace {

void PutU32(std::vector<uint8_t>* out, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*out)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// For the small classifier (7 tensors): header 8 + table 28 = 36; w1 (48 B) at 36, b1 (12 B)
// at 84, w2 (24 B) at 96; 120 bytes in all.
std::vector<uint8_t> HandBuiltWof() {
  std::vector<uint8_t> bytes(120, 0);
  bytes[0] = 429 & 0xff;
  bytes[1] = 429 >> 8;
  bytes[2] = 1;
  PutU32(&bytes, 4, 7);
  PutU32(&bytes, 8 + 4 * 1, 36);
  PutU32(&bytes, 8 + 4 * 2, 84);
  PutU32(&bytes, 8 + 4 * 4, 96);
  return bytes;
}

Status Read(const std::vector<uint8_t>& bytes, WeightOnlyFile* wof) {
  static const Model model = testing::SmallClassifier();
  return ReadWeightOnlyFile(model, bytes.data(), bytes.size(), wof);
}

TEST(WeightOnlyFile, HandBuiltFileLocatesEveryStoredTensor) {
  WeightOnlyFile wof;
  Status status = Read(HandBuiltWof(), &wof);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(wof.tensor_count, 7u);
  ASSERT_EQ(wof.tensors.size(), 3u);
  EXPECT_EQ(wof.tensors[0].tensor, 1);
  EXPECT_EQ(wof.tensors[0].offset, 36u);
  EXPECT_EQ(wof.tensors[0].bytes, 48u);
  EXPECT_EQ(wof.tensors[1].tensor, 2);
  EXPECT_EQ(wof.tensors[1].offset, 84u);
  EXPECT_EQ(wof.tensors[2].tensor, 4);
  EXPECT_EQ(wof.tensors[2].bytes, 24u);
}

TEST(WeightOnlyFile, CorruptHeadersAndOffsetsAreRefused) {
  struct Case {
    const char* expected;
    size_t at;
    uint32_t value;
    bool byte;
  };
  const Case cases[] = {
      {"magic at byte 0 is 430", 0, 430 & 0xff, true},
      {"schema version at byte 2 is 3", 2, 3, true},
      {"tensor count at byte 4 is 8", 4, 8, false},
      {"offset of tensor 1 'w1' (byte 12) is 20", 12, 20, false},    // inside the table
      {"offset of tensor 4 'w2' (byte 24) is 100", 24, 100, false},  // runs past the end
      {"offset of tensor 2 'b1' (byte 16) is 4000000000", 16, 4000000000u, false},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes = HandBuiltWof();
    if (c.byte) {
      bytes[c.at] = static_cast<uint8_t>(c.value);
    } else {
      PutU32(&bytes, c.at, c.value);
    }
    WeightOnlyFile wof;
    wof.tensor_count = 99;
    Status status = Read(bytes, &wof);
    EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
    EXPECT_NE(std::string(status.message()).find(c.expected), std::string::npos)
        << status.message();
    EXPECT_EQ(wof.tensor_count, 99u);
  }
}

TEST(WeightOnlyFile, EveryTruncationIsRefused) {
  const std::vector<uint8_t> full = HandBuiltWof();
  for (size_t size = 0; size < full.size(); ++size) {
    const std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(size));
    WeightOnlyFile wof;
    EXPECT_EQ(Read(cut, &wof).code(), StatusCode::kInvalidFile) << "size " << size;
  }
}

}  // namespace
}  // namespace trainscope
