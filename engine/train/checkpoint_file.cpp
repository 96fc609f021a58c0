// SPDX-License-Identifier: Apache-2.0
#include "engine/train/checkpoint_file.h"

#include <cmath>
#include <limits>
#include <string>

#include "engine/core/byte_order.h"

namespace trainscope {
namespace {

namespace le = little_endian;

constexpr size_t kBytesPerElement = 4;  // the format has no element type: float32 only
constexpr size_t kFooterBytes = 8;

std::string TensorLabel(const Subgraph& subgraph, int32_t index) {
  std::string label = "tensor " + std::to_string(index);
  if (index >= 0 && static_cast<size_t>(index) < subgraph.tensors.size()) {
    label += " '" + subgraph.tensors[static_cast<size_t>(index)].name + "'";
  }
  return label;
}

// A default-constructed Model has no bytes and no subgraph; everything below needs subgraph 0.
Status RequireSubgraph(const Model& model) {
  if (model.graph().subgraphs.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, "checkpoint: the model has no subgraph");
  }
  return Status::Ok();
}

size_t StoredBytes(const Tensor& tensor) {
  return tensor.element_count() * kBytesPerElement;
}

uint64_t SumStoredBytes(const Subgraph& subgraph, const std::vector<int32_t>& ids) {
  uint64_t sum = 0;
  for (int32_t id : ids) sum += StoredBytes(subgraph.tensors[static_cast<size_t>(id)]);
  return sum;
}

// One of the three sections (weights, Adam m, Adam v): an offset table of N entries and the
// concatenated tensor bytes that follow it.
struct Section {
  const char* name;
  uint64_t table;       // byte offset of the offset table
  uint64_t data_begin;  // == table + 4N
  uint64_t data_end;
};

Status CheckSectionBounds(const Section& s, uint64_t expected_bytes) {
  if (s.data_end < s.data_begin) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: the %s offset table at byte %llu ends at byte %llu, after "
                         "the next section starts (byte %llu)",
                         s.name, static_cast<unsigned long long>(s.table),
                         static_cast<unsigned long long>(s.data_begin),
                         static_cast<unsigned long long>(s.data_end));
  }
  if (s.data_end - s.data_begin != expected_bytes) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: the %s section at byte %llu holds %llu bytes; the model's "
                         "stored tensors need %llu (checkpoint of another model or another "
                         "number of trained layers?)",
                         s.name, static_cast<unsigned long long>(s.data_begin),
                         static_cast<unsigned long long>(s.data_end - s.data_begin),
                         static_cast<unsigned long long>(expected_bytes));
  }
  return Status::Ok();
}

Status ReadSectionTensor(const uint8_t* bytes, const Section& s, const Subgraph& subgraph,
                         int32_t id, std::vector<float>* values) {
  const uint64_t entry = s.table + kBytesPerElement * static_cast<uint64_t>(id);
  const uint64_t offset = le::LoadU32(bytes + entry);
  const Tensor& tensor = subgraph.tensors[static_cast<size_t>(id)];
  const uint64_t length = StoredBytes(tensor);
  if (offset == 0) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: %s offset of %s (byte %llu) is 0, but the model stores "
                         "this tensor",
                         s.name, TensorLabel(subgraph, id).c_str(),
                         static_cast<unsigned long long>(entry));
  }
  if (offset < s.data_begin || offset > s.data_end || length > s.data_end - offset) {
    return Status::Error(
        StatusCode::kInvalidFile,
        "checkpoint: %s offset of %s (byte %llu) is %llu; its %llu bytes do not "
        "fit in the %s section [%llu, %llu)",
        s.name, TensorLabel(subgraph, id).c_str(), static_cast<unsigned long long>(entry),
        static_cast<unsigned long long>(offset), static_cast<unsigned long long>(length), s.name,
        static_cast<unsigned long long>(s.data_begin), static_cast<unsigned long long>(s.data_end));
  }
  values->resize(tensor.element_count());
  for (size_t i = 0; i < values->size(); ++i) {
    const float value = le::LoadF32(bytes + offset + kBytesPerElement * i);
    // A NaN or Inf would train silently into NaN everywhere: refused where it stands.
    if (!std::isfinite(value)) {
      return Status::Error(StatusCode::kInvalidFile,
                           "checkpoint: %s value %zu of %s is %s; a checkpoint holds finite "
                           "numbers",
                           s.name, i, TensorLabel(subgraph, id).c_str(),
                           std::isnan(value) ? "NaN" : "Inf");
    }
    (*values)[i] = value;
  }
  return Status::Ok();
}

Status CheckDataMatchesModel(const Subgraph& subgraph, const std::vector<int32_t>& ids,
                             const CheckpointData& data) {
  if (data.tensors.size() != ids.size()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "checkpoint: %zu tensors given; the model stores %zu", data.tensors.size(),
                         ids.size());
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const CheckpointTensor& t = data.tensors[i];
    if (t.tensor != ids[i]) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "checkpoint: entry %zu is tensor %d; the model stores %s there", i,
                           static_cast<int>(t.tensor), TensorLabel(subgraph, ids[i]).c_str());
    }
    const size_t count = subgraph.tensors[static_cast<size_t>(ids[i])].element_count();
    const bool state_ok =
        !data.has_adam_state || (t.adam_m.size() == count && t.adam_v.size() == count);
    if (t.weights.size() != count || !state_ok) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "checkpoint: %s has %zu elements, but %zu weights, %zu m and %zu v "
                           "values were given",
                           TensorLabel(subgraph, ids[i]).c_str(), count, t.weights.size(),
                           t.adam_m.size(), t.adam_v.size());
    }
  }
  return Status::Ok();
}

}  // namespace

Status ListCheckpointTensors(const Subgraph& subgraph, uint32_t num_train_layers,
                             std::vector<int32_t>* tensors) {
  const size_t op_count = subgraph.operators.size();
  const size_t layers =
      num_train_layers == 0 || num_train_layers > op_count ? op_count : num_train_layers;
  std::vector<int32_t> result;
  std::vector<bool> seen(subgraph.tensors.size(), false);
  for (size_t step = 0; step < layers; ++step) {
    const size_t k = op_count - 1 - step;
    const Operator& op = subgraph.operators[k];
    if (op.opcode != op::kFullyConnected && op.opcode != op::kConv2D) continue;
    for (size_t j = 0; j < op.inputs.size(); ++j) {
      const int32_t id = op.inputs[j];
      if (id < 0 || static_cast<size_t>(id) >= subgraph.tensors.size()) continue;
      const Tensor& tensor = subgraph.tensors[static_cast<size_t>(id)];
      if (!tensor.constant || seen[static_cast<size_t>(id)]) continue;
      if (tensor.type != ElementType::kFloat32) {
        return Status::Error(StatusCode::kUnsupported,
                             "checkpoint: operator %zu (%s) input %zu, %s, is %s; checkpoints "
                             "store FLOAT32 tensors only",
                             k, OpcodeName(op.opcode), j, TensorLabel(subgraph, id).c_str(),
                             ElementTypeName(tensor.type));
      }
      seen[static_cast<size_t>(id)] = true;
      result.push_back(id);
    }
  }
  *tensors = std::move(result);
  return Status::Ok();
}

Status CaptureCheckpoint(const Model& model, const CheckpointConfig& config, CheckpointData* data) {
  TS_RETURN_IF_ERROR(RequireSubgraph(model));
  const Subgraph& subgraph = model.graph().main();
  std::vector<int32_t> ids;
  TS_RETURN_IF_ERROR(ListCheckpointTensors(subgraph, config.num_train_layers, &ids));
  CheckpointData result;
  for (int32_t id : ids) {
    const Tensor& tensor = subgraph.tensors[static_cast<size_t>(id)];
    const uint8_t* source = model.ConstantData(tensor);
    CheckpointTensor entry;
    entry.tensor = id;
    entry.weights.resize(tensor.element_count());
    for (size_t i = 0; i < entry.weights.size(); ++i) {
      entry.weights[i] = le::LoadF32(source + kBytesPerElement * i);
    }
    result.tensors.push_back(std::move(entry));
  }
  *data = std::move(result);
  return Status::Ok();
}

Status ApplyCheckpointWeights(const CheckpointData& data, Model* model) {
  TS_RETURN_IF_ERROR(RequireSubgraph(*model));
  const Subgraph& subgraph = model->graph().main();
  for (const CheckpointTensor& entry : data.tensors) {
    if (entry.tensor < 0 || static_cast<size_t>(entry.tensor) >= subgraph.tensors.size()) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "checkpoint: tensor %d does not exist (the model has %zu)",
                           static_cast<int>(entry.tensor), subgraph.tensors.size());
    }
    const Tensor& tensor = subgraph.tensors[static_cast<size_t>(entry.tensor)];
    if (!tensor.constant || tensor.type != ElementType::kFloat32 ||
        tensor.element_count() != entry.weights.size()) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "checkpoint: %s is not a constant FLOAT32 tensor of %zu elements",
                           TensorLabel(subgraph, entry.tensor).c_str(), entry.weights.size());
    }
    uint8_t* target = model->MutableConstantData(tensor);
    for (size_t i = 0; i < entry.weights.size(); ++i) {
      le::StoreF32(entry.weights[i], target + kBytesPerElement * i);
    }
  }
  return Status::Ok();
}

Status WriteCheckpoint(const Model& model, const CheckpointConfig& config,
                       const CheckpointData& data, std::vector<uint8_t>* out) {
  TS_RETURN_IF_ERROR(RequireSubgraph(model));
  const Subgraph& subgraph = model.graph().main();
  std::vector<int32_t> ids;
  TS_RETURN_IF_ERROR(ListCheckpointTensors(subgraph, config.num_train_layers, &ids));
  TS_RETURN_IF_ERROR(CheckDataMatchesModel(subgraph, ids, data));
  if (data.has_adam_state && config.optimizer != OptimizerKind::kAdam) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "checkpoint: Adam state given for a %s checkpoint",
                         OptimizerName(config.optimizer));
  }
  const uint64_t n = subgraph.tensors.size();
  const uint64_t table_bytes = kBytesPerElement * n;
  const uint64_t stored = SumStoredBytes(subgraph, ids);
  const uint64_t weights_end = kCheckpointHeaderBytes + table_bytes + stored;
  const uint64_t m_offset = data.has_adam_state ? weights_end : 0;
  const uint64_t v_offset = data.has_adam_state ? m_offset + table_bytes + stored : 0;
  const uint64_t other_offset = data.has_adam_state ? v_offset + table_bytes + stored : weights_end;
  if (other_offset + kFooterBytes > std::numeric_limits<uint32_t>::max()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "checkpoint: %llu bytes exceed the format's 32-bit offsets",
                         static_cast<unsigned long long>(other_offset + kFooterBytes));
  }
  std::vector<uint8_t> file(static_cast<size_t>(other_offset + kFooterBytes), 0);
  le::StoreU16(kCheckpointMagic, &file[0]);
  file[2] = kCheckpointVersion;
  le::StoreU32(static_cast<uint32_t>(m_offset), &file[4]);
  le::StoreU32(static_cast<uint32_t>(v_offset), &file[8]);
  le::StoreU32(static_cast<uint32_t>(other_offset), &file[12]);
  le::StoreU32(static_cast<uint32_t>(n), &file[16]);

  auto write_section = [&](uint64_t table, std::vector<float> CheckpointTensor::*member) {
    uint64_t position = table + table_bytes;
    for (const CheckpointTensor& entry : data.tensors) {
      le::StoreU32(static_cast<uint32_t>(position),
                   &file[static_cast<size_t>(table + kBytesPerElement *
                                                         static_cast<uint64_t>(entry.tensor))]);
      for (float value : entry.*member) {
        le::StoreF32(value, &file[static_cast<size_t>(position)]);
        position += kBytesPerElement;
      }
    }
  };
  write_section(kCheckpointHeaderBytes, &CheckpointTensor::weights);
  if (data.has_adam_state) {
    write_section(m_offset, &CheckpointTensor::adam_m);
    write_section(v_offset, &CheckpointTensor::adam_v);
  }
  // Every offset is below file.size(), which was allocated as a size_t above.
  le::StoreU32(data.num_step, &file[static_cast<size_t>(other_offset)]);
  le::StoreU32(data.num_epoch, &file[static_cast<size_t>(other_offset + 4)]);
  *out = std::move(file);
  return Status::Ok();
}

Status ReadCheckpoint(const Model& model, const CheckpointConfig& config, const uint8_t* bytes,
                      size_t size, CheckpointData* data) {
  TS_RETURN_IF_ERROR(RequireSubgraph(model));
  if (bytes == nullptr || size < kCheckpointHeaderBytes) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: the file is %zu bytes; the header alone needs %zu", size,
                         kCheckpointHeaderBytes);
  }
  CheckpointHeader h;
  h.magic = le::LoadU16(bytes);
  h.version = bytes[2];
  h.m_offset = le::LoadU32(bytes + 4);
  h.v_offset = le::LoadU32(bytes + 8);
  h.other_offset = le::LoadU32(bytes + 12);
  h.tensor_count = le::LoadU32(bytes + 16);
  if (h.magic != kCheckpointMagic) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: magic at byte 0 is %u; expected %u (not a checkpoint file)",
                         h.magic, kCheckpointMagic);
  }
  if (h.version != kCheckpointVersion) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: schema version at byte 2 is %u; only version %u is known",
                         h.version, kCheckpointVersion);
  }
  const Subgraph& subgraph = model.graph().main();
  if (h.tensor_count != subgraph.tensors.size()) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: tensor count at byte 16 is %u; the model's subgraph 0 has "
                         "%zu tensors",
                         static_cast<unsigned>(h.tensor_count), subgraph.tensors.size());
  }
  const uint64_t table_bytes = kBytesPerElement * static_cast<uint64_t>(h.tensor_count);
  const uint64_t table_end = kCheckpointHeaderBytes + table_bytes;
  if (table_end > size) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: the weight offset table (byte 20, %u entries) ends at byte "
                         "%llu, past the end of the %zu-byte file",
                         static_cast<unsigned>(h.tensor_count),
                         static_cast<unsigned long long>(table_end), size);
  }
  if (h.other_offset == 0 || uint64_t{h.other_offset} + kFooterBytes != size) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: other_offset at byte 12 is %u; the 8-byte footer must end "
                         "the %zu-byte file (truncated or trailing bytes?)",
                         static_cast<unsigned>(h.other_offset), size);
  }
  if (config.optimizer != OptimizerKind::kAdam && (h.m_offset != 0 || h.v_offset != 0)) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: m_offset (byte 4) is %u and v_offset (byte 8) is %u; a %s "
                         "checkpoint holds no Adam state, both must be 0",
                         static_cast<unsigned>(h.m_offset), static_cast<unsigned>(h.v_offset),
                         OptimizerName(config.optimizer));
  }
  if ((h.m_offset == 0) != (h.v_offset == 0)) {
    return Status::Error(StatusCode::kInvalidFile,
                         "checkpoint: m_offset (byte 4) is %u but v_offset (byte 8) is %u; Adam "
                         "state needs both or neither",
                         static_cast<unsigned>(h.m_offset), static_cast<unsigned>(h.v_offset));
  }
  const bool has_adam_state = h.m_offset != 0;
  std::vector<int32_t> ids;
  TS_RETURN_IF_ERROR(ListCheckpointTensors(subgraph, config.num_train_layers, &ids));
  const uint64_t stored = SumStoredBytes(subgraph, ids);

  Section sections[3] = {
      {"weight", kCheckpointHeaderBytes, table_end,
       has_adam_state ? uint64_t{h.m_offset} : uint64_t{h.other_offset}},
      {"Adam m", h.m_offset, h.m_offset + table_bytes, h.v_offset},
      {"Adam v", h.v_offset, h.v_offset + table_bytes, h.other_offset},
  };
  const int section_count = has_adam_state ? 3 : 1;
  for (int s = 0; s < section_count; ++s) {
    // Each section ends where the next table starts, so these checks chain the whole layout.
    TS_RETURN_IF_ERROR(CheckSectionBounds(sections[s], stored));
  }

  CheckpointData result;
  result.has_adam_state = has_adam_state;
  result.header = h;
  for (int32_t id : ids) {
    CheckpointTensor entry;
    entry.tensor = id;
    TS_RETURN_IF_ERROR(ReadSectionTensor(bytes, sections[0], subgraph, id, &entry.weights));
    if (has_adam_state) {
      TS_RETURN_IF_ERROR(ReadSectionTensor(bytes, sections[1], subgraph, id, &entry.adam_m));
      TS_RETURN_IF_ERROR(ReadSectionTensor(bytes, sections[2], subgraph, id, &entry.adam_v));
    }
    result.tensors.push_back(std::move(entry));
  }
  result.num_step = le::LoadU32(bytes + h.other_offset);
  result.num_epoch = le::LoadU32(bytes + h.other_offset + 4);
  *data = std::move(result);
  return Status::Ok();
}

}  // namespace trainscope
