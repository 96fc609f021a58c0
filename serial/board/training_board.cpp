// SPDX-License-Identifier: Apache-2.0
#include "serial/board/training_board.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "engine/train/losses.h"
#include "engine/train/metrics.h"
#include "serial/board/subgraph_names.h"
#include "serial/board/trainability_change.h"

namespace trainscope {
namespace {

constexpr uint32_t kCapabilities =
    wire::capability::kForwardOps | wire::capability::kBackwardSteps |
    wire::capability::kMemoryEvents | wire::capability::kGradientStats |
    wire::capability::kUpdateRatio | wire::capability::kLossMetric | wire::capability::kPauseStep |
    wire::capability::kBreakpoints | wire::capability::kTrainability |
    wire::capability::kDurations | wire::capability::kTensorValues;

constexpr int kPausedPollMs = 20;
constexpr uint32_t kProgressPeriodMs = 1000;
constexpr uint32_t kMemoryReportPeriodMs = 1000;
constexpr uint32_t kExitDrainMs = 2000;

uint32_t ClampToU32(uint64_t value) {
  return value > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                      : static_cast<uint32_t>(value);
}

uint64_t DataSetBytes(const DataSet& data) {
  uint64_t floats = data.targets.size();
  for (const std::vector<float>& input : data.inputs) floats += input.size();
  return floats * sizeof(float);
}

}  // namespace

TrainingBoard::TrainingBoard(Model* model, DataSet data, const TrainingBoardOptions& options,
                             BoardLayer* layer)
    : model_(model), data_(std::move(data)), options_(options), layer_(layer) {}

TrainingBoard::~TrainingBoard() = default;

void TrainingBoard::set_data(DataSet data) {
  data_ = std::move(data);
  if (agent_) ReportMemory(true);
}

Status TrainingBoard::Start() {
  // Hash the bytes as loaded: training rewrites the weights inside them.
  model_hash_ = wire::ModelHash(model_->bytes().data(), model_->bytes().size());
  // The agent comes first, so a trainer that cannot start can still be reported.
  tx_storage_.assign(std::max(options_.tx_buffer_bytes, kAgentMaxFrameBytes + 2), 0);
  AgentConfig config;
  config.name = options_.name;
  config.capabilities =
      kCapabilities | (options_.emulated_time ? wire::capability::kEmulatedTime : 0u);
  config.tx_storage = tx_storage_.data();
  config.tx_storage_size = tx_storage_.size();
  config.write = &TrainingBoard::WriteThunk;
  config.write_context = this;
  config.poll = &TrainingBoard::PollThunk;
  config.poll_context = this;
  config.lookup_name = &TrainingBoard::NameThunk;
  config.lookup_context = this;
  config.read_tensor = &TrainingBoard::ReadTensorThunk;
  config.read_context = this;
  agent_ = std::make_unique<Agent>(config);

  auto trainer = std::make_unique<Trainer>();
  TS_RETURN_IF_ERROR(trainer->Init(model_, options_.training, options_.trainability));
  trainer_ = std::move(trainer);
  for (const std::string& warning : trainer_->warnings()) {
    if (options_.log) std::fprintf(options_.log, "warning: %s\n", warning.c_str());
  }
  ops_.assign(model_->graph().main().operators.size(), wire::OpSummary{});
  DescribeOps();
  agent_->set_arena_bytes(ClampToU32(trainer_->memory().arena_bytes));
  trainer_->set_observer(agent_.get());
  trainer_->set_gate(this);
  Greet();
  return Status::Ok();
}

void TrainingBoard::Greet() {
  greeted_ = true;
  if (trainer_) {
    agent_->SetTrainingSetup(static_cast<uint8_t>(trainer_->options().optimizer),
                             trainer_->options().batch_size);
  }
  agent_->Start();
  if (trainer_) {
    agent_->AnnounceModel(model_hash_, static_cast<uint32_t>(model_->graph().main().tensors.size()),
                          ops_.data(), static_cast<uint32_t>(ops_.size()));
  }
  ReportMemory(true);
}

void TrainingBoard::DescribeOps() {
  const Subgraph& main = model_->graph().main();
  const BackwardSelection& selection = trainer_->selection();
  for (size_t k = 0; k < ops_.size(); ++k) {
    const int32_t opcode = main.operators[k].opcode;
    ops_[k].opcode = static_cast<int16_t>(std::clamp<int32_t>(opcode, INT16_MIN, INT16_MAX));
    const bool known = k < selection.ops.size();
    ops_[k].trainable = known && selection.ops[k].has_parameter_gradients;
    ops_[k].rank = known ? selection.ops[k].rank : TrainRank::kAll;
  }
}

wire::DeviceMemoryMessage TrainingBoard::DeviceMemory() const {
  wire::DeviceMemoryMessage memory;
  if (trainer_) {
    memory.predicted_heap_peak_bytes = ClampToU32(trainer_->memory().arena_bytes);
    memory.model_bytes = ClampToU32(uint64_t{model_->bytes().size()} + trainer_->constant_bytes());
  } else {
    memory.model_bytes = ClampToU32(model_->bytes().size());
  }
  memory.data_bytes = ClampToU32(DataSetBytes(data_));
  memory.agent_bytes = ClampToU32(sizeof(Agent) + tx_storage_.size());
  MeasuredMemory measured;
  if (layer_->MeasureMemory(&measured)) {
    memory.source = wire::MemorySource::kMeasured;
    memory.heap_peak_bytes = measured.heap_peak_bytes;
    memory.stack_peak_bytes = measured.stack_peak_bytes;
    memory.static_bytes = measured.static_bytes;
    memory.ram_bytes = measured.ram_bytes;
  } else {
    memory.source = wire::MemorySource::kAccounted;
    memory.heap_peak_bytes =
        ClampToU32(uint64_t{memory.predicted_heap_peak_bytes} + memory.model_bytes +
                   memory.data_bytes + memory.agent_bytes);
  }
  return memory;
}

void TrainingBoard::ReportMemory(bool now) {
  const uint32_t now_ms = layer_->NowMs();
  if (!now && now_ms - last_memory_report_ms_ < kMemoryReportPeriodMs) return;
  last_memory_report_ms_ = now_ms;
  agent_->ReportDeviceMemory(DeviceMemory());
}

void TrainingBoard::Log(wire::LogLevel level, const std::string& text) {
  agent_->Log(level, text.c_str());
  if (options_.log && level >= wire::LogLevel::kWarning) {
    std::fprintf(options_.log, "%s: %s\n", level == wire::LogLevel::kError ? "error" : "warning",
                 text.c_str());
  }
}

size_t TrainingBoard::WriteThunk(void* self, const uint8_t* data, size_t size) {
  return static_cast<TrainingBoard*>(self)->layer_->Write(data, size);
}

void TrainingBoard::PollThunk(void* self) {
  auto* board = static_cast<TrainingBoard*>(self);
  board->PollLink(board->agent_->paused() ? kPausedPollMs : 0);
}

const char* TrainingBoard::NameThunk(void* self, wire::NameKind kind, uint32_t id) {
  return SubgraphName(static_cast<TrainingBoard*>(self)->model_->graph().main(), kind, id);
}

wire::TensorReadResult TrainingBoard::ReadTensorThunk(void* self, int32_t tensor,
                                                      wire::TensorAspect aspect,
                                                      AgentTensorView* view) {
  auto* board = static_cast<TrainingBoard*>(self);
  if (!board->trainer_) {
    view->reason = "the trainer is not running";
    return wire::TensorReadResult::kNotHeld;
  }
  static_assert(
      static_cast<int>(TensorAspect::kAdamV) == static_cast<int>(wire::TensorAspect::kAdamV),
      "the wire's aspects are the engine's");
  TensorView held;
  const Status status =
      board->trainer_->ViewTensor(tensor, static_cast<TensorAspect>(aspect), &held);
  if (!status.ok()) {
    board->read_reason_ = status.message();
    view->reason = board->read_reason_.c_str();
    const bool exists =
        tensor >= 0 && static_cast<size_t>(tensor) < board->model_->graph().main().tensors.size();
    if (!exists) return wire::TensorReadResult::kNoSuchTensor;
    return status.code() == StatusCode::kUnsupported ? wire::TensorReadResult::kUnsupported
                                                     : wire::TensorReadResult::kNotHeld;
  }
  view->values = held.values;
  view->count = held.count;
  view->rank = static_cast<uint8_t>(held.rank);
  for (uint32_t d = 0; d < held.rank; ++d) view->dims[d] = held.dims[d];
  return wire::TensorReadResult::kOk;
}

void TrainingBoard::BeforeBackwardStep(const BackwardStepEvent&) {
  // A PAUSE that arrived during the previous operator stops the run here, between two ops.
  PollLink(0);
  agent_->WaitWhilePaused();
}

void TrainingBoard::PollLink(int timeout_ms) {
  uint8_t buffer[512];
  for (int round = 0; round < 16; ++round) {
    const size_t received = layer_->Read(buffer, sizeof buffer, round == 0 ? timeout_ms : 0);
    if (layer_->TakeNewPeer()) Greet();
    if (received == 0) break;
    agent_->Receive(buffer, received);
  }
  agent_->Tick(layer_->NowMs());
  ReportMemory(false);
  agent_->Flush();
  // The values go from where they live: finish before the run can change them.
  agent_->FinishTensorTransfer();
}

void TrainingBoard::WaitForLine() {
  const size_t limit = tx_storage_.size() / 2;
  while (agent_->tx_ring().queued_bytes() > limit) PollLink(1);
}

void TrainingBoard::ApplyTrainabilityChanges() {
  TrainabilityConfig next = options_.trainability;
  bool changed = false;
  TrainabilityChange change;
  const Subgraph& main = model_->graph().main();
  while (agent_->TakeTrainabilityChange(&change)) {
    Status status = ApplyTrainabilityChange(main, change, &next);
    if (status.ok()) {
      changed = true;
      Log(wire::LogLevel::kInfo, "trainability: " + DescribeTrainabilityChange(change));
    } else {
      Log(wire::LogLevel::kWarning, std::string("ignored: ") + status.message());
    }
  }
  if (!changed || !trainer_) return;
  Status status = trainer_->WriteWeightsToModel();
  if (!status.ok()) {
    Log(wire::LogLevel::kError,
        std::string("keeping the previous trainability: ") + status.message());
    return;
  }
  // A board has no room for two plans at once: the old trainer goes before the new one is
  // built, and a plan that cannot be built falls back to the one that ran.
  const uint32_t optimizer_step = trainer_->optimizer_step();
  const uint32_t epoch = trainer_->epoch();
  trainer_.reset();
  auto fresh = std::make_unique<Trainer>();
  status = fresh->Init(model_, options_.training, next);
  if (!status.ok()) {
    Log(wire::LogLevel::kError,
        std::string("keeping the previous trainability: ") + status.message());
    next = options_.trainability;
    fresh = std::make_unique<Trainer>();
    status = fresh->Init(model_, options_.training, next);
    if (!status.ok()) {
      HaltWithError(status.message());
      return;
    }
  }
  fresh->set_progress(optimizer_step, epoch);
  fresh->set_observer(agent_.get());
  fresh->set_gate(this);
  trainer_ = std::move(fresh);
  options_.trainability = next;
  DescribeOps();
  agent_->set_arena_bytes(ClampToU32(trainer_->memory().arena_bytes));
  agent_->AnnounceModel(model_hash_, static_cast<uint32_t>(main.tensors.size()), ops_.data(),
                        static_cast<uint32_t>(ops_.size()));
  ReportMemory(true);
}

Status TrainingBoard::Train() {
  const TrainingOptions& training = options_.training;
  const Subgraph& main = model_->graph().main();
  const size_t output_elements =
      main.tensors[main.outputs.empty() ? 0 : main.outputs[0]].element_count();
  // The metric runs on the training data, so it needs targets shaped like the loss's.
  const bool has_metric = training.metric != MetricKind::kNone &&
                          TargetElementCount(training.metric, output_elements) ==
                              TargetElementCount(training.loss, output_elements);
  const uint32_t steps = data_.sample_count / training.batch_size;
  uint32_t last_progress_ms = layer_->NowMs() - kProgressPeriodMs;
  for (uint32_t e = 0; e < training.epochs; ++e) {
    const uint32_t epoch = trainer_->epoch() + 1;
    trainer_->set_progress(trainer_->optimizer_step(), epoch);
    double loss_sum = 0.0;
    for (uint32_t s = 0; s < steps; ++s) {
      ApplyTrainabilityChanges();
      WaitForLine();
      float loss = 0.0f;
      Status status = trainer_->TrainStep(data_, s * training.batch_size, &loss);
      if (!status.ok()) return status.Prepend("epoch " + std::to_string(epoch));
      loss_sum += loss;
    }
    float metric = 0.0f;
    if (has_metric) {
      TS_RETURN_IF_ERROR(trainer_->Evaluate(data_, training.metric, &metric));
      agent_->OnMetric({epoch, static_cast<uint8_t>(training.metric), metric});
    }
    const uint32_t now_ms = layer_->NowMs();
    if (options_.log &&
        (now_ms - last_progress_ms >= kProgressPeriodMs || e + 1 == training.epochs)) {
      last_progress_ms = now_ms;
      std::fprintf(options_.log, "epoch %lu/%lu: loss %.6f", static_cast<unsigned long>(e + 1),
                   static_cast<unsigned long>(training.epochs), steps > 0 ? loss_sum / steps : 0.0);
      if (has_metric) {
        std::fprintf(options_.log, ", %s %.6f", MetricName(training.metric),
                     static_cast<double>(metric));
      }
      std::fprintf(options_.log, " (%lu optimizer steps)\n",
                   static_cast<unsigned long>(trainer_->optimizer_step()));
    }
  }
  return Status::Ok();
}

void TrainingBoard::Serve() {
  for (;;) {
    ApplyTrainabilityChanges();  // still acknowledged and applied: a later run would use them
    PollLink(kPausedPollMs);
  }
}

void TrainingBoard::PollUntil(bool (*done)(void* context), void* context) {
  agent_->SetActivity(wire::BoardActivity::kWaiting);
  while (!done(context)) PollLink(kPausedPollMs);
}

void TrainingBoard::HaltWithError(const char* text) {
  if (!greeted_) Greet();                     // a start that failed before greeting
  agent_->Log(wire::LogLevel::kError, text);  // first, so a desktop knows why when it hears
  agent_->SetActivity(wire::BoardActivity::kHalted);
  if (options_.log) std::fprintf(options_.log, "error: %s\n", text);
  for (;;) PollLink(kPausedPollMs);
}

Status TrainingBoard::Run() {
  agent_->SetActivity(wire::BoardActivity::kTraining);
  Status status = Train();
  for (uint32_t round = 2; status.ok() && options_.loop; ++round) {
    Log(wire::LogLevel::kInfo, "schedule finished after " +
                                   std::to_string(trainer_->optimizer_step()) +
                                   " optimizer steps; round " + std::to_string(round) +
                                   " goes on from the weights reached");
    status = Train();
  }
  agent_->SetActivity(status.ok() ? wire::BoardActivity::kFinished : wire::BoardActivity::kHalted);
  if (status.ok()) {
    Log(wire::LogLevel::kInfo, "training finished after " +
                                   std::to_string(trainer_->optimizer_step()) + " optimizer steps");
  } else {
    const std::string text = std::string("training stopped: ") + status.message();
    agent_->Log(wire::LogLevel::kError, text.c_str());
    // With exit_when_done the caller reports the returned status itself.
    if (options_.log && !options_.exit_when_done)
      std::fprintf(options_.log, "error: %s\n", text.c_str());
  }
  ReportMemory(true);
  if (!options_.exit_when_done) Serve();
  const uint32_t start_ms = layer_->NowMs();
  while ((agent_->tx_ring().queued_bytes() > 0 || !layer_->LinkIdle()) &&
         layer_->NowMs() - start_ms < kExitDrainMs) {
    PollLink(1);
  }
  return status;
}

}  // namespace trainscope
