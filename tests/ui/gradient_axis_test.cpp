// SPDX-License-Identifier: Apache-2.0
//
// The gradients view's per-layer tensor axis: with many tensors the labels turn and thin out so
// that no two shown labels overlap (checked with the axis length and the font metrics), no more
// labels are dropped than needed, the fit follows a resize, and the full name is a tooltip away.
#include <QHelpEvent>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>

#include <cmath>

#include "tests/ui/test_models.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/gradients/gradients_view.h"

namespace trainscope {
namespace {

constexpr double kPi = 3.14159265358979323846;

// FULLY_CONNECTED + RELU x (layers - 1), FC + SOFTMAX: two gradient tensors (w, b) per FC.
Graph MakeDeepMlp(int layers) {
  std::vector<int32_t> widths(static_cast<size_t>(layers) + 1, 6);
  return testing::MakeMlp(widths);
}

// One optimizer step of gradient statistics for every FC weight and bias.
void FeedGradients(const Graph& graph, SessionStore* store) {
  EventBatch batch;
  const Subgraph& main = graph.main();
  for (size_t k = 0; k < main.operators.size(); ++k) {
    const Operator& op = main.operators[k];
    if (op.opcode != op::kFullyConnected) continue;
    for (size_t slot = 1; slot <= 2; ++slot) {
      GradientStatsEvent stats;
      stats.optimizer_step = 1;
      stats.op_index = static_cast<uint32_t>(k);
      stats.tensor = op.inputs[slot];
      stats.l2 = 0.5f + static_cast<float>(k);
      stats.max_abs = 0.25f;
      stats.mean = 0.01f;
      batch.add(stats);
    }
  }
  store->append(batch);
}

struct ShownTicks {
  std::vector<double> keys;
  QStringList labels;
};

ShownTicks Ticks(QCPAxis* axis) {
  ShownTicks shown;
  auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
  if (!ticker) return shown;
  for (auto it = ticker->ticks().constBegin(); it != ticker->ticks().constEnd(); ++it) {
    if (!axis->range().contains(it.key())) continue;
    shown.keys.push_back(it.key());
    shown.labels << it.value();
  }
  return shown;
}

}  // namespace

class GradientAxisTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void sixtyTensorsShowNoOverlappingLabels() {
    const Graph graph = MakeDeepMlp(30);
    auto store = std::make_shared<SessionStore>();
    FeedGradients(graph, store.get());
    QCOMPARE(store->snapshot()->tensors.size(), size_t{60});
    GradientsView view;
    view.setGraph(graph);
    view.setStore(store);
    view.resize(560, 420);
    view.show();
    auto* plot = qobject_cast<QCustomPlot*>(view.tabs()->widget(0));
    QVERIFY(plot);
    settle(plot);
    QCPAxis* axis = plot->axisRect(1)->axis(QCPAxis::atBottom);
    const int before = checkNoOverlap(axis, 60);
    QVERIFY(before > 0);
    const int before_width = axis->axisRect()->width();

    // A wider dock keeps more labels, still apart.
    view.resize(1100, 420);
    settle(plot);
    const int after = checkNoOverlap(axis, 60);
    qInfo("axis %d px: %d labels; %d px: %d labels", before_width, before,
          axis->axisRect()->width(), after);
    QVERIFY(after > 0);
    QVERIFY2(after > before, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));

    // The full name (and the operator) of the tensor under the mouse is a tooltip away.
    const Tensor& weights =
        graph.main().tensors[static_cast<size_t>(graph.main().operators[22].inputs[1])];
    const int key = 22;  // op 22 is FC #12: its weight is the 23rd gradient tensor
    const QPoint at(static_cast<int>(axis->coordToPixel(key)), plot->axisRect(1)->center().y());
    QHelpEvent help(QEvent::ToolTip, at, plot->mapToGlobal(at));
    QApplication::sendEvent(plot, &help);
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QString::fromStdString(weights.name)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("FULLY_CONNECTED")), qPrintable(tip));
  }

  void aFewTensorsLieFlatAndAllShow() {
    const Graph graph = MakeDeepMlp(2);  // 4 tensors
    auto store = std::make_shared<SessionStore>();
    FeedGradients(graph, store.get());
    GradientsView view;
    view.setGraph(graph);
    view.setStore(store);
    view.resize(560, 420);
    view.show();
    auto* plot = qobject_cast<QCustomPlot*>(view.tabs()->widget(0));
    settle(plot);
    QCPAxis* axis = plot->axisRect(1)->axis(QCPAxis::atBottom);
    QCOMPARE(axis->tickLabelRotation(), 0.0);
    const ShownTicks ticks = Ticks(axis);
    QCOMPARE(static_cast<int>(ticks.keys.size()), 4);
    const QFontMetrics metrics(axis->tickLabelFont());
    for (size_t i = 1; i < ticks.keys.size(); ++i) {
      const double apart =
          axis->coordToPixel(ticks.keys[i]) - axis->coordToPixel(ticks.keys[i - 1]);
      // Centred flat labels: half of each width must fit between the ticks.
      const double half_widths =
          (metrics.horizontalAdvance(ticks.labels[static_cast<int>(i)]) +
           metrics.horizontalAdvance(ticks.labels[static_cast<int>(i - 1)])) /
          2.0;
      QVERIFY2(apart >= half_widths, qPrintable(ticks.labels.join(QLatin1Char(','))));
    }
  }

 private:
  static void settle(QCustomPlot* plot) {
    for (int i = 0; i < 4; ++i) {
      QCoreApplication::processEvents();
      plot->replot(QCustomPlot::rpImmediateRefresh);
    }
  }

  // Rotated labels are parallel strips one line high: two of them are clear of each other when
  // their anchors are at least a line height apart across the strips, i.e. along the axis times
  // sin(angle). Returns how many labels are shown.
  static int checkNoOverlap(QCPAxis* axis, int tensors) {
    const ShownTicks ticks = Ticks(axis);
    const QFontMetrics metrics(axis->tickLabelFont());
    const double angle = std::abs(axis->tickLabelRotation()) * kPi / 180.0;
    const double slot = axis->axisRect()->width() / static_cast<double>(tensors);
    const auto count = static_cast<int>(ticks.keys.size());
    if (axis->tickLabelRotation() == 0.0) {
      qWarning("labels lie flat for %d tensors", tensors);
      return -1;
    }
    if (count < 2 || count >= tensors) {
      qWarning("%d labels shown of %d", count, tensors);
      return -1;
    }
    if (ticks.keys.front() != 0.0) return -1;
    double widest_gap = 0;
    for (int i = 1; i < count; ++i) {
      const double apart = axis->coordToPixel(ticks.keys[static_cast<size_t>(i)]) -
                           axis->coordToPixel(ticks.keys[static_cast<size_t>(i - 1)]);
      if (apart * std::sin(angle) < metrics.height()) {
        qWarning("labels %d and %d are %.1f px apart across, the font is %d px high", i - 1, i,
                 apart * std::sin(angle), metrics.height());
        return -1;
      }
      widest_gap = std::max(widest_gap, apart);
    }
    // Not thinned more than needed: one slot less would have collided.
    if ((widest_gap - slot) * std::sin(angle) >= metrics.height() + 3.0 + 1e-9) {
      qWarning("labels are %.1f px apart; %.1f would have done", widest_gap, widest_gap - slot);
      return -1;
    }
    return count;
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::GradientAxisTest)
#include "gradient_axis_test.moc"
