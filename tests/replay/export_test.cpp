// SPDX-License-Identifier: Apache-2.0
//
// View exports: every plot view and the graph write valid PNG, SVG and PDF files, tables write
// CSV, and no temporary file is left behind. Also the app glue: File > Open Trace replays into
// the main window, and local sessions get recorded.
#include <gtest/gtest.h>

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTableView>
#include <QXmlStreamReader>

#include <cstdio>

#include "engine/memory/memory_report.h"
#include "tests/replay/recording_fixture.h"
#include "ui/controllers/replay_controller.h"
#include "ui/session/sources/replay_event_source.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/main_window/view_export.h"
#include "ui/widgets/memory/memory_view.h"
#include "ui/widgets/replay/replay_timeline.h"

namespace trainscope {
namespace {

using testing::RecordConvNetRun;
using testing::RecordedRun;

QByteArray ReadAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void ExpectValidImageFile(const QString& path) {
  const QByteArray bytes = ReadAll(path);
  ASSERT_FALSE(bytes.isEmpty()) << path.toStdString();
  switch (ImageFormatOfPath(path)) {
    case ImageFormat::kPng: {
      QImage image;
      ASSERT_TRUE(image.loadFromData(bytes, "PNG")) << path.toStdString();
      EXPECT_GT(image.width(), 50);
      break;
    }
    case ImageFormat::kSvg: {
      QXmlStreamReader xml(bytes);
      bool saw_svg = false;
      int elements = 0;
      while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement) {
          ++elements;
          saw_svg = saw_svg || xml.name() == QLatin1String("svg");
        }
      }
      EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
      EXPECT_TRUE(saw_svg);
      EXPECT_GT(elements, 10) << "an SVG that draws something";
      break;
    }
    case ImageFormat::kPdf: {
      EXPECT_TRUE(bytes.startsWith("%PDF"));
      const QString pdfinfo = QStandardPaths::findExecutable(QStringLiteral("pdfinfo"));
      if (!pdfinfo.isEmpty()) {
        QProcess process;
        process.start(pdfinfo, {path});
        ASSERT_TRUE(process.waitForFinished(10000));
        EXPECT_EQ(process.exitCode(), 0) << process.readAllStandardError().toStdString();
        const QString info = QString::fromUtf8(process.readAllStandardOutput());
        EXPECT_TRUE(info.contains(QRegularExpression(QStringLiteral("Pages:\\s+1\\b"))))
            << info.toStdString();
      }
      break;
    }
    case ImageFormat::kUnknown:
      FAIL() << "not an image path";
  }
}

class ExportTest : public testing::RecordedRunTest<ExportTest> {
 protected:
  void SetUp() override {
    // To look at the files: TRAINSCOPE_KEEP_EXPORTS=1 keeps them (the folder is printed).
    if (qEnvironmentVariableIsSet("TRAINSCOPE_KEEP_EXPORTS")) {
      out_.setAutoRemove(false);
      std::printf("exports in %s\n", qPrintable(out_.path()));
    }
    ASSERT_TRUE(replay_.open(run_->path).ok());
    replay_.seekToEvent(replay_.eventCount());
    window_.setStore(store_);
    window_.setGraph(testing::ConvNet().graph(), QStringLiteral("convnet.circle"));
    window_.setEventSource(&replay_);
    window_.resize(1200, 900);
    for (QWidget* view : std::initializer_list<QWidget*>{window_.memoryView(), window_.lossView(),
                                                         window_.gradientsView()}) {
      QMetaObject::invokeMethod(view, "refresh");
    }
    window_.graphView()->refresh();
  }
  void TearDown() override { window_.setEventSource(nullptr); }

  std::shared_ptr<SessionStore> store_ = std::make_shared<SessionStore>();
  ReplayEventSource replay_{store_};
  MainWindow window_;
  QTemporaryDir out_;
};

TEST_F(ExportTest, EveryPlotViewExportsValidPngSvgAndPdf) {
  const struct {
    const char* name;
    QCustomPlot* plot;
  } plots[] = {{"memory", window_.memoryView()->timelinePlot()},
               {"loss", window_.lossView()->plot()},
               {"gradients", window_.gradientsView()->l2Bars()->parentPlot()}};
  QStringList written;
  for (const auto& view : plots) {
    for (const char* suffix : {"png", "svg", "pdf"}) {
      const QString path = out_.filePath(
          QStringLiteral("%1.%2").arg(QLatin1String(view.name), QLatin1String(suffix)));
      QString error;
      ASSERT_TRUE(ExportPlot(view.plot, path, &error)) << error.toStdString();
      ExpectValidImageFile(path);
      written << QFileInfo(path).fileName();
    }
  }
  QStringList present = QDir(out_.path()).entryList(QDir::Files);
  present.sort();
  written.sort();
  EXPECT_EQ(present, written) << "no temporary file left behind";
}

TEST_F(ExportTest, GraphExportsTheWholeSceneInEveryFormat) {
  ASSERT_GT(window_.graphView()->nodeCount(), 0);
  for (const char* suffix : {"png", "svg", "pdf"}) {
    const QString path = out_.filePath(QStringLiteral("graph.") + QLatin1String(suffix));
    QString error;
    ASSERT_TRUE(ExportScene(window_.graphView()->canvas()->scene(), path, &error))
        << error.toStdString();
    ExpectValidImageFile(path);
  }
  EXPECT_EQ(QDir(out_.path()).entryList(QDir::Files).size(), 3);
}

TEST_F(ExportTest, UnknownSuffixOrUnwritablePlaceFailsWithoutLeavingFiles) {
  QString error;
  EXPECT_FALSE(
      ExportPlot(window_.lossView()->plot(), out_.filePath(QStringLiteral("x.bmp")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral(".png")));
  EXPECT_FALSE(ExportPlot(window_.lossView()->plot(),
                          out_.filePath(QStringLiteral("missing/dir/x.png")), &error));
  EXPECT_TRUE(QDir(out_.path()).entryList(QDir::Files).isEmpty());
}

TEST_F(ExportTest, LayersTableExportsOneCsvRowPerOperator) {
  LayersPanel* panel = window_.layersPanel();
  const QString path = out_.filePath(QStringLiteral("layers.csv"));
  QString error;
  ASSERT_TRUE(WriteTextFile(path, ModelToCsv(*panel->table()->model()), &error));
  const QList<QByteArray> lines = ReadAll(path).trimmed().split('\n');
  ASSERT_EQ(lines.size(), 1 + 6) << "header and ConvNet's six operators";
  const int columns = panel->model()->columnCount();
  EXPECT_EQ(lines.front().count(',') + 1, columns);
  EXPECT_TRUE(lines[1].contains("CONV_2D"));
}

TEST_F(ExportTest, GradientStatsCsvHasOneRowPerTrainedTensorOfTheLatestStep) {
  const auto snapshot = store_->snapshot();
  const Graph graph = testing::ConvNet().graph();
  const QString csv = GradientStatsToCsv(*snapshot, &graph);
  const QStringList lines = csv.trimmed().split(QLatin1Char('\n'));
  ASSERT_EQ(lines.size(), 1 + 6);
  EXPECT_TRUE(lines[1].startsWith(QStringLiteral("0,1,conv/w,6,")));
  const TensorGradient* conv_w = snapshot->findTensor(1);
  ASSERT_NE(conv_w, nullptr);
  EXPECT_FLOAT_EQ(lines[1].split(QLatin1Char(','))[4].toFloat(), conv_w->stats.l2);
}

TEST_F(ExportTest, ControllerAddsMenusAndReplaysATraceIntoTheWindow) {
  window_.setEventSource(nullptr);
  auto store = std::make_shared<SessionStore>();
  MainWindow window;
  window.setStore(store);
  ReplayController controller(store);
  controller.setRecordingDir(out_.path());
  controller.install(&window);
  InstallViewExports(&window);  // as the app's main() does
  ASSERT_NE(controller.openTraceAction(), nullptr);
  EXPECT_EQ(controller.openTraceAction()->shortcut(),
            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  EXPECT_NE(window.findChild<QAction*>(QStringLiteral("exportCurrentViewAction")), nullptr);
  EXPECT_EQ(window.graphView()->nodeCount(), 0);

  Q_EMIT window.openTraceRequested(run_->path);
  EXPECT_EQ(window.eventSource(), controller.replaySource());
  EXPECT_FALSE(controller.timelineDock()->isHidden());
  // The model is not among the recent files: the graph comes from the announced operators.
  EXPECT_EQ(window.graphView()->nodeCount(), 6);
  ReplayTimeline* timeline = controller.timeline();
  EXPECT_EQ(timeline->slider()->maximum(), 72);
  timeline->slider()->setValue(30);
  EXPECT_EQ(controller.replaySource()->position(), 30u);
  EXPECT_TRUE(timeline->positionText().contains(QStringLiteral("30 / 72")));
  EXPECT_GT(store->snapshot()->events_total, 0u);
}

TEST_F(ExportTest, ReplayShowsTheModelWhoseHashMatchesTheTrace) {
  window_.setEventSource(nullptr);
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.tstrace"));
  ASSERT_TRUE(QFile::copy(run_->path, trace));
  // Next to the trace: a different model first (must not match), then the recorded one.
  const Model other = testing::ConvNet();
  std::vector<uint8_t> changed = other.bytes();
  changed.back() ^= 1;  // same graph, other bytes: another hash
  QFile decoy(dir.filePath(QStringLiteral("a-decoy.circle")));
  ASSERT_TRUE(decoy.open(QIODevice::WriteOnly));
  decoy.write(reinterpret_cast<const char*>(changed.data()), static_cast<qint64>(changed.size()));
  decoy.close();
  auto store = std::make_shared<SessionStore>();
  MainWindow window;
  window.setStore(store);
  ReplayController controller(store);
  controller.install(&window);
  ASSERT_TRUE(controller.openTrace(trace).ok());
  EXPECT_FALSE(window.windowTitle().contains(QStringLiteral("a-decoy")));
  QFile model(dir.filePath(QStringLiteral("b-convnet.circle")));
  ASSERT_TRUE(model.open(QIODevice::WriteOnly));
  model.write(reinterpret_cast<const char*>(other.bytes().data()),
              static_cast<qint64>(other.bytes().size()));
  model.close();
  ASSERT_TRUE(controller.openTrace(trace).ok());
  EXPECT_TRUE(window.windowTitle().contains(QStringLiteral("b-convnet.circle")))
      << window.windowTitle().toStdString();
  EXPECT_EQ(window.graphView()->nodeCount(), 6);
  window.setEventSource(nullptr);
}

// The model on screen is the model planned: a replay whose model file is found plans that model
// with the recorded session's optimizer and batch (Adam, 2), not whatever was opened locally; one
// whose file is missing plans nothing and says why.
TEST_F(ExportTest, ReplayPlansTheRecordedModelWithTheRecordedOptimizerAndBatch) {
  window_.setEventSource(nullptr);
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("run.tstrace"));
  ASSERT_TRUE(QFile::copy(run_->path, trace));
  auto store = std::make_shared<SessionStore>();
  MainWindow window;
  window.setStore(store);
  ReplayController controller(store);
  controller.install(&window);
  ASSERT_TRUE(controller.openTrace(trace).ok());
  EXPECT_EQ(window.layersPanel()->appliedEstimate().heap_peak_bytes, 0u);
  EXPECT_FALSE(window.sessionHost()->model().plannable);
  EXPECT_TRUE(window.sessionHost()->model().note.contains(QStringLiteral("no shapes")));

  const Model model = testing::ConvNet();
  QFile file(dir.filePath(QStringLiteral("convnet.circle")));
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(reinterpret_cast<const char*>(model.bytes().data()),
             static_cast<qint64>(model.bytes().size()));
  file.close();
  ASSERT_TRUE(controller.openTrace(trace).ok());
  const SessionModel& shown = window.sessionHost()->model();
  EXPECT_TRUE(shown.plannable);
  EXPECT_EQ(shown.options.optimizer, OptimizerKind::kAdam);
  EXPECT_EQ(shown.options.batch_size, 2u);
  MemoryReportOptions options;
  options.optimizer = OptimizerKind::kAdam;
  options.batch_size = 2;
  MemoryReport expected;
  ASSERT_TRUE(ComputeMemoryReport(model.graph(), window.layersPanel()->appliedTrainability(),
                                  options, &expected)
                  .ok());
  EXPECT_EQ(window.layersPanel()->appliedEstimate().heap_peak_bytes, expected.heap_peak_bytes);
  EXPECT_EQ(window.layersPanel()->appliedEstimate().arena_bytes, expected.arena_bytes);
  window.setEventSource(nullptr);
}

TEST_F(ExportTest, ControllerRecordsTheLocalSessionOfTheWindow) {
  window_.setEventSource(nullptr);
  auto store = std::make_shared<SessionStore>();
  LocalEventSource embedded(store);
  LocalSetup setup;
  setup.train = testing::ConvNetData(4);
  setup.options.loss = LossKind::kSparseCrossEntropy;
  ASSERT_TRUE(embedded.load(testing::ConvNet(), setup, QStringLiteral("convnet.circle")).ok());
  MainWindow window;
  window.setStore(store);
  window.setEventSource(&embedded);
  {
    ReplayController controller(store);
    controller.setRecordingDir(out_.path());
    controller.install(&window);
    ASSERT_NE(controller.currentRecorder(), nullptr);
    EXPECT_EQ(embedded.recorder(), controller.currentRecorder());
    const QString path = controller.currentRecorder()->path();
    EXPECT_TRUE(QFileInfo(path).fileName().startsWith(QStringLiteral("convnet-")));
    EXPECT_FALSE(QFile::exists(path)) << "nothing ran yet: no file";
    embedded.stepBatch();
    QElapsedTimer timer;
    timer.start();
    while (embedded.state() != EventSource::State::kPaused && timer.elapsed() < 5000) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    embedded.stop();
    TraceIndex index;
    ASSERT_TRUE(IndexTrace(path, &index).ok());
    EXPECT_EQ(index.optimizer_steps.size(), 1u);
    EXPECT_EQ(index.backward_ends.size(), 6u);
    // A restart ends that recording as it was; the restarted run goes to a file of its own.
    ASSERT_TRUE(embedded.restart().ok());
    ASSERT_NE(embedded.recorder(), nullptr);
    EXPECT_EQ(embedded.recorder(), controller.currentRecorder());
    const QString restarted = controller.currentRecorder()->path();
    EXPECT_NE(restarted, path);
    embedded.stepBatch();
    timer.restart();
    while (embedded.state() != EventSource::State::kPaused && timer.elapsed() < 5000) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    embedded.stop();
    TraceIndex first;
    ASSERT_TRUE(IndexTrace(path, &first).ok());
    EXPECT_EQ(first.optimizer_steps.size(), 1u);
    TraceIndex second;
    ASSERT_TRUE(IndexTrace(restarted, &second).ok());
    EXPECT_EQ(second.optimizer_steps.size(), 1u);
    // A session the window gets later (a new model, a new setup) is recorded to a file of its own.
    LocalEventSource next(store);
    ASSERT_TRUE(next.load(testing::ConvNet(), setup, QStringLiteral("next.circle")).ok());
    window.setEventSource(&next);
    ASSERT_NE(next.recorder(), nullptr);
    EXPECT_EQ(next.recorder(), controller.currentRecorder());
    EXPECT_NE(controller.currentRecorder()->path(), path);
    window.setEventSource(nullptr);
  }
}

}  // namespace
}  // namespace trainscope
