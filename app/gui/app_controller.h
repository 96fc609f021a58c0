// SPDX-License-Identifier: Apache-2.0
//
// AppController: what the desktop app does when it opens a model. It loads the model and its
// training data (the files given, or - for a model opened alone - random samples of the right
// shape, announced in the messages), starts an EmbeddedEventSource on it, and connects the main
// window: graph, layers panel estimates (exact plans, computed per edit), onert-micro difference
// warnings per operator, recent files and File > Open.
//
//   AppController controller(&window, store);
//   controller.open(DemoPaths());
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

#include "engine/core/status.h"
#include "ui/embedded/embedded_event_source.h"
#include "ui/session/trace_store.h"

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

class AppController : public QObject {
  Q_OBJECT

 public:
  AppController(MainWindow* window, std::shared_ptr<TraceStore> store, QObject* parent = nullptr);
  ~AppController() override;

  // Options for every model opened later (optimizer, loss, batch, epochs ...).
  void setDefaults(const TrainingOptions& options) { defaults_ = options; }
  Status open(const SessionFiles& files);
  EmbeddedEventSource* source() const { return source_.get(); }

 public Q_SLOTS:
  void openModel(const QString& path);

 private:
  void applyWarnings(const TrainabilityConfig& config);

  MainWindow* window_;
  std::shared_ptr<TraceStore> store_;
  std::unique_ptr<EmbeddedEventSource> source_;
  TrainingOptions defaults_;
};

}  // namespace trainscope
