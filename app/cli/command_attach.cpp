// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli attach (PORT | tcp://HOST:PORT) [...]`: a headless desktop for a board (or the
// board simulator). It prints live progress on a terminal, can record the session as a trace,
// can run a small PAUSE / STEP_BACKWARD_OP script, and ends with a summary (docs/cli.md).
// Every wait is bounded: a silent or vanished link, a refused port or a missing device ends the
// command with "error: ..." and a non-zero status.
#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>

#include "app/cli/attach_session.h"
#include "app/cli/commands.h"
#include "app/cli/event_json.h"
#include "app/common/cli_util.h"
#include "serial/link/announcement_requests.h"
#include "serial/transport/endpoint.h"

namespace trainscope::cli {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int kReadTimeoutMs = 50;
constexpr milliseconds kSilenceLimit{wire::kHeartbeatPeriodMs * wire::kHeartbeatMissesBeforeSilent};
constexpr milliseconds kSettleTime{300};  // how long "paused" must stay quiet after the last step
// How long RESUME may take to show: the board repeats its state every heartbeat, so on a lossy
// line a lost report comes again a second later; several can be lost in a row.
constexpr milliseconds kResumeWait{10000};
// Joining mid-stream, or on a lossy line, the model announcement can come late or be lost (it is
// asked for again, see AnnouncementRequests): how long a finished run waits for it.
constexpr milliseconds kAnnounceWait{2500};
constexpr milliseconds kProgressPeriod{100};
constexpr double kDefaultTimeoutSeconds = 30.0;

volatile std::sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) {
  g_interrupted = 1;
}

// --pause-after N --step K: PAUSE once N backward steps arrived, then K times STEP_BACKWARD_OP
// (each waits for the board to report it paused again), then a quiet period, then RESUME (and a
// short wait for the board to confirm it runs again).
struct PauseStepScript {
  enum class Phase { kRunning, kPausing, kStepping, kSettling, kResuming, kDone };

  uint64_t pause_after = 0;
  uint32_t steps = 0;
  Phase phase = Phase::kRunning;
  uint64_t reports_before = 0;
  uint32_t steps_done = 0;
  uint64_t paused_at = 0;
  uint64_t steps_while_paused = 0;  // BACKWARD_STEP end events received while paused
  // The board's own count, from RUN_STATE transition numbers: each step is one resume and one
  // pause, so it holds even when the line lost events or reports (0: an older board).
  uint32_t pause_transition = 0;
  uint32_t resume_transition = 0;
  Clock::time_point settle_until;

  int64_t board_steps() const {
    if (pause_transition == 0 || resume_transition <= pause_transition) return -1;
    return (resume_transition - pause_transition - 1) / 2;
  }

  bool done() const { return phase == Phase::kDone; }

  Status Advance(AttachSession* session, Clock::time_point now) {
    const AttachStats& stats = session->stats();
    switch (phase) {
      case Phase::kRunning:
        if (stats.backward_steps < pause_after) return Status::Ok();
        reports_before = stats.paused_reports;
        phase = Phase::kPausing;
        return session->SendCommand(wire::MessageType::kPause);
      case Phase::kPausing:
        if (stats.paused_reports == reports_before) return Status::Ok();
        paused_at = stats.steps_at_last_pause;
        pause_transition = stats.last_transition;
        return Step(session, now);
      case Phase::kStepping:
        if (stats.step_done_reports == reports_before) return Status::Ok();
        ++steps_done;
        return Step(session, now);
      case Phase::kSettling:
        if (now < settle_until) return Status::Ok();
        steps_while_paused = stats.backward_steps - paused_at;
        phase = Phase::kResuming;
        settle_until = now + kResumeWait;
        return session->SendCommand(wire::MessageType::kResume);
      case Phase::kResuming:
        if (!stats.paused) resume_transition = stats.last_transition;
        if (!stats.paused || now >= settle_until) phase = Phase::kDone;
        return Status::Ok();
      case Phase::kDone:
        break;
    }
    return Status::Ok();
  }

 private:
  Status Step(AttachSession* session, Clock::time_point now) {
    if (steps_done == steps) {
      phase = Phase::kSettling;
      settle_until = now + kSettleTime;
      return Status::Ok();
    }
    phase = Phase::kStepping;
    reports_before = session->stats().step_done_reports;
    return session->SendCommand(wire::MessageType::kStepBackwardOp);
  }
};

struct AttachOptions {
  QString endpoint;
  uint32_t baud = 0;
  uint64_t steps = 0;  // 0: no target
  double timeout_seconds = 0.0;
  QString record;
  bool json = false;
  bool script = false;
  PauseStepScript pause;
};

Status ParseAttachOptions(const QCommandLineParser& parser, AttachOptions* o) {
  o->endpoint = parser.positionalArguments().value(0);
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("baud"), 1, &o->baud));
  uint32_t steps = 0;
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("steps"), 1, &steps));
  o->steps = steps;
  if (parser.isSet(QStringLiteral("timeout"))) {
    bool ok = false;
    o->timeout_seconds = parser.value(QStringLiteral("timeout")).toDouble(&ok);
    if (!ok || !(o->timeout_seconds > 0.0 && o->timeout_seconds < 1e7)) {
      return Status::Error(StatusCode::kInvalidArgument, "--timeout '%s': expected seconds > 0",
                           qPrintable(parser.value(QStringLiteral("timeout"))));
    }
  }
  o->record = parser.value(QStringLiteral("record"));
  o->json = parser.isSet(QStringLiteral("json"));
  o->script = parser.isSet(QStringLiteral("pause-after"));
  if (parser.isSet(QStringLiteral("step")) && !o->script) {
    return Status::Error(StatusCode::kInvalidArgument, "--step needs --pause-after");
  }
  uint32_t pause_after = 0;
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("pause-after"), 0, &pause_after));
  o->pause.pause_after = pause_after;
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("step"), 0, &o->pause.steps));
  if (o->timeout_seconds == 0.0 && (o->steps > 0 || o->script)) {
    o->timeout_seconds = kDefaultTimeoutSeconds;
  }
  return Status::Ok();
}

Status OpenLink(const AttachOptions& o, std::unique_ptr<Transport>* link) {
  Endpoint endpoint;
  TS_RETURN_IF_ERROR(ParseEndpoint(o.endpoint.toStdString(), &endpoint));
  if (endpoint.kind == EndpointKind::kTcpServer) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "'%s' listens; attach connects to a board: give tcp://HOST:PORT",
                         qPrintable(o.endpoint));
  }
  if (o.baud > 0) endpoint.baud_rate = o.baud;
  std::unique_ptr<Transport> transport = CreateTransport(endpoint);
  TS_RETURN_IF_ERROR(transport->Open());
  *link = std::move(transport);
  return Status::Ok();
}

QString HashText(uint64_t hash) {
  return QStringLiteral("%1").arg(hash, 16, 16, QLatin1Char('0'));
}

void DrawProgress(const AttachSession& session) {
  const AttachStats& s = session.stats();
  const wire::LinkCounters& c = session.counters();
  std::fprintf(stderr,
               "\rbackward %llu | optimizer step %u | loss %.5f | frames %llu ok %llu bad "
               "%llu dropped | board drops %u   ",
               static_cast<unsigned long long>(s.backward_steps), s.last_optimizer_step,
               static_cast<double>(s.last_loss), static_cast<unsigned long long>(c.frames_ok),
               static_cast<unsigned long long>(session.frames_bad()),
               static_cast<unsigned long long>(c.frames_dropped), s.agent_drops);
  std::fflush(stderr);
}

QJsonObject Summary(const AttachOptions& o, const AttachSession& session, double seconds,
                    bool link_lost, const QString& error) {
  const AttachStats& s = session.stats();
  const wire::LinkCounters& c = session.counters();
  QJsonObject summary{
      {QStringLiteral("endpoint"), o.endpoint},
      {QStringLiteral("backward_steps"), static_cast<qint64>(s.backward_steps)},
      {QStringLiteral("optimizer_steps"), static_cast<qint64>(s.optimizer_steps)},
      {QStringLiteral("last_optimizer_step"), static_cast<qint64>(s.last_optimizer_step)},
      {QStringLiteral("last_loss"),
       s.has_loss ? QJsonValue(static_cast<double>(s.last_loss)) : QJsonValue()},
      {QStringLiteral("frames_ok"), static_cast<qint64>(c.frames_ok)},
      {QStringLiteral("frames_bad"), static_cast<qint64>(session.frames_bad())},
      {QStringLiteral("frames_dropped"), static_cast<qint64>(c.frames_dropped)},
      {QStringLiteral("bytes"), static_cast<qint64>(c.bytes)},
      {QStringLiteral("unknown_types"), static_cast<qint64>(c.unknown_types)},
      {QStringLiteral("malformed"), static_cast<qint64>(session.malformed())},
      {QStringLiteral("agent_drops"), static_cast<qint64>(s.agent_drops)},
      {QStringLiteral("heartbeats"), static_cast<qint64>(s.heartbeats)},
      {QStringLiteral("commands_resent"), static_cast<qint64>(session.commands().resent())},
      {QStringLiteral("unsolicited_acks"),
       static_cast<qint64>(session.commands().unsolicited_acks())},
      {QStringLiteral("model_hash"),
       s.has_model ? QJsonValue(HashText(s.model_hash)) : QJsonValue()},
      {QStringLiteral("agent"),
       s.has_hello
           ? QJsonValue(QString::fromUtf8(s.hello.agent_name.c_str(), s.hello.agent_name.size))
           : QJsonValue()},
      {QStringLiteral("protocol_version"),
       s.has_hello ? QJsonValue(static_cast<int>(s.hello.protocol_version)) : QJsonValue()},
      {QStringLiteral("paused"), s.paused},
      {QStringLiteral("board_activity"), QLatin1String(wire::BoardActivityName(s.activity))},
      {QStringLiteral("link_lost"), link_lost},
      {QStringLiteral("seconds"), seconds}};
  if (o.script) {
    summary.insert(QStringLiteral("paused_backward_steps"),
                   static_cast<qint64>(o.pause.steps_while_paused));
    summary.insert(QStringLiteral("board_steps_while_paused"),
                   o.pause.board_steps() >= 0
                       ? QJsonValue(static_cast<qint64>(o.pause.board_steps()))
                       : QJsonValue());
  }
  summary.insert(
      QStringLiteral("device_memory"),
      s.has_device_memory ? QJsonValue(DeviceMemoryJson(s.device_memory)) : QJsonValue());
  summary.insert(
      QStringLiteral("board_error"),
      s.last_error.empty() ? QJsonValue() : QJsonValue(QString::fromStdString(s.last_error)));
  if (!o.record.isEmpty()) summary.insert(QStringLiteral("record"), o.record);
  if (!error.isEmpty()) summary.insert(QStringLiteral("error"), error);
  return summary;
}

void PrintText(const QJsonObject& summary, const AttachOptions& o) {
  const auto text = [&summary](const char* key) {
    return summary.value(QLatin1String(key)).toVariant().toString();
  };
  const QByteArray agent = text("agent").toUtf8();
  std::printf("agent %s (protocol %s), model hash %s\n",
              TerminalText(agent.constData(), static_cast<size_t>(agent.size())).c_str(),
              qPrintable(text("protocol_version")), qPrintable(text("model_hash")));
  std::printf("backward steps %s, optimizer steps %s, last loss %s\n",
              qPrintable(text("backward_steps")), qPrintable(text("optimizer_steps")),
              qPrintable(text("last_loss")));
  std::printf("link: %s bytes, %s frames ok, %s bad, %s dropped; board dropped %s\n",
              qPrintable(text("bytes")), qPrintable(text("frames_ok")),
              qPrintable(text("frames_bad")), qPrintable(text("frames_dropped")),
              qPrintable(text("agent_drops")));
  if (o.script) {
    std::printf("backward steps while paused: %s\n", qPrintable(text("paused_backward_steps")));
  }
  const QJsonObject memory = summary.value(QStringLiteral("device_memory")).toObject();
  if (!memory.isEmpty()) {
    const auto bytes = [&memory](const char* key) {
      return memory.value(QLatin1String(key)).toVariant().toString();
    };
    std::printf(
        "board memory (%s): heap peak %s bytes (planned arena %s), stack %s, static %s, "
        "total %s\n",
        qPrintable(bytes("source")), qPrintable(bytes("heap_peak_bytes")),
        qPrintable(bytes("predicted_heap_peak_bytes")), qPrintable(bytes("stack_peak_bytes")),
        qPrintable(bytes("static_bytes")), qPrintable(bytes("total_bytes")));
  }
  const QByteArray board_error = text("board_error").toUtf8();
  if (!board_error.isEmpty()) {
    std::printf(
        "board error: %s\n",
        TerminalText(board_error.constData(), static_cast<size_t>(board_error.size())).c_str());
  }
}

}  // namespace

int RunAttach(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Attach to a board and follow its training."));
  parser.addPositionalArgument(
      QStringLiteral("ENDPOINT"),
      QStringLiteral("a port (/dev/ttyACM0, /dev/pts/3) or tcp://HOST:PORT"));
  const auto add = [&parser](const char* name, const char* help, const char* value) {
    parser.addOption({QString::fromLatin1(name), QString::fromLatin1(help),
                      value ? QString::fromLatin1(value) : QString()});
  };
  add("baud", "Baud rate of a serial port (default 115200, or ENDPOINT@BAUD).", "N");
  add("steps", "Stop after N backward steps.", "N");
  add("timeout", "Give up after this many seconds (default 30 with --steps or --pause-after).",
      "SECONDS");
  add("record", "Record every received byte to this trace file.", "FILE");
  add("json", "Print the summary as JSON.", nullptr);
  add("pause-after", "Send PAUSE after N backward steps (then --step K, then RESUME).", "N");
  add("step", "While paused, send STEP_BACKWARD_OP K times, waiting for each.", "K");
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  if (parser.positionalArguments().size() != 1) {
    return Fail(QStringLiteral("attach takes exactly one ENDPOINT"), 2);
  }
  AttachOptions o;
  Status status = ParseAttachOptions(parser, &o);
  if (!status.ok()) return Fail(status);

  std::unique_ptr<Transport> link;
  status = OpenLink(o, &link);
  if (!status.ok()) return Fail(QString::fromUtf8(status.message()), 1);
  TraceWriter writer;
  if (!o.record.isEmpty()) {
    status = writer.Create(o.record.toStdString(), 0);
    if (!status.ok()) return Fail(status);
  }
  AttachSession session(link.get(), o.record.isEmpty() ? nullptr : &writer);
  status = session.SendCommand(wire::MessageType::kRequestHello);  // we may have come in late
  if (!status.ok()) return Fail(QString::fromUtf8(status.message()), 1);

  g_interrupted = 0;
  std::signal(SIGINT, &OnInterrupt);
  std::signal(SIGTERM, &OnInterrupt);
  const bool progress = isatty(fileno(stderr));
  const Clock::time_point start = Clock::now();
  const bool has_deadline = o.timeout_seconds > 0.0;
  const Clock::time_point deadline = start + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(o.timeout_seconds));
  Clock::time_point last_progress;
  Clock::time_point steps_reached_at;
  AnnouncementRequests announcement;
  announcement.Sent(start);
  bool link_lost = false;
  QString error;
  for (;;) {
    status = session.Pump(kReadTimeoutMs);
    const Clock::time_point now = Clock::now();
    if (!status.ok()) {
      link_lost = !session.recording_failed();
      error = QString::fromUtf8(status.message());
      if (link_lost) error.prepend(QStringLiteral("link lost: "));
      break;
    }
    if (now - session.last_frame_time() > kSilenceLimit) {
      link_lost = true;
      error = QStringLiteral("link lost: no frame from %1 for %2 s")
                  .arg(o.endpoint)
                  .arg(kSilenceLimit.count() / 1000);
      break;
    }
    if (o.script) {
      status = o.pause.Advance(&session, now);
      if (!status.ok()) {
        error = QString::fromUtf8(status.message());
        break;
      }
    }
    if (session.stats().refused_commands > 0) {
      error = QStringLiteral("the board refused %1")
                  .arg(QString::fromStdString(session.stats().last_refusal));
      break;
    }
    // An unanswered REQUEST_HELLO is asked again below; any other command was part of the plan.
    if (session.stats().unanswered_commands > 0 &&
        session.stats().last_unanswered_type != wire::MessageType::kRequestHello) {
      error = QStringLiteral("the board did not answer %1 within %2 s")
                  .arg(QString::fromStdString(session.stats().last_unanswered))
                  .arg(session.commands().give_up_ms() / 1000);
      break;
    }
    if (announcement.Due(now, session.stats().has_model, session.counters().frames_ok > 0,
                         session.commands().awaiting(wire::MessageType::kRequestHello))) {
      announcement.Sent(now);
      status = session.SendCommand(wire::MessageType::kRequestHello);
      if (!status.ok()) {
        link_lost = true;
        error = QStringLiteral("link lost: %1").arg(QString::fromUtf8(status.message()));
        break;
      }
    }
    if (o.steps > 0 && session.stats().backward_steps >= o.steps &&
        steps_reached_at == Clock::time_point()) {
      steps_reached_at = now;
    }
    if (o.script && o.pause.done() && steps_reached_at == Clock::time_point()) {
      steps_reached_at = now;
    }
    // Joining mid-stream, the steps can come before the answer to REQUEST_HELLO (or it was
    // lost): give the model announcement a moment to arrive, so the summary names the model.
    const bool finished = steps_reached_at != Clock::time_point() &&
                          (o.script ? o.pause.done() : true) &&
                          (session.stats().has_model || now - steps_reached_at >= kAnnounceWait);
    if (finished || g_interrupted) break;
    if (has_deadline && now >= deadline) {
      if (o.steps > 0 || o.script) {
        error = QStringLiteral("timed out after %1 s with %2 backward steps%3")
                    .arg(o.timeout_seconds)
                    .arg(session.stats().backward_steps)
                    .arg(o.steps > 0 ? QStringLiteral(" of %1").arg(o.steps) : QString());
      }
      break;
    }
    if (progress && now - last_progress >= kProgressPeriod) {
      last_progress = now;
      DrawProgress(session);
    }
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (progress) {
    DrawProgress(session);
    std::fputc('\n', stderr);
  }
  writer.Close();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const QJsonObject summary = Summary(o, session, seconds, link_lost, error);
  if (o.json) {
    std::fputs(QJsonDocument(summary).toJson(QJsonDocument::Indented).constData(), stdout);
  } else {
    PrintText(summary, o);
  }
  std::fflush(stdout);
  return error.isEmpty() ? 0 : Fail(error, 1);
}

}  // namespace trainscope::cli
