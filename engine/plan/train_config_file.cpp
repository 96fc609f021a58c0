// SPDX-License-Identifier: Apache-2.0
#include "engine/plan/train_config_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/core/byte_order.h"
#include "engine/model/model.h"

namespace trainscope {
namespace {

using little_endian::LoadU16;
using little_endian::LoadU32;
using little_endian::StoreU16;
using little_endian::StoreU32;

constexpr size_t kMagicOffset = 0;
constexpr size_t kVersionOffset = 2;
constexpr size_t kCountOffset = 4;
// Indices are u16, so no valid file holds more entries than this.
constexpr size_t kMaxTrainConfigFileBytes = kTrainConfigHeaderBytes + 3 * size_t{65536};

}  // namespace

Status ReadTrainConfig(const uint8_t* data, size_t size, size_t operator_count,
                       std::map<uint16_t, TrainRank>* op_ranks) {
  if (data == nullptr && size != 0) {
    return Status::Error(StatusCode::kInvalidArgument, "train config: no data");
  }
  if (size < kTrainConfigHeaderBytes) {
    return Status::Error(StatusCode::kInvalidFile,
                         "train config: %zu bytes is shorter than the %zu-byte header", size,
                         kTrainConfigHeaderBytes);
  }
  const uint16_t magic = LoadU16(data + kMagicOffset);
  if (magic != kTrainConfigMagic) {
    return Status::Error(StatusCode::kInvalidFile,
                         "train config: magic at byte offset %zu is %u, expected %u", kMagicOffset,
                         static_cast<unsigned>(magic), static_cast<unsigned>(kTrainConfigMagic));
  }
  const uint8_t version = data[kVersionOffset];
  if (version != kTrainConfigVersion) {
    return Status::Error(StatusCode::kInvalidFile,
                         "train config: schema version at byte offset %zu is %u, expected %u",
                         kVersionOffset, static_cast<unsigned>(version),
                         static_cast<unsigned>(kTrainConfigVersion));
  }
  const uint32_t count = LoadU32(data + kCountOffset);
  if (count == 0) {
    return Status::Error(StatusCode::kInvalidFile,
                         "train config: entry count at byte offset %zu is 0; at least one "
                         "operator must be listed",
                         kCountOffset);
  }
  if (count > operator_count) {
    return Status::Error(StatusCode::kInvalidFile,
                         "train config: entry count at byte offset %zu is %u, more than the "
                         "model's %zu operators",
                         kCountOffset, static_cast<unsigned>(count), operator_count);
  }
  const size_t expected = kTrainConfigHeaderBytes + 3 * static_cast<size_t>(count);
  if (size != expected) {
    return Status::Error(StatusCode::kInvalidFile,
                         "train config: %zu bytes, but %u entries need exactly %zu (%s)", size,
                         static_cast<unsigned>(count), expected,
                         size < expected ? "truncated" : "trailing bytes");
  }

  std::map<uint16_t, TrainRank> ranks;
  const size_t ranks_offset = kTrainConfigHeaderBytes + 2 * static_cast<size_t>(count);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t index_offset = kTrainConfigHeaderBytes + 2 * static_cast<size_t>(i);
    const uint16_t op_index = LoadU16(data + index_offset);
    if (op_index >= operator_count) {
      return Status::Error(StatusCode::kInvalidFile,
                           "train config: entry %u operator index at byte offset %zu is %u, "
                           "but the model has %zu operators",
                           static_cast<unsigned>(i), index_offset, static_cast<unsigned>(op_index),
                           operator_count);
    }
    const size_t rank_offset = ranks_offset + i;
    const uint8_t rank = data[rank_offset];
    if (rank >= kTrainRankCount) {
      return Status::Error(StatusCode::kInvalidFile,
                           "train config: entry %u (operator %u) rank at byte offset %zu is %u; "
                           "valid ranks are 0..%u",
                           static_cast<unsigned>(i), static_cast<unsigned>(op_index), rank_offset,
                           static_cast<unsigned>(rank), static_cast<unsigned>(kTrainRankCount - 1));
    }
    ranks[op_index] = static_cast<TrainRank>(rank);
  }
  *op_ranks = std::move(ranks);
  return Status::Ok();
}

Status WriteTrainConfig(const std::map<uint16_t, TrainRank>& op_ranks, std::vector<uint8_t>* out) {
  if (op_ranks.empty()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "train config: no entries; onert-micro refuses a file with N = 0");
  }
  const size_t count = op_ranks.size();
  std::vector<uint8_t> bytes(kTrainConfigHeaderBytes + 3 * count, 0);
  StoreU16(kTrainConfigMagic, bytes.data() + kMagicOffset);
  bytes[kVersionOffset] = kTrainConfigVersion;
  StoreU32(static_cast<uint32_t>(count), bytes.data() + kCountOffset);
  size_t i = 0;
  for (const auto& entry : op_ranks) {
    const uint8_t rank = static_cast<uint8_t>(entry.second);
    if (rank >= kTrainRankCount) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "train config: operator %u has rank %u; valid ranks are 0..%u",
                           static_cast<unsigned>(entry.first), static_cast<unsigned>(rank),
                           static_cast<unsigned>(kTrainRankCount - 1));
    }
    StoreU16(entry.first, bytes.data() + kTrainConfigHeaderBytes + 2 * i);
    bytes[kTrainConfigHeaderBytes + 2 * count + i] = rank;
    ++i;
  }
  *out = std::move(bytes);
  return Status::Ok();
}

Status ReadTrainConfigFile(const std::string& path, size_t operator_count,
                           std::map<uint16_t, TrainRank>* op_ranks) {
  std::vector<uint8_t> bytes;
  Status status = ReadFileBytes(path, kMaxTrainConfigFileBytes, &bytes);
  if (status.ok()) status = ReadTrainConfig(bytes.data(), bytes.size(), operator_count, op_ranks);
  return status.Prepend(path);
}

Status WriteTrainConfigFile(const std::string& path,
                            const std::map<uint16_t, TrainRank>& op_ranks) {
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(WriteTrainConfig(op_ranks, &bytes));
  return WriteFileAtomically(path, bytes.data(), bytes.size());
}

}  // namespace trainscope
