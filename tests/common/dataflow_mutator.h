// SPDX-License-Identifier: Apache-2.0
//
// Dataflow mutants of a real model, shared by the mutation campaign in ctest and the fuzz stage:
// EditableGraph holds a model's main graph as lists and writes it back through ModelBuilder (so
// every mutant is a valid flatbuffer); DataflowMutator applies one to three edits - an operand
// rewired to another tensor or to nothing, an output written twice or over an input, an operator
// dropped, doubled or moved, a weight turned into a tensor nothing produces, a shape changed, a
// graph input or output moved, an axis or stride changed; ConsumeMutant does with the bytes what
// inspect, memory, run and train do.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/exec/interpreter.h"
#include "engine/exec/trainer.h"
#include "engine/memory/memory_report.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"

namespace trainscope::testing {

inline constexpr size_t kMaxMutantElementsToRun = size_t{1} << 20;  // larger ones: planned only

// The seed's main graph as editable lists, written back through ModelBuilder.
struct EditableGraph {
  struct EditableTensor {
    Tensor tensor;
    std::vector<uint8_t> data;  // constants only
  };
  std::vector<EditableTensor> tensors;
  std::vector<Operator> operators;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;

  explicit EditableGraph(const Model& model) {
    const Subgraph& main = model.graph().main();
    for (const Tensor& tensor : main.tensors) {
      EditableTensor editable{tensor, {}};
      if (tensor.constant) {
        const uint8_t* data = model.ConstantData(tensor);
        editable.data.assign(data, data + tensor.bytes);
      }
      tensors.push_back(std::move(editable));
    }
    operators = main.operators;
    inputs = main.inputs;
    outputs = main.outputs;
  }

  Status Write(std::vector<uint8_t>* bytes) const {
    ModelBuilder b;
    for (const EditableTensor& t : tensors) {
      if (t.tensor.constant) {
        b.AddConstantBytes(t.tensor.name, t.tensor.shape, t.tensor.type, t.data);
      } else {
        b.AddTensor(t.tensor.name, t.tensor.shape, t.tensor.type);
      }
    }
    for (const Operator& op : operators)
      b.AddOperator(op.opcode, op.inputs, op.outputs, op.options);
    b.SetInputs(inputs);
    b.SetOutputs(outputs);
    return b.Finish(bytes);
  }
};

// Edits chosen by `next`: a seeded generator in tests, the fuzzer's bytes in the fuzz stage.
class DataflowMutator {
 public:
  explicit DataflowMutator(std::function<uint32_t()> next) : next_(std::move(next)) {}

  // One to three edits; returns what was done, for the failure message.
  std::string Mutate(EditableGraph* g) {
    std::string done;
    const int edits = 1 + Below(3);
    for (int i = 0; i < edits; ++i) done += Edit(g) + "; ";
    return done;
  }

 private:
  int Below(int n) { return n <= 0 ? 0 : static_cast<int>(next_() % static_cast<uint32_t>(n)); }
  int32_t AnyTensor(const EditableGraph& g) {
    return static_cast<int32_t>(Below(static_cast<int>(g.tensors.size()) + 1)) - 1;  // -1 too
  }

  std::string Edit(EditableGraph* g) {
    const int ops = static_cast<int>(g->operators.size());
    switch (Below(10)) {
      case 0: {  // an operand rewired
        if (ops == 0) break;
        Operator& op = g->operators[Below(ops)];
        if (op.inputs.empty()) break;
        op.inputs[Below(static_cast<int>(op.inputs.size()))] = AnyTensor(*g);
        return "input rewired";
      }
      case 1: {  // an output rewired (written twice, or over an input)
        if (ops == 0) break;
        Operator& op = g->operators[Below(ops)];
        if (op.outputs.empty()) break;
        op.outputs[Below(static_cast<int>(op.outputs.size()))] =
            std::max<int32_t>(0, AnyTensor(*g));
        return "output rewired";
      }
      case 2:
        if (ops == 0) break;
        g->operators.erase(g->operators.begin() + Below(ops));
        return "operator dropped";
      case 3: {
        if (ops == 0) break;
        const int at = Below(ops);
        g->operators.insert(g->operators.begin() + at, g->operators[at]);
        return "operator doubled";
      }
      case 4: {
        if (ops < 2) break;
        const int at = Below(ops - 1);
        std::swap(g->operators[at], g->operators[at + 1]);
        return "operators swapped";
      }
      case 5: {  // a weight becomes a tensor nothing produces (buffer 0)
        std::vector<int> constants;
        for (size_t t = 0; t < g->tensors.size(); ++t) {
          if (g->tensors[t].tensor.constant) constants.push_back(static_cast<int>(t));
        }
        if (constants.empty()) break;
        EditableGraph::EditableTensor& t =
            g->tensors[constants[Below(static_cast<int>(constants.size()))]];
        t.tensor.constant = false;
        t.data.clear();
        return "constant dropped";
      }
      case 6: {  // a non-constant shape changed: a dimension, or one more or one fewer
        if (g->tensors.empty()) break;
        Tensor& t = g->tensors[Below(static_cast<int>(g->tensors.size()))].tensor;
        if (t.constant) break;
        static const int32_t kDims[] = {0, 1, 2, 3, 5, 7, 64};
        const int how = Below(3);
        if (how == 0 && !t.shape.empty()) {
          t.shape[Below(static_cast<int>(t.shape.size()))] = kDims[Below(7)];
        } else if (how == 1 && t.shape.size() < 6) {
          t.shape.push_back(kDims[Below(7)]);
        } else if (!t.shape.empty()) {
          t.shape.pop_back();
        }
        return "shape changed";
      }
      case 7:
        if (g->inputs.empty()) break;
        g->inputs[Below(static_cast<int>(g->inputs.size()))] = std::max<int32_t>(0, AnyTensor(*g));
        return "graph input moved";
      case 8:
        if (g->outputs.empty()) break;
        g->outputs[Below(static_cast<int>(g->outputs.size()))] =
            std::max<int32_t>(0, AnyTensor(*g));
        return "graph output moved";
      case 9: {  // options: an axis, a stride, a new shape
        if (ops == 0) break;
        OpOptions& o = g->operators[Below(ops)].options;
        o.axis = Below(11) - 5;
        o.stride_w = Below(4);
        o.stride_h = Below(4);
        if (!o.new_shape.empty()) o.new_shape[0] = Below(9) - 1;
        return "options changed";
      }
    }
    return "nothing";
  }

  std::function<uint32_t()> next_;
};

enum class MutantFate {
  kRefused,  // Model::FromBytes refused it
  kStopped,  // read, then refused by planning, the interpreter or the trainer
  kRan,      // a forward pass and a train step completed
};

// What inspect, memory, run and train do with the bytes. Every refusal's message is passed to
// `refusal` (a caller checks it says something).
inline MutantFate ConsumeMutant(const std::vector<uint8_t>& bytes,
                                const std::function<void(const Status&)>& refusal) {
  Model model;
  Status status = Model::FromBytes(bytes, &model);
  if (!status.ok()) {
    refusal(status);
    return MutantFate::kRefused;
  }
  const Graph& graph = model.graph();
  MemoryReport report;
  for (bool inference : {true, false}) {
    status =
        ComputeMemoryReport(graph, TrainabilityConfig{}, OptimizerKind::kAdam, inference, &report);
    if (!status.ok()) {
      refusal(status);
    }
  }
  const Subgraph& main = graph.main();
  for (int32_t input : main.inputs) {
    if (main.tensors[input].element_count() > kMaxMutantElementsToRun) {
      return MutantFate::kStopped;
    }
  }
  Interpreter interpreter;
  status = interpreter.Init(model);
  if (status.ok()) {
    std::vector<std::vector<float>> storage;
    std::vector<const float*> inputs;
    for (int32_t input : main.inputs) {
      storage.emplace_back(main.tensors[input].element_count(), 0.25f);
    }
    for (const std::vector<float>& values : storage) inputs.push_back(values.data());
    std::vector<std::vector<float>> outputs;
    status = interpreter.Run(inputs, &outputs);
  }
  if (!status.ok()) {
    refusal(status);
    return MutantFate::kStopped;
  }
  Trainer trainer;
  TrainingOptions options;
  options.optimizer = OptimizerKind::kAdam;
  status = trainer.Init(&model, options, TrainabilityConfig{});
  if (status.ok()) {
    DataSet data;
    data.sample_count = 1;
    for (int32_t input : main.inputs) {
      data.inputs.emplace_back(main.tensors[input].element_count(), 0.25f);
    }
    data.targets.assign(main.outputs.empty() ? 0 : main.tensors[main.outputs[0]].element_count(),
                        0.5f);
    float loss = 0.0f;
    status = trainer.TrainStep(data, 0, &loss);
  }
  if (!status.ok()) {
    refusal(status);
    return MutantFate::kStopped;
  }
  return MutantFate::kRan;
}

}  // namespace trainscope::testing
