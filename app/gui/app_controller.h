// SPDX-License-Identifier: Apache-2.0
//
// AppController: what the desktop app does when it opens a model. It loads the model and its
// training data (the files given, or - for a model opened alone - random samples of the right
// shape, announced in the messages), starts an LocalEventSource on it, and connects the main
// window: graph, layers panel estimates (exact plans, computed per edit), onert-micro difference
// warnings per operator, recent files and File > Open.
//
// Training > Speed (and the Speed box in the Debug toolbar) paces the local engine in optimizer
// steps per second, from full speed down to rates where each backward step can be watched; the
// choice is remembered and applies to every session opened.
//
// Training > Set up training (Ctrl+T) opens a TrainingSetupDialog pre-filled with the running
// setup; OK reloads the session with the new options and data (keeping the applied
// trainability) and remembers the setup for that model in QSettings, so opening the model again
// starts from it. Files given on the command line win over the remembered data.
//
//   AppController controller(&window, store);
//   controller.open(DemoPaths());
//   controller.applySetup(edited);  // what the dialog's OK does
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QAction;
class QActionGroup;
class QComboBox;

#include "app/common/training_args.h"
#include "engine/core/status.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/local_event_source.h"
#include "ui/session/training_setup.h"

namespace trainscope {

class MainWindow;

struct SessionFiles {
  QString model;
  QStringList inputs;  // one per graph input; empty: random samples
  QString target;
  QStringList test_inputs;
  QString test_target;
};

// The bundled demo next to the executable (build tree or installed share/trainscope/demo).
SessionFiles DemoSessionFiles();

// Resolves a model's training setup (options and trainability) the way trainscope-cli does:
// cli::DefaultTrainingSetup, or cli::ParseTrainingSetup over the command line's options.
using SetupResolver = std::function<Status(const Model& model, cli::TrainingSetup* setup)>;

class AppController : public QObject {
  Q_OBJECT

 public:
  AppController(MainWindow* window, std::shared_ptr<SessionStore> store, QObject* parent = nullptr);
  ~AppController() override;

  // Opens `files`. Without `resolve` the setup remembered for the model is used, else the one
  // every program starts from (cli::DefaultTrainingSetup); with it (the command line's training
  // options) that setup, and nothing remembered.
  Status open(const SessionFiles& files, const SetupResolver& resolve = {});
  LocalEventSource* source() const { return source_.get(); }
  // The setup the running session was loaded with; what the dialog shows.
  const TrainingSetupRequest& currentSetup() const { return setup_; }
  const QString& modelPath() const { return model_path_; }
  // Reloads the open model with `setup` and remembers it; on failure the running session stays
  // and the message goes to the message list as well.
  Status applySetup(const TrainingSetupRequest& setup);
  QAction* setupAction() const { return setup_action_; }
  // The speeds offered, in optimizer steps per second (0: full speed).
  static const std::vector<double>& SpeedChoices();
  void setStepsPerSecond(double rate);
  double stepsPerSecond() const { return steps_per_second_; }
  QComboBox* speedBox() const { return speed_box_; }

  // Remembered per model (absolute path) in QSettings.
  static void RememberSetup(const QString& model_path, const TrainingSetupRequest& setup);
  static bool RecallSetup(const QString& model_path, TrainingSetupRequest* setup);

 public Q_SLOTS:
  void openModel(const QString& path);
  void showSetupDialog();

 private:
  void applyWarnings(const TrainabilityConfig& config);
  void createMenu();
  // The setup a model starts from when nothing was remembered: cli::DefaultTrainingSetup.
  static Status DefaultSetup(const Model& model, TrainingSetupRequest* setup,
                             TrainabilityConfig* trainability);
  // Sample count and test set of the built-in data (demo files or random samples).
  void describeBuiltinData(const QString& model_path, const Subgraph& main,
                           TrainingSetupRequest* setup) const;
  Status buildData(const Subgraph& main, const TrainingSetupRequest& setup, LocalSetup* data) const;
  Status load(const QString& model_path, Model model, const TrainingSetupRequest& setup,
              const TrainabilityConfig& trainability);
  Status fail(Status status, const QString& model_path);
  void showReadOnly(const QString& model_path, const Graph& graph, const Status& why);
  QStringList setupNotices(const QString& model_path, const Subgraph& main,
                           const TrainingSetupRequest& setup) const;

  MainWindow* window_;
  std::shared_ptr<SessionStore> store_;
  std::unique_ptr<LocalEventSource> source_;
  QString model_path_;
  TrainingSetupRequest setup_;
  QAction* setup_action_ = nullptr;
  QComboBox* speed_box_ = nullptr;
  QActionGroup* speed_menu_group_ = nullptr;
  double steps_per_second_ = 0.0;
};

}  // namespace trainscope
