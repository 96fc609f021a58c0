// SPDX-License-Identifier: Apache-2.0
//
// The views follow a synthetic stream: current op and cursor move, overlays and markers appear.
#include <QSignalSpy>
#include <QTest>

#include <cmath>

#include "tests/common/synthetic/synthetic_event_source.h"
#include "tests/ui/test_models.h"
#include "ui/session/parameter_rows.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/memory/address_map.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {

class ViewsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    graph_ = testing::MakeConvNet();
    QVERIFY(!graph_.subgraphs.empty());
    store_ = std::make_shared<SessionStore>();
  }

  void followerDeliversOnlyWhenTheStoreChanged() {
    SnapshotFollower follower(nullptr);
    int deliveries = 0;
    follower.setCallback([&](const auto&) { ++deliveries; });
    follower.setStore(store_);
    QCOMPARE(deliveries, 1);
    follower.poll();
    follower.poll();
    QCOMPARE(deliveries, 1);
    EventBatch batch;
    batch.add(LossEvent{1, 0, 1.0f});
    store_->append(batch);
    follower.poll();
    QCOMPARE(deliveries, 2);
    QCOMPARE(follower.latest()->loss->sampleCount(), uint64_t{1});
  }

  void graphViewHighlightsTheCurrentBackwardOpAndMarksFinishedOnes() {
    const int n = static_cast<int>(graph_.main().operators.size());
    SyntheticEventSource source(graph_, store_);
    GraphView view;
    view.setGraph(graph_);
    view.setStore(store_);
    QCOMPARE(view.currentOp(), -1);

    source.stepBackwardOp();
    view.refresh();
    QCOMPARE(view.currentOp(), n - 1);
    QVERIFY(view.lookOfOp(n - 1)->current);
    QVERIFY(view.lookOfOp(n - 1)->done_mark);

    source.stepBackwardOp();
    view.refresh();
    QCOMPARE(view.currentOp(), n - 2);
    QVERIFY(!view.lookOfOp(n - 1)->current);
    QVERIFY(view.lookOfOp(n - 1)->done_mark);
    QVERIFY(view.lookOfOp(n - 2)->current);
    QCOMPARE(view.doneOps(), (std::vector<int>{n - 1, n - 2}));
    QVERIFY(!view.lookOfOp(0)->done_mark);
  }

  void graphViewOrderTogglePutsTheLastOpOnTopInBackwardOrder() {
    GraphView view;
    view.setGraph(graph_);
    const int last = static_cast<int>(graph_.main().operators.size()) - 1;
    auto y_of = [&view](int op) { return view.layout().nodes[view.nodeOfOp(op)].y; };
    view.setOrder(LayoutOrder::kForward);
    QVERIFY(y_of(0) < y_of(last));
    QVERIFY(view.lookOfOp(last)->title.startsWith(QStringLiteral("#7")));
    view.setOrder(LayoutOrder::kBackward);
    QVERIFY(y_of(0) > y_of(last));
    QVERIFY(view.lookOfOp(last)->title.startsWith(QStringLiteral("step 0")));
  }

  void graphViewCollapsesTheFrozenPrefixIntoOneNode() {
    GraphView view;
    view.setGraph(graph_);
    QCOMPARE(view.nodeCount(), 8);
    TrainabilityConfig last_three;
    last_three.num_train_layers = 3;
    view.setTrainability(last_three);
    QCOMPARE(view.nodeCount(), 4);  // ops 0..4 in one node + 3 trained ops
    QCOMPARE(view.nodeOfOp(0), view.nodeOfOp(4));
    QVERIFY(view.lookOfOp(0)->title.contains(QStringLiteral("#0–#4")));
    view.setCollapseFrozenPrefix(false);
    QCOMPARE(view.nodeCount(), 8);
  }

  void graphViewNodeTooltipsTellTensorsAndTrainability() {
    GraphView view;
    view.setGraph(graph_);
    const Subgraph& subgraph = graph_.main();
    int fc = -1;
    for (size_t k = 0; k < subgraph.operators.size() && fc < 0; ++k) {
      if (subgraph.operators[k].opcode == op::kFullyConnected) fc = static_cast<int>(k);
    }
    QVERIFY(fc >= 0);
    const Operator& op = subgraph.operators[static_cast<size_t>(fc)];
    const Tensor& weights = subgraph.tensors[static_cast<size_t>(op.inputs[1])];
    const QString all = view.toolTipOfOp(fc);
    QVERIFY2(all.contains(QString::fromStdString(weights.name)), qPrintable(all));
    QVERIFY(all.contains(FormatShape(weights.shape)));
    QVERIFY(all.contains(FormatBytes(weights.bytes)));
    QVERIFY(all.contains(QStringLiteral("weights")));
    QVERIFY(all.contains(QStringLiteral("rank ALL")));
    QVERIFY(all.contains(QStringLiteral("backward step %1")
                             .arg(subgraph.operators.size() - 1 - static_cast<size_t>(fc))));
    TrainabilityConfig bias_only;
    bias_only.op_ranks = {{static_cast<uint16_t>(fc), TrainRank::kOnlyBias}};
    view.setTrainability(bias_only);
    QVERIFY(view.toolTipOfOp(fc).contains(QStringLiteral("rank ONLY_BIAS")));
    TrainabilityConfig last_one;
    last_one.num_train_layers = 1;
    view.setTrainability(last_one);
    view.setCollapseFrozenPrefix(false);
    QVERIFY(view.toolTipOfOp(0).contains(QStringLiteral("Outside the backward range")));
  }

  void graphViewFindSelectsByTypeNameAndIndex() {
    GraphView view;
    view.setGraph(graph_);
    QSignalSpy spy(&view, &GraphView::selectionChanged);
    QCOMPARE(view.find(QStringLiteral("fully")), 2);
    QCOMPARE(view.selectedOps(), (QList<int>{5, 6}));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.last().at(0).value<QList<int>>(), (QList<int>{5, 6}));
    QCOMPARE(view.find(QStringLiteral("conv1/y")), 1);
    QCOMPARE(view.selectedOps(), (QList<int>{0}));
    QCOMPARE(view.find(QStringLiteral("#3")), 1);
    QCOMPARE(view.selectedOps(), (QList<int>{3}));
    QCOMPARE(view.find(QStringLiteral("no such op")), 0);
    QVERIFY(view.findAction()->shortcut() == QKeySequence(QKeySequence::Find));
  }

  void graphViewAcceptsExternalSelectionWithoutEcho() {
    GraphView view;
    view.setGraph(graph_);
    QSignalSpy spy(&view, &GraphView::selectionChanged);
    view.setSelectedOps({2, 99, -1});
    QCOMPARE(view.selectedOps(), (QList<int>{2}));
    QCOMPARE(spy.count(), 0);
  }

  void graphViewOverlayColoursByGradientAndFlagsNan() {
    SyntheticOptions options;
    options.nan_at_optimizer_step = 1;
    SyntheticEventSource source(graph_, store_, options);
    source.stepBatch();
    GraphView view;
    view.setGraph(graph_);
    view.setStore(store_);
    view.setOverlay(GraphView::Overlay::kGradientNorm);
    const ViewTheme theme = ViewTheme::fromPalette(view.palette());
    // Op 0 has the first gradient tensor, which carries the NaN; op 5 and 6 have finite norms.
    QCOMPARE(view.lookOfOp(0)->fill, theme.error);
    QVERIFY(view.lookOfOp(0)->warning);
    QVERIFY(view.lookOfOp(5)->detail.startsWith(QStringLiteral("‖g‖ ")));
    QVERIFY(view.lookOfOp(5)->fill != theme.outside);
    QCOMPARE(view.lookOfOp(4)->fill, theme.outside);  // RESHAPE has no gradient statistics
    QCOMPARE(view.legend()->title(), QStringLiteral("Gradient L2 norm (log)"));
  }

  void memoryViewCursorWalksWithTheBackwardSteps() {
    SyntheticEventSource source(graph_, store_);
    MemoryView view;
    view.setGraph(graph_);
    view.setStore(store_);
    source.stepBackwardOp();
    view.refresh();
    const double first = view.cursorTick();
    source.stepBackwardOp();
    view.refresh();
    QVERIFY(view.cursorTick() > first);
    const auto snapshot = store_->snapshot();
    QCOMPARE(view.peakBytesShown(), snapshot->peakBytes());
    // The top of the stack is the total live bytes of the tick.
    const QCPGraph* top = view.timelinePlot()->graph(kMemoryCategoryCount - 1);
    const auto& ticks = snapshot->memory->ticks();
    QVERIFY(!ticks.empty());
    const double unit = 1024.0;  // the convnet's peak is tens of KiB
    const double drawn = (top->data()->constEnd() - 1)->value * unit;
    QVERIFY(std::fabs(drawn - static_cast<double>(ticks.back().highWaterTotal())) < 1.0);
    QCOMPARE(view.bufferCount(), static_cast<int>(snapshot->memory->buffers().size()));
  }

  void memoryViewTooltipNamesTheBufferUnderTheMouse() {
    SyntheticEventSource source(graph_, store_);
    source.stepSample();
    MemoryView view;
    view.setGraph(graph_);
    view.setStore(store_);
    const auto snapshot = store_->snapshot();
    const BufferLifetime* kept = nullptr;
    for (const BufferLifetime& buffer : snapshot->memory->buffers()) {
      if (buffer.category == MemoryCategory::kActivationKept && buffer.tensor >= 0) {
        kept = &buffer;
        break;
      }
    }
    QVERIFY(kept);
    const QString text =
        view.describeBufferAt(kept->alloc_tick + 0.5, static_cast<double>(kept->offset) + 1.0);
    const QString name =
        QString::fromStdString(graph_.main().tensors[static_cast<size_t>(kept->tensor)].name);
    QVERIFY2(text.contains(name), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("activation_kept")));
    QVERIFY(text.contains(QStringLiteral("forward op #")));
    QVERIFY(view.describeBufferAt(-5.0, 0.0).isEmpty());
  }

  void memoryViewBudgetIsAnnounced() {
    MemoryView view;
    QSignalSpy spy(&view, &MemoryView::budgetChanged);
    view.setBudgetBytes(32 * 1024);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(view.budgetBytes(), uint64_t{32 * 1024});
  }

  void addressMapHitTestPrefersTheBufferDrawnLast() {
    std::vector<BufferLifetime> buffers(2);
    buffers[0].offset = 0;
    buffers[0].bytes = 100;
    buffers[0].alloc_tick = 0;
    buffers[0].free_tick = 10;
    buffers[1].offset = 50;
    buffers[1].bytes = 100;
    buffers[1].alloc_tick = 5;  // still open: ends at the timeline's end
    QCOMPARE(FindBufferAt(buffers, 2.0, 10.0, 20), 0);
    QCOMPARE(FindBufferAt(buffers, 6.0, 60.0, 20), 1);
    QCOMPARE(FindBufferAt(buffers, 15.0, 120.0, 20), 1);
    QCOMPARE(FindBufferAt(buffers, 15.0, 10.0, 20), -1);
    QCOMPARE(FindBufferAt(buffers, 25.0, 60.0, 20), -1);
  }

  // Freezing a layer clears its bars from the step it stops training: a tensor the latest
  // completed optimizer step did not train is frozen in the snapshot and drawn without bars.
  void gradientsViewDrawsFrozenTensorsWithoutBars() {
    const auto step = [this](uint32_t optimizer_step,
                             std::vector<std::pair<uint32_t, int32_t>> trained, bool complete) {
      EventBatch batch;
      for (const auto& [op, tensor] : trained) {
        GradientStatsEvent stats;
        stats.optimizer_step = optimizer_step;
        stats.op_index = op;
        stats.tensor = tensor;
        stats.l2 = 0.5f;
        stats.max_abs = 0.25f;
        batch.add(stats);
        UpdateRatioEvent ratio;
        ratio.optimizer_step = optimizer_step;
        ratio.tensor = tensor;
        ratio.ratio = 0.01f;
        batch.add(ratio);
      }
      if (complete) batch.add(OptimizerStepEvent{0, optimizer_step, 1});
      store_->append(batch);
    };
    step(1, {{0, 1}, {4, 10}}, true);  // both train
    GradientsView view;
    view.setGraph(graph_);
    view.setStore(store_);
    view.refresh();
    QCOMPARE(view.l2Bars()->data()->size(), 2);
    step(2, {{4, 10}}, true);  // op 0 frozen from step 2 on
    view.refresh();
    auto snapshot = store_->snapshot();
    QVERIFY(snapshot->findTensor(1)->frozen);
    QVERIFY(!snapshot->findTensor(10)->frozen);
    QCOMPARE(view.l2Bars()->data()->size(), 1);
    // The trained tensor keeps its row among all parameter rows; the frozen one has no bar.
    const std::vector<TensorGradient> rows = ParameterRows(*snapshot, graph_);
    const auto trained = std::find_if(rows.begin(), rows.end(),
                                      [](const TensorGradient& row) { return row.tensor == 10; });
    QVERIFY(trained != rows.end());
    QCOMPARE(view.l2Bars()->data()->constBegin()->key, static_cast<double>(trained - rows.begin()));
    // Mid-step, the tensors of the running step are not frozen yet.
    step(3, {{4, 10}}, false);
    snapshot = store_->snapshot();
    QVERIFY(snapshot->findTensor(1)->frozen);
    QVERIFY(!snapshot->findTensor(10)->frozen);
  }

  void gradientsViewCountsNanAndInfInTheLegend() {
    SyntheticOptions options;
    options.nan_at_optimizer_step = 1;
    SyntheticEventSource source(graph_, store_, options);
    source.stepBatch();
    source.stepBatch();
    GradientsView view;
    view.setGraph(graph_);
    view.setStore(store_);
    const auto snapshot = store_->snapshot();
    QVERIFY(view.nonFiniteMarkers()->name().contains(QStringLiteral("4 in run")));  // 3 NaN + 1 Inf
    QCOMPARE(view.l2Bars()->data()->size(), static_cast<int>(snapshot->tensors.size()));
    QCOMPARE(view.heatmap()->data()->keySize(), 2);  // two optimizer steps
    QCOMPARE(view.heatmap()->data()->valueSize(), static_cast<int>(snapshot->tensors.size()));
    view.selectOps({5});
    const TensorGradient* selected = snapshot->findTensor(view.selectedTensor());
    QVERIFY(selected);
    QCOMPARE(selected->op_index, 5u);
    double total = 0;
    for (auto it = view.histogramBars()->data()->constBegin();
         it != view.histogramBars()->data()->constEnd(); ++it) {
      total += it->value;
    }
    double expected = 0;
    for (uint32_t count : selected->stats.histogram) expected += count;
    QCOMPARE(total, expected);
  }

  void lossViewKeepsSpikesAndFollowsTheNewestSamples() {
    EventBatch batch;
    for (uint32_t i = 0; i < 20000; ++i)
      batch.add(LossEvent{i / 4 + 1, i % 4, i == 12345 ? 50.0f : 1.0f});
    store_->append(batch);
    LossView view;
    view.setStore(store_);
    bool found = false;
    QCOMPARE(view.maxGraph()->getValueRange(found).upper, 50.0);
    QVERIFY(view.meanGraph()->data()->size() <= 2048);
    const QCPRange shown = view.plot()->axisRect()->axis(QCPAxis::atBottom)->range();
    QVERIFY(shown.upper >= 20000.0);
    view.setFollow(false);
    EventBatch more;
    for (uint32_t i = 0; i < 1000; ++i) more.add(LossEvent{9999, 0, std::nanf("")});
    store_->append(more);
    view.refresh();
    QCOMPARE(view.plot()->axisRect()->axis(QCPAxis::atBottom)->range().upper, shown.upper);
    QVERIFY(view.nonFiniteGraph()->name().contains(QStringLiteral("1,000")));
  }

 private:
  Graph graph_;
  std::shared_ptr<SessionStore> store_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::ViewsTest)
#include "views_test.moc"
