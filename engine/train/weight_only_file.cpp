// SPDX-License-Identifier: Apache-2.0
#include "engine/train/weight_only_file.h"

#include "engine/core/byte_order.h"

namespace trainscope {

namespace le = little_endian;

Status ReadWeightOnlyFile(const Model& model, const uint8_t* bytes, size_t size,
                          WeightOnlyFile* out) {
  constexpr size_t kHeaderBytes = 8;
  if (model.graph().subgraphs.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, "weight-only file: the model is empty");
  }
  if (bytes == nullptr || size < kHeaderBytes) {
    return Status::Error(StatusCode::kInvalidFile,
                         "weight-only file: %zu bytes; the header alone needs %zu", size,
                         kHeaderBytes);
  }
  const uint16_t magic = le::LoadU16(bytes);
  if (magic != kWeightOnlyMagic) {
    return Status::Error(StatusCode::kInvalidFile,
                         "weight-only file: magic at byte 0 is %u; expected %u", magic,
                         kWeightOnlyMagic);
  }
  if (bytes[2] != kWeightOnlyVersion) {
    return Status::Error(StatusCode::kInvalidFile,
                         "weight-only file: schema version at byte 2 is %u; only version %u is "
                         "known",
                         bytes[2], kWeightOnlyVersion);
  }
  const Subgraph& subgraph = model.graph().main();
  const uint32_t count = le::LoadU32(bytes + 4);
  if (count != subgraph.tensors.size()) {
    return Status::Error(StatusCode::kInvalidFile,
                         "weight-only file: tensor count at byte 4 is %u; the model's subgraph 0 "
                         "has %zu tensors",
                         static_cast<unsigned>(count), subgraph.tensors.size());
  }
  const uint64_t table_end = kHeaderBytes + uint64_t{4} * count;
  if (table_end > size) {
    return Status::Error(StatusCode::kInvalidFile,
                         "weight-only file: the offset table (%u entries at byte 8) ends at byte "
                         "%llu, past the end of the %zu-byte file",
                         static_cast<unsigned>(count), static_cast<unsigned long long>(table_end),
                         size);
  }
  WeightOnlyFile result;
  result.tensor_count = count;
  for (uint32_t k = 0; k < count; ++k) {
    const size_t entry = kHeaderBytes + size_t{4} * k;
    const uint32_t offset = le::LoadU32(bytes + entry);
    if (offset == 0) continue;
    const Tensor& tensor = subgraph.tensors[k];
    if (offset < table_end || offset > size || tensor.bytes > size - offset) {
      return Status::Error(StatusCode::kInvalidFile,
                           "weight-only file: offset of tensor %u '%s' (byte %zu) is %u; its %zu "
                           "bytes do not fit between the table end (byte %llu) and the end of the "
                           "%zu-byte file",
                           static_cast<unsigned>(k), tensor.name.c_str(), entry,
                           static_cast<unsigned>(offset), tensor.bytes,
                           static_cast<unsigned long long>(table_end), size);
    }
    result.tensors.push_back(WeightOnlyTensor{static_cast<int32_t>(k), offset, tensor.bytes});
  }
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace trainscope
