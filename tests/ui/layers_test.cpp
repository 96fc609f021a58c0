// SPDX-License-Identifier: Apache-2.0
//
// LayersModel under QAbstractItemModelTester, and the panel's preview / apply / revert.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "tests/ui/test_models.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"

namespace trainscope {

class LayersTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    graph_ = testing::MakeMlp({16, 8, 8, 4});  // FC RELU FC RELU FC SOFTMAX
    QCOMPARE(graph_.main().operators.size(), size_t{6});
  }

  void modelPassesTheItemModelTesterThroughEveryEdit() {
    LayersModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setGraph(graph_);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(model.columnCount(), int(LayersModel::kColumnCount));
    model.setLastN(2);
    QVERIFY(model.setData(model.index(2, LayersModel::kTrains), Qt::Checked, Qt::CheckStateRole));
    QVERIFY(model.setData(model.index(2, LayersModel::kRank), int(TrainRank::kLowerHalf),
                          Qt::EditRole));
    model.setWarning(3, QStringLiteral("check me"));
    model.setApplied(model.pending());
    model.clearWarnings();
    model.setGraph(testing::MakeConvNet());
    QCOMPARE(model.rowCount(), 8);
  }

  void lastNMarksTheTailAndShowsBackwardSteps() {
    LayersModel model;
    model.setGraph(graph_);
    model.setLastN(2);  // SOFTMAX(5) and FC(4)
    QCOMPARE(model.index(4, LayersModel::kTrains).data(Qt::CheckStateRole).toInt(),
             int(Qt::Checked));
    QCOMPARE(model.index(2, LayersModel::kTrains).data(Qt::CheckStateRole).toInt(),
             int(Qt::Unchecked));
    QCOMPARE(model.index(5, LayersModel::kBackward).data().toString(), QStringLiteral("0"));
    QCOMPARE(model.index(4, LayersModel::kBackward).data().toString(), QStringLiteral("1 (last)"));
    QCOMPARE(model.index(1, LayersModel::kBackward).data().toString(), QStringLiteral("—"));
    QCOMPARE(model.index(0, LayersModel::kParams).data().toString(), QStringLiteral("136"));
    QCOMPARE(model.index(4, LayersModel::kRank).data().toString(), QStringLiteral("ALL"));
    // RELU has no weights: nothing to tick or rank.
    QVERIFY(!(model.flags(model.index(1, LayersModel::kTrains)) & Qt::ItemIsUserCheckable));
    QVERIFY(!model.setData(model.index(1, LayersModel::kTrains), Qt::Checked, Qt::CheckStateRole));
  }

  void tickingAnOpTurnsLastNIntoAnExplicitRankMap() {
    LayersModel model;
    model.setGraph(graph_);
    model.setLastN(2);
    QVERIFY(model.setData(model.index(0, LayersModel::kTrains), Qt::Checked, Qt::CheckStateRole));
    const TrainRankMap expected{{0, TrainRank::kAll}, {4, TrainRank::kAll}};
    QCOMPARE(model.pending().op_ranks, expected);
    QVERIFY(model.resolved()[1].in_backward_range);  // backward now reaches op 0
    QVERIFY(!model.resolved()[2].trainable);
    model.setLastN(3);
    QVERIFY(model.pending().op_ranks.empty());
  }

  void theLastTrainedOpCannotBeUnticked() {
    LayersModel model;
    model.setGraph(graph_);
    TrainabilityConfig one;
    one.op_ranks[4] = TrainRank::kOnlyBias;
    model.setPending(one);
    QVERIFY(
        !model.setData(model.index(4, LayersModel::kTrains), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(model.pending().op_ranks.size(), size_t{1});
    QVERIFY(!model.setData(model.index(4, LayersModel::kRank), 7, Qt::EditRole));  // no such rank
  }

  void panelPreviewShowsDeltasAndApplyEmitsTheConfiguration() {
    LayersPanel panel;
    panel.setGraph(graph_);
    // A made-up planner: every trained layer costs 1000 heap bytes.
    panel.setEstimator([this](uint32_t last_n, const TrainRankMap& ranks) {
      TrainabilityConfig config;
      config.num_train_layers = last_n;
      config.op_ranks = ranks;
      const auto ops = ResolveTrainability(graph_.main(), config);
      LayersPanel::Estimate estimate;
      for (const OpTrainability& op : ops)
        estimate.heap_peak_bytes += op.in_backward_range ? 1000 : 0;
      estimate.arena_bytes = estimate.heap_peak_bytes * 2;
      estimate.trained_params = TrainedParameterCount(graph_.main(), ops);
      return estimate;
    });
    QVERIFY(!panel.applyButton()->isEnabled());
    panel.lastNSpinBox()->setValue(2);
    QVERIFY(panel.applyButton()->isEnabled());
    const QString preview = panel.previewLabel()->text();
    // All 6 ops -> 2 ops: heap 6000 -> 2000 B, params 136+72+36 -> 36.
    QVERIFY2(preview.contains(QStringLiteral("1.95 KiB")), qPrintable(preview));
    QVERIFY2(preview.contains(QStringLiteral("−3.91 KiB")), qPrintable(preview));
    QVERIFY2(preview.contains(QStringLiteral("−208")), qPrintable(preview));

    QSignalSpy spy(&panel, &LayersPanel::trainabilityApplied);
    panel.applyButton()->click();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toUInt(), 2u);
    QVERIFY(spy.at(0).at(1).value<TrainRankMap>().empty());
    QVERIFY(!panel.applyButton()->isEnabled());
    QCOMPARE(panel.appliedTrainability().num_train_layers, 2u);

    panel.lastNSpinBox()->setValue(4);
    panel.revertButton()->click();
    QCOMPARE(panel.pendingTrainability().num_train_layers, 2u);
    QCOMPARE(panel.lastNSpinBox()->value(), 2);
  }

  void panelSelectionGoesBothWays() {
    LayersPanel panel;
    panel.setGraph(graph_);
    QSignalSpy spy(&panel, &LayersPanel::opsSelected);
    panel.selectOps({3});
    QCOMPARE(spy.count(), 0);  // external selection is not echoed
    panel.selectOps({});
    QCOMPARE(spy.count(), 0);
  }

 private:
  Graph graph_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::LayersTest)
#include "layers_test.moc"
