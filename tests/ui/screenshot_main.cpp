// SPDX-License-Identifier: Apache-2.0
//
// Screenshot of the main window fed by a synthetic stream for a generated model (not a test;
// ctest does not run it). Run it under Xvfb:
//   xvfb-run -a -s "-screen 0 1600x1000x24" ui_screenshot out.png [--dark] [--overlay N] [--tab N]
// --overlay picks the graph colouring (0 trainability, 1 gradient norm, 2 bytes, 3 update ratio),
// --tab the gradients tab (0 per layer, 1 heatmap, 2 histogram), --memory-tab the memory tab
// (0 timeline, 1 address map), --model a .circle/.tflite file instead of the generated model,
// --view one of graph, memory, gradients, loss, layers to save only that view's dock,
// --dialog run-question (Run with a change not applied: the screen with the question),
// finished-question (Run after the schedule ended), edit-menu (Edit with Undo after an applied
// change) or recordings (File > Recording Settings over a folder of three recordings),
// comparison (the Comparison dock on a generated diff report whose dense layer's weight gradient
// differs, as onert-micro's would).
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMessageBox>
#include <QScreen>
#include <QStandardPaths>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "engine/model/model.h"
#include "engine/model/opcodes.h"
#include "serial/compare/tensor_metrics.h"
#include "tests/common/synthetic/synthetic_event_source.h"
#include "tests/ui/test_models.h"
#include "ui/controllers/comparison_controller.h"
#include "ui/widgets/comparison/comparison_view.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_model.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"
#include "ui/widgets/replay/recording_settings_dialog.h"

using namespace trainscope;

namespace {

// A synthetic run that reports its schedule as finished, for Run's question after the end.
class FinishedSource : public SyntheticEventSource {
 public:
  using SyntheticEventSource::SyntheticEventSource;
  bool canRestart() const override { return true; }
  Status restart() override { return Status::Ok(); }
  QString finishedSchedule() const override {
    return QStringLiteral("trained 40 epoch(s), 4800 optimizer step(s)");
  }
};

QJsonValue Number(double value) {
  return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QString::number(value));
}

// One tensor of a generated diff report, its figures computed as diff computes them.
QJsonObject ReportTensor(const Subgraph& main, int32_t tensor, const char* role, const char* aspect,
                         const std::vector<float>& board, const std::vector<float>& reference) {
  const Tensor& t = main.tensors[static_cast<size_t>(tensor)];
  const TensorDifference d = CompareTensors(board.data(), reference.data(), board.size());
  QJsonArray shape, board_values, reference_values;
  for (int32_t size : t.shape) shape.append(size);
  for (size_t i = 0; i < board.size(); ++i) {
    board_values.append(Number(board[i]));
    reference_values.append(Number(reference[i]));
  }
  return QJsonObject{
      {QStringLiteral("tensor"), tensor},
      {QStringLiteral("name"), QString::fromStdString(t.name)},
      {QStringLiteral("role"), QLatin1String(role)},
      {QStringLiteral("aspect"), QLatin1String(aspect)},
      {QStringLiteral("sample"), 0},
      {QStringLiteral("board_held"), true},
      {QStringLiteral("reference_held"), true},
      {QStringLiteral("divergent"), d.relative_l2 > 1e-4},
      {QStringLiteral("shape"), shape},
      {QStringLiteral("shape_matches"), true},
      {QStringLiteral("count"), static_cast<qint64>(d.count)},
      {QStringLiteral("max_abs"), Number(d.max_abs)},
      {QStringLiteral("max_abs_index"), static_cast<qint64>(d.max_abs_index)},
      {QStringLiteral("rmse"), Number(d.rmse)},
      {QStringLiteral("relative_l2"), Number(d.relative_l2)},
      {QStringLiteral("cosine"), Number(d.cosine)},
      {QStringLiteral("max_ulp"), static_cast<qint64>(d.max_ulp)},
      {QStringLiteral("nonfinite_mismatches"), static_cast<qint64>(d.nonfinite_mismatches)},
      {QStringLiteral("board_nonfinite"), static_cast<qint64>(d.board_nonfinite)},
      {QStringLiteral("reference_nonfinite"), static_cast<qint64>(d.reference_nonfinite)},
      {QStringLiteral("board_values"), board_values},
      {QStringLiteral("reference_values"), reference_values}};
}

// A diff report of one step of `graph`: every op's output gradient agrees to float noise except
// the dense layer (op 5) whose weight gradient is off by a few percent in one row.
QByteArray GeneratedReport(const Graph& graph, const QString& model) {
  const Subgraph& main = graph.main();
  const int n = static_cast<int>(main.operators.size());
  QJsonArray ops;
  for (int k = n - 1; k >= 0; --k) {
    const Operator& op = main.operators[static_cast<size_t>(k)];
    QJsonArray tensors;
    const auto add = [&](int32_t tensor, const char* role, float scale, size_t rows_off) {
      const size_t count = main.tensors[static_cast<size_t>(tensor)].element_count();
      std::vector<float> reference(count), board(count);
      for (size_t i = 0; i < count; ++i) {
        reference[i] = std::sin(0.37f * static_cast<float>(i)) * scale;
        board[i] = reference[i];
      }
      for (size_t i = 0; i < rows_off && i < count; ++i) board[i] *= 1.08f;  // one row off
      if (rows_off == 0 && count > 3) board[count / 3] = std::nextafter(board[count / 3], 1.0f);
      tensors.append(ReportTensor(main, tensor, role, "gradient", board, reference));
    };
    if (!op.outputs.empty()) add(op.outputs[0], "output gradient", 0.01f, 0);
    if (k == 5 && op.inputs.size() > 1) add(op.inputs[1], "weights gradient", 0.02f, 512);
    ops.append(QJsonObject{{QStringLiteral("op"), k},
                           {QStringLiteral("opcode"), QLatin1String(OpcodeName(op.opcode))},
                           {QStringLiteral("backward_step"), n - 1 - k},
                           {QStringLiteral("divergent"), k == 5},
                           {QStringLiteral("tensors"), tensors}});
  }
  const QJsonObject report{
      {QStringLiteral("board"), QStringLiteral("trainscope-board-sim")},
      {QStringLiteral("endpoint"), QStringLiteral("tcp://127.0.0.1:7001")},
      {QStringLiteral("model"), model},
      {QStringLiteral("step"), 41},
      {QStringLiteral("thresholds"), QJsonObject{{QStringLiteral("relative_l2"), 1e-4},
                                                 {QStringLiteral("max_abs"), QStringLiteral("inf")},
                                                 {QStringLiteral("min_cosine"), -1}}},
      {QStringLiteral("ops"), ops},
      {QStringLiteral("update"), QJsonArray()},
      {QStringLiteral("compared"), ops.size() + 1},
      {QStringLiteral("held_on_one_side"), 0},
      {QStringLiteral("transfer"), QJsonObject{{QStringLiteral("requests"), 9},
                                               {QStringLiteral("not_held"), 0},
                                               {QStringLiteral("values"), 24000},
                                               {QStringLiteral("chunks"), 760},
                                               {QStringLiteral("payload_bytes"), 96000},
                                               {QStringLiteral("wire_bytes"), 109000},
                                               {QStringLiteral("seconds"), 9.4}}},
      {QStringLiteral("first_divergent_op"), 5},
      {QStringLiteral("first_divergent"),
       QJsonObject{{QStringLiteral("op"), 5},
                   {QStringLiteral("known_onert_differences"),
                    QJsonArray{QStringLiteral("op 5 FULLY_CONNECTED: example of a known difference "
                                              "(generated report)")}}}}};
  return QJsonDocument(report).toJson(QJsonDocument::Compact);
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  QStandardPaths::setTestModeEnabled(true);  // leave the user's settings alone
  QString output = QStringLiteral("trainscope_main.png");
  bool dark = false;
  int overlay = 0;
  int tab = 0;
  int memory_tab = 0;
  QString model_path;
  QString view;
  QString dialog;
  const QStringList args = QApplication::arguments();
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--dark")) {
      dark = true;
    } else if (args[i] == QLatin1String("--overlay") && i + 1 < args.size()) {
      overlay = args[++i].toInt();
    } else if (args[i] == QLatin1String("--tab") && i + 1 < args.size()) {
      tab = args[++i].toInt();
    } else if (args[i] == QLatin1String("--model") && i + 1 < args.size()) {
      model_path = args[++i];
    } else if (args[i] == QLatin1String("--memory-tab") && i + 1 < args.size()) {
      memory_tab = args[++i].toInt();
    } else if (args[i] == QLatin1String("--view") && i + 1 < args.size()) {
      view = args[++i];
    } else if (args[i] == QLatin1String("--dialog") && i + 1 < args.size()) {
      dialog = args[++i];
    } else {
      output = args[i];
    }
  }
  // Only ever write a .png: a mistyped argument must not overwrite some other file.
  if (!output.endsWith(QLatin1String(".png"), Qt::CaseInsensitive)) {
    std::fprintf(stderr, "the output must be a .png file, not %s\n", qPrintable(output));
    return 2;
  }

  Graph graph = testing::MakeConvNet();
  if (!model_path.isEmpty()) {
    Model model;
    const Status status = ReadModelFile(model_path.toStdString(), &model);
    if (!status.ok()) {
      std::fprintf(stderr, "%s\n", status.message());
      return 1;
    }
    graph = model.graph();
  }
  if (graph.subgraphs.empty()) {
    std::fprintf(stderr, "could not build the model\n");
    return 1;
  }
  const bool generated = model_path.isEmpty();
  auto store = std::make_shared<SessionStore>();
  MainWindow window;
  window.setThemeChoice(dark ? MainWindow::ThemeChoice::kDark : MainWindow::ThemeChoice::kLight);
  window.setStore(store);
  window.setGraph(graph, generated ? QStringLiteral("convnet.circle") : model_path);
  SyntheticOptions options;
  options.nan_at_optimizer_step = 12;
  FinishedSource source(graph, store, options);
  window.setEventSource(&source);
  window.memoryView()->setBudgetBytes(40 * 1024);

  // Convolution 2 trains its upper half, dense1 everything, dense2 only its bias (generated
  // model); a loaded model trains its last third.
  TrainabilityConfig config;
  if (generated) {
    config.op_ranks[2] = TrainRank::kUpperHalf;
    config.op_ranks[5] = TrainRank::kAll;
    config.op_ranks[6] = TrainRank::kOnlyBias;
  } else {
    config.num_train_layers = static_cast<uint32_t>(graph.main().operators.size() / 3 + 1);
  }
  window.layersPanel()->model()->setPending(config);
  window.layersPanel()->apply();
  if (generated) {
    window.layersPanel()->setOpWarning(
        6, QStringLiteral("ONLY_BIAS needs an NDEBUG build of onert-micro"));
    // A pending change, so the preview shows its deltas.
    TrainabilityConfig pending = config;
    pending.op_ranks[6] = TrainRank::kAll;
    window.layersPanel()->model()->setPending(pending);
  }

  for (int i = 0; i < 40; ++i) source.stepBatch();
  source.stepBackwardOp();
  source.stepBackwardOp();
  source.stepBackwardOp();
  window.graphView()->setOverlay(static_cast<GraphView::Overlay>(overlay));
  window.gradientsView()->tabs()->setCurrentIndex(tab);
  window.memoryView()->tabs()->setCurrentIndex(memory_tab);
  window.show();
  window.graphView()->fitToView();

  QWidget* shot = &window;
  if (!view.isEmpty()) {
    const std::map<QString, QWidget*> views = {
        {QStringLiteral("graph"), window.graphView()},
        {QStringLiteral("memory"), window.memoryView()},
        {QStringLiteral("gradients"), window.gradientsView()},
        {QStringLiteral("loss"), window.lossView()},
        {QStringLiteral("layers"), window.layersPanel()},
    };
    const auto found = views.find(view);
    if (found == views.end()) {
      std::fprintf(stderr, "unknown --view '%s' (graph, memory, gradients, loss, layers)\n",
                   qPrintable(view));
      return 2;
    }
    shot = found->second;
    // The dock around the view, so the shot carries the view's title.
    for (QWidget* parent = shot->parentWidget(); parent; parent = parent->parentWidget()) {
      if (qobject_cast<QDockWidget*>(parent)) {
        shot = parent;
        break;
      }
    }
  }

  const auto grab_screen_then = [&](int delay_ms, const std::function<void()>& close) {
    QTimer::singleShot(delay_ms, &window, [&, close] {
      const bool saved = window.screen()->grabWindow(0).save(output, "PNG");
      std::printf("%s %s\n", saved ? "wrote" : "could not write", qPrintable(output));
      close();
      app.exit(saved ? 0 : 1);
    });
  };
  if (dialog == QLatin1String("finished-question")) {
    window.layersPanel()->revert();  // no pending change: the question is about the schedule
    source.stop();                   // a finished run is stopped: Run starts, it does not resume
    QTimer::singleShot(1200, &window, [&] {
      grab_screen_then(600, [] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
          box->reject();
        }
      });
      window.action(MainWindow::Command::kRun)->trigger();
    });
    return app.exec();
  }
  if (dialog == QLatin1String("edit-menu")) {
    window.layersPanel()->apply();  // the pending change applied: Undo can take it back
    QTimer::singleShot(1200, &window, [&] {
      QMenu* edit = window.menu(MainWindow::Menu::kEdit);
      edit->popup(window.mapToGlobal(QPoint(40, 24)));
      grab_screen_then(500, [edit] { edit->close(); });
    });
    return app.exec();
  }
  if (dialog == QLatin1String("run-question")) {
    // Run with the pending change: the question is modal, so the shot is taken from inside it.
    QTimer::singleShot(1200, &window, [&] {
      QTimer::singleShot(600, &window, [&] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        const bool saved = box != nullptr && window.screen()->grabWindow(0).save(output, "PNG");
        std::printf("%s %s\n", saved ? "wrote" : "could not write", qPrintable(output));
        if (box != nullptr) box->reject();
        app.exit(saved ? 0 : 1);
      });
      window.action(MainWindow::Command::kRun)->trigger();
    });
    return app.exec();
  }
  if (dialog == QLatin1String("recordings")) {
    QTemporaryDir folder;
    const std::pair<const char*, qint64> recordings[] = {
        {"convnet-2026-12-01T09-12-03.tstrace", 211 << 20},
        {"convnet-2026-12-02T14-40-51.tstrace", 58 << 20},
        {"convnet-2026-12-03T08-02-17.tstrace", 3 << 20}};
    for (const auto& [name, bytes] : recordings) {
      QFile file(folder.filePath(QLatin1String(name)));
      if (!file.open(QIODevice::WriteOnly) || !file.resize(bytes)) return 1;
    }
    auto* settings = new RecordingSettingsDialog(
        folder.path(), folder.filePath(QLatin1String(recordings[2].first)), &window);
    settings->show();
    QTimer::singleShot(1200, &window, [&] {
      const bool saved = settings->grab().save(output, "PNG");
      std::printf("%s %s\n", saved ? "wrote" : "could not write", qPrintable(output));
      app.exit(saved ? 0 : 1);
    });
    return app.exec();
  }
  if (dialog == QLatin1String("comparison")) {
    QTemporaryDir folder;
    const QString report = folder.filePath(QStringLiteral("convnet-diff.json"));
    QFile file(report);
    const QString model = generated ? QStringLiteral("convnet.circle") : model_path;
    if (!file.open(QIODevice::WriteOnly) || file.write(GeneratedReport(graph, model)) <= 0)
      return 1;
    file.close();
    auto* comparison = new ComparisonController(&window);
    comparison->install(&window);
    if (const Status opened = comparison->open(report); !opened.ok()) {
      std::fprintf(stderr, "%s\n", opened.message());
      return 1;
    }
    QTimer::singleShot(1200, &window, [&] {
      const bool saved = window.grab().save(output, "PNG");
      std::printf("wrote %s; %s\n", qPrintable(output),
                  qPrintable(comparison->view()->headlineText()));
      app.exit(saved ? 0 : 1);
    });
    return app.exec();
  }
  if (!dialog.isEmpty()) {
    std::fprintf(stderr,
                 "unknown --dialog '%s' (run-question, finished-question, edit-menu, recordings, "
                 "comparison)\n",
                 qPrintable(dialog));
    return 2;
  }

  QTimer::singleShot(1200, &window, [&] {
    const bool saved = shot->grab().save(output, "PNG");
    std::printf("%s %s\n", saved ? "wrote" : "could not write", qPrintable(output));
    app.exit(saved ? 0 : 1);
  });
  return app.exec();
}
