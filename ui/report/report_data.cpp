// SPDX-License-Identifier: Apache-2.0
#include "ui/report/report_data.h"

#include <cstdio>

namespace trainscope {
namespace {

std::string OpcodeText(int32_t opcode) {
  const char* name = OpcodeName(opcode);
  return name != nullptr ? name : "OPCODE_" + std::to_string(opcode);
}

std::string TrainabilityText(const ReportData& data) {
  if (data.inference) return "inference (no training)";
  const TrainabilityConfig& config = data.trainability;
  if (!config.op_ranks.empty()) {
    std::string text = "train-config, " + std::to_string(config.op_ranks.size()) +
                       (config.op_ranks.size() == 1 ? " entry:" : " entries:");
    for (const auto& entry : config.op_ranks) {
      text += " op " + std::to_string(entry.first) + " " + TrainRankName(entry.second) + ",";
    }
    text.pop_back();
    return text;
  }
  if (config.num_train_layers == 0 || config.num_train_layers >= data.operator_count) {
    return "all operators";
  }
  return "last " + std::to_string(config.num_train_layers) +
         (config.num_train_layers == 1 ? " operator" : " operators");
}

std::string TickLabel(const Subgraph& subgraph, const MemoryStepRow& row) {
  std::string label = TickPhaseText(row.tick);
  if (row.tick.kind == TickKind::kForwardOp) {
    label += " " + std::to_string(row.tick.step) + " " + OpcodeText(row.opcode);
  } else if (row.tick.kind == TickKind::kBackwardStep) {
    label += " " + std::to_string(row.tick.step) + " (op " + std::to_string(row.tick.op_index) +
             " " + OpcodeText(row.opcode) + ")";
  }
  (void)subgraph;
  return label;
}

}  // namespace

std::string TickPhaseText(const Tick& tick) {
  std::string text = TickKindName(tick.kind);
  if (tick.sample > 0) text += " #" + std::to_string(tick.sample);
  return text;
}

const char* BufferStorageName(BufferStorage storage) {
  switch (storage) {
    case BufferStorage::kForward:
      return "forward";
    case BufferStorage::kBackward:
      return "backward";
    case BufferStorage::kOptimizer:
      return "optimizer";
    case BufferStorage::kKernel:
      return "kernel";
  }
  return "unknown";
}

std::string HumanBytes(uint64_t bytes) {
  char text[32];
  if (bytes < 1024) {
    std::snprintf(text, sizeof(text), "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1024 * 1024) {
    const double kib = static_cast<double>(bytes) / 1024.0;
    std::snprintf(text, sizeof(text), kib < 10 ? "%.2f KiB" : "%.1f KiB", kib);
  } else {
    std::snprintf(text, sizeof(text), "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return text;
}

Status BuildReportData(const Graph& graph, const std::string& model_name,
                       const TrainabilityConfig& config, const MemoryReportOptions& options,
                       ReportData* data) {
  MemoryReport report;
  TS_RETURN_IF_ERROR(ComputeMemoryReport(graph, config, options, &report));
  return BuildReportData(graph, model_name, config, options, report, data);
}

Status BuildReportData(const Graph& graph, const std::string& model_name,
                       const TrainabilityConfig& config, const MemoryReportOptions& options,
                       const MemoryReport& report, ReportData* data) {
  if (graph.subgraphs.empty()) {
    return Status::Error(StatusCode::kInvalidModel, "report: the model has no subgraph");
  }
  const Subgraph& subgraph = graph.main();
  ReportData out;
  out.generator = std::string("TrainScope ") + TRAINSCOPE_VERSION;
  out.model_name = model_name;
  out.model_description = graph.description;
  out.operator_count = static_cast<uint32_t>(subgraph.operators.size());
  out.model_parameters = CountFloatParameters(subgraph);
  out.inference = options.inference;
  out.optimizer = options.optimizer;
  out.batch_size = options.batch_size;
  if (!options.inference) out.trainability = config;
  out.trainability_text = TrainabilityText(out);
  out.memory = report;

  const size_t ticks = report.rows.size();
  out.tick_bytes.assign(ticks, CategoryBytes{});
  for (const MemoryReportBuffer& b : report.buffers) {
    const size_t category = static_cast<size_t>(b.buffer.category);
    if (category >= kMemoryCategoryCount) {
      return Status::Error(StatusCode::kInvalidArgument, "report: buffer '%s' has category %zu",
                           b.name.c_str(), category);
    }
    for (size_t t = b.buffer.first_tick; t <= b.buffer.last_tick && t < ticks; ++t) {
      out.tick_bytes[t][category] += b.buffer.bytes;
    }
  }
  for (const MemoryStepRow& row : report.rows) out.tick_labels.push_back(TickLabel(subgraph, row));

  std::vector<uint64_t> trained(subgraph.operators.size(), 0);
  if (!options.inference) {
    for (const ParameterGradient& p : ListParameterGradients(subgraph, report.selection)) {
      if (p.op_index < trained.size()) trained[p.op_index] += p.trained_bytes() / sizeof(float);
    }
  }
  for (uint32_t k = 0; k < subgraph.operators.size(); ++k) {
    const Operator& op = subgraph.operators[k];
    ReportOperator entry;
    entry.index = k;
    entry.opcode = OpcodeText(op.opcode);
    if (!op.outputs.empty())
      entry.output = subgraph.tensors[static_cast<size_t>(op.outputs[0])].name;
    if (k < report.selection.ops.size()) {
      const OpTrainability& t = report.selection.ops[k];
      entry.in_backward_range = t.in_backward_range;
      entry.backward_step = t.backward_step;
      entry.trainable = t.has_parameter_gradients;
      entry.rank = t.rank;
    }
    for (int32_t input : op.inputs) {
      if (input < 0) continue;
      const Tensor& tensor = subgraph.tensors[static_cast<size_t>(input)];
      if (tensor.constant && tensor.type == ElementType::kFloat32) {
        entry.parameters += tensor.element_count();
      }
    }
    entry.trained_parameters = trained[k];
    out.trained_parameters += trained[k];
    out.operators.push_back(entry);
  }
  *data = std::move(out);
  return Status::Ok();
}

}  // namespace trainscope
