// SPDX-License-Identifier: Apache-2.0
#include "engine/exec/interpreter.h"

#include <cmath>
#include <cstring>

#include "engine/kernels/kernel.h"

namespace trainscope {

Status Interpreter::Init(const Model& model, const ConstantStore* constants) {
  subgraph_ = &model.graph().main();
  const Subgraph& sg = *subgraph_;
  TS_RETURN_IF_ERROR(CheckRunnable(sg));
  if (constants == nullptr) {
    owned_constants_ = std::make_unique<ConstantStore>();
    owned_constants_->Load(model, sg);
    constants = owned_constants_.get();
  }
  constants_ = constants;
  TS_RETURN_IF_ERROR(BuildInferenceTimeline(sg, TimelineOptions(), &timeline_));
  TS_RETURN_IF_ERROR(arena_.Plan(timeline_));
  views_.values.assign(sg.tensors.size(), nullptr);
  views_.gradients.assign(sg.tensors.size(), nullptr);
  views_.scratch.assign(sg.operators.size(), nullptr);
  for (size_t t = 0; t < sg.tensors.size(); ++t) {
    if (sg.tensors[t].constant) views_.values[t] = constants_->data(static_cast<int32_t>(t));
  }
  return Status::Ok();
}

Status Interpreter::Run(const std::vector<const float*>& inputs,
                        std::vector<std::vector<float>>* outputs) {
  const Subgraph& sg = *subgraph_;
  if (inputs.size() != sg.inputs.size()) {
    return Status::Error(StatusCode::kInvalidArgument, "the model has %zu inputs, got %zu",
                         sg.inputs.size(), inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t count = sg.tensors[sg.inputs[i]].element_count();
    for (size_t e = 0; e < count; ++e) {
      if (!std::isfinite(inputs[i][e])) {
        return Status::Error(StatusCode::kNumericError, "input %zu, element %zu is %f", i, e,
                             static_cast<double>(inputs[i][e]));
      }
    }
  }
  outputs->assign(sg.outputs.size(), {});
  const uint32_t ticks = static_cast<uint32_t>(timeline_.ticks.size());
  for (uint32_t t = 0; t < ticks; ++t) {
    arena_.Bind(t, true, &views_, nullptr);
    const uint32_t k = static_cast<uint32_t>(timeline_.ticks[t].op_index);
    if (t == 0) {
      for (size_t i = 0; i < sg.inputs.size(); ++i) {
        std::memcpy(views_.values[sg.inputs[i]], inputs[i],
                    sg.tensors[sg.inputs[i]].element_count() * sizeof(float));
      }
    }
    const Operator& op = sg.operators[k];
    TS_RETURN_IF_ERROR(FindRegistration(op.opcode)->eval({&sg, &op, k, views_.values.data()}));
    if (t + 1 == ticks) {
      for (size_t o = 0; o < sg.outputs.size(); ++o) {
        const float* data = static_cast<const float*>(views_.values[sg.outputs[o]]);
        (*outputs)[o].assign(data, data + sg.tensors[sg.outputs[o]].element_count());
      }
    }
    arena_.Bind(t, false, &views_, nullptr);
  }
  return Status::Ok();
}

}  // namespace trainscope
