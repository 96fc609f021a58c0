// SPDX-License-Identifier: Apache-2.0
//
// Robustness: thousands of small single-operator models with random shapes, options and operand
// values (negative axes, out-of-range indices, zero strides, odd paddings...). Whatever
// CheckRunnable accepts must run forward and backward without touching memory outside its buffers;
// whatever it rejects must come back as a Status with a message. Run under the asan preset this
// finds out-of-bounds accesses; here it also requires that a fair share of the models really run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "engine/kernels/kernel.h"
#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "tests/engine/kernels/kernel_harness.h"

namespace trainscope {
namespace {

class RandomModel {
 public:
  explicit RandomModel(uint32_t seed) : rng_(seed) {}

  int Int(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  std::vector<int32_t> Shape(int max_rank = 4) {
    std::vector<int32_t> shape(static_cast<size_t>(Int(0, max_rank)));
    for (int32_t& d : shape) d = Int(1, 3);
    return shape;
  }

  std::vector<int32_t> Ints(size_t count, int low, int high) {
    std::vector<int32_t> values(count);
    for (int32_t& v : values) v = Int(low, high);
    return values;
  }

  static int32_t WindowOut(Padding padding, int32_t in, int32_t filter, int32_t stride,
                           int32_t dilation) {
    if (stride < 1) return 1;
    const int32_t effective = (filter - 1) * dilation + 1;
    const int32_t out =
        padding == Padding::kSame ? (in + stride - 1) / stride : (in - effective + stride) / stride;
    return out < 1 ? 1 : out;
  }

  static size_t Count(const std::vector<int32_t>& shape) {
    size_t count = 1;
    for (int32_t d : shape) count *= static_cast<size_t>(d);
    return count;
  }

  // Mostly-consistent shapes so that a good share of the models passes Prepare.
  ModelBuilder Build() {
    static constexpr int32_t kOps[] = {op::kFullyConnected,
                                       op::kConv2D,
                                       op::kDepthwiseConv2D,
                                       op::kMaxPool2D,
                                       op::kAveragePool2D,
                                       op::kReshape,
                                       op::kSqueeze,
                                       op::kExpandDims,
                                       op::kSoftmax,
                                       op::kRelu,
                                       op::kRelu6,
                                       op::kLeakyRelu,
                                       op::kLogistic,
                                       op::kTanh,
                                       op::kExp,
                                       op::kAdd,
                                       op::kSub,
                                       op::kMul,
                                       op::kMean,
                                       op::kConcatenation,
                                       op::kStridedSlice,
                                       op::kPad,
                                       op::kTranspose,
                                       op::kGather};
    const int32_t opcode = kOps[Int(0, static_cast<int>(std::size(kOps)) - 1)];
    ModelBuilder b;
    OpOptions o;
    o.padding = Chance(0.5) ? Padding::kSame : Padding::kValid;
    o.stride_h = Chance(0.1) ? Int(-1, 0) : Int(1, 3);
    o.stride_w = Int(1, 3);
    o.dilation_h = Int(1, 2);
    o.dilation_w = Chance(0.1) ? 0 : Int(1, 2);
    o.filter_h = Int(1, 3);
    o.filter_w = Int(1, 3);
    o.activation = static_cast<Activation>(Int(0, 4));
    o.axis = Int(-4, 4);
    o.keep_dims = Chance(0.5);
    o.keep_num_dims = Chance(0.2);
    o.beta = 1.5f;
    o.alpha = 0.1f;
    o.begin_mask = Int(0, 7);
    o.end_mask = Int(0, 7);
    o.ellipsis_mask = Chance(0.2) ? 1 << Int(0, 2) : 0;
    o.new_axis_mask = Chance(0.2) ? Int(0, 7) : 0;
    o.shrink_axis_mask = Chance(0.3) ? Int(0, 7) : 0;
    if (Chance(0.3)) o.squeeze_dims = Ints(static_cast<size_t>(Int(1, 2)), -3, 3);

    const bool windowed = opcode == op::kConv2D || opcode == op::kDepthwiseConv2D ||
                          opcode == op::kMaxPool2D || opcode == op::kAveragePool2D;
    std::vector<int32_t> in_shape =
        windowed ? std::vector<int32_t>{Int(1, 2), Int(1, 5), Int(1, 5), Int(1, 3)} : Shape();
    std::vector<int32_t> out_shape = Shape();
    std::vector<int> inputs;
    const int x = b.AddTensor("x", in_shape);
    inputs.push_back(x);
    std::vector<int32_t> graph_inputs = {x};
    auto constant = [&](std::vector<int32_t> shape) {
      return b.AddConstant("c" + std::to_string(inputs.size()), shape,
                           std::vector<float>(Count(shape), 0.5f));
    };
    auto int_constant = [&](std::vector<int32_t> shape, int low, int high) {
      const size_t count = Count(shape);
      return b.AddConstantInt32("i" + std::to_string(inputs.size()), shape, Ints(count, low, high));
    };
    switch (opcode) {
      case op::kFullyConnected: {
        const int32_t in = in_shape.empty() ? 1 : in_shape.back();
        const int32_t out = Int(1, 3);
        inputs.push_back(constant({out, Chance(0.9) ? in : in + 1}));
        inputs.push_back(Chance(0.7) ? constant({out}) : -1);
        out_shape = {static_cast<int32_t>(Count(in_shape) / static_cast<size_t>(in)), out};
        break;
      }
      case op::kConv2D:
      case op::kDepthwiseConv2D:
      case op::kMaxPool2D:
      case op::kAveragePool2D: {
        const bool pool = opcode == op::kMaxPool2D || opcode == op::kAveragePool2D;
        const int32_t kh = pool ? o.filter_h : Int(1, 3);
        const int32_t kw = pool ? o.filter_w : Int(1, 3);
        const int32_t channels = Int(1, 3) * (opcode == op::kDepthwiseConv2D ? in_shape[3] : 1);
        if (opcode == op::kConv2D) inputs.push_back(constant({channels, kh, kw, in_shape[3]}));
        if (opcode == op::kDepthwiseConv2D) inputs.push_back(constant({1, kh, kw, channels}));
        if (!pool) inputs.push_back(Chance(0.7) ? constant({channels}) : -1);
        out_shape = {in_shape[0],
                     WindowOut(o.padding, in_shape[1], kh, o.stride_h, pool ? 1 : o.dilation_h),
                     WindowOut(o.padding, in_shape[2], kw, o.stride_w, pool ? 1 : o.dilation_w),
                     pool ? in_shape[3] : channels};
        if (Chance(0.15)) out_shape[1] += 1;
        break;
      }
      case op::kAdd:
      case op::kSub:
      case op::kMul: {
        const int other = b.AddTensor("x2", Chance(0.5) ? in_shape : Shape());
        inputs.push_back(other);
        graph_inputs.push_back(other);
        if (Chance(0.5)) out_shape = in_shape;
        break;
      }
      case op::kReshape:
        inputs.push_back(int_constant({2}, -1, 4));
        out_shape = {1, static_cast<int32_t>(Count(in_shape)) + (Chance(0.1) ? 1 : 0)};
        break;
      case op::kExpandDims: {
        const auto rank = static_cast<int>(in_shape.size());
        const int axis = Int(-rank - 2, rank + 1);
        inputs.push_back(b.AddConstantInt32("axis", {1}, {axis}));
        out_shape = in_shape;
        const int at = axis < 0 ? axis + rank + 1 : axis;
        if (at >= 0 && at <= rank) out_shape.insert(out_shape.begin() + at, 1);
        break;
      }
      case op::kMean: {
        const auto rank = static_cast<int>(in_shape.size());
        const std::vector<int32_t> axes = Ints(static_cast<size_t>(Int(0, 3)), -rank - 1, rank);
        inputs.push_back(b.AddConstantInt32("axes", {static_cast<int32_t>(axes.size())}, axes));
        out_shape.clear();
        for (int d = 0; d < rank; ++d) {
          bool reduced = false;
          for (int32_t a : axes) reduced = reduced || a == d || a + rank == d;
          if (!reduced || o.keep_dims) out_shape.push_back(reduced ? 1 : in_shape[d]);
        }
        break;
      }
      case op::kPad: {
        const auto rank = static_cast<int32_t>(in_shape.size());
        const std::vector<int32_t> pads =
            Ints(static_cast<size_t>(2 * rank), Chance(0.1) ? -1 : 0, 2);
        inputs.push_back(b.AddConstantInt32("paddings", {rank, 2}, pads));
        out_shape = in_shape;
        for (int32_t d = 0; d < rank; ++d) out_shape[d] += pads[2 * d] + pads[2 * d + 1];
        break;
      }
      case op::kTranspose: {
        std::vector<int32_t> perm(in_shape.size());
        for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int32_t>(d);
        std::shuffle(perm.begin(), perm.end(), rng_);
        if (!perm.empty() && Chance(0.1)) perm[0] = Int(-1, 4);
        inputs.push_back(b.AddConstantInt32("perm", {static_cast<int32_t>(perm.size())}, perm));
        out_shape = in_shape;
        for (size_t d = 0; d < perm.size(); ++d) {
          if (perm[d] >= 0 && perm[d] < static_cast<int32_t>(in_shape.size())) {
            out_shape[d] = in_shape[perm[d]];
          }
        }
        break;
      }
      case op::kGather: {
        const std::vector<int32_t> idx_shape = Shape(2);
        inputs.push_back(int_constant(idx_shape, Chance(0.2) ? -1 : 0, 3));
        const auto rank = static_cast<int>(in_shape.size());
        if (rank == 0) break;
        o.axis = Int(-rank, rank - 1);
        const int axis = o.axis < 0 ? o.axis + rank : o.axis;
        out_shape.assign(in_shape.begin(), in_shape.begin() + axis);
        out_shape.insert(out_shape.end(), idx_shape.begin(), idx_shape.end());
        out_shape.insert(out_shape.end(), in_shape.begin() + axis + 1, in_shape.end());
        break;
      }
      case op::kStridedSlice: {
        // Mostly plain forward slices whose shape is easy to predict; the masks stay random.
        const auto rank = static_cast<int32_t>(in_shape.size());
        std::vector<int32_t> begin, end, strides;
        const bool plain = Chance(0.7);
        if (plain) o.begin_mask = o.end_mask = o.ellipsis_mask = o.new_axis_mask = 0;
        out_shape.clear();
        for (int32_t d = 0; d < rank; ++d) {
          begin.push_back(Int(0, in_shape[d] - 1));
          end.push_back(Int(begin.back() + 1, in_shape[d]));
          strides.push_back(Int(1, 2));
          const bool shrink = (o.shrink_axis_mask >> d & 1) != 0;
          if (!shrink)
            out_shape.push_back((end.back() - begin.back() + strides.back() - 1) / strides.back());
        }
        if (!plain) {
          begin = Ints(begin.size(), -4, 4);
          strides = Ints(begin.size(), -2, 2);
        }
        inputs.push_back(b.AddConstantInt32("begin", {rank}, begin));
        inputs.push_back(b.AddConstantInt32("end", {rank}, end));
        inputs.push_back(b.AddConstantInt32("strides", {rank}, strides));
        break;
      }
      case op::kConcatenation: {
        const auto rank = static_cast<int>(in_shape.size());
        if (rank == 0) break;
        o.axis = Int(-rank, rank - 1);
        const int axis = o.axis < 0 ? o.axis + rank : o.axis;
        out_shape = in_shape;
        for (int k = Int(0, 2); k > 0; --k) {
          std::vector<int32_t> shape = in_shape;
          shape[axis] = Int(1, 3);
          if (Chance(0.1)) shape = Shape();
          const int other = b.AddTensor("x" + std::to_string(k), shape);
          inputs.push_back(other);
          graph_inputs.push_back(other);
          out_shape[axis] += shape.size() == in_shape.size() ? shape[axis] : 1;
        }
        break;
      }
      default:
        if (Chance(0.7)) out_shape = in_shape;
        break;
    }
    const int y = b.AddTensor("y", out_shape);
    b.AddOperator(opcode, inputs, {y}, o);
    b.SetInputs(graph_inputs);
    b.SetOutputs({y});
    return b;
  }

 private:
  std::mt19937 rng_;
};

// Runs Backward of operator 0 with a gradient buffer for every float tensor.
Status RunBackward(testing::KernelHarness& h) {
  const Subgraph& g = h.subgraph();
  std::vector<std::vector<float>> buffers(g.tensors.size());
  std::vector<float*> gradients(g.tensors.size(), nullptr);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].type != ElementType::kFloat32) continue;
    buffers[t].assign(g.tensors[t].element_count(), 0.25f);
    gradients[t] = buffers[t].data();
  }
  std::vector<float> scratch(BackwardScratchFloats(g, g.operators[0]));
  BackwardIo io;
  io.subgraph = &g;
  io.op = &g.operators[0];
  io.tensor_data = h.data();
  io.gradients = gradients.data();
  io.trainable = true;
  io.scratch = scratch.empty() ? nullptr : scratch.data();
  return FindRegistration(io.op->opcode)->backward(io);
}

TEST(RandomModels, EveryOutcomeIsAStatusAndAcceptedModelsRunBothWays) {
  int ran = 0;
  int rejected = 0;
  constexpr int kModels = 3000;
  for (int i = 0; i < kModels; ++i) {
    RandomModel random(static_cast<uint32_t>(i));
    const ModelBuilder builder = random.Build();
    testing::KernelHarness h;
    const Status loaded = h.Load(builder);
    if (!loaded.ok()) {
      EXPECT_GT(std::strlen(loaded.message()), 10u) << "model " << i;
      ++rejected;
      continue;
    }
    for (int32_t input : h.subgraph().inputs) {
      for (float& v : h.Values(input)) v = static_cast<float>(random.Int(-20, 20)) / 8.0f;
    }
    const Status forward = h.Forward();
    if (!forward.ok()) {
      EXPECT_GT(std::strlen(forward.message()), 10u) << "model " << i;
      ++rejected;
      continue;
    }
    const Status backward = RunBackward(h);
    EXPECT_TRUE(backward.ok()) << "model " << i << " ("
                               << OpcodeName(h.subgraph().operators[0].opcode)
                               << "): forward ran but backward failed: " << backward.message();
    ++ran;
  }
  EXPECT_GT(ran, kModels / 5) << "too few random models were runnable to exercise the kernels";
  EXPECT_GT(rejected, kModels / 10) << "the generator no longer produces invalid models";
}

}  // namespace
}  // namespace trainscope
