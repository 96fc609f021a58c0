// SPDX-License-Identifier: Apache-2.0
#include "app/board-sim/board_simulator.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "app/board-sim/trainability_change.h"
#include "engine/train/losses.h"
#include "engine/train/metrics.h"

namespace trainscope {
namespace {

constexpr uint32_t kCapabilities =
    wire::capability::kForwardOps | wire::capability::kBackwardSteps |
    wire::capability::kMemoryEvents | wire::capability::kGradientStats |
    wire::capability::kUpdateRatio | wire::capability::kLossMetric | wire::capability::kPauseStep |
    wire::capability::kBreakpoints | wire::capability::kTrainability | wire::capability::kDurations;

constexpr int kPausedPollMs = 20;
constexpr int64_t kProgressPeriodNs = 1000000000;
constexpr int64_t kExitDrainNs = 2000000000;

uint32_t ClampToU32(uint64_t value) {
  return value > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                      : static_cast<uint32_t>(value);
}

}  // namespace

BoardSimulator::BoardSimulator(Model* model, DataSet data, const SimulatorOptions& options,
                               BoardPort* port)
    : model_(model),
      data_(std::move(data)),
      options_(options),
      port_(port),
      line_(port, options.baud_rate, options.faults) {}

BoardSimulator::~BoardSimulator() = default;

Status BoardSimulator::Start() {
  start_ns_ = MonotonicNowNs();
  // Hash the bytes as loaded: training rewrites the weights inside them.
  model_hash_ = wire::ModelHash(model_->bytes().data(), model_->bytes().size());
  trainer_ = std::make_unique<Trainer>();
  TS_RETURN_IF_ERROR(trainer_->Init(model_, options_.training, options_.trainability));
  for (const std::string& warning : trainer_->warnings()) {
    if (options_.log) std::fprintf(options_.log, "warning: %s\n", warning.c_str());
  }
  ops_.assign(model_->graph().main().operators.size(), wire::OpSummary{});
  DescribeOps();

  tx_storage_.assign(std::max(options_.tx_buffer_bytes, kAgentMaxFrameBytes + 2), 0);
  AgentConfig config;
  config.name = "trainscope-board-sim";
  config.capabilities = kCapabilities;
  config.arena_bytes = ClampToU32(trainer_->memory().arena_bytes);
  config.tx_storage = tx_storage_.data();
  config.tx_storage_size = tx_storage_.size();
  config.write = &SimulatedLine::WriteThunk;
  config.write_context = &line_;
  config.poll = &BoardSimulator::PollThunk;
  config.poll_context = this;
  config.lookup_name = &BoardSimulator::NameThunk;
  config.lookup_context = this;
  agent_ = std::make_unique<Agent>(config);
  trainer_->set_observer(agent_.get());
  trainer_->set_gate(this);
  Greet();
  return Status::Ok();
}

void BoardSimulator::Greet() {
  agent_->SetTrainingSetup(static_cast<uint8_t>(trainer_->options().optimizer),
                           trainer_->options().batch_size);
  agent_->Start();
  agent_->AnnounceModel(model_hash_, static_cast<uint32_t>(model_->graph().main().tensors.size()),
                        ops_.data(), static_cast<uint32_t>(ops_.size()));
}

void BoardSimulator::DescribeOps() {
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

uint32_t BoardSimulator::NowMs() const {
  return static_cast<uint32_t>((MonotonicNowNs() - start_ns_) / 1000000);
}

void BoardSimulator::Log(wire::LogLevel level, const std::string& text) {
  agent_->Log(level, text.c_str());
  if (options_.log && level >= wire::LogLevel::kWarning) {
    std::fprintf(options_.log, "%s: %s\n", level == wire::LogLevel::kError ? "error" : "warning",
                 text.c_str());
  }
}

void BoardSimulator::PollThunk(void* self) {
  auto* sim = static_cast<BoardSimulator*>(self);
  sim->PollLink(sim->agent_->paused() ? kPausedPollMs : 0);
}

const char* BoardSimulator::NameThunk(void* self, wire::NameKind kind, uint32_t id) {
  const Subgraph& main = static_cast<BoardSimulator*>(self)->model_->graph().main();
  int64_t tensor = id;
  if (kind == wire::NameKind::kOperator) {
    // Operators have no names in a circle file; their first output's name reads best.
    if (id >= main.operators.size() || main.operators[id].outputs.empty()) return nullptr;
    tensor = main.operators[id].outputs[0];
  }
  if (tensor < 0 || static_cast<size_t>(tensor) >= main.tensors.size()) return nullptr;
  const std::string& name = main.tensors[static_cast<size_t>(tensor)].name;
  return name.empty() ? nullptr : name.c_str();
}

void BoardSimulator::BeforeBackwardStep(const BackwardStepEvent&) {
  // A PAUSE that arrived during the previous operator stops the run here, between two ops.
  PollLink(0);
  agent_->WaitWhilePaused();
}

void BoardSimulator::PollLink(int timeout_ms) {
  line_.Pump();
  uint8_t buffer[512];
  for (int round = 0; round < 16; ++round) {
    size_t received = 0;
    Status status = port_->Read(buffer, sizeof buffer, round == 0 ? timeout_ms : 0, &received);
    if (port_->TakeNewPeer()) Greet();
    if (!status.ok()) {
      if (!port_error_reported_ && options_.log) {
        std::fprintf(options_.log, "warning: %s\n", status.message());
      }
      port_error_reported_ = true;
      break;
    }
    if (received == 0) break;
    delivered_.clear();
    line_.Receive(buffer, received, &delivered_);
    if (!delivered_.empty()) agent_->Receive(delivered_.data(), delivered_.size());
  }
  agent_->Tick(NowMs());
  agent_->Flush();
}

void BoardSimulator::WaitForLine() {
  const size_t limit = tx_storage_.size() / 2;
  while (agent_->tx_ring().queued_bytes() > limit) PollLink(1);
}

void BoardSimulator::ApplyTrainabilityChanges() {
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
  if (!changed) return;
  Status status = trainer_->WriteWeightsToModel();
  auto fresh = std::make_unique<Trainer>();
  if (status.ok()) status = fresh->Init(model_, options_.training, next);
  if (!status.ok()) {
    Log(wire::LogLevel::kError,
        std::string("keeping the previous trainability: ") + status.message());
    return;
  }
  fresh->set_progress(trainer_->optimizer_step(), trainer_->epoch());
  fresh->set_observer(agent_.get());
  fresh->set_gate(this);
  trainer_ = std::move(fresh);
  options_.trainability = next;
  DescribeOps();
  agent_->AnnounceModel(model_hash_, static_cast<uint32_t>(main.tensors.size()), ops_.data(),
                        static_cast<uint32_t>(ops_.size()));
}

Status BoardSimulator::Train() {
  const TrainingOptions& training = options_.training;
  const Subgraph& main = model_->graph().main();
  const size_t output_elements =
      main.tensors[main.outputs.empty() ? 0 : main.outputs[0]].element_count();
  // The metric runs on the training data, so it needs targets shaped like the loss's.
  const bool has_metric = training.metric != MetricKind::kNone &&
                          TargetElementCount(training.metric, output_elements) ==
                              TargetElementCount(training.loss, output_elements);
  const uint32_t steps = data_.sample_count / training.batch_size;
  int64_t last_progress_ns = 0;
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
    const int64_t now = MonotonicNowNs();
    if (options_.log && (now - last_progress_ns >= kProgressPeriodNs || e + 1 == training.epochs)) {
      last_progress_ns = now;
      std::fprintf(options_.log, "epoch %u/%u: loss %.6f", e + 1, training.epochs,
                   steps > 0 ? loss_sum / steps : 0.0);
      if (has_metric) {
        std::fprintf(options_.log, ", %s %.6f", MetricName(training.metric),
                     static_cast<double>(metric));
      }
      std::fprintf(options_.log, " (%u optimizer steps)\n", trainer_->optimizer_step());
    }
  }
  return Status::Ok();
}

void BoardSimulator::Serve() {
  for (;;) {
    ApplyTrainabilityChanges();  // still acknowledged and applied: a later run would use them
    PollLink(kPausedPollMs);
  }
}

Status BoardSimulator::Run() {
  Status status = Train();
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
  if (!options_.exit_when_done) Serve();
  const int64_t deadline = MonotonicNowNs() + kExitDrainNs;
  while ((agent_->tx_ring().queued_bytes() > 0 || !line_.idle()) && MonotonicNowNs() < deadline) {
    PollLink(1);
  }
  return status;
}

}  // namespace trainscope
