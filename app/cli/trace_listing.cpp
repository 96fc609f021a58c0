// SPDX-License-Identifier: Apache-2.0
#include "app/cli/trace_listing.h"

#include "app/common/cli_util.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdarg>

#include "app/cli/event_json.h"
#include "engine/core/training_options.h"
#include "engine/model/opcodes.h"
#include "ui/session/device_memory.h"

namespace trainscope::cli {
namespace {

QString OpName(int32_t opcode) {
  const char* name = OpcodeName(opcode);
  return name != nullptr ? QString::fromLatin1(name) : QStringLiteral("OPCODE_%1").arg(opcode);
}

const char* PauseReasonKey(wire::PauseReason reason) {
  switch (reason) {
    case wire::PauseReason::kNone:
      return "none";
    case wire::PauseReason::kCommand:
      return "pause";
    case wire::PauseReason::kStepDone:
      return "step_done";
    case wire::PauseReason::kOpBreakpoint:
      return "op_breakpoint";
    case wire::PauseReason::kNanInfBreakpoint:
      return "nan_inf";
    case wire::PauseReason::kArenaBreakpoint:
      return "arena";
    case wire::PauseReason::kGradientBreakpoint:
      return "gradient";
  }
  return "unknown";
}

const char* LogLevelKey(wire::LogLevel level) {
  switch (level) {
    case wire::LogLevel::kDebug:
      return "debug";
    case wire::LogLevel::kInfo:
      return "info";
    case wire::LogLevel::kWarning:
      return "warning";
    case wire::LogLevel::kError:
      return "error";
  }
  return "unknown";
}

void WriteJson(FILE* out, const QJsonObject& object) {
  const QByteArray line = QJsonDocument(object).toJson(QJsonDocument::Compact);
  std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), out);
  std::fputc('\n', out);
}

QString Hash(uint64_t hash) {
  return QStringLiteral("%1").arg(hash, 16, 16, QLatin1Char('0'));
}

}  // namespace

void LinkJsonLines::OnHello(const wire::HelloMessage& hello) {
  WriteJson(out_, {{QStringLiteral("type"), QStringLiteral("hello")},
                   {QStringLiteral("agent"),
                    QString::fromUtf8(hello.agent_name.c_str(), hello.agent_name.size)},
                   {QStringLiteral("protocol_version"), static_cast<int>(hello.protocol_version)},
                   {QStringLiteral("capabilities"), static_cast<qint64>(hello.capabilities)},
                   {QStringLiteral("ram_bytes"), static_cast<qint64>(hello.ram_bytes)},
                   {QStringLiteral("arena_bytes"), static_cast<qint64>(hello.arena_bytes)}});
}

void LinkJsonLines::OnModelAnnounce(const wire::ModelAnnounceMessage& announce) {
  QJsonArray ops;
  for (uint16_t i = 0; i < announce.entry_count && i < wire::kMaxOpsPerAnnounce; ++i) {
    const wire::OpSummary& op = announce.ops[i];
    ops.append(QJsonObject{{QStringLiteral("op_index"), static_cast<qint64>(announce.first_op + i)},
                           {QStringLiteral("opcode"), OpName(op.opcode)},
                           {QStringLiteral("trainable"), op.trainable},
                           {QStringLiteral("rank"), QString::fromLatin1(TrainRankName(op.rank))}});
  }
  WriteJson(out_, {{QStringLiteral("type"), QStringLiteral("model")},
                   {QStringLiteral("model_hash"), Hash(announce.model_hash)},
                   {QStringLiteral("op_count"), static_cast<qint64>(announce.op_count)},
                   {QStringLiteral("tensor_count"), static_cast<qint64>(announce.tensor_count)},
                   {QStringLiteral("ops"), ops}});
}

void LinkJsonLines::OnLog(const wire::LogMessage& log) {
  WriteJson(out_, {{QStringLiteral("type"), QStringLiteral("log")},
                   {QStringLiteral("level"), QString::fromLatin1(LogLevelKey(log.level))},
                   {QStringLiteral("text"), QString::fromUtf8(log.text.c_str(), log.text.size)}});
}

void LinkJsonLines::OnRunState(const wire::RunStateMessage& state) {
  const bool paused = state.state == wire::RunStateKind::kPaused;
  WriteJson(
      out_,
      {{QStringLiteral("type"), QStringLiteral("run_state")},
       {QStringLiteral("state"), paused ? QStringLiteral("paused") : QStringLiteral("running")},
       {QStringLiteral("reason"), QString::fromLatin1(PauseReasonKey(state.reason))},
       {QStringLiteral("op_index"), static_cast<qint64>(state.op_index)},
       {QStringLiteral("step"), static_cast<qint64>(state.optimizer_step)},
       {QStringLiteral("activity"), QLatin1String(wire::BoardActivityName(state.activity))}});
}

void LinkJsonLines::OnDeviceMemory(const wire::DeviceMemoryMessage& memory) {
  QJsonObject line = DeviceMemoryJson(memory);
  line.insert(QStringLiteral("type"), QStringLiteral("device_memory"));
  WriteJson(out_, line);
}

void TextListing::Line(const char* format, ...) {
  const char* type = wire::MessageTypeName(frame_.type);
  std::fprintf(out_, "%6u  %-15s ", frame_.sequence, type ? type : "?");
  va_list args;
  va_start(args, format);
  std::vfprintf(out_, format, args);
  va_end(args);
  std::fputc('\n', out_);
}

void TextListing::OnSample(const SampleEvent& e) {
  Line("%s epoch %u step %u sample %u", e.begin ? "begin" : "end  ", e.epoch, e.optimizer_step,
       e.sample);
}

void TextListing::OnOptimizerStep(const OptimizerStepEvent& e) {
  Line("epoch %u step %u batch %u", e.epoch, e.optimizer_step, e.batch_size);
}

void TextListing::OnForwardOp(const ForwardOpEvent& e) {
  Line("op %u %s %.1f us", e.op_index, qPrintable(OpName(e.opcode)),
       static_cast<double>(e.duration_ns) / 1000.0);
}

void TextListing::OnBackwardStep(const BackwardStepEvent& e) {
  Line("%s step %u op %u %s%s rank %s%s", e.begin ? "begin" : "end  ", e.step, e.op_index,
       qPrintable(OpName(e.opcode)), e.trainable ? " trainable" : "", TrainRankName(e.rank),
       e.is_last_layer ? " last-layer" : "");
}

void TextListing::OnMemory(const MemoryEvent& e) {
  Line("tick %u %s %u %s tensor %d %s %llu bytes at %llu", e.tick, PhaseName(e.phase), e.step,
       e.alloc ? "alloc" : "free ", e.tensor, MemoryCategoryName(e.category),
       static_cast<unsigned long long>(e.bytes), static_cast<unsigned long long>(e.offset));
}

void TextListing::OnMemorySummary(const MemorySummaryEvent& e) {
  Line("tick %u %s %u current %llu peak %llu bytes", e.tick, PhaseName(e.phase), e.step,
       static_cast<unsigned long long>(e.current_bytes),
       static_cast<unsigned long long>(e.peak_bytes));
}

void TextListing::OnGradientStats(const GradientStatsEvent& e) {
  Line("step %u op %u tensor %d l2 %g max|g| %g mean %g nan %u inf %u", e.optimizer_step,
       e.op_index, e.tensor, static_cast<double>(e.l2), static_cast<double>(e.max_abs),
       static_cast<double>(e.mean), e.nan_count, e.inf_count);
}

void TextListing::OnUpdateRatio(const UpdateRatioEvent& e) {
  Line("step %u tensor %d ratio %g (|dW| %g, |W| %g)", e.optimizer_step, e.tensor,
       static_cast<double>(e.ratio), static_cast<double>(e.update_norm),
       static_cast<double>(e.weight_norm));
}

void TextListing::OnLoss(const LossEvent& e) {
  Line("step %u sample %u loss %g", e.optimizer_step, e.sample, static_cast<double>(e.value));
}

void TextListing::OnMetric(const MetricEvent& e) {
  Line("epoch %u %s %g", e.epoch, MetricName(static_cast<MetricKind>(e.metric)),
       static_cast<double>(e.value));
}

void TextListing::OnHello(const wire::HelloMessage& m) {
  Line("agent '%s' protocol %u capabilities 0x%x ram %u arena %u",
       TerminalText(m.agent_name.c_str(), m.agent_name.size).c_str(), m.protocol_version,
       m.capabilities, m.ram_bytes, m.arena_bytes);
}

void TextListing::OnModelAnnounce(const wire::ModelAnnounceMessage& m) {
  Line("hash %s, %u ops, %u tensors; ops %u..%u", qPrintable(Hash(m.model_hash)), m.op_count,
       m.tensor_count, m.first_op, m.first_op + m.entry_count);
}

void TextListing::OnInternName(const wire::InternNameMessage& m) {
  Line("%s %u = '%s'", m.kind == wire::NameKind::kTensor ? "tensor" : "op", m.id,
       TerminalText(m.name.c_str(), m.name.size).c_str());
}

void TextListing::OnLog(const wire::LogMessage& m) {
  Line("%s: %s", LogLevelKey(m.level), TerminalText(m.text.c_str(), m.text.size).c_str());
}

void TextListing::OnHeartbeat(const wire::HeartbeatMessage& m) {
  Line("uptime %u ms, board dropped %u frames, queue peak %u bytes, bad commands %u", m.uptime_ms,
       m.dropped_frames, m.queue_peak_bytes, m.bad_command_frames);
}

void TextListing::OnAck(const wire::AckMessage& m) {
  const char* command = wire::MessageTypeName(m.command);
  Line("command %u (%s): %s", m.command_id, command ? command : "?", wire::AckResultName(m.result));
}

void TextListing::OnRunState(const wire::RunStateMessage& m) {
  Line("%s (%s) op %u step %u, %s", m.state == wire::RunStateKind::kPaused ? "paused" : "running",
       wire::PauseReasonName(m.reason), m.op_index, m.optimizer_step,
       wire::BoardActivityName(m.activity));
}

void TextListing::OnDeviceMemory(const wire::DeviceMemoryMessage& m) {
  const DeviceMemoryReport report = ExplainDeviceMemory(m);
  Line("%s: heap peak %u (planned arena %u), stack %u, static %u, total %llu of %u bytes",
       report.measured ? "measured" : "accounted", m.heap_peak_bytes, m.predicted_heap_peak_bytes,
       m.stack_peak_bytes, m.static_bytes, static_cast<unsigned long long>(report.total_bytes),
       m.ram_bytes);
}

void TextListing::OnCommand(const wire::BasicCommand& m) {
  Line("command %u", m.command_id);
}

void TextListing::OnSetBreakpoint(const wire::SetBreakpointCommand& m) {
  Line("command %u kind %u %s op %u", m.command_id, static_cast<unsigned>(m.kind),
       m.enable ? "set" : "clear", m.op_index);
}

void TextListing::OnSetTrainability(const wire::SetTrainabilityCommand& m) {
  Line("command %u mode %u rank %s value %u", m.command_id, static_cast<unsigned>(m.mode),
       TrainRankName(m.rank), m.value);
}

void TextListing::OnMalformed(const wire::FrameView& frame, wire::DecodeStatus status) {
  set_frame(frame);
  Line("malformed payload (%s, %zu bytes)", wire::DecodeStatusName(status), frame.payload_size);
}

}  // namespace trainscope::cli
