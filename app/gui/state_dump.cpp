// SPDX-License-Identifier: Apache-2.0
#include "app/gui/state_dump.h"

#include <QJsonArray>
#include <QJsonDocument>

#include "app/common/cli_util.h"
#include "app/gui/app_controller.h"
#include "ui/session/parameter_rows.h"
#include "ui/session/session_snapshot.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {
namespace {

qint64 Int(uint64_t value) {
  return static_cast<qint64>(value);
}

QJsonObject WindowLimits(const MainWindow& window) {
  const QSize minimum = window.minimumSize().expandedTo(window.minimumSizeHint());
  return {{QStringLiteral("minimum_width"), minimum.width()},
          {QStringLiteral("minimum_height"), minimum.height()}};
}

QJsonArray Notices(const MainWindow& window) {
  QJsonArray notices;
  for (const QString& notice : window.notices()) notices.append(notice);
  return notices;
}

}  // namespace

QJsonObject DescribeState(const MainWindow& window, const AppController& controller,
                          const SessionSnapshot& snapshot) {
  const TrainingOptions& options = controller.currentSetup().options;
  const QJsonObject setup{
      {QStringLiteral("optimizer"), QLatin1String(OptimizerName(options.optimizer))},
      {QStringLiteral("loss"), QLatin1String(LossName(options.loss))},
      {QStringLiteral("metric"), QLatin1String(MetricName(options.metric))},
      {QStringLiteral("batch"), static_cast<qint64>(options.batch_size)},
      {QStringLiteral("epochs"), static_cast<qint64>(options.epochs)},
      {QStringLiteral("learning_rate"), static_cast<double>(options.learning_rate)}};

  const LayersPanel::Estimate estimate = window.layersPanel()->appliedEstimate();
  const QJsonObject layers_panel{{QStringLiteral("heap_peak_bytes"), Int(estimate.heap_peak_bytes)},
                                 {QStringLiteral("arena_bytes"), Int(estimate.arena_bytes)},
                                 {QStringLiteral("trained_params"), Int(estimate.trained_params)}};

  const MemoryView::Shown& memory = window.memoryView()->shown();
  const QJsonObject memory_view{
      {QStringLiteral("current_bytes"), Int(memory.current_bytes)},
      {QStringLiteral("peak_bytes"), Int(memory.peak_bytes)},
      {QStringLiteral("arena_bytes"), Int(memory.arena_bytes)},
      {QStringLiteral("max_stacked_bytes"), Int(memory.max_stacked_bytes)}};

  QJsonArray layers;
  for (const TensorGradient& tensor : ParameterRows(snapshot, window.graph())) {
    const bool shows_norm = tensor.has_stats && !tensor.frozen;
    layers.append(QJsonObject{
        {QStringLiteral("tensor"), tensor.tensor},
        {QStringLiteral("op_index"), static_cast<qint64>(tensor.op_index)},
        {QStringLiteral("trainable"), !tensor.frozen},
        {QStringLiteral("l2_norm"),
         shows_norm ? QJsonValue(static_cast<double>(tensor.stats.l2)) : QJsonValue()}});
  }

  return {{QStringLiteral("model"), controller.modelPath()},
          {QStringLiteral("training_available"), true},
          {QStringLiteral("setup"), setup},
          {QStringLiteral("layers_panel"), layers_panel},
          {QStringLiteral("memory_view"), memory_view},
          {QStringLiteral("gradients_view"), QJsonObject{{QStringLiteral("layers"), layers}}},
          {QStringLiteral("steps_run"), static_cast<qint64>(snapshot.progress.last_optimizer_step)},
          {QStringLiteral("window"), WindowLimits(window)},
          {QStringLiteral("notices"), Notices(window)}};
}

QJsonObject DescribeUnavailable(const MainWindow& window, const QString& reason) {
  QJsonObject state{{QStringLiteral("training_available"), false},
                    {QStringLiteral("training_unavailable_reason"), reason},
                    {QStringLiteral("steps_run"), 0},
                    {QStringLiteral("window"), WindowLimits(window)},
                    {QStringLiteral("notices"), Notices(window)}};
  const Graph& graph = window.graph();
  if (!graph.subgraphs.empty()) {
    // Opened read-only: the graph is shown and the layers panel plans one inference.
    const LayersPanel::Estimate estimate = window.layersPanel()->appliedEstimate();
    state.insert(QStringLiteral("graph_operators"),
                 static_cast<qint64>(graph.main().operators.size()));
    state.insert(
        QStringLiteral("layers_panel"),
        QJsonObject{{QStringLiteral("inference_heap_peak_bytes"), Int(estimate.heap_peak_bytes)},
                    {QStringLiteral("arena_bytes"), Int(estimate.arena_bytes)}});
  }
  return state;
}

Status WriteStateJson(const QString& path, const QJsonObject& state) {
  const QByteArray bytes = QJsonDocument(state).toJson(QJsonDocument::Indented);
  return cli::WriteFileAtomically(path, bytes.constData(), static_cast<size_t>(bytes.size()));
}

}  // namespace trainscope
