// SPDX-License-Identifier: Apache-2.0
#include "ui/controllers/replay_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMetaObject>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include "engine/model/model.h"
#include "serial/protocol/messages.h"
#include "ui/session/app_settings.h"
#include "ui/session/recordings.h"
#include "ui/session/sources/local_event_source.h"
#include "ui/session/sources/replay_event_source.h"
#include "ui/session/sources/trace_recorder.h"
#include "ui/session/trainability.h"
#include "ui/widgets/common/dock_content.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/replay/compare_window.h"
#include "ui/widgets/replay/recording_settings_dialog.h"
#include "ui/widgets/replay/replay_timeline.h"

namespace trainscope {
namespace {

const QString kTraceFilter = QObject::tr("TrainScope traces (*.tstrace);;All files (*)");

// "local engine: demo.circle" -> "demo.circle"
QString ModelNameOf(const EventSource& source) {
  const QString text = source.description();
  const qsizetype colon = text.lastIndexOf(QStringLiteral(": "));
  return colon < 0 ? text : text.mid(colon + 2);
}

// What the Messages dock shows when a recording ends early.
QString DescribeStop(const Status& why, bool capped, const QString& path) {
  QString text = QString::fromUtf8(why.message());
  if (!capped) {  // the cap's message already reads for the user
    text = QObject::tr("recording to %1 stopped: %2; training goes on")
               .arg(QDir::toNativeSeparators(path), text);
  }
  if (!text.isEmpty()) text[0] = text[0].toUpper();
  return text;
}

}  // namespace

ReplayController::ReplayController(std::shared_ptr<SessionStore> store, QObject* parent)
    : QObject(parent),
      store_(std::move(store)),
      replay_(std::make_unique<ReplayEventSource>(store_)),
      recording_dir_(TraceRecorder::DefaultRecordingDir()) {}

ReplayController::~ReplayController() {
  if (window_ && window_->eventSource() == replay_.get()) window_->setEventSource(nullptr);
}

void ReplayController::install(MainWindow* window) {
  window_ = window;
  open_trace_action_ = new QAction(tr("Open &Trace…"), window);
  open_trace_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  open_trace_action_->setStatusTip(tr("Replay a recorded session (.tstrace)"));
  connect(open_trace_action_, &QAction::triggered, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(window_, tr("Open Trace"), recording_dir_, kTraceFilter);
    if (!path.isEmpty()) openTraceInteractively(path);
  });
  compare_action_ = new QAction(tr("&Compare Traces…"), window);
  compare_action_->setStatusTip(tr("Overlay memory, loss and gradients of two recordings"));
  connect(compare_action_, &QAction::triggered, this, &ReplayController::chooseAndCompare);
  record_action_ = new QAction(tr("Record &Sessions"), window);
  record_action_->setCheckable(true);
  record_action_->setChecked(recording_enabled_);
  record_action_->setStatusTip(tr("Write every training session to a trace file in %1")
                                   .arg(QDir::toNativeSeparators(recording_dir_)));
  connect(record_action_, &QAction::toggled, this, &ReplayController::setRecordingEnabled);
  settings_action_ = new QAction(tr("Recording Se&ttings…"), window);
  settings_action_->setStatusTip(
      tr("How large a recording may grow and how much the recordings folder keeps"));
  connect(settings_action_, &QAction::triggered, this, [this] {
    RecordingSettingsDialog dialog(recording_dir_, recorder_ ? recorder_->path() : QString(),
                                   window_);
    dialog.exec();
  });
  window->addFileActions({open_trace_action_, compare_action_, record_action_, settings_action_});
  recording_label_ = new QLabel(window);
  recording_label_->setContentsMargins(6, 0, 6, 0);
  window->statusBar()->addPermanentWidget(recording_label_);
  recording_timer_ = new QTimer(this);
  recording_timer_->setInterval(500);
  connect(recording_timer_, &QTimer::timeout, this, &ReplayController::updateRecordingStatus);
  recording_timer_->start();

  timeline_ = new ReplayTimeline;
  timeline_->setSource(replay_.get());
  dock_ = new QDockWidget(tr("Replay"), window);
  dock_->setObjectName(QStringLiteral("replayDock"));
  SetScrollingDockWidget(dock_, timeline_);
  window->addDockWidget(Qt::BottomDockWidgetArea, dock_);
  dock_->hide();

  connect(window, &MainWindow::openTraceRequested, this, &ReplayController::openTraceInteractively);
  // Every session the window gets (a model opened, a new training setup) is recorded; a replay
  // that is no longer the window's source stops feeding the shared store.
  connect(window, &MainWindow::eventSourceChanged, this, [this](EventSource* source) {
    if (source != replay_.get()) replay_->stop();
    recordCurrentSource();
  });
  connect(replay_.get(), &ReplayEventSource::positionChanged, this,
          &ReplayController::showTrainabilityAtCursor);
  connect(replay_.get(), &EventSource::errorOccurred, window, [this](const QString& message) {
    EventBatch batch;
    batch.add(StatusMessage{MessageLevel::kWarning, message});
    store_->append(batch);
  });
  recordCurrentSource();
}

void ReplayController::setRecordingEnabled(bool enabled) {
  recording_enabled_ = enabled;
  if (record_action_) record_action_->setChecked(enabled);
  if (!enabled && recorder_) {
    if (window_ && window_->eventSource()) window_->eventSource()->setRecorder(nullptr);
    recorder_->close();
    recorder_.reset();
  } else if (enabled) {
    recordCurrentSource();
  }
}

void ReplayController::recordCurrentSource() {
  if (!window_ || !recording_enabled_) return;
  auto* local = qobject_cast<LocalEventSource*>(window_->eventSource());
  if (local == nullptr || local->model() == nullptr || local->recorder()) return;
  const Model& model = *local->model();
  const uint64_t hash = wire::ModelHash(model.bytes().data(), model.bytes().size());
  recorder_ = std::make_shared<TraceRecorder>(
      TraceRecorder::MakeRecordingPath(recording_dir_, ModelNameOf(*local)), model.graph(), hash,
      local->options());
  recorder_->setMaxBytes(recordingMaxBytes());
  // The session's choice until the source reports a change (it does so when its run starts).
  recorder_->trainabilityApplied(window_->layersPanel()->appliedTrainability());
  // Runs on the training worker: only a queued call crosses to the GUI thread. The application
  // object is the context (it outlives any controller); the QPointer is read on the GUI thread.
  const QPointer<ReplayController> self(this);
  const QString path = recorder_->path();
  recorder_->setOnStopped([self, path](const Status& why, bool capped) {
    QCoreApplication* app = QCoreApplication::instance();
    if (app == nullptr) return;
    const QString text = DescribeStop(why, capped, path);
    QMetaObject::invokeMethod(
        app,
        [self, text] {
          if (self) self->reportRecordingStopped(text);
        },
        Qt::QueuedConnection);
  });
  local->setRecorder(recorder_);
  const int removed = PruneRecordings(recording_dir_, RecordingKeepBytesSetting(), path);
  if (removed > 0) {
    reportRecordingStopped(tr("removed the %1 oldest recording(s) to keep the recordings folder "
                              "within %2 (File > Recording Settings)")
                               .arg(removed)
                               .arg(FormatBytes(RecordingKeepBytesSetting())));
  }
  updateRecordingStatus();
  // A restart ends this recording (the source lets it go); the restarted run gets a new file.
  connect(local, &LocalEventSource::sessionRestarted, this, &ReplayController::recordRestartedRun,
          Qt::UniqueConnection);
}

void ReplayController::recordRestartedRun() {
  if (recorder_) recorder_->close();
  recorder_.reset();
  recordCurrentSource();
}

uint64_t ReplayController::recordingMaxBytes() const {
  return max_bytes_override_ > 0 ? max_bytes_override_ : RecordingMaxBytesSetting();
}

uint64_t ReplayController::RecordingMaxBytesSetting() {
  return RecordingSettingsDialog::MaxMegabytes() << 20;
}

uint64_t ReplayController::RecordingKeepBytesSetting() {
  return RecordingSettingsDialog::KeepMegabytes() << 20;
}

void ReplayController::updateRecordingStatus() {
  if (recording_label_ == nullptr) return;
  if (!recorder_) {
    recording_label_->setText(recording_enabled_ ? QString() : tr("not recording"));
    recording_label_->setToolTip(tr("File > Record Sessions"));
    return;
  }
  const uint64_t bytes = recorder_->bytesWritten();
  const bool stopped = !recorder_->status().ok();
  recording_label_->setText(
      stopped ? tr("rec stopped at %1").arg(FormatBytes(bytes))
              : tr("rec %1 of %2").arg(FormatBytes(bytes), FormatBytes(recordingMaxBytes())));
  recording_label_->setToolTip(
      stopped ? QString::fromUtf8(recorder_->status().message())
              : tr("Recording to %1").arg(QDir::toNativeSeparators(recorder_->path())));
}

void ReplayController::reportRecordingStopped(const QString& text) {
  EventBatch batch;
  batch.add(StatusMessage{MessageLevel::kWarning, text});
  store_->append(batch);
}

bool ReplayController::showModelOf(const QString& trace_path) {
  const TraceIndex* index = replay_->index();
  if (index == nullptr) return false;
  const uint64_t hash = index->modelHash();
  QStringList candidates = window_->recentFiles();
  // A model kept next to its recordings counts too.
  for (const QFileInfo& sibling :
       QFileInfo(trace_path)
           .dir()
           .entryInfoList({QStringLiteral("*.circle"), QStringLiteral("*.tflite")}, QDir::Files)) {
    candidates << sibling.absoluteFilePath();
  }
  for (const QString& candidate : candidates) {
    if (hash == 0) break;
    std::vector<uint8_t> bytes;
    if (!ReadFileBytes(candidate.toStdString(), kMaxModelFileBytes, &bytes).ok()) continue;
    if (wire::ModelHash(bytes.data(), bytes.size()) != hash) continue;
    Model model;
    if (!Model::FromBytes(std::move(bytes), &model).ok()) continue;
    const Graph graph = model.graph();
    window_->sessionHost()->showModel(
        AnnouncedSessionModel(index->announcement.model(), &graph, candidate));
    return true;
  }
  if (!index->announced()) return false;
  SessionModel announced = AnnouncedSessionModel(index->announcement.model(), nullptr, trace_path);
  announced.path = trace_path;
  window_->sessionHost()->showModel(std::move(announced));
  return true;
}

void ReplayController::showTrainabilityAtCursor() {
  const TraceIndex* index = replay_->index();
  if (!window_ || index == nullptr || window_->eventSource() != replay_.get()) return;
  const std::map<uint16_t, TrainRank>* trained = TrainedOpsAt(*index, replay_->cursor());
  if (trained == nullptr || trained == shown_trained_ops_) return;
  shown_trained_ops_ = trained;
  const Graph& graph = window_->graph();
  if (graph.subgraphs.empty()) return;
  window_->showSourceTrainability(TrainabilityFromTrainedOps(graph.main(), *trained));
}

Status ReplayController::openTrace(const QString& path) {
  // One producer per store: any other source stops before the trace is read.
  if (window_) window_->sessionHost()->switchTo(replay_.get());
  shown_trained_ops_ = nullptr;  // points into the index open() replaces
  if (Status status = replay_->open(path); !status.ok()) {
    if (window_) window_->sessionHost()->switchTo(nullptr);
    return status;
  }
  if (window_) {
    showModelOf(path);
    shown_trained_ops_ = nullptr;  // the graph was just set, with the default trainability
    showTrainabilityAtCursor();
    dock_->show();
  }
  if (replay_->skips().any()) {
    Q_EMIT replay_->errorOccurred(
        tr("%1: %2").arg(QFileInfo(path).fileName(), replay_->skips().describe()));
  }
  return Status::Ok();
}

void ReplayController::openTraceInteractively(const QString& path) {
  const Status status = openTrace(path);
  if (!status.ok() && window_) {
    QMessageBox::warning(window_, tr("Cannot Open Trace"), QString::fromUtf8(status.message()));
  }
}

CompareWindow* ReplayController::compareTraces(const QString& path_a, const QString& path_b,
                                               QString* error) {
  auto* compare = new CompareWindow;
  compare->setAttribute(Qt::WA_DeleteOnClose);
  if (!compare->loadTraces(path_a, path_b, error)) {
    delete compare;
    return nullptr;
  }
  compare->show();
  return compare;
}

void ReplayController::chooseAndCompare() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      window_, tr("Choose Two Traces to Compare"), recording_dir_, kTraceFilter);
  if (paths.isEmpty()) return;
  if (paths.size() != 2) {
    QMessageBox::information(window_, tr("Compare Traces"),
                             tr("Select exactly two traces (%1 selected).").arg(paths.size()));
    return;
  }
  QString error;
  if (compareTraces(paths[0], paths[1], &error) == nullptr) {
    QMessageBox::warning(window_, tr("Cannot Compare"), error);
  }
}

}  // namespace trainscope
