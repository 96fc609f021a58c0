// SPDX-License-Identifier: Apache-2.0
#include "engine/kernels/reference_runner.h"

#include <cmath>
#include <cstring>

#include "engine/kernels/kernel.h"

namespace trainscope {
namespace {

#if defined(__SSE2__)
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16,
              "tensor storage relies on 16-byte aligned heap blocks");
#else
// A board's heap (newlib: 8-byte blocks) only has to suit its scalar float loads.
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= alignof(float),
              "tensor storage relies on float-aligned heap blocks");
#endif

Status CheckGraphTensor(const Subgraph& subgraph, int32_t index, const char* role, size_t i) {
  const Tensor& tensor = subgraph.tensors[index];
  if (tensor.type != ElementType::kFloat32) {
    return Status::Error(StatusCode::kUnsupported, "%s %zu '%s' is %s; only FLOAT32 is supported",
                         role, i, tensor.name.c_str(), ElementTypeName(tensor.type));
  }
  return Status::Ok();
}

Status CheckInputs(const Subgraph& subgraph, const std::vector<std::vector<float>>& inputs) {
  if (inputs.size() != subgraph.inputs.size()) {
    return Status::Error(StatusCode::kInvalidArgument, "the model has %zu inputs, got %zu",
                         subgraph.inputs.size(), inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& tensor = subgraph.tensors[subgraph.inputs[i]];
    TS_RETURN_IF_ERROR(CheckGraphTensor(subgraph, subgraph.inputs[i], "input", i));
    if (inputs[i].size() != tensor.element_count()) {
      return Status::Error(StatusCode::kInvalidArgument, "input %zu '%s' needs %zu floats, got %zu",
                           i, tensor.name.c_str(), tensor.element_count(), inputs[i].size());
    }
    for (size_t e = 0; e < inputs[i].size(); ++e) {
      if (!std::isfinite(inputs[i][e])) {
        return Status::Error(StatusCode::kNumericError, "input %zu '%s' element %zu is %s", i,
                             tensor.name.c_str(), e, std::isnan(inputs[i][e]) ? "NaN" : "Inf");
      }
    }
  }
  for (size_t i = 0; i < subgraph.outputs.size(); ++i) {
    TS_RETURN_IF_ERROR(CheckGraphTensor(subgraph, subgraph.outputs[i], "output", i));
  }
  return Status::Ok();
}

// Every non-constant tensor an op reads must be a graph input, a variable or an earlier output;
// otherwise the op would read a buffer nobody wrote.
Status CheckDataflow(const Subgraph& subgraph) {
  std::vector<bool> written(subgraph.tensors.size(), false);
  for (int32_t input : subgraph.inputs) written[input] = true;
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    if (subgraph.tensors[t].constant || subgraph.tensors[t].is_variable) written[t] = true;
  }
  for (size_t k = 0; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    for (int32_t input : op.inputs) {
      if (input >= 0 && !written[input]) {
        return Status::Error(StatusCode::kInvalidModel,
                             "operator %zu reads tensor %d '%s' before anything writes it", k,
                             static_cast<int>(input), subgraph.tensors[input].name.c_str());
      }
    }
    for (int32_t output : op.outputs) written[output] = true;
  }
  for (int32_t output : subgraph.outputs) {
    if (!written[output]) {
      return Status::Error(StatusCode::kInvalidModel,
                           "graph output tensor %d '%s' is never written", static_cast<int>(output),
                           subgraph.tensors[output].name.c_str());
    }
  }
  return Status::Ok();
}

}  // namespace

Status RunForward(const Model& model, const std::vector<std::vector<float>>& inputs,
                  std::vector<std::vector<float>>* outputs) {
  if (model.graph().subgraphs.empty()) {
    return Status::Error(StatusCode::kInvalidModel, "the model has no subgraph");
  }
  const Subgraph& subgraph = model.graph().main();
  TS_RETURN_IF_ERROR(CheckRunnable(subgraph));
  TS_RETURN_IF_ERROR(CheckInputs(subgraph, inputs));
  TS_RETURN_IF_ERROR(CheckDataflow(subgraph));

  // Storage in floats (rounded up) so every buffer is float-aligned; INT32 tensors share the type.
  std::vector<std::vector<float>> storage(subgraph.tensors.size());
  std::vector<void*> data(subgraph.tensors.size(), nullptr);
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    const Tensor& tensor = subgraph.tensors[t];
    storage[t].assign((tensor.bytes + sizeof(float) - 1) / sizeof(float), 0.0f);
    if (tensor.constant && tensor.bytes > 0) {
      std::memcpy(storage[t].data(), model.ConstantData(tensor), tensor.bytes);
    }
    data[t] = storage[t].empty() ? nullptr : storage[t].data();
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(data[subgraph.inputs[i]], inputs[i].data(), inputs[i].size() * sizeof(float));
  }

  for (size_t k = 0; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    KernelIo io;
    io.subgraph = &subgraph;
    io.op = &op;
    io.op_index = static_cast<uint32_t>(k);
    io.tensor_data = data.data();
    TS_RETURN_IF_ERROR(FindRegistration(op.opcode)->eval(io));
  }

  outputs->clear();
  for (int32_t output : subgraph.outputs) outputs->push_back(storage[output]);
  return Status::Ok();
}

}  // namespace trainscope
