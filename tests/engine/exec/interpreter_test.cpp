// SPDX-License-Identifier: Apache-2.0
//
// The Interpreter runs every fixture model through the planned arena and reproduces the
// reference outputs: buffers placed at planned offsets must never corrupt each other. An LSTM
// with its state in variables (which no plan places) runs from that state every time, and
// tflite-micro's float LSTM example classifies its ten samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "engine/exec/interpreter.h"
#include "engine/kernels/reference_runner.h"
#include "tests/common/fixtures.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

namespace fs = std::filesystem;

TEST(Interpreter, KernelFixturesMatchTheirReferenceOutputsInTheArena) {
  TS_REQUIRE_FIXTURES();
  int checked = 0;
  for (const auto& entry :
       fs::directory_iterator(fs::path(testing::ModelsDir()) / "onert-micro/kernels")) {
    fs::path model_path = entry.path() / "model.circle";
    if (!fs::exists(model_path)) model_path = entry.path() / "model.tflite";
    Model model;
    ASSERT_TRUE(ReadModelFile(model_path.string(), &model).ok());
    SCOPED_TRACE(entry.path().filename().string());
    Interpreter interpreter;
    Status status = interpreter.Init(model);
    ASSERT_TRUE(status.ok()) << status.message();
    std::vector<std::vector<float>> inputs;
    std::vector<const float*> pointers;
    for (size_t i = 0; i < model.graph().main().inputs.size(); ++i) {
      inputs.push_back(
          testing::ReadFloats((entry.path() / ("input" + std::to_string(i) + ".bin")).string()));
    }
    for (const auto& input : inputs) pointers.push_back(input.data());
    std::vector<std::vector<float>> outputs;
    status = interpreter.Run(pointers, &outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    const std::vector<float> expected =
        testing::ReadFloats((entry.path() / "reference_output.bin").string());
    ASSERT_EQ(outputs[0].size(), expected.size());
    for (size_t e = 0; e < expected.size(); ++e) {
      EXPECT_NEAR(outputs[0][e], expected[e], 1e-5 * std::max(1.0f, std::fabs(expected[e])))
          << "element " << e;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 14);
}

TEST(Interpreter, HelloWorldApproximatesSine) {
  TS_REQUIRE_FIXTURES();
  Model model;
  ASSERT_TRUE(
      ReadModelFile(testing::ModelsDir() + "/tflite/hello_world_float.tflite", &model).ok());
  Interpreter interpreter;
  ASSERT_TRUE(interpreter.Init(model).ok());
  double worst = 0.0;
  for (int i = 0; i <= 100; ++i) {
    const float x = 2.0f * 3.14159265f * static_cast<float>(i) / 100.0f;
    std::vector<std::vector<float>> outputs;
    ASSERT_TRUE(interpreter.Run({&x}, &outputs).ok());
    worst = std::max(worst, std::fabs(static_cast<double>(outputs[0][0]) - std::sin(x)));
  }
  EXPECT_LT(worst, 0.2) << "the model is a small MLP fit to sin(x); its error is about 0.1";
}

TEST(Interpreter, QuantizedModelsLoadButDoNotRun) {
  TS_REQUIRE_FIXTURES();
  Model model;
  ASSERT_TRUE(ReadModelFile(testing::ModelsDir() + "/tflite/person_detect.tflite", &model).ok());
  Interpreter interpreter;
  Status status = interpreter.Init(model);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("INT8"), std::string::npos) << status.message();
}

TEST(Interpreter, NonFiniteInputIsRefusedWithItsPosition) {
  Model model = testing::ConvNet();
  Interpreter interpreter;
  ASSERT_TRUE(interpreter.Init(model).ok());
  std::vector<float> image(36, 0.5f);
  image[7] = std::nanf("");
  std::vector<std::vector<float>> outputs;
  Status status = interpreter.Run({image.data()}, &outputs);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("element 7"), std::string::npos) << status.message();
}

// x [1, 3, 2] -> UNIDIRECTIONAL_SEQUENCE_LSTM (4 cells, state in two variables) [1, 3, 4].
Model LstmWithVariableState() {
  ModelBuilder b;
  std::vector<int32_t> in(24, -1);
  in[0] = b.AddTensor("x", {1, 3, 2});
  for (int gate = 0; gate < 4; ++gate) {
    const float phase = static_cast<float>(gate);
    in[static_cast<size_t>(1 + gate)] =
        b.AddConstant("w", {4, 2}, testing::Pattern(8, 0.8f, phase));
    in[static_cast<size_t>(5 + gate)] =
        b.AddConstant("r", {4, 4}, testing::Pattern(16, 0.6f, phase + 0.5f));
    in[static_cast<size_t>(12 + gate)] = b.AddConstant("b", {4}, testing::Pattern(4, 0.3f, phase));
  }
  in[18] = b.AddVariable("h0", {1, 4});
  in[19] = b.AddVariable("c0", {1, 4});
  const int y = b.AddTensor("y", {1, 3, 4});
  OpOptions options;
  options.activation = Activation::kTanh;
  b.AddOperator(op::kUnidirectionalSequenceLstm, in, {y}, options);
  b.SetInputs({in[0]});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  Model model;
  EXPECT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  return model;
}

TEST(Interpreter, AnLstmStartsEveryRunFromTheModelsInitialState) {
  const Model model = LstmWithVariableState();
  Interpreter interpreter;
  Status status = interpreter.Init(model);
  ASSERT_TRUE(status.ok()) << status.message();
  const std::vector<float> x = testing::Pattern(6, 1.5f, 0.2f);
  std::vector<std::vector<float>> expected;
  ASSERT_TRUE(RunForward(model, {x}, &expected).ok());
  for (int run = 0; run < 2; ++run) {
    std::vector<std::vector<float>> outputs;
    status = interpreter.Run({x.data()}, &outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0], expected[0]) << "run " << run;
  }
}

// tflite-micro's float LSTM example (examples/mnist_lstm): each sample image is classified as the
// digit it shows, as the example's own test checks, with probabilities that sum to 1.
TEST(Interpreter, TflmMnistLstmClassifiesEachSampleAsItsDigit) {
  const std::string dir = testing::MnistLstmDir();
  TS_REQUIRE_FETCHED(dir + "/trained_lstm.tflite");
  Model model;
  Status status = ReadModelFile(dir + "/trained_lstm.tflite", &model);
  ASSERT_TRUE(status.ok()) << status.message();
  Interpreter interpreter;
  status = interpreter.Init(model);
  ASSERT_TRUE(status.ok()) << status.message();
  for (int digit = 0; digit < 10; ++digit) {
    SCOPED_TRACE("sample" + std::to_string(digit));
    const std::vector<float> image =
        testing::ReadFloats(dir + "/sample" + std::to_string(digit) + ".bin");
    ASSERT_EQ(image.size(), 28u * 28u) << "run scripts/fetch-models.sh again to convert it";
    std::vector<std::vector<float>> outputs;
    status = interpreter.Run({image.data()}, &outputs);
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_EQ(outputs.size(), 1u);
    const std::vector<float>& p = outputs[0];
    ASSERT_EQ(p.size(), 10u);
    EXPECT_EQ(std::max_element(p.begin(), p.end()) - p.begin(), digit);
    EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-5);
    for (float probability : p) {
      EXPECT_GE(probability, 0.0f);
      EXPECT_LE(probability, 1.0f);
    }
  }
}

}  // namespace
}  // namespace trainscope
