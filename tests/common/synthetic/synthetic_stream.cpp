// SPDX-License-Identifier: Apache-2.0
#include "tests/common/synthetic/synthetic_stream.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainscope {
namespace {

constexpr uint64_t kArenaAlignment = 16;

uint64_t AlignUp(uint64_t value) {
  return (value + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

}  // namespace

SyntheticStream::SyntheticStream(const Subgraph& subgraph, const SyntheticOptions& options)
    : subgraph_(subgraph), options_(options), random_(options.seed) {
  if (options_.batch_size == 0) options_.batch_size = 1;
  if (options_.samples_per_epoch == 0) options_.samples_per_epoch = options_.batch_size;
  const size_t tensors = subgraph_.tensors.size();
  last_forward_use_.assign(tensors, -1);
  graph_output_.assign(tensors, false);
  for (size_t k = 0; k < subgraph_.operators.size(); ++k) {
    for (int32_t input : subgraph_.operators[k].inputs) {
      if (input >= 0 && static_cast<size_t>(input) < tensors) {
        last_forward_use_[static_cast<size_t>(input)] = static_cast<int32_t>(k);
      }
    }
  }
  for (int32_t output : subgraph_.outputs) {
    if (output >= 0 && static_cast<size_t>(output) < tensors) {
      graph_output_[static_cast<size_t>(output)] = true;
    }
  }
  applyTrainability();
}

void SyntheticStream::setTrainability(const TrainabilityConfig& config) {
  pending_ = config;
  has_pending_ = true;
  if (samples_done_ == 0 && next_ == Next::kSampleBegin) applyTrainability();
}

void SyntheticStream::applyTrainability() {
  if (has_pending_) applied_ = pending_;
  has_pending_ = false;
  resolved_ = ResolveTrainability(subgraph_, applied_);
  backward_layers_ = BackwardLayerCount(subgraph_, applied_);
  // An activation is kept for backward when an op that runs backward reads or wrote it.
  keep_for_backward_.assign(subgraph_.tensors.size(), false);
  for (size_t k = 0; k < subgraph_.operators.size(); ++k) {
    if (!resolved_[k].in_backward_range) continue;
    const Operator& op = subgraph_.operators[k];
    for (int32_t tensor : op.inputs) {
      if (tensor >= 0 && !isConstant(tensor))
        keep_for_backward_[static_cast<size_t>(tensor)] = true;
    }
    for (int32_t tensor : op.outputs) {
      if (tensor >= 0 && static_cast<size_t>(tensor) < keep_for_backward_.size()) {
        keep_for_backward_[static_cast<size_t>(tensor)] = true;
      }
    }
  }
}

bool SyntheticStream::isConstant(int32_t tensor) const {
  return tensor < 0 || static_cast<size_t>(tensor) >= subgraph_.tensors.size() ||
         subgraph_.tensors[static_cast<size_t>(tensor)].constant;
}

uint64_t SyntheticStream::tensorBytes(int32_t tensor) const {
  if (tensor < 0 || static_cast<size_t>(tensor) >= subgraph_.tensors.size()) return 0;
  return subgraph_.tensors[static_cast<size_t>(tensor)].bytes;
}

float SyntheticStream::noise(float spread) {
  std::normal_distribution<float> normal(0.0f, spread);
  return normal(random_);
}

SyntheticStream::Unit SyntheticStream::next(EventBatch* out) {
  switch (next_) {
    case Next::kSampleBegin:
      emitSampleBegin(out);
      return Unit::kSampleBegin;
    case Next::kForward:
      emitForward(out);
      return Unit::kForwardOp;
    case Next::kLoss:
      emitLoss(out);
      return Unit::kLoss;
    case Next::kBackward:
      emitBackward(out);
      return Unit::kBackwardStep;
    case Next::kSampleEnd:
      emitSampleEnd(out);
      return Unit::kSampleEnd;
    case Next::kOptimizer:
      emitOptimizer(out);
      return Unit::kOptimizerStep;
    case Next::kEpochEnd:
      emitEpochEnd(out);
      return Unit::kEpochEnd;
  }
  return Unit::kSampleEnd;
}

uint64_t SyntheticStream::placeInArena(uint64_t bytes) const {
  // First fit over the live buffers sorted by offset: a simple static-arena planner.
  std::vector<std::pair<uint64_t, uint64_t>> used;
  used.reserve(live_.size());
  for (const Live& buffer : live_) used.emplace_back(buffer.offset, AlignUp(buffer.bytes));
  std::sort(used.begin(), used.end());
  uint64_t candidate = 0;
  for (const auto& [offset, size] : used) {
    if (candidate + AlignUp(bytes) <= offset) break;
    candidate = std::max(candidate, offset + size);
  }
  return candidate;
}

bool SyntheticStream::isLive(int32_t tensor, MemoryCategory category) const {
  return std::any_of(live_.begin(), live_.end(), [&](const Live& buffer) {
    return buffer.tensor == tensor && buffer.category == category;
  });
}

void SyntheticStream::alloc(EventBatch* out, Phase phase, uint32_t step, int32_t tensor,
                            MemoryCategory category, uint64_t bytes) {
  if (bytes == 0 || isLive(tensor, category)) return;
  const uint64_t offset = placeInArena(bytes);
  live_.push_back(Live{tensor, category, offset, bytes});
  out->add(MemoryEvent{tick_, phase, step, tensor, category, bytes, offset, true});
}

void SyntheticStream::release(EventBatch* out, Phase phase, uint32_t step, int32_t tensor,
                              MemoryCategory category) {
  for (size_t i = 0; i < live_.size(); ++i) {
    if (live_[i].tensor != tensor || live_[i].category != category) continue;
    const Live buffer = live_[i];
    live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
    out->add(MemoryEvent{tick_, phase, step, tensor, category, buffer.bytes, buffer.offset, false});
    return;
  }
}

void SyntheticStream::summarize(EventBatch* out, Phase phase, uint32_t step) {
  uint64_t current = 0;
  for (const Live& buffer : live_) current += buffer.bytes;
  peak_ = std::max(peak_, current);
  out->add(MemorySummaryEvent{tick_, phase, step, current, peak_});
}

void SyntheticStream::emitSampleBegin(EventBatch* out) {
  out->add(SampleEvent{epoch_, optimizer_step_, sample_in_batch_, true});
  tick_ = 0;
  peak_ = 0;
  live_.clear();
  for (int32_t input : subgraph_.inputs) {
    alloc(out, Phase::kForward, 0, input, MemoryCategory::kInput, tensorBytes(input));
  }
  summarize(out, Phase::kForward, 0);
  forward_op_ = 0;
  next_ = subgraph_.operators.empty() ? Next::kLoss : Next::kForward;
}

void SyntheticStream::emitForward(EventBatch* out) {
  const uint32_t k = forward_op_;
  const Operator& op = subgraph_.operators[k];
  ++tick_;
  for (int32_t tensor : op.outputs) {
    if (tensor < 0) continue;
    const bool kept = static_cast<size_t>(tensor) < keep_for_backward_.size() &&
                      keep_for_backward_[static_cast<size_t>(tensor)];
    alloc(out, Phase::kForward, k, tensor,
          kept ? MemoryCategory::kActivationKept : MemoryCategory::kActivation,
          tensorBytes(tensor));
  }
  for (int32_t tensor : op.inputs) {
    if (tensor < 0 || isConstant(tensor)) continue;
    const auto index = static_cast<size_t>(tensor);
    if (keep_for_backward_[index] || graph_output_[index]) continue;
    if (last_forward_use_[index] != static_cast<int32_t>(k)) continue;
    release(out, Phase::kForward, k, tensor, MemoryCategory::kActivation);
    release(out, Phase::kForward, k, tensor, MemoryCategory::kInput);
  }
  summarize(out, Phase::kForward, k);
  uint64_t elements = 0;
  for (int32_t tensor : op.outputs) elements += tensorBytes(tensor) / 4;
  out->add(ForwardOpEvent{k, op.opcode, 2000 + elements * 3});
  ++forward_op_;
  if (forward_op_ >= subgraph_.operators.size()) next_ = Next::kLoss;
}

void SyntheticStream::emitLoss(EventBatch* out) {
  const double t = static_cast<double>(samples_done_);
  float value = static_cast<float>(0.04 + 1.2 * std::exp(-t / 180.0)) * (1.0f + noise(0.12f));
  value = std::max(value, 0.001f);
  if (options_.nan_at_optimizer_step == optimizer_step_ && sample_in_batch_ == 0) {
    value = std::numeric_limits<float>::quiet_NaN();
  } else {
    epoch_loss_sum_ += value;
  }
  out->add(LossEvent{optimizer_step_, sample_in_batch_, value});
  backward_step_ = 0;
  next_ = backward_layers_ > 0 ? Next::kBackward : Next::kSampleEnd;
}

void SyntheticStream::emitBackward(EventBatch* out) {
  const uint32_t i = backward_step_;
  const uint32_t n = static_cast<uint32_t>(subgraph_.operators.size());
  const uint32_t k = n - 1 - i;
  const Operator& op = subgraph_.operators[k];
  const OpTrainability& train = resolved_[k];
  BackwardStepEvent begin{i,    k, op.opcode, train.trainable, train.rank, train.is_last_layer,
                          true, 0};
  out->add(begin);

  ++tick_;
  if (i == 0) {
    for (int32_t output : subgraph_.outputs) {
      alloc(out, Phase::kBackward, i, output, MemoryCategory::kLossGradient, tensorBytes(output));
    }
  }
  for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
    const int32_t tensor = op.inputs[slot];
    if (tensor < 0) continue;
    if (!isConstant(tensor)) {
      if (!train.is_last_layer) {
        alloc(out, Phase::kBackward, i, tensor, MemoryCategory::kActivationGradient,
              tensorBytes(tensor));
      }
      continue;
    }
    if (!train.trainable || !HasOnertTrainableWeights(op.opcode) || slot > 2 || slot == 0) continue;
    uint64_t bytes = tensorBytes(tensor);
    if (slot == 1 && train.rank == TrainRank::kOnlyBias) continue;
    if (slot == 1 && (train.rank == TrainRank::kUpperHalf || train.rank == TrainRank::kLowerHalf)) {
      bytes /= 2;
    }
    alloc(out, Phase::kBackward, i, tensor, MemoryCategory::kWeightGradient, bytes);
  }
  if (op.opcode == op::kSoftmax && !op.outputs.empty()) {
    alloc(out, Phase::kBackward, i, -1, MemoryCategory::kTemporary, tensorBytes(op.outputs[0]));
  }
  summarize(out, Phase::kBackward, i);

  // The kernel ran; what only this op needed goes away in the same backward step.
  ++tick_;
  release(out, Phase::kBackward, i, -1, MemoryCategory::kTemporary);
  for (int32_t output : op.outputs) {
    release(out, Phase::kBackward, i, output, MemoryCategory::kActivationGradient);
    release(out, Phase::kBackward, i, output, MemoryCategory::kLossGradient);
    release(out, Phase::kBackward, i, output, MemoryCategory::kActivationKept);
  }
  if (train.is_last_layer) {
    for (int32_t input : op.inputs) {
      if (input < 0 || isConstant(input)) continue;
      release(out, Phase::kBackward, i, input, MemoryCategory::kActivationKept);
      release(out, Phase::kBackward, i, input, MemoryCategory::kInput);
    }
  }
  summarize(out, Phase::kBackward, i);

  uint64_t elements = 0;
  for (int32_t tensor : op.inputs) elements += tensorBytes(tensor) / 4;
  BackwardStepEvent end = begin;
  end.begin = false;
  end.duration_ns = 4000 + elements * 5;
  out->add(end);
  ++backward_step_;
  if (backward_step_ >= backward_layers_) next_ = Next::kSampleEnd;
}

void SyntheticStream::emitSampleEnd(EventBatch* out) {
  // The optimizer takes the weight gradients; whatever else is left is reset.
  ++tick_;
  std::vector<Live> remaining = live_;
  for (const Live& buffer : remaining) {
    const bool gradient = buffer.category == MemoryCategory::kWeightGradient;
    release(out, gradient ? Phase::kOptimizer : Phase::kBackward, 0, buffer.tensor,
            buffer.category);
  }
  summarize(out, Phase::kOptimizer, 0);
  out->add(SampleEvent{epoch_, optimizer_step_, sample_in_batch_, false});
  ++samples_done_;
  ++sample_in_batch_;
  ++sample_in_epoch_;
  next_ = sample_in_batch_ >= options_.batch_size ? Next::kOptimizer : Next::kSampleBegin;
  if (next_ == Next::kSampleBegin && sample_in_epoch_ >= options_.samples_per_epoch) {
    next_ = Next::kOptimizer;  // a short last batch still updates
  }
}

void SyntheticStream::emitOptimizer(EventBatch* out) {
  const uint32_t n = static_cast<uint32_t>(subgraph_.operators.size());
  const double decay = std::exp(-static_cast<double>(optimizer_step_) / 60.0);
  bool nan_placed = false;
  for (uint32_t k = 0; k < n; ++k) {
    const OpTrainability& train = resolved_[k];
    const Operator& op = subgraph_.operators[k];
    if (!train.trainable || !HasOnertTrainableWeights(op.opcode)) continue;
    // Gradients shrink the further they travel back from the loss.
    const double depth = static_cast<double>(train.backward_step);
    for (size_t slot = 1; slot < op.inputs.size() && slot <= 2; ++slot) {
      const int32_t tensor = op.inputs[slot];
      if (!isConstant(tensor) || tensor < 0) continue;
      if (slot == 1 && train.rank == TrainRank::kOnlyBias) continue;
      GradientStatsEvent stats;
      stats.optimizer_step = optimizer_step_;
      stats.op_index = k;
      stats.tensor = tensor;
      const double scale = (slot == 2 ? 0.4 : 1.0) * std::pow(0.55, depth) * (0.2 + decay);
      stats.l2 = static_cast<float>(scale * std::exp(noise(0.25f)));
      stats.max_abs = stats.l2 * (0.25f + 0.05f * std::fabs(noise(1.0f)));
      stats.mean = stats.max_abs * 0.02f * noise(1.0f);
      const uint64_t elements = tensorBytes(tensor) / 4;
      const int center = GradientHistogramBin(stats.max_abs) - 1;
      for (uint64_t e = 0; e < std::min<uint64_t>(elements, 4096); ++e) {
        const int bin = std::clamp(center + static_cast<int>(std::lround(noise(1.3f))), 0,
                                   kGradientHistogramBins - 1);
        ++stats.histogram[bin];
      }
      if (options_.nan_at_optimizer_step == optimizer_step_ && !nan_placed) {
        stats.nan_count = 3;
        stats.inf_count = 1;
        stats.l2 = std::numeric_limits<float>::quiet_NaN();
        nan_placed = true;
      }
      out->add(stats);
      UpdateRatioEvent ratio;
      ratio.optimizer_step = optimizer_step_;
      ratio.tensor = tensor;
      ratio.weight_norm = static_cast<float>(1.0 + 0.1 * static_cast<double>(k));
      ratio.update_norm = options_.learning_rate * stats.l2;
      ratio.ratio = ratio.update_norm / ratio.weight_norm;
      out->add(ratio);
    }
  }
  out->add(OptimizerStepEvent{epoch_, optimizer_step_, sample_in_batch_});
  ++optimizer_step_;
  sample_in_batch_ = 0;
  if (has_pending_) {
    applyTrainability();
    out->add(StatusMessage{MessageLevel::kInfo,
                           QStringLiteral("Trainability change applied before optimizer step %1")
                               .arg(optimizer_step_)});
  }
  next_ = sample_in_epoch_ >= options_.samples_per_epoch ? Next::kEpochEnd : Next::kSampleBegin;
}

void SyntheticStream::emitEpochEnd(EventBatch* out) {
  const uint32_t counted = std::max<uint32_t>(1, sample_in_epoch_);
  out->add(MetricEvent{epoch_, 0, static_cast<float>(epoch_loss_sum_ / counted)});
  ++epoch_;
  sample_in_epoch_ = 0;
  epoch_loss_sum_ = 0.0;
  next_ = Next::kSampleBegin;
}

}  // namespace trainscope
