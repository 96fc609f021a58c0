// SPDX-License-Identifier: Apache-2.0
//
// GRU (circle builtin -5), as onert-micro runs it: input [time, 1, in] read one time step at a
// time, the state h (H values, input 5) as the initial hidden state, the last hidden state as the
// output (H values). Inputs 1 and 2 are the weights and bias applied to the input x ([3H, in],
// [3H]), inputs 3 and 4 those applied to the hidden state ([3H, H], [3H]); the biases may be
// absent. The three row blocks of 3H are the update gate z, the reset gate r and the candidate
// n, and the reset gate applies after the hidden product (Keras' reset_after):
//
//   gx = Wx x_t + bx,  gh = Wh h + bh
//   z = sigmoid(gx_z + gh_z),  r = sigmoid(gx_r + gh_r),  n = tanh(gx_n + r * gh_n)
//   h = z * h + (1 - z) * n
//
// tanh is clamped to +-1 beyond |a| > 19 as onert-micro does. GRUOptions (fused activation,
// return_sequences, time_major) are ignored, as onert-micro ignores them; a model whose output
// is not H values is refused.
//
// Backward is the full gradient: both weights, both biases, the input and the state. The
// forward keeps nothing: backward recomputes the hidden states into its scratch, (time + 1) x H
// floats plus 14 H for one step's gates and their gradients. onert-micro computes only the two
// weight gradients (engine/plan/onert_differences lists what a board does instead).
#include <cmath>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// The forward pass keeps the new state on the stack while the old one is still read; models
// for microcontrollers stay far below this.
constexpr int kMaxUnits = 256;

enum Slot : size_t {
  kInput = 0,
  kInputWeights = 1,
  kInputBias = 2,
  kHiddenWeights = 3,
  kHiddenBias = 4,
  kState = 5,
};

struct GruShape {
  int time = 0;
  int in = 0;
  int units = 0;  // H
};

template <typename Io>
GruShape ShapeOf(const Io& io) {
  const Tensor& input = InputTensor(io, kInput);
  GruShape s;
  s.time = input.shape[0];
  s.in = input.shape[2];
  s.units = InputTensor(io, kHiddenWeights).shape[1];
  return s;
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(6, 6, 2));
  if (!check.HasInput(kHiddenWeights) || !check.HasInput(kState)) {
    return check.Error("needs the hidden-state weights (input 3) and the state (input 5)");
  }
  const Dims input = check.InputDims(kInput);
  if (input.rank != 3 || input.d[1] != 1) {
    char text[64];
    FormatDims(input, text, sizeof(text));
    return check.Unsupported("input has shape %s; GRU runs [time, 1, features] (batch 1)", text);
  }
  const Dims wx = check.InputDims(kInputWeights);
  const Dims wh = check.InputDims(kHiddenWeights);
  if (wh.rank != 2 || wh.d[0] != 3 * wh.d[1]) {
    return check.Error("hidden-state weights must be [3H, H]");
  }
  const int units = wh.d[1];
  if (units > kMaxUnits) {
    return check.Unsupported("%d units; at most %d are supported", units, kMaxUnits);
  }
  if (wx.rank != 2 || wx.d[0] != 3 * units || wx.d[1] != input.d[2]) {
    return check.Error("input weights must be [3H, features] = [%d, %d]", 3 * units,
                       static_cast<int>(input.d[2]));
  }
  for (size_t bias : {size_t{kInputBias}, size_t{kHiddenBias}}) {
    if (check.HasInput(bias) &&
        check.Input(bias).element_count() != static_cast<size_t>(3 * units)) {
      return check.Error("bias input %zu has %zu elements, expected 3H = %d", bias,
                         check.Input(bias).element_count(), 3 * units);
    }
  }
  if (check.Input(kState).element_count() != static_cast<size_t>(units)) {
    return check.Error("the state has %zu elements, expected H = %d",
                       check.Input(kState).element_count(), units);
  }
  if (check.Output().element_count() != static_cast<size_t>(units)) {
    return check.Unsupported(
        "the output has %zu elements; GRU returns the last state only (H = %d), as onert-micro",
        check.Output().element_count(), units);
  }
  return Status::Ok();
}

float Sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

// onert-micro's clamp: beyond |a| > 19 the candidate is exactly +-1 (and its derivative 0).
float ClampedTanh(float a) {
  if (a > 19.0f) return 1.0f;
  if (a < -19.0f) return -1.0f;
  return std::tanh(a);
}

// out[r] = bias[r] + sum_c w[r][c] * v[c] for `rows` rows of `cols`.
void Affine(const float* w, const float* bias, const float* v, int rows, int cols, float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* w_row = w + r * cols;
    float sum = bias != nullptr ? bias[r] : 0.0f;
    for (int c = 0; c < cols; ++c) sum += w_row[c] * v[c];
    out[r] = sum;
  }
}

// The gates of unit j from the two affine products.
struct Gates {
  float z, r, n, hidden_candidate, candidate_input;
};
Gates GatesOf(const float* gx, const float* gh, int units, int j) {
  Gates g;
  g.z = Sigmoid(gx[j] + gh[j]);
  g.r = Sigmoid(gx[units + j] + gh[units + j]);
  g.hidden_candidate = gh[2 * units + j];
  g.candidate_input = gx[2 * units + j] + g.r * g.hidden_candidate;
  g.n = ClampedTanh(g.candidate_input);
  return g;
}

// The two affine products of one time step: gx = Wx x + bx and gh = Wh h + bh (3H each).
template <typename Io>
void Products(const Io& io, const GruShape& s, const float* x, const float* h, float* gx,
              float* gh) {
  Affine(InputFloats(io, kInputWeights),
         HasInput(io, kInputBias) ? InputFloats(io, kInputBias) : nullptr, x, 3 * s.units, s.in,
         gx);
  Affine(InputFloats(io, kHiddenWeights),
         HasInput(io, kHiddenBias) ? InputFloats(io, kHiddenBias) : nullptr, h, 3 * s.units,
         s.units, gh);
}

// One time step from the hidden state `h` into `next` (H each), using gx and gh as room.
template <typename Io>
void Step(const Io& io, const GruShape& s, const float* x, const float* h, float* next, float* gx,
          float* gh) {
  Products(io, s, x, h, gx, gh);
  for (int j = 0; j < s.units; ++j) {
    const Gates g = GatesOf(gx, gh, s.units, j);
    next[j] = g.z * h[j] + (1.0f - g.z) * g.n;
  }
}

Status Eval(const KernelIo& io) {
  const GruShape s = ShapeOf(io);
  float* h = MutableOutputFloats(io);
  const float* state = InputFloats(io, kState);
  for (int j = 0; j < s.units; ++j) h[j] = state[j];
  float next[kMaxUnits];
  float gx[3 * kMaxUnits];
  float gh[3 * kMaxUnits];
  const float* x = InputFloats(io, kInput);
  for (int t = 0; t < s.time; ++t) {
    Step(io, s, x + t * s.in, h, next, gx, gh);
    for (int j = 0; j < s.units; ++j) h[j] = next[j];
  }
  return Status::Ok();
}

size_t ScratchFloats(const Subgraph& subgraph, const Operator& op) {
  const int time = subgraph.tensors[op.inputs[kInput]].shape[0];
  const int units = subgraph.tensors[op.inputs[kHiddenWeights]].shape[1];
  return static_cast<size_t>(time + 1) * units + 14u * static_cast<size_t>(units);
}

Status Backward(const BackwardIo& io) {
  const GruShape s = ShapeOf(io);
  const int units = s.units;
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  float* d_wx = nullptr;
  float* d_bx = nullptr;
  float* d_wh = nullptr;
  float* d_bh = nullptr;
  const bool weights = io.trainable && io.rank != TrainRank::kOnlyBias;
  TS_RETURN_IF_ERROR(ParamGradient(io, kInputWeights, weights, &d_wx));
  TS_RETURN_IF_ERROR(ParamGradient(io, kInputBias, io.trainable, &d_bx));
  TS_RETURN_IF_ERROR(ParamGradient(io, kHiddenWeights, weights, &d_wh));
  TS_RETURN_IF_ERROR(ParamGradient(io, kHiddenBias, io.trainable, &d_bh));
  // A constant initial state is a parameter like the weights; a computed one gets its gradient
  // passed on like an input.
  float* d_state = nullptr;
  if (InputTensor(io, kState).constant) {
    TS_RETURN_IF_ERROR(ParamGradient(io, kState, weights, &d_state));
  } else {
    d_state = InputGradient(io, kState);
  }
  float* dx = InputGradient(io, kInput);

  // Scratch: hidden states h_0..h_T, then gx, gh, their gradients, dh and dh of the step before.
  float* history = io.scratch;
  float* gx = history + static_cast<size_t>(s.time + 1) * units;
  float* gh = gx + 3 * units;
  float* d_gx = gh + 3 * units;
  float* d_gh = d_gx + 3 * units;
  float* dh = d_gh + 3 * units;
  float* dh_before = dh + units;

  const float* x = InputFloats(io, kInput);
  const float* state = InputFloats(io, kState);
  for (int j = 0; j < units; ++j) history[j] = state[j];
  for (int t = 0; t < s.time; ++t) {
    Step(io, s, x + t * s.in, history + t * units, history + (t + 1) * units, gx, gh);
  }
  for (int j = 0; j < units; ++j) dh[j] = dy[j];

  const float* wx = InputFloats(io, kInputWeights);
  const float* wh = InputFloats(io, kHiddenWeights);
  for (int t = s.time - 1; t >= 0; --t) {
    const float* h = history + t * units;
    const float* x_t = x + t * s.in;
    Products(io, s, x_t, h, gx, gh);
    for (int j = 0; j < units; ++j) {
      const Gates g = GatesOf(gx, gh, units, j);
      const float d_z = dh[j] * (h[j] - g.n);
      const float d_n = dh[j] * (1.0f - g.z);
      const float d_candidate =
          std::fabs(g.candidate_input) > 19.0f ? 0.0f : d_n * (1.0f - g.n * g.n);
      const float d_r = d_candidate * g.hidden_candidate;
      const float d_reset = d_r * g.r * (1.0f - g.r);
      const float d_update = d_z * g.z * (1.0f - g.z);
      d_gx[j] = d_gh[j] = d_update;
      d_gx[units + j] = d_gh[units + j] = d_reset;
      d_gx[2 * units + j] = d_candidate;
      d_gh[2 * units + j] = d_candidate * g.r;
      dh_before[j] = dh[j] * g.z;
    }
    for (int row = 0; row < 3 * units; ++row) {
      if (d_bx != nullptr) d_bx[row] += d_gx[row];
      if (d_bh != nullptr) d_bh[row] += d_gh[row];
      if (d_wx != nullptr) {
        float* dw_row = d_wx + row * s.in;
        for (int c = 0; c < s.in; ++c) dw_row[c] += d_gx[row] * x_t[c];
      }
      if (d_wh != nullptr) {
        float* dw_row = d_wh + row * units;
        for (int c = 0; c < units; ++c) dw_row[c] += d_gh[row] * h[c];
      }
      if (dx != nullptr) {
        const float* w_row = wx + row * s.in;
        float* dx_row = dx + t * s.in;
        for (int c = 0; c < s.in; ++c) dx_row[c] += d_gx[row] * w_row[c];
      }
      const float* w_row = wh + row * units;
      for (int c = 0; c < units; ++c) dh_before[c] += d_gh[row] * w_row[c];
    }
    for (int j = 0; j < units; ++j) dh[j] = dh_before[j];
  }
  if (d_state != nullptr) {
    for (int j = 0; j < units; ++j) d_state[j] += dh[j];
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationGru() {
  static constexpr OpRegistration kRegistration = {
      op::kGru,
      Prepare,
      Eval,
      Backward,
      ScratchFloats,
      /*int32_inputs=*/0,
      /*backward_reads_inputs=*/(1u << kInput) | (1u << kState),
      OutputUse::kNever,
      /*weights_input=*/kInputWeights,
      /*bias_input=*/kInputBias,
      /*half_rank=*/false,
      /*prepare_checks_types=*/false,
      /*custom_code=*/nullptr,
      /*more_weight_inputs=*/(1u << kHiddenWeights) | (1u << kState),
      /*more_bias_inputs=*/1u << kHiddenBias};
  return kRegistration;
}

}  // namespace trainscope
