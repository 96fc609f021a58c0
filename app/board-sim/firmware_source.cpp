// SPDX-License-Identifier: Apache-2.0
#include "app/board-sim/firmware_source.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "app/common/cli_util.h"
#include "serial/protocol/messages.h"

namespace trainscope {
namespace {

// Formats of at most 159 characters: the generator's own fixed texts and numbers.
void AppendF(std::string* out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void AppendF(std::string* out, const char* format, ...) {
  char buffer[160];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  if (n > 0) out->append(buffer, static_cast<size_t>(n) < sizeof buffer ? n : sizeof buffer - 1);
}

// A float literal that reads back as the same float (NaN and infinities included).
std::string FloatLiteral(float value) {
  if (std::isnan(value)) return "std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(value)) {
    return value > 0 ? "std::numeric_limits<float>::infinity()"
                     : "-std::numeric_limits<float>::infinity()";
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<double>(value));
  std::string text = buffer;
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text + "f";
}

void AppendFloats(std::string* out, const char* name, const float* values, size_t count) {
  AppendF(out, "const float %s[] = {", name);
  for (size_t i = 0; i < count; ++i) {
    if (i % 8 == 0) out->append("\n   ");
    out->append(" ").append(FloatLiteral(values[i])).append(",");
  }
  if (count == 0) out->append("0.0f");  // a zero-length array is not C++
  out->append("\n};\n");
}

// `text` as printable ASCII (anything else becomes '?'), so a file name can end neither a
// comment nor a string literal early.
std::string Printable(const QString& text) {
  std::string out;
  for (const char c : text.toStdString()) out += (c >= 0x20 && c < 0x7F) ? c : '?';
  return out;
}

std::string CString(const QString& text) {
  std::string out = "\"";
  for (const char c : Printable(text)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string FirmwareSourceText(const QString& label, const Model& model, const TrainingSetup& setup,
                               const DataSet& data) {
  const std::vector<uint8_t>& bytes = model.bytes();
  const TrainingOptions& o = setup.options;
  std::string out;
  out.append("// SPDX-License-Identifier: Apache-2.0\n");
  out.append(
      "// The run this firmware trains, written by trainscope-board-sim --firmware-source.\n");
  out.append("// Model ").append(Printable(label));  // unbounded: not through AppendF
  AppendF(&out, ": %zu bytes, hash %016" PRIx64 ".\n", bytes.size(),
          wire::ModelHash(bytes.data(), bytes.size()));
  out.append("#include <cstdint>\n#include <limits>\n\n");
  out.append("#include \"app/firmware/common/embedded_run.h\"\n\n");
  out.append("namespace trainscope::firmware {\nnamespace {\n\n");

  AppendF(&out, "alignas(16) const uint8_t kModel[%zu] = {", bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0) out.append("\n   ");
    AppendF(&out, " 0x%02x,", bytes[i]);
  }
  out.append("\n};\n\n");

  std::string inputs = "const float* const kInputs[] = {";
  std::string elements = "const uint32_t kInputElements[] = {";
  for (size_t k = 0; k < data.inputs.size(); ++k) {
    const std::string name = "kInput" + std::to_string(k);
    AppendFloats(&out, name.c_str(), data.inputs[k].data(), data.inputs[k].size());
    inputs += name + ", ";
    const size_t per_sample = data.sample_count ? data.inputs[k].size() / data.sample_count : 0;
    elements += std::to_string(per_sample) + "u, ";
  }
  if (data.inputs.empty()) {
    inputs += "nullptr";
    elements += "0u";
  }
  out.append(inputs).append("};\n").append(elements).append("};\n");
  AppendFloats(&out, "kTargets", data.targets.data(), data.targets.size());

  out.append("const EmbeddedOpRank kOpRanks[] = {");
  for (const auto& [op, rank] : setup.trainability.op_ranks) {
    AppendF(&out, "{%u, static_cast<TrainRank>(%u)}, ", static_cast<unsigned>(op),
            static_cast<unsigned>(rank));
  }
  if (setup.trainability.op_ranks.empty()) out.append("{0, TrainRank::kAll}");
  out.append("};\n\n}  // namespace\n\n");

  const uint32_t target_elements =
      data.sample_count ? static_cast<uint32_t>(data.targets.size() / data.sample_count) : 0;
  out.append("const EmbeddedRun kEmbeddedRun = {\n");
  out.append("    kModel,\n    sizeof kModel,\n    kInputs,\n    kInputElements,\n");
  AppendF(&out, "    %zuu,\n    kTargets,\n    %uu,\n    %uu,\n", data.inputs.size(),
          target_elements, data.sample_count);
  AppendF(&out,
          "    {static_cast<OptimizerKind>(%u), static_cast<LossKind>(%u),"
          " static_cast<MetricKind>(%u),\n",
          static_cast<unsigned>(o.optimizer), static_cast<unsigned>(o.loss),
          static_cast<unsigned>(o.metric));
  out.append("     ").append(FloatLiteral(o.learning_rate)).append(", ");
  out.append(FloatLiteral(o.beta1)).append(", ").append(FloatLiteral(o.beta2)).append(", ");
  out.append(FloatLiteral(o.epsilon));
  AppendF(&out, ", %uu, %uu},\n", o.batch_size, o.epochs);
  AppendF(&out, "    %uu,\n    kOpRanks,\n    %zuu,\n", setup.trainability.num_train_layers,
          setup.trainability.op_ranks.size());
  const QString description = QStringLiteral("%1, %2 samples, %3, %4, batch %5")
                                  .arg(label)
                                  .arg(data.sample_count)
                                  .arg(QLatin1String(OptimizerName(o.optimizer)))
                                  .arg(QLatin1String(LossName(o.loss)))
                                  .arg(o.batch_size);
  out.append("    ").append(CString(description)).append(",\n};\n\n");
  out.append("}  // namespace trainscope::firmware\n");
  return out;
}

Status WriteFirmwareSource(const QString& path, const QString& label, const Model& model,
                           const TrainingSetup& setup, const DataSet& data) {
  const std::string text = FirmwareSourceText(label, model, setup, data);
  return cli::WriteFileAtomically(path, text.data(), text.size());
}

}  // namespace trainscope
