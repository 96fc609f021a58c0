// SPDX-License-Identifier: Apache-2.0
//
// TrainScope's side of the PyTorch comparison (scripts/bench-vs-pytorch.sh): builds one of the
// benchmark models, writes its starting weights and data where the PyTorch side can read them,
// then trains on command, so both sides run interleaved in one session.
//
//   training_peer <simple_mnist|mlp|convnet> <sgd|adam> <batch> <export_dir> <models_dir>
//                 [reference|avx2|avx512]
//
// The last argument picks the kernels' path (UseKernelPath): "reference" runs the loops the
// firmware runs; without it, the fastest path the CPU has.
// Printed at start (one record a line, then "ready"):
//   op <index> <OPCODE> <activation> <padding> <stride_h> <stride_w> <filter_h> <filter_w>
//   param <op index> <input position> <file> <dim>...   starting weights, raw float32
//   data <inputs file> <targets file> <samples> <dim>...  NHWC inputs, class-index targets
// Commands on stdin, one a line:
//   step <k>   k optimizer steps over consecutive batches; answers "done <seconds> <loss>",
//              the time of the k steps and the mean loss of the first of them
//   quit
// Options: sparse cross-entropy on the softmax output, SGD lr 0.01, Adam lr 0.001, beta2 0.999.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "engine/exec/trainer.h"
#include "engine/kernels/dense_loops.h"
#include "engine/model/file_io.h"
#include "engine/model/model_builder.h"
#include "engine/model/opcodes.h"

namespace trainscope {
namespace {

std::vector<float> Uniform(size_t count, float scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(rng);
  return values;
}

// Weights uniform in +-1/sqrt(fan_in) (PyTorch's default range), biases zero.
int AddLayerWeights(ModelBuilder* b, const std::string& name, std::vector<int32_t> shape,
                    uint32_t seed) {
  size_t count = 1;
  for (int32_t d : shape) count *= static_cast<size_t>(d);
  const size_t fan_in = count / static_cast<size_t>(shape[0]);
  return b->AddConstant(name, shape,
                        Uniform(count, 1.0f / std::sqrt(static_cast<float>(fan_in)), seed));
}

int AddBias(ModelBuilder* b, const std::string& name, int32_t count) {
  return b->AddConstant(name, {count}, std::vector<float>(static_cast<size_t>(count), 0.0f));
}

Status FinishModel(ModelBuilder* b, int input, int output, Model* model) {
  b->SetInputs({input});
  b->SetOutputs({output});
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(b->Finish(&bytes));
  return Model::FromBytes(std::move(bytes), model);
}

// 784 -> FC 128 ReLU -> FC 10 -> softmax.
Status BuildMlp(Model* model) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 784});
  const int h = b.AddTensor("h", {1, 128});
  OpOptions relu;
  relu.activation = Activation::kRelu;
  b.AddOperator(op::kFullyConnected,
                {x, AddLayerWeights(&b, "w1", {128, 784}, 1), AddBias(&b, "b1", 128)}, {h}, relu);
  const int logits = b.AddTensor("logits", {1, 10});
  b.AddOperator(op::kFullyConnected,
                {h, AddLayerWeights(&b, "w2", {10, 128}, 2), AddBias(&b, "b2", 10)}, {logits});
  const int p = b.AddTensor("p", {1, 10});
  b.AddOperator(op::kSoftmax, {logits}, {p});
  return FinishModel(&b, x, p, model);
}

// 32x32x3 -> conv 3x3x16 SAME ReLU -> max pool 2 -> conv 3x3x32 SAME ReLU -> max pool 2 -> FC 10
// -> softmax.
Status BuildConvNet(Model* model) {
  ModelBuilder b;
  OpOptions conv;
  conv.padding = Padding::kSame;
  conv.stride_h = conv.stride_w = 1;
  conv.activation = Activation::kRelu;
  OpOptions pool;
  pool.padding = Padding::kValid;
  pool.stride_h = pool.stride_w = 2;
  pool.filter_h = pool.filter_w = 2;
  const int x = b.AddTensor("x", {1, 32, 32, 3});
  const int c1 = b.AddTensor("c1", {1, 32, 32, 16});
  b.AddOperator(op::kConv2D,
                {x, AddLayerWeights(&b, "w1", {16, 3, 3, 3}, 11), AddBias(&b, "b1", 16)}, {c1},
                conv);
  const int p1 = b.AddTensor("p1", {1, 16, 16, 16});
  b.AddOperator(op::kMaxPool2D, {c1}, {p1}, pool);
  const int c2 = b.AddTensor("c2", {1, 16, 16, 32});
  b.AddOperator(op::kConv2D,
                {p1, AddLayerWeights(&b, "w2", {32, 3, 3, 16}, 12), AddBias(&b, "b2", 32)}, {c2},
                conv);
  const int p2 = b.AddTensor("p2", {1, 8, 8, 32});
  b.AddOperator(op::kMaxPool2D, {c2}, {p2}, pool);
  const int logits = b.AddTensor("logits", {1, 10});
  b.AddOperator(op::kFullyConnected,
                {p2, AddLayerWeights(&b, "w3", {10, 2048}, 13), AddBias(&b, "b3", 10)}, {logits});
  const int p = b.AddTensor("p", {1, 10});
  b.AddOperator(op::kSoftmax, {logits}, {p});
  return FinishModel(&b, x, p, model);
}

Status LoadSimpleMnist(const std::string& models_dir, Model* model, DataSet* data) {
  const std::string dir = models_dir + "/onert-micro/simple_mnist";
  std::vector<uint8_t> input, target;
  TS_RETURN_IF_ERROR(ReadModelFile(dir + "/model.circle", model));
  TS_RETURN_IF_ERROR(ReadFileBytes(dir + "/train_input.bin", 1 << 20, &input));
  TS_RETURN_IF_ERROR(ReadFileBytes(dir + "/train_target.bin", 1 << 20, &target));
  data->inputs.assign(1, std::vector<float>(input.size() / 4));
  std::memcpy(data->inputs[0].data(), input.data(), input.size());
  data->targets.resize(target.size() / 4);
  std::memcpy(data->targets.data(), target.data(), target.size());
  data->sample_count = static_cast<uint32_t>(data->targets.size());
  return Status::Ok();
}

// 64 samples uniform in [-1, 1], class s % classes.
void RandomData(size_t sample_elements, uint32_t classes, DataSet* data) {
  data->sample_count = 64;
  data->inputs = {Uniform(64 * sample_elements, 1.0f, 3)};
  data->targets.clear();
  for (uint32_t s = 0; s < 64; ++s) data->targets.push_back(static_cast<float>(s % classes));
}

Status WriteFloats(const std::string& path, const float* values, size_t count) {
  return WriteFileAtomically(path, reinterpret_cast<const uint8_t*>(values), count * sizeof(float));
}

Status Describe(const Model& model, const DataSet& data, const std::string& dir) {
  const Subgraph& g = model.graph().main();
  for (size_t k = 0; k < g.operators.size(); ++k) {
    const Operator& op = g.operators[k];
    const OpOptions& o = op.options;
    std::printf("op %zu %s %s %s %d %d %d %d\n", k, OpcodeName(op.opcode),
                ActivationName(o.activation), PaddingName(o.padding), o.stride_h, o.stride_w,
                o.filter_h, o.filter_w);
    for (size_t i = 1; i < op.inputs.size() && i < 3; ++i) {
      if (op.inputs[i] < 0) continue;
      const Tensor& t = g.tensors[static_cast<size_t>(op.inputs[i])];
      if (!t.constant || t.type != ElementType::kFloat32) continue;
      const std::string file = "op" + std::to_string(k) + "_in" + std::to_string(i) + ".bin";
      TS_RETURN_IF_ERROR(WriteFloats(dir + "/" + file,
                                     reinterpret_cast<const float*>(model.ConstantData(t)),
                                     t.element_count()));
      std::printf("param %zu %zu %s", k, i, file.c_str());
      for (int32_t d : t.shape) std::printf(" %d", d);
      std::printf("\n");
    }
  }
  TS_RETURN_IF_ERROR(
      WriteFloats(dir + "/inputs.bin", data.inputs[0].data(), data.inputs[0].size()));
  TS_RETURN_IF_ERROR(WriteFloats(dir + "/targets.bin", data.targets.data(), data.targets.size()));
  std::printf("data inputs.bin targets.bin %u", data.sample_count);
  for (int32_t d : g.tensors[static_cast<size_t>(g.inputs[0])].shape) std::printf(" %d", d);
  std::printf("\n");
  return Status::Ok();
}

int Run(int argc, char** argv) {
  KernelPath path = FastestKernelPath();
  if (argc == 7) {
    const std::string name = argv[6];
    for (KernelPath p : {KernelPath::kReference, KernelPath::kAvx2, KernelPath::kAvx512}) {
      if (name == KernelPathName(p)) path = p;
    }
  }
  if (argc != 6 && !(argc == 7 && std::string(argv[6]) == KernelPathName(path))) {
    std::fprintf(stderr,
                 "usage: training_peer <simple_mnist|mlp|convnet> <sgd|adam> <batch> "
                 "<export_dir> <models_dir> [reference|avx2|avx512]\n");
    return 2;
  }
  UseKernelPath(path);
  const std::string which = argv[1];
  Model model;
  DataSet data;
  Status status;
  if (which == "simple_mnist") {
    status = LoadSimpleMnist(argv[5], &model, &data);
  } else if (which == "mlp") {
    status = BuildMlp(&model);
    RandomData(784, 10, &data);
  } else if (which == "convnet") {
    status = BuildConvNet(&model);
    RandomData(32 * 32 * 3, 10, &data);
  } else {
    std::fprintf(stderr, "unknown model '%s'\n", which.c_str());
    return 2;
  }
  if (status.ok()) status = Describe(model, data, argv[4]);
  TrainingOptions options;
  options.optimizer = std::string(argv[2]) == "adam" ? OptimizerKind::kAdam : OptimizerKind::kSgd;
  options.learning_rate = options.optimizer == OptimizerKind::kAdam ? 0.001f : 0.01f;
  options.beta2 = 0.999f;
  options.loss = LossKind::kSparseCrossEntropy;
  options.batch_size = static_cast<uint32_t>(std::stoul(argv[3]));
  Trainer trainer;
  if (status.ok()) status = trainer.Init(&model, options, TrainabilityConfig());
  if (!status.ok()) {
    std::fprintf(stderr, "training_peer: %s\n", status.message());
    return 1;
  }
  std::printf("kernels %s\nready\n", KernelPathName(ActiveKernelPath()));
  std::fflush(stdout);

  const uint32_t batches = data.sample_count / options.batch_size;
  uint32_t batch = 0;
  std::string command;
  while (std::cin >> command && command == "step") {
    int steps = 0;
    std::cin >> steps;
    float first_loss = 0.0f;
    const auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < steps && status.ok(); ++s) {
      float loss = 0.0f;
      status = trainer.TrainStep(data, batch * options.batch_size, &loss);
      if (s == 0) first_loss = loss;
      batch = (batch + 1) % batches;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!status.ok()) {
      std::fprintf(stderr, "training_peer: %s\n", status.message());
      return 1;
    }
    std::printf("done %.9f %.9g\n", seconds, static_cast<double>(first_loss));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace trainscope

int main(int argc, char** argv) {
  return trainscope::Run(argc, argv);
}
