// SPDX-License-Identifier: Apache-2.0
#include "ui/controllers/comparison_controller.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QTimer>

#include "ui/widgets/common/dock_content.h"
#include "ui/widgets/comparison/comparison_view.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/tensors/tensor_panel.h"

namespace trainscope {
namespace {

const QString kComparisonFilter = QStringLiteral("diff reports (*.json);;All files (*)");

QString CanonicalOrAbsolute(const QString& path) {
  const QFileInfo info(path);
  const QString canonical = info.canonicalFilePath();
  return canonical.isEmpty() ? info.absoluteFilePath() : canonical;
}

}  // namespace

ComparisonController::ComparisonController(QObject* parent) : QObject(parent) {}

ComparisonController::~ComparisonController() = default;

void ComparisonController::install(MainWindow* window) {
  window_ = window;
  view_ = new ComparisonView;
  dock_ = new QDockWidget(tr("Comparison"), window);
  dock_->setObjectName(QStringLiteral("comparisonDock"));
  SetScrollingDockWidget(dock_, view_);
  window->addDockWidget(Qt::RightDockWidgetArea, dock_);
  if (auto* memory = window->findChild<QDockWidget*>(QStringLiteral("memoryDock"))) {
    window->tabifyDockWidget(memory, dock_);
    memory->raise();
  }
  dock_->hide();
  window->menu(MainWindow::Menu::kView)->addAction(dock_->toggleViewAction());

  open_action_ = new QAction(tr("Open &Comparison…"), window);
  open_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
  open_action_->setStatusTip(
      tr("Show a board's step beside the reference engine's, from the "
         "report trainscope-cli diff --json FILE --values writes"));
  connect(open_action_, &QAction::triggered, this, &ComparisonController::chooseAndOpen);
  window->addFileActions({open_action_});

  connect(view_, &ComparisonView::firstDivergentOpChanged, this,
          &ComparisonController::markFirstDivergent);
  connect(view_, &ComparisonView::opSelected, this, &ComparisonController::selectInWindow);
  connect(window->graphView(), &GraphView::selectionChanged, this, [this](const QList<int>& ops) {
    if (linked_ && ops.size() == 1) view_->selectOp(ops.front());
  });
  connect(window->sessionHost(), &SessionHost::modelChanged, this,
          &ComparisonController::linkModel);
}

void ComparisonController::chooseAndOpen() {
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Open Comparison"), QString(), kComparisonFilter);
  if (path.isEmpty()) return;
  if (Status status = open(path); !status.ok()) {
    QStringList notices = window_->notices();
    notices << tr("Cannot open the comparison: %1").arg(QString::fromUtf8(status.message()));
    window_->setNotices(notices);
  }
}

Status ComparisonController::open(const QString& path) {
  StepComparisonPtr file;
  TS_RETURN_IF_ERROR(LoadStepComparison(path, &file));
  file_ = file;
  requested_model_.clear();
  linked_ = false;
  view_->setComparison(file_, path);
  dock_->show();
  dock_->raise();
  // Room for the table and the values: most of the window's height and half its width, once
  // the dock is laid out.
  QTimer::singleShot(0, dock_, [this] {
    if (!window_) return;
    const int height = window_->height();
    if (auto* below = window_->findChild<QDockWidget*>(QStringLiteral("gradientsDock"))) {
      window_->resizeDocks({dock_, below}, {height * 2 / 3, height / 4}, Qt::Vertical);
    } else {
      window_->resizeDocks({dock_}, {height * 2 / 3}, Qt::Vertical);
    }
    window_->resizeDocks({dock_}, {window_->width() / 2}, Qt::Horizontal);
  });
  linkModel();
  return Status::Ok();
}

void ComparisonController::linkModel() {
  if (!window_ || !file_) return;
  const Graph& graph = window_->graph();
  const QString model_path = window_->modelPath();
  const QString wanted = CanonicalOrAbsolute(file_->model);
  const bool same_file = !model_path.isEmpty() && CanonicalOrAbsolute(model_path) == wanted;
  Status fits = graph.subgraphs.empty()
                    ? Status::Error(StatusCode::kInvalidArgument, "no model is open")
                    : CheckFitsModel(*file_, graph.main());
  QString note;
  if (fits.ok()) {
    linked_ = true;
    if (!same_file) {
      note = tr("The comparison was made with %1; the open model %2 has the same ops and "
                "tensors, so the graph follows it.")
                 .arg(file_->model, model_path);
    }
  } else {
    linked_ = false;
    if (!same_file && QFileInfo::exists(file_->model) && requested_model_ != wanted) {
      // The report's own model: open it, and link once the window shows it (modelChanged).
      requested_model_ = wanted;
      view_->setNote(tr("Opening %1, the model the comparison was made with…").arg(file_->model));
      Q_EMIT window_->openRequested(file_->model);
      return;
    }
    if (!same_file && !QFileInfo::exists(file_->model)) {
      note = tr("The comparison was made with %1, which is not on this machine: the graph "
                "cannot follow it. Open that model (File > Open) to see its ops there.")
                 .arg(file_->model);
    } else {
      note = tr("The graph cannot follow this comparison: %1 does not match it (%2).")
                 .arg(model_path.isEmpty() ? tr("the open model") : model_path,
                      QString::fromUtf8(fits.message()));
    }
  }
  view_->setNote(note);
  markFirstDivergent(static_cast<int>(view_->verdict().first_divergent_op));
}

void ComparisonController::markFirstDivergent(int op) {
  if (!window_) return;
  window_->graphView()->setDivergentOp(linked_ ? op : -1);
}

void ComparisonController::selectInWindow(int op) {
  if (!window_ || !linked_) return;
  const QList<int> ops{op};
  window_->graphView()->setSelectedOps(ops);
  window_->graphView()->ensureOpVisible(op);
  window_->layersPanel()->selectOps(ops);
  window_->gradientsView()->selectOps(ops);
  window_->tensorPanel()->selectOps(ops);
}

}  // namespace trainscope
