// SPDX-License-Identifier: Apache-2.0
#include "ui/controllers/experiment_controller.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>

#include <algorithm>

#include "ui/session/sources/local_event_source.h"
#include "ui/widgets/common/dock_content.h"
#include "ui/widgets/experiments/experiments_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"

namespace trainscope {
namespace {

// Epochs an experiment runs unless the user says otherwise: the session's schedule, held to what
// trains in seconds on a laptop for small models.
constexpr uint32_t kDefaultEpochs = 40;

}  // namespace

ExperimentController::ExperimentController(QObject* parent) : QObject(parent) {}

ExperimentController::~ExperimentController() = default;

void ExperimentController::install(MainWindow* window) {
  window_ = window;
  view_ = new ExperimentsView;
  dock_ = new QDockWidget(tr("Experiments"), window);
  dock_->setObjectName(QStringLiteral("experimentsDock"));
  SetScrollingDockWidget(dock_, view_);
  window->addDockWidget(Qt::RightDockWidgetArea, dock_);
  if (auto* loss = window->findChild<QDockWidget*>(QStringLiteral("lossDock"))) {
    window->tabifyDockWidget(loss, dock_);
    loss->raise();
  }
  dock_->hide();
  window->menu(MainWindow::Menu::kView)->addAction(dock_->toggleViewAction());

  compare_action_ = new QAction(tr("&Compare Trainability…"), window);
  compare_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  compare_action_->setStatusTip(
      tr("Train several trainability choices from the same initial weights and compare their "
         "loss, metric, memory and step time"));
  connect(compare_action_, &QAction::triggered, this, [this] {
    dock_->show();
    dock_->raise();
  });
  window->menu(MainWindow::Menu::kTraining)->addAction(compare_action_);

  LayersPanel* layers = window->layersPanel();
  view_->setChoiceProviders([layers] { return layers->appliedTrainability(); },
                            [layers] { return layers->pendingTrainability(); });
  view_->setSpecProvider([this](ExperimentSpec* spec) {
    auto* local = window_ ? qobject_cast<LocalEventSource*>(window_->eventSource()) : nullptr;
    if (local == nullptr || !local->fillExperimentSpec(spec)) {
      return Status::Error(StatusCode::kUnsupported,
                           "experiments train the local engine: open a model (a board or a "
                           "replay cannot run arms)");
    }
    return Status::Ok();
  });
  connect(window->sessionHost(), &SessionHost::modelChanged, this,
          &ExperimentController::showSession);
  showSession();
}

void ExperimentController::showSession() {
  const SessionModel& model = window_->sessionHost()->model();
  view_->setGraph(model.graph, model.options);
  if (model.graph.subgraphs.empty()) {
    view_->setArms({});
    return;
  }
  const Subgraph& main = model.graph.main();
  TrainabilityConfig last_two;
  last_two.num_train_layers = std::min<uint32_t>(2, static_cast<uint32_t>(main.operators.size()));
  view_->setArms({{DescribeTrainability(main, TrainabilityConfig()), TrainabilityConfig()},
                  {DescribeTrainability(main, last_two), last_two}});
  view_->setEpochs(static_cast<int>(std::clamp<uint32_t>(model.options.epochs, 1, kDefaultEpochs)));
}

}  // namespace trainscope
