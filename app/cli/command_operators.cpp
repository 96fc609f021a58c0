// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli operators [--markdown]`: every operator the engine or onert-micro knows, with
// what each side runs (engine/plan/operator_table.h). --markdown prints docs/operators.md as the
// code generates it; without it the table's rows are printed as aligned plain-text columns.
#include <QCommandLineParser>

#include <algorithm>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/common/cli_util.h"
#include "engine/plan/operator_table.h"

namespace trainscope::cli {
namespace {

// The markdown table's rows ("| a | b |"), header included, as aligned columns.
QString PlainColumns(const QString& markdown) {
  QList<QStringList> rows;
  for (const QString& line : markdown.split(QLatin1Char('\n'))) {
    if (!line.startsWith(QLatin1String("| "))) continue;
    QStringList cells = line.mid(2, line.size() - 4).split(QStringLiteral(" | "));
    rows.append(cells);
  }
  QList<int> widths;
  for (const QStringList& row : rows) {
    for (int c = 0; c < row.size(); ++c) {
      if (c >= widths.size()) widths.append(0);
      widths[c] = std::max(widths[c], static_cast<int>(row[c].size()));
    }
  }
  QString text;
  for (const QStringList& row : rows) {
    QString line;
    for (int c = 0; c < row.size(); ++c) {
      line += c + 1 < row.size() ? row[c].leftJustified(widths[c] + 2) : row[c];
    }
    text += line.trimmed() + QLatin1Char('\n');
  }
  return text;
}

}  // namespace

int RunOperators(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "List the operators the engine runs forward and backward, and onert-micro's."));
  parser.addOption({QStringLiteral("markdown"),
                    QStringLiteral("Print docs/operators.md as generated from the code.")});
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  if (!parser.positionalArguments().isEmpty()) {
    return Fail(QStringLiteral("operators takes no arguments"), 2);
  }
  const QString markdown = QString::fromStdString(OperatorTableMarkdown());
  const QString text = parser.isSet(QStringLiteral("markdown")) ? markdown : PlainColumns(markdown);
  std::fputs(text.toUtf8().constData(), stdout);
  return 0;
}

}  // namespace trainscope::cli
