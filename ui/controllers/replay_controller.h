// SPDX-License-Identifier: Apache-2.0
//
// ReplayController: recording and replay wired into a MainWindow without the window knowing.
// install() adds File > Open Trace… (Ctrl+Shift+O), File > Compare Traces…, File > Record
// Sessions (on by default), the replay timeline as a dock (shown while replaying), the view
// exports (InstallViewExports), and handles the window's openTraceRequested().
//
// Recording: whenever the window's source is an LocalEventSource (now and whenever the window
// gets a new source: eventSourceChanged), a TraceRecorder is attached to it, writing
// <recordingDir()>/<model>-<timestamp>.tstrace as the session runs. Each recording is capped at
// the QSettings value recording/maxMegabytes (default 1024, read when the recorder is created)
// unless setRecordingMaxBytes() overrides it. When a recording ends early (the cap, a failing
// write) the training goes on and the controller posts one warning into the store, so the
// Messages dock says why; the news crosses from the worker thread as a queued call.
//
// The status bar shows the current recording's size as it grows, against its cap ("rec 12.3 MiB
// of 256 MiB"), and says when it stopped. File > Recording Settings… sets the cap and how much the
// recordings folder keeps: when a recording starts, the oldest recordings go until the folder is
// within recording/keepMegabytes (default 2 GiB); the messages say how many went.
//
// A restart (LocalEventSource::sessionRestarted) closes the recording and starts a new file, so
// each recording is one run from its initial weights.
//
// Replay: openTrace() stops the current source, replays the trace into the shared store through
// a ReplayEventSource that becomes the window's source, and shows the model: the recent file whose
// hash matches the trace's, else the operators the trace announced. The layers panel and the
// graph show the trainability the trace announced for the replay's position, as it was there.
//
//   ReplayController replay(store);
//   replay.install(&window);
//   replay.openTrace("run.tstrace");
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <cstdint>
#include <map>
#include <memory>

#include "engine/core/status.h"
#include "engine/plan/trainability.h"
#include "ui/session/session_store.h"

class QAction;
class QDockWidget;
class QLabel;
class QTimer;

namespace trainscope {

class CompareWindow;
class MainWindow;
class ReplayEventSource;
class ReplayTimeline;
class TraceRecorder;

class ReplayController : public QObject {
  Q_OBJECT

 public:
  explicit ReplayController(std::shared_ptr<SessionStore> store, QObject* parent = nullptr);
  ~ReplayController() override;

  void install(MainWindow* window);

  Status openTrace(const QString& path);
  // Opens a CompareWindow on two traces (a window of its own, deleted on close).
  CompareWindow* compareTraces(const QString& path_a, const QString& path_b, QString* error);

  void setRecordingEnabled(bool enabled);
  bool recordingEnabled() const { return recording_enabled_; }
  void setRecordingDir(const QString& dir) { recording_dir_ = dir; }
  const QString& recordingDir() const { return recording_dir_; }
  // Caps the recordings created from now on (0 = use the setting again).
  void setRecordingMaxBytes(uint64_t bytes) { max_bytes_override_ = bytes; }
  // The cap a recording created now gets.
  uint64_t recordingMaxBytes() const;
  // recording/maxMegabytes from the app's QSettings in bytes; kDefaultMaxRecordingBytes when the
  // value is absent or not a positive number.
  static uint64_t RecordingMaxBytesSetting();
  // The recorder of the current local session (null when none is recorded).
  std::shared_ptr<TraceRecorder> currentRecorder() const { return recorder_; }
  // Attaches a recorder to the window's source when it is an unrecorded local session.
  void recordCurrentSource();
  // The window's local source restarted: its recording ended, the new run starts another.
  void recordRestartedRun();

  ReplayEventSource* replaySource() const { return replay_.get(); }
  ReplayTimeline* timeline() const { return timeline_; }
  QDockWidget* timelineDock() const { return dock_; }
  QAction* openTraceAction() const { return open_trace_action_; }
  QAction* compareAction() const { return compare_action_; }
  QAction* recordingSettingsAction() const { return settings_action_; }
  // The status bar's recording field (what updateRecordingStatus() last wrote).
  QLabel* recordingLabel() const { return recording_label_; }
  void updateRecordingStatus();
  // recording/keepMegabytes in bytes (kDefaultKeptRecordingBytes when absent or not positive).
  static uint64_t RecordingKeepBytesSetting();

 private:
  void openTraceInteractively(const QString& path);
  void chooseAndCompare();
  // Shows the model the trace was recorded with; false when none could be found.
  bool showModelOf(const QString& trace_path);
  // Shows the trainability the trace announced for the replay's position (when it changed).
  void showTrainabilityAtCursor();
  // GUI thread: tells the user, through the store's messages, why a recording ended.
  void reportRecordingStopped(const QString& text);

  std::shared_ptr<SessionStore> store_;
  QPointer<MainWindow> window_;
  std::unique_ptr<ReplayEventSource> replay_;
  std::shared_ptr<TraceRecorder> recorder_;
  ReplayTimeline* timeline_ = nullptr;
  QDockWidget* dock_ = nullptr;
  QAction* open_trace_action_ = nullptr;
  QAction* compare_action_ = nullptr;
  QAction* record_action_ = nullptr;
  QAction* settings_action_ = nullptr;
  QLabel* recording_label_ = nullptr;
  QTimer* recording_timer_ = nullptr;
  QString recording_dir_;
  uint64_t max_bytes_override_ = 0;
  bool recording_enabled_ = true;
  const std::map<uint16_t, TrainRank>* shown_trained_ops_ = nullptr;  // in replay_'s index
};

}  // namespace trainscope
