// SPDX-License-Identifier: Apache-2.0
//
// LayersPanel: the train-config and CIRCLE_TRAINING file actions.
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>

#include <vector>

#include "engine/model/model.h"
#include "engine/plan/train_config_file.h"
#include "engine/train/training_metadata.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"

namespace trainscope {
namespace {

Status WriteAtomically(const QString& path, const std::vector<uint8_t>& bytes) {
  return WriteFileAtomically(path.toStdString(), bytes.data(), bytes.size());
}

// CIRCLE_TRAINING can only say "the operators from k to the end train"; `exact` tells whether
// the pending choice is that and nothing more (no ranks, no gaps among the ops with weights).
uint32_t TrailingTrainLayers(const Subgraph& main, const TrainabilityConfig& config, bool* exact) {
  const auto count = static_cast<uint32_t>(main.operators.size());
  *exact = true;
  if (config.op_ranks.empty()) {
    return config.num_train_layers == 0 || config.num_train_layers > count
               ? count
               : config.num_train_layers;
  }
  const uint32_t first = config.op_ranks.begin()->first;
  for (uint32_t k = first; k < count; ++k) {
    const auto it = config.op_ranks.find(static_cast<uint16_t>(k));
    const bool weights = HasOnertTrainableWeights(main.operators[k].opcode);
    if ((it != config.op_ranks.end() && it->second != TrainRank::kAll) ||
        (weights && it == config.op_ranks.end())) {
      *exact = false;
    }
  }
  return count - first;
}

}  // namespace

QLayout* LayersPanel::createFileButtons() {
  const auto make = [this](const QString& text, const QString& tip) {
    auto* button = new QPushButton(text, this);
    button->setToolTip(tip);
    return button;
  };
  QPushButton* load_config =
      make(tr("Load train config…"), tr("Read an onert-micro train-config file (operator indices "
                                        "and ranks) as a pending edit"));
  QPushButton* save_config =
      make(tr("Save train config…"), tr("Write the pending choice as an onert-micro train-config "
                                        "file"));
  QPushButton* load_model = make(tr("Load from model (CIRCLE_TRAINING)"),
                                 tr("Read the trainable operators from the model's "
                                    "CIRCLE_TRAINING metadata as a pending edit"));
  QPushButton* save_model = make(tr("Save model with training metadata…"),
                                 tr("Write a copy of the model whose CIRCLE_TRAINING metadata "
                                    "holds the training options and the pending choice"));
  const QString config_filter = tr("Train config (*.cfg *.bin *.traincfg);;All files (*)");
  const QString model_filter = tr("Models (*.circle *.tflite);;All files (*)");
  connect(load_config, &QPushButton::clicked, this, [this, config_filter] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Load train config"), QString(), config_filter);
    if (!path.isEmpty()) static_cast<void>(loadTrainConfig(path));  // the label shows it
  });
  connect(save_config, &QPushButton::clicked, this, [this, config_filter] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save train config"), QString(), config_filter);
    if (!path.isEmpty()) static_cast<void>(saveTrainConfig(path));
  });
  connect(load_model, &QPushButton::clicked, this,
          [this] { static_cast<void>(loadTrainingMetadata(model_file_)); });
  connect(save_model, &QPushButton::clicked, this, [this, model_filter] {
    const QFileInfo info(model_file_);
    const QString suggestion =
        info.dir().filePath(info.completeBaseName() + QStringLiteral("_train.") + info.suffix());
    const QString path = QFileDialog::getSaveFileName(this, tr("Save model with training metadata"),
                                                      suggestion, model_filter);
    if (!path.isEmpty()) static_cast<void>(saveModelWithTrainingMetadata(path));
  });
  QPushButton* export_report =
      make(tr("Export memory report…"),
           tr("Write the memory report of the pending choice: HTML, PDF, JSON, CSV, Mondrian "
              "or Chrome trace"));
  connect(export_report, &QPushButton::clicked, this, &LayersPanel::exportMemoryReportDialog);
  file_message_ = new QLabel(this);
  file_message_->setWordWrap(true);
  file_message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  file_message_->hide();
  auto* grid = new QGridLayout;
  grid->addWidget(load_config, 0, 0);
  grid->addWidget(save_config, 0, 1);
  grid->addWidget(load_model, 1, 0);
  grid->addWidget(save_model, 1, 1);
  grid->addWidget(export_report, 2, 0, 1, 2);
  grid->addWidget(file_message_, 3, 0, 1, 2);
  return grid;
}

Status LayersPanel::report(Status status, const QString& success) const {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  QPalette colours = file_message_->palette();
  colours.setColor(QPalette::WindowText,
                   status.ok() ? palette().color(QPalette::WindowText) : theme.error);
  file_message_->setPalette(colours);
  file_message_->setText(status.ok() ? success : QString::fromUtf8(status.message()));
  file_message_->show();
  return status;
}

void LayersPanel::setPendingFromFile(const TrainabilityConfig& config) {
  QSignalBlocker block(last_n_spin_);
  last_n_spin_->setValue(static_cast<int>(config.num_train_layers));
  model_->setPending(config);
}

Status LayersPanel::loadTrainConfig(const QString& path) {
  const Graph& graph = model_->graph();
  if (graph.subgraphs.empty()) {
    return report(Status::Error(StatusCode::kInvalidArgument, "no model is loaded"), QString());
  }
  TrainabilityConfig config;
  Status status =
      ReadTrainConfigFile(path.toStdString(), graph.main().operators.size(), &config.op_ranks);
  if (status.ok()) status = ValidateTrainabilityConfig(graph.main(), config);
  if (!status.ok()) return report(std::move(status), QString());
  setPendingFromFile(config);
  return report(Status::Ok(), tr("Loaded %1: %n operator(s) with a rank. Apply to use it.", nullptr,
                                 static_cast<int>(config.op_ranks.size()))
                                  .arg(QFileInfo(path).fileName()));
}

Status LayersPanel::saveTrainConfig(const QString& path) const {
  const std::map<uint16_t, TrainRank> ranks = model_->pendingAsRanks();
  std::vector<uint8_t> bytes;
  Status status = WriteTrainConfig(ranks, &bytes);
  if (status.ok()) status = WriteAtomically(path, bytes);
  return report(std::move(status),
                tr("Saved %1: %n operator(s) with a rank.", nullptr, static_cast<int>(ranks.size()))
                    .arg(QFileInfo(path).fileName()));
}

Status LayersPanel::loadTrainingMetadata(const QString& model_path) {
  const Graph& graph = model_->graph();
  if (model_path.isEmpty()) {
    return report(Status::Error(StatusCode::kInvalidArgument, "no model file is open"), QString());
  }
  if (graph.subgraphs.empty()) {
    return report(Status::Error(StatusCode::kInvalidArgument, "no model is loaded"), QString());
  }
  const size_t count = graph.main().operators.size();
  Model model;
  TrainingMetadata metadata;
  bool found = false;
  TrainingOptions options = training_options_;
  uint32_t train_layers = 0;
  Status status = ReadModelFile(model_path.toStdString(), &model);
  if (status.ok() && model.graph().main().operators.size() != count) {
    status = Status::Error(StatusCode::kInvalidArgument, "it has %zu operators, the open model %zu",
                           model.graph().main().operators.size(), count);
  }
  if (status.ok()) status = ReadTrainingMetadata(model, &metadata, &found);
  if (status.ok() && !found) {
    status = Status::Error(StatusCode::kInvalidArgument, "it has no CIRCLE_TRAINING metadata");
  }
  if (status.ok()) status = ToTrainingOptions(metadata, count, &options, &train_layers);
  if (status.ok() && train_layers == 0) {
    status = Status::Error(StatusCode::kUnsupported,
                           "its CIRCLE_TRAINING trainable_ops list is empty (nothing trains), "
                           "which the layers panel cannot express");
  }
  if (!status.ok()) {
    status.Prepend(model_path.toStdString());
    return report(std::move(status), QString());
  }
  TrainabilityConfig config;
  config.num_train_layers = train_layers >= count ? 0 : train_layers;
  setPendingFromFile(config);
  return report(Status::Ok(),
                tr("Loaded CIRCLE_TRAINING of %1: the last %2 of %3 operators train "
                   "(optimizer %4, learning rate %5; set those in Training > Set up training). "
                   "Apply to use it.")
                    .arg(QFileInfo(model_path).fileName())
                    .arg(train_layers)
                    .arg(count)
                    .arg(QLatin1String(OptimizerName(options.optimizer)))
                    .arg(static_cast<double>(options.learning_rate)));
}

Status LayersPanel::saveModelWithTrainingMetadata(const QString& path) const {
  if (model_file_.isEmpty()) {
    return report(Status::Error(StatusCode::kInvalidArgument, "no model file is open"), QString());
  }
  Model model;
  Status status = ReadModelFile(model_file_.toStdString(), &model);
  bool exact = true;
  TrainingMetadata metadata;
  std::vector<uint8_t> bytes;
  if (status.ok()) {
    const Subgraph& main = model.graph().main();
    const uint32_t train_layers = TrailingTrainLayers(main, model_->pending(), &exact);
    status = FromTrainingOptions(training_options_, main.operators.size(), train_layers, &metadata);
  }
  if (status.ok()) status = WriteTrainingMetadata(model, metadata, &bytes);
  if (status.ok()) status = WriteAtomically(path, bytes);
  QString note = tr("Saved %1 with CIRCLE_TRAINING (optimizer %2, loss %3, %4 trainable ops).")
                     .arg(QFileInfo(path).fileName(),
                          QLatin1String(OptimizerName(training_options_.optimizer)),
                          QLatin1String(LossName(training_options_.loss)))
                     .arg(metadata.trainable_ops.size());
  if (!exact) {
    note += QLatin1Char(' ') +
            tr("CIRCLE_TRAINING lists operators from the lowest one to the end and carries no "
               "ranks: save a train config too to keep them.");
  }
  return report(std::move(status), note);
}

}  // namespace trainscope
