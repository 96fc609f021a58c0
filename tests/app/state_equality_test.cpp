// SPDX-License-Identifier: Apache-2.0
//
// One number, one place, end to end: the app run headless (`trainscope ... --state-json`) shows
// in its layers panel and its memory view exactly what `trainscope-cli memory --json` prints for
// the same model and options, the highest stack the memory timeline draws reaches the peak, and
// `fit` reports the same need as `memory`. Frozen layers show no gradient norm. Both programs run
// as child processes, as a user starts them.
#include <gtest/gtest.h>

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <vector>

#include "engine/model/model_builder.h"
#include "tests/common/fixtures.h"
#include "tests/engine/exec/test_models.h"

namespace trainscope {
namespace {

struct ProcessResult {
  int exit_code = -1;
  QByteArray out;
  QByteArray err;
};

ProcessResult Start(const QString& program, const QStringList& arguments,
                    const QString& home = QString()) {
  QProcess process;
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  if (!home.isEmpty()) {
    // Settings and recordings under `home`, not the user's.
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
  }
#ifdef TRAINSCOPE_SANITIZED
  // These tests compare figures; the app's leaks are checked in-process by the QtTests, not in
  // a child whose Qt plugins LeakSanitizer would blame at exit.
  environment.insert(
      QStringLiteral("ASAN_OPTIONS"),
      environment.value(QStringLiteral("ASAN_OPTIONS")) + QStringLiteral(":detect_leaks=0"));
#endif
  process.setProcessEnvironment(environment);
  process.start(program, arguments);
  ProcessResult run;
  if (!process.waitForFinished(120000)) {
    process.kill();
    process.waitForFinished();
    return run;
  }
  run.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  run.out = process.readAllStandardOutput();
  run.err = process.readAllStandardError();
  return run;
}

QTemporaryDir& Scratch() {
  static QTemporaryDir dir;
  return dir;
}

QString WriteModel(const QString& name, const std::vector<uint8_t>& bytes) {
  const QString path = Scratch().filePath(name);
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
  return path;
}

// x[1,8] -> FC(6, RELU) -> FC(5, RELU) -> FC(3): odd widths, so half ranks differ.
QString MlpModel() {
  ModelBuilder b;
  const int x = b.AddTensor("x", {1, 8});
  int previous = x, width = 8, layer = 0;
  for (int units : {6, 5, 3}) {
    const std::string name = "fc" + std::to_string(layer++);
    const int w = b.AddConstant(name + "/w", {units, width},
                                testing::Pattern(static_cast<size_t>(units * width), 0.3f, 0.2f));
    const int bias = b.AddConstant(name + "/b", {units}, std::vector<float>(units, 0.1f));
    const int y = b.AddTensor(name + "/y", {1, units});
    OpOptions options;
    if (units != 3) options.activation = Activation::kRelu;
    b.AddOperator(op::kFullyConnected, {previous, w, bias}, {y}, options);
    previous = y;
    width = units;
  }
  b.SetInputs({x});
  b.SetOutputs({previous});
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  return WriteModel(QStringLiteral("mlp.circle"), bytes);
}

QString ConvModel() {
  return WriteModel(QStringLiteral("conv.circle"), testing::ConvNet().bytes());
}

QJsonObject StateOf(const QStringList& arguments) {
  static int counter = 0;
  const QString path = Scratch().filePath(QStringLiteral("state-%1.json").arg(counter++));
  const ProcessResult run = Start(QStringLiteral(TRAINSCOPE_GUI),
                                  arguments + QStringList{QStringLiteral("--state-json"), path});
  EXPECT_EQ(run.exit_code, 0) << run.err.constData();
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

QJsonObject CliJson(const QStringList& arguments) {
  const ProcessResult run = Start(QStringLiteral(TRAINSCOPE_CLI), arguments);
  EXPECT_EQ(run.exit_code, 0) << run.err.constData();
  return QJsonDocument::fromJson(run.out).object();
}

struct Case {
  QString model;
  QStringList data;     // --input/--target, or empty for random samples
  QStringList options;  // the same training options for both programs
};

void ExpectAppEqualsCli(const Case& c) {
  SCOPED_TRACE(
      QString(c.model + QLatin1Char(' ') + c.options.join(QLatin1Char(' '))).toStdString());
  const QJsonObject state = StateOf(QStringList{c.model} + c.data + c.options +
                                    QStringList{QStringLiteral("--steps"), QStringLiteral("3")});
  // `memory` takes the planning options only; the loss does not change the plan.
  QStringList planning;
  for (int i = 0; i < c.options.size(); ++i) {
    if (c.options[i] == QLatin1String("--loss")) {
      ++i;
      continue;
    }
    planning << c.options[i];
  }
  const QJsonObject memory = CliJson(QStringList{QStringLiteral("memory"), c.model} + planning +
                                     QStringList{QStringLiteral("--json")});
  ASSERT_FALSE(state.isEmpty());
  ASSERT_FALSE(memory.isEmpty());
  const QJsonObject setup = state[QStringLiteral("setup")].toObject();
  EXPECT_EQ(setup[QStringLiteral("optimizer")], memory[QStringLiteral("optimizer")]);
  EXPECT_EQ(setup[QStringLiteral("batch")], memory[QStringLiteral("batch_size")]);
  const qint64 peak = memory[QStringLiteral("heap_peak_bytes")].toInteger();
  const qint64 arena = memory[QStringLiteral("arena_bytes")].toInteger();
  EXPECT_GT(peak, 0);
  const QJsonObject panel = state[QStringLiteral("layers_panel")].toObject();
  EXPECT_EQ(panel[QStringLiteral("heap_peak_bytes")].toInteger(), peak);
  EXPECT_EQ(panel[QStringLiteral("arena_bytes")].toInteger(), arena);
  const QJsonObject view = state[QStringLiteral("memory_view")].toObject();
  EXPECT_EQ(view[QStringLiteral("peak_bytes")].toInteger(), peak);
  EXPECT_EQ(view[QStringLiteral("arena_bytes")].toInteger(), arena);
  EXPECT_EQ(view[QStringLiteral("max_stacked_bytes")].toInteger(), peak);
  // After the optimizer step the step's last tick is shown: its live bytes.
  const QJsonArray steps = memory[QStringLiteral("steps")].toArray();
  ASSERT_FALSE(steps.isEmpty());
  EXPECT_EQ(view[QStringLiteral("current_bytes")].toInteger(),
            steps.last().toObject()[QStringLiteral("live_bytes")].toInteger());
  EXPECT_EQ(state[QStringLiteral("steps_run")].toInt(), 3);
}

const QStringList kOptimizers[] = {{QStringLiteral("--optimizer"), QStringLiteral("sgd")},
                                   {QStringLiteral("--optimizer"), QStringLiteral("adam")}};
const QStringList kBatches[] = {{QStringLiteral("--batch"), QStringLiteral("1")},
                                {QStringLiteral("--batch"), QStringLiteral("4")}};
const QStringList kLayers[] = {{}, {QStringLiteral("--train-layers"), QStringLiteral("2")}};

void ExpectEveryCombination(const QString& model, const QStringList& data,
                            const QStringList& extra = {}) {
  for (const QStringList& optimizer : kOptimizers) {
    for (const QStringList& batch : kBatches) {
      for (const QStringList& layers : kLayers) {
        ExpectAppEqualsCli({model, data, optimizer + batch + layers + extra});
      }
    }
  }
}

TEST(AppStateEqualsCli, DemoWithItsData) {
  // No options at all: both start from the same defaults (the demo's metadata).
  ExpectAppEqualsCli({QStringLiteral(TRAINSCOPE_DEMO_DIR "/demo.circle"), {}, {}});
  ExpectEveryCombination(QStringLiteral(TRAINSCOPE_DEMO_DIR "/demo.circle"), {});
}

// A model opened without data trains on random samples, and the banner says so.
TEST(AppState, RandomDataIsAnnouncedInTheBanner) {
  const QJsonObject state = StateOf({MlpModel(), QStringLiteral("--steps"), QStringLiteral("1")});
  const QJsonArray notices = state[QStringLiteral("notices")].toArray();
  ASSERT_EQ(notices.size(), 1);
  EXPECT_TRUE(notices[0].toString().contains(QStringLiteral("random samples")))
      << notices[0].toString().toStdString();
  // With data given, no notice.
  const QString dir = QStringLiteral(TRAINSCOPE_DEMO_DIR);
  const QJsonObject with_data = StateOf(
      {dir + QStringLiteral("/demo.circle"), QStringLiteral("--input"),
       dir + QStringLiteral("/train_input.bin"), QStringLiteral("--target"),
       dir + QStringLiteral("/train_target.bin"), QStringLiteral("--steps"), QStringLiteral("1")});
  EXPECT_TRUE(with_data[QStringLiteral("notices")].toArray().isEmpty());
}

TEST(AppStateEqualsCli, GeneratedFullyConnectedAndConvModels) {
  ExpectEveryCombination(MlpModel(), {});
  ExpectEveryCombination(ConvModel(), {}, {QStringLiteral("--loss"), QStringLiteral("sparse-ce")});
}

TEST(AppStateEqualsCli, SimpleMnistWithItsData) {
  TS_REQUIRE_FIXTURES();
  const QString dir =
      QString::fromStdString(testing::ModelsDir()) + QStringLiteral("/onert-micro/simple_mnist/");
  ExpectEveryCombination(dir + QStringLiteral("model.circle"),
                         {QStringLiteral("--input"), dir + QStringLiteral("train_input.bin"),
                          QStringLiteral("--target"), dir + QStringLiteral("train_target.bin")},
                         {QStringLiteral("--loss"), QStringLiteral("sparse-ce")});
}

// The configuration `fit` chooses, applied through a train-config, is planned the same by the
// app, and `fit` says it needs what `memory` says.
TEST(AppStateEqualsCli, FitConfigNeedsWhatMemorySays) {
  const QString model = QStringLiteral(TRAINSCOPE_DEMO_DIR "/demo.circle");
  const QString config = Scratch().filePath(QStringLiteral("fit.cfg"));
  const QJsonObject fit =
      CliJson({QStringLiteral("fit"), model, QStringLiteral("--budget"), QStringLiteral("12000"),
               QStringLiteral("--save-config"), config, QStringLiteral("--json")});
  ASSERT_TRUE(QFile::exists(config));
  const QJsonObject best = fit[QStringLiteral("best")].toObject();
  const QJsonObject memory =
      CliJson({QStringLiteral("memory"), model, QStringLiteral("--train-config"), config,
               QStringLiteral("--json")});
  EXPECT_EQ(best[QStringLiteral("heap_peak_bytes")].toInteger(),
            memory[QStringLiteral("heap_peak_bytes")].toInteger());
  EXPECT_LE(memory[QStringLiteral("heap_peak_bytes")].toInteger(), 12000);
  ExpectAppEqualsCli({model, {}, {QStringLiteral("--train-config"), config}});
}

// Only the last two operators train: every other tensor's norm is null, theirs is a number.
TEST(AppState, FrozenTensorsShowNoGradientNorm) {
  const QJsonObject state =
      StateOf({QStringLiteral(TRAINSCOPE_DEMO_DIR "/demo.circle"), QStringLiteral("--train-layers"),
               QStringLiteral("2"), QStringLiteral("--steps"), QStringLiteral("20")});
  const QJsonArray layers =
      state[QStringLiteral("gradients_view")].toObject()[QStringLiteral("layers")].toArray();
  // Every parameter of the demo is a row: conv, dense1 and dense2, weights and bias each.
  ASSERT_EQ(layers.size(), 6);
  for (const QJsonValue& value : layers) {
    const QJsonObject layer = value.toObject();
    const bool trained = layer[QStringLiteral("op_index")].toInt() >= 4;  // of 6 operators
    EXPECT_EQ(layer[QStringLiteral("trainable")].toBool(), trained);
    EXPECT_EQ(layer[QStringLiteral("l2_norm")].isNull(), !trained)
        << "tensor " << layer[QStringLiteral("tensor")].toInt();
  }
}

TEST(AppState, CorruptModelExitsTwoNamingTheFileOnce) {
  const QString path = Scratch().filePath(QStringLiteral("corrupt.circle"));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("this is not a flatbuffer at all, only text");
  file.close();
  const ProcessResult run =
      Start(QStringLiteral(TRAINSCOPE_GUI),
            {path, QStringLiteral("--state-json"), Scratch().filePath(QStringLiteral("x.json"))});
  EXPECT_EQ(run.exit_code, 2);
  const QString err = QString::fromUtf8(run.err);
  EXPECT_EQ(err.count(path), 1) << err.toStdString();
  EXPECT_FALSE(QFile::exists(Scratch().filePath(QStringLiteral("x.json"))));
}

// A headless run (a screenshot for a report, a CI job) leaves no recording behind unless asked.
TEST(AppState, HeadlessRunsRecordNothingUnlessAsked) {
  QTemporaryDir home;
  ASSERT_TRUE(home.isValid());
  const auto recordings = [&home] {
    QStringList found;
    QDirIterator it(home.path(), {QStringLiteral("*.tstrace")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) found << it.next();
    return found;
  };
  const QString png = home.filePath(QStringLiteral("shot.png"));
  ProcessResult run =
      Start(QStringLiteral(TRAINSCOPE_GUI),
            {QStringLiteral("--screenshot"), png, QStringLiteral("--steps"), QStringLiteral("3")},
            home.path());
  ASSERT_EQ(run.exit_code, 0) << run.err.toStdString();
  EXPECT_TRUE(QFile::exists(png));
  EXPECT_TRUE(recordings().isEmpty()) << recordings().join(QLatin1Char(' ')).toStdString();
  run = Start(QStringLiteral(TRAINSCOPE_GUI),
              {QStringLiteral("--screenshot"), png, QStringLiteral("--steps"), QStringLiteral("3"),
               QStringLiteral("--record")},
              home.path());
  ASSERT_EQ(run.exit_code, 0) << run.err.toStdString();
  EXPECT_EQ(recordings().size(), 1) << "--record asks for one";
}

// --inspect: the Tensor values dock on a layer's weight gradient, its figures on stdout; an
// operator the model does not have is refused with the count.
TEST(AppState, InspectShowsALayersWeightGradient) {
  QTemporaryDir home;
  ASSERT_TRUE(home.isValid());
  const QString png = home.filePath(QStringLiteral("inspect.png"));
  ProcessResult run = Start(QStringLiteral(TRAINSCOPE_GUI),
                            {QStringLiteral("--screenshot"), png, QStringLiteral("--steps"),
                             QStringLiteral("3"), QStringLiteral("--inspect"), QStringLiteral("3")},
                            home.path());
  ASSERT_EQ(run.exit_code, 0) << run.err.toStdString();
  EXPECT_TRUE(QFile::exists(png));
  const QString out = QString::fromUtf8(run.out);
  EXPECT_TRUE(out.contains(QStringLiteral("dense1/weights 16×150 · 2,400 values")))
      << out.toStdString();
  EXPECT_TRUE(out.contains(QStringLiteral("NaN 0 · Inf 0"))) << out.toStdString();
  EXPECT_FALSE(out.contains(QStringLiteral("Not available"))) << out.toStdString();
  run = Start(
      QStringLiteral(TRAINSCOPE_GUI),
      {QStringLiteral("--screenshot"), png, QStringLiteral("--inspect"), QStringLiteral("99")},
      home.path());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(QString::fromUtf8(run.err).contains(QStringLiteral("the model has 6 operators")))
      << run.err.toStdString();
}

// An int8 model opens but cannot train: the dump says so and why, and the banner shows it.
TEST(AppState, UntrainableModelSaysWhyAndExitsZero) {
  TS_REQUIRE_FIXTURES();
  const QString model = QString::fromStdString(testing::ModelsDir()) +
                        QStringLiteral("/tflite/hello_world_int8.tflite");
  const QJsonObject state = StateOf({model, QStringLiteral("--steps"), QStringLiteral("2")});
  EXPECT_FALSE(state[QStringLiteral("training_available")].toBool(true));
  const QString reason = state[QStringLiteral("training_unavailable_reason")].toString();
  EXPECT_TRUE(reason.contains(QStringLiteral("INT8"))) << reason.toStdString();
  EXPECT_EQ(reason.count(model), 1) << reason.toStdString();
  const QJsonArray notices = state[QStringLiteral("notices")].toArray();
  ASSERT_EQ(notices.size(), 1);
  EXPECT_TRUE(notices[0].toString().contains(QStringLiteral("INT8")));
  EXPECT_TRUE(notices[0].toString().contains(QStringLiteral("Read-only")));
  // It opened read-only: its graph, and the memory of one inference as `memory --inference`.
  EXPECT_EQ(state[QStringLiteral("graph_operators")].toInt(), 3);
  const QJsonObject memory = CliJson(
      {QStringLiteral("memory"), model, QStringLiteral("--inference"), QStringLiteral("--json")});
  const QJsonObject panel = state[QStringLiteral("layers_panel")].toObject();
  EXPECT_GT(memory[QStringLiteral("heap_peak_bytes")].toInteger(), 0);
  EXPECT_EQ(panel[QStringLiteral("inference_heap_peak_bytes")].toInteger(),
            memory[QStringLiteral("heap_peak_bytes")].toInteger());
  EXPECT_EQ(panel[QStringLiteral("arena_bytes")].toInteger(),
            memory[QStringLiteral("arena_bytes")].toInteger());
}

TEST(AppState, HelpAndVersionNeedNoDisplay) {
  for (const char* flag : {"--help", "--version"}) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(TRAINSCOPE_GUI), {QLatin1String(flag)});
    ASSERT_TRUE(process.waitForFinished(10000)) << flag;
    EXPECT_EQ(process.exitCode(), 0) << flag << process.readAllStandardError().constData();
    EXPECT_FALSE(process.readAllStandardOutput().isEmpty()) << flag;
  }
}

}  // namespace
}  // namespace trainscope
