// SPDX-License-Identifier: Apache-2.0
//
// trainscope-cli run, memory and train, end to end on the demo and the fixture models.
#include <gtest/gtest.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "engine/plan/train_config_file.h"
#include "engine/train/training_metadata.h"
#include "tests/cli/cli_test_util.h"
#include "tests/common/fixtures.h"

namespace trainscope {
namespace {

using testing::RunCli;
using testing::TempPath;

const QString kDemoDir = QStringLiteral(TRAINSCOPE_DEMO_DIR);
QString Demo(const char* name) {
  return kDemoDir + QLatin1Char('/') + QLatin1String(name);
}

// The demo's training labels are one float per sample.
int DemoSampleCount() {
  return static_cast<int>(QFileInfo(Demo("train_target.bin")).size() / sizeof(float));
}

void WriteFloats(const QString& path, const std::vector<float>& values) {
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(reinterpret_cast<const char*>(values.data()),
             static_cast<qint64>(values.size() * sizeof(float)));
}

std::vector<float> ReadFloats(const QString& path) {
  return testing::ReadFloats(path.toStdString());
}

TEST(CliRun, HelloWorldComputesSineForManySamplesInOneFile) {
  TS_REQUIRE_FIXTURES();
  std::vector<float> xs;
  for (int i = 0; i < 50; ++i) xs.push_back(6.2831853f * static_cast<float>(i) / 50.0f);
  const QString input = TempPath(QStringLiteral("x.bin")),
                output = TempPath(QStringLiteral("y.bin"));
  WriteFloats(input, xs);
  const auto result =
      RunCli({QStringLiteral("run"),
              QString::fromStdString(testing::ModelsDir() + "/tflite/hello_world_float.tflite"),
              QStringLiteral("--input"), input, QStringLiteral("--output"), output});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const std::vector<float> ys = ReadFloats(output);
  ASSERT_EQ(ys.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_NEAR(ys[i], std::sin(xs[i]), 0.1) << "x = " << xs[i];
}

// tflite-micro's float LSTM example (scripts/fetch-models.sh): inspect lists the LSTM, and the
// ten samples back to back in one file give ten rows of probabilities, each row's largest at the
// digit its sample shows.
TEST(CliRun, TflmMnistLstmClassifiesItsTenSamplesInOneFile) {
  const std::string dir = testing::MnistLstmDir();
  TS_REQUIRE_FETCHED(dir + "/trained_lstm.tflite");
  const QString model = QString::fromStdString(dir + "/trained_lstm.tflite");
  auto result = RunCli({QStringLiteral("inspect"), model});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  EXPECT_TRUE(result.out.contains(QStringLiteral("UNIDIRECTIONAL_SEQUENCE_LSTM")));

  std::vector<float> images;
  for (int digit = 0; digit < 10; ++digit) {
    const std::vector<float> image =
        testing::ReadFloats(dir + "/sample" + std::to_string(digit) + ".bin");
    ASSERT_EQ(image.size(), 28u * 28u) << "sample" << digit << ".bin";
    images.insert(images.end(), image.begin(), image.end());
  }
  const QString input = TempPath(QStringLiteral("samples.bin")),
                output = TempPath(QStringLiteral("probabilities.bin"));
  WriteFloats(input, images);
  result = RunCli({QStringLiteral("run"), model, QStringLiteral("--input"), input,
                   QStringLiteral("--output"), output});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const std::vector<float> p = ReadFloats(output);
  ASSERT_EQ(p.size(), 100u);
  for (int digit = 0; digit < 10; ++digit) {
    const auto row = p.begin() + 10 * digit;
    EXPECT_EQ(std::max_element(row, row + 10) - row, digit) << "sample" << digit;
    EXPECT_NEAR(std::accumulate(row, row + 10, 0.0), 1.0, 1e-5) << "sample" << digit;
  }
}

TEST(CliRun, WrongInputSizeNaNAndUnsupportedModelsAreClearErrors) {
  const QString input = TempPath(QStringLiteral("short.bin"));
  WriteFloats(input, std::vector<float>(100, 0.5f));  // demo input is 144 floats
  auto result = RunCli({QStringLiteral("run"), Demo("demo.circle"), QStringLiteral("--input"),
                        input, QStringLiteral("--output"), TempPath(QStringLiteral("o.bin"))});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(result.err.contains(QStringLiteral("400 bytes"))) << result.err.toStdString();
  EXPECT_TRUE(result.err.contains(QStringLiteral("144 float32"))) << result.err.toStdString();
  EXPECT_FALSE(QFile::exists(TempPath(QStringLiteral("o.bin"))));

  std::vector<float> image(144, 0.5f);
  image[9] = std::nanf("");
  WriteFloats(input, image);
  result = RunCli({QStringLiteral("run"), Demo("demo.circle"), QStringLiteral("--input"), input,
                   QStringLiteral("--output"), TempPath(QStringLiteral("o.bin"))});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.err.contains(QStringLiteral("element 9"))) << result.err.toStdString();

  result = RunCli({QStringLiteral("run"), Demo("demo.circle"), QStringLiteral("--input"),
                   QStringLiteral("/no/such.bin"), QStringLiteral("--output"),
                   TempPath(QStringLiteral("o.bin"))});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.err.contains(QStringLiteral("/no/such.bin"))) << result.err.toStdString();

  if (testing::FixturesPresent()) {
    result =
        RunCli({QStringLiteral("run"),
                QString::fromStdString(testing::ModelsDir() + "/tflite/keyword_scrambled.tflite"),
                QStringLiteral("--input"), input, QStringLiteral("--output"),
                TempPath(QStringLiteral("o.bin"))});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_TRUE(result.err.contains(QStringLiteral("unsupported operator")) ||
                result.err.contains(QStringLiteral("only FLOAT32")))
        << result.err.toStdString();
  }
}

// x [1, 4] -> SPLIT along axis 1 -> a [1, 2], b [1, 2]; b then goes through NEG into c. The graph
// outputs are (c, a), in that order, so the files must follow the graph's order, not the ops'.
QString WriteSplitModel() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  const int axis = b.AddConstantInt32("axis", {}, {1});
  const int first = b.AddTensor("a", {1, 2});
  const int second = b.AddTensor("b", {1, 2});
  OpOptions split;
  split.num_splits = 2;
  b.AddOperator(op::kSplit, {axis, x}, {first, second}, split);
  const int negated = b.AddTensor("c", {1, 2});
  b.AddOperator(op::kNeg, {second}, {negated});
  b.SetInputs({x});
  b.SetOutputs({negated, first});
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  QFile model(TempPath(QStringLiteral("split.circle")));
  EXPECT_TRUE(model.open(QIODevice::WriteOnly));
  model.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
  return model.fileName();
}

TEST(CliRun, SeveralOutputsGoToOneFileEachInTheGraphsOrder) {
  const QString model = WriteSplitModel();
  const QString input = TempPath(QStringLiteral("split_x.bin"));
  WriteFloats(input, {1, 2, 3, 4, 10, 20, 30, 40});  // two samples
  const QString c = TempPath(QStringLiteral("split_c.bin"));
  const QString a = TempPath(QStringLiteral("split_a.bin"));
  const auto result = RunCli({QStringLiteral("run"), model, QStringLiteral("--input"), input,
                              QStringLiteral("--output"), c, QStringLiteral("--output"), a});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  EXPECT_EQ(ReadFloats(c), (std::vector<float>{-3, -4, -30, -40}));
  EXPECT_EQ(ReadFloats(a), (std::vector<float>{1, 2, 10, 20}));
}

TEST(CliRun, AnOutputCountThatDiffersFromTheModelsNamesBoth) {
  const QString model = WriteSplitModel();
  const QString input = TempPath(QStringLiteral("split_x.bin"));
  WriteFloats(input, {1, 2, 3, 4});
  const QString c = TempPath(QStringLiteral("split_only.bin"));
  const auto result = RunCli({QStringLiteral("run"), model, QStringLiteral("--input"), input,
                              QStringLiteral("--output"), c});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.contains(QStringLiteral("the model has 2 outputs ('c', 'a')")))
      << result.err.toStdString();
  EXPECT_TRUE(result.err.contains(QStringLiteral("1 --output file given")))
      << result.err.toStdString();
  EXPECT_FALSE(QFile::exists(c));
}

TEST(CliMemory, JsonHasTheDocumentedKeysAndFewerLayersNeedLessMemory) {
  auto all = RunCli({QStringLiteral("memory"), Demo("demo.circle"), QStringLiteral("--json")});
  ASSERT_EQ(all.exit_code, 0) << all.err.toStdString();
  auto last2 =
      RunCli({QStringLiteral("memory"), Demo("demo.circle"), QStringLiteral("--train-layers"),
              QStringLiteral("2"), QStringLiteral("--json")});
  ASSERT_EQ(last2.exit_code, 0) << last2.err.toStdString();
  const QJsonObject a = all.json().object(), b = last2.json().object();
  for (const char* key : {"heap_peak_bytes", "arena_bytes", "lower_bound_bytes", "steps"}) {
    EXPECT_TRUE(a.contains(QLatin1String(key))) << key;
  }
  const QJsonObject first_step = a.value(QStringLiteral("steps")).toArray().at(0).toObject();
  for (const char* key : {"phase", "step", "op_index", "live_bytes"}) {
    EXPECT_TRUE(first_step.contains(QLatin1String(key))) << key;
  }
  EXPECT_LT(b.value(QStringLiteral("heap_peak_bytes")).toInteger(),
            a.value(QStringLiteral("heap_peak_bytes")).toInteger());
  EXPECT_LE(a.value(QStringLiteral("lower_bound_bytes")).toInteger(),
            a.value(QStringLiteral("arena_bytes")).toInteger());
  // 6 forward ticks, the loss gradient, 6 backward steps and the optimizer for "all layers".
  EXPECT_EQ(a.value(QStringLiteral("steps")).toArray().size(), 14);
  EXPECT_EQ(b.value(QStringLiteral("steps")).toArray().size(), 10);
}

TEST(CliMemory, TrainConfigFileAndInferenceModes) {
  std::vector<uint8_t> config;
  ASSERT_TRUE(WriteTrainConfig({{3, TrainRank::kOnlyBias}, {4, TrainRank::kAll}}, &config).ok());
  QFile file(TempPath(QStringLiteral("config.bin")));
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(reinterpret_cast<const char*>(config.data()), static_cast<qint64>(config.size()));
  file.close();
  const auto with_config =
      RunCli({QStringLiteral("memory"), Demo("demo.circle"), QStringLiteral("--train-config"),
              file.fileName(), QStringLiteral("--json")});
  ASSERT_EQ(with_config.exit_code, 0) << with_config.err.toStdString();
  const QJsonArray ops = with_config.json().object().value(QStringLiteral("operators")).toArray();
  EXPECT_EQ(ops.at(3).toObject().value(QStringLiteral("rank")).toString(),
            QStringLiteral("ONLY_BIAS"));
  EXPECT_FALSE(ops.at(2).toObject().value(QStringLiteral("in_backward_range")).toBool());
  const auto inference = RunCli({QStringLiteral("memory"), Demo("demo.circle"),
                                 QStringLiteral("--inference"), QStringLiteral("--json")});
  ASSERT_EQ(inference.exit_code, 0);
  EXPECT_EQ(inference.json().object().value(QStringLiteral("steps")).toArray().size(), 6);

  QFile broken(TempPath(QStringLiteral("broken.bin")));
  ASSERT_TRUE(broken.open(QIODevice::WriteOnly));
  broken.write("\x1e\x00\x01\x00", 4);
  broken.close();
  const auto refused = RunCli({QStringLiteral("memory"), Demo("demo.circle"),
                               QStringLiteral("--train-config"), broken.fileName()});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(refused.err.startsWith(QStringLiteral("error: "))) << refused.err.toStdString();
}

TEST(CliTrain, DemoLearnsAndSavesAModelAndCheckpointThatReload) {
  const QString model = TempPath(QStringLiteral("trained.circle"));
  const QString checkpoint = TempPath(QStringLiteral("trained.ckpt"));
  const QString events = TempPath(QStringLiteral("events.jsonl"));
  const QStringList common{
      Demo("demo.circle"),        QStringLiteral("--input"),       Demo("train_input.bin"),
      QStringLiteral("--target"), Demo("train_target.bin"),        QStringLiteral("--test-input"),
      Demo("test_input.bin"),     QStringLiteral("--test-target"), Demo("test_target.bin"),
      QStringLiteral("--loss"),   QStringLiteral("sparse-ce"),     QStringLiteral("--optimizer"),
      QStringLiteral("adam"),     QStringLiteral("--lr"),          QStringLiteral("0.005"),
      QStringLiteral("--beta2"),  QStringLiteral("0.999"),         QStringLiteral("--json")};
  auto result =
      RunCli(QStringList{QStringLiteral("train")} + common +
             QStringList{QStringLiteral("--epochs"), QStringLiteral("3"),
                         QStringLiteral("--save-model"), model, QStringLiteral("--save-checkpoint"),
                         checkpoint, QStringLiteral("--events"), events});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonObject summary = result.json().object();
  const QJsonArray epochs = summary.value(QStringLiteral("epochs")).toArray();
  ASSERT_EQ(epochs.size(), 3);
  EXPECT_LT(epochs.at(2).toObject().value(QStringLiteral("loss")).toDouble(),
            epochs.at(0).toObject().value(QStringLiteral("loss")).toDouble());
  EXPECT_GE(epochs.at(2).toObject().value(QStringLiteral("metric")).toDouble(), 0.9);
  EXPECT_GT(summary.value(QStringLiteral("arena_bytes")).toInteger(), 0);
  EXPECT_GT(summary.value(QStringLiteral("heap_peak_bytes")).toInteger(), 0);

  Model trained;
  ASSERT_TRUE(ReadModelFile(model.toStdString(), &trained).ok());
  ASSERT_TRUE(QFile::exists(checkpoint));

  QFile lines(events);
  ASSERT_TRUE(lines.open(QIODevice::ReadOnly));
  int backward = 0, stats = 0, losses = 0, steps = 0;
  while (!lines.atEnd()) {
    const QJsonObject event = QJsonDocument::fromJson(lines.readLine()).object();
    const QString type = event.value(QStringLiteral("type")).toString();
    if (type == QLatin1String("backward_step")) {
      ++backward;
      EXPECT_TRUE(event.contains(QStringLiteral("current_bytes")) &&
                  event.contains(QStringLiteral("peak_bytes")) &&
                  event.contains(QStringLiteral("op_index")) &&
                  event.contains(QStringLiteral("rank")));
    }
    stats += type == QLatin1String("grad_stats");
    losses += type == QLatin1String("loss");
    steps += type == QLatin1String("optimizer_step");
  }
  const int samples = DemoSampleCount();
  EXPECT_EQ(steps, 3 * samples);  // batch 1
  EXPECT_EQ(losses, 3 * samples);
  EXPECT_EQ(backward, 3 * samples * 6);  // every sample walks the 6 ops backward
  EXPECT_GT(stats, 0);

  // Resuming from the checkpoint continues the step count and keeps the accuracy.
  result = RunCli(QStringList{QStringLiteral("train")} + common +
                  QStringList{QStringLiteral("--epochs"), QStringLiteral("1"),
                              QStringLiteral("--load-checkpoint"), checkpoint});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonObject resumed = result.json().object();
  EXPECT_EQ(resumed.value(QStringLiteral("optimizer_steps")).toInteger(), 4 * samples);
  EXPECT_EQ(resumed.value(QStringLiteral("epochs"))
                .toArray()
                .at(0)
                .toObject()
                .value(QStringLiteral("epoch"))
                .toInt(),
            4);
  EXPECT_GE(resumed.value(QStringLiteral("epochs"))
                .toArray()
                .at(0)
                .toObject()
                .value(QStringLiteral("metric"))
                .toDouble(),
            0.8);
}

TEST(CliTrain, BadArgumentsAndCorruptCheckpointsAreRefused) {
  const QStringList base{QStringLiteral("train"),    Demo("demo.circle"),
                         QStringLiteral("--input"),  Demo("train_input.bin"),
                         QStringLiteral("--target"), Demo("train_target.bin"),
                         QStringLiteral("--loss"),   QStringLiteral("sparse-ce")};
  auto result =
      RunCli(base + QStringList{QStringLiteral("--optimizer"), QStringLiteral("rmsprop")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.contains(QStringLiteral("rmsprop")));
  result = RunCli(base + QStringList{QStringLiteral("--batch"), QStringLiteral("0")});
  EXPECT_EQ(result.exit_code, 2);
  result = RunCli(base + QStringList{QStringLiteral("--train-layers"), QStringLiteral("-3")});
  EXPECT_EQ(result.exit_code, 2);
  // One-hot targets would need 4 floats per sample (the demo's classes): the label file of one
  // float per sample then holds a quarter as many.
  result = RunCli({QStringLiteral("train"), Demo("demo.circle"), QStringLiteral("--input"),
                   Demo("train_input.bin"), QStringLiteral("--target"), Demo("train_target.bin"),
                   QStringLiteral("--loss"), QStringLiteral("ce")});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(result.err.contains(QStringLiteral("holds %1 samples").arg(DemoSampleCount() / 4)))
      << result.err.toStdString();

  QFile corrupt(TempPath(QStringLiteral("corrupt.ckpt")));
  ASSERT_TRUE(corrupt.open(QIODevice::WriteOnly));
  corrupt.write(QByteArray("\x00\x00\x01\x00", 4) + QByteArray(64, '\x07'));
  corrupt.close();
  result = RunCli(base + QStringList{QStringLiteral("--load-checkpoint"), corrupt.fileName()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(result.err.contains(QStringLiteral("corrupt.ckpt"))) << result.err.toStdString();
  EXPECT_TRUE(result.err.contains(QStringLiteral("magic"))) << result.err.toStdString();
}

// --kernels reference trains on the portable loops a board runs: the same run within float
// rounding of the fastest path's, and a path this program cannot take is named.
TEST(CliTrain, KernelsChooseTheProductsCodeAndABadChoiceIsNamed) {
  const QStringList base{
      QStringLiteral("train"),  Demo("demo.circle"),         QStringLiteral("--input"),
      Demo("train_input.bin"),  QStringLiteral("--target"),  Demo("train_target.bin"),
      QStringLiteral("--loss"), QStringLiteral("sparse-ce"), QStringLiteral("--epochs"),
      QStringLiteral("2"),      QStringLiteral("--json")};
  auto last_loss = [&](const QString& kernels) {
    const auto run = RunCli(base + QStringList{QStringLiteral("--kernels"), kernels});
    EXPECT_EQ(run.exit_code, 0) << run.err.toStdString();
    const QJsonArray epochs = run.json().object().value(QStringLiteral("epochs")).toArray();
    return epochs.isEmpty() ? -1.0
                            : epochs.last().toObject().value(QStringLiteral("loss")).toDouble();
  };
  const double fastest = last_loss(QStringLiteral("fastest"));
  const double reference = last_loss(QStringLiteral("reference"));
  ASSERT_GT(fastest, 0.0);
  EXPECT_NEAR(reference, fastest, 1e-4 * fastest);
  const auto bad = RunCli(base + QStringList{QStringLiteral("--kernels"), QStringLiteral("sse9")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.contains(QStringLiteral("--kernels 'sse9'"))) << bad.err.toStdString();
}

TEST(CliTrain, WarnsWhereABoardRunningOnertMicroWouldDiffer) {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 4});
  const int h = b.AddTensor("h", {1, 3});
  OpOptions tanh;
  tanh.activation = Activation::kTanh;
  b.AddOperator(op::kFullyConnected,
                {x, b.AddConstant("w", {3, 4}, std::vector<float>(12, 0.1f)), -1}, {h}, tanh);
  const int y = b.AddTensor("y", {1, 3});
  b.AddOperator(op::kSoftmax, {h}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(b.Finish(&bytes).ok());
  QFile model(TempPath(QStringLiteral("tanh.circle")));
  ASSERT_TRUE(model.open(QIODevice::WriteOnly));
  model.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
  model.close();
  WriteFloats(TempPath(QStringLiteral("tanh_x.bin")), std::vector<float>(8, 0.5f));
  WriteFloats(TempPath(QStringLiteral("tanh_y.bin")), {0.0f, 2.0f});
  const auto result = RunCli({QStringLiteral("train"), model.fileName(), QStringLiteral("--input"),
                              TempPath(QStringLiteral("tanh_x.bin")), QStringLiteral("--target"),
                              TempPath(QStringLiteral("tanh_y.bin")), QStringLiteral("--loss"),
                              QStringLiteral("sparse-ce"), QStringLiteral("--json")});
  ASSERT_EQ(result.exit_code, 0) << result.err.toStdString();
  const QJsonArray warnings = result.json().object().value(QStringLiteral("warnings")).toArray();
  bool named = false;
  for (const QJsonValue& w : warnings) {
    named = named ||
            (w.toString().contains(QStringLiteral("operator 0 (FULLY_CONNECTED), on a board")) &&
             w.toString().contains(QStringLiteral("TANH")));
  }
  EXPECT_TRUE(named) << QJsonDocument(warnings).toJson().toStdString();
}

// Metadata asking for 2^31-1 epochs is not run without a word; --epochs chooses.
TEST(CliTrain, AnUnboundedEpochCountFromMetadataIsRefusedUnlessChosen) {
  Model demo;
  ASSERT_TRUE(ReadModelFile(Demo("demo.circle").toStdString(), &demo).ok());
  TrainingMetadata metadata;
  bool found = false;
  ASSERT_TRUE(ReadTrainingMetadata(demo, &metadata, &found).ok());
  ASSERT_TRUE(found);
  metadata.epochs = INT32_MAX;
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(WriteTrainingMetadata(demo, metadata, &bytes).ok());
  const QString path = TempPath(QStringLiteral("forever.circle"));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
  file.close();
  const QStringList base{QStringLiteral("train"),    path,
                         QStringLiteral("--input"),  Demo("train_input.bin"),
                         QStringLiteral("--target"), Demo("train_target.bin")};
  auto result = RunCli(base);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.contains(QStringLiteral("asks for 2147483647 epochs")))
      << result.err.toStdString();
  result = RunCli(base + QStringList{QStringLiteral("--epochs"), QStringLiteral("1")});
  EXPECT_EQ(result.exit_code, 0) << result.err.toStdString();
}

}  // namespace
}  // namespace trainscope
