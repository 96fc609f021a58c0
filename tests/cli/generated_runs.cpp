// SPDX-License-Identifier: Apache-2.0
#include "tests/cli/generated_runs.h"

#include <QFile>

#include <string>

#include "engine/model/opcodes.h"
#include "tests/cli/cli_test_util.h"

namespace trainscope::testing {
namespace {

bool WriteBytes(const QString& path, const void* data, size_t size) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) &&
         file.write(static_cast<const char*>(data), static_cast<qint64>(size)) ==
             static_cast<qint64>(size);
}

}  // namespace

std::vector<float> Values(size_t count, float scale, uint32_t seed) {
  std::vector<float> v(count);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(seed >> 8) / 8388608.0f - 1.0f);
  }
  return v;
}

int DenseHead(ModelBuilder* b, int features) {
  int32_t n = 1;
  for (int32_t d : b->shape(features)) n *= d;
  const int shape = b->AddConstantInt32("head_shape", {2}, {1, n});
  const int flat = b->AddTensor("flat", {1, n});
  b->AddOperator(op::kReshape, {features, shape}, {flat});
  const int w = b->AddConstant("head_w", {2, n}, Values(static_cast<size_t>(2 * n), 0.3f, 7));
  const int bias = b->AddConstant("head_b", {2}, {0.1f, -0.1f});
  const int y = b->AddTensor("y", {1, 2});
  b->AddOperator(op::kFullyConnected, {flat, w, bias}, {y});
  return y;
}

int Conv(ModelBuilder* b, int x, int filters, int size, Padding padding, int stride,
         const char* name) {
  const std::vector<int32_t> in = b->shape(x);
  const int c = in[3];
  const int w = b->AddConstant(std::string(name) + "_w", {filters, size, size, c},
                               Values(static_cast<size_t>(filters * size * size * c), 0.5f, 3));
  const int bias = b->AddConstant(std::string(name) + "_b", {filters},
                                  std::vector<float>(static_cast<size_t>(filters), 0.05f));
  const auto out_size = [&](int n) {
    return padding == Padding::kSame ? (n + stride - 1) / stride : (n - size) / stride + 1;
  };
  const int y = b->AddTensor(name, {1, out_size(in[1]), out_size(in[2]), filters});
  OpOptions o;
  o.padding = padding;
  o.stride_h = o.stride_w = stride;
  b->AddOperator(op::kConv2D, {x, w, bias}, {y}, o);
  return y;
}

GeneratedRun Generate(const QString& name, const std::vector<int32_t>& input_shape,
                      const std::function<int(ModelBuilder*, int)>& body,
                      const QStringList& extra_training) {
  ModelBuilder b;
  const int x = b.AddTensor("x", input_shape);
  const int y = body(&b, x);
  b.SetInputs({x});
  b.SetOutputs({y});
  GeneratedRun g;
  g.run = {TempPath(name + QStringLiteral(".circle")), TempPath(name + QStringLiteral("_x.bin")),
           TempPath(name + QStringLiteral("_y.bin")),
           QStringList{QStringLiteral("--loss"), QStringLiteral("mse"), QStringLiteral("--lr"),
                       QStringLiteral("0.01")} +
               extra_training};
  size_t per_sample = 1;
  for (int32_t d : input_shape) per_sample *= static_cast<size_t>(d);
  std::vector<uint8_t> bytes;
  constexpr size_t kSamples = 4;
  // A spike per sample makes neighbouring max-pool windows share their maximum.
  std::vector<float> inputs = Values(per_sample * kSamples, 1.0f, 11);
  for (size_t s = 0; s < kSamples; ++s) inputs[s * per_sample + per_sample / 2] = 4.0f;
  const std::vector<float> targets = Values(2 * kSamples, 1.0f, 13);
  g.ok = b.Finish(&bytes).ok() && WriteBytes(g.run.model, bytes.data(), bytes.size()) &&
         WriteBytes(g.run.input, inputs.data(), inputs.size() * sizeof(float)) &&
         WriteBytes(g.run.target, targets.data(), targets.size() * sizeof(float));
  return g;
}

GeneratedRun SamePaddedConvRun(const QString& name) {
  return Generate(name, {1, 5, 5, 1}, [](ModelBuilder* b, int x) {
    return DenseHead(b, Conv(b, x, 2, 3, Padding::kSame, 1, "conv"));
  });
}

}  // namespace trainscope::testing
