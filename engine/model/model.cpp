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

Status ReadFileBytes(const std::string& path, size_t max_bytes, std::vector<uint8_t>* out) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::Error(StatusCode::kIoError, "cannot open '%s': %s", path.c_str(),
                         std::strerror(errno));
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t read = 0;
  while ((read = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    if (bytes.size() + read > max_bytes) {
      std::fclose(file);
      return Status::Error(StatusCode::kInvalidFile, "'%s' is larger than %zu bytes",
                           path.c_str(), max_bytes);
    }
    bytes.insert(bytes.end(), chunk, chunk + read);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) {
    return Status::Error(StatusCode::kIoError, "cannot read '%s'", path.c_str());
  }
  *out = std::move(bytes);
  return Status::Ok();
}

Status ReadModelFile(const std::string& path, Model* out) {
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(ReadFileBytes(path, kMaxModelFileBytes - 1, &bytes));
  Status status = Model::FromBytes(std::move(bytes), out);
  return status.Prepend(path);
}

}  // namespace trainscope
