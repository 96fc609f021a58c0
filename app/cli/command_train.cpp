// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli train MODEL --input FILE --target FILE [...]`: trains with onert-micro's
// semantics (see docs/cli.md for every option). Defaults come from the model's CIRCLE_TRAINING
// metadata when it has one, then from onert-micro's OMConfig; options given on the command line
// win. Outputs (model, checkpoint) are written atomically.
#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/event_json.h"
#include "app/common/cli_util.h"
#include "app/common/training_args.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"
#include "engine/plan/onert_differences.h"
#include "engine/train/checkpoint_file.h"
#include "engine/train/losses.h"
#include "engine/train/metrics.h"

namespace trainscope::cli {
namespace {

void AddOptions(QCommandLineParser* parser) {
  AddTrainingDataOptions(parser);
  // Test data, outputs and checkpoints are train-only; the board simulator has link options.
  AddOption(parser, "test-input", "Test inputs for the per-epoch metric.", "FILE");
  AddOption(parser, "test-target", "Test targets for the per-epoch metric.", "FILE");
  AddTrainingOptions(parser);
  AddOption(parser, "save-model", "Write the trained model (.circle) here.", "FILE");
  AddOption(parser, "save-checkpoint", "Write an onert-micro checkpoint here after training.",
            "FILE");
  AddOption(parser, "load-checkpoint", "Start from an onert-micro checkpoint.", "FILE");
  AddOption(parser, "events", "Write training events as JSON lines (docs/events.md).", "FILE");
  AddOption(parser, "json", "Print a JSON summary instead of text.");
}

void DrawProgress(uint32_t epoch, uint32_t epochs, uint32_t step, uint32_t steps, float loss) {
  constexpr int kWidth = 24;
  const int filled = steps == 0 ? kWidth : static_cast<int>(kWidth * step / steps);
  std::fprintf(stderr, "\repoch %u/%u [%.*s%*s] %u/%u loss %.5f ", epoch, epochs, filled,
               "########################", kWidth - filled, "", step, steps,
               static_cast<double>(loss));
  std::fflush(stderr);
}

Status LoadCheckpoint(const QString& path, const CheckpointConfig& config, Model* model,
                      CheckpointData* data) {
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(ReadFileBytes(path.toStdString(), size_t{1} << 31, &bytes));
  Status status = ReadCheckpoint(*model, config, bytes.data(), bytes.size(), data);
  if (!status.ok()) return status.Prepend(path.toStdString());
  return ApplyCheckpointWeights(*data, model);
}

// Adam state in a checkpoint is full-size; the trainer keeps only the trained rows.
void RestoreAdamState(const CheckpointData& data, Trainer* trainer) {
  for (const ParameterGradient& p : trainer->parameters()) {
    for (const CheckpointTensor& t : data.tensors) {
      if (t.tensor != p.tensor || t.adam_m.empty()) continue;
      float* m = trainer->adam_m(p.tensor);
      float* v = trainer->adam_v(p.tensor);
      if (m == nullptr || v == nullptr) continue;
      const size_t row = p.row_bytes / sizeof(float);
      const size_t first = p.row_begin * row;
      const size_t count = (p.row_end - p.row_begin) * row;
      std::copy(t.adam_m.begin() + static_cast<long>(first),
                t.adam_m.begin() + static_cast<long>(first + count), m);
      std::copy(t.adam_v.begin() + static_cast<long>(first),
                t.adam_v.begin() + static_cast<long>(first + count), v);
    }
  }
}

Status SaveCheckpoint(const QString& path, const CheckpointConfig& config, Model* model,
                      Trainer* trainer) {
  TS_RETURN_IF_ERROR(trainer->WriteWeightsToModel());
  CheckpointData data;
  TS_RETURN_IF_ERROR(CaptureCheckpoint(*model, config, &data));
  data.num_step = trainer->optimizer_step();
  data.num_epoch = trainer->epoch();
  if (config.optimizer == OptimizerKind::kAdam && trainer->optimizer_step() > 0) {
    data.has_adam_state = true;
    for (CheckpointTensor& t : data.tensors) {
      t.adam_m.assign(t.weights.size(), 0.0f);
      t.adam_v.assign(t.weights.size(), 0.0f);
      for (const ParameterGradient& p : trainer->parameters()) {
        if (p.tensor != t.tensor || trainer->adam_m(p.tensor) == nullptr) continue;
        const size_t row = p.row_bytes / sizeof(float);
        const size_t count = (p.row_end - p.row_begin) * row;
        std::copy(trainer->adam_m(p.tensor), trainer->adam_m(p.tensor) + count,
                  t.adam_m.begin() + static_cast<long>(p.row_begin * row));
        std::copy(trainer->adam_v(p.tensor), trainer->adam_v(p.tensor) + count,
                  t.adam_v.begin() + static_cast<long>(p.row_begin * row));
      }
    }
  }
  std::vector<uint8_t> bytes;
  TS_RETURN_IF_ERROR(WriteCheckpoint(*model, config, data, &bytes));
  return WriteFileAtomically(path, reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

int RunTrain(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Train a model with onert-micro's semantics."));
  AddOptions(&parser);
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  Status status = CheckTrainingArguments(parser, QStringLiteral("train"));
  if (!status.ok()) return Fail(status);
  if (parser.isSet(QStringLiteral("test-input")) != parser.isSet(QStringLiteral("test-target"))) {
    return Fail(QStringLiteral("--test-input and --test-target go together"), 2);
  }
  Model model;
  TrainingSetup setup;
  DataSet train, test;
  status = LoadTrainingRun(parser, &model, &setup, &train);
  if (!status.ok()) return Fail(status);
  const Subgraph& main = model.graph().main();
  const TrainingOptions& options = setup.options;
  const size_t output_elements = OutputElementCount(main);
  const bool has_test = parser.isSet(QStringLiteral("test-input"));
  if (has_test) {
    status = ReadDataSet(main, parser.values(QStringLiteral("test-input")),
                         parser.value(QStringLiteral("test-target")),
                         TargetElementCount(options.metric, output_elements),
                         QStringLiteral("test"), &test);
    if (!status.ok()) return Fail(status);
  } else if (TargetElementCount(options.metric, output_elements) !=
             TargetElementCount(options.loss, output_elements)) {
    return Fail(QStringLiteral("metric %1 needs targets shaped differently from loss %2; give "
                               "--test-input/--test-target")
                    .arg(QString::fromLatin1(MetricName(options.metric)),
                         QString::fromLatin1(LossName(options.loss))),
                2);
  }
  status = CheckBatchFits(train, options);
  if (!status.ok()) return Fail(status);

  CheckpointConfig checkpoint_config{options.optimizer, setup.trainability.num_train_layers};
  CheckpointData loaded;
  if (parser.isSet(QStringLiteral("load-checkpoint"))) {
    status = LoadCheckpoint(parser.value(QStringLiteral("load-checkpoint")), checkpoint_config,
                            &model, &loaded);
    if (!status.ok()) return Fail(status);
  }
  Trainer trainer;
  status = trainer.Init(&model, options, setup.trainability);
  if (!status.ok()) return Fail(status);
  if (parser.isSet(QStringLiteral("load-checkpoint"))) {
    RestoreAdamState(loaded, &trainer);
    trainer.set_progress(loaded.num_step, loaded.num_epoch);
  }
  // The trainer's own notes, then where a board running onert-micro would compute differently.
  std::vector<std::string> warnings = trainer.warnings();
  for (const OnertDifference& d :
       FindOnertDifferences(main, trainer.selection(), options.optimizer)) {
    warnings.push_back("operator " + std::to_string(d.op_index) + " (" +
                       OpcodeName(main.operators[d.op_index].opcode) + "), on a board: " + d.text);
  }
  const bool json = parser.isSet(QStringLiteral("json"));
  if (!json) {
    for (const std::string& warning : warnings)
      std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }

  std::unique_ptr<FILE, int (*)(FILE*)> events(nullptr, &std::fclose);
  std::unique_ptr<JsonLinesObserver> observer;
  if (parser.isSet(QStringLiteral("events"))) {
    events.reset(std::fopen(qPrintable(parser.value(QStringLiteral("events"))), "w"));
    if (!events)
      return Fail(QStringLiteral("cannot write events file '%1'")
                      .arg(parser.value(QStringLiteral("events"))));
    observer = std::make_unique<JsonLinesObserver>(events.get());
    trainer.set_observer(observer.get());
  }

  const bool progress = !json && isatty(fileno(stderr));
  const uint32_t steps = train.sample_count / options.batch_size;
  QJsonArray epochs;
  for (uint32_t e = 0; e < options.epochs; ++e) {
    const uint32_t epoch = trainer.epoch() + 1;
    trainer.set_progress(trainer.optimizer_step(), epoch);
    double loss_sum = 0.0;
    for (uint32_t s = 0; s < steps; ++s) {
      float loss = 0.0f;
      status = trainer.TrainStep(train, s * options.batch_size, &loss);
      if (!status.ok()) return Fail(status.Prepend("epoch " + std::to_string(epoch)));
      // A streamed output stops with an error, not silently, when its disk fills.
      if (events && std::ferror(events.get()) != 0) {
        return Fail(QStringLiteral("cannot write events file '%1': %2")
                        .arg(parser.value(QStringLiteral("events")),
                             QString::fromLocal8Bit(std::strerror(errno))));
      }
      loss_sum += loss;
      if (progress)
        DrawProgress(e + 1, options.epochs, s + 1, steps, static_cast<float>(loss_sum / (s + 1)));
    }
    float metric = 0.0f;
    status = trainer.Evaluate(has_test ? test : train, options.metric, &metric);
    if (!status.ok()) return Fail(status);
    if (observer) observer->OnMetric({epoch, static_cast<uint8_t>(options.metric), metric});
    const double loss = loss_sum / steps;
    if (progress) std::fputc('\n', stderr);
    if (!json) {
      std::printf("epoch %u: loss %.6f, %s %.6f\n", epoch, loss, MetricName(options.metric),
                  static_cast<double>(metric));
      std::fflush(stdout);
    }
    if (json) {  // kept only for the JSON summary: an epoch count is not bounded
      epochs.append(QJsonObject{{QStringLiteral("epoch"), static_cast<int>(epoch)},
                                {QStringLiteral("loss"), loss},
                                {QStringLiteral("metric"), static_cast<double>(metric)}});
    }
  }

  if (observer) observer->Finish();
  if (events && (std::fflush(events.get()) != 0 || std::ferror(events.get()) != 0)) {
    return Fail(QStringLiteral("cannot write events file '%1': %2")
                    .arg(parser.value(QStringLiteral("events")),
                         QString::fromLocal8Bit(std::strerror(errno))));
  }
  if (parser.isSet(QStringLiteral("save-model"))) {
    status = trainer.WriteWeightsToModel();
    if (status.ok()) {
      status = WriteFileAtomically(parser.value(QStringLiteral("save-model")),
                                   reinterpret_cast<const char*>(model.bytes().data()),
                                   model.bytes().size());
    }
    if (!status.ok()) return Fail(status);
  }
  if (parser.isSet(QStringLiteral("save-checkpoint"))) {
    status = SaveCheckpoint(parser.value(QStringLiteral("save-checkpoint")), checkpoint_config,
                            &model, &trainer);
    if (!status.ok()) return Fail(status);
  }
  if (json) {
    QJsonArray json_warnings;
    for (const std::string& w : warnings) json_warnings.append(QString::fromStdString(w));
    const QJsonObject summary{
        {QStringLiteral("epochs"), epochs},
        {QStringLiteral("metric_name"), QString::fromLatin1(MetricName(options.metric))},
        {QStringLiteral("optimizer_steps"), static_cast<qint64>(trainer.optimizer_step())},
        {QStringLiteral("heap_peak_bytes"), static_cast<qint64>(trainer.memory().heap_peak_bytes)},
        {QStringLiteral("arena_bytes"), static_cast<qint64>(trainer.memory().arena_bytes)},
        {QStringLiteral("lower_bound_bytes"),
         static_cast<qint64>(trainer.memory().lower_bound_bytes)},
        {QStringLiteral("warnings"), json_warnings}};
    std::fputs(QJsonDocument(summary).toJson(QJsonDocument::Indented).constData(), stdout);
  }
  return 0;
}

}  // namespace trainscope::cli
