// SPDX-License-Identifier: Apache-2.0
//
// What the CLI prints of text it did not write (board names, LOG lines, names in a trace), and
// which memory numbers a backward_step JSON line carries when the link lost frames.
#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/event_json.h"
#include "app/common/cli_util.h"

namespace trainscope::cli {
namespace {

std::string Shown(const std::string& text) {
  return TerminalText(text.data(), text.size());
}

TEST(TerminalText, PlainTextAndUtf8PassUnchanged) {
  EXPECT_EQ(Shown("board-sim v1.2 (M4F)"), "board-sim v1.2 (M4F)");
  EXPECT_EQ(Shown("Gewichte \xC3\xBC \xE2\x86\x92 \xF0\x9F\x94\xA5"),
            "Gewichte \xC3\xBC \xE2\x86\x92 \xF0\x9F\x94\xA5");
}

TEST(TerminalText, ControlCharactersAndEscapeSequencesAreShownNotObeyed) {
  EXPECT_EQ(Shown("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");  // retitles the terminal
  EXPECT_EQ(Shown("a\x1b[2Jb"), "a\\x1b[2Jb");                 // clears the screen
  EXPECT_EQ(Shown("line\nnext\r"), "line\\x0anext\\x0d");
  EXPECT_EQ(Shown("\x7f"), "\\x7f");
  EXPECT_EQ(Shown("\xC2\x9B"
                  "31m"),
            "\\xc2\\x9b31m");  // C1 CSI, UTF-8 encoded
  EXPECT_EQ(Shown(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(Shown("C:\\x41"), "C:\\\\x41");  // a real backslash cannot fake an escape
}

TEST(TerminalText, InvalidUtf8IsShownBytewise) {
  EXPECT_EQ(Shown("\xFF\xFE"), "\\xff\\xfe");
  EXPECT_EQ(Shown("\xC3"), "\\xc3");                    // cut short
  EXPECT_EQ(Shown("\xC0\xAF"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(Shown("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(Shown("\xE2\x28\xA1"), "\\xe2(\\xa1");
}

std::vector<QJsonObject> Lines(const std::string& text) {
  std::vector<QJsonObject> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(
        QJsonDocument::fromJson(QByteArray::fromStdString(text.substr(start, end - start)))
            .object());
    start = end + 1;
  }
  return lines;
}

BackwardStepEvent BackwardEnd(uint32_t step) {
  BackwardStepEvent event;
  event.step = step;
  event.op_index = 10 - step;
  event.begin = false;
  return event;
}

MemorySummaryEvent Summary(Phase phase, uint32_t step, uint64_t bytes) {
  MemorySummaryEvent summary;
  summary.phase = phase;
  summary.step = step;
  summary.current_bytes = bytes;
  summary.peak_bytes = bytes + 1;
  return summary;
}

TEST(JsonLines, ABackwardStepCarriesOnlyItsOwnSummary) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&buffer, &size);
  ASSERT_NE(out, nullptr);
  {
    JsonLinesObserver json(out);
    json.OnBackwardStep(BackwardEnd(3));
    json.OnMemorySummary(Summary(Phase::kBackward, 3, 300));  // its own
    json.OnBackwardStep(BackwardEnd(4));
    // Step 4's summary and step 5's BACKWARD_STEP were lost: step 5's summary is not step 4's.
    json.OnMemorySummary(Summary(Phase::kBackward, 5, 500));
    json.OnBackwardStep(BackwardEnd(6));
    json.OnMemorySummary(Summary(Phase::kOptimizer, 6, 600));  // another phase
    json.OnBackwardStep(BackwardEnd(7));
    json.Finish();
  }
  std::fclose(out);
  const std::string text(buffer, size);
  std::free(buffer);
  const std::vector<QJsonObject> lines = Lines(text);
  ASSERT_EQ(lines.size(), 4u) << text;
  EXPECT_EQ(lines[0].value(QStringLiteral("current_bytes")).toInteger(), 300);
  EXPECT_EQ(lines[0].value(QStringLiteral("peak_bytes")).toInteger(), 301);
  const qint64 steps[] = {3, 4, 6, 7};
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(lines[i].value(QStringLiteral("step")).toInteger(), steps[i]);
    EXPECT_FALSE(lines[i].contains(QStringLiteral("current_bytes"))) << text;
  }
}

}  // namespace
}  // namespace trainscope::cli
