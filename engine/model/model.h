// SPDX-License-Identifier: Apache-2.0
//
// Model: the bytes of a .circle or .tflite file together with the Graph read from them.
//
// Reading never trusts the file: the flatbuffer is verified first, then every index, shape and
// size is checked (see graph.h for what holds afterwards). Errors come back as a Status whose
// message says what is wrong and where; nothing is thrown and nothing crashes on bad input.
//
//   Model model;
//   Status status = ReadModelFile("net.circle", &model);
//   if (status.ok()) Use(model.graph());
//
// The Model owns its bytes; a trained model is saved by writing mutable_bytes() after the
// weights in it were updated (constant tensors keep their size, so the layout never changes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/file_io.h"
#include "engine/model/graph.h"

namespace trainscope {

class Model {
 public:
  // Verifies `bytes` and builds the graph. On failure `out` is left unchanged.
  static Status FromBytes(std::vector<uint8_t> bytes, Model* out);

  const Graph& graph() const { return graph_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t>& mutable_bytes() { return bytes_; }

  // Bytes of a constant tensor (nullptr for a non-constant one).
  const uint8_t* ConstantData(const Tensor& tensor) const;
  uint8_t* MutableConstantData(const Tensor& tensor);
  // Contents of a metadata entry's buffer.
  const uint8_t* MetadataData(const MetadataEntry& entry) const;

 private:
  std::vector<uint8_t> bytes_;
  Graph graph_;
};

// Verifies and decodes model bytes into a Graph (the work behind Model::FromBytes).
Status ReadGraph(const uint8_t* data, size_t size, Graph* graph);

// Host-side convenience: reads a whole file (at most kMaxModelFileBytes) and calls FromBytes.
inline constexpr size_t kMaxModelFileBytes = size_t{1} << 31;
Status ReadModelFile(const std::string& path, Model* out);

}  // namespace trainscope
