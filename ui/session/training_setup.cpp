// SPDX-License-Identifier: Apache-2.0
#include "ui/session/training_setup.h"

#include <QFileInfo>

#include <cmath>

#include "engine/train/losses.h"
#include "engine/train/metrics.h"

namespace trainscope {
namespace {

constexpr int64_t kFloatBytes = static_cast<int64_t>(sizeof(float));

QString ShapeText(const std::vector<int32_t>& shape) {
  QStringList dims;
  for (int32_t d : shape) dims << QString::number(d);
  return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString Number(float value) {
  return QString::number(static_cast<double>(value), 'g', 7);
}

size_t OutputFloats(const Subgraph& main) {
  if (main.outputs.empty()) return 0;
  const int32_t t = main.outputs[0];
  if (t < 0 || static_cast<size_t>(t) >= main.tensors.size()) return 0;
  return main.tensors[static_cast<size_t>(t)].element_count();
}

size_t MetricFloats(MetricKind metric, LossKind loss, size_t outputs) {
  return metric == MetricKind::kNone ? TargetElementCount(loss, outputs)
                                     : TargetElementCount(metric, outputs);
}

// One data set (training or test): file presence, sizes, and sample counts between files.
class DataSetCheck {
 public:
  DataSetCheck(const Subgraph& main, bool test, std::vector<SetupIssue>* issues)
      : main_(main), test_(test), issues_(issues) {}

  // Returns the sample count when every file is usable, else 0.
  uint32_t run(const QStringList& inputs, const QString& target, size_t target_floats,
               const QString& target_kind) {
    bool ok = true;
    int64_t samples = -1;
    for (size_t i = 0; i < main_.inputs.size(); ++i) {
      const int index = static_cast<int>(i);
      const int32_t id = main_.inputs[i];
      if (id < 0 || static_cast<size_t>(id) >= main_.tensors.size()) continue;
      const Tensor& tensor = main_.tensors[static_cast<size_t>(id)];
      const size_t floats = tensor.element_count();
      const QString role =
          QStringLiteral("%1 '%2'").arg(test_ ? QStringLiteral("test input %1").arg(index)
                                              : QStringLiteral("input %1").arg(index),
                                        QString::fromStdString(tensor.name));
      const QString shape = QStringLiteral("input shape %1, %2 bytes per sample")
                                .arg(ShapeText(tensor.shape))
                                .arg(static_cast<int64_t>(floats) * kFloatBytes);
      const QString path = index < inputs.size() ? inputs[index] : QString();
      int64_t bytes = 0;
      if (!fileSize(path, role, shape, inputField(), index, &bytes)) {
        ok = false;
        continue;
      }
      const QString problem = SampleFileSizeProblem(bytes, floats);
      if (!problem.isEmpty()) {
        add(inputField(), index,
            QStringLiteral("%1 file '%2' %3; the model's %4.").arg(role, path, problem, shape));
        ok = false;
        continue;
      }
      const int64_t count = bytes / (static_cast<int64_t>(floats) * kFloatBytes);
      if (samples >= 0 && count != samples) {
        add(inputField(), index,
            QStringLiteral("%1 file '%2' holds %3 samples, input 0 holds %4.")
                .arg(role, path)
                .arg(count)
                .arg(samples));
        ok = false;
      } else if (samples < 0) {
        samples = count;
      }
    }
    if (inputs.size() > static_cast<int>(main_.inputs.size())) {
      add(inputField(), static_cast<int>(main_.inputs.size()),
          QStringLiteral("the model has %1 input(s), %2 %3 files are given.")
              .arg(main_.inputs.size())
              .arg(inputs.size())
              .arg(test_ ? QStringLiteral("test input") : QStringLiteral("input")));
      ok = false;
    }

    const QString role = test_ ? QStringLiteral("test target") : QStringLiteral("target");
    const QString need = QStringLiteral("%1 needs %2 float32 per sample (%3 bytes)")
                             .arg(target_kind)
                             .arg(target_floats)
                             .arg(static_cast<int64_t>(target_floats) * kFloatBytes);
    int64_t bytes = 0;
    if (!fileSize(target, role, need, targetField(), -1, &bytes)) return 0;
    const QString problem = SampleFileSizeProblem(bytes, target_floats);
    if (!problem.isEmpty()) {
      add(targetField(), -1,
          QStringLiteral("%1 file '%2' %3; the %4.").arg(role, target, problem, need));
      return 0;
    }
    const int64_t targets = bytes / (static_cast<int64_t>(target_floats) * kFloatBytes);
    if (samples >= 0 && targets != samples) {
      QString message =
          QStringLiteral("%1 file '%2' holds %3 samples of %4 float(s), the inputs %5.")
              .arg(role, target)
              .arg(targets)
              .arg(target_floats)
              .arg(samples);
      const size_t outputs = OutputFloats(main_);
      if (target_floats == 1 && outputs > 1 &&
          bytes == samples * static_cast<int64_t>(outputs) * kFloatBytes) {
        message += QStringLiteral(
                       " It holds %1 values per sample (one-hot?), but %2 takes one class index "
                       "per sample: choose a dense loss or convert the labels.")
                       .arg(outputs)
                       .arg(target_kind);
      } else if (target_floats > 1 && bytes == samples * kFloatBytes) {
        message += QStringLiteral(
                       " It holds one value per sample (class indices?), but %1 takes %2: "
                       "choose sparse-ce / sparse-accuracy or one-hot targets.")
                       .arg(target_kind)
                       .arg(target_floats);
      }
      add(targetField(), -1, message);
      return 0;
    }
    return ok && samples > 0 ? static_cast<uint32_t>(samples) : 0;
  }

 private:
  SetupField inputField() const { return test_ ? SetupField::kTestInput : SetupField::kInput; }
  SetupField targetField() const { return test_ ? SetupField::kTestTarget : SetupField::kTarget; }

  void add(SetupField field, int index, const QString& message) {
    issues_->push_back(SetupIssue{field, index, message});
  }

  bool fileSize(const QString& path, const QString& role, const QString& expected, SetupField field,
                int index, int64_t* bytes) {
    if (path.isEmpty()) {
      add(field, index, QStringLiteral("choose the raw float32 %1 file (%2).").arg(role, expected));
      return false;
    }
    const QFileInfo info(path);
    if (!info.exists() || !info.isFile()) {
      add(field, index, QStringLiteral("%1 file '%2' does not exist.").arg(role, path));
      return false;
    }
    if (!info.isReadable()) {
      add(field, index, QStringLiteral("%1 file '%2' cannot be read.").arg(role, path));
      return false;
    }
    *bytes = info.size();
    return true;
  }

  const Subgraph& main_;
  bool test_;
  std::vector<SetupIssue>* issues_;
};

}  // namespace

bool TrainingDataFiles::hasTestSet() const {
  for (const QString& path : test_inputs)
    if (!path.isEmpty()) return true;
  return !test_target.isEmpty();
}

QString SetupFieldName(SetupField field) {
  switch (field) {
    case SetupField::kInput:
      return QStringLiteral("input");
    case SetupField::kTarget:
      return QStringLiteral("target");
    case SetupField::kTestInput:
      return QStringLiteral("test input");
    case SetupField::kTestTarget:
      return QStringLiteral("test target");
    case SetupField::kOptimizer:
      return QStringLiteral("optimizer");
    case SetupField::kLearningRate:
      return QStringLiteral("learning rate");
    case SetupField::kBeta1:
      return QStringLiteral("beta1");
    case SetupField::kBeta2:
      return QStringLiteral("beta2");
    case SetupField::kEpsilon:
      return QStringLiteral("epsilon");
    case SetupField::kLoss:
      return QStringLiteral("loss");
    case SetupField::kMetric:
      return QStringLiteral("metric");
    case SetupField::kBatchSize:
      return QStringLiteral("batch size");
    case SetupField::kEpochs:
      return QStringLiteral("epochs");
  }
  return QString();
}

std::vector<SetupIssue> ValidateTrainingOptions(const TrainingOptions& options) {
  std::vector<SetupIssue> issues;
  const float lr = options.learning_rate;
  if (!std::isfinite(lr) || lr <= 0.0f) {
    issues.push_back(
        {SetupField::kLearningRate, -1,
         QStringLiteral("learning rate %1: it must be a finite number > 0.").arg(Number(lr))});
  }
  if (options.optimizer == OptimizerKind::kAdam) {
    for (const auto& [field, value] : {std::pair{SetupField::kBeta1, options.beta1},
                                       std::pair{SetupField::kBeta2, options.beta2}}) {
      if (!(value >= 0.0f && value < 1.0f)) {
        issues.push_back({field, -1,
                          QStringLiteral("%1 %2: Adam needs a value in [0, 1).")
                              .arg(SetupFieldName(field), Number(value))});
      }
    }
    if (!std::isfinite(options.epsilon) || options.epsilon <= 0.0f) {
      issues.push_back({SetupField::kEpsilon, -1,
                        QStringLiteral("epsilon %1: it must be a finite number > 0.")
                            .arg(Number(options.epsilon))});
    }
  }
  if (options.batch_size == 0) {
    issues.push_back(
        {SetupField::kBatchSize, -1, QStringLiteral("batch size 0: at least 1 sample per step.")});
  }
  if (options.epochs == 0) {
    issues.push_back({SetupField::kEpochs, -1, QStringLiteral("epochs 0: train at least 1.")});
  }
  return issues;
}

QString SampleFileSizeProblem(int64_t bytes, size_t floats_per_sample) {
  const int64_t sample_bytes = static_cast<int64_t>(floats_per_sample) * kFloatBytes;
  if (sample_bytes > 0 && bytes > 0 && bytes % sample_bytes == 0) return QString();
  return QStringLiteral("has %1 bytes, not a whole number of samples of %2 float32 (%3 bytes each)")
      .arg(bytes)
      .arg(floats_per_sample)
      .arg(sample_bytes);
}

std::vector<SetupIssue> ValidateTrainingSetup(const Subgraph& main,
                                              const TrainingSetupRequest& setup) {
  std::vector<SetupIssue> issues = ValidateTrainingOptions(setup.options);
  const TrainingOptions& o = setup.options;
  const size_t outputs = OutputFloats(main);
  const size_t loss_floats = TargetElementCount(o.loss, outputs);
  const size_t metric_floats = MetricFloats(o.metric, o.loss, outputs);
  uint32_t samples = setup.builtin_sample_count;
  bool has_test_set = setup.builtin_has_test_set;
  if (!setup.use_builtin_data) {
    samples = DataSetCheck(main, false, &issues)
                  .run(setup.data.inputs, setup.data.target, loss_floats,
                       QStringLiteral("loss %1").arg(QLatin1String(LossName(o.loss))));
    has_test_set = setup.data.hasTestSet();
    if (has_test_set) {
      DataSetCheck(main, true, &issues)
          .run(setup.data.test_inputs, setup.data.test_target, metric_floats,
               QStringLiteral("metric %1")
                   .arg(QLatin1String(o.metric == MetricKind::kNone ? LossName(o.loss)
                                                                    : MetricName(o.metric))));
    }
  }
  if (samples > 0 && o.batch_size > samples) {
    issues.push_back({SetupField::kBatchSize, -1,
                      QStringLiteral("batch size %1 is larger than the %2 training samples.")
                          .arg(o.batch_size)
                          .arg(samples)});
  }
  // Without a test set the metric reads the training targets, shaped for the loss.
  if (!has_test_set && o.metric != MetricKind::kNone && metric_floats != loss_floats) {
    issues.push_back({SetupField::kMetric, -1,
                      QStringLiteral("metric %1 needs %2 float(s) per target, but without a test "
                                     "set it reads the training targets of loss %3 (%4 each).")
                          .arg(QLatin1String(MetricName(o.metric)))
                          .arg(metric_floats)
                          .arg(QLatin1String(LossName(o.loss)))
                          .arg(loss_floats)});
  }
  return issues;
}

}  // namespace trainscope
