// SPDX-License-Identifier: Apache-2.0
//
// Trainer::ReadTensor: the debugger's read of what a paused train step holds. It only copies;
// the step itself is never changed by looking at it.
#include <algorithm>

#include "engine/exec/trainer.h"

namespace trainscope {

const char* TensorAspectName(TensorAspect aspect) {
  switch (aspect) {
    case TensorAspect::kValue:
      return "value";
    case TensorAspect::kGradient:
      return "gradient";
    case TensorAspect::kAdamM:
      return "Adam m";
    case TensorAspect::kAdamV:
      return "Adam v";
  }
  return "?";
}

namespace {

// Points at the first `count` of a tensor's `full_count` values; a shorter buffer (a half-rank
// gradient or moment) holds whole rows, so only the first dimension shrinks.
Status ViewRows(const Tensor& t, const float* from, size_t count, size_t full_count,
                TensorView* view) {
  if (t.shape.size() > TensorView::kMaxRank) {
    return Status::Error(StatusCode::kUnsupported, "%s has rank %u; at most %u can be read",
                         t.name.c_str(), static_cast<unsigned>(t.shape.size()),
                         static_cast<unsigned>(TensorView::kMaxRank));
  }
  view->values = from;
  view->count = static_cast<uint32_t>(count);
  view->rank = static_cast<uint32_t>(t.shape.size());
  for (size_t d = 0; d < t.shape.size(); ++d) view->dims[d] = t.shape[d];
  if (count < full_count && view->rank > 0 && view->dims[0] > 0) {
    view->dims[0] = static_cast<int32_t>(count / (full_count / static_cast<size_t>(view->dims[0])));
  }
  return Status::Ok();
}

}  // namespace

Status Trainer::ReadTensor(int32_t tensor, TensorAspect aspect, TensorCopy* copy) const {
  TensorView view;
  TS_RETURN_IF_ERROR(ViewTensor(tensor, aspect, &view));
  copy->shape.assign(view.dims, view.dims + view.rank);
  copy->values.assign(view.values, view.values + view.count);
  return Status::Ok();
}

Status Trainer::ViewTensor(int32_t tensor, TensorAspect aspect, TensorView* view) const {
  if (subgraph_ == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, "the trainer is not initialised");
  }
  const Subgraph& sg = *subgraph_;
  if (tensor < 0 || static_cast<size_t>(tensor) >= sg.tensors.size()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "tensor %d does not exist (the model has %u)", static_cast<int>(tensor),
                         static_cast<unsigned>(sg.tensors.size()));
  }
  const Tensor& t = sg.tensors[tensor];
  if (t.type != ElementType::kFloat32) {
    return Status::Error(StatusCode::kUnsupported, "tensor %d (%s) is not float32",
                         static_cast<int>(tensor), t.name.c_str());
  }
  const size_t count = t.element_count();
  switch (aspect) {
    case TensorAspect::kValue: {
      if (t.constant) {
        return ViewRows(t, constants_.floats(tensor), count, count, view);
      }
      const void* live = views_.values[tensor];
      if (live == nullptr) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "%s is not held at this point of the step (an activation lives only "
                             "from the op that writes it to its last use)",
                             t.name.c_str());
      }
      return ViewRows(t, static_cast<const float*>(live), count, count, view);
    }
    case TensorAspect::kGradient: {
      const float* live = views_.gradients[tensor];
      if (live == nullptr) {
        const bool trained = static_cast<size_t>(tensor) < binding_of_tensor_.size() &&
                             binding_of_tensor_[static_cast<size_t>(tensor)] >= 0;
        return Status::Error(StatusCode::kInvalidArgument, "%s",
                             (t.name + (trained ? "'s gradient is not held at this point of the "
                                                  "step (it lives from the backward step that "
                                                  "computes it to the optimizer step)"
                                                : " has no gradient here (frozen, outside the "
                                                  "backward range, or not yet computed)"))
                                 .c_str());
      }
      // A trained parameter's gradient is compact: a half rank holds fewer rows than the tensor.
      const int32_t binding = static_cast<size_t>(tensor) < binding_of_tensor_.size()
                                  ? binding_of_tensor_[static_cast<size_t>(tensor)]
                                  : -1;
      if (binding >= 0 && gradient_unwritten_[static_cast<size_t>(binding)] != 0) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "%s's gradient is not computed yet in this step (its backward step "
                             "writes the buffer whole, without zero-filling it first)",
                             t.name.c_str());
      }
      const size_t elements =
          binding >= 0
              ? std::min(count, TrainedElementCount(bindings_[static_cast<size_t>(binding)].slice))
              : count;
      return ViewRows(t, live, elements, count, view);
    }
    case TensorAspect::kAdamM:
    case TensorAspect::kAdamV: {
      const int32_t binding = static_cast<size_t>(tensor) < binding_of_tensor_.size()
                                  ? binding_of_tensor_[static_cast<size_t>(tensor)]
                                  : -1;
      const ParameterSlice* slice =
          binding >= 0 ? &bindings_[static_cast<size_t>(binding)].slice : nullptr;
      const float* moment = slice == nullptr                 ? nullptr
                            : aspect == TensorAspect::kAdamM ? slice->adam_m
                                                             : slice->adam_v;
      if (moment == nullptr) {
        return Status::Error(StatusCode::kInvalidArgument, "%s has no %s (%s)", t.name.c_str(),
                             TensorAspectName(aspect),
                             options_.optimizer == OptimizerKind::kAdam ? "it is not trained"
                                                                        : "the optimizer is SGD");
      }
      // The moments are compact like the gradient: only the trained rows.
      return ViewRows(t, moment, std::min(count, TrainedElementCount(*slice)), count, view);
    }
  }
  return Status::Error(StatusCode::kInvalidArgument, "unknown tensor aspect");
}

}  // namespace trainscope
