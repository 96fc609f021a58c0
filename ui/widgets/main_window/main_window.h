// SPDX-License-Identifier: Apache-2.0
//
// MainWindow: the shell around the views. Every view sits in a dock (layout saved and restored
// with QSettings); a toolbar and the Debug menu drive the current EventSource (Run/Continue F5,
// Pause, Step backward op F10, Step sample F11, Step batch, Stop Shift+F5); the status bar shows
// epoch, optimizer step, backward step i / op k and current and peak bytes. File > Open, the
// recent-files menu and dropping a .circle/.tflite file only emit openRequested(path): loading is
// the owner's job, which then calls setGraph() and addRecentFile(). Colours follow the system
// palette unless View > Theme overrides it.
//
// Starting a run asks before it surprises: F5 with a trainability edit not yet applied offers
// to apply it, run as is or cancel; Run after a finished schedule offers another schedule from
// the weights reached, a restart from the initial weights, or cancel. Debug > Restart
// (Ctrl+Shift+F5) starts again from the initial weights for sources that can. Edit > Undo/Redo
// Trainability Change walk back and forth through the choices applied in this session. The
// questions go through prompt() so tests can answer them.
//
// Breakpoints: the Breakpoints dock edits them (op, NaN/Inf, gradient threshold, RAM budget
// shared with the memory view), Debug > Toggle Breakpoint (F9) toggles the graph's selected ops,
// and the graph marks them with a red dot. They go to the source, are kept per model path in
// QSettings, and a hit (EventSource::breakpointHit) shows its reason in the status bar until the
// run goes on, selects the op in the graph and the panels, selects the reason in the message list
// and refreshes the memory view (its cursor is at the tick that paused).
//
// The window does not own the source (the owner does) and shares the SessionStore with it.
//
//   MainWindow window;
//   window.setStore(store);
//   window.setGraph(model.graph(), path);
//   window.setEventSource(&source);
//   QObject::connect(&window, &MainWindow::openRequested, loader, &Loader::open);
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>

class QLabel;
class QToolBar;

#include "engine/model/graph.h"
#include "engine/plan/trainability.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/event_source.h"
#include "ui/session/sources/session_host.h"

class QActionGroup;
class QLabel;
class QListWidget;
class QMenu;

namespace trainscope {

class GradientsView;
class TensorPanel;
class GraphView;
class LayersPanel;
class BreakpointsPanel;
class LossView;
class MemoryView;
class SnapshotFollower;
class SteadyLabel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class Command { kRun, kPause, kStepBackwardOp, kStepSample, kStepBatch, kStop, kRestart };
  // Shows `text` with one button per choice and returns the index of the one taken, -1 for
  // Cancel (always offered, and what Escape means).
  using Prompt =
      std::function<int(const QString& title, const QString& text, const QStringList& choices)>;
  enum class ThemeChoice { kSystem = 0, kLight, kDark };
  static constexpr int kMaxRecentFiles = 8;
  // The dock layout's version in the settings: raised whenever a dock is added or removed, so a
  // layout saved by an older version is replaced by the default instead of stranding new docks.
  static constexpr int kLayoutVersion = 3;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void setStore(std::shared_ptr<SessionStore> store);
  // What the window shows: switch its source and say which model the session trains here (the
  // local, device and replay controllers do), so every view and the layers panel's memory plan
  // follow the session on screen.
  SessionHost* sessionHost() const { return session_host_; }
  void setGraph(const Graph& graph, const QString& path);
  const Graph& graph() const { return graph_; }
  const QString& modelPath() const { return model_path_; }  // the file setGraph() was given
  // The trainability the source runs with, as the source knows it (a train-config file, a
  // board's or a recording's announcement): shown in the layers panel and the graph, not sent
  // back to the source. A configuration that does not fit the graph is ignored.
  void showSourceTrainability(const TrainabilityConfig& config);
  // Not owned; may be null. Commands and trainability go to it; its state drives the actions.
  void setEventSource(EventSource* source);
  EventSource* eventSource() const { return source_; }

  QAction* action(Command command) const;
  // The menus, in menu-bar order, for controllers that add their actions. Training and Device
  // appear once asked for.
  enum class Menu { kFile, kEdit, kView, kDebug, kTraining, kDevice };
  QMenu* menu(Menu which) const;
  // Adds controllers' "open" actions to the File menu's first group, above its first separator.
  void addFileActions(const QList<QAction*>& actions);
  // The Debug toolbar, for controllers that add controls beside the run commands.
  QToolBar* debugToolBar() const { return debug_toolbar_; }
  void addRecentFile(const QString& path);
  void removeRecentFile(const QString& path);
  QStringList recentFiles() const;
  void setThemeChoice(ThemeChoice choice);
  ThemeChoice themeChoice() const { return theme_choice_; }
  // Puts the docks back where a fresh window has them, sized for the current screen.
  void resetLayout();
  // Selects `op` in every view and brings the Tensor values dock forward.
  void showTensorsOf(int op);
  // Replaces the message box the run questions use (tests answer them).
  void setPrompt(Prompt prompt) { prompt_ = std::move(prompt); }
  QAction* undoTrainabilityAction() const { return undo_trainability_action_; }
  QAction* redoTrainabilityAction() const { return redo_trainability_action_; }

  GraphView* graphView() const { return graph_view_; }
  MemoryView* memoryView() const { return memory_view_; }
  GradientsView* gradientsView() const { return gradients_view_; }
  LossView* lossView() const { return loss_view_; }
  LayersPanel* layersPanel() const { return layers_panel_; }
  TensorPanel* tensorPanel() const { return tensor_panel_; }
  BreakpointsPanel* breakpointsPanel() const { return breakpoints_panel_; }
  QAction* toggleBreakpointAction() const { return toggle_breakpoint_action_; }
  // Every shortcut of the menus as (menu path, keys), what Help > Keyboard Shortcuts lists.
  QList<QPair<QString, QString>> shortcuts() const;
  // The status bar fields, for tests.
  QString statusText() const;
  // Persistent notices in a banner above the views (a failed open, a run on random data): what
  // the user must not miss. An empty list hides the banner.
  void setNotices(const QStringList& notices);
  const QStringList& notices() const { return notices_; }

 Q_SIGNALS:
  void openRequested(const QString& path);
  // File > Open or a drop named a recorded session (.tstrace); replaying is the owner's job.
  void openTraceRequested(const QString& path);
  // setEventSource() installed `source` (may be null), e.g. so a recorder can attach to it.
  void eventSourceChanged(trainscope::EventSource* source);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createActions();
  // "Run one backward step (F10)": an action's tooltip, its shortcut appended when it has one.
  static QString TipWithShortcut(const QString& tip, const QKeySequence& shortcut);
  void createMenus();
  void createHelpMenu();  // main_window_help.cpp
  void createDocks();
  void applyDefaultSizes();
  // Fits a restored window into the screen it is on.
  void keepOnScreen();
  void createStatusBar();
  void createNoticeBar();
  void saveSettings() const;
  void restoreSettings();
  void updateRecentMenu();
  void updateActions();
  void updateStatus(const SessionSnapshot& snapshot);
  void showSourceError(const QString& message);
  void showSessionModel();
  void runOrContinue();
  // The run questions; false: the user cancelled.
  bool confirmPendingTrainability();
  bool confirmAnotherSchedule();
  void restartRun();
  int prompt(const QString& title, const QString& text, const QStringList& choices);
  void updateUndoActions();
  void openFileDialog();
  void applyTheme();
  static bool IsModelFile(const QString& path);
  // Breakpoints (main_window_breakpoints.cpp).
  void createBreakpoints();
  void connectBreakpoints();
  void loadBreakpoints(const Graph& graph, const QString& path);
  void applyBreakpoints(const BreakpointSet& set);
  void toggleBreakpointOnSelection();
  void showBreakpointHit(const QString& reason, uint32_t op_index);
  void showOps(const QList<int>& ops);

  std::shared_ptr<SessionStore> store_;
  QPointer<EventSource> source_;
  Graph graph_;
  QString model_path_;
  ThemeChoice theme_choice_ = ThemeChoice::kSystem;
  QPalette system_palette_;
  uint64_t messages_seen_ = 0;
  QStringList notices_;
  QToolBar* notice_bar_ = nullptr;
  QLabel* notice_label_ = nullptr;

  GraphView* graph_view_ = nullptr;
  MemoryView* memory_view_ = nullptr;
  GradientsView* gradients_view_ = nullptr;
  LossView* loss_view_ = nullptr;
  LayersPanel* layers_panel_ = nullptr;
  TensorPanel* tensor_panel_ = nullptr;
  QListWidget* messages_ = nullptr;
  BreakpointsPanel* breakpoints_panel_ = nullptr;
  QAction* toggle_breakpoint_action_ = nullptr;
  bool source_has_breakpoints_ = false;
  QString shown_hit_;
  std::vector<QDockWidget*> docks_;
  QByteArray default_state_;
  bool geometry_restored_ = false;
  QByteArray restored_geometry_;
  bool shown_once_ = false;

  QAction* run_action_ = nullptr;
  QAction* pause_action_ = nullptr;
  QAction* step_op_action_ = nullptr;
  QAction* step_sample_action_ = nullptr;
  QAction* step_batch_action_ = nullptr;
  QAction* stop_action_ = nullptr;
  QAction* restart_action_ = nullptr;
  QAction* undo_trainability_action_ = nullptr;
  QAction* redo_trainability_action_ = nullptr;
  Prompt prompt_;
  QAction* open_action_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QToolBar* debug_toolbar_ = nullptr;
  QMenu* view_menu_ = nullptr;
  std::map<Menu, QMenu*> menus_;
  QActionGroup* theme_group_ = nullptr;

  QLabel* state_label_ = nullptr;
  SteadyLabel* step_label_ = nullptr;
  SteadyLabel* backward_label_ = nullptr;
  SteadyLabel* memory_label_ = nullptr;
  SnapshotFollower* follower_ = nullptr;
  SessionHost* session_host_ = nullptr;
};

}  // namespace trainscope
