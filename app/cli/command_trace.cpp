// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli trace dump FILE [--json]`: replays a recorded session through the same decoder
// and router as a live link. With --json it prints the JSON lines of `train --events` plus the
// link lines of LinkJsonLines and a closing "trace" line; without, one readable line per frame.
// A torn last frame (the recorder was killed) is a warning; a bad header is an error.
#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/event_json.h"
#include "app/cli/trace_listing.h"
#include "app/common/cli_util.h"
#include "serial/protocol/message_router.h"
#include "serial/trace/trace_file.h"

namespace trainscope::cli {
namespace {

QString Hash(uint64_t hash) {
  return QStringLiteral("%1").arg(hash, 16, 16, QLatin1Char('0'));
}

int Dump(const QString& path, bool json) {
  TraceReplay replay;
  Status status;
  uint64_t malformed = 0;
  if (json) {
    JsonLinesObserver events(stdout);
    LinkJsonLines link(stdout);
    wire::MessageRouter router(&events, &link);
    status = ReplayTrace(path.toStdString(), &router, &replay);
    events.Finish();
    malformed = router.malformed_payloads();
  } else {
    TextListing listing(stdout);
    wire::MessageRouter router(&listing, &listing);
    FrameTap tap(&router, &listing);
    status = ReplayTrace(path.toStdString(), &tap, &replay);
    malformed = router.malformed_payloads();
  }
  if (!status.ok()) return Fail(status);
  const wire::LinkCounters& c = replay.counters;
  if (json) {
    const QJsonObject end{
        {QStringLiteral("type"), QStringLiteral("trace")},
        {QStringLiteral("model_hash"), Hash(replay.header.model_hash)},
        {QStringLiteral("protocol_version"), static_cast<int>(replay.header.protocol_version)},
        {QStringLiteral("bytes"), static_cast<qint64>(c.bytes)},
        {QStringLiteral("frames_ok"), static_cast<qint64>(c.frames_ok)},
        {QStringLiteral("frames_bad"), static_cast<qint64>(c.frames_bad)},
        {QStringLiteral("frames_dropped"), static_cast<qint64>(c.frames_dropped)},
        {QStringLiteral("malformed"), static_cast<qint64>(malformed)},
        {QStringLiteral("torn_tail_bytes"), static_cast<qint64>(replay.torn_tail_bytes)}};
    std::fputs(QJsonDocument(end).toJson(QJsonDocument::Compact).constData(), stdout);
    std::fputc('\n', stdout);
  } else {
    std::printf(
        "trace: model hash %s, protocol %u, %llu bytes: %llu frames ok, %llu bad, %llu "
        "dropped, %llu malformed\n",
        qPrintable(Hash(replay.header.model_hash)), replay.header.protocol_version,
        static_cast<unsigned long long>(c.bytes), static_cast<unsigned long long>(c.frames_ok),
        static_cast<unsigned long long>(c.frames_bad),
        static_cast<unsigned long long>(c.frames_dropped),
        static_cast<unsigned long long>(malformed));
  }
  std::fflush(stdout);
  if (replay.torn_tail_bytes > 0) {
    std::fprintf(stderr,
                 "warning: %s ends with %zu bytes of an unfinished frame (the recording stopped "
                 "mid-frame); they were skipped\n",
                 qPrintable(path), replay.torn_tail_bytes);
  }
  return 0;
}

}  // namespace

int RunTrace(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Work with recorded sessions (trace files)."));
  parser.addPositionalArgument(QStringLiteral("dump"), QStringLiteral("print a trace's messages"));
  parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("the trace file"));
  parser.addOption({QStringLiteral("json"),
                    QStringLiteral("JSON lines, the schema of train --events plus link lines.")});
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 2 || positional[0] != QLatin1String("dump")) {
    return Fail(QStringLiteral("usage: trainscope-cli trace dump FILE [--json]"), 2);
  }
  return Dump(positional[1], parser.isSet(QStringLiteral("json")));
}

}  // namespace trainscope::cli
