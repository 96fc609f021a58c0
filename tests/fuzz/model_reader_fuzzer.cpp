// SPDX-License-Identifier: Apache-2.0
//
// Feeds arbitrary bytes to the model reader: it must return a Status for every input and never
// read out of bounds. Seed it with real models (scripts/run-tests.sh passes the fixtures folder).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trainscope::Model model;
  // A copy keeps the data aligned the way files read from disk are.
  std::vector<uint8_t> bytes(data, data + size);
  if (trainscope::Model::FromBytes(std::move(bytes), &model).ok()) {
    // Touch what a caller would use, so a wrong "ok" shows up as an invalid access.
    for (const trainscope::Subgraph& subgraph : model.graph().subgraphs) {
      for (const trainscope::Tensor& tensor : subgraph.tensors) {
        if (const uint8_t* bytes_of = model.ConstantData(tensor);
            bytes_of != nullptr && tensor.bytes > 0) {
          volatile uint8_t last = bytes_of[tensor.bytes - 1];
          (void)last;
        }
      }
      for (const trainscope::Operator& op : subgraph.operators) {
        for (int32_t input : op.inputs) {
          if (input >= 0) (void)subgraph.tensors.at(static_cast<size_t>(input)).shape.size();
        }
      }
    }
  }
  return 0;
}
