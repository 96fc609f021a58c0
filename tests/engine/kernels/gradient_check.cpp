// SPDX-License-Identifier: Apache-2.0
#include "tests/engine/kernels/gradient_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/kernels/kernel.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope::testing {
namespace {

constexpr size_t kGuardFloats = 4;
constexpr float kGuardValue = 1234.5f;
constexpr double kStep = 1e-3;
// Float rounding inside the kernels limits how well central differences agree; a wrong gradient
// is off by far more (typically the size of an input value).
constexpr double kAbsTolerance = 2e-3;
constexpr double kRelTolerance = 2e-3;
// A perturbation that crosses a kink (ReLU at 0, a max-pool tie) shows up as a second difference
// of order step * slope jump; smooth ops stay near step^2. Such elements are skipped and counted.
constexpr double kKinkThreshold = 2e-5;

struct Role {
  bool produced = false;  // some operator writes it
  bool consumed = false;  // some operator reads it as a float operand
  bool int32 = false;
  bool weights = false;
  bool bias = false;
  bool read_by_first_op = false;
  RowRange rows;  // trained rows when `weights`
  size_t row_size = 0;
};

class Checker {
 public:
  explicit Checker(const GradientCheck& check) : check_(check), rng_(check.seed) {}

  void Run(const ModelBuilder& builder) {
    const Status loaded = harness_.Load(builder);
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    ClassifyTensors();
    FillLeaves();
    const Status forward = harness_.Forward();
    ASSERT_TRUE(forward.ok()) << forward.message();
    AllocateGradients();
    RunBackward();
    if (::testing::Test::HasFatalFailure()) return;
    CheckGuardsAndOutputs();
    for (size_t t = 0; t < roles_.size(); ++t) {
      if (roles_[t].consumed && !roles_[t].produced && !roles_[t].int32)
        CheckLeaf(static_cast<int>(t));
    }
  }

 private:
  const Subgraph& graph() const { return harness_.subgraph(); }

  float Uniform(float low, float high) {
    return std::uniform_real_distribution<float>(low, high)(rng_);
  }

  void ClassifyTensors() {
    roles_.assign(graph().tensors.size(), Role());
    for (size_t k = 0; k < graph().operators.size(); ++k) {
      const Operator& op = graph().operators[k];
      const OpRegistration* registration = FindRegistration(op.opcode);
      for (int32_t output : op.outputs) roles_[output].produced = true;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const int32_t t = op.inputs[i];
        if (t < 0) continue;
        if (i < 32 && (registration->int32_inputs >> i & 1u) != 0) {
          roles_[t].int32 = true;
          continue;
        }
        roles_[t].consumed = true;
        if (k == 0) roles_[t].read_by_first_op = true;
      }
      const TrainableParams params = TrainableParamsOf(op);
      if (params.weights >= 0) {
        Role& w = roles_[params.weights];
        w.weights = true;
        w.rows = WeightGradientRows(graph(), op, check_.rank);
        const std::vector<int32_t>& shape = graph().tensors[params.weights].shape;
        w.row_size = graph().tensors[params.weights].element_count() /
                     static_cast<size_t>(shape.empty() ? 1 : shape[0]);
      }
      if (params.bias >= 0) roles_[params.bias].bias = true;
      // Further trainable constants (GRU's second weights and bias, its initial state) train
      // every row, except that ONLY_BIAS trains no weights.
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const int32_t t = op.inputs[i];
        if (t < 0 || t == params.weights || t == params.bias || !graph().tensors[t].constant) {
          continue;
        }
        if (IsBiasInput(op, i)) roles_[t].bias = true;
        if (!IsWeightInput(op, i)) continue;
        Role& w = roles_[t];
        const std::vector<int32_t>& shape = graph().tensors[t].shape;
        const int32_t rows = shape.empty() ? 1 : shape[0];
        w.weights = true;
        w.rows = check_.rank == TrainRank::kOnlyBias ? RowRange{0, 0} : RowRange{0, rows};
        w.row_size = graph().tensors[t].element_count() / static_cast<size_t>(rows);
      }
    }
  }

  void FillLeaves() {
    for (size_t t = 0; t < roles_.size(); ++t) {
      if (!roles_[t].consumed || roles_[t].produced || roles_[t].int32) continue;
      std::vector<float>& values = harness_.Values(static_cast<int>(t));
      if (check_.values == ValueStyle::kDistinct) {
        std::vector<int> order(values.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng_);
        const float middle = static_cast<float>(values.size()) / 2.0f;
        for (size_t i = 0; i < values.size(); ++i) {
          values[i] = 0.05f * (static_cast<float>(order[i]) - middle);
        }
      } else {
        for (float& v : values) {
          if (check_.values == ValueStyle::kAwayFromZero) {
            v = Uniform(0.1f, 1.0f) * (Uniform(-1.0f, 1.0f) < 0.0f ? -1.0f : 1.0f);
          } else {
            v = Uniform(-1.0f, 1.0f);
          }
        }
      }
      for (float& v : values) v *= check_.scale;
    }
    for (int32_t output : graph().outputs) {
      std::vector<float>& c = loss_weights_[output];
      c.resize(graph().tensors[output].element_count());
      for (float& v : c) v = Uniform(0.5f, 1.5f) * (Uniform(-1.0f, 1.0f) < 0.0f ? -1.0f : 1.0f);
    }
  }

  double Loss() {
    const Status status = harness_.Forward();
    EXPECT_TRUE(status.ok()) << status.message();
    double loss = 0.0;
    for (const auto& [output, c] : loss_weights_) {
      const std::vector<float>& y = harness_.Values(output);
      for (size_t i = 0; i < c.size(); ++i) loss += static_cast<double>(c[i]) * y[i];
    }
    return loss;
  }

  void AllocateGradients() {
    const size_t n = roles_.size();
    gradients_.assign(n, {});
    priors_.assign(n, {});
    pointers_.assign(n, nullptr);
    for (size_t t = 0; t < n; ++t) {
      const Role& role = roles_[t];
      if (role.int32 || (!role.consumed && !role.produced)) continue;
      size_t size = graph().tensors[t].element_count();
      const bool leaf = !role.produced;
      if (leaf && role.weights && check_.trainable) {
        if (role.rows.empty()) continue;  // kOnlyBias: the executor allocates nothing
        size = static_cast<size_t>(role.rows.count()) * role.row_size;
      }
      std::vector<float>& buffer = gradients_[t];
      buffer.assign(size + kGuardFloats, kGuardValue);
      const auto found = loss_weights_.find(static_cast<int32_t>(t));
      for (size_t i = 0; i < size; ++i) {
        if (found != loss_weights_.end()) {
          buffer[i] = found->second[i];
        } else {
          buffer[i] = leaf ? Uniform(-1.0f, 1.0f) : 0.0f;
        }
      }
      priors_[t] = buffer;
      pointers_[t] = buffer.data();
    }
  }

  void RunBackward() {
    std::vector<std::vector<float>> poison;
    for (size_t step = 0; step < graph().operators.size(); ++step) {
      const size_t k = graph().operators.size() - 1 - step;
      const Operator& op = graph().operators[k];
      const BackwardNeeds needs = BackwardNeedsOf(op);
      std::vector<void*> data(harness_.data(), harness_.data() + roles_.size());
      auto hide = [&](int32_t t) {
        if (t < 0 || graph().tensors[t].constant) return;
        poison.emplace_back(harness_.Values(t).size(), std::numeric_limits<float>::quiet_NaN());
        data[t] = poison.back().data();
      };
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        if (!NeedsInput(needs, i)) hide(op.inputs[i]);
      }
      if (!needs.output) hide(op.outputs[0]);
      std::vector<float> scratch(BackwardScratchFloats(graph(), op),
                                 std::numeric_limits<float>::quiet_NaN());
      BackwardIo io;
      io.subgraph = &graph();
      io.op = &op;
      io.op_index = static_cast<uint32_t>(k);
      io.tensor_data = data.data();
      io.gradients = pointers_.data();
      io.is_last_layer = check_.is_last_layer && k == 0;
      io.trainable = check_.trainable;
      io.rank = check_.rank;
      io.scratch = scratch.empty() ? nullptr : scratch.data();
      const Status status = FindRegistration(op.opcode)->backward(io);
      ASSERT_TRUE(status.ok()) << status.message();
    }
  }

  void CheckGuardsAndOutputs() {
    for (size_t t = 0; t < gradients_.size(); ++t) {
      const std::vector<float>& buffer = gradients_[t];
      for (size_t i = buffer.size() >= kGuardFloats ? buffer.size() - kGuardFloats : 0;
           i < buffer.size(); ++i) {
        EXPECT_EQ(buffer[i], kGuardValue) << "write past the gradient buffer of tensor " << t;
      }
    }
    for (const auto& [output, c] : loss_weights_) {
      if (roles_[output].consumed) continue;
      for (size_t i = 0; i < c.size(); ++i) {
        EXPECT_EQ(gradients_[output][i], c[i]) << "output gradient modified at element " << i;
      }
    }
  }

  void ExpectUntouched(int t, const char* why) {
    EXPECT_EQ(gradients_[t], priors_[t])
        << "gradient of tensor " << t << " '" << graph().tensors[t].name << "' changed " << why;
  }

  void CheckLeaf(int t) {
    const Role& role = roles_[t];
    const std::string& name = graph().tensors[t].name;
    if ((role.weights || role.bias) && !check_.trainable) {
      return ExpectUntouched(t, "although the op is not trainable");
    }
    if (!role.weights && !role.bias && check_.is_last_layer && role.read_by_first_op) {
      return ExpectUntouched(t, "although the op is the last layer");
    }
    if (role.weights && role.rows.empty()) {
      EXPECT_EQ(pointers_[t], nullptr);
      return;
    }
    size_t first = 0;
    size_t count = graph().tensors[t].element_count();
    if (role.weights) {
      first = static_cast<size_t>(role.rows.begin) * role.row_size;
      count = static_cast<size_t>(role.rows.count()) * role.row_size;
    }
    std::vector<float>& values = harness_.Values(t);
    const double base = Loss();
    size_t skipped = 0;
    int reported = 0;
    for (size_t j = 0; j < count; ++j) {
      const size_t e = first + j;
      const float original = values[e];
      values[e] = static_cast<float>(original + kStep);
      const double plus_step = static_cast<double>(values[e]) - original;
      const double plus = Loss();
      values[e] = static_cast<float>(original - kStep);
      const double minus_step = original - static_cast<double>(values[e]);
      const double minus = Loss();
      values[e] = original;
      if (std::fabs(plus - 2.0 * base + minus) > kKinkThreshold) {
        ++skipped;
        continue;
      }
      const double numeric = (plus - minus) / (plus_step + minus_step);
      const double analytic = static_cast<double>(gradients_[t][j]) - priors_[t][j];
      const double error = std::fabs(analytic - numeric);
      if (error > kAbsTolerance + kRelTolerance * std::fabs(numeric) && reported < 5) {
        ++reported;
        ADD_FAILURE() << "tensor " << t << " '" << name << "' element " << e << ": analytic "
                      << analytic << ", numeric " << numeric;
      }
    }
    EXPECT_LE(skipped * 10, count) << "too many kinks skipped in tensor " << t << " '" << name
                                   << "' (" << skipped << " of " << count << ")";
  }

  GradientCheck check_;
  std::mt19937 rng_;
  KernelHarness harness_;
  std::vector<Role> roles_;
  std::map<int32_t, std::vector<float>> loss_weights_;
  std::vector<std::vector<float>> gradients_;
  std::vector<std::vector<float>> priors_;
  std::vector<float*> pointers_;
};

}  // namespace

void CheckGradients(const ModelBuilder& builder, const GradientCheck& check) {
  Checker checker(check);
  checker.Run(builder);
}

}  // namespace trainscope::testing
