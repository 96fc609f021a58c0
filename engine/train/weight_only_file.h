// SPDX-License-Identifier: Apache-2.0
//
// onert-micro's weight-only format (WOF, OMWeightOnlyFormatReader): constant tensor data kept
// outside a weight-less circle file. Little-endian and packed:
//
//   0  u16 magic 429      4  u32 N = tensor count of subgraph 0
//   2  u8  version 1      8  N x u32 offset of tensor k's data from the file start (0 = none)
//   3  u8  reserved       .. raw tensor bytes
//
// The file carries no sizes: a tensor's byte count comes from its shape and type in the model
// (Tensor::bytes). The reader checks magic, version, N against the model and that every
// non-zero offset lies past the table with the tensor's bytes inside the file; failures are
// StatusCode::kInvalidFile naming the field and its byte offset. It only describes where the data
// is; the bytes stay in the caller's buffer.
//
//   WeightOnlyFile wof;
//   TS_RETURN_IF_ERROR(ReadWeightOnlyFile(model, bytes.data(), bytes.size(), &wof));
//   for (const WeightOnlyTensor& t : wof.tensors) Use(bytes.data() + t.offset, t.bytes);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/model.h"

namespace trainscope {

inline constexpr uint16_t kWeightOnlyMagic = 429;
inline constexpr uint8_t kWeightOnlyVersion = 1;

struct WeightOnlyTensor {
  int32_t tensor = -1;  // index in subgraph 0
  uint32_t offset = 0;  // from the file start
  size_t bytes = 0;     // implied by the model's shape and type
};

struct WeightOnlyFile {
  uint32_t tensor_count = 0;
  std::vector<WeightOnlyTensor> tensors;  // tensors with data, in index order
};

// On failure `out` is left unchanged.
Status ReadWeightOnlyFile(const Model& model, const uint8_t* bytes, size_t size,
                          WeightOnlyFile* out);

}  // namespace trainscope
