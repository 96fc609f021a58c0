// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/main_window/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QScreen>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <algorithm>

#include "ui/widgets/common/dock_content.h"
#include "ui/widgets/common/snapshot_follower.h"
#include "ui/widgets/common/steady_label.h"
#include "ui/widgets/common/theme.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/memory/memory_view.h"
#include "ui/widgets/tensors/tensor_panel.h"

namespace trainscope {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  system_palette_ = QApplication::palette();
  setWindowTitle(QStringLiteral("TrainScope"));
  setObjectName(QStringLiteral("mainWindow"));
  setAcceptDrops(true);
  setDockOptions(AnimatedDocks | AllowNestedDocks | AllowTabbedDocks);
  // Qt wants a central widget; every view is a dock, so it is an empty, collapsed placeholder.
  auto* placeholder = new QWidget(this);
  placeholder->hide();
  setCentralWidget(placeholder);

  createDocks();
  createBreakpoints();
  createActions();
  createMenus();
  createStatusBar();
  createNoticeBar();

  follower_ = new SnapshotFollower(this);
  follower_->setCallback([this](const auto& snapshot) { updateStatus(*snapshot); });
  session_host_ = new SessionHost(this);
  connect(session_host_, &SessionHost::sourceChanged, this, &MainWindow::setEventSource);
  connect(session_host_, &SessionHost::modelChanged, this, &MainWindow::showSessionModel);

  connect(layers_panel_, &LayersPanel::trainabilityApplied, this,
          [this](uint32_t last_n, const TrainRankMap& ranks) {
            TrainabilityConfig config;
            config.num_train_layers = last_n;
            config.op_ranks = ranks;
            graph_view_->setTrainability(config);
            if (source_) source_->setTrainability(last_n, ranks);
          });
  connect(graph_view_, &GraphView::selectionChanged, this, [this](const QList<int>& ops) {
    layers_panel_->selectOps(ops);
    gradients_view_->selectOps(ops);
    tensor_panel_->selectOps(ops);
  });
  connect(layers_panel_, &LayersPanel::opsSelected, this, [this](const QList<int>& ops) {
    graph_view_->setSelectedOps(ops);
    gradients_view_->selectOps(ops);
    tensor_panel_->selectOps(ops);
  });

  resize(1600, 1000);
  default_state_ = saveState();
  restoreSettings();
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
  graph_view_ = new GraphView(this);
  memory_view_ = new MemoryView(this);
  gradients_view_ = new GradientsView(this);
  loss_view_ = new LossView(this);
  layers_panel_ = new LayersPanel(this);
  tensor_panel_ = new TensorPanel(this);
  messages_ = new QListWidget(this);
  messages_->setWordWrap(true);
  messages_->setAlternatingRowColors(true);

  auto dock = [this](QWidget* widget, const QString& title, const char* name) {
    auto* dock_widget = new QDockWidget(title, this);
    dock_widget->setObjectName(QLatin1String(name));  // saveState() finds docks by name
    SetScrollingDockWidget(dock_widget, widget);
    docks_.push_back(dock_widget);
    return dock_widget;
  };
  QDockWidget* graph = dock(graph_view_, tr("Graph"), "graphDock");
  QDockWidget* memory = dock(memory_view_, tr("Memory"), "memoryDock");
  QDockWidget* gradients = dock(gradients_view_, tr("Gradients"), "gradientsDock");
  QDockWidget* loss = dock(loss_view_, tr("Loss and metric"), "lossDock");
  QDockWidget* layers = dock(layers_panel_, tr("Layers"), "layersDock");
  QDockWidget* messages = dock(messages_, tr("Messages"), "messagesDock");
  QDockWidget* tensors = dock(tensor_panel_, tr("Tensor values"), "tensorsDock");

  addDockWidget(Qt::LeftDockWidgetArea, graph);
  addDockWidget(Qt::RightDockWidgetArea, memory);
  splitDockWidget(memory, layers, Qt::Horizontal);
  splitDockWidget(memory, gradients, Qt::Vertical);
  splitDockWidget(layers, loss, Qt::Vertical);
  tabifyDockWidget(loss, messages);
  tabifyDockWidget(gradients, tensors);
  loss->raise();
  gradients->raise();
}

void MainWindow::showTensorsOf(int op) {
  const QList<int> ops{op};
  graph_view_->setSelectedOps(ops);
  layers_panel_->selectOps(ops);
  gradients_view_->selectOps(ops);
  tensor_panel_->selectOps(ops);
  if (auto* dock = findChild<QDockWidget*>(QStringLiteral("tensorsDock"))) {
    dock->show();
    dock->raise();
  }
}

void MainWindow::applyDefaultSizes() {
  QSize size(1600, 1000);
  if (QScreen* screen = this->screen()) size = size.boundedTo(screen->availableGeometry().size());
  resize(size);
  const int width = size.width();
  QDockWidget* graph = findChild<QDockWidget*>(QStringLiteral("graphDock"));
  QDockWidget* memory = findChild<QDockWidget*>(QStringLiteral("memoryDock"));
  QDockWidget* gradients = findChild<QDockWidget*>(QStringLiteral("gradientsDock"));
  QDockWidget* layers = findChild<QDockWidget*>(QStringLiteral("layersDock"));
  QDockWidget* loss = findChild<QDockWidget*>(QStringLiteral("lossDock"));
  resizeDocks({graph, memory, layers}, {width * 33 / 100, width * 37 / 100, width * 30 / 100},
              Qt::Horizontal);
  resizeDocks({memory, gradients}, {1, 1}, Qt::Vertical);
  resizeDocks({layers, loss}, {56, 44}, Qt::Vertical);
}

void MainWindow::keepOnScreen() {
  // A layout saved on a bigger screen, or a screen that is gone, must not leave the window
  // larger than this one or its title bar out of reach.
  QScreen* screen = this->screen();
  if (screen == nullptr || isMaximized() || isFullScreen()) return;
  const QRect available = screen->availableGeometry();
  QRect frame = frameGeometry();
  const QSize decoration = frame.size() - size();
  const QSize fitted = size().boundedTo(available.size() - decoration);
  if (fitted != size()) resize(fitted);
  frame = frameGeometry();
  const int x = std::clamp(frame.x(), available.left(),
                           std::max(available.left(), available.right() + 1 - frame.width()));
  const int y = std::clamp(frame.y(), available.top(),
                           std::max(available.top(), available.bottom() + 1 - frame.height()));
  if (x != frame.x() || y != frame.y()) move(x, y);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (shown_once_) return;
  shown_once_ = true;
  // The first show() activates the dock layout with a minimum width from before the views were
  // laid out (wider than most screens), which grows the window. Recomputing the minimum and
  // then applying the intended size undoes that.
  layout()->invalidate();
  layout()->activate();
  if (geometry_restored_) {
    restoreGeometry(restored_geometry_);
    keepOnScreen();
  } else {
    applyDefaultSizes();
  }
}

QString MainWindow::TipWithShortcut(const QString& tip, const QKeySequence& shortcut) {
  return shortcut.isEmpty() ? tip
                            : tip + QStringLiteral(" (") +
                                  shortcut.toString(QKeySequence::NativeText) + QLatin1Char(')');
}

void MainWindow::createActions() {
  QStyle* style = this->style();
  auto make = [this](const QIcon& icon, const QString& text, const QKeySequence& shortcut,
                     const QString& tip) {
    auto* action = new QAction(icon, text, this);
    action->setShortcut(shortcut);
    action->setToolTip(TipWithShortcut(tip, shortcut));
    action->setStatusTip(tip);
    return action;
  };
  run_action_ = make(style->standardIcon(QStyle::SP_MediaPlay), tr("&Run"),
                     QKeySequence(Qt::Key_F5), tr("Start training, or continue after a pause"));
  pause_action_ = make(style->standardIcon(QStyle::SP_MediaPause), tr("&Pause"),
                       QKeySequence(Qt::Key_F6), tr("Pause at the next event boundary"));
  step_op_action_ =
      make(style->standardIcon(QStyle::SP_MediaSeekForward), tr("Step Backward &Op"),
           QKeySequence(Qt::Key_F10), tr("Run one backward step (one operator), then pause"));
  step_sample_action_ =
      make(style->standardIcon(QStyle::SP_MediaSkipForward), tr("Step &Sample"),
           QKeySequence(Qt::Key_F11), tr("Run to the end of the sample, then pause"));
  step_batch_action_ =
      make(style->standardIcon(QStyle::SP_ArrowForward), tr("Step &Batch"),
           QKeySequence(Qt::SHIFT | Qt::Key_F11), tr("Run to the next optimizer step, then pause"));
  stop_action_ =
      make(style->standardIcon(QStyle::SP_MediaStop), tr("S&top"),
           QKeySequence(Qt::SHIFT | Qt::Key_F5), tr("Stop training; Run then starts over"));
  restart_action_ =
      make(style->standardIcon(QStyle::SP_BrowserReload), tr("R&estart"),
           QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
           tr("Start again from the initial weights, optimizer state and data order"));
  connect(restart_action_, &QAction::triggered, this, &MainWindow::restartRun);
  undo_trainability_action_ = make(QIcon(), tr("&Undo Trainability Change"), QKeySequence::Undo,
                                   tr("Apply the previous trainable layers"));
  redo_trainability_action_ = make(QIcon(), tr("&Redo Trainability Change"), QKeySequence::Redo,
                                   tr("Apply the undone trainable layers again"));
  connect(undo_trainability_action_, &QAction::triggered, layers_panel_, &LayersPanel::undoApply);
  connect(redo_trainability_action_, &QAction::triggered, layers_panel_, &LayersPanel::redoApply);
  connect(layers_panel_, &LayersPanel::applyHistoryChanged, this, &MainWindow::updateUndoActions);
  updateUndoActions();
  connect(run_action_, &QAction::triggered, this, &MainWindow::runOrContinue);
  connect(pause_action_, &QAction::triggered, this, [this] {
    if (source_) source_->pause();
  });
  connect(step_op_action_, &QAction::triggered, this, [this] {
    if (source_) source_->stepBackwardOp();
  });
  connect(step_sample_action_, &QAction::triggered, this, [this] {
    if (source_) source_->stepSample();
  });
  connect(step_batch_action_, &QAction::triggered, this, [this] {
    if (source_) source_->stepBatch();
  });
  connect(stop_action_, &QAction::triggered, this, [this] {
    if (source_) source_->stop();
  });

  open_action_ = make(style->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open Model…"),
                      QKeySequence::Open, tr("Open a .circle or .tflite model"));
  connect(open_action_, &QAction::triggered, this, &MainWindow::openFileDialog);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  menus_[Menu::kFile] = file;
  file->addAction(open_action_);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  file->addSeparator();
  QAction* export_report = file->addAction(tr("Export &Memory Report…"), layers_panel_,
                                           &LayersPanel::exportMemoryReportDialog);
  export_report->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
  export_report->setToolTip(
      tr("The memory report of the layers panel's choice, as HTML, PDF, "
         "JSON, CSV, Mondrian or Chrome trace"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  menus_[Menu::kEdit] = edit;
  edit->addAction(undo_trainability_action_);
  edit->addAction(redo_trainability_action_);
  edit->addSeparator();
  edit->addAction(graph_view_->findAction());

  view_menu_ = menuBar()->addMenu(tr("&View"));
  menus_[Menu::kView] = view_menu_;
  for (QDockWidget* dock : docks_) view_menu_->addAction(dock->toggleViewAction());
  view_menu_->addSeparator();
  QMenu* theme = view_menu_->addMenu(tr("&Theme"));
  theme_group_ = new QActionGroup(this);
  const QString names[] = {tr("Follow &System"), tr("&Light"), tr("&Dark")};
  for (int i = 0; i < 3; ++i) {
    QAction* action = theme->addAction(names[i]);
    action->setCheckable(true);
    action->setData(i);
    theme_group_->addAction(action);
    connect(action, &QAction::triggered, this,
            [this, i] { setThemeChoice(static_cast<ThemeChoice>(i)); });
  }
  theme_group_->actions().front()->setChecked(true);
  view_menu_->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);

  QMenu* debug = menuBar()->addMenu(tr("&Debug"));
  menus_[Menu::kDebug] = debug;
  menus_[Menu::kTraining] = menuBar()->addMenu(tr("&Training"));
  menus_[Menu::kDevice] = menuBar()->addMenu(tr("&Device"));
  menus_[Menu::kTraining]->menuAction()->setVisible(false);
  menus_[Menu::kDevice]->menuAction()->setVisible(false);
  for (QAction* action :
       {run_action_, pause_action_, step_op_action_, step_sample_action_, step_batch_action_}) {
    debug->addAction(action);
  }
  debug->addSeparator();
  debug->addAction(toggle_breakpoint_action_);
  debug->addSeparator();
  debug->addAction(stop_action_);
  debug->addAction(restart_action_);

  QToolBar* toolbar = addToolBar(tr("Debug"));
  debug_toolbar_ = toolbar;
  toolbar->setObjectName(QStringLiteral("debugToolbar"));
  toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolbar->addAction(open_action_);
  toolbar->addSeparator();
  for (QAction* action : {run_action_, pause_action_, step_op_action_, step_sample_action_,
                          step_batch_action_, stop_action_, restart_action_}) {
    toolbar->addAction(action);
  }
  view_menu_->insertAction(view_menu_->actions().value(docks_.size()), toolbar->toggleViewAction());
  updateRecentMenu();
  createHelpMenu();
}

QMenu* MainWindow::menu(Menu which) const {
  QMenu* found = menus_.at(which);
  found->menuAction()->setVisible(true);
  return found;
}

void MainWindow::addFileActions(const QList<QAction*>& actions) {
  QMenu* file = menu(Menu::kFile);
  QAction* before = nullptr;
  for (QAction* action : file->actions()) {
    if (action->isSeparator()) {
      before = action;
      break;
    }
  }
  file->insertActions(before, actions);
}

void MainWindow::createNoticeBar() {
  notice_bar_ = new QToolBar(tr("Notices"), this);
  notice_bar_->setObjectName(QStringLiteral("noticeBar"));
  notice_bar_->setMovable(false);
  notice_bar_->setFloatable(false);
  notice_bar_->toggleViewAction()->setVisible(false);
  notice_label_ = new QLabel(notice_bar_);
  notice_label_->setWordWrap(true);
  notice_label_->setTextFormat(Qt::PlainText);
  // Expanding, word-wrapped: a long notice takes more lines, never a wider window.
  notice_label_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  notice_label_->setContentsMargins(8, 4, 8, 4);
  notice_bar_->addWidget(notice_label_);
  addToolBarBreak(Qt::TopToolBarArea);  // a row of its own, the window's width
  addToolBar(Qt::TopToolBarArea, notice_bar_);
  notice_bar_->hide();
}

void MainWindow::setNotices(const QStringList& notices) {
  notices_ = notices;
  notice_label_->setText(notices.join(QLatin1Char('\n')));
  notice_label_->setToolTip(notice_label_->text());
  const ViewTheme theme = ViewTheme::fromPalette(palette());
  QColor background = theme.error;
  background.setAlpha(40);
  notice_label_->setStyleSheet(
      QStringLiteral("background-color: %1;").arg(background.name(QColor::HexArgb)));
  notice_bar_->setVisible(!notices.isEmpty());
}

void MainWindow::createStatusBar() {
  state_label_ = new QLabel(this);
  step_label_ = new SteadyLabel(this);
  backward_label_ = new SteadyLabel(this);
  memory_label_ = new SteadyLabel(this);
  for (QLabel* label :
       std::initializer_list<QLabel*>{state_label_, step_label_, backward_label_, memory_label_}) {
    label->setContentsMargins(6, 0, 6, 0);
    statusBar()->addPermanentWidget(label);
  }
}

QAction* MainWindow::action(Command command) const {
  switch (command) {
    case Command::kRun:
      return run_action_;
    case Command::kPause:
      return pause_action_;
    case Command::kStepBackwardOp:
      return step_op_action_;
    case Command::kStepSample:
      return step_sample_action_;
    case Command::kStepBatch:
      return step_batch_action_;
    case Command::kStop:
      return stop_action_;
    case Command::kRestart:
      return restart_action_;
  }
  return nullptr;
}

void MainWindow::resetLayout() {
  for (QDockWidget* dock : docks_) dock->show();
  restoreState(default_state_);
  applyDefaultSizes();
}

}  // namespace trainscope
