// SPDX-License-Identifier: Apache-2.0
//
// How often the views do work while a source streams: deliveries are spaced out at full speed
// but a step or a pause still shows at once, a view rebuilds only when its own inputs changed,
// and a plot nobody sees is rendered when it is shown, not before.
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <vector>

#include "ui/widgets/common/plot_refresh.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {
namespace {

EventBatch LossBatch(uint32_t step, float value) {
  EventBatch batch;
  batch.add(LossEvent{step, 0, value});
  return batch;
}

EventBatch MemoryBatch(uint32_t tick, uint64_t bytes) {
  EventBatch batch;
  MemoryEvent event;
  event.tick = tick;
  event.tensor = static_cast<int32_t>(tick);
  event.bytes = bytes;
  event.offset = 0;
  batch.add(event);
  return batch;
}

EventBatch GradientBatch(uint32_t step) {
  EventBatch batch;
  GradientStatsEvent stats;
  stats.optimizer_step = step;
  stats.op_index = 1;
  stats.tensor = 3;
  stats.l2 = 0.5f;
  stats.max_abs = 0.25f;
  batch.add(stats);
  return batch;
}

}  // namespace

class ViewRefreshTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() { store_ = std::make_shared<SessionStore>(); }

  void followerSpacesDeliveriesOutWhileTheStoreChangesEveryTick() {
    SnapshotFollower follower(nullptr);
    QElapsedTimer clock;
    clock.start();
    std::vector<qint64> delivered_at;
    follower.setCallback([&](const auto&) { delivered_at.push_back(clock.elapsed()); });
    follower.setStore(store_);
    // A source at full speed: a batch every 3 ms, far faster than any view repaints.
    uint32_t step = 0;
    QTimer producer;
    producer.setInterval(3);
    connect(&producer, &QTimer::timeout, [&] { store_->append(LossBatch(++step, 1.0f)); });
    producer.start();
    QTest::qWait(1000);
    producer.stop();
    const size_t streamed = delivered_at.size() - 1;  // the first came from setStore
    // Every tick (~30 Hz) would give ~30; spaced out it is about 1000 / kBusyIntervalMs.
    QVERIFY2(streamed <= 1000 / SnapshotFollower::kBusyIntervalMs + 3,
             qPrintable(QStringLiteral("%1 deliveries in 1 s").arg(streamed)));
    QVERIFY2(streamed >= 5, qPrintable(QStringLiteral("%1 deliveries in 1 s").arg(streamed)));
    // Still current: no gap between deliveries far longer than the busy interval (the bound
    // leaves room for a loaded or sanitized test machine).
    qint64 longest = 0;
    for (size_t i = 2; i < delivered_at.size(); ++i) {
      longest = std::max(longest, delivered_at[i] - delivered_at[i - 1]);
    }
    QVERIFY2(longest < 500, qPrintable(QStringLiteral("longest gap %1 ms").arg(longest)));
    // Once the source pauses, the last batch is shown within a tick or two.
    QTRY_COMPARE_WITH_TIMEOUT(follower.latest()->generation, store_->generation(), 1000);
    QCOMPARE(follower.latest()->loss->sampleCount(), uint64_t{step});
  }

  void followerShowsAStepAfterAQuietPeriodAtTheNextTick() {
    SnapshotFollower follower(nullptr);
    follower.setStore(store_);
    QTest::qWait(3 * SnapshotFollower::kIntervalMs);  // quiet ticks
    const uint64_t before = follower.deliveries();
    store_->append(LossBatch(1, 2.0f));
    QTRY_VERIFY_WITH_TIMEOUT(follower.deliveries() > before,
                             4 * SnapshotFollower::kIntervalMs + 30);
    QCOMPARE(follower.latest()->generation, store_->generation());
  }

  void lossViewRebuildsOnlyForNewLossOrMetricPoints() {
    LossView view;
    view.setStore(store_);
    const uint64_t start = view.rebuildCount();
    store_->append(MemoryBatch(0, 64));
    store_->append(GradientBatch(1));
    QTest::qWait(4 * SnapshotFollower::kIntervalMs);
    QCOMPARE(view.rebuildCount(), start);  // the store changed, the loss did not
    store_->append(LossBatch(1, 3.0f));
    QTRY_COMPARE_WITH_TIMEOUT(view.rebuildCount(), start + 1, 1000);
    QCOMPARE(view.meanGraph()->data()->size(), 1);
    view.refresh();  // the view's own inputs (follow, log scale, theme) always rebuild
    QCOMPARE(view.rebuildCount(), start + 2);
  }

  void memoryViewRebuildsOnlyWhenTheStepsMemoryChanged() {
    MemoryView view;
    view.setStore(store_);
    store_->append(MemoryBatch(0, 128));
    view.refresh();
    const uint64_t start = view.rebuildCount();
    const double cursor = view.cursorTick();
    store_->append(LossBatch(1, 1.0f));
    store_->append(GradientBatch(1));
    QTest::qWait(4 * SnapshotFollower::kIntervalMs);
    QCOMPARE(view.rebuildCount(), start);
    store_->append(MemoryBatch(1, 256));
    QTRY_COMPARE_WITH_TIMEOUT(view.rebuildCount(), start + 1, 1000);
    QVERIFY(view.cursorTick() > cursor);
    QCOMPARE(view.peakBytesShown(), uint64_t{384});
  }

  void gradientsViewRebuildsOnlyWhenGradientsArrived() {
    GradientsView view;
    view.setStore(store_);
    const uint64_t start = view.rebuildCount();
    store_->append(LossBatch(1, 1.0f));
    store_->append(MemoryBatch(0, 64));
    QTest::qWait(4 * SnapshotFollower::kIntervalMs);
    QCOMPARE(view.rebuildCount(), start);
    store_->append(GradientBatch(1));
    QTRY_COMPARE_WITH_TIMEOUT(view.rebuildCount(), start + 1, 1000);
    QCOMPARE(view.l2Bars()->data()->size(), 1);
  }

  void hiddenPlotIsRenderedWhenItsTabIsShown() {
    MemoryView view;
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setStore(store_);
    view.tabs()->setCurrentWidget(view.timelinePlot());
    store_->append(MemoryBatch(0, 512));
    view.refresh();
    QVERIFY(!HasDeferredReplot(view.timelinePlot()));
    QVERIFY(HasDeferredReplot(view.addressPlot()));  // its tab is not the current one
    view.tabs()->setCurrentWidget(view.addressPlot());
    QVERIFY(!HasDeferredReplot(view.addressPlot()));
    QCOMPARE(view.bufferCount(), 1);
  }

  void metricMarkersGiveWayToTheLineWhenEpochsAreMany() {
    LossView view;
    view.setStore(store_);
    EventBatch few;
    for (uint32_t epoch = 1; epoch <= 10; ++epoch) few.add(MetricEvent{epoch, 1, 0.5f});
    store_->append(few);
    view.refresh();
    QCOMPARE(view.metricGraph(0)->data()->size(), 10);
    QCOMPARE(view.metricGraph(0)->scatterStyle().shape(), QCPScatterStyle::ssCircle);
    EventBatch many;
    for (uint32_t epoch = 11; epoch <= 1000; ++epoch) many.add(MetricEvent{epoch, 1, 0.5f});
    store_->append(many);
    view.refresh();
    QCOMPARE(view.metricGraph(0)->data()->size(), 1000);  // every point still on the line
    QCOMPARE(view.metricGraph(0)->scatterStyle().shape(), QCPScatterStyle::ssNone);
  }

 private:
  std::shared_ptr<SessionStore> store_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::ViewRefreshTest)
#include "view_refresh_test.moc"
