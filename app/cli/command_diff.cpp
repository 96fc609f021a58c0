// SPDX-License-Identifier: Apache-2.0
//
// `trainscope-cli diff ENDPOINT MODEL --input F --target F [training options] [--step S]`:
// where does the board first differ? It reads one optimizer step of a live board, tensor by
// tensor in backward order (BoardProbe), runs the same step on the reference engine from the
// board's own state at its start (RunReferenceStep), and compares the two (CompareStep). The
// training options and data must be the ones the board trains with; the board's announcement is
// checked against them. Exit status: 0 when nothing is beyond the thresholds, 3 when an
// operator diverges, 1 on errors, 2 for usage errors (docs/cli.md).
#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <memory>
#include <set>

#include "app/cli/attach_session.h"
#include "app/cli/board_probe.h"
#include "app/cli/commands.h"
#include "app/common/cli_util.h"
#include "app/common/training_args.h"
#include "engine/model/opcodes.h"
#include "engine/plan/onert_differences.h"
#include "serial/compare/reference_step.h"
#include "serial/compare/step_comparison.h"
#include "serial/trace/trace_transport.h"
#include "serial/transport/endpoint.h"

namespace trainscope::cli {
namespace {

constexpr int kDivergedStatus = 3;

struct DiffOptions {
  QString endpoint;
  QString model;
  uint32_t step = 0;
  std::set<uint32_t> ops;
  DivergenceThresholds thresholds;
  QString json;  // "-" for stdout
  double timeout_seconds = 10.0;
  uint32_t baud = 0;
  bool stay_paused = false;
  bool values = false;  // the JSON carries both sides' values of every compared tensor
  QString record;       // the session's received bytes, as a trace a later diff replays
};

Status ParseDiffOptions(const QCommandLineParser& parser, DiffOptions* o) {
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 2) {
    return Status::Error(StatusCode::kInvalidArgument, "diff takes ENDPOINT and MODEL");
  }
  if (!parser.isSet(QStringLiteral("input")) || !parser.isSet(QStringLiteral("target"))) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "diff needs the board's training data: --input and --target");
  }
  o->endpoint = positional[0];
  o->model = positional[1];
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("step"), 1, &o->step));
  if (parser.isSet(QStringLiteral("ops"))) {
    for (const QString& item : parser.value(QStringLiteral("ops")).split(QLatin1Char(','))) {
      bool ok = false;
      const uint32_t op = item.trimmed().toUInt(&ok);
      if (!ok) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "--ops '%s': expected operator indices separated by commas",
                             qPrintable(parser.value(QStringLiteral("ops"))));
      }
      o->ops.insert(op);
    }
  }
  TS_RETURN_IF_ERROR(
      ParseDouble(parser, QStringLiteral("max-rel-l2"), 0.0, &o->thresholds.relative_l2));
  TS_RETURN_IF_ERROR(ParseDouble(parser, QStringLiteral("max-abs"), 0.0, &o->thresholds.max_abs));
  TS_RETURN_IF_ERROR(
      ParseDouble(parser, QStringLiteral("min-cosine"), -1.0, &o->thresholds.min_cosine));
  if (parser.isSet(QStringLiteral("max-ulp"))) {
    uint32_t ulp = 0;
    TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("max-ulp"), 0, &ulp));
    o->thresholds.max_ulp = ulp;
  }
  TS_RETURN_IF_ERROR(ParseDouble(parser, QStringLiteral("timeout"), 0.1, &o->timeout_seconds));
  TS_RETURN_IF_ERROR(ParseUnsigned(parser, QStringLiteral("baud"), 0, &o->baud));
  o->json = parser.value(QStringLiteral("json"));
  o->stay_paused = parser.isSet(QStringLiteral("stay-paused"));
  o->values = parser.isSet(QStringLiteral("values"));
  o->record = parser.value(QStringLiteral("record"));
  if (o->values && o->json.isEmpty()) {
    return Status::Error(StatusCode::kInvalidArgument, "--values goes with --json FILE");
  }
  return Status::Ok();
}

// The board's announced trainability against the one the arguments give the reference.
Status CheckSameTraining(const AttachStats& board, const TrainingSetup& setup,
                         const Trainer& reference) {
  if (board.batch_size != 0 && board.batch_size != setup.options.batch_size) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the board trains batches of %u, the arguments say %u: give --batch %u",
                         board.batch_size, setup.options.batch_size, board.batch_size);
  }
  if (board.optimizer != wire::kOptimizerUnknown &&
      board.optimizer != static_cast<uint8_t>(setup.options.optimizer)) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the board trains with %s, the arguments say %s",
                         OptimizerName(static_cast<OptimizerKind>(board.optimizer)),
                         OptimizerName(setup.options.optimizer));
  }
  const std::vector<OpTrainability>& ops = reference.selection().ops;
  for (size_t k = 0; k < board.ops.size() && k < ops.size(); ++k) {
    // The announcement's "trainable" is whether the op's parameters get gradients.
    const bool trained = ops[k].has_parameter_gradients;
    if (board.ops[k].trainable != trained || (trained && board.ops[k].rank != ops[k].rank)) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "op %u trains differently on the board (%s) than the arguments say "
                           "(%s): give the board's --train-layers / --train-config",
                           static_cast<unsigned>(k),
                           board.ops[k].trainable ? TrainRankName(board.ops[k].rank) : "frozen",
                           trained ? TrainRankName(ops[k].rank) : "frozen");
    }
  }
  return Status::Ok();
}

QJsonValue Number(double value) {
  return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QString::number(value));
}

// Both sides' readings, when the JSON carries values (--values).
struct StepReadings {
  const std::vector<ProbeReading>* board = nullptr;
  const std::vector<ProbeReading>* reference = nullptr;
};

QJsonArray ValuesJson(const std::vector<float>& values) {
  QJsonArray array;
  for (float v : values) array.append(Number(v));
  return array;
}

QJsonArray TextsJson(const std::vector<std::string>& texts) {
  QJsonArray array;
  for (const std::string& text : texts) array.append(QString::fromStdString(text));
  return array;
}

QJsonObject TensorJson(const Subgraph& subgraph, const TensorComparison& c,
                       const StepReadings* readings) {
  const Tensor& t = subgraph.tensors[static_cast<size_t>(c.read.tensor)];
  QJsonObject o{{QStringLiteral("tensor"), c.read.tensor},
                {QStringLiteral("name"), QString::fromStdString(t.name)},
                {QStringLiteral("role"), QString::fromStdString(c.read.role)},
                {QStringLiteral("aspect"), QString::fromLatin1(TensorAspectName(c.read.aspect))},
                {QStringLiteral("sample"), static_cast<qint64>(c.point.sample)},
                {QStringLiteral("board_held"), c.board_held},
                {QStringLiteral("reference_held"), c.reference_held},
                {QStringLiteral("divergent"), c.divergent}};
  if (!c.board_held)
    o.insert(QStringLiteral("board_reason"), QString::fromStdString(c.board_reason));
  if (!c.reference_held) {
    o.insert(QStringLiteral("reference_reason"), QString::fromStdString(c.reference_reason));
  }
  if (c.board_held && c.reference_held) {
    QJsonArray shape;
    for (int32_t d : c.shape) shape.append(d);
    o.insert(QStringLiteral("shape"), shape);
    o.insert(QStringLiteral("shape_matches"), c.shape_matches);
  }
  if (c.shape_matches) {
    const TensorDifference& d = c.difference;
    o.insert(QStringLiteral("count"), static_cast<qint64>(d.count));
    o.insert(QStringLiteral("max_abs"), Number(d.max_abs));
    o.insert(QStringLiteral("max_abs_index"), static_cast<qint64>(d.max_abs_index));
    o.insert(QStringLiteral("rmse"), Number(d.rmse));
    o.insert(QStringLiteral("relative_l2"), Number(d.relative_l2));
    o.insert(QStringLiteral("cosine"), Number(d.cosine));
    o.insert(QStringLiteral("max_ulp"), static_cast<qint64>(d.max_ulp));
    o.insert(QStringLiteral("nonfinite_mismatches"), static_cast<qint64>(d.nonfinite_mismatches));
    o.insert(QStringLiteral("board_nonfinite"), static_cast<qint64>(d.board_nonfinite));
    o.insert(QStringLiteral("reference_nonfinite"), static_cast<qint64>(d.reference_nonfinite));
    if (readings != nullptr && !c.board_update.empty()) {
      o.insert(QStringLiteral("board_values"), ValuesJson(c.board_update));
      o.insert(QStringLiteral("reference_values"), ValuesJson(c.reference_update));
    } else if (readings != nullptr && c.board_reading >= 0 && c.reference_reading >= 0) {
      const auto& board = (*readings->board)[static_cast<size_t>(c.board_reading)];
      const auto& reference = (*readings->reference)[static_cast<size_t>(c.reference_reading)];
      o.insert(QStringLiteral("board_values"), ValuesJson(board.copy.values));
      o.insert(QStringLiteral("reference_values"), ValuesJson(reference.copy.values));
    }
  }
  return o;
}

QString Describe(const Subgraph& subgraph, const TensorComparison& c) {
  const Operator& op = subgraph.operators[c.read.op_index];
  QString where = QStringLiteral("op %1 %2")
                      .arg(c.read.op_index)
                      .arg(QString::fromLatin1(OpcodeName(op.opcode)));
  if (c.point.moment == ProbeMoment::kAfterUpdate)
    where += QStringLiteral(" (after the update)");
  else if (c.point.sample > 0)
    where += QStringLiteral(" (sample %1)").arg(c.point.sample);
  QString text =
      QStringLiteral("%1, %2 (%3)")
          .arg(where, QString::fromStdString(c.read.role),
               QString::fromStdString(subgraph.tensors[static_cast<size_t>(c.read.tensor)].name));
  if (!c.shape_matches) return text + QStringLiteral(": the shapes differ");
  const TensorDifference& d = c.difference;
  return text +
         QStringLiteral(": rel L2 %1, max |a-b| %2, cosine %3, %4 ulp, %5 NaN/Inf mismatches")
             .arg(d.relative_l2, 0, 'g', 3)
             .arg(d.max_abs, 0, 'g', 3)
             .arg(d.cosine, 0, 'g', 7)
             .arg(d.max_ulp)
             .arg(d.nonfinite_mismatches);
}

// What onert-micro is known to compute differently at each op (engine/plan/onert_differences):
// the reference computes correct math, so a board running onert-micro diverges there by design.
std::vector<std::vector<std::string>> KnownOnertDifferences(const Subgraph& subgraph,
                                                            const Trainer& planner) {
  std::vector<std::vector<std::string>> by_op(subgraph.operators.size());
  for (const OnertDifference& d :
       FindOnertDifferences(subgraph, planner.selection(), planner.options().optimizer)) {
    if (d.op_index < by_op.size()) by_op[d.op_index].push_back(d.text);
  }
  return by_op;
}

QJsonObject ReportJson(const DiffOptions& o, const AttachStats& board, const Subgraph& subgraph,
                       uint32_t step, const StepComparison& c, const ProbeTransfer& transfer,
                       const std::vector<std::vector<std::string>>& known_by_op,
                       const StepReadings* readings) {
  // Per op in backward order (the order the step first reaches them), every sample's tensors.
  std::vector<uint32_t> order;
  std::vector<bool> listed(subgraph.operators.size(), false);
  for (const TensorComparison& t : c.tensors) {
    if (t.point.moment != ProbeMoment::kAfterBackwardOp || listed[t.read.op_index]) continue;
    listed[t.read.op_index] = true;
    order.push_back(t.read.op_index);
  }
  QJsonArray ops;
  for (uint32_t k : order) {
    QJsonArray tensors;
    bool divergent = false;
    for (const TensorComparison& t : c.tensors) {
      if (t.point.moment != ProbeMoment::kAfterBackwardOp || t.read.op_index != k) continue;
      tensors.append(TensorJson(subgraph, t, readings));
      divergent |= t.divergent;
    }
    ops.append(QJsonObject{
        {QStringLiteral("op"), static_cast<qint64>(k)},
        {QStringLiteral("known_onert_differences"), TextsJson(known_by_op[k])},
        {QStringLiteral("opcode"), QString::fromLatin1(OpcodeName(subgraph.operators[k].opcode))},
        {QStringLiteral("backward_step"), static_cast<qint64>(subgraph.operators.size() - 1 - k)},
        {QStringLiteral("divergent"), divergent},
        {QStringLiteral("tensors"), tensors}});
  }
  QJsonArray update;
  for (const TensorComparison& t : c.tensors) {
    if (t.point.moment != ProbeMoment::kAfterUpdate) continue;
    QJsonObject entry = TensorJson(subgraph, t, readings);
    entry.insert(QStringLiteral("op"), static_cast<qint64>(t.read.op_index));
    update.append(entry);
  }
  QJsonObject thresholds{{QStringLiteral("relative_l2"), Number(o.thresholds.relative_l2)},
                         {QStringLiteral("max_abs"), Number(o.thresholds.max_abs)},
                         {QStringLiteral("min_cosine"), Number(o.thresholds.min_cosine)}};
  if (o.thresholds.max_ulp != std::numeric_limits<uint64_t>::max()) {
    thresholds.insert(QStringLiteral("max_ulp"), static_cast<qint64>(o.thresholds.max_ulp));
  }
  QJsonObject report{
      {QStringLiteral("endpoint"), o.endpoint},
      {QStringLiteral("board"), QString::fromUtf8(board.hello.agent_name.c_str())},
      {QStringLiteral("model"), QFileInfo(o.model).absoluteFilePath()},
      {QStringLiteral("step"), static_cast<qint64>(step)},
      {QStringLiteral("thresholds"), thresholds},
      {QStringLiteral("ops"), ops},
      {QStringLiteral("update"), update},
      {QStringLiteral("compared"), static_cast<qint64>(c.compared)},
      {QStringLiteral("held_on_one_side"), static_cast<qint64>(c.held_on_one_side)},
      {QStringLiteral("transfer"),
       QJsonObject{{QStringLiteral("requests"), static_cast<qint64>(transfer.requests)},
                   {QStringLiteral("not_held"), static_cast<qint64>(transfer.refused)},
                   {QStringLiteral("values"), static_cast<qint64>(transfer.values)},
                   {QStringLiteral("chunks"), static_cast<qint64>(transfer.chunks)},
                   {QStringLiteral("payload_bytes"), static_cast<qint64>(transfer.payload_bytes)},
                   {QStringLiteral("wire_bytes"), static_cast<qint64>(transfer.wire_bytes)},
                   {QStringLiteral("seconds"), transfer.seconds}}}};
  // A tensor named outside its op's list says which op and where in the step.
  const auto located = [&](int64_t index) {
    const TensorComparison& t = c.tensors[static_cast<size_t>(index)];
    QJsonObject detail = TensorJson(subgraph, t, readings);
    detail.insert(QStringLiteral("op"), static_cast<qint64>(t.read.op_index));
    detail.insert(QStringLiteral("moment"), QString::fromLatin1(ProbeMomentName(t.point.moment)));
    return detail;
  };
  if (c.first_divergent >= 0) {
    const uint32_t op = c.tensors[static_cast<size_t>(c.first_divergent)].read.op_index;
    report.insert(QStringLiteral("first_divergent_op"), static_cast<qint64>(op));
    QJsonObject first = located(c.first_divergent);
    first.insert(QStringLiteral("known_onert_differences"), TextsJson(known_by_op[op]));
    report.insert(QStringLiteral("first_divergent"), first);
  } else {
    report.insert(QStringLiteral("first_divergent_op"), QJsonValue::Null);
  }
  if (c.largest >= 0) report.insert(QStringLiteral("largest_difference"), located(c.largest));
  return report;
}

}  // namespace

int RunDiff(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Compare one optimizer step of a board, tensor by tensor in backward order, with the "
      "reference engine started from the board's own state."));
  parser.addPositionalArgument(
      QStringLiteral("ENDPOINT"),
      QStringLiteral("the board: a port, tcp://HOST:PORT, or a recording (.tstrace) an earlier "
                     "diff --record made, to compare that step again"));
  AddTrainingDataOptions(&parser);
  AddTrainingOptions(&parser);
  AddOption(&parser, "step", "Optimizer step to compare (from 1; default: the next one).", "S");
  AddOption(&parser, "ops", "Read only these operators (indices, comma-separated).", "K,...");
  AddOption(&parser, "max-rel-l2", "Divergence threshold: relative L2 error (default 1e-4).", "X");
  AddOption(&parser, "max-abs", "Divergence threshold: largest |board - reference|.", "X");
  AddOption(&parser, "max-ulp", "Divergence threshold: largest distance in floats.", "N");
  AddOption(&parser, "min-cosine", "Divergence threshold: smallest cosine similarity.", "C");
  AddOption(&parser, "json", "Write the comparison as JSON to FILE ('-': standard output).",
            "FILE");
  AddOption(&parser, "timeout", "Give up after this many seconds without an answer (default 10).",
            "SECONDS");
  AddOption(&parser, "baud", "Baud rate of a serial port (default 115200).", "N");
  AddOption(&parser, "values",
            "With --json: every compared tensor's values from both sides (what the app's "
            "comparison view shows side by side).");
  AddOption(&parser, "record",
            "Record every byte the board sent (the tensors included) to this trace file; giving "
            "it as ENDPOINT later shows the same comparison.",
            "FILE");
  AddOption(&parser, "stay-paused", "Leave the board paused after the step instead of resuming.");
  if (const int exit_status = ParseOrExit(&parser, arguments); exit_status >= 0) return exit_status;
  DiffOptions o;
  Status status = ParseDiffOptions(parser, &o);
  if (!status.ok()) return Fail(QString::fromUtf8(status.message()), 2);

  Model model;
  TrainingSetup setup;
  DataSet data;
  status = LoadTrainingRun(parser, o.model, &model, &setup, &data);
  if (!status.ok()) return Fail(status);
  const Subgraph& subgraph = model.graph().main();
  for (uint32_t op : o.ops) {
    if (op >= subgraph.operators.size()) {
      return Fail(QStringLiteral("--ops: the model has %1 operators; %2 is not one of them")
                      .arg(subgraph.operators.size())
                      .arg(op),
                  2);
    }
  }
  Trainer planner;
  status = planner.Init(&model, setup.options, setup.trainability);
  if (!status.ok()) return Fail(status);
  const ProbePlan plan = MakeProbePlan(subgraph, planner, o.ops);

  std::unique_ptr<Transport> link;
  TraceTransport* replay = nullptr;  // the link, when ENDPOINT is a recording
  if (LooksLikeTrace(o.endpoint.toStdString())) {
    if (!o.record.isEmpty())
      return Fail(QStringLiteral("a recording is replayed, not recorded"), 2);
    auto trace = std::make_unique<TraceTransport>(o.endpoint.toStdString());
    replay = trace.get();
    link = std::move(trace);
  } else {
    Endpoint endpoint;
    status = ParseEndpoint(o.endpoint.toStdString(), &endpoint);
    if (!status.ok()) return Fail(QString::fromUtf8(status.message()), 2);
    if (o.baud > 0) endpoint.baud_rate = o.baud;
    link = CreateTransport(endpoint);
  }
  status = link->Open();
  if (!status.ok()) return Fail(status);
  uint16_t first_command_id = 0;
  if (replay != nullptr) {
    status = replay->FirstCommandId(&first_command_id);
    if (!status.ok()) return Fail(status);
    std::fprintf(stderr, "replaying the recorded session %s\n", qPrintable(o.endpoint));
  }
  // Written as it arrives (one write per read): a killed diff leaves a replayable prefix.
  TraceWriter writer;
  if (!o.record.isEmpty()) {
    status = writer.Create(o.record.toStdString(),
                           wire::ModelHash(model.bytes().data(), model.bytes().size()));
    if (!status.ok()) return Fail(status);
  }
  AttachSession session(link.get(), o.record.isEmpty() ? nullptr : &writer);
  if (replay != nullptr) session.set_next_command_id(first_command_id);
  BoardProbeOptions probe_options;
  probe_options.step = o.step;
  probe_options.timeout_ms = static_cast<int>(o.timeout_seconds * 1000.0);
  probe_options.stay_paused = o.stay_paused;
  BoardProbe probe(&session, &plan, probe_options);
  status = probe.Connect(wire::ModelHash(model.bytes().data(), model.bytes().size()));
  if (status.ok()) status = CheckSameTraining(session.stats(), setup, planner);
  std::vector<ProbeReading> board;
  if (status.ok()) status = probe.Run(&board);
  if (!status.ok()) return Fail(status);

  std::vector<ProbeReading> start;
  std::vector<ProbeReading> board_step;
  for (ProbeReading& reading : board) {
    (reading.point.moment == ProbeMoment::kStepStart ? start : board_step)
        .push_back(std::move(reading));
  }
  std::vector<ProbeReading> reference;
  status = RunReferenceStep(&model, setup.options, setup.trainability, data, probe.step(), plan,
                            start, &reference);
  if (!status.ok()) return Fail(status);
  const StepComparison comparison = CompareStep(board_step, reference, o.thresholds, &start);
  const StepReadings readings{&board_step, &reference};

  const ProbeTransfer& t = probe.transfer();
  std::fprintf(
      stderr,
      "board '%s', optimizer step %u: %llu tensors read (%llu not held), %llu values, "
      "%llu bytes on the line in %llu chunks, %.2f s",
      session.stats().hello.agent_name.c_str(), probe.step(),
      static_cast<unsigned long long>(t.requests), static_cast<unsigned long long>(t.refused),
      static_cast<unsigned long long>(t.values), static_cast<unsigned long long>(t.wire_bytes),
      static_cast<unsigned long long>(t.chunks), t.seconds);
  std::fprintf(stderr, " (%.2f s of line time at 115200 baud)\n",
               static_cast<double>(t.wire_bytes) * 10.0 / 115200.0);
  // With the JSON on standard output, the text goes to the terminal beside it.
  FILE* text = o.json == QLatin1String("-") ? stderr : stdout;
  std::fprintf(text, "compared %llu tensors of step %u\n",
               static_cast<unsigned long long>(comparison.compared), probe.step());
  if (comparison.largest >= 0) {
    std::fprintf(text, "largest difference: %s\n",
                 qPrintable(Describe(subgraph,
                                     comparison.tensors[static_cast<size_t>(comparison.largest)])));
  }
  const std::vector<std::vector<std::string>> known = KnownOnertDifferences(subgraph, planner);
  if (comparison.first_divergent >= 0) {
    const TensorComparison& first =
        comparison.tensors[static_cast<size_t>(comparison.first_divergent)];
    std::fprintf(text, "first divergent op: %u %s\n  %s\n", first.read.op_index,
                 OpcodeName(subgraph.operators[first.read.op_index].opcode),
                 qPrintable(Describe(subgraph, first)));
    for (const std::string& note : known[first.read.op_index]) {
      std::fprintf(text, "  onert-micro is known to differ here: %s\n", note.c_str());
    }
  } else {
    std::fprintf(text, "no operator beyond the thresholds\n");
  }
  if (!o.json.isEmpty()) {
    const QByteArray json =
        QJsonDocument(ReportJson(o, session.stats(), subgraph, probe.step(), comparison, t, known,
                                 o.values ? &readings : nullptr))
            .toJson(QJsonDocument::Indented);
    if (o.json == QLatin1String("-")) {
      std::fwrite(json.constData(), 1, static_cast<size_t>(json.size()), stdout);
    } else {
      status = WriteFileAtomically(o.json, json.constData(), static_cast<size_t>(json.size()));
      if (!status.ok()) return Fail(status);
    }
  }
  return comparison.first_divergent >= 0 ? kDivergedStatus : 0;
}

}  // namespace trainscope::cli
