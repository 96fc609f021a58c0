// SPDX-License-Identifier: Apache-2.0
//
// Forward kernels against third-party reference data: onert-micro's float32 kernel test models
// with their expected outputs, and tflite-micro's hello_world sine model.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/kernels/kernel.h"
#include "engine/kernels/reference_runner.h"
#include "engine/model/model.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

using testing::ModelsDir;
using testing::ReadFloats;

std::string KernelDir(const std::string& name) {
  return ModelsDir() + "/onert-micro/kernels/" + name;
}

// Loads model.circle (or model.tflite), input<i>.bin and reference_output.bin of one directory.
void RunKernelFixture(const std::string& name) {
  const std::string dir = KernelDir(name);
  Model model;
  Status status = ReadModelFile(dir + "/model.circle", &model);
  if (!status.ok()) status = ReadModelFile(dir + "/model.tflite", &model);
  ASSERT_TRUE(status.ok()) << status.message();

  std::vector<std::vector<float>> inputs;
  for (size_t i = 0; i < model.graph().main().inputs.size(); ++i) {
    inputs.push_back(ReadFloats(dir + "/input" + std::to_string(i) + ".bin"));
    ASSERT_FALSE(inputs.back().empty()) << "missing input" << i << ".bin in " << dir;
  }
  const std::vector<float> expected = ReadFloats(dir + "/reference_output.bin");
  ASSERT_FALSE(expected.empty());

  std::vector<std::vector<float>> outputs;
  status = RunForward(model, inputs, &outputs);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const double tolerance = 1e-5 * std::fabs(expected[i]) + 1e-6;
    EXPECT_NEAR(outputs[0][i], expected[i], tolerance) << name << " element " << i;
  }
}

class OnertMicroKernelFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(OnertMicroKernelFixture, MatchesTheReferenceOutput) {
  TS_REQUIRE_FIXTURES();
  RunKernelFixture(GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllFloatKernels, OnertMicroKernelFixture,
                         ::testing::Values("fully_connected", "conv2d", "max_pool_2d", "mean",
                                           "reshape", "transpose", "add", "sub", "relu", "logistic",
                                           "leaky_relu", "exp", "concatenation", "pad"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           return std::string(param.param);
                         });

TEST(HelloWorldFloat, ApproximatesSineOverOnePeriod) {
  TS_REQUIRE_FIXTURES();
  Model model;
  const Status status = ReadModelFile(ModelsDir() + "/tflite/hello_world_float.tflite", &model);
  ASSERT_TRUE(status.ok()) << status.message();
  constexpr int kPoints = 200;
  const double two_pi = 2.0 * std::acos(-1.0);
  double worst = 0.0;
  double sum_abs = 0.0;
  for (int i = 0; i <= kPoints; ++i) {
    const double x = two_pi * i / kPoints;
    std::vector<std::vector<float>> outputs;
    const Status run = RunForward(model, {{static_cast<float>(x)}}, &outputs);
    ASSERT_TRUE(run.ok()) << run.message();
    ASSERT_EQ(outputs.size(), 1u);
    ASSERT_EQ(outputs[0].size(), 1u);
    const double error = std::fabs(outputs[0][0] - std::sin(x));
    worst = error > worst ? error : worst;
    sum_abs += error;
  }
  // The model was trained to about 0.1 absolute accuracy.
  // (measured here: worst 0.046, mean 0.0125).
  EXPECT_LT(worst, 0.1);
  EXPECT_LT(sum_abs / (kPoints + 1), 0.03);
}

TEST(CheckRunnable, RejectsAnInt8ModelNamingTheTensorType) {
  TS_REQUIRE_FIXTURES();
  Model model;
  const Status read = ReadModelFile(ModelsDir() + "/tflite/hello_world_int8.tflite", &model);
  ASSERT_TRUE(read.ok()) << read.message();
  const Status status = CheckRunnable(model.graph().main());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  const std::string message = status.message();
  EXPECT_NE(message.find("operator 0 (FULLY_CONNECTED)"), std::string::npos) << message;
  EXPECT_NE(message.find("is INT8; only FLOAT32 models can run"), std::string::npos) << message;
}

TEST(CheckRunnable, RejectsAModelWithAnOperatorWithoutKernel) {
  TS_REQUIRE_FIXTURES();
  Model model;
  const Status read = ReadModelFile(ModelsDir() + "/tflite/keyword_scrambled.tflite", &model);
  ASSERT_TRUE(read.ok()) << read.message();
  const Status status = CheckRunnable(model.graph().main());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(std::string(status.message()).find("unsupported operator"), std::string::npos)
      << status.message();
}

TEST(CheckRunnable, AcceptsTheSimpleMnistTrainingModel) {
  TS_REQUIRE_FIXTURES();
  Model model;
  const Status read = ReadModelFile(ModelsDir() + "/onert-micro/simple_mnist/model.circle", &model);
  ASSERT_TRUE(read.ok()) << read.message();
  const Status status = CheckRunnable(model.graph().main());
  EXPECT_TRUE(status.ok()) << status.message();
}

}  // namespace
}  // namespace trainscope
