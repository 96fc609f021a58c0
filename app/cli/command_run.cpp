// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli run MODEL --input FILE... --output FILE...`: forward passes on raw float32
// files, one file per graph input and output in order. A file may hold several samples; each is
// run and the outputs are written in the same sample order.
#include <QCommandLineParser>

#include "app/cli/commands.h"
#include "app/common/cli_util.h"
#include "engine/exec/interpreter.h"
#include "ui/session/training_run.h"

namespace trainscope::cli {

int RunRun(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Run a model forward on raw float32 files."));
  AddModelArgument(&parser);
  parser.addOption({QStringLiteral("input"),
                    QStringLiteral("Input file, one per graph input, in order."),
                    QStringLiteral("FILE")});
  parser.addOption({QStringLiteral("output"),
                    QStringLiteral("Output file, one per graph output, in order."),
                    QStringLiteral("FILE")});
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  if (parser.positionalArguments().size() != 1) {
    return Fail(QStringLiteral("run takes exactly one MODEL file"), 2);
  }
  Model model;
  Status status = ReadModelFile(parser.positionalArguments().first().toStdString(), &model);
  if (!status.ok()) return Fail(status);
  const Subgraph& main = model.graph().main();
  const QStringList input_files = parser.values(QStringLiteral("input"));
  const QStringList output_files = parser.values(QStringLiteral("output"));
  if (static_cast<size_t>(input_files.size()) != main.inputs.size()) {
    return Fail(QStringLiteral("the model has %1 input(s); %2 --input file(s) given")
                    .arg(main.inputs.size())
                    .arg(input_files.size()),
                2);
  }
  if (static_cast<size_t>(output_files.size()) != main.outputs.size()) {
    QStringList names;
    for (int32_t output : main.outputs) {
      names << QLatin1Char('\'') + QString::fromStdString(main.tensors[output].name) +
                   QLatin1Char('\'');
    }
    return Fail(QStringLiteral("the model has %1 output%2 (%3); %4 --output file%5 given: give "
                               "--output once per model output, in that order")
                    .arg(main.outputs.size())
                    .arg(main.outputs.size() == 1 ? QString() : QStringLiteral("s"))
                    .arg(names.join(QStringLiteral(", ")))
                    .arg(output_files.size())
                    .arg(output_files.size() == 1 ? QString() : QStringLiteral("s")),
                2);
  }
  Interpreter interpreter;
  status = interpreter.Init(model);
  if (!status.ok()) return Fail(status);

  std::vector<std::vector<float>> inputs(main.inputs.size());
  uint32_t samples = 0;
  for (size_t i = 0; i < main.inputs.size(); ++i) {
    const Tensor& tensor = main.tensors[main.inputs[i]];
    const QString what =
        QStringLiteral("input %1 '%2'").arg(i).arg(QString::fromStdString(tensor.name));
    uint32_t count = 0;
    status = ReadSamples(input_files[static_cast<int>(i)], tensor.element_count(), what, &inputs[i],
                         &count);
    if (!status.ok()) return Fail(status);
    if (i > 0 && count != samples) {
      return Fail(QStringLiteral("input files hold different sample counts (%1 and %2)")
                      .arg(samples)
                      .arg(count),
                  2);
    }
    samples = count;
  }
  std::vector<QByteArray> outputs(main.outputs.size());
  std::vector<std::vector<float>> produced;
  for (uint32_t s = 0; s < samples; ++s) {
    std::vector<const float*> sample_inputs;
    for (size_t i = 0; i < main.inputs.size(); ++i) {
      sample_inputs.push_back(inputs[i].data() + main.tensors[main.inputs[i]].element_count() * s);
    }
    status = interpreter.Run(sample_inputs, &produced);
    if (!status.ok()) return Fail(status.Prepend("sample " + std::to_string(s)));
    for (size_t o = 0; o < produced.size(); ++o) {
      outputs[o].append(reinterpret_cast<const char*>(produced[o].data()),
                        static_cast<qsizetype>(produced[o].size() * sizeof(float)));
    }
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    status = WriteFileAtomically(output_files[static_cast<int>(o)], outputs[o].constData(),
                                 static_cast<size_t>(outputs[o].size()));
    if (!status.ok()) return Fail(status);
  }
  return 0;
}

}  // namespace trainscope::cli
