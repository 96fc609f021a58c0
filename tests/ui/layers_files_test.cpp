// SPDX-License-Identifier: Apache-2.0
//
// The layers panel's file actions: a train config the "does it fit?" search chose loads as a
// pending edit with the search's ranks and numbers, saves back byte for byte as the engine (and
// `trainscope-cli fit --save-config`, when built) writes it; bad files change nothing and show
// the engine's message; CIRCLE_TRAINING round-trips through a saved model.
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include "engine/memory/fit_search.h"
#include "engine/memory/memory_report.h"
#include "engine/plan/train_config_file.h"
#include "engine/train/training_metadata.h"
#include "tests/ui/test_files.h"
#include "tests/ui/test_models.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/layers/layers_panel.h"

namespace trainscope {
namespace {

// FC RELU FC RELU FC SOFTMAX (16 -> 24 -> 12 -> 4), as file bytes.
std::vector<uint8_t> MlpBytes() {
  return testing::MakeMlpBytes({16, 24, 12, 4});
}

using testing::ReadAll;
using testing::WriteAll;

}  // namespace

class LayersFilesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    QVERIFY(dir_.isValid());
    model_path_ = dir_.filePath(QStringLiteral("mlp.circle"));
    const std::vector<uint8_t> bytes = MlpBytes();
    QVERIFY(!bytes.empty());
    QVERIFY(WriteAll(model_path_, bytes));
    QVERIFY(ReadModelFile(model_path_.toStdString(), &model_).ok());
    options_.memory.optimizer = OptimizerKind::kAdam;
  }

  void aFittedTrainConfigReloadsWithTheSameRanksNumbersAndBytes() {
    const Graph& graph = model_.graph();
    // Nothing fits in 0 bytes, so the search plans every configuration and knows the smallest.
    FitResult bounds;
    QVERIFY(FindBestFit(graph, 0, options_, &bounds).ok());
    QVERIFY(bounds.smallest.heap_peak_bytes < bounds.full.heap_peak_bytes);
    // Halfway between the smallest and the full configuration: the answer mixes ranks.
    const uint64_t budget = (bounds.smallest.heap_peak_bytes + bounds.full.heap_peak_bytes) / 2;
    FitResult fit;
    QVERIFY(FindBestFit(graph, budget, options_, &fit).ok());
    QVERIFY(fit.fits);
    QVERIFY(fit.best.config.op_ranks != bounds.full.config.op_ranks);
    std::vector<uint8_t> engine_bytes;
    QVERIFY(WriteTrainConfig(fit.best.config.op_ranks, &engine_bytes).ok());
    const QByteArray expected(reinterpret_cast<const char*>(engine_bytes.data()),
                              static_cast<int>(engine_bytes.size()));
    QString config_path = dir_.filePath(QStringLiteral("engine.cfg"));
    QVERIFY(WriteAll(config_path, expected));
#ifdef TRAINSCOPE_CLI
    const QString cli_path = dir_.filePath(QStringLiteral("cli.cfg"));
    QProcess cli;
    cli.start(QStringLiteral(TRAINSCOPE_CLI),
              {QStringLiteral("fit"), model_path_, QStringLiteral("--budget"),
               QString::number(budget), QStringLiteral("--optimizer"), QStringLiteral("adam"),
               QStringLiteral("--save-config"), cli_path});
    QVERIFY(cli.waitForFinished(30000));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(ReadAll(cli_path), expected);
    config_path = cli_path;
#endif

    LayersPanel panel;
    panel.setGraph(graph);
    panel.setEstimator([&graph, this](uint32_t last_n, const TrainRankMap& ranks) {
      TrainabilityConfig config;
      config.num_train_layers = last_n;
      config.op_ranks = ranks;
      MemoryReport report;
      LayersPanel::Estimate estimate;
      if (ComputeMemoryReport(graph, config, options_.memory, &report).ok()) {
        estimate.heap_peak_bytes = report.heap_peak_bytes;
        estimate.arena_bytes = report.arena_bytes;
      }
      estimate.trained_params =
          TrainedParameterCount(graph.main(), ResolveTrainability(graph.main(), config));
      return estimate;
    });
    QVERIFY(panel.loadTrainConfig(config_path).ok());
    QCOMPARE(panel.pendingTrainability().op_ranks, fit.best.config.op_ranks);
    QVERIFY(panel.appliedTrainability().op_ranks.empty());  // pending until applied
    const QString preview = panel.previewLabel()->text();
    QVERIFY2(preview.contains(FormatBytes(fit.best.heap_peak_bytes)), qPrintable(preview));
    QVERIFY2(preview.contains(FormatCount(fit.best.trained_parameters)), qPrintable(preview));
    QVERIFY(preview.contains(QStringLiteral("Not applied yet")));
    QVERIFY(panel.fileMessageLabel()->text().contains(QStringLiteral("Apply")));

    const QString saved = dir_.filePath(QStringLiteral("panel.cfg"));
    QVERIFY(panel.saveTrainConfig(saved).ok());
    QCOMPARE(ReadAll(saved), expected);

    QSignalSpy spy(&panel, &LayersPanel::trainabilityApplied);
    panel.apply();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(1).value<TrainRankMap>(), fit.best.config.op_ranks);
  }

  void lastNSavesAsTheRanksOfTheOpsThatTrain() {
    LayersPanel panel;
    panel.setGraph(model_.graph());
    panel.lastNSpinBox()->setValue(3);  // RELU FC SOFTMAX: only FC #4 has weights
    const QString saved = dir_.filePath(QStringLiteral("last3.cfg"));
    QVERIFY(panel.saveTrainConfig(saved).ok());
    std::map<uint16_t, TrainRank> ranks;
    QVERIFY(ReadTrainConfigFile(saved.toStdString(), 6, &ranks).ok());
    const std::map<uint16_t, TrainRank> expected{{4, TrainRank::kAll}};
    QCOMPARE(ranks, expected);
    // Nothing with weights trains: onert-micro refuses an empty file, so nothing is written.
    panel.lastNSpinBox()->setValue(1);
    const QString empty = dir_.filePath(QStringLiteral("empty.cfg"));
    QVERIFY(!panel.saveTrainConfig(empty).ok());
    QVERIFY(!QFile::exists(empty));
    QVERIFY(panel.fileMessageLabel()->text().contains(QStringLiteral("N = 0")));
  }

  void aBadTrainConfigChangesNothingAndSaysWhatAndWhere() {
    LayersPanel panel;
    panel.setGraph(model_.graph());
    panel.lastNSpinBox()->setValue(2);
    const TrainabilityConfig before = panel.pendingTrainability();

    std::vector<uint8_t> good;
    QVERIFY(WriteTrainConfig({{2, TrainRank::kAll}, {4, TrainRank::kOnlyBias}}, &good).ok());
    QByteArray bad_magic(reinterpret_cast<const char*>(good.data()), static_cast<int>(good.size()));
    bad_magic[0] = 30;
    QByteArray bad_index = bad_magic;
    bad_index[0] = 29;
    bad_index[10] = 9;  // entry 1's operator index: 9 of 6 operators
    QByteArray truncated = bad_index.left(10);
    truncated[0] = 29;
    const struct {
      const char* name;
      QByteArray bytes;
      const char* words;
    } cases[] = {
        {"magic.cfg", bad_magic, "magic at byte offset 0 is 30, expected 29"},
        {"index.cfg", bad_index, "entry 1 operator index at byte offset 10 is 9"},
        {"short.cfg", truncated, "truncated"},
    };
    for (const auto& c : cases) {
      const QString path = dir_.filePath(QLatin1String(c.name));
      QVERIFY(WriteAll(path, c.bytes));
      const Status status = panel.loadTrainConfig(path);
      QVERIFY(!status.ok());
      const QString shown = panel.fileMessageLabel()->text();
      QCOMPARE(shown, QString::fromUtf8(status.message()));
      QVERIFY2(shown.contains(QLatin1String(c.words)), qPrintable(shown));
      QVERIFY2(shown.contains(path), qPrintable(shown));
      QVERIFY(panel.pendingTrainability() == before);
      QCOMPARE(panel.lastNSpinBox()->value(), 2);
    }
    QVERIFY(!panel.loadTrainConfig(dir_.filePath(QStringLiteral("missing.cfg"))).ok());
    QVERIFY(panel.pendingTrainability() == before);
  }

  void trainingMetadataRoundTripsThroughASavedModel() {
    LayersPanel panel;
    panel.setGraph(model_.graph());
    panel.setModelFile(model_path_);
    TrainingOptions options;
    options.optimizer = OptimizerKind::kAdam;
    options.learning_rate = 0.01f;
    options.loss = LossKind::kCrossEntropy;
    options.batch_size = 8;
    panel.setTrainingOptions(options);
    // The original has no metadata: a message, no change.
    QVERIFY(!panel.loadTrainingMetadata(model_path_).ok());
    QVERIFY(panel.fileMessageLabel()->text().contains(QStringLiteral("no CIRCLE_TRAINING")));

    panel.lastNSpinBox()->setValue(4);
    const QString saved = dir_.filePath(QStringLiteral("mlp_train.circle"));
    QVERIFY(panel.saveModelWithTrainingMetadata(saved).ok());
    Model model;
    QVERIFY(ReadModelFile(saved.toStdString(), &model).ok());
    TrainingMetadata metadata;
    bool found = false;
    QVERIFY(ReadTrainingMetadata(model, &metadata, &found).ok());
    QVERIFY(found);
    QCOMPARE(metadata.optimizer, OptimizerKind::kAdam);
    QCOMPARE(metadata.learning_rate, 0.01f);
    QCOMPARE(metadata.loss, CircleLossFn::kCategoricalCrossentropy);
    QCOMPARE(metadata.batch_size, 8);
    QCOMPARE(metadata.trainable_ops, (std::vector<int32_t>{2, 3, 4, 5}));

    LayersPanel other;
    other.setGraph(model_.graph());
    QVERIFY(other.loadTrainingMetadata(saved).ok());
    QCOMPARE(other.pendingTrainability().num_train_layers, 4u);
    QVERIFY(other.pendingTrainability().op_ranks.empty());
    QCOMPARE(other.lastNSpinBox()->value(), 4);

    // MAE has no CIRCLE_TRAINING loss: refused, and no file appears.
    options.loss = LossKind::kMae;
    panel.setTrainingOptions(options);
    const QString refused = dir_.filePath(QStringLiteral("mae.circle"));
    QVERIFY(!panel.saveModelWithTrainingMetadata(refused).ok());
    QVERIFY(!QFile::exists(refused));
    QVERIFY(!panel.fileMessageLabel()->text().isEmpty());
  }

 private:
  QTemporaryDir dir_;
  QString model_path_;
  Model model_;
  FitOptions options_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::LayersFilesTest)
#include "layers_files_test.moc"
