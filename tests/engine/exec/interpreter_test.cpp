// SPDX-License-Identifier: Apache-2.0
//
// The Interpreter runs every fixture model through the planned arena and reproduces the
// reference outputs: buffers placed at planned offsets must never corrupt each other.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "engine/exec/interpreter.h"
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

}  // namespace
}  // namespace trainscope
