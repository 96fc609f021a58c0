// SPDX-License-Identifier: Apache-2.0
//
// CAST between FLOAT32, INT32 and BOOL, element by element, the output of the input's shape:
// float to int32 truncates toward zero and saturates at the int32 limits (NaN gives 0, where C++
// leaves the conversion undefined); anything to BOOL is "not zero"; BOOL to a number is 0 or 1.
// Forward only.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

bool Castable(ElementType type) {
  return type == ElementType::kFloat32 || type == ElementType::kInt32 || type == ElementType::kBool;
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(ExpectSameShapeUnary(check));
  for (const Tensor* tensor : {&check.Input(0), &check.Output()}) {
    if (!Castable(tensor->type)) {
      return check.Unsupported("tensor '%s' is %s; CAST converts FLOAT32, INT32 and BOOL",
                               tensor->name.c_str(), ElementTypeName(tensor->type));
    }
  }
  return Status::Ok();
}

int32_t SaturatingInt(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return INT32_MAX;
  if (x <= -2147483648.0f) return INT32_MIN;
  return static_cast<int32_t>(x);
}

// Element i of the input as each target type.
struct Source {
  ElementType type;
  const void* data;
  float AsFloat(size_t i) const {
    if (type == ElementType::kFloat32) return static_cast<const float*>(data)[i];
    if (type == ElementType::kInt32)
      return static_cast<float>(static_cast<const int32_t*>(data)[i]);
    return static_cast<const uint8_t*>(data)[i] != 0 ? 1.0f : 0.0f;
  }
  int32_t AsInt(size_t i) const {
    if (type == ElementType::kFloat32) return SaturatingInt(static_cast<const float*>(data)[i]);
    if (type == ElementType::kInt32) return static_cast<const int32_t*>(data)[i];
    return static_cast<const uint8_t*>(data)[i] != 0 ? 1 : 0;
  }
  uint8_t AsBool(size_t i) const {
    if (type == ElementType::kFloat32) return static_cast<const float*>(data)[i] != 0.0f;
    if (type == ElementType::kInt32) return static_cast<const int32_t*>(data)[i] != 0;
    return static_cast<const uint8_t*>(data)[i] != 0;
  }
};

Status Eval(const KernelIo& io) {
  const Source source{InputTensor(io, 0).type, io.tensor_data[io.op->inputs[0]]};
  const size_t count = OutputTensor(io).element_count();
  switch (OutputTensor(io).type) {
    case ElementType::kFloat32: {
      float* y = MutableOutputFloats(io);
      for (size_t i = 0; i < count; ++i) y[i] = source.AsFloat(i);
      break;
    }
    case ElementType::kInt32: {
      int32_t* y = MutableOutputInts(io);
      for (size_t i = 0; i < count; ++i) y[i] = source.AsInt(i);
      break;
    }
    default: {
      uint8_t* y = MutableOutputBools(io);
      for (size_t i = 0; i < count; ++i) y[i] = source.AsBool(i);
      break;
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationCast() {
  static constexpr OpRegistration kRegistration = {op::kCast,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false,
                                                   /*prepare_checks_types=*/true};
  return kRegistration;
}

}  // namespace trainscope
