// SPDX-License-Identifier: Apache-2.0
#include "engine/model/model.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace trainscope {

Status Model::FromBytes(std::vector<uint8_t> bytes, Model* out) {
  Graph graph;
  TS_RETURN_IF_ERROR(ReadGraph(bytes.data(), bytes.size(), &graph));
  out->bytes_ = std::move(bytes);
  out->graph_ = std::move(graph);
  return Status::Ok();
}

const uint8_t* Model::ConstantData(const Tensor& tensor) const {
  return tensor.constant ? bytes_.data() + tensor.data_offset : nullptr;
}

uint8_t* Model::MutableConstantData(const Tensor& tensor) {
  return tensor.constant ? bytes_.data() + tensor.data_offset : nullptr;
}

const uint8_t* Model::MetadataData(const MetadataEntry& entry) const {
  return entry.size > 0 ? bytes_.data() + entry.data_offset : nullptr;
}

Status ReadModelFile(const std::string& path, Model* out) {
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(ReadFileBytes(path, kMaxModelFileBytes - 1, &bytes));
  Status status = Model::FromBytes(std::move(bytes), out);
  return status.Prepend(path);
}

}  // namespace trainscope
