// SPDX-License-Identifier: Apache-2.0
//
// LayersPanel: choose which operators train, see what it costs before applying it. A table of
// the operators (LayersModel: trains checkbox, rank, warnings), a "last N layers" spin box, and a
// preview line with the heap peak, arena size and trained parameter count of the pending choice
// and their deltas against the applied one. The numbers come from an estimate callback the owner
// provides (the memory planner); without one, only the parameter count is shown.
//
// Apply emits trainabilityApplied(last_n, ranks) - the owner forwards it to the EventSource,
// which applies it at the next optimizer step - and Revert returns to the applied choice.
// undoApply()/redoApply() step through the choices applied since the graph was set, each
// re-applied the same way (applyHistoryChanged() tells when either becomes possible or not).
//
// "Export memory report…" (layers_panel_report.cpp) writes the pending choice's memory report in
// any format of ui/report, the same bytes `trainscope-cli report` writes for it.
//
// Files (layers_panel_files.cpp): an onert-micro train-config file (magic 29) or a model's
// CIRCLE_TRAINING metadata loads as a pending edit, previewed like any other, for the user to
// apply; a bad file changes nothing and its message (what, where) shows under the buttons.
// Saving writes the pending choice atomically (temporary file renamed into place): a
// train-config as explicit ranks, or the model file (setModelFile) with CIRCLE_TRAINING set from
// setTrainingOptions() and the pending choice.
//
// "Does it fit?" (layers_panel_fit.cpp): a RAM budget (the owner keeps it equal to the memory
// view's, setFitBudgetBytes) and a Fit button. The search (ui/widgets/layers/fit_summary.h, with
// the optimizer and batch of setTrainingOptions) runs on a worker thread while the panel stays
// usable; its answer becomes the pending choice, previewed against the applied one, for the user
// to apply. A budget nothing fits under changes nothing and says which budget would. A collapsed
// plot shows the best trainable parameters against the budget. fitFinished() reports the end.
//
//   LayersPanel panel;
//   panel.setGraph(model.graph());
//   panel.setEstimator([&](uint32_t n, const TrainRankMap& ranks) { return planner.Estimate(n,
//   ranks); }); connect(&panel, &LayersPanel::trainabilityApplied, source,
//   &EventSource::setTrainability);
#pragma once

#include <QList>
#include <QMetaType>
#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/training_options.h"
#include "engine/model/graph.h"
#include "ui/report/report_export.h"
#include "ui/session/trainability.h"

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;
class QThread;
class QToolButton;
class QCustomPlot;

namespace trainscope {

using TrainRankMap = std::map<uint16_t, TrainRank>;

// The report format a file name asks for by its suffix (".html", ".trace.json", ...); false
// when the suffix names none.
bool ReportFormatForPath(const QString& path, ReportFormat* format);

class LayersModel;
struct FitRun;

class LayersPanel : public QWidget {
  Q_OBJECT

 public:
  struct Estimate {
    uint64_t heap_peak_bytes = 0;
    uint64_t arena_bytes = 0;
    uint64_t trained_params = 0;
  };
  using Estimator = std::function<Estimate(uint32_t last_n, const TrainRankMap& ranks)>;

  explicit LayersPanel(QWidget* parent = nullptr);
  ~LayersPanel() override;
  // Docks start from this size; the content itself scales down much further.
  QSize sizeHint() const override { return QSize(480, 480); }

  void setGraph(const Graph& graph);
  // The estimates every session uses: ComputeMemoryReport of `graph` with the optimizer and batch
  // of `options` (also what setTrainingOptions() sets). An empty graph (shapes unknown) plans
  // nothing and shows `note` instead; `training` false plans one inference (a read-only model).
  void planMemoryOf(const Graph& graph, const TrainingOptions& options, const QString& note,
                    bool training = true);
  // Replaces the estimator (tests).
  void setEstimator(Estimator estimator);
  // The configuration the source runs with (e.g. read from a train-config file).
  void setAppliedTrainability(const TrainabilityConfig& config);
  const TrainabilityConfig& appliedTrainability() const;
  const TrainabilityConfig& pendingTrainability() const;
  // The pending edit differs from the applied choice.
  bool hasPendingChange() const;
  bool canUndoApply() const { return !undo_.empty(); }
  bool canRedoApply() const { return !redo_.empty(); }
  void setOpWarning(int op, const QString& text);
  void clearOpWarnings();
  // What "Save model with training metadata" starts from and writes.
  void setModelFile(const QString& path) { model_file_ = path; }
  // The optimizer and batch the estimates plan for (named in the preview) and reports carry.
  void setTrainingOptions(const TrainingOptions& options);
  // The figures the preview shows for the applied choice (what the state dump reports).
  Estimate appliedEstimate() const { return estimate(appliedTrainability()); }

  // The file actions behind the buttons (which only ask for the path). Each shows its outcome
  // in fileMessageLabel() and returns it.
  Status loadTrainConfig(const QString& path);
  Status saveTrainConfig(const QString& path) const;
  Status loadTrainingMetadata(const QString& model_path);
  Status saveModelWithTrainingMetadata(const QString& path) const;
  // The memory report (ui/report, as `trainscope-cli report` writes it) of the pending choice
  // with the optimizer and batch of setTrainingOptions() (layers_panel_report.cpp).
  Status exportMemoryReport(const QString& path, ReportFormat format) const;

  // "Does it fit?": the budget the next search uses (whole bytes; the spin box shows KiB).
  void setFitBudgetBytes(uint64_t bytes);
  uint64_t fitBudgetBytes() const { return fit_budget_bytes_; }
  bool fitRunning() const { return fit_running_; }
  // The last finished search (null before the first); its answer is the pending choice when it
  // fits.
  const FitRun* lastFit() const { return last_fit_.get(); }

  LayersModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QSpinBox* lastNSpinBox() const { return last_n_spin_; }
  QLabel* previewLabel() const { return preview_; }
  QPushButton* applyButton() const { return apply_button_; }
  QPushButton* revertButton() const { return revert_button_; }
  QLabel* fileMessageLabel() const { return file_message_; }
  QSpinBox* fitBudgetSpinBox() const { return fit_budget_spin_; }
  QPushButton* fitButton() const { return fit_button_; }
  QLabel* fitMessageLabel() const { return fit_message_; }
  QToolButton* fitCurveToggle() const { return fit_curve_toggle_; }
  QCustomPlot* fitCurvePlot() const { return fit_plot_; }

 public Q_SLOTS:
  void apply();
  void revert();
  void undoApply();
  void redoApply();
  void selectOps(const QList<int>& ops);
  // Starts the search for fitBudgetBytes() on a worker thread; ignored while one runs.
  void startFit();
  // Asks for a file (the format follows its name or the chosen filter) and exports to it.
  void exportMemoryReportDialog();

 Q_SIGNALS:
  void trainabilityApplied(uint32_t last_n, const trainscope::TrainRankMap& ranks);
  void opsSelected(const QList<int>& ops);
  // A search ended (its answer, if any, is already the pending choice); `fits` is false for
  // "nothing fits" and for a search error.
  void fitFinished(bool fits);
  void applyHistoryChanged();

 private:
  void updatePreview();
  // Makes `config` the applied choice and tells the owner, as Apply does.
  void applyConfig(const TrainabilityConfig& config);
  Estimate estimate(const TrainabilityConfig& config) const;
  QString plan_note_;
  bool plan_training_ = true;
  QLayout* createFileButtons();
  void setPendingFromFile(const TrainabilityConfig& config);
  Status report(Status status, const QString& success) const;
  QLayout* createFitControls();
  void finishFit(std::shared_ptr<const FitRun> run, uint64_t generation);
  void plotFitCurve();
  void waitForFit();

  LayersModel* model_ = nullptr;
  QTableView* table_ = nullptr;
  QSpinBox* last_n_spin_ = nullptr;
  QLabel* preview_ = nullptr;
  QPushButton* apply_button_ = nullptr;
  QPushButton* revert_button_ = nullptr;
  QLabel* file_message_ = nullptr;
  Estimator estimator_;
  QString model_file_;
  TrainingOptions training_options_;
  bool selecting_ = false;
  std::vector<TrainabilityConfig> undo_;  // earlier applied choices, newest last
  std::vector<TrainabilityConfig> redo_;

  QSpinBox* fit_budget_spin_ = nullptr;
  QPushButton* fit_button_ = nullptr;
  QToolButton* fit_curve_toggle_ = nullptr;
  QLabel* fit_message_ = nullptr;
  QCustomPlot* fit_plot_ = nullptr;
  uint64_t fit_budget_bytes_ = 64 * 1024;
  bool fit_running_ = false;
  uint64_t fit_generation_ = 0;  // bumped by setGraph: a search of an older graph is dropped
  QPointer<QThread> fit_thread_;
  std::shared_ptr<const FitRun> last_fit_;
};

}  // namespace trainscope

Q_DECLARE_METATYPE(trainscope::TrainRankMap)
