// SPDX-License-Identifier: Apache-2.0
#include "app/gui/app_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <random>

#include "app/common/training_args.h"
#include "engine/memory/memory_report.h"
#include "engine/plan/onert_differences.h"
#include "engine/train/losses.h"
#include "engine/train/metrics.h"
#include "ui/session/trainability.h"
#include "ui/views/layers_panel.h"
#include "ui/views/main_window.h"

namespace trainscope {
namespace {

// Samples of the right shape for a model opened without data: uniform inputs, labels spread
// over the output classes. Enough to watch memory and gradients; the messages say so.
DataSet RandomData(const Subgraph& main, LossKind loss, uint32_t samples) {
  DataSet data;
  data.sample_count = samples;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int32_t input : main.inputs) {
    std::vector<float> values(main.tensors[input].element_count() * samples);
    for (float& v : values) v = uniform(rng);
    data.inputs.push_back(std::move(values));
  }
  const size_t outputs = cli::OutputElementCount(main);
  const size_t per_target = TargetElementCount(loss, outputs);
  for (uint32_t s = 0; s < samples; ++s) {
    for (size_t e = 0; e < per_target; ++e) {
      const float label = static_cast<float>(s % std::max<size_t>(outputs, 1));
      data.targets.push_back(per_target == 1 ? label : (e == s % outputs ? 1.0f : 0.0f));
    }
  }
  return data;
}

}  // namespace

SessionFiles DemoSessionFiles() {
  const QDir here(QCoreApplication::applicationDirPath());
  QStringList candidates{QStringLiteral(TRAINSCOPE_DEMO_DIR),
                         here.filePath(QStringLiteral("../share/trainscope/demo"))};
  for (const QString& dir : candidates) {
    const QDir demo(dir);
    if (!QFileInfo::exists(demo.filePath(QStringLiteral("demo.circle")))) continue;
    SessionFiles files;
    files.model = demo.filePath(QStringLiteral("demo.circle"));
    files.inputs = {demo.filePath(QStringLiteral("train_input.bin"))};
    files.target = demo.filePath(QStringLiteral("train_target.bin"));
    files.test_inputs = {demo.filePath(QStringLiteral("test_input.bin"))};
    files.test_target = demo.filePath(QStringLiteral("test_target.bin"));
    return files;
  }
  return {};
}

AppController::AppController(MainWindow* window, std::shared_ptr<TraceStore> store, QObject* parent)
    : QObject(parent), window_(window), store_(std::move(store)) {
  defaults_.optimizer = OptimizerKind::kAdam;
  defaults_.learning_rate = 0.005f;
  defaults_.beta2 = 0.999f;
  defaults_.loss = LossKind::kSparseCrossEntropy;
  defaults_.metric = MetricKind::kSparseCrossEntropyAccuracy;
  defaults_.epochs = 1000;
  connect(window_, &MainWindow::openRequested, this, &AppController::openModel);
  connect(window_->layersPanel(), &LayersPanel::trainabilityApplied, this,
          [this](uint32_t last_n, const TrainRankMap& ranks) {
            TrainabilityConfig config;
            config.num_train_layers = last_n;
            config.op_ranks = ranks;
            applyWarnings(config);
          });
}

AppController::~AppController() {
  window_->setEventSource(nullptr);
}

void AppController::openModel(const QString& path) {
  SessionFiles files;
  files.model = path;
  Status status = open(files);
  if (!status.ok()) window_->removeRecentFile(path);
}

Status AppController::open(const SessionFiles& files) {
  Model model;
  Status status = ReadModelFile(files.model.toStdString(), &model);
  EmbeddedSetup setup;
  setup.options = defaults_;
  const Subgraph& main = model.graph().main();
  if (status.ok() && !main.outputs.empty()) {
    const size_t outputs = cli::OutputElementCount(main);
    // Classifiers (a softmax at the end) train with sparse labels, anything else with MSE.
    const bool classifier = !main.operators.empty() && main.operators.back().opcode == op::kSoftmax;
    if (!classifier) {
      setup.options.loss = LossKind::kMse;
      setup.options.metric = MetricKind::kMse;
    }
    if (files.inputs.isEmpty()) {
      setup.train = RandomData(main, setup.options.loss, 32);
    } else {
      status = cli::ReadDataSet(main, files.inputs, files.target,
                                TargetElementCount(setup.options.loss, outputs),
                                QStringLiteral("training"), &setup.train);
      if (status.ok() && !files.test_inputs.isEmpty()) {
        status = cli::ReadDataSet(main, files.test_inputs, files.test_target,
                                  TargetElementCount(setup.options.metric, outputs),
                                  QStringLiteral("test"), &setup.test);
      }
    }
  }
  if (status.ok()) {
    auto source = std::make_unique<EmbeddedEventSource>(store_);
    const Graph graph = model.graph();
    status = source->load(std::move(model), std::move(setup), QFileInfo(files.model).fileName());
    if (status.ok()) {
      window_->setEventSource(nullptr);
      source_ = std::move(source);
      store_->clear();
      window_->setGraph(graph, files.model);
      window_->setEventSource(source_.get());
      window_->addRecentFile(QFileInfo(files.model).absoluteFilePath());
      const OptimizerKind optimizer = defaults_.optimizer;
      window_->layersPanel()->setEstimator(
          [graph, optimizer](uint32_t last_n, const TrainRankMap& ranks) {
            TrainabilityConfig config;
            config.num_train_layers = last_n;
            config.op_ranks = ranks;
            LayersPanel::Estimate estimate;
            MemoryReport report;
            if (ComputeMemoryReport(graph, config, optimizer, false, &report).ok()) {
              estimate.heap_peak_bytes = report.heap_peak_bytes;
              estimate.arena_bytes = report.arena_bytes;
            }
            estimate.trained_params =
                TrainedParameterCount(graph.main(), ResolveTrainability(graph.main(), config));
            return estimate;
          });
      applyWarnings(TrainabilityConfig());
      if (files.inputs.isEmpty()) {
        EventBatch note;
        note.add(StatusMessage{MessageLevel::kWarning,
                               QStringLiteral("no training data was given: training on random "
                                              "samples of the right shape")});
        store_->append(note);
      }
      return Status::Ok();
    }
  }
  status.Prepend(files.model.toStdString());
  EventBatch failure;
  failure.add(StatusMessage{MessageLevel::kError, QString::fromUtf8(status.message())});
  store_->append(failure);
  return status;
}

void AppController::applyWarnings(const TrainabilityConfig& config) {
  if (!source_ || !source_->model()) return;
  const Subgraph& main = source_->model()->graph().main();
  LayersPanel* panel = window_->layersPanel();
  panel->clearOpWarnings();
  std::map<uint32_t, QStringList> texts;
  for (const OnertDifference& d :
       FindOnertDifferences(main, SelectBackwardRange(main, config), defaults_.optimizer)) {
    texts[d.op_index] << QString::fromStdString(d.text);
  }
  for (const auto& [op_index, lines] : texts) {
    panel->setOpWarning(static_cast<int>(op_index),
                        QStringLiteral("On a board, onert-micro differs here:\n• ") +
                            lines.join(QStringLiteral("\n• ")));
  }
}

}  // namespace trainscope
