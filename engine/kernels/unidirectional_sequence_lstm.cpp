// SPDX-License-Identifier: Apache-2.0
//
// UNIDIRECTIONAL_SEQUENCE_LSTM (float32), forward only: onert-micro runs it but has no backward
// kernel for it. An LSTM over every step of a sequence that returns the output of every step.
// Inputs (-1 = absent):
//
//   0      x: [batch, time, in], or [time, batch, in] with time_major
//   1-4    input weights W_i, W_f, W_c, W_o: [cells, in]
//   5-8    recurrent weights R_i, R_f, R_c, R_o: [cells, out]
//   9-11   peephole weights p_i, p_f, p_o: [cells], optional
//   12-15  gate biases b_i, b_f, b_c, b_o: [cells]
//   16-17  projection P: [out, cells] and its bias: [out], optional
//   18-19  the initial output state h: [batch, out] and cell state c: [batch, cells]
//   20-23  layer-norm coefficients of the four gates (a 24-input op; refused when present)
//
// One step for each sequence of the batch, with act the fused activation (TANH in converted Keras
// models) and s the sigmoid:
//
//   f = s(W_f x + R_f h + p_f * c + b_f)
//   i = s(W_i x + R_i h + p_i * c + b_i), or 1 - f without W_i, R_i and b_i (CIFG)
//   g = act(W_c x + R_c h + b_c)
//   c = f * c + i * g,                    clipped to +-cell_clip when cell_clip > 0
//   o = s(W_o x + R_o h + p_o * c + b_o)  (the new c)
//   h = o * act(c), then h = P h + bias   clipped to +-proj_clip when proj_clip > 0
//
// The output holds h of every step, [batch, time, out] (or [time, batch, out]); without a
// projection out = cells. asymmetric_quantize_inputs only concerns int8 weights and is ignored;
// diagonal recurrent weights and the layer-normalised variant are refused as unsupported.
//
// The state: TFLite keeps h and c in the two state tensors (variables) and carries them from one
// invoke to the next. The engine runs independent samples (the samples of a data set, the
// samples of one `run` file), so every run starts from the initial state the model holds, zeros
// for a variable without bytes as converters write it, and the state tensors are never written.
// A constant or computed state is read as it is.
//
// Memory: the cell state, the four gates and the unprojected output of one step live on the
// stack (6 x cells floats), as GRU's step does; the previous h is read back from the output.
#include <cmath>
#include <cstdio>

#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

// Models for microcontrollers stay far below this; it bounds the stack of one step.
constexpr int kMaxCells = 256;

enum Slot : size_t {
  kInput = 0,
  kInputWeights = 1,      // + gate: W_i, W_f, W_c, W_o
  kRecurrentWeights = 5,  // + gate
  kCellToInput = 9,
  kCellToForget = 10,
  kCellToOutput = 11,
  kGateBias = 12,  // + gate
  kProjectionWeights = 16,
  kProjectionBias = 17,
  kOutputState = 18,
  kCellState = 19,
  kLayerNormFirst = 20,
};

// Gate order of the weight and bias inputs.
enum Gate : size_t { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };
constexpr const char* kGateNames[] = {"input", "forget", "cell", "output"};

struct LstmShape {
  int batch = 0;
  int time = 0;
  int in = 0;
  int cells = 0;
  int out = 0;
};

LstmShape ShapeOf(const Tensor& x, const Tensor& input_to_output, const Tensor& recurrent_to_output,
                  bool time_major) {
  LstmShape s;
  s.batch = time_major ? x.shape[1] : x.shape[0];
  s.time = time_major ? x.shape[0] : x.shape[1];
  s.in = x.shape[2];
  s.cells = input_to_output.shape[0];
  s.out = recurrent_to_output.shape[1];
  return s;
}

// A state that starts at zero: a variable whose buffer holds no bytes.
bool StartsAtZero(const Tensor& tensor) {
  return tensor.is_variable && !tensor.constant;
}

// "input 6 (tensor 5 'w') has shape [2, 3], expected [4, 3] (recurrent weights of the forget
// gate, [cells, out])"
Status ExpectInputDims(const OpCheck& check, size_t i, const Dims& expected, const char* what,
                       const char* layout) {
  const Dims actual = check.InputDims(i);
  if (actual == expected) return Status::Ok();
  char have[96];
  char want[96];
  FormatDims(actual, have, sizeof(have));
  FormatDims(expected, want, sizeof(want));
  return check.Error("input %zu (tensor %d '%s') has shape %s, expected %s (%s, %s)", i,
                     static_cast<int>(check.op().inputs[i]), check.Input(i).name.c_str(), have,
                     want, what, layout);
}

Dims Matrix(int rows, int cols) {
  Dims d;
  d.rank = 2;
  d.d[0] = rows;
  d.d[1] = cols;
  return d;
}

Dims Vector(int size) {
  Dims d;
  d.rank = 1;
  d.d[0] = size;
  return d;
}

// The gate weights and biases: every gate but a CIFG input gate has all three.
Status CheckGates(const OpCheck& check, const LstmShape& s, bool cifg) {
  for (size_t gate = kInputGate; gate <= kOutputGate; ++gate) {
    char what[64];
    const size_t slots[] = {kInputWeights + gate, kRecurrentWeights + gate, kGateBias + gate};
    if (gate == kInputGate && cifg) {
      if (check.HasInput(kGateBias)) {
        return check.Error(
            "the input gate has a bias (input 12) but no weights (inputs 1 and 5 absent: CIFG)");
      }
      continue;
    }
    for (size_t slot : slots) {
      if (!check.HasInput(slot)) {
        return check.Error("input %zu (%s of the %s gate) is absent", slot,
                           slot == slots[0]   ? "input weights"
                           : slot == slots[1] ? "recurrent weights"
                                              : "bias",
                           kGateNames[gate]);
      }
    }
    std::snprintf(what, sizeof(what), "input weights of the %s gate", kGateNames[gate]);
    TS_RETURN_IF_ERROR(
        ExpectInputDims(check, slots[0], Matrix(s.cells, s.in), what, "[cells, in]"));
    std::snprintf(what, sizeof(what), "recurrent weights of the %s gate", kGateNames[gate]);
    TS_RETURN_IF_ERROR(
        ExpectInputDims(check, slots[1], Matrix(s.cells, s.out), what, "[cells, out]"));
    std::snprintf(what, sizeof(what), "bias of the %s gate", kGateNames[gate]);
    TS_RETURN_IF_ERROR(ExpectInputDims(check, slots[2], Vector(s.cells), what, "[cells]"));
  }
  return Status::Ok();
}

// Peepholes: none, or the forget and output gates' plus the input gate's unless it is CIFG.
Status CheckPeepholes(const OpCheck& check, const LstmShape& s, bool cifg) {
  const bool input = check.HasInput(kCellToInput);
  const bool forget = check.HasInput(kCellToForget);
  const bool output = check.HasInput(kCellToOutput);
  if (!input && !forget && !output) return Status::Ok();
  if (!forget || !output) {
    return check.Error(
        "peephole weights need both the forget and the output gate's (inputs 10 "
        "and 11), or none");
  }
  if (cifg && input) {
    return check.Error("a peephole for the input gate (input 9) but no input gate (CIFG)");
  }
  if (!cifg && !input) {
    return check.Error(
        "peephole weights for the forget and output gates but not for the input "
        "gate (input 9)");
  }
  for (size_t slot : {size_t{kCellToInput}, size_t{kCellToForget}, size_t{kCellToOutput}}) {
    if (!check.HasInput(slot)) continue;
    TS_RETURN_IF_ERROR(
        ExpectInputDims(check, slot, Vector(s.cells), "peephole weights", "[cells]"));
  }
  return Status::Ok();
}

Status CheckProjection(const OpCheck& check, const LstmShape& s) {
  if (!check.HasInput(kProjectionWeights)) {
    if (check.HasInput(kProjectionBias)) {
      return check.Error("a projection bias (input 17) without projection weights (input 16)");
    }
    if (s.out != s.cells) {
      return check.Error(
          "without a projection the output width (%d, the recurrent weights' "
          "columns) must be the number of cells (%d)",
          s.out, s.cells);
    }
    return Status::Ok();
  }
  TS_RETURN_IF_ERROR(ExpectInputDims(check, kProjectionWeights, Matrix(s.out, s.cells),
                                     "projection weights", "[out, cells]"));
  if (check.HasInput(kProjectionBias)) {
    TS_RETURN_IF_ERROR(
        ExpectInputDims(check, kProjectionBias, Vector(s.out), "projection bias", "[out]"));
  }
  return Status::Ok();
}

Status CheckState(const OpCheck& check, size_t slot, const char* what, int width,
                  const char* layout, const LstmShape& s) {
  if (!check.HasInput(slot)) return check.Error("input %zu (the initial %s) is absent", slot, what);
  const size_t expected = static_cast<size_t>(s.batch) * static_cast<size_t>(width);
  if (check.Input(slot).element_count() != expected) {
    return check.Error(
        "input %zu (tensor %d '%s', the initial %s) has %zu elements, expected %zu "
        "(%s)",
        slot, static_cast<int>(check.op().inputs[slot]), check.Input(slot).name.c_str(), what,
        check.Input(slot).element_count(), expected, layout);
  }
  // A zero-initialised variable another operator writes would be a state carried between
  // operators, which this kernel does not model.
  if (StartsAtZero(check.Input(slot))) {
    const int32_t tensor = check.op().inputs[slot];
    for (const Operator& other : check.subgraph().operators) {
      for (int32_t output : other.outputs) {
        if (output == tensor) {
          return check.Unsupported(
              "the initial %s (input %zu, tensor %d '%s') is a variable another operator "
              "writes; every run starts from the model's initial state",
              what, slot, static_cast<int>(tensor), check.Input(slot).name.c_str());
        }
      }
    }
  }
  return Status::Ok();
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(20, 24, 1));
  if (op.inputs.size() != 20 && op.inputs.size() != 24) {
    return check.Error("has %zu inputs, expected 20 or 24", op.inputs.size());
  }
  for (size_t i = kLayerNormFirst; i < op.inputs.size(); ++i) {
    if (check.HasInput(i)) {
      return check.Unsupported(
          "input %zu is a layer-norm coefficient; the layer-normalised LSTM "
          "is not supported",
          i);
    }
  }
  const OpOptions& options = check.options();
  if (options.diagonal_recurrent_tensors) {
    return check.Unsupported(
        "diagonal recurrent weights (diagonal_recurrent_tensors) are not "
        "supported");
  }
  TS_RETURN_IF_ERROR(check.ExpectSupportedActivation());
  const Dims x = check.InputDims(kInput);
  if (x.rank != 3) {
    char text[64];
    FormatDims(x, text, sizeof(text));
    return check.Error(
        "input 0 has shape %s; expected %s", text,
        options.time_major ? "[time, batch, features] (time_major)" : "[batch, time, features]");
  }
  // Cells and output width come from the output gate, which every variant has.
  const size_t shape_slots[] = {kInputWeights + kOutputGate, kRecurrentWeights + kOutputGate};
  for (size_t slot : shape_slots) {
    if (!check.HasInput(slot)) {
      return check.Error("input %zu (%s weights of the output gate) is absent", slot,
                         slot == shape_slots[0] ? "input" : "recurrent");
    }
    TS_RETURN_IF_ERROR(check.ExpectInputRank(slot, 2));
  }
  const LstmShape s = ShapeOf(check.Input(kInput), check.Input(shape_slots[0]),
                              check.Input(shape_slots[1]), options.time_major);
  if (s.cells > kMaxCells) {
    return check.Unsupported("%d cells; at most %d are supported", s.cells, kMaxCells);
  }
  const bool cifg = !check.HasInput(kInputWeights + kInputGate);
  if (cifg != !check.HasInput(kRecurrentWeights + kInputGate)) {
    return check.Error(
        "the input gate needs both its input and recurrent weights (inputs 1 and "
        "5), or neither (CIFG)");
  }
  TS_RETURN_IF_ERROR(CheckGates(check, s, cifg));
  TS_RETURN_IF_ERROR(CheckPeepholes(check, s, cifg));
  TS_RETURN_IF_ERROR(CheckProjection(check, s));
  TS_RETURN_IF_ERROR(CheckState(check, kOutputState, "output state", s.out, "[batch, out]", s));
  TS_RETURN_IF_ERROR(CheckState(check, kCellState, "cell state", s.cells, "[batch, cells]", s));
  Dims expected;
  expected.rank = 3;
  expected.d[0] = options.time_major ? s.time : s.batch;
  expected.d[1] = options.time_major ? s.batch : s.time;
  expected.d[2] = s.out;
  return check.ExpectOutputDims(expected,
                                options.time_major ? "[time, batch, out]" : "[batch, time, out]");
}

float Sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

// A clip of 0 or below (or NaN) leaves the value as it is.
float Clip(float value, float clip) {
  if (!(clip > 0.0f)) return value;
  return value < -clip ? -clip : (value > clip ? clip : value);
}

const float* OptionalFloats(const KernelIo& io, size_t slot) {
  return HasInput(io, slot) ? InputFloats(io, slot) : nullptr;
}

// Row `row` of the initial state, or nullptr when it starts at zero.
const float* InitialState(const KernelIo& io, size_t slot, int row, int width) {
  if (StartsAtZero(InputTensor(io, slot))) return nullptr;
  return InputFloats(io, slot) + static_cast<size_t>(row) * static_cast<size_t>(width);
}

// out[r] = bias[r] + sum_c w[r][c] * v[c] (+ the previous out[r] when `accumulate`).
void Affine(const float* w, const float* bias, const float* v, int rows, int cols, bool accumulate,
            float* out) {
  for (int r = 0; r < rows; ++r) {
    const float* w_row = w + static_cast<size_t>(r) * static_cast<size_t>(cols);
    float sum = accumulate ? out[r] : 0.0f;
    if (bias != nullptr) sum += bias[r];
    for (int c = 0; c < cols; ++c) sum += w_row[c] * v[c];
    out[r] = sum;
  }
}

// The weights of one LSTM, resolved once per Eval (nullptr where absent).
struct LstmWeights {
  const float* input[4];
  const float* recurrent[4];
  const float* bias[4];
  const float* peephole_input;
  const float* peephole_forget;
  const float* peephole_output;
  const float* projection;
  const float* projection_bias;
};

LstmWeights WeightsOf(const KernelIo& io) {
  LstmWeights w;
  for (size_t gate = kInputGate; gate <= kOutputGate; ++gate) {
    w.input[gate] = OptionalFloats(io, kInputWeights + gate);
    w.recurrent[gate] = OptionalFloats(io, kRecurrentWeights + gate);
    w.bias[gate] = OptionalFloats(io, kGateBias + gate);
  }
  w.peephole_input = OptionalFloats(io, kCellToInput);
  w.peephole_forget = OptionalFloats(io, kCellToForget);
  w.peephole_output = OptionalFloats(io, kCellToOutput);
  w.projection = OptionalFloats(io, kProjectionWeights);
  w.projection_bias = OptionalFloats(io, kProjectionBias);
  return w;
}

// One step of one sequence: x (in), the previous output h (out, nullptr = zeros), the cell state
// c (cells, updated), into y (out). `gates` holds 4 x cells floats and `hidden` cells floats.
void Step(const LstmWeights& w, const LstmShape& s, const OpOptions& options, const float* x,
          const float* h, float* c, float* gates, float* hidden, float* y) {
  const bool cifg = w.input[kInputGate] == nullptr;
  for (size_t gate = kInputGate; gate <= kOutputGate; ++gate) {
    if (gate == kInputGate && cifg) continue;
    float* z = gates + gate * static_cast<size_t>(s.cells);
    Affine(w.input[gate], w.bias[gate], x, s.cells, s.in, false, z);
    if (h != nullptr) Affine(w.recurrent[gate], nullptr, h, s.cells, s.out, true, z);
  }
  const float* z_input = gates;
  const float* z_forget = gates + s.cells;
  const float* z_cell = gates + 2 * s.cells;
  const float* z_output = gates + 3 * s.cells;
  // Without a projection the unprojected output is the output.
  float* m = w.projection != nullptr ? hidden : y;
  for (int j = 0; j < s.cells; ++j) {
    const float c_before = c[j];
    const float forget = Sigmoid(
        z_forget[j] + (w.peephole_forget != nullptr ? w.peephole_forget[j] * c_before : 0.0f));
    const float input =
        cifg ? 1.0f - forget
             : Sigmoid(z_input[j] +
                       (w.peephole_input != nullptr ? w.peephole_input[j] * c_before : 0.0f));
    const float candidate = ApplyActivation(options.activation, z_cell[j]);
    const float c_after = Clip(forget * c_before + input * candidate, options.cell_clip);
    const float output = Sigmoid(
        z_output[j] + (w.peephole_output != nullptr ? w.peephole_output[j] * c_after : 0.0f));
    c[j] = c_after;
    m[j] = output * ApplyActivation(options.activation, c_after);
  }
  if (w.projection != nullptr) {
    Affine(w.projection, w.projection_bias, hidden, s.out, s.cells, false, y);
    for (int r = 0; r < s.out; ++r) y[r] = Clip(y[r], options.proj_clip);
  }
}

Status Eval(const KernelIo& io) {
  const OpOptions& options = io.op->options;
  const LstmShape s = ShapeOf(InputTensor(io, kInput), InputTensor(io, kInputWeights + kOutputGate),
                              InputTensor(io, kRecurrentWeights + kOutputGate), options.time_major);
  const LstmWeights w = WeightsOf(io);
  const float* x = InputFloats(io, kInput);
  float* y = MutableOutputFloats(io);
  float c[kMaxCells];
  float gates[4 * kMaxCells];
  float hidden[kMaxCells];
  // Sequences are independent: each runs through all its steps before the next one starts.
  for (int b = 0; b < s.batch; ++b) {
    const float* c0 = InitialState(io, kCellState, b, s.cells);
    for (int j = 0; j < s.cells; ++j) c[j] = c0 != nullptr ? c0[j] : 0.0f;
    const float* h = InitialState(io, kOutputState, b, s.out);
    for (int t = 0; t < s.time; ++t) {
      const size_t row = static_cast<size_t>(options.time_major ? t * s.batch + b : b * s.time + t);
      float* y_row = y + row * static_cast<size_t>(s.out);
      Step(w, s, options, x + row * static_cast<size_t>(s.in), h, c, gates, hidden, y_row);
      h = y_row;
    }
  }
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationUnidirectionalSequenceLstm() {
  static constexpr OpRegistration kRegistration = {op::kUnidirectionalSequenceLstm,
                                                   Prepare,
                                                   Eval,
                                                   /*backward=*/nullptr,
                                                   nullptr,
                                                   /*int32_inputs=*/0,
                                                   /*backward_reads_inputs=*/0,
                                                   OutputUse::kNever,
                                                   /*weights_input=*/-1,
                                                   /*bias_input=*/-1,
                                                   /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
