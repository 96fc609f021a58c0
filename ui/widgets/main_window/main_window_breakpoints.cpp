// SPDX-License-Identifier: Apache-2.0
//
// MainWindow: the Breakpoints dock, the F9 toggle, per-model persistence and showing a hit.
#include <QAction>
#include <QCryptographicHash>
#include <QDockWidget>
#include <QFileInfo>
#include <QFont>
#include <QListWidget>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>

#include "ui/session/app_settings.h"
#include "ui/widgets/breakpoints/breakpoints_panel.h"
#include "ui/widgets/common/dock_content.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {
namespace {

// Paths hold '/', which QSettings reads as groups: key the model by a hash of its path.
QString BreakpointsKey(const QString& path) {
  const QByteArray absolute = QFileInfo(path).absoluteFilePath().toUtf8();
  return QStringLiteral("breakpoints/") +
         QString::fromLatin1(QCryptographicHash::hash(absolute, QCryptographicHash::Sha1).toHex());
}

}  // namespace

void MainWindow::createBreakpoints() {
  breakpoints_panel_ = new BreakpointsPanel(this);
  auto* dock = new QDockWidget(tr("Breakpoints"), this);
  dock->setObjectName(QStringLiteral("breakpointsDock"));
  SetScrollingDockWidget(dock, breakpoints_panel_);
  docks_.push_back(dock);
  if (QDockWidget* layers = findChild<QDockWidget*>(QStringLiteral("layersDock"))) {
    tabifyDockWidget(layers, dock);
    layers->raise();
  } else {
    addDockWidget(Qt::RightDockWidgetArea, dock);
  }

  toggle_breakpoint_action_ = new QAction(tr("Toggle &Breakpoint"), this);
  toggle_breakpoint_action_->setShortcut(QKeySequence(Qt::Key_F9));
  toggle_breakpoint_action_->setStatusTip(
      tr("Pause before the backward step of the selected ops, or stop pausing there"));
  toggle_breakpoint_action_->setToolTip(tr("Toggle breakpoint on the selected op (F9)"));
  connect(toggle_breakpoint_action_, &QAction::triggered, this,
          &MainWindow::toggleBreakpointOnSelection);

  connect(breakpoints_panel_, &BreakpointsPanel::breakpointsChanged, this,
          &MainWindow::applyBreakpoints);
  connect(breakpoints_panel_, &BreakpointsPanel::opActivated, this,
          [this](int op) { showOps({op}); });
  // One budget: the memory view's line and the breakpoint's limit.
  connect(breakpoints_panel_, &BreakpointsPanel::budgetChanged, memory_view_,
          &MemoryView::setBudgetBytes);
  connect(memory_view_, &MemoryView::budgetChanged, this, [this](uint64_t bytes) {
    if (breakpoints_panel_->breakpoints().budget_bytes == bytes) return;
    breakpoints_panel_->setBudgetBytes(bytes);
    applyBreakpoints(breakpoints_panel_->breakpoints());
  });
  // ... and the budget the layers panel's "Does it fit?" starts from.
  connect(memory_view_, &MemoryView::budgetChanged, layers_panel_, &LayersPanel::setFitBudgetBytes);
}

void MainWindow::connectBreakpoints() {
  connect(source_, &EventSource::breakpointHit, this, &MainWindow::showBreakpointHit);
  connect(source_, &EventSource::stateChanged, this, [this](EventSource::State state) {
    if (state == EventSource::State::kPaused || shown_hit_.isEmpty()) return;
    if (statusBar()->currentMessage() == shown_hit_) statusBar()->clearMessage();
    shown_hit_.clear();
  });
  source_has_breakpoints_ = false;
  applyBreakpoints(breakpoints_panel_->breakpoints());
}

void MainWindow::loadBreakpoints(const Graph& graph, const QString& path) {
  BreakpointSet set;
  if (!path.isEmpty()) {
    set = BreakpointSet::FromVariantMap(AppSettings().value(BreakpointsKey(path)).toMap());
  }
  set.budget_bytes = memory_view_->budgetBytes();
  breakpoints_panel_->setGraph(graph);  // drops ops the graph does not have
  breakpoints_panel_->setBreakpoints(set);
  breakpoints_panel_->showHit(QString());
  applyBreakpoints(breakpoints_panel_->breakpoints());
}

void MainWindow::applyBreakpoints(const BreakpointSet& set) {
  graph_view_->setBreakpointOps(set.ops);
  // An empty set sent to a source without breakpoints would only produce an error.
  if (source_ && (!set.empty() || source_has_breakpoints_)) {
    source_has_breakpoints_ = source_->setBreakpoints(set) && !set.empty();
  }
  if (!model_path_.isEmpty()) {
    auto settings = AppSettings();
    settings.setValue(BreakpointsKey(model_path_), set.toVariantMap());
  }
}

void MainWindow::toggleBreakpointOnSelection() {
  const QList<int> ops = graph_view_->selectedOps();
  if (ops.isEmpty()) {
    statusBar()->showMessage(tr("Select an op in the graph to toggle its breakpoint"), 5000);
    return;
  }
  for (int op : ops) {
    if (op >= 0) breakpoints_panel_->toggleOp(static_cast<uint32_t>(op));
  }
}

void MainWindow::showOps(const QList<int>& ops) {
  graph_view_->setSelectedOps(ops);
  layers_panel_->selectOps(ops);
  gradients_view_->selectOps(ops);
}

void MainWindow::showBreakpointHit(const QString& reason, uint32_t op_index) {
  shown_hit_ = reason;
  statusBar()->showMessage(reason);  // until the run goes on
  breakpoints_panel_->showHit(reason);
  // The source published up to the hit before it paused: pull it so every view shows that point.
  follower_->poll();
  graph_view_->refresh();
  memory_view_->refresh();
  QListWidgetItem* item = nullptr;
  for (int row = messages_->count() - 1; row >= 0 && !item; --row) {
    if (messages_->item(row)->text() == reason) item = messages_->item(row);
  }
  if (!item) {  // a source that does not put the reason in the store
    item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxWarning), reason);
    messages_->addItem(item);
  }
  QFont bold = item->font();
  bold.setBold(true);
  item->setFont(bold);
  messages_->setCurrentItem(item);
  messages_->scrollToItem(item);
  const size_t op_count = graph_.subgraphs.empty() ? 0 : graph_.main().operators.size();
  if (op_index != kNoOp && op_index < op_count) showOps({static_cast<int>(op_index)});
}

}  // namespace trainscope
