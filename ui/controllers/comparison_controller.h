// SPDX-License-Identifier: Apache-2.0
//
// ComparisonController: the Comparison dock (ComparisonView) wired into a MainWindow. install()
// adds File > Open Comparison… (Ctrl+Shift+D), which reads a `trainscope-cli diff --json FILE
// --values` report and shows it tabbed with the memory view. The graph follows the comparison
// when it fits the model on screen (CheckFitsModel): the first divergent op under the view's
// thresholds carries the graph's divergence mark, and selecting an op or tensor in the comparison
// selects the op in the graph and the panels (and the other way round). When the report was made
// with another model, that model is opened (openRequested) if its file exists; otherwise, or if it
// does not fit either, the view says why the graph cannot follow.
//
//   ComparisonController comparison;
//   comparison.install(&window);
//   if (Status s = comparison.open(path); !s.ok()) ...
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include "engine/core/status.h"
#include "ui/session/step_comparison_file.h"

class QAction;
class QDockWidget;

namespace trainscope {

class ComparisonView;
class MainWindow;

class ComparisonController : public QObject {
  Q_OBJECT

 public:
  explicit ComparisonController(QObject* parent = nullptr);
  ~ComparisonController() override;

  void install(MainWindow* window);
  // Reads `path` and shows it; an error leaves the dock as it was.
  Status open(const QString& path);
  ComparisonView* view() const { return view_; }
  QDockWidget* dock() const { return dock_; }
  QAction* openAction() const { return open_action_; }
  // Whether the graph follows the comparison (its model is the one on screen).
  bool linked() const { return linked_; }

 private:
  void chooseAndOpen();
  void linkModel();
  void markFirstDivergent(int op);
  void selectInWindow(int op);

  QPointer<MainWindow> window_;
  ComparisonView* view_ = nullptr;
  QDockWidget* dock_ = nullptr;
  QAction* open_action_ = nullptr;
  StepComparisonPtr file_;
  bool linked_ = false;
  QString requested_model_;  // asked to open once; not again if that failed
};

}  // namespace trainscope
