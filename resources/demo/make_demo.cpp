// SPDX-License-Identifier: Apache-2.0
//
// Writes the bundled demo: a small convolutional classifier (demo.circle) and its data set of
// 12x12 images of horizontal, vertical, diagonal and anti-diagonal stripes, low in contrast and
// noisy, in onert-micro's raw float32 convention (sample-major inputs, one float class index per
// sample). Everything is generated from a fixed seed, so every build writes identical bytes. The
// model carries its training setup as CIRCLE_TRAINING metadata (Adam, sparse cross-entropy), which
// the app, trainscope-cli and the board simulator all start from.
//
// usage: trainscope-make-demo OUTPUT_DIR
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "engine/train/training_metadata.h"

namespace {

using trainscope::Activation;
using trainscope::ModelBuilder;
using trainscope::OpOptions;
using trainscope::Padding;
namespace op = trainscope::op;

constexpr int kSide = 12;
constexpr int kClasses = 4;

// A portable generator (std:: distributions differ between standard libraries).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<uint32_t>(state_ >> 32);
  }
  float Uniform(float low, float high) {
    return low + (high - low) * static_cast<float>(Next()) / 4294967296.0f;
  }

 private:
  uint64_t state_;
};

std::vector<float> HeUniform(Random& random, size_t count, int fan_in) {
  const float limit = std::sqrt(6.0f / static_cast<float>(fan_in));
  std::vector<float> values(count);
  for (float& v : values) v = random.Uniform(-limit, limit);
  return values;
}

void DrawSample(Random& random, int label, float* image) {
  const int period = 2 + static_cast<int>(random.Next() % 3);
  const int phase = static_cast<int>(random.Next() % static_cast<uint32_t>(period));
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const int coordinate = label == 0 ? y : label == 1 ? x : label == 2 ? x + y : x - y + kSide;
      const bool on = (coordinate + phase) % period == 0;
      image[y * kSide + x] = (on ? 0.75f : 0.25f) + random.Uniform(-0.25f, 0.25f);
    }
  }
}

bool WriteFile(const std::string& path, const void* data, size_t bytes) {
  const std::string temporary = path + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) return false;
  const bool written = std::fwrite(data, 1, bytes, file) == bytes;
  if (std::fclose(file) != 0 || !written) return false;
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

bool WriteDataSet(const std::string& dir, const std::string& name, int samples, uint64_t seed) {
  Random random(seed);
  std::vector<float> inputs(static_cast<size_t>(samples) * kSide * kSide);
  std::vector<float> labels(static_cast<size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    const int label = i % kClasses;
    labels[static_cast<size_t>(i)] = static_cast<float>(label);
    DrawSample(random, label, &inputs[static_cast<size_t>(i) * kSide * kSide]);
  }
  return WriteFile(dir + "/" + name + "_input.bin", inputs.data(), inputs.size() * sizeof(float)) &&
         WriteFile(dir + "/" + name + "_target.bin", labels.data(), labels.size() * sizeof(float));
}

// Slow enough that what is frozen shows: all layers reach about 90 % test accuracy in a few
// epochs, the last layer alone stays near 40 % after 40.
trainscope::TrainingMetadata TrainingSetup() {
  trainscope::TrainingMetadata setup;
  setup.optimizer = trainscope::OptimizerKind::kAdam;
  setup.learning_rate = 0.002f;
  setup.beta1 = 0.9f;
  setup.beta2 = 0.999f;
  setup.epsilon = 1e-7f;
  setup.loss = trainscope::CircleLossFn::kSparseCategoricalCrossentropy;
  setup.epochs = 40;
  setup.batch_size = 1;
  return setup;
}

std::vector<uint8_t> BuildModel() {
  Random random(20261130);
  ModelBuilder b;
  b.SetDescription("TrainScope demo: stripes classifier");
  const int image = b.AddTensor("image", {1, kSide, kSide, 1});
  const int conv_w = b.AddConstant("conv/weights", {6, 3, 3, 1}, HeUniform(random, 54, 9));
  const int conv_b = b.AddConstant("conv/bias", {6}, std::vector<float>(6, 0.0f));
  const int conv_y = b.AddTensor("conv/relu", {1, 10, 10, 6});
  OpOptions conv;
  conv.padding = Padding::kValid;
  conv.stride_w = conv.stride_h = 1;
  conv.activation = Activation::kRelu;
  b.AddOperator(op::kConv2D, {image, conv_w, conv_b}, {conv_y}, conv);

  const int pooled = b.AddTensor("pool", {1, 5, 5, 6});
  OpOptions pool;
  pool.padding = Padding::kValid;
  pool.stride_w = pool.stride_h = pool.filter_w = pool.filter_h = 2;
  b.AddOperator(op::kMaxPool2D, {conv_y}, {pooled}, pool);

  const int shape = b.AddConstantInt32("flatten/shape", {2}, {1, 150});
  const int flat = b.AddTensor("flatten", {1, 150});
  OpOptions reshape;
  reshape.new_shape = {1, 150};
  b.AddOperator(op::kReshape, {pooled, shape}, {flat}, reshape);

  const int fc1_w = b.AddConstant("dense1/weights", {16, 150}, HeUniform(random, 2400, 150));
  const int fc1_b = b.AddConstant("dense1/bias", {16}, std::vector<float>(16, 0.0f));
  const int hidden = b.AddTensor("dense1/relu", {1, 16});
  OpOptions relu;
  relu.activation = Activation::kRelu;
  b.AddOperator(op::kFullyConnected, {flat, fc1_w, fc1_b}, {hidden}, relu);

  const int fc2_w =
      b.AddConstant("dense2/weights", {kClasses, 16}, HeUniform(random, 16 * kClasses, 16));
  const int fc2_b = b.AddConstant("dense2/bias", {kClasses}, std::vector<float>(kClasses, 0.0f));
  const int logits = b.AddTensor("dense2/logits", {1, kClasses});
  b.AddOperator(op::kFullyConnected, {hidden, fc2_w, fc2_b}, {logits});

  const int probabilities = b.AddTensor("probabilities", {1, kClasses});
  OpOptions softmax;
  softmax.beta = 1.0f;
  b.AddOperator(op::kSoftmax, {logits}, {probabilities}, softmax);
  b.SetInputs({image});
  b.SetOutputs({probabilities});

  std::vector<uint8_t> bytes;
  trainscope::Status status = b.Finish(&bytes);
  trainscope::Model model;
  if (status.ok()) status = trainscope::Model::FromBytes(std::move(bytes), &model);
  std::vector<uint8_t> with_setup;
  if (status.ok()) status = trainscope::WriteTrainingMetadata(model, TrainingSetup(), &with_setup);
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", status.message());
    return {};
  }
  return with_setup;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trainscope-make-demo OUTPUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<uint8_t> model = BuildModel();
  if (model.empty() || !WriteFile(dir + "/demo.circle", model.data(), model.size()) ||
      !WriteDataSet(dir, "train", 120, 7) || !WriteDataSet(dir, "test", 60, 8)) {
    std::fprintf(stderr, "error: cannot write the demo into '%s'\n", dir.c_str());
    return 1;
  }
  return 0;
}
