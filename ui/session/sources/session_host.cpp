// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/session_host.h"

#include "ui/session/trainability.h"

namespace trainscope {

SessionModel AnnouncedSessionModel(const AnnouncedModel& model, const Graph* file_graph,
                                   const QString& file_path) {
  SessionModel session;
  const QString hash = QStringLiteral("%1").arg(model.hash, 16, 16, QLatin1Char('0'));
  if (file_graph == nullptr) {
    session.graph = BuildAnnouncedGraph(model);
    session.path = QStringLiteral("board model %1").arg(hash);
    session.note = QObject::tr(
                       "No memory plan: the announced op list has no shapes. Open the "
                       "board's model (hash %1) to plan it.")
                       .arg(hash);
  } else {
    session.graph = *file_graph;
    session.path = file_path;
    session.plannable = true;
  }
  const bool known = model.optimizer <= static_cast<uint8_t>(OptimizerKind::kAdam);
  if (known) session.options.optimizer = static_cast<OptimizerKind>(model.optimizer);
  if (model.batch_size > 0) session.options.batch_size = model.batch_size;
  if (session.plannable && (!known || model.batch_size == 0)) {
    session.note = QObject::tr(
                       "The board did not say its optimizer and batch: planned for %1, "
                       "batch %2.")
                       .arg(QLatin1String(OptimizerName(session.options.optimizer)))
                       .arg(session.options.batch_size);
  }
  if (!session.graph.subgraphs.empty() && !model.ops.empty()) {
    session.trainability = TrainabilityFromTrainedOps(session.graph.main(), model.trainedOps());
  }
  return session;
}

SessionHost::SessionHost(QObject* parent) : QObject(parent) {}

void SessionHost::switchTo(EventSource* source) {
  if (source_ && source_ != source) source_->stop();  // one producer per store
  source_ = nullptr;
  Q_EMIT sourceChanged(nullptr);
  if (store_) store_->clear();
  source_ = source;
  if (source_) Q_EMIT sourceChanged(source_);
}

void SessionHost::showModel(SessionModel model) {
  model_ = std::move(model);
  Q_EMIT modelChanged();
}

}  // namespace trainscope
