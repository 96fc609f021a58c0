// SPDX-License-Identifier: Apache-2.0
//
// The onert-micro train-config blob (research/onert-micro-training.md §6.4), read and written
// byte-exactly. Layout, little-endian, no padding:
//
//   offset 0      u16  magic 29
//   offset 2      u8   schema version 1
//   offset 3      u8   reserved (written as 0, not checked when read)
//   offset 4      u32  N, the number of entries
//   offset 8      u16 x N  operator indices
//   offset 8+2N   u8  x N  ranks (TrainRank codes), same order as the indices
//
// Total size 8 + 3N. A duplicated operator index keeps its last rank, as onert-micro does.
// The writer emits the entries sorted by operator index.
//
//   std::map<uint16_t, TrainRank> ranks;
//   Status s = ReadTrainConfig(bytes.data(), bytes.size(), graph.main().operators.size(), &ranks);
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/events.h"
#include "engine/core/status.h"

namespace trainscope {

inline constexpr uint16_t kTrainConfigMagic = 29;
inline constexpr uint8_t kTrainConfigVersion = 1;
inline constexpr size_t kTrainConfigHeaderBytes = 8;

// Every failure is StatusCode::kInvalidFile with a message naming the field and byte offset.
// `op_ranks` is replaced only on success.
Status ReadTrainConfig(const uint8_t* data, size_t size, size_t operator_count,
                       std::map<uint16_t, TrainRank>* op_ranks);

// kInvalidArgument for an empty map (onert-micro refuses N = 0) or a rank outside 0..3.
Status WriteTrainConfig(const std::map<uint16_t, TrainRank>& op_ranks, std::vector<uint8_t>* out);

// Host-side conveniences; errors name the path.
Status ReadTrainConfigFile(const std::string& path, size_t operator_count,
                           std::map<uint16_t, TrainRank>* op_ranks);
Status WriteTrainConfigFile(const std::string& path, const std::map<uint16_t, TrainRank>& op_ranks);

}  // namespace trainscope
