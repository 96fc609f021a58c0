// SPDX-License-Identifier: Apache-2.0
//
// DeviceSessionController: puts device sessions into a MainWindow without the window knowing.
// install() adds a "Device" menu (Connect..., Disconnect, Reconnect) through menuBar() and a
// "Link health" dock through addDockWidget(). Connecting stops the window's previous source
// (e.g. the local engine: both write to the shared store), clears the store and makes the
// DeviceEventSource the window's source. When the board announces its model, the graph is the
// model file whose FNV-1a 64 hash matches (searched among setModelSearchPaths() and the
// window's recent files) or, failing that, the graph drawn from the announced op list. The
// layers panel and the graph show the trained set the board announced, again after each change.
// If another owner later gives the window a different source, the device session closes.
//
// Owns the DeviceEventSource; the window and store must outlive the controller.
//
//   DeviceSessionController device(store);
//   device.setModelSearchPaths({demo_dir});
//   device.install(&window);
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <memory>

#include "engine/core/status.h"
#include "ui/session/sources/device_event_source.h"

class QAction;
class QDockWidget;

namespace trainscope {

class LinkHealthPanel;
class MainWindow;

class DeviceSessionController : public QObject {
  Q_OBJECT

 public:
  explicit DeviceSessionController(std::shared_ptr<SessionStore> store, QObject* parent = nullptr);
  ~DeviceSessionController() override;

  void install(MainWindow* window);
  // Files and directories searched for the announced model (besides the recent files).
  void setModelSearchPaths(const QStringList& paths) { search_paths_ = paths; }

  // What the Connect dialog calls: opens the link and makes it the window's source.
  Status connectTo(const QString& endpoint, const QString& record_path = QString());

  DeviceEventSource* source() const { return source_.get(); }
  QDockWidget* healthDock() const { return health_dock_; }
  LinkHealthPanel* healthPanel() const { return health_panel_; }
  QAction* connectAction() const { return connect_action_; }
  QAction* disconnectAction() const { return disconnect_action_; }
  QAction* reconnectAction() const { return reconnect_action_; }
  // The file the announced model matched, or empty when the announced graph is shown.
  QString modelPath() const { return model_path_; }

 public Q_SLOTS:
  void showConnectDialog();
  void disconnectDevice();
  void reconnectDevice();

 private:
  // The Memory view's "Board" line: what the connected board last reported of its RAM.
  void showDeviceMemory();
  void onModelAnnounced();
  void showAnnouncedTrainability(const AnnouncedModel& model);
  void updateActions();

  std::shared_ptr<SessionStore> store_;
  std::unique_ptr<DeviceEventSource> source_;
  QPointer<MainWindow> window_;
  QStringList search_paths_;
  QString model_path_;
  bool graph_shown_ = false;
  uint64_t shown_hash_ = 0;

  QDockWidget* health_dock_ = nullptr;
  LinkHealthPanel* health_panel_ = nullptr;
  QAction* connect_action_ = nullptr;
  QAction* disconnect_action_ = nullptr;
  QAction* reconnect_action_ = nullptr;
};

}  // namespace trainscope
