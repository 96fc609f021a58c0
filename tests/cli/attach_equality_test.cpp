// SPDX-License-Identifier: Apache-2.0
//
// The device path carries the same training as the local engine, field by field: a session
// recorded with `trainscope-cli attach --record` from trainscope-board-sim (over a pty and over
// TCP) and printed with `trace dump --json` must hold exactly the JSON lines `trainscope-cli
// train --events` writes for the same model, data and options.
//
// The simulator starts training before the desktop connects, so a recording begins at some
// optimizer step S. The comparison starts right after the first OPTIMIZER_STEP of the recording
// and after the OPTIMIZER_STEP with the same number in the local run, and ends with the last
// OPTIMIZER_STEP of the recording (a backward step after it may still wait for its memory
// summary). Training is deterministic, so both sides must agree from there on.
//
// The link must be lossless for that, and the agent drops statistics by design when one
// optimizer step's frames outgrow half of its 8 KiB TX ring on a rate-limited line (the
// simulator waits for the ring to be half empty before each step). So the rate-limited runs use
// a small generated model (about 2.1 KiB per step); the demo and simple_mnist (3.2-3.8 KiB per
// step, plus 2 bytes of ring bookkeeping per frame: too close to 4 KiB) run on an unlimited TCP
// line, where the simulator is far ahead when the desktop connects.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/model_builder.h"
#include "engine/model/opcodes.h"
#include "tests/cli/board_sim_process.h"
#include "tests/cli/cli_test_util.h"

namespace trainscope {
namespace {

using testing::BoardSimProcess;
using testing::CliResult;
using testing::DemoRun;
using testing::RunCli;
using testing::SimRun;
using testing::TempPath;

// The event lines both paths write (docs/events.md). The link lines of `trace dump` (hello,
// log, heartbeat, ...) have no local counterpart.
const QStringList kEventTypes = {QStringLiteral("backward_step"),  QStringLiteral("grad_stats"),
                                 QStringLiteral("update_ratio"),   QStringLiteral("loss"),
                                 QStringLiteral("optimizer_step"), QStringLiteral("metric")};

// Measured on each side, so never equal; every other field must be.
const QString kDuration = QStringLiteral("duration_ns");

QString SimpleMnistDir() {
  return QStringLiteral(TRAINSCOPE_MODELS_DIR) + QStringLiteral("/onert-micro/simple_mnist");
}

SimRun SimpleMnistSetup() {
  return {SimpleMnistDir() + QStringLiteral("/model.circle"),
          SimpleMnistDir() + QStringLiteral("/train_input.bin"),
          SimpleMnistDir() + QStringLiteral("/train_target.bin"),
          {QStringLiteral("--loss"), QStringLiteral("sparse-ce"), QStringLiteral("--optimizer"),
           QStringLiteral("adam")}};
}

bool WriteFile(const QString& path, const void* data, size_t size) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) &&
         file.write(static_cast<const char*>(data), static_cast<qint64>(size)) ==
             static_cast<qint64>(size);
}

// A 6-8-3 perceptron (FULLY_CONNECTED + RELU, FULLY_CONNECTED, SOFTMAX) and 24 labelled samples,
// written once into the test's temporary directory: few tensors, so one optimizer step is
// about 2.1 KiB on the wire.
SimRun TinySetup() {
  static const SimRun setup = [] {
    uint32_t state = 12345;
    const auto next = [&state](float scale) {
      state = state * 1664525u + 1013904223u;
      return scale * (static_cast<float>(state >> 8) / 8388608.0f - 1.0f);
    };
    const auto values = [&next](size_t count, float scale) {
      std::vector<float> v(count);
      for (float& x : v) x = next(scale);
      return v;
    };
    ModelBuilder b;
    const int x = b.AddTensor("x", {1, 6});
    const int w1 = b.AddConstant("w1", {8, 6}, values(48, 0.4f));
    const int b1 = b.AddConstant("b1", {8}, std::vector<float>(8, 0.0f));
    const int h = b.AddTensor("hidden", {1, 8});
    OpOptions relu;
    relu.activation = Activation::kRelu;
    b.AddOperator(op::kFullyConnected, {x, w1, b1}, {h}, relu);
    const int w2 = b.AddConstant("w2", {3, 8}, values(24, 0.4f));
    const int b2 = b.AddConstant("b2", {3}, std::vector<float>(3, 0.0f));
    const int logits = b.AddTensor("logits", {1, 3});
    b.AddOperator(op::kFullyConnected, {h, w2, b2}, {logits});
    const int p = b.AddTensor("p", {1, 3});
    b.AddOperator(op::kSoftmax, {logits}, {p});
    b.SetInputs({x});
    b.SetOutputs({p});
    std::vector<uint8_t> bytes;
    SimRun tiny{TempPath(QStringLiteral("tiny.circle")),
                TempPath(QStringLiteral("tiny_x.bin")),
                TempPath(QStringLiteral("tiny_y.bin")),
                {QStringLiteral("--loss"), QStringLiteral("sparse-ce"),
                 QStringLiteral("--optimizer"), QStringLiteral("adam")}};
    const std::vector<float> inputs = values(24 * 6, 1.0f);
    std::vector<float> labels(24);
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<float>(i % 3);
    if (!b.Finish(&bytes).ok() || !WriteFile(tiny.model, bytes.data(), bytes.size()) ||
        !WriteFile(tiny.input, inputs.data(), inputs.size() * sizeof(float)) ||
        !WriteFile(tiny.target, labels.data(), labels.size() * sizeof(float))) {
      tiny.model.clear();
    }
    return tiny;
  }();
  return setup;
}

QList<QJsonObject> JsonLines(const QString& text) {
  QList<QJsonObject> lines;
  for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    lines.append(QJsonDocument::fromJson(line.toUtf8()).object());
  }
  return lines;
}

bool IsEvent(const QJsonObject& line) {
  return kEventTypes.contains(line.value(QStringLiteral("type")).toString());
}

bool IsOptimizerStep(const QJsonObject& event, qint64 step = -1) {
  return event.value(QStringLiteral("type")).toString() == QLatin1String("optimizer_step") &&
         (step < 0 || event.value(QStringLiteral("step")).toInteger() == step);
}

int CountOfType(const QList<QJsonObject>& events, const char* type) {
  return static_cast<int>(std::count_if(events.begin(), events.end(), [type](const QJsonObject& e) {
    return e.value(QStringLiteral("type")).toString() == QLatin1String(type);
  }));
}

int NextFileNumber() {
  static int counter = 0;
  return ++counter;
}

QString Text(const QJsonObject& object) {
  return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

// The recorded events from the first OPTIMIZER_STEP (excluded) to the last (included), and how
// often the board reported itself paused in between.
struct Window {
  qint64 first_step = -1;
  qint64 last_epoch = 0;
  QList<QJsonObject> events;
  int pauses = 0;
};

Window DeviceWindow(const QList<QJsonObject>& recorded) {
  Window window;
  qsizetype first = -1, last = -1;
  for (qsizetype i = 0; i < recorded.size(); ++i) {
    if (!IsOptimizerStep(recorded[i])) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (first < 0 || last == first) return window;
  window.first_step = recorded[first].value(QStringLiteral("step")).toInteger();
  window.last_epoch = recorded[last].value(QStringLiteral("epoch")).toInteger();
  for (qsizetype i = first + 1; i <= last; ++i) {
    if (IsEvent(recorded[i])) window.events.append(recorded[i]);
    if (recorded[i].value(QStringLiteral("type")).toString() == QLatin1String("run_state") &&
        recorded[i].value(QStringLiteral("state")).toString() == QLatin1String("paused")) {
      ++window.pauses;
    }
  }
  return window;
}

// Compares line by line; the wire carries every float as its IEEE-754 bits and both sides print
// the same float through the same JSON writer, so numbers must match exactly, not within a
// tolerance.
void ExpectSameEvents(const QList<QJsonObject>& device, const QList<QJsonObject>& local) {
  ASSERT_LE(device.size(), local.size()) << "the local run is shorter than the recording";
  int mismatches = 0;
  for (qsizetype i = 0; i < device.size() && mismatches < 5; ++i) {
    QJsonObject a = device[i], b = local[i];
    a.remove(kDuration);
    b.remove(kDuration);
    if (a != b) {
      ++mismatches;
      ADD_FAILURE() << "event " << i << " differs:\n  device: " << Text(device[i]).toStdString()
                    << "\n  local:  " << Text(local[i]).toStdString();
    }
  }
}

// Attach for `steps` backward steps (plus `extra` options), then dump the recording.
QList<QJsonObject> RecordAndDump(const QString& endpoint, int steps, const QStringList& extra) {
  const QString trace = TempPath(QStringLiteral("equality-%1.tstrace").arg(NextFileNumber()));
  const CliResult attach =
      RunCli(QStringList{QStringLiteral("attach"), endpoint, QStringLiteral("--steps"),
                         QString::number(steps), QStringLiteral("--record"), trace,
                         QStringLiteral("--json")} +
                 extra,
             30000);
  EXPECT_EQ(attach.exit_code, 0) << attach.err.toStdString() << attach.out.toStdString();
  const QJsonObject summary = attach.json().object();
  // A frame lost anywhere would make the comparison fail for the wrong reason.
  EXPECT_EQ(summary.value(QStringLiteral("agent_drops")).toInteger(), 0);
  EXPECT_EQ(summary.value(QStringLiteral("frames_bad")).toInteger(), 0);
  EXPECT_EQ(summary.value(QStringLiteral("frames_dropped")).toInteger(), 0);
  const CliResult dump =
      RunCli({QStringLiteral("trace"), QStringLiteral("dump"), trace, QStringLiteral("--json")});
  EXPECT_EQ(dump.exit_code, 0) << dump.err.toStdString();
  return JsonLines(dump.out);
}

// Trains locally with --events and returns the `count` event lines that follow optimizer step
// `after`. Only those lines are parsed: a recording can start thousands of steps in.
QList<QJsonObject> TrainLocally(const SimRun& setup, qint64 epochs, qint64 after, qsizetype count) {
  const QString events = TempPath(QStringLiteral("equality-%1.jsonl").arg(NextFileNumber()));
  const CliResult train = RunCli(
      QStringList{QStringLiteral("train"), setup.model, QStringLiteral("--input"), setup.input,
                  QStringLiteral("--target"), setup.target, QStringLiteral("--epochs"),
                  QString::number(epochs), QStringLiteral("--events"), events} +
          setup.training,
      60000);
  EXPECT_EQ(train.exit_code, 0) << train.err.toStdString();
  QFile file(events);
  if (!file.open(QIODevice::ReadOnly)) return {};
  QList<QJsonObject> aligned;
  bool found = false;
  while (!file.atEnd() && aligned.size() < count) {
    const QByteArray line = file.readLine();
    if (!found) {
      found = line.contains("\"optimizer_step\"") &&
              IsOptimizerStep(QJsonDocument::fromJson(line).object(), after);
      continue;
    }
    const QJsonObject object = QJsonDocument::fromJson(line).object();
    if (IsEvent(object)) aligned.append(object);
  }
  EXPECT_TRUE(found) << "no optimizer step " << after << " in the local run";
  return aligned;
}

// The whole check: record from the simulator, train locally as far, align and compare at least
// `backward_steps` backward steps (and every line around them).
// `compared` (optional) receives the compared window.
void ExpectDeviceMatchesLocal(const SimRun& setup, const QString& endpoint, int backward_steps,
                              const QStringList& attach_extra = {}, Window* compared = nullptr) {
  // The window loses the partial optimizer steps at both ends of the recording.
  const Window window =
      DeviceWindow(RecordAndDump(endpoint, 2 * backward_steps + 20, attach_extra));
  if (compared != nullptr) *compared = window;
  ASSERT_GE(window.first_step, 0) << "the recording holds fewer than two optimizer steps";
  ASSERT_GE(CountOfType(window.events, "backward_step"), backward_steps);
  const QList<QJsonObject> local = TrainLocally(setup, std::max<qint64>(window.last_epoch, 1),
                                                window.first_step, window.events.size());
  ExpectSameEvents(window.events, local);
  EXPECT_GT(CountOfType(window.events, "grad_stats"), 0);
  EXPECT_GT(CountOfType(window.events, "update_ratio"), 0);
  EXPECT_GT(CountOfType(window.events, "loss"), 0);
  EXPECT_GT(CountOfType(window.events, "optimizer_step"), 0);
  for (const QJsonObject& event : window.events) {
    if (event.value(QStringLiteral("type")).toString() == QLatin1String("backward_step")) {
      // The memory numbers ride on the backward step line: a lost summary would drop them.
      EXPECT_TRUE(event.contains(QStringLiteral("current_bytes"))) << Text(event).toStdString();
    }
  }
}

const QStringList kLine921600 = {QStringLiteral("--baud"), QStringLiteral("921600")};

TEST(AttachEquality, OverAPtyTheRecordingHoldsTheLinesLocalTrainingWrites) {
  const SimRun tiny = TinySetup();
  ASSERT_FALSE(tiny.model.isEmpty()) << "could not write the generated model";
  BoardSimProcess sim(tiny, QStringList{QStringLiteral("--pty")} + kLine921600);
  ASSERT_TRUE(sim.endpoint().startsWith(QLatin1String("/dev/pts/"))) << sim.error().toStdString();
  ExpectDeviceMatchesLocal(tiny, sim.endpoint(), 30);
}

TEST(AttachEquality, OverTcpTheRecordingHoldsTheLinesLocalTrainingWrites) {
  const SimRun tiny = TinySetup();
  ASSERT_FALSE(tiny.model.isEmpty()) << "could not write the generated model";
  BoardSimProcess sim(tiny,
                      QStringList{QStringLiteral("--tcp"), QStringLiteral("0")} + kLine921600);
  ASSERT_FALSE(sim.endpoint().isEmpty()) << sim.error().toStdString();
  ExpectDeviceMatchesLocal(tiny, sim.endpoint(), 30);
}

TEST(AttachEquality, PausingAndSteppingLeavesTheStreamEqualToLocalTraining) {
  // serial_cli_test counts the backward steps a PAUSE / STEP_BACKWARD_OP script lets through;
  // this checks that the lines around the stops are still the local engine's, in order. Seven
  // single steps of a 3-op model cross two optimizer steps, so the stops fall inside the
  // compared window (the script ends the attach right after RESUME).
  const SimRun tiny = TinySetup();
  ASSERT_FALSE(tiny.model.isEmpty()) << "could not write the generated model";
  BoardSimProcess sim(tiny,
                      QStringList{QStringLiteral("--tcp"), QStringLiteral("0")} + kLine921600);
  ASSERT_FALSE(sim.endpoint().isEmpty()) << sim.error().toStdString();
  Window window;
  ExpectDeviceMatchesLocal(tiny, sim.endpoint(), 9,
                           {QStringLiteral("--pause-after"), QStringLiteral("9"),
                            QStringLiteral("--step"), QStringLiteral("7")},
                           &window);
  EXPECT_GE(window.pauses, 2) << "the stops were not inside the compared lines";
}

TEST(AttachEquality, TheDemoOnAnUnlimitedLineMatchesLocalTraining) {
  BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_TRUE(sim.started()) << sim.error().toStdString();
  ExpectDeviceMatchesLocal(DemoRun(), sim.endpoint(), 30);
}

TEST(AttachEquality, SimpleMnistOnAnUnlimitedLineMatchesLocalTraining) {
  if (!QFile::exists(SimpleMnistDir() + QStringLiteral("/model.circle"))) {
    GTEST_SKIP() << "simple_mnist not found in " << TRAINSCOPE_MODELS_DIR
                 << " (the shared model fixtures are absent)";
  }
  BoardSimProcess sim(SimpleMnistSetup(), {QStringLiteral("--tcp"), QStringLiteral("0")});
  ASSERT_FALSE(sim.endpoint().isEmpty()) << sim.error().toStdString();
  ExpectDeviceMatchesLocal(SimpleMnistSetup(), sim.endpoint(), 30);
}

}  // namespace
}  // namespace trainscope
