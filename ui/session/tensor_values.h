// SPDX-License-Identifier: Apache-2.0
//
// Tensor values on request: what the Tensor Values panel asks a source for (TensorRequest), what
// the source answers with (TensorValues, an immutable snapshot made on the thread that read it)
// and the figures the panel shows of them (SummarizeTensor). A source that cannot read a tensor
// at this point answers with `unavailable` set to the reason instead of sending nothing.
//
//   connect(source, &EventSource::tensorValuesReady, panel, &TensorPanel::showValues);
//   source->requestTensorValues({tensor, TensorAspect::kGradient});
#pragma once

#include <QMetaType>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/exec/trainer.h"

namespace trainscope {

struct TensorRequest {
  int32_t tensor = -1;
  TensorAspect aspect = TensorAspect::kValue;

  bool operator==(const TensorRequest& other) const {
    return tensor == other.tensor && aspect == other.aspect;
  }
};

struct TensorValues {
  TensorRequest request;
  QString tensor_name;
  std::vector<int32_t> shape;  // of `values`; a half-rank gradient has fewer rows than the tensor
  std::vector<float> values;
  QString where;        // "paused after backward step 2 (op #3), sample 0 of optimizer step 14"
  QString unavailable;  // why nothing was read; empty when `values` holds the tensor
};

using TensorValuesPtr = std::shared_ptr<const TensorValues>;

struct TensorSummary {
  size_t count = 0;
  size_t nan = 0;
  size_t inf = 0;
  size_t zeros = 0;
  float min = 0.0f;  // of the finite values (0 when there are none)
  float max = 0.0f;
  double mean = 0.0;  // of the finite values
  double rms = 0.0;
  // Finite values in equal bins over [min, max]; one bin when all finite values are equal.
  std::vector<uint32_t> bins;
  size_t finite() const { return count - nan - inf; }
};

TensorSummary SummarizeTensor(const std::vector<float>& values, int bin_count);

// The table layout the panel shows: the last dimension as columns, every other as rows.
struct TensorGrid {
  size_t rows = 0;
  size_t columns = 0;
};
TensorGrid GridOf(const std::vector<int32_t>& shape, size_t value_count);

}  // namespace trainscope

Q_DECLARE_METATYPE(trainscope::TensorValuesPtr)
