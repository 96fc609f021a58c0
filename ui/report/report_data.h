// SPDX-License-Identifier: Apache-2.0
//
// ReportData: everything a memory report shows, computed once from a model, a trainability
// configuration and the memory options (through ComputeMemoryReport), independent of the output
// format. Every exporter (report_export.h) reads only this struct, so the same inputs give the
// same numbers in JSON, CSV, HTML, PDF, Mondrian and Chrome-trace files. Plain C++ (no Qt), a
// value: copy it to hand it to another thread.
//
//   ReportData data;
//   TS_RETURN_IF_ERROR(BuildReportData(model.graph(), "demo.circle", config, options, &data));
//   printf("%s: heap peak %llu\n", data.model_name.c_str(), data.memory.heap_peak_bytes);
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/memory/memory_report.h"
#include "engine/model/graph.h"
#include "engine/plan/trainability.h"

namespace trainscope {

using CategoryBytes = std::array<uint64_t, kMemoryCategoryCount>;

struct ReportOperator {
  uint32_t index = 0;
  std::string opcode;  // "FULLY_CONNECTED"
  std::string output;  // name of the first output tensor
  bool in_backward_range = false;
  uint32_t backward_step = kNoBackwardStep;
  bool trainable = false;  // computes parameter gradients
  TrainRank rank = TrainRank::kAll;
  uint64_t parameters = 0;          // float32 constant elements of its inputs
  uint64_t trained_parameters = 0;  // of those, the ones this configuration trains
};

struct ReportData {
  std::string generator;  // "TrainScope 0.1.0"
  std::string model_name;
  std::string model_description;
  uint32_t operator_count = 0;
  uint64_t model_parameters = 0;  // float32 constant elements

  bool inference = false;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  uint32_t batch_size = 1;
  TrainabilityConfig trainability;
  std::string trainability_text;  // "all operators", "last 2 operators", "train-config, 3 entries"
  uint64_t trained_parameters = 0;

  MemoryReport memory;
  std::vector<CategoryBytes> tick_bytes;  // live bytes per tick and category (sum = live_bytes)
  std::vector<std::string> tick_labels;   // "forward 3 CONV_2D", "backward 0 (op 5 SOFTMAX)"
  std::vector<ReportOperator> operators;
};

// Computes the memory report itself (ComputeMemoryReport with `options`).
Status BuildReportData(const Graph& graph, const std::string& model_name,
                       const TrainabilityConfig& config, const MemoryReportOptions& options,
                       ReportData* data);

// From a memory report computed elsewhere with the same graph, config and options.
Status BuildReportData(const Graph& graph, const std::string& model_name,
                       const TrainabilityConfig& config, const MemoryReportOptions& options,
                       const MemoryReport& report, ReportData* data);

// "forward", "loss", "backward", "optimizer" with " #1" for the second modelled sample.
std::string TickPhaseText(const Tick& tick);
// Storage names used in every format: "forward", "backward", "optimizer", "kernel".
const char* BufferStorageName(BufferStorage storage);
// "6116 B", "11.0 KiB", "2.50 MiB".
std::string HumanBytes(uint64_t bytes);

}  // namespace trainscope
