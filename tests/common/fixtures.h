// SPDX-License-Identifier: Apache-2.0
//
// Access to the third-party model fixtures (../shared/models by default, set with the CMake cache
// variable TRAINSCOPE_MODELS_DIR). Tests that need them call TS_REQUIRE_FIXTURES() first, which
// skips the test with a message naming the missing folder. Models that scripts/fetch-models.sh
// downloads live in TRAINSCOPE_FETCHED_MODELS_DIR (~/.cache/trainscope/models by default); tests
// call TS_REQUIRE_FETCHED(path) first, which skips the test naming the missing file.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace trainscope::testing {

inline std::string ModelsDir() {
  return TRAINSCOPE_MODELS_DIR;
}

inline std::string FetchedModelsDir() {
  return TRAINSCOPE_FETCHED_MODELS_DIR;
}

// tflite-micro's float LSTM example and its samples (scripts/fetch-models.sh).
inline std::string MnistLstmDir() {
  return FetchedModelsDir() + "/mnist_lstm";
}

inline bool FixturesPresent() {
  std::ifstream readme(ModelsDir() + "/README.md");
  return readme.good();
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::vector<float> ReadFloats(const std::string& path) {
  const std::vector<uint8_t> bytes = ReadBytes(path);
  std::vector<float> values(bytes.size() / sizeof(float));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

}  // namespace trainscope::testing

#define TS_REQUIRE_FIXTURES()                                                              \
  do {                                                                                     \
    if (!::trainscope::testing::FixturesPresent())                                         \
      GTEST_SKIP() << "model fixtures not found in " << ::trainscope::testing::ModelsDir() \
                   << " (set -DTRAINSCOPE_MODELS_DIR=...)";                                \
  } while (0)

#define TS_REQUIRE_FETCHED(path)                                                       \
  do {                                                                                 \
    if (!std::ifstream(path).good())                                                   \
      GTEST_SKIP() << (path) << " not found: run scripts/fetch-models.sh (or set "     \
                   << "-DTRAINSCOPE_FETCHED_MODELS_DIR=... to where it fetched them)"; \
  } while (0)
