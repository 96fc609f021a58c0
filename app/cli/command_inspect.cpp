// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli inspect MODEL [--json]`: what is in a model file. The JSON document is
// described in docs/cli.md.
#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

#include "app/cli/commands.h"
#include "app/common/cli_util.h"
#include "engine/model/model.h"

namespace trainscope::cli {
namespace {

QString ShapeText(const std::vector<int32_t>& shape) {
  QStringList dims;
  for (int32_t dim : shape) dims << QString::number(dim);
  return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
}

QJsonArray ToJson(const std::vector<int32_t>& values) {
  QJsonArray array;
  for (int32_t value : values) array.append(value);
  return array;
}

QString OpName(const Operator& op) {
  const char* name = OpcodeName(op.opcode);
  if (op.opcode == op::kCustom)
    return QStringLiteral("CUSTOM(%1)").arg(QString::fromStdString(op.custom_code));
  return name != nullptr ? QString::fromLatin1(name) : QStringLiteral("OPCODE_%1").arg(op.opcode);
}

struct Totals {
  size_t parameters = 0;
  size_t constant_bytes = 0;
};

Totals Count(const Subgraph& subgraph) {
  Totals totals;
  for (const Tensor& tensor : subgraph.tensors) {
    if (!tensor.constant) continue;
    totals.constant_bytes += tensor.bytes;
    if (tensor.type == ElementType::kFloat32 || tensor.type == ElementType::kInt8 ||
        tensor.type == ElementType::kInt16 || tensor.type == ElementType::kUInt8) {
      totals.parameters += tensor.element_count();
    }
  }
  return totals;
}

QJsonObject SubgraphJson(const Subgraph& subgraph) {
  QJsonArray operators;
  for (size_t k = 0; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    QJsonObject entry{{QStringLiteral("index"), static_cast<int>(k)},
                      {QStringLiteral("opcode"), OpName(op)},
                      {QStringLiteral("opcode_value"), op.opcode},
                      {QStringLiteral("inputs"), ToJson(op.inputs)},
                      {QStringLiteral("outputs"), ToJson(op.outputs)}};
    if (op.options.activation != Activation::kNone) {
      entry[QStringLiteral("fused_activation")] =
          QString::fromLatin1(ActivationName(op.options.activation));
    }
    operators.append(entry);
  }
  QJsonArray tensors;
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    const Tensor& tensor = subgraph.tensors[t];
    tensors.append(
        QJsonObject{{QStringLiteral("index"), static_cast<int>(t)},
                    {QStringLiteral("name"), QString::fromStdString(tensor.name)},
                    {QStringLiteral("type"), QString::fromLatin1(ElementTypeName(tensor.type))},
                    {QStringLiteral("shape"), ToJson(tensor.shape)},
                    {QStringLiteral("constant"), tensor.constant},
                    {QStringLiteral("shared_buffer"), tensor.shared_buffer},
                    {QStringLiteral("quantized"), tensor.quantized},
                    {QStringLiteral("bytes"), static_cast<qint64>(tensor.bytes)}});
  }
  const Totals totals = Count(subgraph);
  return QJsonObject{
      {QStringLiteral("name"), QString::fromStdString(subgraph.name)},
      {QStringLiteral("inputs"), ToJson(subgraph.inputs)},
      {QStringLiteral("outputs"), ToJson(subgraph.outputs)},
      {QStringLiteral("operators"), operators},
      {QStringLiteral("tensors"), tensors},
      {QStringLiteral("parameters"), static_cast<qint64>(totals.parameters)},
      {QStringLiteral("constant_bytes"), static_cast<qint64>(totals.constant_bytes)}};
}

void PrintText(const QString& path, const Model& model) {
  const Graph& graph = model.graph();
  QTextStream out(stdout);
  out << path << ": " << (graph.format == ModelFormat::kCircle ? "circle" : "tflite") << ", "
      << model.bytes().size() << " bytes, " << graph.subgraphs.size() << " subgraph(s)\n";
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& subgraph = graph.subgraphs[s];
    const Totals totals = Count(subgraph);
    out << "\nsubgraph " << s << " '" << QString::fromStdString(subgraph.name)
        << "': " << subgraph.operators.size() << " operators, " << subgraph.tensors.size()
        << " tensors, " << totals.parameters << " parameters, " << totals.constant_bytes
        << " constant bytes\n";
    for (int32_t input : subgraph.inputs) {
      const Tensor& t = subgraph.tensors[input];
      out << "  input  " << input << " '" << QString::fromStdString(t.name) << "' "
          << ElementTypeName(t.type) << ShapeText(t.shape) << "\n";
    }
    for (int32_t output : subgraph.outputs) {
      const Tensor& t = subgraph.tensors[output];
      out << "  output " << output << " '" << QString::fromStdString(t.name) << "' "
          << ElementTypeName(t.type) << ShapeText(t.shape) << "\n";
    }
    for (size_t k = 0; k < subgraph.operators.size(); ++k) {
      const Operator& op = subgraph.operators[k];
      QStringList inputs;
      for (int32_t i : op.inputs) {
        inputs << (i < 0 ? QStringLiteral("-")
                         : ShapeText(subgraph.tensors[i].shape) +
                               (subgraph.tensors[i].constant ? QStringLiteral("c") : QString()));
      }
      QStringList outputs;
      for (int32_t o : op.outputs) outputs << ShapeText(subgraph.tensors[o].shape);
      out << QStringLiteral("  %1  %2 %3 -> %4")
                 .arg(k, 3)
                 .arg(OpName(op), -18)
                 .arg(inputs.join(QLatin1Char(' ')), outputs.join(QLatin1Char(' ')));
      if (op.options.activation != Activation::kNone)
        out << "  " << ActivationName(op.options.activation);
      out << "\n";
    }
  }
  for (const MetadataEntry& entry : graph.metadata) {
    out << "metadata '" << QString::fromStdString(entry.name) << "': " << entry.size << " bytes\n";
  }
}

}  // namespace

int RunInspect(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Summarise a .circle or .tflite model."));
  parser.addOption(
      {QStringLiteral("json"), QStringLiteral("Print a JSON document (see docs/cli.md).")});
  AddModelArgument(&parser);
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return Fail(QStringLiteral("inspect takes exactly one MODEL file"), 2);

  Model model;
  Status status = ReadModelFile(positional.first().toStdString(), &model);
  if (!status.ok()) return Fail(status);

  if (parser.isSet(QStringLiteral("json"))) {
    const Graph& graph = model.graph();
    QJsonArray subgraphs;
    for (const Subgraph& subgraph : graph.subgraphs) subgraphs.append(SubgraphJson(subgraph));
    QJsonArray metadata;
    for (const MetadataEntry& entry : graph.metadata) {
      metadata.append(QJsonObject{{QStringLiteral("name"), QString::fromStdString(entry.name)},
                                  {QStringLiteral("bytes"), static_cast<qint64>(entry.size)}});
    }
    const QJsonObject document{
        {QStringLiteral("format"), graph.format == ModelFormat::kCircle ? QStringLiteral("circle")
                                                                        : QStringLiteral("tflite")},
        {QStringLiteral("file_bytes"), static_cast<qint64>(model.bytes().size())},
        {QStringLiteral("description"), QString::fromStdString(graph.description)},
        {QStringLiteral("has_training_metadata"),
         graph.FindMetadata(kCircleTrainingMetadata) != nullptr},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("subgraphs"), subgraphs}};
    std::fputs(QJsonDocument(document).toJson(QJsonDocument::Indented).constData(), stdout);
  } else {
    PrintText(positional.first(), model);
  }
  return 0;
}

}  // namespace trainscope::cli
