// SPDX-License-Identifier: Apache-2.0
#include "ui/controllers/device_session_controller.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>

#include "engine/model/model.h"
#include "ui/session/trainability.h"
#include "ui/widgets/common/dock_content.h"
#include "ui/widgets/device/connect_dialog.h"
#include "ui/widgets/device/link_health_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {

DeviceSessionController::DeviceSessionController(std::shared_ptr<SessionStore> store,
                                                 QObject* parent)
    : QObject(parent),
      store_(std::move(store)),
      source_(std::make_unique<DeviceEventSource>(store_)) {
  connect(source_.get(), &DeviceEventSource::modelAnnounced, this,
          &DeviceSessionController::onModelAnnounced);
  connect(source_.get(), &DeviceEventSource::connectionChanged, this,
          &DeviceSessionController::updateActions);
  connect(source_.get(), &EventSource::dataReady, this, [this] {
    // Someone else (File > Open) gave the window another source: this session is over, and
    // its events must not mix into the store the new source fills.
    if (window_ && source_->isOpen() && window_->eventSource() != source_.get()) {
      source_->close();
    }
    showDeviceMemory();
  });
}

DeviceSessionController::~DeviceSessionController() {
  if (window_ && window_->eventSource() == source_.get()) window_->setEventSource(nullptr);
  source_->close();
}

void DeviceSessionController::install(MainWindow* window) {
  window_ = window;
  QMenu* menu = window->menu(MainWindow::Menu::kDevice);
  connect_action_ =
      menu->addAction(tr("&Connect..."), this, &DeviceSessionController::showConnectDialog);
  disconnect_action_ =
      menu->addAction(tr("&Disconnect"), this, &DeviceSessionController::disconnectDevice);
  reconnect_action_ =
      menu->addAction(tr("&Reconnect"), this, &DeviceSessionController::reconnectDevice);

  health_panel_ = new LinkHealthPanel;
  health_panel_->setSource(source_.get());
  health_dock_ = new QDockWidget(tr("Link health"), window);
  health_dock_->setObjectName(QStringLiteral("link_health_dock"));
  SetScrollingDockWidget(health_dock_, health_panel_);
  window->addDockWidget(Qt::RightDockWidgetArea, health_dock_);
  // A tab beside the loss view: a row of its own would squeeze every view on a laptop screen.
  if (auto* loss = window->findChild<QDockWidget*>(QStringLiteral("lossDock"))) {
    window->tabifyDockWidget(loss, health_dock_);
    loss->raise();
  }
  health_dock_->hide();  // shown once a board is connected; View menus can bring it back
  menu->addSeparator();
  menu->addAction(health_dock_->toggleViewAction());
  updateActions();
}

Status DeviceSessionController::connectTo(const QString& endpoint, const QString& record_path) {
  source_->close();
  // Stops any other source and clears the store before the board's first frame arrives.
  if (window_) {
    window_->sessionHost()->switchTo(source_.get());
  } else {
    store_->clear();
  }
  graph_shown_ = false;
  model_path_.clear();
  if (window_) window_->memoryView()->setDeviceMemory(std::nullopt);  // a new board says anew
  Status status = source_->open(endpoint, record_path);
  if (!status.ok()) {
    if (window_) window_->sessionHost()->switchTo(nullptr);
    return status;
  }
  if (window_ && health_dock_) health_dock_->show();
  updateActions();
  return Status::Ok();
}

void DeviceSessionController::showDeviceMemory() {
  if (!window_) return;
  const bool ours = window_->eventSource() == source_.get();
  const LinkHealth health = source_->health();
  window_->memoryView()->setDeviceMemory(
      ours && health.has_device_memory ? std::optional(health.device_memory) : std::nullopt);
}

void DeviceSessionController::showConnectDialog() {
  ConnectDialog dialog([this](const QString& endpoint,
                              const QString& record) { return connectTo(endpoint, record); },
                       window_);
  dialog.exec();
}

void DeviceSessionController::disconnectDevice() {
  source_->close();
  updateActions();
}

void DeviceSessionController::reconnectDevice() {
  if (source_->isOpen()) {
    source_->reconnect();
  } else if (!source_->endpoint().isEmpty()) {
    Status status = connectTo(source_->endpoint());
    if (!status.ok()) {
      EventBatch failure;
      failure.add(StatusMessage{MessageLevel::kError, QString::fromUtf8(status.message())});
      store_->append(failure);
    }
  }
}

void DeviceSessionController::onModelAnnounced() {
  if (!source_->hasModel()) return;
  const AnnouncedModel model = source_->announcedModel();
  if (graph_shown_ && model.hash == shown_hash_) {  // a re-announce after a change
    showAnnouncedTrainability(model);
    return;
  }
  shown_hash_ = model.hash;
  graph_shown_ = true;
  QStringList paths = search_paths_;
  if (window_) paths += window_->recentFiles();
  model_path_ = FindModelFileByHash(model.hash, paths);
  Model file;
  const bool matched =
      !model_path_.isEmpty() && ReadModelFile(model_path_.toStdString(), &file).ok();
  EventBatch note;
  if (matched) {
    note.add(StatusMessage{MessageLevel::kInfo,
                           QStringLiteral("the board's model is %1").arg(model_path_)});
  } else {
    model_path_.clear();
    note.add(StatusMessage{MessageLevel::kWarning,
                           QStringLiteral("no model file matches hash %1: showing the op list "
                                          "the board announced (File > Open the model for names "
                                          "and shapes)")
                               .arg(model.hash, 16, 16, QLatin1Char('0'))});
  }
  store_->append(note);
  if (!window_) return;
  const Graph file_graph = matched ? file.graph() : Graph();
  window_->sessionHost()->showModel(
      AnnouncedSessionModel(model, matched ? &file_graph : nullptr, model_path_));
}

void DeviceSessionController::showAnnouncedTrainability(const AnnouncedModel& model) {
  if (!window_ || window_->graph().subgraphs.empty()) return;
  window_->showSourceTrainability(
      TrainabilityFromTrainedOps(window_->graph().main(), model.trainedOps()));
}

void DeviceSessionController::updateActions() {
  if (!connect_action_) return;
  const bool open = source_->isOpen();
  disconnect_action_->setEnabled(open);
  reconnect_action_->setEnabled(open || !source_->endpoint().isEmpty());
}

}  // namespace trainscope
