// SPDX-License-Identifier: Apache-2.0
#include "app/common/cli_util.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/plan/train_config_file.h"
#include "ui/session/training_setup.h"

namespace trainscope::cli {

int Fail(const QString& message, int status) {
  std::fprintf(stderr, "error: %s\n", qPrintable(message));
  return status;
}

int Fail(const Status& status) {
  const int exit_status = status.code() == StatusCode::kInvalidArgument ? 2 : 1;
  return Fail(QString::fromUtf8(status.message()), exit_status);
}

int ParseOrExit(QCommandLineParser* parser, const QStringList& arguments) {
  parser->addHelpOption();
  if (!parser->parse(arguments)) return Fail(parser->errorText(), 2);
  if (parser->isSet(QStringLiteral("help"))) {
    std::fputs(qPrintable(parser->helpText()), stdout);
    return 0;
  }
  // Programs that added the version option print it themselves here, not from a GUI loop.
  const QStringList found = parser->optionNames();
  if (found.contains(QStringLiteral("version")) || found.contains(QStringLiteral("v"))) {
    std::printf("%s %s\n", qPrintable(QCoreApplication::applicationName()),
                qPrintable(QCoreApplication::applicationVersion()));
    return 0;
  }
  return -1;
}

Status WriteFileAtomically(const QString& path, const char* data, size_t size) {
  return ::trainscope::WriteFileAtomically(path.toStdString(),
                                           reinterpret_cast<const uint8_t*>(data), size);
}

void AddOption(QCommandLineParser* parser, const char* name, const char* help, const char* value) {
  parser->addOption({QString::fromLatin1(name), QString::fromLatin1(help),
                     value ? QString::fromLatin1(value) : QString()});
}

void AddModelArgument(QCommandLineParser* parser) {
  parser->addPositionalArgument(QStringLiteral("MODEL"),
                                QStringLiteral("the .circle or .tflite file"));
}

void AddBatchOption(QCommandLineParser* parser) {
  parser->addOption(
      {QStringLiteral("batch"),
       QStringLiteral(
           "Samples per optimizer step (default: the model's CIRCLE_TRAINING metadata, else 1)."),
       QStringLiteral("N")});
}

void AddTrainabilityOptions(QCommandLineParser* parser) {
  parser->addOption({QStringLiteral("train-layers"),
                     QStringLiteral("Train the last N operators (0 = all, onert-micro's "
                                    "num_of_train_layers)."),
                     QStringLiteral("N")});
  parser->addOption({QStringLiteral("train-config"),
                     QStringLiteral("onert-micro train-config file (op indices and ranks); "
                                    "overrides --train-layers."),
                     QStringLiteral("FILE")});
}

Status ParseTrainability(const QCommandLineParser& parser, const Subgraph& subgraph,
                         TrainabilityConfig* config) {
  TS_RETURN_IF_ERROR(
      ParseUnsigned(parser, QStringLiteral("train-layers"), 0, &config->num_train_layers));
  if (parser.isSet(QStringLiteral("train-config"))) {
    const QString path = parser.value(QStringLiteral("train-config"));
    Status status =
        ReadTrainConfigFile(path.toStdString(), subgraph.operators.size(), &config->op_ranks);
    if (!status.ok()) return status;
  }
  return ValidateTrainabilityConfig(subgraph, *config);
}

void AddOptimizerOption(QCommandLineParser* parser) {
  parser->addOption(
      {QStringLiteral("optimizer"),
       QStringLiteral("sgd or adam (default: the model's CIRCLE_TRAINING metadata, else sgd)."),
       QStringLiteral("NAME"), QStringLiteral("sgd")});
}

Status ParseOptimizer(const QString& text, OptimizerKind* kind) {
  for (OptimizerKind candidate : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    if (text == QLatin1String(OptimizerName(candidate))) {
      *kind = candidate;
      return Status::Ok();
    }
  }
  return Status::Error(StatusCode::kInvalidArgument, "--optimizer '%s': expected sgd or adam",
                       qPrintable(text));
}

Status ParseLoss(const QString& text, LossKind* kind) {
  for (LossKind candidate : {LossKind::kMse, LossKind::kCrossEntropy, LossKind::kSparseCrossEntropy,
                             LossKind::kMae, LossKind::kBinaryCrossEntropy}) {
    if (text == QLatin1String(LossName(candidate))) {
      *kind = candidate;
      return Status::Ok();
    }
  }
  return Status::Error(StatusCode::kInvalidArgument,
                       "--loss '%s': expected mse, ce, sparse-ce, mae or bce", qPrintable(text));
}

Status ParseMetric(const QString& text, MetricKind* kind) {
  for (MetricKind candidate : {MetricKind::kMse, MetricKind::kMae, MetricKind::kCrossEntropy,
                               MetricKind::kAccuracy, MetricKind::kSparseCrossEntropyAccuracy}) {
    if (text == QLatin1String(MetricName(candidate))) {
      *kind = candidate;
      return Status::Ok();
    }
  }
  return Status::Error(StatusCode::kInvalidArgument,
                       "--metric '%s': expected mse, mae, ce, accuracy or sparse-accuracy",
                       qPrintable(text));
}

Status ParseUnsigned(const QCommandLineParser& parser, const QString& option, uint32_t minimum,
                     uint32_t* value) {
  if (!parser.isSet(option)) return Status::Ok();
  bool ok = false;
  const uint parsed = parser.value(option).toUInt(&ok);
  if (!ok || parsed < minimum) {
    return Status::Error(StatusCode::kInvalidArgument, "--%s '%s': expected a whole number >= %u",
                         qPrintable(option), qPrintable(parser.value(option)), minimum);
  }
  *value = parsed;
  return Status::Ok();
}

Status ParseDouble(const QCommandLineParser& parser, const QString& option, double minimum,
                   double* value) {
  if (!parser.isSet(option)) return Status::Ok();
  bool ok = false;
  const double parsed = parser.value(option).toDouble(&ok);
  if (!ok || !std::isfinite(parsed) || parsed < minimum) {
    return Status::Error(StatusCode::kInvalidArgument, "--%s '%s': expected a number >= %g",
                         qPrintable(option), qPrintable(parser.value(option)), minimum);
  }
  *value = parsed;
  return Status::Ok();
}

Status ParseFloat(const QCommandLineParser& parser, const QString& option, float* value) {
  double parsed = *value;
  TS_RETURN_IF_ERROR(ParseDouble(parser, option, 0.0, &parsed));
  if (!std::isfinite(static_cast<float>(parsed))) {
    return Status::Error(StatusCode::kInvalidArgument, "--%s '%s': expected a number >= 0",
                         qPrintable(option), qPrintable(parser.value(option)));
  }
  *value = static_cast<float>(parsed);
  return Status::Ok();
}

std::string TerminalText(const char* data, size_t size) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  std::string out;
  out.reserve(size);
  const auto escape = [&out](unsigned char byte) {
    static const char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  };
  size_t i = 0;
  while (i < size) {
    const unsigned char lead = bytes[i];
    if (lead == '\\') {
      out += "\\\\";
      ++i;
      continue;
    }
    if (lead < 0x80) {
      if (lead < 0x20 || lead == 0x7F) {
        escape(lead);
      } else {
        out += static_cast<char>(lead);
      }
      ++i;
      continue;
    }
    // The length and smallest code point of a UTF-8 sequence starting with `lead`.
    const size_t length = lead >= 0xF0 && lead <= 0xF4 ? 4
                          : lead >= 0xE0               ? 3
                          : lead >= 0xC2               ? 2
                                                       : 0;
    uint32_t code = length == 4 ? lead & 0x07u : length == 3 ? lead & 0x0Fu : lead & 0x1Fu;
    bool valid = length != 0 && lead < 0xF5 && i + length <= size;
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (bytes[i + k] & 0xC0) == 0x80;
      code = (code << 6) | (bytes[i + k] & 0x3Fu);
    }
    const uint32_t smallest = length == 4 ? 0x10000 : length == 3 ? 0x800 : 0x80;
    valid = valid && code >= smallest && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
    if (!valid || code <= 0x9F) {  // C1 controls (U+0080..U+009F) too
      const size_t shown = valid ? length : 1;
      for (size_t k = 0; k < shown; ++k) escape(bytes[i + k]);
      i += shown;
      continue;
    }
    out.append(data + i, length);
    i += length;
  }
  return out;
}

}  // namespace trainscope::cli
