// SPDX-License-Identifier: Apache-2.0
#include "app/common/training_args.h"

#include "app/common/cli_util.h"
#include "engine/kernels/dense_loops.h"
#include "engine/train/losses.h"
#include "engine/train/training_metadata.h"
#include "ui/session/training_setup.h"

namespace trainscope::cli {
namespace {

const char* OptionName(SetupField field) {
  switch (field) {
    case SetupField::kLearningRate:
      return "lr";
    case SetupField::kBeta1:
      return "beta1";
    case SetupField::kBeta2:
      return "beta2";
    case SetupField::kEpsilon:
      return "epsilon";
    case SetupField::kBatchSize:
      return "batch";
    case SetupField::kEpochs:
      return "epochs";
    default:
      return "options";
  }
}

}  // namespace

void AddTrainingOptions(QCommandLineParser* parser) {
  AddOptimizerOption(parser);
  AddOption(parser, "lr", "Learning rate (default: the metadata, else 0.001).", "F");
  AddOption(parser, "beta1", "Adam beta1 (default 0.9).", "F");
  AddOption(parser, "beta2", "Adam beta2 (default 0.9, onert-micro's default).", "F");
  AddOption(parser, "epsilon", "Adam epsilon, added inside the square root (default 1e-7).", "F");
  AddOption(parser, "loss", "mse, ce, sparse-ce, mae or bce (default: the metadata, else mse).",
            "NAME");
  AddOption(parser, "metric",
            "mse, mae, ce, accuracy or sparse-accuracy (default: follows the loss).", "NAME");
  AddBatchOption(parser);
  AddOption(parser, "epochs", "Epochs (default: the metadata, else 1).", "N");
  AddTrainabilityOptions(parser);
  AddOption(parser, "onert-math",
            "Compute gradients and updates as onert-micro does where it departs from the correct "
            "result: CONV_2D backward (padding ignored, stride and dilation swapped in the weight "
            "gradient, its input gradient, LOWER_1_2_PART training the upper channels), "
            "MAX_POOL_2D backward (overlapping windows overwrite), SOFTMAX backward (beta "
            "ignored), and SGD's and Adam's LOWER_1_2_PART update (docs/onert-math.md).");
  AddOption(parser, "kernels",
            "fastest (default), avx512, avx2 or reference: the products' code on this machine. "
            "reference runs the portable loops a board runs, so sums are added in the board's "
            "order and Adam uses onert-micro's formula as written, three divisions a value "
            "(only the C library's exp and log still differ).",
            "PATH");
}

Status ParseKernelPath(const QString& text, KernelPath* path) {
  if (text == QLatin1String("fastest")) {
    *path = FastestKernelPath();
    return Status::Ok();
  }
  for (KernelPath candidate : {KernelPath::kReference, KernelPath::kAvx2, KernelPath::kAvx512}) {
    if (text == QLatin1String(KernelPathName(candidate))) {
      if (static_cast<int>(candidate) > static_cast<int>(FastestKernelPath())) {
        return Status::Error(StatusCode::kInvalidArgument, "--kernels %s: this CPU has %s at most",
                             qPrintable(text), KernelPathName(FastestKernelPath()));
      }
      *path = candidate;
      return Status::Ok();
    }
  }
  return Status::Error(StatusCode::kInvalidArgument,
                       "--kernels '%s': expected fastest, avx512, avx2 or reference",
                       qPrintable(text));
}

Status ParseTrainingSetup(const QCommandLineParser& parser, const Model& model,
                          TrainingSetup* setup) {
  const Subgraph& main = model.graph().main();
  TS_RETURN_IF_ERROR(DefaultTrainingSetup(model, setup));
  TrainingOptions& o = setup->options;
  if (parser.isSet(QStringLiteral("optimizer"))) {
    TS_RETURN_IF_ERROR(ParseOptimizer(parser.value(QStringLiteral("optimizer")), &o.optimizer));
  }
  TS_RETURN_IF_ERROR(ParseFloat(parser, QStringLiteral("lr"), &o.learning_rate));
  TS_RETURN_IF_ERROR(ParseFloat(parser, QStringLiteral("beta1"), &o.beta1));
  TS_RETURN_IF_ERROR(ParseFloat(parser, QStringLiteral("beta2"), &o.beta2));
  TS_RETURN_IF_ERROR(ParseFloat(parser, QStringLiteral("epsilon"), &o.epsilon));
  if (parser.isSet(QStringLiteral("loss"))) {
    TS_RETURN_IF_ERROR(ParseLoss(parser.value(QStringLiteral("loss")), &o.loss));
    o.metric = DefaultMetric(o.loss);
  }
  if (parser.isSet(QStringLiteral("metric"))) {
    TS_RETURN_IF_ERROR(ParseMetric(parser.value(QStringLiteral("metric")), &o.metric));
  }
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("batch"), 1, &o.batch_size));
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("epochs"), 1, &o.epochs));
  if (parser.isSet(QStringLiteral("onert-math"))) o.math = BackwardMath::kOnertMicro;
  if (parser.isSet(QStringLiteral("kernels"))) {
    KernelPath path = KernelPath::kReference;
    TS_RETURN_IF_ERROR(ParseKernelPath(parser.value(QStringLiteral("kernels")), &path));
    UseKernelPath(path);  // process-wide: set before anything trains
  }
  // A model's metadata is a file from elsewhere: an epoch count nobody means is said, not run.
  if (setup->from_metadata && !parser.isSet(QStringLiteral("epochs")) &&
      o.epochs > kMaxMetadataEpochs) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the model's CIRCLE_TRAINING asks for %u epochs (more than %u); pass "
                         "--epochs N to choose",
                         o.epochs, kMaxMetadataEpochs);
  }
  // The same range checks as the GUI's set-up dialog (values may also come from the metadata).
  const std::vector<SetupIssue> issues = ValidateTrainingOptions(o);
  if (!issues.empty()) {
    return Status::Error(StatusCode::kInvalidArgument, "--%s: %s", OptionName(issues[0].field),
                         qPrintable(issues[0].message));
  }
  return ParseTrainability(parser, main, &setup->trainability);
}

void AddTrainingDataOptions(QCommandLineParser* parser) {
  AddModelArgument(parser);
  parser->addOption(
      {QStringLiteral("input"),
       QStringLiteral("Training inputs (raw float32, sample-major), one file per graph input."),
       QStringLiteral("FILE")});
  parser->addOption(
      {QStringLiteral("target"),
       QStringLiteral("Training targets (raw float32; sparse labels: one float per sample)."),
       QStringLiteral("FILE")});
}

Status CheckTrainingArguments(const QCommandLineParser& parser, const QString& program) {
  if (parser.positionalArguments().size() != 1) {
    return Status::Error(StatusCode::kInvalidArgument, "%s takes exactly one MODEL file",
                         qPrintable(program));
  }
  if (!parser.isSet(QStringLiteral("input")) || !parser.isSet(QStringLiteral("target"))) {
    return Status::Error(StatusCode::kInvalidArgument, "%s needs --input and --target",
                         qPrintable(program));
  }
  return Status::Ok();
}

Status LoadTrainingRun(const QCommandLineParser& parser, Model* model, TrainingSetup* setup,
                       DataSet* train) {
  return LoadTrainingRun(parser, parser.positionalArguments().first(), model, setup, train);
}

Status LoadTrainingRun(const QCommandLineParser& parser, const QString& model_path, Model* model,
                       TrainingSetup* setup, DataSet* train) {
  TS_RETURN_IF_ERROR(ReadModelFile(model_path.toStdString(), model));
  TS_RETURN_IF_ERROR(ParseTrainingSetup(parser, *model, setup));
  const Subgraph& main = model->graph().main();
  return ReadDataSet(main, parser.values(QStringLiteral("input")),
                     parser.value(QStringLiteral("target")),
                     TargetElementCount(setup->options.loss, OutputElementCount(main)),
                     QStringLiteral("training"), train);
}

void AddStepPlanOptions(QCommandLineParser* parser) {
  AddModelArgument(parser);
  AddTrainabilityOptions(parser);
  AddOptimizerOption(parser);
  parser->addOption(
      {QStringLiteral("inference"), QStringLiteral("Plan one inference instead of a train step.")});
  AddBatchOption(parser);
}

Status LoadStepPlan(const QCommandLineParser& parser, StepPlan* plan) {
  const bool inference = parser.isSet(QStringLiteral("inference"));
  if (inference && (parser.isSet(QStringLiteral("train-layers")) ||
                    parser.isSet(QStringLiteral("train-config")))) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "--inference cannot be combined with --train-layers or --train-config");
  }
  TS_RETURN_IF_ERROR(
      ReadModelFile(parser.positionalArguments().first().toStdString(), &plan->model));
  // The same defaults as `train` and the app: the model's metadata, then onert-micro's.
  TrainingSetup defaults;
  TS_RETURN_IF_ERROR(DefaultTrainingSetup(plan->model, &defaults));
  plan->options.inference = inference;
  plan->options.optimizer = defaults.options.optimizer;
  plan->options.batch_size = defaults.options.batch_size;
  plan->trainability = inference ? TrainabilityConfig() : defaults.trainability;
  TS_RETURN_IF_ERROR(ParseTrainability(parser, plan->model.graph().main(), &plan->trainability));
  if (parser.isSet(QStringLiteral("optimizer"))) {
    TS_RETURN_IF_ERROR(
        ParseOptimizer(parser.value(QStringLiteral("optimizer")), &plan->options.optimizer));
  }
  return ParseUnsigned(parser, QStringLiteral("batch"), 1, &plan->options.batch_size);
}

}  // namespace trainscope::cli
