// SPDX-License-Identifier: Apache-2.0
//
// SessionHost: the one place that switches what the window shows. A session is a source of
// events (the local engine, a board, a replay) writing into the shared SessionStore, plus the
// model it trains. switchTo() stops the previous source, clears the store and makes the new one
// current; showModel() says which model the session trains and how, so every view draws that
// graph and the layers panel plans that model's memory with the session's optimizer and batch.
// The local, device and replay controllers all go through it.
//
// QtCore only; lives on the GUI thread.
//
//   host.switchTo(source);
//   host.showModel({graph, path, trainability, /*plannable=*/true, options, note});
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

#include "engine/core/training_options.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"
#include "ui/session/announced_model.h"
#include "ui/session/session_store.h"
#include "ui/session/sources/event_source.h"

namespace trainscope {

struct SessionModel {
  Graph graph;
  QString path;                     // the model file, or what the graph was built from
  TrainabilityConfig trainability;  // what the source trains now
  bool plannable = false;           // shapes are known: memory can be planned
  TrainingOptions options;          // the optimizer and batch the source trains with
  QString note;                     // where the options came from, or why nothing is planned
  bool trainable = true;            // false: shown read-only, its inference planned
};

// What a board or a recording announced, as the session's model: the matching file's graph when
// `file_graph` is given (planned with the announced optimizer and batch, onert-micro's defaults
// when the board did not say), else the announced op list, which has no shapes to plan.
SessionModel AnnouncedSessionModel(const AnnouncedModel& model, const Graph* file_graph,
                                   const QString& file_path);

class SessionHost : public QObject {
  Q_OBJECT

 public:
  explicit SessionHost(QObject* parent = nullptr);

  void setStore(std::shared_ptr<SessionStore> store) { store_ = std::move(store); }
  EventSource* source() const { return source_; }
  const SessionModel& model() const { return model_; }

  // Stops the current source unless it is `source`, clears the store, makes `source` (may be
  // null) current and emits sourceChanged.
  void switchTo(EventSource* source);
  // The model the current session trains; emits modelChanged.
  void showModel(SessionModel model);

 Q_SIGNALS:
  void sourceChanged(trainscope::EventSource* source);
  void modelChanged();

 private:
  std::shared_ptr<SessionStore> store_;
  QPointer<EventSource> source_;
  SessionModel model_;
};

}  // namespace trainscope
