// SPDX-License-Identifier: Apache-2.0
#include "tests/engine/kernels/kernel_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "engine/kernels/kernel.h"
#include "engine/kernels/reference_runner.h"

namespace trainscope::testing {

bool BuildModel(const ModelBuilder& builder, Model* model) {
  std::vector<uint8_t> bytes;
  Status status = builder.Finish(&bytes);
  if (status.ok()) status = Model::FromBytes(std::move(bytes), model);
  if (!status.ok()) ADD_FAILURE() << "building the test model failed: " << status.message();
  return status.ok();
}

Status TryRun(const ModelBuilder& builder, const std::vector<std::vector<float>>& inputs) {
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(builder.Finish(&bytes));
  Model model;
  TS_RETURN_IF_ERROR(Model::FromBytes(std::move(bytes), &model));
  std::vector<std::vector<float>> outputs;
  return RunForward(model, inputs, &outputs);
}

std::vector<float> RunSingleOutput(const ModelBuilder& builder,
                                   const std::vector<std::vector<float>>& inputs) {
  Model model;
  if (!BuildModel(builder, &model)) return {};
  std::vector<std::vector<float>> outputs;
  const Status status = RunForward(model, inputs, &outputs);
  if (!status.ok()) {
    ADD_FAILURE() << "RunForward failed: " << status.message();
    return {};
  }
  return outputs.empty() ? std::vector<float>() : outputs[0];
}

Status KernelHarness::Load(const ModelBuilder& builder) {
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(builder.Finish(&bytes));
  TS_RETURN_IF_ERROR(Model::FromBytes(std::move(bytes), &model_));
  TS_RETURN_IF_ERROR(CheckRunnable(subgraph()));
  const std::vector<Tensor>& tensors = subgraph().tensors;
  storage_.assign(tensors.size(), {});
  data_.assign(tensors.size(), nullptr);
  for (size_t t = 0; t < tensors.size(); ++t) {
    storage_[t].assign((tensors[t].bytes + sizeof(float) - 1) / sizeof(float), 0.0f);
    if (tensors[t].constant) {
      std::memcpy(storage_[t].data(), model_.ConstantData(tensors[t]), tensors[t].bytes);
    }
    data_[t] = storage_[t].empty() ? nullptr : storage_[t].data();
  }
  return Status::Ok();
}

void KernelHarness::Set(int tensor, const std::vector<float>& values) {
  std::vector<float>& buffer = Values(tensor);
  if (buffer.size() != values.size()) {
    ADD_FAILURE() << "tensor " << tensor << " holds " << buffer.size() << " floats, got "
                  << values.size();
    return;
  }
  std::copy(values.begin(), values.end(), buffer.begin());
}

Status KernelHarness::Forward() {
  const Subgraph& graph = subgraph();
  for (size_t k = 0; k < graph.operators.size(); ++k) {
    KernelIo io;
    io.subgraph = &graph;
    io.op = &graph.operators[k];
    io.op_index = static_cast<uint32_t>(k);
    io.tensor_data = data_.data();
    TS_RETURN_IF_ERROR(FindRegistration(io.op->opcode)->eval(io));
  }
  return Status::Ok();
}

Status KernelHarness::Backward(uint32_t k, const std::map<int, std::vector<float>*>& buffers,
                               const BackwardCall& call) {
  const Subgraph& graph = subgraph();
  std::vector<float*> gradients(graph.tensors.size(), nullptr);
  for (const auto& [tensor, buffer] : buffers) {
    gradients[static_cast<size_t>(tensor)] = buffer->data();
  }
  std::vector<float> scratch(BackwardScratchFloats(graph, graph.operators[k]));
  BackwardIo io;
  io.subgraph = &graph;
  io.op = &graph.operators[k];
  io.op_index = k;
  io.tensor_data = data_.data();
  io.gradients = gradients.data();
  io.trainable = call.trainable;
  io.is_last_layer = call.is_last_layer;
  io.rank = call.rank;
  io.scratch = scratch.empty() ? nullptr : scratch.data();
  return BackwardOf(*FindRegistration(io.op->opcode), call.math)(io);
}

}  // namespace trainscope::testing
