// SPDX-License-Identifier: Apache-2.0
#include "app/gui/app_controller.h"

#include <QActionGroup>
#include <QComboBox>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QToolBar>

#include <algorithm>
#include <random>

#include "app/common/training_args.h"
#include "engine/exec/trainer.h"
#include "engine/memory/memory_report.h"
#include "engine/model/opcodes.h"
#include "engine/plan/onert_differences.h"
#include "engine/train/losses.h"
#include "engine/train/metrics.h"
#include "ui/session/app_settings.h"
#include "ui/session/trainability.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"
#include "ui/widgets/setup/training_setup_dialog.h"

namespace trainscope {
namespace {

constexpr uint32_t kRandomSamples = 32;

// Samples of the right shape for a model opened without data: uniform inputs, labels spread
// over the output classes. Enough to watch memory and gradients; the messages say so.
DataSet RandomData(const Subgraph& main, LossKind loss, uint32_t samples) {
  DataSet data;
  data.sample_count = samples;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int32_t input : main.inputs) {
    std::vector<float> values(main.tensors[input].element_count() * samples);
    for (float& v : values) v = uniform(rng);
    data.inputs.push_back(std::move(values));
  }
  const size_t outputs = cli::OutputElementCount(main);
  const size_t per_target = TargetElementCount(loss, outputs);
  for (uint32_t s = 0; s < samples; ++s) {
    for (size_t e = 0; e < per_target; ++e) {
      const float label = static_cast<float>(s % std::max<size_t>(outputs, 1));
      data.targets.push_back(per_target == 1 ? label : (e == s % outputs ? 1.0f : 0.0f));
    }
  }
  return data;
}

}  // namespace

SessionFiles DemoSessionFiles() {
  const QDir here(QCoreApplication::applicationDirPath());
  QStringList candidates{QStringLiteral(TRAINSCOPE_DEMO_DIR),
                         here.filePath(QStringLiteral("../share/trainscope/demo"))};
  for (const QString& dir : candidates) {
    const QDir demo(dir);
    if (!QFileInfo::exists(demo.filePath(QStringLiteral("demo.circle")))) continue;
    SessionFiles files;
    files.model = demo.filePath(QStringLiteral("demo.circle"));
    files.inputs = {demo.filePath(QStringLiteral("train_input.bin"))};
    files.target = demo.filePath(QStringLiteral("train_target.bin"));
    files.test_inputs = {demo.filePath(QStringLiteral("test_input.bin"))};
    files.test_target = demo.filePath(QStringLiteral("test_target.bin"));
    return files;
  }
  return {};
}

AppController::AppController(MainWindow* window, std::shared_ptr<SessionStore> store,
                             QObject* parent)
    : QObject(parent), window_(window), store_(std::move(store)) {
  connect(window_, &MainWindow::openRequested, this, &AppController::openModel);
  connect(window_->layersPanel(), &LayersPanel::trainabilityApplied, this,
          [this](uint32_t last_n, const TrainRankMap& ranks) {
            TrainabilityConfig config;
            config.num_train_layers = last_n;
            config.op_ranks = ranks;
            applyWarnings(config);
          });
  createMenu();
}

AppController::~AppController() {
  window_->setEventSource(nullptr);
}

void AppController::createMenu() {
  QMenu* menu = window_->menu(MainWindow::Menu::kTraining);
  setup_action_ = menu->addAction(tr("Set up &training…"));
  setup_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  setup_action_->setStatusTip(
      tr("Choose the training data, optimizer, loss, batch size and epochs, then reload"));
  setup_action_->setEnabled(false);
  connect(setup_action_, &QAction::triggered, this, &AppController::showSetupDialog);

  QMenu* speed_menu = menu->addMenu(tr("&Speed"));
  auto* speed_group = new QActionGroup(speed_menu);
  speed_box_ = new QComboBox(window_);
  speed_box_->setObjectName(QStringLiteral("speedBox"));
  speed_box_->setToolTip(tr("How fast the local engine trains, in optimizer steps per second; at "
                            "%1 or fewer each backward step is shown in turn")
                             .arg(LocalEventSource::kWatchRate));
  for (double rate : SpeedChoices()) {
    const QString text =
        rate == 0.0 ? tr("Full speed")
                    : (rate <= LocalEventSource::kWatchRate ? tr("%1 steps/s (watch)").arg(rate)
                                                            : tr("%1 steps/s").arg(rate));
    QAction* action = speed_menu->addAction(text);
    action->setCheckable(true);
    action->setData(rate);
    speed_group->addAction(action);
    connect(action, &QAction::triggered, this, [this, rate] { setStepsPerSecond(rate); });
    speed_box_->addItem(text, rate);
  }
  connect(speed_box_, &QComboBox::activated, this,
          [this](int index) { setStepsPerSecond(speed_box_->itemData(index).toDouble()); });
  connect(this, &AppController::destroyed, speed_box_, &QObject::deleteLater);
  window_->debugToolBar()->addSeparator();
  window_->debugToolBar()->addWidget(speed_box_);
  speed_menu_group_ = speed_group;
  setStepsPerSecond(AppSettings().value(QStringLiteral("training/stepsPerSecond"), 0.0).toDouble());
}

const std::vector<double>& AppController::SpeedChoices() {
  static const std::vector<double> choices{0.0, 200.0, 50.0, 10.0, 2.0};
  return choices;
}

void AppController::setStepsPerSecond(double rate) {
  const auto& choices = SpeedChoices();
  // A remembered value that is not offered (an edited file) snaps to full speed.
  if (std::find(choices.begin(), choices.end(), rate) == choices.end()) rate = 0.0;
  steps_per_second_ = rate;
  const int index =
      static_cast<int>(std::find(choices.begin(), choices.end(), rate) - choices.begin());
  speed_box_->setCurrentIndex(index);
  speed_menu_group_->actions().at(index)->setChecked(true);
  if (source_) source_->setStepsPerSecond(rate);
  AppSettings().setValue(QStringLiteral("training/stepsPerSecond"), rate);
}

void AppController::openModel(const QString& path) {
  SessionFiles files;
  files.model = path;
  Status status = open(files);
  if (!status.ok()) window_->removeRecentFile(path);
}

Status AppController::DefaultSetup(const Model& model, TrainingSetupRequest* setup,
                                   TrainabilityConfig* trainability) {
  cli::TrainingSetup defaults;
  TS_RETURN_IF_ERROR(cli::DefaultTrainingSetup(model, &defaults));
  *setup = TrainingSetupRequest();
  setup->options = defaults.options;
  *trainability = defaults.trainability;
  return Status::Ok();
}

void AppController::describeBuiltinData(const QString& model_path, const Subgraph& main,
                                        TrainingSetupRequest* setup) const {
  const SessionFiles demo = DemoSessionFiles();
  const bool is_demo = !demo.model.isEmpty() && QFileInfo(model_path).canonicalFilePath() ==
                                                    QFileInfo(demo.model).canonicalFilePath();
  setup->builtin_has_test_set = is_demo;
  setup->builtin_sample_count = kRandomSamples;
  if (is_demo && !main.inputs.empty()) {
    const int32_t input = main.inputs[0];
    const size_t floats = input >= 0 && static_cast<size_t>(input) < main.tensors.size()
                              ? main.tensors[static_cast<size_t>(input)].element_count()
                              : 0;
    const qint64 bytes = QFileInfo(demo.inputs.value(0)).size();
    setup->builtin_sample_count =
        floats > 0 ? static_cast<uint32_t>(bytes / static_cast<qint64>(floats * sizeof(float))) : 0;
  }
}

Status AppController::buildData(const Subgraph& main, const TrainingSetupRequest& setup,
                                LocalSetup* data) const {
  const TrainingOptions& o = setup.options;
  const size_t outputs = cli::OutputElementCount(main);
  const size_t loss_floats = TargetElementCount(o.loss, outputs);
  const size_t metric_floats =
      o.metric == MetricKind::kNone ? loss_floats : TargetElementCount(o.metric, outputs);
  TrainingDataFiles files = setup.data;
  if (setup.use_builtin_data) {
    if (!setup.builtin_has_test_set) {
      data->train = RandomData(main, o.loss, kRandomSamples);
      return Status::Ok();
    }
    const SessionFiles demo = DemoSessionFiles();
    files = TrainingDataFiles{demo.inputs, demo.target, demo.test_inputs, demo.test_target};
  }
  TS_RETURN_IF_ERROR(cli::ReadDataSet(main, files.inputs, files.target, loss_floats,
                                      QStringLiteral("training"), &data->train));
  if (files.hasTestSet()) {
    TS_RETURN_IF_ERROR(cli::ReadDataSet(main, files.test_inputs, files.test_target, metric_floats,
                                        QStringLiteral("test"), &data->test));
  }
  return Status::Ok();
}

Status AppController::open(const SessionFiles& files, const SetupResolver& resolve) {
  Model model;
  Status status = ReadModelFile(files.model.toStdString(), &model);
  if (!status.ok()) return fail(std::move(status), files.model);
  const Subgraph& main = model.graph().main();
  TrainingSetupRequest setup;
  TrainabilityConfig trainability;
  bool recalled = false;
  if (resolve) {
    cli::TrainingSetup resolved;
    status = resolve(model, &resolved);
    if (!status.ok()) return fail(std::move(status), files.model);
    setup.options = resolved.options;
    trainability = resolved.trainability;
  } else {
    recalled = RecallSetup(files.model, &setup);
    if (!recalled) {
      status = DefaultSetup(model, &setup, &trainability);
      if (!status.ok()) return fail(std::move(status), files.model);
    }
  }
  describeBuiltinData(files.model, main, &setup);
  const SessionFiles demo = DemoSessionFiles();
  const bool demo_files =
      !demo.model.isEmpty() && files.inputs == demo.inputs && files.target == demo.target;
  if (!files.inputs.isEmpty() && !demo_files) {
    setup.use_builtin_data = false;
    setup.data =
        TrainingDataFiles{files.inputs, files.target, files.test_inputs, files.test_target};
  }
  // A remembered setup whose files moved or whose options no longer fit falls back to defaults.
  QString fallback_reason;
  if (recalled) {
    const std::vector<SetupIssue> issues = ValidateTrainingSetup(main, setup);
    if (!issues.empty()) {
      fallback_reason = issues.front().message;
      status = DefaultSetup(model, &setup, &trainability);
      if (!status.ok()) return fail(std::move(status), files.model);
      describeBuiltinData(files.model, main, &setup);
    }
  }
  status = load(files.model, std::move(model), setup, trainability);
  if (status.ok() && !fallback_reason.isEmpty()) {
    EventBatch note;
    note.add(StatusMessage{MessageLevel::kWarning,
                           tr("the remembered training setup of %1 no longer fits (%2): using "
                              "the defaults")
                               .arg(QFileInfo(files.model).fileName(), fallback_reason)});
    store_->append(note);
  }
  return status;
}

Status AppController::applySetup(const TrainingSetupRequest& setup) {
  if (model_path_.isEmpty()) {
    return Status::Error(StatusCode::kInvalidArgument, "no model is open");
  }
  Model model;
  Status status = ReadModelFile(model_path_.toStdString(), &model);
  if (!status.ok()) return fail(std::move(status), model_path_);
  const QString path = model_path_;
  const TrainabilityConfig trainability = window_->layersPanel()->appliedTrainability();
  status = load(path, std::move(model), setup, trainability);
  if (status.ok()) RememberSetup(path, setup);
  return status;
}

void AppController::showSetupDialog() {
  if (!source_ || !source_->model()) return;
  const Graph graph = source_->model()->graph();
  TrainingSetupDialog dialog(graph, window_);
  dialog.setBuiltinDataText(
      setup_.builtin_has_test_set
          ? tr("Use the demo data (%1 samples, with its test set)").arg(setup_.builtin_sample_count)
          : tr("Use %1 random samples of the right shape").arg(setup_.builtin_sample_count));
  dialog.setSetup(setup_);
  if (dialog.exec() == QDialog::Accepted) static_cast<void>(applySetup(dialog.setup()));
}

Status AppController::load(const QString& model_path, Model model,
                           const TrainingSetupRequest& request,
                           const TrainabilityConfig& trainability) {
  const Subgraph& main = model.graph().main();
  TrainingSetupRequest setup = request;
  describeBuiltinData(model_path, main, &setup);
  const std::vector<SetupIssue> issues = ValidateTrainingSetup(main, setup);
  if (!issues.empty()) {
    QStringList messages;
    for (const SetupIssue& issue : issues) messages << issue.message;
    return fail(Status::Error(StatusCode::kInvalidArgument, "training setup: %s",
                              qPrintable(messages.join(QLatin1Char(' ')))),
                model_path);
  }
  LocalSetup local;
  local.options = setup.options;
  // Every layer is the default; on a frozen extractor with forward-only operators (an LSTM) the
  // app trains what can train, after the last of them, and says so, instead of refusing.
  TrainabilityConfig wanted = trainability;
  QString narrowed;
  const uint32_t tail = TrainableTailLength(main);
  if (trainability == TrainabilityConfig{} && tail > 0 && tail < main.operators.size()) {
    wanted.num_train_layers = tail;
    const size_t frozen = main.operators.size() - tail - 1;
    narrowed = tr("operator %1 (%2) has no backward kernel: training the last %3 operators, the "
                  "ones after it (Layers changes that)")
                   .arg(frozen)
                   .arg(QLatin1String(OpcodeName(main.operators[frozen].opcode)))
                   .arg(tail);
  }
  if (ValidateTrainabilityConfig(main, wanted).ok()) local.trainability = wanted;
  Status status = buildData(main, setup, &local);
  if (!status.ok()) return fail(std::move(status), model_path);
  auto source = std::make_unique<LocalEventSource>(store_);
  const Graph graph = model.graph();
  const TrainabilityConfig applied = local.trainability;
  status = source->load(std::move(model), std::move(local), QFileInfo(model_path).fileName());
  if (!status.ok()) {
    if (status.code() == StatusCode::kUnsupported) showReadOnly(model_path, graph, status);
    return fail(std::move(status), model_path);
  }

  // The previous session's source stops before it is replaced.
  SessionHost* host = window_->sessionHost();
  host->switchTo(nullptr);
  source_ = std::move(source);
  source_->setStepsPerSecond(steps_per_second_);
  model_path_ = model_path;
  setup_ = setup;
  host->switchTo(source_.get());
  host->showModel({graph, model_path, applied, /*plannable=*/true, setup.options, QString()});
  window_->addRecentFile(QFileInfo(model_path).absoluteFilePath());
  window_->layersPanel()->setModelFile(model_path);
  applyWarnings(applied);
  setup_action_->setEnabled(true);
  window_->setNotices(setupNotices(model_path, graph.main(), setup));
  EventBatch note;
  if (!narrowed.isEmpty()) note.add(StatusMessage{MessageLevel::kWarning, narrowed});
  if (setup.use_builtin_data && !setup.builtin_has_test_set) {
    note.add(StatusMessage{MessageLevel::kWarning,
                           tr("no training data was given: training on random samples of the "
                              "right shape")});
  }
  note.add(StatusMessage{MessageLevel::kInfo,
                         tr("training with %1, learning rate %2, loss %3, metric %4, batch %5, "
                            "%6 epoch(s)")
                             .arg(QLatin1String(OptimizerName(setup.options.optimizer)))
                             .arg(static_cast<double>(setup.options.learning_rate))
                             .arg(QLatin1String(LossName(setup.options.loss)),
                                  QLatin1String(MetricName(setup.options.metric)))
                             .arg(setup.options.batch_size)
                             .arg(setup.options.epochs)});
  store_->append(note);
  return Status::Ok();
}

// A model the engine cannot train (an int8 model, an operator without a kernel) still opens: its
// graph, its details and the memory of one inference, with training off and the reason shown.
void AppController::showReadOnly(const QString& model_path, const Graph& graph, const Status& why) {
  SessionHost* host = window_->sessionHost();
  host->switchTo(nullptr);
  source_.reset();
  model_path_ = model_path;
  SessionModel model;
  model.graph = graph;
  model.path = model_path;
  model.plannable = true;
  model.trainable = false;
  model.note = tr("training is off (%1)").arg(QString::fromUtf8(why.message()));
  host->showModel(std::move(model));
  setup_action_->setEnabled(false);
}

// What a user must not miss about the session just loaded: random data makes the loss meaningless.
QStringList AppController::setupNotices(const QString& model_path, const Subgraph& main,
                                        const TrainingSetupRequest& setup) const {
  QStringList notices;
  if (!setup.use_builtin_data || setup.builtin_has_test_set) return notices;
  QString notice = tr("Training on %1 random samples: no data was given, so the loss and metric "
                      "say nothing about learning. Training > Set up training (Ctrl+T) chooses "
                      "data files.")
                       .arg(setup.builtin_sample_count);
  const QDir dir = QFileInfo(model_path).absoluteDir();
  const QStringList found = dir.entryList(
      {QStringLiteral("*input*.bin"), QStringLiteral("*target*.bin")}, QDir::Files, QDir::Name);
  if (!found.isEmpty() && !main.inputs.empty()) {
    notice +=
        QLatin1Char(' ') + tr("Found beside the model: %1.").arg(found.join(QStringLiteral(", ")));
  }
  notices << notice;
  return notices;
}

Status AppController::fail(Status status, const QString& model_path) {
  // Name the file once: readers already put the path in their messages.
  const std::string path = model_path.toStdString();
  if (std::string(status.message()).find(path) == std::string::npos) status.Prepend(path);
  window_->setNotices({source_ || window_->graph().subgraphs.empty()
                           ? tr("Cannot open %1").arg(QString::fromUtf8(status.message()))
                           : tr("Read-only, training is off: %1. The graph and the memory of "
                                "one inference are shown.")
                                 .arg(QString::fromUtf8(status.message()))});
  EventBatch failure;
  failure.add(StatusMessage{MessageLevel::kError, QString::fromUtf8(status.message())});
  store_->append(failure);
  return status;
}

void AppController::applyWarnings(const TrainabilityConfig& config) {
  if (!source_ || !source_->model()) return;
  const Subgraph& main = source_->model()->graph().main();
  LayersPanel* panel = window_->layersPanel();
  panel->clearOpWarnings();
  std::map<uint32_t, QStringList> texts;
  for (const OnertDifference& d :
       FindOnertDifferences(main, SelectBackwardRange(main, config), setup_.options.optimizer)) {
    texts[d.op_index] << QString::fromStdString(d.text);
  }
  for (const auto& [op_index, lines] : texts) {
    panel->setOpWarning(static_cast<int>(op_index),
                        QStringLiteral("On a board, onert-micro differs here:\n• ") +
                            lines.join(QStringLiteral("\n• ")));
  }
}

namespace {

QString SettingsGroup(const QString& model_path) {
  const QByteArray path = QFileInfo(model_path).absoluteFilePath().toUtf8();
  return QStringLiteral("trainingSetup/") +
         QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}

}  // namespace

void AppController::RememberSetup(const QString& model_path, const TrainingSetupRequest& setup) {
  QSettings settings = AppSettings();
  settings.beginGroup(SettingsGroup(model_path));
  const TrainingOptions& o = setup.options;
  settings.setValue(QStringLiteral("model"), QFileInfo(model_path).absoluteFilePath());
  settings.setValue(QStringLiteral("optimizer"), static_cast<int>(o.optimizer));
  settings.setValue(QStringLiteral("learningRate"), static_cast<double>(o.learning_rate));
  settings.setValue(QStringLiteral("beta1"), static_cast<double>(o.beta1));
  settings.setValue(QStringLiteral("beta2"), static_cast<double>(o.beta2));
  settings.setValue(QStringLiteral("epsilon"), static_cast<double>(o.epsilon));
  settings.setValue(QStringLiteral("loss"), static_cast<int>(o.loss));
  settings.setValue(QStringLiteral("metric"), static_cast<int>(o.metric));
  settings.setValue(QStringLiteral("batchSize"), o.batch_size);
  settings.setValue(QStringLiteral("epochs"), o.epochs);
  settings.setValue(QStringLiteral("useBuiltinData"), setup.use_builtin_data);
  settings.setValue(QStringLiteral("inputs"), setup.data.inputs);
  settings.setValue(QStringLiteral("target"), setup.data.target);
  settings.setValue(QStringLiteral("testInputs"), setup.data.test_inputs);
  settings.setValue(QStringLiteral("testTarget"), setup.data.test_target);
  settings.endGroup();
}

bool AppController::RecallSetup(const QString& model_path, TrainingSetupRequest* setup) {
  QSettings settings = AppSettings();
  settings.beginGroup(SettingsGroup(model_path));
  if (!settings.contains(QStringLiteral("optimizer"))) return false;
  // Enum values out of range (an edited file) fall back to the first kind; validation and the
  // combo boxes then show what was chosen.
  const auto enum_value = [&settings](const char* key, int count) {
    const int value = settings.value(QLatin1String(key)).toInt();
    return value >= 0 && value < count ? value : 0;
  };
  const auto float_value = [&settings](const char* key) {
    return settings.value(QLatin1String(key)).toFloat();
  };
  TrainingOptions& o = setup->options;
  o.optimizer = static_cast<OptimizerKind>(enum_value("optimizer", 2));
  o.learning_rate = float_value("learningRate");
  o.beta1 = float_value("beta1");
  o.beta2 = float_value("beta2");
  o.epsilon = float_value("epsilon");
  o.loss = static_cast<LossKind>(enum_value("loss", 5));
  o.metric = static_cast<MetricKind>(enum_value("metric", 6));
  o.batch_size = settings.value(QStringLiteral("batchSize")).toUInt();
  o.epochs = settings.value(QStringLiteral("epochs")).toUInt();
  setup->use_builtin_data = settings.value(QStringLiteral("useBuiltinData"), true).toBool();
  setup->data.inputs = settings.value(QStringLiteral("inputs")).toStringList();
  setup->data.target = settings.value(QStringLiteral("target")).toString();
  setup->data.test_inputs = settings.value(QStringLiteral("testInputs")).toStringList();
  setup->data.test_target = settings.value(QStringLiteral("testTarget")).toString();
  return true;
}

}  // namespace trainscope
