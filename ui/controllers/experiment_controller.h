// SPDX-License-Identifier: Apache-2.0
//
// ExperimentController: the Experiments dock (ExperimentsView) wired into a MainWindow. install()
// adds Training > Compare Trainability… (Ctrl+E), which shows the dock tabbed with the loss view.
// Its arms train the window's local session - the model's initial weights, its options and data -
// and it starts with the arms a user asks first: all layers against "last 2 layers". The Layers
// panel's applied and pending choices are offered as arms. A session that is not local (a board,
// a replay) leaves the dock saying why it cannot run.
//
//   ExperimentController experiments;
//   experiments.install(&window);
#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QDockWidget;

namespace trainscope {

class EventSource;
class ExperimentsView;
class MainWindow;

class ExperimentController : public QObject {
  Q_OBJECT

 public:
  explicit ExperimentController(QObject* parent = nullptr);
  ~ExperimentController() override;

  void install(MainWindow* window);
  ExperimentsView* view() const { return view_; }
  QDockWidget* dock() const { return dock_; }
  QAction* compareAction() const { return compare_action_; }

 private:
  void showSession();

  QPointer<MainWindow> window_;
  ExperimentsView* view_ = nullptr;
  QDockWidget* dock_ = nullptr;
  QAction* compare_action_ = nullptr;
};

}  // namespace trainscope
