// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/common/plot_refresh.h"

#include <QEvent>

#include "ui/widgets/common/qcustomplot_include.h"

namespace trainscope {
namespace {

const char* const kDeferredReplotName = "trainscope_deferred_replot";

// Lives as a child of its plot and watches it for the Show event that ends the wait.
class DeferredReplot : public QObject {
 public:
  explicit DeferredReplot(QCustomPlot* plot) : QObject(plot), plot_(plot) {
    setObjectName(QLatin1String(kDeferredReplotName));
    plot->installEventFilter(this);
  }
  void setPending() { pending_ = true; }
  bool pending() const { return pending_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == plot_ && event->type() == QEvent::Show && pending_) {
      pending_ = false;
      plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    return false;
  }

 private:
  QCustomPlot* plot_;
  bool pending_ = false;
};

DeferredReplot* DeferredOf(const QCustomPlot* plot) {
  // Found by name: the class carries no Q_OBJECT for qobject_cast, and only this file names it.
  return static_cast<DeferredReplot*>(
      plot->findChild<QObject*>(QLatin1String(kDeferredReplotName), Qt::FindDirectChildrenOnly));
}

}  // namespace

void ReplotWhenVisible(QCustomPlot* plot) {
  if (!plot) return;
  if (plot->isVisible()) {
    plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  DeferredReplot* deferred = DeferredOf(plot);
  if (!deferred) deferred = new DeferredReplot(plot);
  deferred->setPending();
}

bool HasDeferredReplot(const QCustomPlot* plot) {
  const DeferredReplot* deferred = plot ? DeferredOf(plot) : nullptr;
  return deferred && deferred->pending();
}

}  // namespace trainscope
