// SPDX-License-Identifier: Apache-2.0
//
// ExperimentsView: "is freezing these layers worth the RAM it saves?" answered in one dock. The
// user lists arms (trainability choices: all layers, last N layers, the Layers panel's applied
// or pending choice), picks how many epochs, and runs them all from the session's initial
// weights (ExperimentRunner, ui/session/experiment.h). Their mean loss and metric per epoch are
// overlaid, one colour per arm, and a table puts each arm's trained parameters, arena, heap peak
// (and its difference from the first arm), median step time, last loss and last metric side by
// side. The costs are PlanTrainabilityCost, the Layers panel's figures for the same choice.
//
// The view polls the runner's snapshots on a timer while it runs; the session's model, data and
// options come from the spec provider its owner sets (the local session), so the view itself
// knows nothing about sources.
//
//   view.setGraph(graph, options);
//   view.setSpecProvider([&](ExperimentSpec* spec) { return FillFromSession(spec); });
//   view.setArms({{"all layers", {}}, {"last 2 layers", last_two}});
//   view.run();
#pragma once

#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

#include "engine/model/graph.h"
#include "ui/session/experiment.h"

class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTimer;
class QToolButton;

namespace trainscope {

class ExperimentsView : public QWidget {
  Q_OBJECT

 public:
  // Fills the model bytes, options and data of `spec` (not its arms); an error is shown instead
  // of running.
  using SpecProvider = std::function<Status(ExperimentSpec* spec)>;
  // The Layers panel's applied and pending choices, offered as arms.
  using ChoiceProvider = std::function<TrainabilityConfig()>;

  explicit ExperimentsView(QWidget* parent = nullptr);
  ~ExperimentsView() override;
  QSize sizeHint() const override { return QSize(520, 560); }

  // The session's model and the optimizer and batch its arms are planned with before they run.
  void setGraph(const Graph& graph, const TrainingOptions& options);
  void setSpecProvider(SpecProvider provider) { spec_provider_ = std::move(provider); }
  void setChoiceProviders(ChoiceProvider applied, ChoiceProvider pending);
  void setArms(const std::vector<ExperimentArm>& arms);
  const std::vector<ExperimentArm>& arms() const { return arms_; }
  void addArm(const ExperimentArm& arm);
  void setEpochs(int epochs);

  // Starts the arms (false and a message on screen when the spec is refused); stop() cancels.
  bool run();
  void stop();
  bool running() const;
  // Pulls the latest snapshot into the plots and the table (the timer does this while running).
  void refresh();
  std::shared_ptr<const ExperimentSnapshot> snapshot() const;

  QTableWidget* table() const { return table_; }
  QCustomPlot* lossPlot() const { return loss_plot_; }
  QCustomPlot* metricPlot() const { return metric_plot_; }
  QLabel* statusLabel() const { return status_; }
  QSpinBox* epochsSpinBox() const { return epochs_; }
  QPushButton* runButton() const { return run_button_; }

 Q_SIGNALS:
  void finished();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  QWidget* createControls();
  void rebuildTable(const ExperimentSnapshot* snapshot);
  void plot(const ExperimentSnapshot& snapshot);
  void applyTheme();
  QColor armColor(size_t arm) const;
  ExperimentArm lastNArm() const;

  Graph graph_;
  TrainingOptions options_;
  std::vector<ExperimentArm> arms_;
  SpecProvider spec_provider_;
  ChoiceProvider applied_choice_;
  ChoiceProvider pending_choice_;
  std::unique_ptr<ExperimentRunner> runner_;
  std::shared_ptr<const ExperimentSnapshot> shown_;
  bool was_running_ = false;

  QTableWidget* table_ = nullptr;
  QCustomPlot* loss_plot_ = nullptr;
  QCustomPlot* metric_plot_ = nullptr;
  QLabel* status_ = nullptr;
  QSpinBox* epochs_ = nullptr;
  QSpinBox* last_n_ = nullptr;
  QToolButton* add_button_ = nullptr;
  QPushButton* remove_button_ = nullptr;
  QPushButton* run_button_ = nullptr;
  QPushButton* stop_button_ = nullptr;
  QTimer* timer_ = nullptr;
};

}  // namespace trainscope
