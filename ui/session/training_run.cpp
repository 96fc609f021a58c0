// SPDX-License-Identifier: Apache-2.0
#include "ui/session/training_run.h"

#include <cmath>
#include <cstring>

#include "engine/train/training_metadata.h"
#include "ui/session/training_setup.h"

namespace trainscope {

MetricKind DefaultMetric(LossKind loss) {
  switch (loss) {
    case LossKind::kSparseCrossEntropy:
      return MetricKind::kSparseCrossEntropyAccuracy;
    case LossKind::kCrossEntropy:
      return MetricKind::kAccuracy;
    case LossKind::kMae:
      return MetricKind::kMae;
    default:
      return MetricKind::kMse;
  }
}

Status DefaultTrainingSetup(const Model& model, TrainingSetup* setup) {
  TrainingSetup defaults;
  TrainingMetadata metadata;
  bool found = false;
  TS_RETURN_IF_ERROR(ReadTrainingMetadata(model, &metadata, &found));
  if (found) {
    TS_RETURN_IF_ERROR(ToTrainingOptions(metadata, model.graph().main().operators.size(),
                                         &defaults.options,
                                         &defaults.trainability.num_train_layers));
  }
  defaults.options.metric = DefaultMetric(defaults.options.loss);
  defaults.from_metadata = found;
  *setup = std::move(defaults);
  return Status::Ok();
}

Status CheckBatchFits(const DataSet& train, const TrainingOptions& options) {
  if (train.sample_count < options.batch_size) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%u training samples are fewer than one batch of %u", train.sample_count,
                         options.batch_size);
  }
  return Status::Ok();
}

Status ReadSamples(const QString& path, size_t elements, const QString& what,
                   std::vector<float>* values, uint32_t* samples) {
  // Bounded and checked before reading: /dev/zero or a FIFO given as data is refused at once.
  std::vector<uint8_t> bytes;
  Status read = ReadFileBytes(path.toStdString(), kMaxDataFileBytes, &bytes);
  if (!read.ok()) return read.Prepend(what.toStdString() + " file");
  const QString size_problem = SampleFileSizeProblem(static_cast<int64_t>(bytes.size()), elements);
  if (!size_problem.isEmpty()) {
    return Status::Error(StatusCode::kInvalidArgument, "%s file '%s' %s", qPrintable(what),
                         qPrintable(path), qPrintable(size_problem));
  }
  values->resize(static_cast<size_t>(bytes.size()) / sizeof(float));
  if (!bytes.empty()) std::memcpy(values->data(), bytes.data(), bytes.size());
  for (size_t i = 0; i < values->size(); ++i) {
    if (!std::isfinite((*values)[i])) {
      return Status::Error(StatusCode::kNumericError,
                           "%s file '%s': value %zu (sample %zu, element %zu) is %f",
                           qPrintable(what), qPrintable(path), i, i / elements, i % elements,
                           static_cast<double>((*values)[i]));
    }
  }
  *samples = static_cast<uint32_t>(values->size() / elements);
  return Status::Ok();
}

Status ReadDataSet(const Subgraph& main, const QStringList& input_files, const QString& target_file,
                   size_t target_elements, const QString& role, DataSet* data) {
  if (static_cast<size_t>(input_files.size()) != main.inputs.size()) {
    return Status::Error(
        StatusCode::kInvalidArgument, "the model has %zu input(s); %lld %s input file(s) given",
        main.inputs.size(), static_cast<long long>(input_files.size()), qPrintable(role));
  }
  data->inputs.resize(main.inputs.size());
  for (size_t i = 0; i < main.inputs.size(); ++i) {
    const Tensor& tensor = main.tensors[main.inputs[i]];
    uint32_t samples = 0;
    const QString what = QStringLiteral("%1 input %2 '%3'")
                             .arg(role)
                             .arg(i)
                             .arg(QString::fromStdString(tensor.name));
    TS_RETURN_IF_ERROR(ReadSamples(input_files[static_cast<int>(i)], tensor.element_count(), what,
                                   &data->inputs[i], &samples));
    if (i > 0 && samples != data->sample_count) {
      return Status::Error(StatusCode::kInvalidArgument, "%s input files hold %u and %u samples",
                           qPrintable(role), data->sample_count, samples);
    }
    data->sample_count = samples;
  }
  uint32_t targets = 0;
  TS_RETURN_IF_ERROR(ReadSamples(target_file, target_elements, role + QStringLiteral(" target"),
                                 &data->targets, &targets));
  if (targets != data->sample_count) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "%s target file '%s' holds %u samples of %zu float(s), the inputs %u",
                         qPrintable(role), qPrintable(target_file), targets, target_elements,
                         data->sample_count);
  }
  return Status::Ok();
}

size_t OutputElementCount(const Subgraph& main) {
  if (main.tensors.empty()) return 0;
  return main.tensors[main.outputs.empty() ? 0 : main.outputs[0]].element_count();
}

}  // namespace trainscope
