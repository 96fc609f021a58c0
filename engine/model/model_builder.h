// SPDX-License-Identifier: Apache-2.0
//
// ModelBuilder: writes valid .circle (or .tflite) files programmatically. Tests and the bundled
// demo model use it; it writes the options table each op expects (OpOptions fields the op uses)
// and 16-byte aligned constant buffers, with buffer 0 kept as the empty sentinel.
//
//   ModelBuilder b;
//   int x = b.AddTensor("x", {1, 4});
//   int w = b.AddConstant("w", {2, 4}, weights);
//   int y = b.AddTensor("y", {1, 2});
//   b.AddOperator(op::kFullyConnected, {x, w, -1}, {y});
//   b.SetInputs({x});
//   b.SetOutputs({y});
//   std::vector<uint8_t> bytes;
//   Status s = b.Finish(&bytes);  // re-reads the result, so a bad model never leaves the builder
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/graph.h"

namespace trainscope {

class ModelBuilder {
 public:
  explicit ModelBuilder(ModelFormat format = ModelFormat::kCircle) : format_(format) {}

  int AddTensor(const std::string& name, std::vector<int32_t> shape,
                ElementType type = ElementType::kFloat32);
  // A FLOAT32 variable without bytes, as converters write the state of a recurrent op.
  int AddVariable(const std::string& name, std::vector<int32_t> shape);
  int AddConstant(const std::string& name, std::vector<int32_t> shape,
                  const std::vector<float>& values);
  int AddConstantInt32(const std::string& name, std::vector<int32_t> shape,
                       const std::vector<int32_t>& values);
  int AddConstantBytes(const std::string& name, std::vector<int32_t> shape, ElementType type,
                       std::vector<uint8_t> bytes);
  // A constant that stores no bytes of its own but uses the buffer of `tensor` (luci shares the
  // buffer of identical constants this way).
  int AddConstantSharingBuffer(const std::string& name, int tensor);

  int AddOperator(int32_t opcode, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                  const OpOptions& options = {});
  // A CUSTOM operator (no options) identified by its custom_code, e.g. "BroadcastTo".
  int AddCustomOperator(const std::string& custom_code, std::vector<int32_t> inputs,
                        std::vector<int32_t> outputs);
  void SetInputs(std::vector<int32_t> inputs) { inputs_ = std::move(inputs); }
  void SetOutputs(std::vector<int32_t> outputs) { outputs_ = std::move(outputs); }
  void SetSubgraphName(std::string name) { subgraph_name_ = std::move(name); }
  void SetDescription(std::string description) { description_ = std::move(description); }
  void AddMetadata(const std::string& name, std::vector<uint8_t> bytes);

  const std::vector<int32_t>& shape(int tensor) const { return tensors_[tensor].shape; }

  Status Finish(std::vector<uint8_t>* out) const;

 private:
  struct PendingTensor {
    std::string name;
    std::vector<int32_t> shape;
    ElementType type;
    uint32_t buffer;
    bool is_variable = false;
  };
  struct PendingOperator {
    int32_t opcode;
    std::vector<int32_t> inputs;
    std::vector<int32_t> outputs;
    OpOptions options;
    std::string custom_code;  // CUSTOM operators only
  };

  uint32_t AddBuffer(std::vector<uint8_t> bytes);

  ModelFormat format_;
  std::string subgraph_name_ = "main";
  std::string description_ = "TrainScope ModelBuilder";
  std::vector<PendingTensor> tensors_;
  std::vector<PendingOperator> operators_;
  std::vector<std::vector<uint8_t>> buffers_{std::vector<uint8_t>()};  // 0: empty sentinel
  std::vector<std::pair<std::string, uint32_t>> metadata_;
  std::vector<int32_t> inputs_;
  std::vector<int32_t> outputs_;
};

}  // namespace trainscope
