// SPDX-License-Identifier: Apache-2.0
//
// The train-config blob is byte-exact with onert-micro's layout (research §6.4) and every
// malformed file is refused with a message naming the field.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/plan/train_config_file.h"

namespace trainscope {
namespace {

using Ranks = std::map<uint16_t, TrainRank>;

// {3: ALL, 1: ONLY_BIAS, 260: LOWER_1_2_PART}, written sorted by op index: 1, 3, 260.
const std::vector<uint8_t> kThreeEntries = {
    0x1d, 0x00,              // magic 29, little-endian
    0x01,                    // version 1
    0x00,                    // reserved
    0x03, 0x00, 0x00, 0x00,  // N = 3
    0x01, 0x00,              // op 1
    0x03, 0x00,              // op 3
    0x04, 0x01,              // op 260 = 0x0104
    0x01,                    // ONLY_BIAS
    0x00,                    // ALL
    0x03,                    // LOWER_1_2_PART
};

std::string ReadError(std::vector<uint8_t> bytes, size_t operators = 300) {
  Ranks ranks = {{0, TrainRank::kAll}};
  const Status status = ReadTrainConfig(bytes.data(), bytes.size(), operators, &ranks);
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
  EXPECT_EQ(ranks.size(), 1u) << "a refused file must leave the output alone";
  return status.message();
}

TEST(TrainConfigFile, WriterProducesTheHandBuiltBytes) {
  std::vector<uint8_t> bytes;
  const Ranks ranks = {
      {3, TrainRank::kAll}, {260, TrainRank::kLowerHalf}, {1, TrainRank::kOnlyBias}};
  ASSERT_TRUE(WriteTrainConfig(ranks, &bytes).ok());
  EXPECT_EQ(bytes, kThreeEntries);
}

TEST(TrainConfigFile, ReadingBackRoundTrips) {
  Ranks ranks;
  const Status status = ReadTrainConfig(kThreeEntries.data(), kThreeEntries.size(), 261, &ranks);
  ASSERT_TRUE(status.ok()) << status.message();
  const Ranks expected = {
      {1, TrainRank::kOnlyBias}, {3, TrainRank::kAll}, {260, TrainRank::kLowerHalf}};
  EXPECT_EQ(ranks, expected);
  std::vector<uint8_t> again;
  ASSERT_TRUE(WriteTrainConfig(ranks, &again).ok());
  EXPECT_EQ(again, kThreeEntries);
}

TEST(TrainConfigFile, DuplicateIndexKeepsTheLastRank) {
  const std::vector<uint8_t> bytes = {0x1d, 0, 1, 0, 2, 0, 0, 0, 5, 0, 5, 0, 0x02, 0x01};
  Ranks ranks;
  ASSERT_TRUE(ReadTrainConfig(bytes.data(), bytes.size(), 6, &ranks).ok());
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks.at(5), TrainRank::kOnlyBias);
}

TEST(TrainConfigFile, ReservedByteIsNotChecked) {
  std::vector<uint8_t> bytes = kThreeEntries;
  bytes[3] = 0x7f;
  Ranks ranks;
  EXPECT_TRUE(ReadTrainConfig(bytes.data(), bytes.size(), 261, &ranks).ok());
}

TEST(TrainConfigFile, RefusesWrongMagic) {
  std::vector<uint8_t> bytes = kThreeEntries;
  bytes[0] = 0x1e;
  const std::string message = ReadError(bytes);
  EXPECT_NE(message.find("magic at byte offset 0 is 30, expected 29"), std::string::npos)
      << message;
}

TEST(TrainConfigFile, RefusesWrongVersion) {
  std::vector<uint8_t> bytes = kThreeEntries;
  bytes[2] = 2;
  const std::string message = ReadError(bytes);
  EXPECT_NE(message.find("version at byte offset 2 is 2"), std::string::npos) << message;
}

TEST(TrainConfigFile, RefusesZeroEntries) {
  const std::string message = ReadError({0x1d, 0, 1, 0, 0, 0, 0, 0});
  EXPECT_NE(message.find("entry count at byte offset 4 is 0"), std::string::npos) << message;
}

TEST(TrainConfigFile, RefusesMoreEntriesThanOperators) {
  const std::string message = ReadError(kThreeEntries, 2);
  EXPECT_NE(message.find("entry count at byte offset 4 is 3, more than the model's 2"),
            std::string::npos)
      << message;
}

TEST(TrainConfigFile, RefusesTruncatedAndOverlongFiles) {
  std::string message = ReadError({0x1d, 0, 1});
  EXPECT_NE(message.find("shorter than the 8-byte header"), std::string::npos) << message;

  std::vector<uint8_t> truncated(kThreeEntries.begin(), kThreeEntries.end() - 1);
  message = ReadError(truncated);
  EXPECT_NE(message.find("16 bytes, but 3 entries need exactly 17 (truncated)"), std::string::npos)
      << message;

  std::vector<uint8_t> longer = kThreeEntries;
  longer.push_back(0);
  message = ReadError(longer);
  EXPECT_NE(message.find("trailing bytes"), std::string::npos) << message;
}

TEST(TrainConfigFile, RefusesOperatorIndexOutOfRange) {
  // Op 260 with a 261-op model is fine; with 260 ops it is one past the end.
  const std::string message = ReadError(kThreeEntries, 260);
  EXPECT_NE(message.find("entry 2 operator index at byte offset 12 is 260"), std::string::npos)
      << message;
}

TEST(TrainConfigFile, RefusesUnknownRank) {
  std::vector<uint8_t> bytes = kThreeEntries;
  bytes[15] = 7;  // the second rank byte: entry 1 (op 3)
  const std::string message = ReadError(bytes);
  EXPECT_NE(message.find("entry 1 (operator 3) rank at byte offset 15 is 7"), std::string::npos)
      << message;
}

TEST(TrainConfigFile, WriterRefusesEmptyMapAndBadRank) {
  std::vector<uint8_t> bytes;
  EXPECT_EQ(WriteTrainConfig({}, &bytes).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteTrainConfig({{0, static_cast<TrainRank>(4)}}, &bytes).code(),
            StatusCode::kInvalidArgument);
}

TEST(TrainConfigFile, FilesRoundTripAndErrorsNameThePath) {
  const std::string path = ::testing::TempDir() + "/train_config_test.bin";
  const Ranks ranks = {{0, TrainRank::kUpperHalf}, {2, TrainRank::kAll}};
  ASSERT_TRUE(WriteTrainConfigFile(path, ranks).ok());
  Ranks read;
  ASSERT_TRUE(ReadTrainConfigFile(path, 3, &read).ok());
  EXPECT_EQ(read, ranks);
  const Status too_few_ops = ReadTrainConfigFile(path, 2, &read);
  EXPECT_EQ(too_few_ops.code(), StatusCode::kInvalidFile);
  EXPECT_EQ(std::string(too_few_ops.message()).rfind(path, 0), 0u) << too_few_ops.message();
  std::remove(path.c_str());
  EXPECT_EQ(ReadTrainConfigFile(path, 3, &read).code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace trainscope
