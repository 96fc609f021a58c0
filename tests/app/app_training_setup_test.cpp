// SPDX-License-Identifier: Apache-2.0
//
// Training > Set up training on the generated demo: the menu entry, the dialog pre-filled with
// the running setup, OK reloading the session with new options and data files (keeping the
// applied trainability), a refused setup keeping the running session, and the setup remembered
// per model in QSettings (redirected to a temporary directory).
#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QFile>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "app/gui/app_controller.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/setup/training_setup_dialog.h"

namespace trainscope {

class AppTrainingSetupTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    QVERIFY(dir_.isValid());
    demo_ = DemoSessionFiles();
    QVERIFY2(!demo_.model.isEmpty(), "the generated demo is missing");
    store_ = std::make_shared<SessionStore>();
    window_ = std::make_unique<MainWindow>();
    window_->setStore(store_);
    controller_ = std::make_unique<AppController>(window_.get(), store_);
    QVERIFY(controller_->open(demo_).ok());
  }

  void cleanup() {
    controller_.reset();
    window_.reset();
  }

  void theMenuEntryOpensOnCtrlT() {
    QAction* action = controller_->setupAction();
    QVERIFY(action);
    QVERIFY(action->isEnabled());
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_T));
    bool in_training_menu = false;
    for (QMenu* menu : window_->findChildren<QMenu*>()) {
      if (menu->title().remove(QLatin1Char('&')) == QStringLiteral("Training"))
        in_training_menu |= menu->actions().contains(action);
    }
    QVERIFY(in_training_menu);
  }

  void theDemoStartsOnItsOwnDataWithTheDefaults() {
    const TrainingSetupRequest& setup = controller_->currentSetup();
    QVERIFY(setup.use_builtin_data);
    QVERIFY(setup.builtin_has_test_set);
    QVERIFY(setup.builtin_sample_count > 0);
    QCOMPARE(setup.options.optimizer, OptimizerKind::kAdam);
  }

  void okReloadsWithTheNewSetupAndKeepsTheAppliedTrainability() {
    LayersPanel* panel = window_->layersPanel();
    panel->lastNSpinBox()->setValue(2);
    panel->apply();
    const LocalEventSource* before = controller_->source();

    TrainingSetupRequest setup = filesSetup(20);
    QVERIFY(controller_->applySetup(setup).ok());
    QVERIFY(controller_->source() != before);
    QVERIFY(!controller_->currentSetup().use_builtin_data);
    QCOMPARE(controller_->currentSetup().data.inputs, setup.data.inputs);
    QCOMPARE(controller_->currentSetup().options.learning_rate, 0.05f);
    QCOMPARE(panel->appliedTrainability().num_train_layers, 2u);
    QCOMPARE(window_->graphView()->trainability().num_train_layers, 2u);  // the graph agrees

    // Remembered for this model: a fresh window opening it alone starts from it.
    TrainingSetupRequest recalled;
    QVERIFY(AppController::RecallSetup(demo_.model, &recalled));
    QCOMPARE(recalled.options.optimizer, OptimizerKind::kSgd);
    QCOMPARE(recalled.options.batch_size, 4u);
    QCOMPARE(recalled.data.target, setup.data.target);
    MainWindow window;
    AppController again(&window, std::make_shared<SessionStore>());
    SessionFiles model_only;
    model_only.model = demo_.model;
    QVERIFY(again.open(model_only).ok());
    QCOMPARE(again.currentSetup().options.optimizer, OptimizerKind::kSgd);
    QCOMPARE(again.currentSetup().data.inputs, setup.data.inputs);
  }

  void aRefusedSetupKeepsTheRunningSession() {
    const LocalEventSource* before = controller_->source();
    const TrainingSetupRequest running = controller_->currentSetup();
    TrainingSetupRequest setup = filesSetup(20);
    setup.options.batch_size = 21;
    const Status status = controller_->applySetup(setup);
    QVERIFY(!status.ok());
    QVERIFY2(QString::fromUtf8(status.message())
                 .contains(QStringLiteral("batch size 21 is larger than the 20")),
             status.message());
    QCOMPARE(controller_->source(), before);
    QCOMPARE(controller_->currentSetup().options.batch_size, running.options.batch_size);
    bool reported = false;
    for (const StatusMessage& message : *store_->snapshot()->messages)
      reported |= message.level == MessageLevel::kError &&
                  message.text.contains(QStringLiteral("batch size 21"));
    QVERIFY(reported);
  }

  void theDialogIsPrefilledAndItsOkReloads() {
    TrainingSetupDialog* seen = nullptr;
    uint32_t shown_epochs = 0;
    QTimer::singleShot(0, this, [&] {
      seen = qobject_cast<TrainingSetupDialog*>(QApplication::activeModalWidget());
      if (!seen) return;
      auto* epochs = qobject_cast<QSpinBox*>(seen->editor(SetupField::kEpochs));
      shown_epochs = static_cast<uint32_t>(epochs->value());
      epochs->setValue(3);
      seen->buttons()->button(QDialogButtonBox::Ok)->click();
    });
    const uint32_t running_epochs = controller_->currentSetup().options.epochs;
    controller_->setupAction()->trigger();
    QVERIFY(seen);
    QCOMPARE(shown_epochs, running_epochs);
    QCOMPARE(controller_->currentSetup().options.epochs, 3u);
  }

 private:
  // Demo-shaped inputs with sparse labels, SGD.
  TrainingSetupRequest filesSetup(uint32_t samples) {
    const Subgraph& main = controller_->source()->model()->graph().main();
    const size_t floats = main.tensors[static_cast<size_t>(main.inputs[0])].element_count();
    TrainingSetupRequest setup;
    setup.use_builtin_data = false;
    setup.options.optimizer = OptimizerKind::kSgd;
    setup.options.learning_rate = 0.05f;
    setup.options.loss = LossKind::kSparseCrossEntropy;
    setup.options.metric = MetricKind::kSparseCrossEntropyAccuracy;
    setup.options.batch_size = 4;
    setup.options.epochs = 2;
    std::vector<float> inputs(floats * samples);
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = static_cast<float>(i % 13) / 13.0f;
    std::vector<float> labels(samples);
    for (uint32_t s = 0; s < samples; ++s) labels[s] = static_cast<float>(s % 2);
    setup.data.inputs = {write(QStringLiteral("x.bin"), inputs)};
    setup.data.target = write(QStringLiteral("y.bin"), labels);
    return setup;
  }

  QString write(const QString& name, const std::vector<float>& values) {
    const QString path = dir_.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) {
      file.write(reinterpret_cast<const char*>(values.data()),
                 static_cast<qint64>(values.size() * sizeof(float)));
    }
    return path;
  }

  QTemporaryDir dir_;
  SessionFiles demo_;
  std::shared_ptr<SessionStore> store_;
  std::unique_ptr<MainWindow> window_;
  std::unique_ptr<AppController> controller_;
};

}  // namespace trainscope

int main(int argc, char* argv[]) {
  // Remembered setups must not touch (or come from) the user's settings.
  QTemporaryDir config;
  qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
  QStandardPaths::setTestModeEnabled(true);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("TrainScopeTest"));
  QApplication::setApplicationName(QStringLiteral("app_training_setup_test"));
  trainscope::AppTrainingSetupTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "app_training_setup_test.moc"
