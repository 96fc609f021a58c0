// SPDX-License-Identifier: Apache-2.0
//
// MainWindow: the event source and store, the status bar, files, settings and theme.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>

#include <algorithm>
#include <vector>

#include "ui/session/app_settings.h"
#include "ui/widgets/common/format.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/steady_label.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"
#include "ui/widgets/tensors/tensor_panel.h"

namespace trainscope {
namespace {

// The file name, and where two recent files share it (every onert-micro test is a model.circle),
// as many parent folders as it takes to tell them apart: "model.circle — kernels/add".
QStringList RecentFileLabels(const QStringList& paths) {
  const auto folders = [](const QString& path) {
    return QDir::fromNativeSeparators(QFileInfo(path).absolutePath()).split(QLatin1Char('/'));
  };
  QStringList labels;
  for (const QString& path : paths) {
    const QString name = QFileInfo(path).fileName();
    QStringList namesakes;
    for (const QString& other : paths) {
      if (other != path && QFileInfo(other).fileName() == name) namesakes << other;
    }
    if (namesakes.isEmpty()) {
      labels << name;
      continue;
    }
    const QStringList own = folders(path);
    qsizetype depth = 1;
    for (; depth < own.size(); ++depth) {
      bool clash = false;
      for (const QString& other : namesakes) {
        const QStringList theirs = folders(other);
        clash = clash || own.mid(own.size() - depth) == theirs.mid(theirs.size() - depth);
      }
      if (!clash) break;
    }
    labels << name + QStringLiteral(" — ") + own.mid(own.size() - depth).join(QLatin1Char('/'));
  }
  return labels;
}

QString OpLabel(const Graph& graph, uint32_t op) {
  if (graph.subgraphs.empty() || op >= graph.main().operators.size())
    return QStringLiteral("#%1").arg(op);
  const char* name = OpcodeName(graph.main().operators[op].opcode);
  return QStringLiteral("#%1 %2").arg(op).arg(name ? QLatin1String(name) : QLatin1String("?"));
}

}  // namespace

void MainWindow::setStore(std::shared_ptr<SessionStore> store) {
  store_ = std::move(store);
  session_host_->setStore(store_);
  messages_seen_ = 0;
  messages_->clear();
  graph_view_->setStore(store_);
  memory_view_->setStore(store_);
  gradients_view_->setStore(store_);
  loss_view_->setStore(store_);
  follower_->setStore(store_);
}

void MainWindow::setGraph(const Graph& graph, const QString& path) {
  graph_ = graph;
  model_path_ = path;
  graph_view_->setGraph(graph);
  memory_view_->setGraph(graph);
  gradients_view_->setGraph(graph);
  layers_panel_->setGraph(graph);
  tensor_panel_->setGraph(graph);
  loadBreakpoints(graph, path);
  graph_view_->setTrainability(layers_panel_->appliedTrainability());
  const QString name = path.isEmpty() ? tr("untitled model") : QFileInfo(path).fileName();
  setWindowTitle(tr("%1 — TrainScope").arg(name));
}

void MainWindow::showSessionModel() {
  const SessionModel& model = session_host_->model();
  setGraph(model.graph, model.path);
  if (model.trainability != TrainabilityConfig()) showSourceTrainability(model.trainability);
  layers_panel_->planMemoryOf(model.plannable ? model.graph : Graph(), model.options, model.note,
                              model.trainable);
  memory_view_->setSetupText(model.plannable
                                 ? tr("%1 · batch %2")
                                       .arg(QLatin1String(OptimizerName(model.options.optimizer)))
                                       .arg(model.options.batch_size)
                                 : model.note);
}

void MainWindow::showSourceTrainability(const TrainabilityConfig& config) {
  if (graph_.subgraphs.empty() || !ValidateTrainabilityConfig(graph_.main(), config).ok()) return;
  layers_panel_->setAppliedTrainability(config);
  graph_view_->setTrainability(config);
}

void MainWindow::setEventSource(EventSource* source) {
  if (source_) disconnect(source_, nullptr, this, nullptr);
  source_ = source;
  tensor_panel_->setSource(source_);
  if (source_) {
    connect(source_, &EventSource::stateChanged, this, &MainWindow::updateActions);
    connect(source_, &EventSource::errorOccurred, this, &MainWindow::showSourceError);
    if (!store_ || store_ != source_->store()) setStore(source_->store());
    connectBreakpoints();
  }
  updateActions();
  Q_EMIT eventSourceChanged(source_);
}

void MainWindow::runOrContinue() {
  if (!source_) return;
  if (!confirmPendingTrainability()) return;
  if (source_->state() == EventSource::State::kPaused) {
    source_->resume();
    return;
  }
  if (!confirmAnotherSchedule()) return;
  if (source_) source_->start();
}

bool MainWindow::confirmPendingTrainability() {
  if (!layers_panel_->hasPendingChange()) return true;
  const int choice =
      prompt(tr("Trainable layers not applied"),
             tr("The Layers panel holds a change that is not applied yet. Training now runs the "
                "applied layers unless the change is applied first."),
             {tr("&Apply and Run"), tr("Run &As Is")});
  if (choice < 0) return false;
  if (choice == 0) layers_panel_->apply();
  return true;
}

bool MainWindow::confirmAnotherSchedule() {
  const QString finished = source_ ? source_->finishedSchedule() : QString();
  if (finished.isEmpty()) return true;
  QStringList choices{tr("&Train Another Schedule")};
  if (source_->canRestart()) choices << tr("&Restart from Initial Weights");
  const int choice = prompt(tr("Training finished"),
                            tr("This session %1. Run again trains another schedule from the "
                               "weights reached.")
                                .arg(finished),
                            choices);
  if (choice < 0) return false;
  if (choice == 1 && source_ && !source_->restart().ok()) return false;
  return source_ != nullptr;
}

void MainWindow::restartRun() {
  if (!source_ || !source_->canRestart()) return;
  if (!confirmPendingTrainability()) return;
  if (source_->restart().ok() && source_) source_->start();
}

int MainWindow::prompt(const QString& title, const QString& text, const QStringList& choices) {
  if (prompt_) return prompt_(title, text, choices);
  QMessageBox box(QMessageBox::Question, title, text, QMessageBox::NoButton, this);
  std::vector<QAbstractButton*> buttons;
  for (const QString& choice : choices) {
    buttons.push_back(box.addButton(choice, QMessageBox::AcceptRole));
  }
  box.addButton(QMessageBox::Cancel);
  if (!buttons.empty()) box.setDefaultButton(qobject_cast<QPushButton*>(buttons.front()));
  box.exec();
  const auto taken = std::find(buttons.begin(), buttons.end(), box.clickedButton());
  return taken == buttons.end() ? -1 : static_cast<int>(taken - buttons.begin());
}

void MainWindow::updateUndoActions() {
  undo_trainability_action_->setEnabled(layers_panel_->canUndoApply());
  redo_trainability_action_->setEnabled(layers_panel_->canRedoApply());
}

void MainWindow::updateActions() {
  const EventSource::State state = source_ ? source_->state() : EventSource::State::kStopped;
  const bool has_source = source_ != nullptr;
  // A source that takes no run command now (a board that finished) says why on every action.
  const QString unavailable = has_source ? source_->commandsUnavailable() : QString();
  const bool commands = has_source && unavailable.isEmpty();
  run_action_->setEnabled(commands && state != EventSource::State::kRunning);
  run_action_->setText(state == EventSource::State::kPaused ? tr("&Continue") : tr("&Run"));
  pause_action_->setEnabled(commands && state == EventSource::State::kRunning);
  for (QAction* step : {step_op_action_, step_sample_action_, step_batch_action_}) {
    step->setEnabled(commands);
  }
  for (QAction* action :
       {run_action_, pause_action_, step_op_action_, step_sample_action_, step_batch_action_}) {
    const QString usual = TipWithShortcut(action->statusTip(), action->shortcut());
    action->setToolTip(unavailable.isEmpty() ? usual : unavailable);
  }
  stop_action_->setEnabled(has_source && state != EventSource::State::kStopped);
  restart_action_->setEnabled(has_source && source_->canRestart());
  state_label_->setText(has_source
                            ? source_->description() + QStringLiteral(": ") + source_->stateText()
                            : tr("no source"));
  state_label_->setToolTip(unavailable);
}

void MainWindow::showSourceError(const QString& message) {
  statusBar()->showMessage(message, 15000);
  auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxCritical), message);
  messages_->addItem(item);
  messages_->scrollToBottom();
}

void MainWindow::updateStatus(const SessionSnapshot& snapshot) {
  const BackwardProgress& progress = snapshot.progress;
  step_label_->setSteadyText(tr("epoch %1 · optimizer step %2 · sample %3")
                                 .arg(progress.epoch)
                                 .arg(progress.optimizer_step)
                                 .arg(progress.sample));
  if (progress.has_backward_step) {
    backward_label_->setSteadyText(
        tr("backward step %1 / op %2%3")
            .arg(progress.backward_step)
            .arg(OpLabel(graph_, progress.op_index),
                 progress.backward_step_running ? tr(" (running)") : QString()));
  } else {
    backward_label_->setSteadyText(tr("%1 phase").arg(QLatin1String(PhaseName(progress.phase))));
  }
  memory_label_->setSteadyText(
      tr("memory %1 · peak %2")
          .arg(FormatBytes(snapshot.currentBytes()), FormatBytes(snapshot.peakBytes())));

  const std::vector<StatusMessage>& messages = *snapshot.messages;
  const uint64_t total = snapshot.messages_dropped + messages.size();
  if (total < messages_seen_) messages_seen_ = 0;  // the store was cleared
  const uint64_t fresh = std::min<uint64_t>(total - messages_seen_, messages.size());
  for (size_t i = messages.size() - fresh; i < messages.size(); ++i) {
    const StatusMessage& message = messages[i];
    const QStyle::StandardPixmap icon =
        message.level == MessageLevel::kError
            ? QStyle::SP_MessageBoxCritical
            : (message.level == MessageLevel::kWarning ? QStyle::SP_MessageBoxWarning
                                                       : QStyle::SP_MessageBoxInformation);
    messages_->addItem(new QListWidgetItem(style()->standardIcon(icon), message.text));
  }
  if (fresh > 0) messages_->scrollToBottom();
  messages_seen_ = total;
}

QString MainWindow::statusText() const {
  return QStringList{state_label_->text(), step_label_->text(), backward_label_->text(),
                     memory_label_->text()}
      .join(QStringLiteral(" | "));
}

bool MainWindow::IsModelFile(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  return suffix == QLatin1String("circle") || suffix == QLatin1String("tflite") ||
         suffix == QLatin1String("tstrace");
}

void MainWindow::openFileDialog() {
  const QStringList recent = recentFiles();
  const QString dir =
      recent.isEmpty() ? QDir::homePath() : QFileInfo(recent.front()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Model"), dir,
      tr("Models and traces (*.circle *.tflite *.tstrace);;All files (*)"));
  if (path.endsWith(QLatin1String(".tstrace"), Qt::CaseInsensitive)) {
    Q_EMIT openTraceRequested(path);
  } else if (!path.isEmpty()) {
    Q_EMIT openRequested(path);
  }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!event->mimeData()->hasUrls()) return;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile() && IsModelFile(url.toLocalFile())) {
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile() && IsModelFile(url.toLocalFile())) {
      event->acceptProposedAction();
      if (url.toLocalFile().endsWith(QLatin1String(".tstrace"), Qt::CaseInsensitive)) {
        Q_EMIT openTraceRequested(url.toLocalFile());
        return;
      }
      Q_EMIT openRequested(url.toLocalFile());
      return;
    }
  }
}

QStringList MainWindow::recentFiles() const {
  QSettings settings = AppSettings();
  return settings.value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings settings = AppSettings();
  settings.setValue(QStringLiteral("recentFiles"), files);
  updateRecentMenu();
}

void MainWindow::removeRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(QFileInfo(path).absoluteFilePath());
  QSettings settings = AppSettings();
  settings.setValue(QStringLiteral("recentFiles"), files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recent_menu_->clear();
  const QStringList files = recentFiles();
  const QStringList labels = RecentFileLabels(files);
  for (int i = 0; i < files.size(); ++i) {
    const QString path = files[i];
    QAction* action = recent_menu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(labels[i]),
                                              this, [this, path] { Q_EMIT openRequested(path); });
    action->setToolTip(path);
    action->setStatusTip(path);
  }
  if (!files.isEmpty()) recent_menu_->addSeparator();
  QAction* clear = recent_menu_->addAction(tr("&Clear Menu"), this, [this] {
    QSettings settings = AppSettings();
    settings.remove(QStringLiteral("recentFiles"));
    updateRecentMenu();
  });
  clear->setEnabled(!files.isEmpty());
  recent_menu_->setEnabled(true);
}

void MainWindow::setThemeChoice(ThemeChoice choice) {
  theme_choice_ = choice;
  for (QAction* action : theme_group_->actions()) {
    action->setChecked(action->data().toInt() == static_cast<int>(choice));
  }
  applyTheme();
}

void MainWindow::applyTheme() {
  switch (theme_choice_) {
    case ThemeChoice::kSystem:
      QApplication::setPalette(system_palette_);
      break;
    case ThemeChoice::kLight:
      QApplication::setPalette(LightPalette());
      break;
    case ThemeChoice::kDark:
      QApplication::setPalette(DarkPalette());
      break;
  }
}

void MainWindow::saveSettings() const {
  QSettings settings = AppSettings();
  settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("mainWindow/state"), saveState(kLayoutVersion));
  settings.setValue(QStringLiteral("theme"), static_cast<int>(theme_choice_));
  settings.setValue(QStringLiteral("memory/budgetBytes"),
                    static_cast<qulonglong>(memory_view_->budgetBytes()));
}

void MainWindow::restoreSettings() {
  QSettings settings = AppSettings();
  restored_geometry_ = settings.value(QStringLiteral("mainWindow/geometry")).toByteArray();
  geometry_restored_ = restoreGeometry(restored_geometry_);
  restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray(), kLayoutVersion);
  memory_view_->setBudgetBytes(
      settings.value(QStringLiteral("memory/budgetBytes"), 0).toULongLong());
  const int theme = settings.value(QStringLiteral("theme"), 0).toInt();
  if (theme > 0 && theme <= 2) setThemeChoice(static_cast<ThemeChoice>(theme));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveSettings();
  QMainWindow::closeEvent(event);
}

}  // namespace trainscope
