// SPDX-License-Identifier: Apache-2.0
//
// MemoryView: naming buffers for the address-map tooltip.
#include <QMouseEvent>
#include <QToolTip>

#include "ui/widgets/common/format.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/memory/address_map.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {

QString MemoryView::tensorName(int32_t tensor) const {
  if (tensor < 0) return tr("temporary buffer");
  if (graph_.subgraphs.empty() || static_cast<size_t>(tensor) >= graph_.main().tensors.size()) {
    return tr("tensor %1").arg(tensor);
  }
  return tr("tensor %1 '%2'")
      .arg(tensor)
      .arg(QString::fromStdString(graph_.main().tensors[static_cast<size_t>(tensor)].name));
}

QString MemoryView::opOfStep(Phase phase, uint32_t step) const {
  const size_t n = graph_.subgraphs.empty() ? 0 : graph_.main().operators.size();
  auto op_name = [this](size_t k) {
    const char* name = OpcodeName(graph_.main().operators[k].opcode);
    return QStringLiteral("#%1 %2").arg(k).arg(name ? QLatin1String(name) : QLatin1String("?"));
  };
  switch (phase) {
    case Phase::kForward:
      return step < n ? tr("forward op %1").arg(op_name(step)) : tr("forward op #%1").arg(step);
    case Phase::kBackward:
      return step < n ? tr("backward step %1 (op %2)").arg(step).arg(op_name(n - 1 - step))
                      : tr("backward step %1").arg(step);
    case Phase::kOptimizer:
      return tr("optimizer");
  }
  return QString();
}

QString MemoryView::describeBufferAt(double tick, double offset_bytes) const {
  const std::vector<BufferLifetime>& buffers = buffers_->buffers();
  const int index = FindBufferAt(buffers, tick, offset_bytes, buffers_->openEndTick());
  if (index < 0) return QString();
  const BufferLifetime& buffer = buffers[static_cast<size_t>(index)];
  QString text = tensorName(buffer.tensor);
  text += QLatin1Char('\n') +
          tr("category: %1").arg(QLatin1String(MemoryCategoryName(buffer.category)));
  text += QLatin1Char('\n') +
          tr("%1 at offset %2").arg(FormatBytes(buffer.bytes), FormatBytes(buffer.offset));
  text += QLatin1Char('\n') + tr("allocated: %1, tick %2")
                                  .arg(opOfStep(buffer.alloc_phase, buffer.alloc_step))
                                  .arg(buffer.alloc_tick);
  if (buffer.free_tick == kOpenLifetime) {
    text += QLatin1Char('\n') + tr("still live");
  } else {
    text += QLatin1Char('\n') + tr("freed: %1, tick %2 (lived %3 ticks)")
                                    .arg(opOfStep(buffer.free_phase, buffer.free_step))
                                    .arg(buffer.free_tick)
                                    .arg(buffer.free_tick - buffer.alloc_tick);
  }
  return text;
}

void MemoryView::onAddressHover(QMouseEvent* event) {
  const QPointF position = event->position();
  const double tick = address_->xAxis->pixelToCoord(position.x());
  const double offset = address_->yAxis->pixelToCoord(position.y()) * unit_;
  const int index = FindBufferAt(buffers_->buffers(), tick, offset, buffers_->openEndTick());
  buffers_->setHighlighted(index);
  address_->replot(QCustomPlot::rpQueuedReplot);
  if (index < 0) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(event->globalPosition().toPoint(), describeBufferAt(tick, offset), address_);
}

}  // namespace trainscope
