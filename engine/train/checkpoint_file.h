// SPDX-License-Identifier: Apache-2.0
//
// onert-micro checkpoint files (OMCheckpointSaver / OMCheckpointLoader), written and read byte
// for byte. Little-endian and packed; offsets are absolute, N = tensor count of subgraph 0:
//
//   0   u16 magic 429            12  u32 other_offset (footer)
//   2   u8  version 1            16  u32 N
//   3   u8  reserved 0           20  N x u32 weight offset per tensor index (0 = not stored)
//   4   u32 m_offset (0 = none)  ..  weight bytes (S), stored tensors in walk order
//   8   u32 v_offset (0 = none)
//   m_offset: N x u32 + S bytes of Adam m;  v_offset: N x u32 + S bytes of Adam v
//   other_offset: u32 num_step, u32 num_epoch
//
// Stored tensors: walk the last num_train_layers operators (0 = all) from the last to the first;
// for every FULLY_CONNECTED and CONV_2D, each constant input in input order (weights, bias).
// A tensor used by two such operators is stored once (onert-micro's walk visits it twice).
//
// Adam state is full-size per tensor in the file. When a half rank trains only some rows the
// caller expands its compact m/v to full size (zeros on untrained rows) before writing; onert-micro
// instead over-reads its half-size buffers there.
//
// The reader trusts nothing: magic, version, N against the model, every offset and section inside
// the file, section sizes equal to the model's tensor sizes, SGD without Adam sections. Failures
// are StatusCode::kInvalidFile naming the field and its byte offset.
//
//   CheckpointData data;
//   TS_RETURN_IF_ERROR(CaptureCheckpoint(model, config, &data));
//   data.num_step = 12;
//   std::vector<uint8_t> file;
//   TS_RETURN_IF_ERROR(WriteCheckpoint(model, config, data, &file));
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/model/model.h"

namespace trainscope {

inline constexpr uint16_t kCheckpointMagic = 429;
inline constexpr uint8_t kCheckpointVersion = 1;
inline constexpr size_t kCheckpointHeaderBytes = 20;

struct CheckpointConfig {
  OptimizerKind optimizer = OptimizerKind::kSgd;
  uint32_t num_train_layers = 0;  // onert-micro's convention: 0 = all operators
};

struct CheckpointTensor {
  int32_t tensor = -1;  // index in subgraph 0
  std::vector<float> weights;
  std::vector<float> adam_m;  // empty unless CheckpointData::has_adam_state
  std::vector<float> adam_v;
};

// The fixed header fields as found in (or written to) a file, for display.
struct CheckpointHeader {
  uint16_t magic = 0;
  uint8_t version = 0;
  uint32_t m_offset = 0;
  uint32_t v_offset = 0;
  uint32_t other_offset = 0;
  uint32_t tensor_count = 0;
};

struct CheckpointData {
  std::vector<CheckpointTensor> tensors;  // exactly the stored tensors, in walk order
  bool has_adam_state = false;
  uint32_t num_step = 0;
  uint32_t num_epoch = 0;
  CheckpointHeader header;  // filled by ReadCheckpoint; ignored by WriteCheckpoint
};

// The tensor indices a checkpoint stores for this subgraph, in file order. kUnsupported for a
// stored tensor that is not FLOAT32 (the format has no element type).
Status ListCheckpointTensors(const Subgraph& subgraph, uint32_t num_train_layers,
                             std::vector<int32_t>* tensors);

// Fills `data` with the model's current weights (no Adam state, step and epoch 0).
Status CaptureCheckpoint(const Model& model, const CheckpointConfig& config, CheckpointData* data);
// Copies the weights of `data` into the model's constant buffers (sizes are checked again).
Status ApplyCheckpointWeights(const CheckpointData& data, Model* model);

// kInvalidArgument when `data` does not hold exactly the tensors ListCheckpointTensors names with
// the model's sizes, or holds Adam state for SGD.
Status WriteCheckpoint(const Model& model, const CheckpointConfig& config,
                       const CheckpointData& data, std::vector<uint8_t>* out);
// On failure `data` is left unchanged.
Status ReadCheckpoint(const Model& model, const CheckpointConfig& config, const uint8_t* bytes,
                      size_t size, CheckpointData* data);

}  // namespace trainscope
