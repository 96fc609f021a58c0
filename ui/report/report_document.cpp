// SPDX-License-Identifier: Apache-2.0
#include "ui/report/report_document.h"

#include <cstdio>

namespace trainscope {
namespace {

// Column headers of the tick table, in MemoryCategory order (explained above the table).
constexpr const char* kShortCategoryNames[kMemoryCategoryCount] = {
    "input", "act", "kept", "act grad", "w grad", "opt state", "loss grad", "temp"};

std::string Bytes(uint64_t bytes) {
  return bytes < 1024 ? std::to_string(bytes) + " B"
                      : std::to_string(bytes) + " B (" + HumanBytes(bytes) + ")";
}

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %%", 100.0 * fraction);
  return text;
}

ReportBlock Heading(std::string text) {
  ReportBlock block;
  block.kind = ReportBlock::Kind::kHeading;
  block.text = std::move(text);
  return block;
}

ReportBlock Paragraph(std::string text) {
  ReportBlock block;
  block.kind = ReportBlock::Kind::kParagraph;
  block.text = std::move(text);
  return block;
}

ReportBlock Table(ReportTable table) {
  ReportBlock block;
  block.kind = ReportBlock::Kind::kTable;
  block.table = std::move(table);
  return block;
}

ReportBlock Plot(PlotScene scene) {
  ReportBlock block;
  block.kind = ReportBlock::Kind::kPlot;
  block.plot = std::move(scene);
  return block;
}

ReportTable SummaryTable(const ReportData& data) {
  const MemoryReport& m = data.memory;
  ReportTable table;
  table.header = {"Quantity", "Value"};
  table.numeric = {false, false};
  auto add = [&table](std::string key, std::string value) {
    table.rows.push_back({std::move(key), std::move(value)});
  };
  add("Model", data.model_name + " (" + std::to_string(data.operator_count) + " operators, " +
                   std::to_string(data.model_parameters) + " float32 parameters)");
  add("Mode", data.inference ? "inference" : "training");
  if (!data.inference) {
    add("Optimizer", OptimizerName(data.optimizer));
    add("Batch size", std::to_string(data.batch_size));
    add("Trainability", data.trainability_text);
    add("Trained parameters", std::to_string(data.trained_parameters));
  }
  const std::string peak_tick = m.rows.empty()
                                    ? std::string()
                                    : " at tick " + std::to_string(m.heap_peak_tick) + " (" +
                                          data.tick_labels[m.heap_peak_tick] + ")";
  add("Heap peak (onert-micro accounting)", Bytes(m.heap_peak_bytes) + peak_tick);
  add("Planned arena", Bytes(m.arena_bytes) + ", " + m.arena_strategy);
  add("Lower bound (16-byte aligned)", Bytes(m.lower_bound_bytes));
  add("Fragmentation", Percent(m.fragmentation));
  add("Ticks / buffers", std::to_string(m.rows.size()) + " / " + std::to_string(m.buffers.size()));
  return table;
}

ReportTable PeakTable(const ReportData& data) {
  ReportTable table;
  table.header = {"Category", "Bytes", "Share"};
  table.numeric = {false, true, true};
  const uint64_t peak = data.memory.heap_peak_bytes;
  for (uint8_t c = 0; c < kMemoryCategoryCount; ++c) {
    const uint64_t bytes = data.memory.heap_peak_by_category[c];
    if (bytes == 0) continue;
    table.rows.push_back(
        {MemoryCategoryName(static_cast<MemoryCategory>(c)), std::to_string(bytes),
         Percent(peak == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(peak))});
  }
  table.rows.push_back({"total", std::to_string(peak), Percent(peak == 0 ? 0.0 : 1.0)});
  return table;
}

ReportTable OperatorTable(const ReportData& data) {
  ReportTable table;
  table.header = {"#",         "Operator", "Output",     "Backward step",
                  "Trainable", "Rank",     "Parameters", "Trained"};
  table.numeric = {true, false, false, true, false, false, true, true};
  for (const ReportOperator& op : data.operators) {
    table.rows.push_back(
        {std::to_string(op.index), op.opcode, op.output,
         op.in_backward_range ? std::to_string(op.backward_step) : "-", op.trainable ? "yes" : "no",
         op.trainable && data.trainability.op_ranks.size() > 0 ? TrainRankName(op.rank) : "-",
         std::to_string(op.parameters), std::to_string(op.trained_parameters)});
  }
  return table;
}

ReportTable TickTable(const ReportData& data) {
  ReportTable table;
  table.header = {"Tick", "Step", "Live bytes", "Running peak", "Arena top"};
  table.numeric = {true, false, true, true, true};
  for (const char* name : kShortCategoryNames) {
    table.header.push_back(name);
    table.numeric.push_back(true);
  }
  for (size_t t = 0; t < data.memory.rows.size(); ++t) {
    const MemoryStepRow& row = data.memory.rows[t];
    std::vector<std::string> cells = {
        std::to_string(t), data.tick_labels[t], std::to_string(row.live_bytes),
        std::to_string(row.peak_bytes), std::to_string(row.arena_planned_bytes)};
    for (uint64_t bytes : data.tick_bytes[t]) cells.push_back(std::to_string(bytes));
    table.rows.push_back(std::move(cells));
  }
  table.highlight_row =
      data.memory.rows.empty() ? -1 : static_cast<int>(data.memory.heap_peak_tick);
  return table;
}

ReportTable BufferTable(const ReportData& data) {
  ReportTable table;
  table.header = {"#", "Buffer", "Category", "Storage", "Sample", "Bytes", "Offset", "Ticks"};
  table.numeric = {true, false, false, false, true, true, true, true};
  for (size_t i = 0; i < data.memory.buffers.size(); ++i) {
    const MemoryReportBuffer& b = data.memory.buffers[i];
    table.rows.push_back(
        {std::to_string(i), b.name, MemoryCategoryName(b.buffer.category),
         BufferStorageName(b.buffer.storage), std::to_string(b.buffer.sample),
         std::to_string(b.buffer.bytes), std::to_string(b.offset),
         std::to_string(b.buffer.first_tick) + "-" + std::to_string(b.buffer.last_tick)});
  }
  return table;
}

}  // namespace

ReportDocument BuildReportDocument(const ReportData& data) {
  ReportDocument document;
  document.title = "TrainScope memory report: " + data.model_name;
  ReportBlock title;
  title.kind = ReportBlock::Kind::kTitle;
  title.text = document.title;
  document.blocks.push_back(title);
  std::string intro =
      "Generated by " + data.generator + " from the model's plans, without running it";
  if (!data.model_description.empty()) intro += ". Model description: " + data.model_description;
  document.blocks.push_back(Paragraph(intro + "."));

  document.blocks.push_back(Heading("Summary"));
  document.blocks.push_back(Table(SummaryTable(data)));
  document.blocks.push_back(Heading("At the heap peak"));
  document.blocks.push_back(Table(PeakTable(data)));
  document.blocks.push_back(Heading("Live bytes"));
  document.blocks.push_back(Plot(LiveBytesPlot(data, kReportPlotWidth, 320)));
  document.blocks.push_back(Heading("Arena address map"));
  document.blocks.push_back(Plot(AddressMapPlot(data, kReportPlotWidth, 320)));
  document.blocks.push_back(Heading("Operators"));
  document.blocks.push_back(Table(OperatorTable(data)));
  document.blocks.push_back(Heading("Ticks"));
  document.blocks.push_back(Paragraph(
      "Bytes live during each tick (heap accounting), the running peak, the top of the planned "
      "arena and the live bytes by category: act = activation, kept = activation kept for the "
      "backward pass, act grad = activation gradient, w grad = weight gradient, opt state = "
      "optimizer state (Adam m, v), loss grad = loss gradient, temp = kernel temporary. The heap "
      "peak row is highlighted."));
  document.blocks.push_back(Table(TickTable(data)));
  document.blocks.push_back(Heading("Buffers"));
  document.blocks.push_back(Table(BufferTable(data)));
  if (!data.memory.warnings.empty()) {
    document.blocks.push_back(Heading("Warnings"));
    ReportBlock notes;
    notes.kind = ReportBlock::Kind::kNotes;
    notes.notes = data.memory.warnings;
    document.blocks.push_back(notes);
  }
  return document;
}

}  // namespace trainscope
