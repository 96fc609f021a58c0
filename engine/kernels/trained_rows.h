// SPDX-License-Identifier: Apache-2.0
//
// Which rows (dim 0: output features / output channels) of a weight tensor train for a
// TrainRank, with onert-micro's half boundary floor(d0 / 2):
//   kAll       -> [0, d0)
//   kUpperHalf -> [0, d0/2)
//   kLowerHalf -> [d0/2, d0)
//   kOnlyBias  -> empty (no weight gradient at all)
// A compact weight-gradient buffer holds exactly count() rows; row r of the buffer is row
// begin + r of the weights.
#pragma once

#include <cstdint>

#include "engine/core/events.h"

namespace trainscope {

struct RowRange {
  int32_t begin = 0;
  int32_t end = 0;  // exclusive
  int32_t count() const { return end - begin; }
  bool empty() const { return end <= begin; }
};

inline RowRange TrainedRows(TrainRank rank, int32_t d0) {
  if (d0 < 0) d0 = 0;
  switch (rank) {
    case TrainRank::kAll:
      return {0, d0};
    case TrainRank::kOnlyBias:
      return {0, 0};
    case TrainRank::kUpperHalf:
      return {0, d0 / 2};
    case TrainRank::kLowerHalf:
      return {d0 / 2, d0};
  }
  return {0, 0};
}

}  // namespace trainscope
