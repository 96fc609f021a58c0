// SPDX-License-Identifier: Apache-2.0
//
// The interop formats against their schemas: Mondrian *.tracealloc.json (ONE-vscode's viewer
// reads schema_version 1, segments[].name/size/allocations[] with offset, size, alive_from,
// alive_till, origin) and Chrome Trace Event JSON (traceEvents with name, ph, ts, pid, ...).
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <map>

#include "tests/report/report_test_util.h"
#include "ui/report/report_export.h"

namespace trainscope {
namespace {

using testing::Cases;
using testing::ReportCase;

QJsonObject Parse(const QByteArray& bytes) {
  QJsonParseError error;
  const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
  EXPECT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString();
  return document.object();
}

TEST(Mondrian, MatchesTheViewerSchemaAndThePlannedArena) {
  for (const ReportCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    const MemoryReport& m = c.data.memory;
    const QJsonObject root = Parse(RenderMondrian(c.data));
    ASSERT_TRUE(root[QStringLiteral("schema_version")].isDouble());
    EXPECT_EQ(root[QStringLiteral("schema_version")].toInt(), 1);
    const QJsonArray segments = root[QStringLiteral("segments")].toArray();
    ASSERT_EQ(segments.size(), 1);
    const QJsonObject segment = segments[0].toObject();
    EXPECT_FALSE(segment[QStringLiteral("name")].toString().isEmpty());
    const qint64 size = segment[QStringLiteral("size")].toInteger(-1);
    EXPECT_EQ(size, static_cast<qint64>(m.arena_bytes));
    const QJsonArray allocations = segment[QStringLiteral("allocations")].toArray();

    std::vector<const MemoryReportBuffer*> expected;
    for (const MemoryReportBuffer& b : m.buffers) {
      if (b.buffer.bytes > 0) expected.push_back(&b);
    }
    ASSERT_EQ(allocations.size(), static_cast<qsizetype>(expected.size()));
    std::vector<qint64> live(m.rows.size(), 0);
    for (qsizetype i = 0; i < allocations.size(); ++i) {
      const QJsonObject a = allocations[i].toObject();
      for (const char* key : {"offset", "size", "alive_from", "alive_till"}) {
        ASSERT_TRUE(a[QLatin1String(key)].isDouble()) << key;
      }
      ASSERT_TRUE(a[QStringLiteral("origin")].isString());
      const qint64 offset = a[QStringLiteral("offset")].toInteger();
      const qint64 bytes = a[QStringLiteral("size")].toInteger();
      const qint64 from = a[QStringLiteral("alive_from")].toInteger();
      const qint64 till = a[QStringLiteral("alive_till")].toInteger();
      const MemoryReportBuffer& b = *expected[static_cast<size_t>(i)];
      EXPECT_GE(bytes, 1);
      EXPECT_LE(offset + bytes, size);
      EXPECT_LT(from, till);
      EXPECT_EQ(offset, static_cast<qint64>(b.offset));
      EXPECT_EQ(bytes, static_cast<qint64>(b.buffer.bytes));
      EXPECT_EQ(from, b.buffer.first_tick);
      EXPECT_EQ(till, b.buffer.last_tick + 1);
      EXPECT_EQ(a[QStringLiteral("origin")].toString().toStdString(), b.name);
      for (qint64 t = from; t < till && t < static_cast<qint64>(live.size()); ++t)
        live[static_cast<size_t>(t)] += bytes;
      // Two blocks alive at the same time never share an address.
      for (qsizetype j = 0; j < i; ++j) {
        const QJsonObject o = allocations[j].toObject();
        const bool same_time = from < o[QStringLiteral("alive_till")].toInteger() &&
                               o[QStringLiteral("alive_from")].toInteger() < till;
        const bool same_bytes = offset < o[QStringLiteral("offset")].toInteger() +
                                             o[QStringLiteral("size")].toInteger() &&
                                o[QStringLiteral("offset")].toInteger() < offset + bytes;
        EXPECT_FALSE(same_time && same_bytes) << "allocations " << j << " and " << i;
      }
    }
    for (size_t t = 0; t < live.size(); ++t) {
      EXPECT_EQ(live[t], static_cast<qint64>(m.rows[t].live_bytes)) << "tick " << t;
    }
  }
}

TEST(ChromeTrace, StepsCountersAndBufferLifetimesFollowTheTraceEventFormat) {
  for (const ReportCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    const MemoryReport& m = c.data.memory;
    const QJsonObject root = Parse(RenderChromeTrace(c.data));
    EXPECT_EQ(root[QStringLiteral("displayTimeUnit")].toString(), QStringLiteral("ms"));
    const QJsonArray events = root[QStringLiteral("traceEvents")].toArray();
    ASSERT_FALSE(events.isEmpty());
    std::map<std::string, int> phases;
    std::vector<QJsonObject> steps, category_counters;
    std::map<int, qint64> begins, ends;
    qint64 heap_live_max = 0, instant_bytes = -1;
    std::map<int, QString> threads;
    for (const QJsonValue& value : events) {
      const QJsonObject e = value.toObject();
      ASSERT_TRUE(e[QStringLiteral("name")].isString());
      ASSERT_TRUE(e[QStringLiteral("ph")].isString());
      ASSERT_TRUE(e[QStringLiteral("pid")].isDouble());
      const std::string ph = e[QStringLiteral("ph")].toString().toStdString();
      ++phases[ph];
      if (ph != "M") {
        ASSERT_TRUE(e[QStringLiteral("ts")].isDouble()) << ph;
      }
      const QString name = e[QStringLiteral("name")].toString();
      const QJsonObject args = e[QStringLiteral("args")].toObject();
      if (ph == "X") {
        ASSERT_GT(e[QStringLiteral("dur")].toInteger(), 0);
        ASSERT_TRUE(e[QStringLiteral("tid")].isDouble());
        steps.push_back(e);
      } else if (ph == "C" && name == QStringLiteral("live bytes by category")) {
        category_counters.push_back(e);
      } else if (ph == "C" && name == QStringLiteral("heap")) {
        heap_live_max = std::max(heap_live_max, args[QStringLiteral("live")].toInteger());
      } else if (ph == "b") {
        begins[e[QStringLiteral("id")].toInt()] = e[QStringLiteral("ts")].toInteger();
      } else if (ph == "e") {
        ends[e[QStringLiteral("id")].toInt()] = e[QStringLiteral("ts")].toInteger();
      } else if (ph == "i") {
        instant_bytes = args[QStringLiteral("bytes")].toInteger();
      } else if (ph == "M" && name == QStringLiteral("thread_name")) {
        threads[e[QStringLiteral("tid")].toInt()] = args[QStringLiteral("name")].toString();
      }
    }
    EXPECT_EQ(threads[1], QStringLiteral("forward"));
    EXPECT_EQ(threads[2], QStringLiteral("backward"));
    EXPECT_EQ(threads[3], QStringLiteral("optimizer"));

    ASSERT_EQ(steps.size(), m.rows.size());
    for (size_t t = 0; t < steps.size(); ++t) {
      EXPECT_EQ(steps[t][QStringLiteral("ts")].toInteger(), static_cast<qint64>(t) * 1000);
      EXPECT_EQ(steps[t][QStringLiteral("name")].toString().toStdString(), c.data.tick_labels[t]);
      EXPECT_EQ(steps[t][QStringLiteral("cat")].toString(),
                QString::fromLatin1(PhaseName(m.rows[t].tick.phase())));
    }
    ASSERT_EQ(category_counters.size(), m.rows.size() + 1);  // + the closing sample
    for (size_t t = 0; t < m.rows.size(); ++t) {
      qint64 sum = 0;
      for (const QJsonValue& v : category_counters[t][QStringLiteral("args")].toObject())
        sum += v.toInteger();
      EXPECT_EQ(sum, static_cast<qint64>(m.rows[t].live_bytes)) << "tick " << t;
    }
    EXPECT_EQ(phases["C"], 3 * static_cast<int>(m.rows.size() + 1));
    EXPECT_EQ(heap_live_max, static_cast<qint64>(m.heap_peak_bytes));
    EXPECT_EQ(instant_bytes, static_cast<qint64>(m.heap_peak_bytes));
    ASSERT_EQ(begins.size(), m.buffers.size());
    ASSERT_EQ(ends.size(), m.buffers.size());
    for (size_t i = 0; i < m.buffers.size(); ++i) {
      EXPECT_EQ(begins[static_cast<int>(i)],
                static_cast<qint64>(m.buffers[i].buffer.first_tick) * 1000);
      EXPECT_EQ(ends[static_cast<int>(i)],
                static_cast<qint64>(m.buffers[i].buffer.last_tick + 1) * 1000);
    }
  }
}

TEST(ChromeTrace, BackwardStepsCarryTrainabilityOfTheirOperator) {
  const ReportCase& c = Cases()[1];  // train-config {3: LOWER_1_2_PART, 4: ALL}
  const QJsonArray events =
      Parse(RenderChromeTrace(c.data))[QStringLiteral("traceEvents")].toArray();
  int checked = 0;
  for (const QJsonValue& value : events) {
    const QJsonObject e = value.toObject();
    if (e[QStringLiteral("ph")].toString() != QStringLiteral("X") ||
        e[QStringLiteral("cat")].toString() != QStringLiteral("backward")) {
      continue;
    }
    const QJsonObject args = e[QStringLiteral("args")].toObject();
    if (!args.contains(QStringLiteral("op_index"))) continue;  // the loss gradient
    const int op = args[QStringLiteral("op_index")].toInt();
    EXPECT_EQ(args[QStringLiteral("trainable")].toBool(), op == 3 || op == 4) << op;
    if (op == 3) {
      EXPECT_EQ(args[QStringLiteral("rank")].toString(), QStringLiteral("LOWER_1_2_PART"));
    }
    EXPECT_EQ(args[QStringLiteral("is_last_layer")].toBool(), op == 3) << op;
    ++checked;
  }
  EXPECT_EQ(checked, 2 * 3);  // ops 5, 4, 3 for each of the two modelled samples
}

}  // namespace
}  // namespace trainscope
