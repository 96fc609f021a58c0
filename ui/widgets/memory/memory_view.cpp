// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/memory/memory_view.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/session/device_memory.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/plot_refresh.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/memory/address_map.h"

namespace trainscope {
namespace {

const char* const kCategoryLabels[kMemoryCategoryCount] = {
    QT_TRANSLATE_NOOP("MemoryView", "input"),
    QT_TRANSLATE_NOOP("MemoryView", "activation"),
    QT_TRANSLATE_NOOP("MemoryView", "activation kept for backward"),
    QT_TRANSLATE_NOOP("MemoryView", "activation gradient"),
    QT_TRANSLATE_NOOP("MemoryView", "weight gradient"),
    QT_TRANSLATE_NOOP("MemoryView", "optimizer state"),
    QT_TRANSLATE_NOOP("MemoryView", "loss gradient"),
    QT_TRANSLATE_NOOP("MemoryView", "temporary"),
};

QCPItemStraightLine* HorizontalLine(QCustomPlot* plot) {
  auto* line = new QCPItemStraightLine(plot);
  line->point1->setCoords(0, 0);
  line->point2->setCoords(1, 0);
  return line;
}

void SetHorizontal(QCPItemStraightLine* line, double y) {
  line->point1->setCoords(0, y);
  line->point2->setCoords(1, y);
}

QCPItemText* LineLabel(QCustomPlot* plot) {
  auto* label = new QCPItemText(plot);
  label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  label->position->setTypeY(QCPItemPosition::ptPlotCoords);
  label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  label->setClipToAxisRect(true);
  return label;
}

// Bytes per axis unit, so axes read "12.5" (KiB) instead of "12800".
double UnitFor(uint64_t bytes, QString* name) {
  if (bytes < 4 * 1024) {
    *name = QStringLiteral("B");
    return 1.0;
  }
  if (bytes < 4ull * 1024 * 1024) {
    *name = QStringLiteral("KiB");
    return 1024.0;
  }
  *name = QStringLiteral("MiB");
  return 1024.0 * 1024.0;
}

}  // namespace

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
  summary_ = new QLabel(this);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setWordWrap(true);
  summary_->setMinimumWidth(120);
  budget_spin_ = new QSpinBox(this);
  budget_spin_->setRange(0, 1 << 22);
  budget_spin_->setSuffix(QStringLiteral(" KiB"));
  budget_spin_->setSpecialValueText(tr("no budget"));
  budget_spin_->setToolTip(
      tr("RAM budget of the target board; the line turns red when the peak "
         "exceeds it"));
  connect(budget_spin_, qOverload<int>(&QSpinBox::valueChanged), this,
          [this](int kib) { setBudgetBytes(static_cast<uint64_t>(kib) * 1024); });
  auto* header = new QHBoxLayout;
  header->setContentsMargins(6, 4, 6, 0);
  header->addWidget(summary_, 1);
  header->addWidget(new QLabel(tr("Budget"), this));
  header->addWidget(budget_spin_);

  device_memory_ = new QLabel(this);
  device_memory_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  device_memory_->setWordWrap(true);
  device_memory_->setMinimumWidth(120);
  device_memory_->setContentsMargins(6, 0, 6, 0);
  device_memory_->hide();

  timeline_ = new QCustomPlot(this);
  timeline_->xAxis->setLabel(tr("tick of the train step"));
  QFont legend_font = font();
  legend_font.setPointSizeF(legend_font.pointSizeF() * 0.85);
  timeline_->legend->setFont(legend_font);
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    QCPGraph* graph = timeline_->addGraph();
    graph->setName(tr(kCategoryLabels[c]));
    graph->setLineStyle(QCPGraph::lsStepLeft);
    if (!stacks_.empty()) graph->setChannelFillGraph(stacks_.back());
    stacks_.push_back(graph);
  }
  PlaceLegendAbove(timeline_, 4);
  peak_line_ = HorizontalLine(timeline_);
  peak_label_ = LineLabel(timeline_);
  budget_line_ = HorizontalLine(timeline_);
  budget_label_ = LineLabel(timeline_);
  cursor_line_ = new QCPItemStraightLine(timeline_);

  address_ = new QCustomPlot(this);
  address_->xAxis->setLabel(tr("tick of the train step"));
  buffers_ = new AddressMapPlottable(address_->xAxis, address_->yAxis);
  arena_line_ = HorizontalLine(address_);
  arena_label_ = LineLabel(address_);
  address_cursor_ = new QCPItemStraightLine(address_);
  address_->setMouseTracking(true);
  connect(address_, &QCustomPlot::mouseMove, this, &MemoryView::onAddressHover);
  for (QCustomPlot* plot : {timeline_, address_}) {
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->setNoAntialiasingOnDrag(true);
  }

  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  tabs_->addTab(timeline_, tr("Timeline"));
  tabs_->addTab(address_, tr("Address map"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(header);
  layout->addWidget(device_memory_);
  layout->addWidget(tabs_, 1);

  applyTheme();
  follower_ = new SnapshotFollower(this);
  follower_->setCallback([this](const auto& snapshot) { onSnapshot(*snapshot); });
}

MemoryView::~MemoryView() = default;

void MemoryView::setGraph(const Graph& graph) {
  graph_ = graph;
  timeline_->setProperty("extent", 0.0);  // another model, another step length
  refresh();
}

void MemoryView::setStore(std::shared_ptr<SessionStore> store) {
  follower_->setStore(std::move(store));
}

void MemoryView::setBudgetBytes(uint64_t bytes) {
  if (bytes == budget_bytes_) return;
  budget_bytes_ = bytes;
  {
    QSignalBlocker block(budget_spin_);
    budget_spin_->setValue(static_cast<int>(std::min<uint64_t>(bytes / 1024, 1 << 22)));
  }
  Q_EMIT budgetChanged(bytes);
  refresh();
}

void MemoryView::setSetupText(const QString& text) {
  setup_text_ = text;
  refresh();
}

void MemoryView::setDeviceMemory(const std::optional<wire::DeviceMemoryMessage>& memory) {
  if (memory == device_memory_shown_) return;
  device_memory_shown_ = memory;
  if (!memory) {
    device_memory_->hide();
    device_memory_->clear();
    return;
  }
  const DeviceMemoryReport report = ExplainDeviceMemory(*memory);
  device_memory_->setText(DeviceMemoryLine(report));
  device_memory_->setToolTip(DeviceMemoryDetails(report));
  device_memory_->show();
}

QString MemoryView::deviceMemoryText() const {
  return device_memory_->text();
}

void MemoryView::refresh() {
  follower_->refresh();
}

void MemoryView::onSnapshot(const SessionSnapshot& snapshot) {
  // Loss and gradient events change the store too; these plots need only the step's memory.
  if (!follower_->forced() && snapshot.memory == shown_memory_ &&
      snapshot.previous_step_peak_bytes == shown_previous_peak_ &&
      snapshot.previous_step_last_tick == shown_previous_last_tick_) {
    return;
  }
  shown_memory_ = snapshot.memory;
  shown_previous_peak_ = snapshot.previous_step_peak_bytes;
  shown_previous_last_tick_ = snapshot.previous_step_last_tick;
  rebuild(snapshot);
}

int MemoryView::bufferCount() const {
  return static_cast<int>(buffers_->buffers().size());
}

void MemoryView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyTheme();
    refresh();
  }
}

void MemoryView::applyTheme() {
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  for (QCustomPlot* plot : {timeline_, address_}) ApplyPlotTheme(plot, theme);
  for (size_t c = 0; c < stacks_.size(); ++c) {
    QColor fill = theme.categories[c];
    fill.setAlpha(200);
    stacks_[c]->setBrush(fill);
    stacks_[c]->setPen(QPen(theme.categories[c].darker(120), 1.0));
  }
  peak_line_->setPen(QPen(theme.peak, 1.5, Qt::DashLine));
  peak_label_->setColor(theme.peak);
  cursor_line_->setPen(QPen(theme.accent, 2.0));
  address_cursor_->setPen(QPen(theme.accent, 2.0));
  arena_line_->setPen(QPen(theme.text, 1.0, Qt::DashLine));
  arena_label_->setColor(theme.text);
  buffers_->setColors(theme.categories, theme.accent);
}

void MemoryView::rebuild(const SessionSnapshot& snapshot) {
  ++rebuilds_;
  const LiveMemoryTimeline& memory = *snapshot.memory;
  peak_bytes_ = snapshot.peakBytes();
  const uint64_t scale_bytes = std::max(
      {peak_bytes_, snapshot.previous_step_peak_bytes, budget_bytes_, memory.arenaExtent()});
  QString unit_name;
  unit_ = UnitFor(scale_bytes, &unit_name);
  timeline_->yAxis->setLabel(tr("live memory (%1)").arg(unit_name));
  address_->yAxis->setLabel(tr("arena offset (%1)").arg(unit_name));
  cursor_tick_ = memory.empty() ? 0.0 : memory.lastTick() + 0.5;

  shown_.current_bytes = snapshot.currentBytes();
  shown_.peak_bytes = peak_bytes_;
  shown_.arena_bytes = memory.arenaExtent();
  QString summary = tr("current <b>%1</b> · peak <b>%2</b>")
                        .arg(FormatBytes(snapshot.currentBytes()), FormatBytes(peak_bytes_));
  if (snapshot.previous_step_peak_bytes > 0) {
    summary += tr(" · previous step peak %1").arg(FormatBytes(snapshot.previous_step_peak_bytes));
  }
  summary += tr(" · arena %1").arg(FormatBytes(memory.arenaExtent()));
  if (budget_bytes_ > 0 && peak_bytes_ > budget_bytes_) {
    const ViewTheme theme = ViewTheme::fromPalette(palette());
    summary += QStringLiteral(" · <span style=\"color:%1\"><b>%2</b></span>")
                   .arg(theme.error.name(),
                        tr("over budget by %1").arg(FormatBytes(peak_bytes_ - budget_bytes_)));
  }
  if (memory.droppedEvents() > 0) {
    summary += tr(" · %1 events not shown").arg(FormatCount(memory.droppedEvents()));
  }
  if (!setup_text_.isEmpty()) summary += QStringLiteral(" · ") + setup_text_.toHtmlEscaped();
  summary_->setText(summary);

  rebuildTimeline(snapshot);
  rebuildAddressMap(snapshot);
  ReplotWhenVisible(timeline_);
  ReplotWhenVisible(address_);
}

void MemoryView::rebuildTimeline(const SessionSnapshot& snapshot) {
  const LiveMemoryTimeline& memory = *snapshot.memory;
  const std::vector<TickSample>& ticks = memory.ticks();
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  std::vector<QVector<double>> values(kMemoryCategoryCount);
  QVector<double> keys;
  std::array<bool, kMemoryCategoryCount> used{};
  keys.reserve(static_cast<int>(ticks.size()) + 1);
  shown_.max_stacked_bytes = 0;
  for (size_t i = 0; i <= ticks.size() && !ticks.empty(); ++i) {
    // One extra point after the last tick gives it a visible width.
    const TickSample& sample = ticks[std::min(i, ticks.size() - 1)];
    keys.push_back(i < ticks.size() ? sample.tick : sample.tick + 1.0);
    double cumulative = 0.0;
    for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
      used[c] = used[c] || sample.high_water[c] > 0;
      cumulative += static_cast<double>(sample.high_water[c]) / unit_;
      values[c].push_back(cumulative);
    }
    shown_.max_stacked_bytes = std::max(shown_.max_stacked_bytes, sample.highWaterTotal());
  }
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    stacks_[c]->setData(keys, values[c], true);
    if (used[c]) {
      stacks_[c]->addToLegend();
    } else {
      stacks_[c]->removeFromLegend();
    }
  }

  // Shade the phases behind the stack.
  size_t band = 0;
  for (size_t i = 0; i < ticks.size();) {
    size_t j = i;
    while (j + 1 < ticks.size() && ticks[j + 1].phase == ticks[i].phase) ++j;
    if (band >= phase_bands_.size()) {
      auto* rect = new QCPItemRect(timeline_);
      rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
      rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
      rect->setLayer(QStringLiteral("background"));
      rect->setPen(Qt::NoPen);
      auto* text = new QCPItemText(timeline_);
      text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
      text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
      text->setClipToAxisRect(true);
      phase_bands_.push_back(rect);
      phase_labels_.push_back(text);
    }
    const double begin = ticks[i].tick;
    const double end = (j + 1 < ticks.size() ? ticks[j + 1].tick : ticks[j].tick + 1.0);
    QColor shade = ticks[i].phase == Phase::kBackward ? theme.accent : theme.text;
    shade.setAlpha(
        ticks[i].phase == Phase::kBackward ? 22 : (ticks[i].phase == Phase::kForward ? 8 : 30));
    phase_bands_[band]->topLeft->setCoords(begin, 0.0);
    phase_bands_[band]->bottomRight->setCoords(end, 1.0);
    phase_bands_[band]->setBrush(shade);
    phase_bands_[band]->setVisible(true);
    phase_labels_[band]->position->setCoords((begin + end) / 2.0, 0.01);
    phase_labels_[band]->setText(QLatin1String(PhaseName(ticks[i].phase)));
    phase_labels_[band]->setColor(theme.muted_text);
    phase_labels_[band]->setVisible(end - begin >= 2.0);
    ++band;
    i = j + 1;
  }
  for (; band < phase_bands_.size(); ++band) {
    phase_bands_[band]->setVisible(false);
    phase_labels_[band]->setVisible(false);
  }

  const double peak = static_cast<double>(peak_bytes_) / unit_;
  SetHorizontal(peak_line_, peak);
  peak_line_->setVisible(peak_bytes_ > 0);
  peak_label_->position->setCoords(0.99, peak);
  peak_label_->setText(tr("peak %1").arg(FormatBytes(peak_bytes_)));
  peak_label_->setVisible(peak_bytes_ > 0);
  const double budget = static_cast<double>(budget_bytes_) / unit_;
  const bool over = budget_bytes_ > 0 && peak_bytes_ > budget_bytes_;
  budget_line_->setPen(QPen(over ? theme.error : theme.budget, 2.0, Qt::DotLine));
  budget_label_->setColor(over ? theme.error : theme.budget);
  SetHorizontal(budget_line_, budget);
  budget_label_->position->setCoords(0.70, budget);
  budget_label_->setText(tr("budget %1").arg(FormatBytes(budget_bytes_)));
  budget_line_->setVisible(budget_bytes_ > 0);
  budget_label_->setVisible(budget_bytes_ > 0);
  cursor_line_->point1->setCoords(cursor_tick_, 0);
  cursor_line_->point2->setCoords(cursor_tick_, 1);
  cursor_line_->setVisible(!ticks.empty());

  // The x axis keeps the longest step seen, so the cursor walks across instead of the axis
  // rescaling every frame.
  const double extent = std::max(ticks.empty() ? 1.0 : ticks.back().tick + 1.0,
                                 snapshot.previous_step_last_tick + 1.0);
  const double upper = std::max(extent, timeline_->property("extent").toDouble());
  timeline_->setProperty("extent", upper);
  timeline_->xAxis->setRange(0, upper);
  const double top =
      std::max({peak, budget, static_cast<double>(snapshot.previous_step_peak_bytes) / unit_});
  timeline_->yAxis->setRange(0, top > 0 ? top * 1.18 : 1.0);
}

void MemoryView::rebuildAddressMap(const SessionSnapshot& snapshot) {
  const LiveMemoryTimeline& memory = *snapshot.memory;
  const uint32_t open_end = memory.empty() ? 1 : memory.lastTick() + 1;
  buffers_->setBuffers(memory.buffers(), open_end, unit_);
  const double arena = static_cast<double>(memory.arenaExtent()) / unit_;
  SetHorizontal(arena_line_, arena);
  arena_label_->position->setCoords(0.99, arena);
  arena_label_->setText(tr("arena %1").arg(FormatBytes(memory.arenaExtent())));
  arena_line_->setVisible(memory.arenaExtent() > 0);
  arena_label_->setVisible(memory.arenaExtent() > 0);
  address_cursor_->point1->setCoords(cursor_tick_, 0);
  address_cursor_->point2->setCoords(cursor_tick_, 1);
  address_cursor_->setVisible(!memory.empty());
  address_->xAxis->setRange(0, std::max(timeline_->xAxis->range().upper, double(open_end)));
  address_->yAxis->setRange(0, arena > 0 ? arena * 1.12 : 1.0);
}

}  // namespace trainscope
