// SPDX-License-Identifier: Apache-2.0
//
// Inputs and independent readers for the report tests: the report cases (demo model and the
// simple_mnist fixture in several setups), an RFC 4180 CSV reader, SVG extraction, an XML
// well-formedness check and a PDF page counter.
#pragma once

#include <QByteArray>
#include <QRegularExpression>
#include <QXmlStreamReader>

#include <string>
#include <vector>

#include "engine/model/model.h"
#include "engine/model/model_builder.h"
#include "tests/common/fixtures.h"
#include "ui/report/report_data.h"

namespace trainscope::testing {

struct ReportCase {
  std::string label;
  ReportData data;
};

inline ReportCase MakeCase(const std::string& label, const std::string& path,
                           const TrainabilityConfig& config, const MemoryReportOptions& options) {
  ReportCase c;
  c.label = label;
  Model model;
  const Status read = ReadModelFile(path, &model);
  EXPECT_TRUE(read.ok()) << read.message();
  const Status built = BuildReportData(model.graph(), label, config, options, &c.data);
  EXPECT_TRUE(built.ok()) << built.message();
  return c;
}

// The demo (always) and simple_mnist (when the fixtures are present).
inline const std::vector<ReportCase>& Cases() {
  static const std::vector<ReportCase> cases = [] {
    const std::string demo = std::string(TRAINSCOPE_DEMO_DIR) + "/demo.circle";
    std::vector<ReportCase> out;
    MemoryReportOptions sgd;
    out.push_back(MakeCase("demo, all layers, sgd", demo, {}, sgd));
    MemoryReportOptions adam;
    adam.optimizer = OptimizerKind::kAdam;
    adam.batch_size = 4;
    TrainabilityConfig ranks;
    ranks.op_ranks = {{3, TrainRank::kLowerHalf}, {4, TrainRank::kAll}};
    out.push_back(MakeCase("demo, train-config, adam, batch 4", demo, ranks, adam));
    MemoryReportOptions inference;
    inference.inference = true;
    out.push_back(MakeCase("demo, inference", demo, {}, inference));
    if (FixturesPresent()) {
      TrainabilityConfig last3;
      last3.num_train_layers = 3;
      out.push_back(MakeCase("simple_mnist, last 3, adam",
                             ModelsDir() + "/onert-micro/simple_mnist/model.circle", last3, adam));
    }
    return out;
  }();
  return cases;
}

// A model whose input is called `in, "quoted" <&>`.
inline ReportCase AwkwardNamesCase() {
  ModelBuilder b;
  const int x = b.AddTensor("in, \"quoted\" <&>", {1, 4});
  const int w = b.AddConstant("w", {2, 4}, std::vector<float>(8, 0.5f));
  const int y = b.AddTensor("y", {1, 2});
  b.AddOperator(op::kFullyConnected, {x, w, -1}, {y});
  b.SetInputs({x});
  b.SetOutputs({y});
  std::vector<uint8_t> bytes;
  Model model;
  EXPECT_TRUE(b.Finish(&bytes).ok());
  EXPECT_TRUE(Model::FromBytes(std::move(bytes), &model).ok());
  ReportCase c;
  c.label = "awkward <names> & \"quotes\"";
  EXPECT_TRUE(BuildReportData(model.graph(), c.label, {}, {}, &c.data).ok());
  return c;
}

// RFC 4180: quoted fields may hold commas, doubled quotes and line breaks; rows end in CRLF.
inline std::vector<std::vector<std::string>> CsvRows(const QByteArray& bytes) {
  const std::string text = bytes.toStdString();
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
      ++i;
    } else {
      field += c;
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

inline std::vector<std::string> SvgElements(const std::string& html) {
  std::vector<std::string> out;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    const size_t end = html.find("</svg>", at);
    if (end == std::string::npos) break;
    out.push_back(html.substr(at, end + 6 - at));
  }
  return out;
}

inline bool WellFormedXml(const std::string& text) {
  QXmlStreamReader reader(QByteArray::fromStdString(text));
  while (!reader.atEnd()) reader.readNext();
  return !reader.hasError();
}

inline int CountPdfPages(const QByteArray& pdf) {
  static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?![a-zA-Z])"));
  int count = 0;
  auto it = page.globalMatch(QString::fromLatin1(pdf));
  while (it.hasNext()) {
    it.next();
    ++count;
  }
  return count;
}

}  // namespace trainscope::testing
