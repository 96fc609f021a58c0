// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/local_event_source.h"

#include <QElapsedTimer>

#include "engine/core/clock.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace trainscope {

template <typename Check>
std::optional<BreakpointHit> LocalEventSource::checkBreakpoints(Check check) {
  std::lock_guard<std::mutex> lock(mutex_);
  return check(monitor_);
}

// Collects the trainer's events on the worker thread and publishes them in batches; forwards
// the boundaries where the worker may pause.
class LocalEventSource::Bridge final : public TrainingObserver, public ExecutionGate {
 public:
  explicit Bridge(LocalEventSource* owner) : owner_(owner) { since_publish_.start(); }

  void BeforeBackwardStep(const BackwardStepEvent& event) override {
    position_ = {Where::kBeforeBackwardStep, event.step, event.op_index, sample_, optimizer_step_};
    bool attention = false;
    const std::optional<BreakpointHit> hit =
        owner_->checkBreakpoints([&](BreakpointMonitor& monitor) {
          attention = !detailed_ && owner_->needsBoundaryLocked();
          return monitor.beforeBackwardStep(event);
        });
    // A step without detail reports no backward steps, so nothing would stop after one: a pause,
    // a step command or a tensor read that arrives during it turns the op events back on
    // (ResumeOpEvents), and is served after this op as in any step.
    if (attention || hit) detailed_ = true;
    if (hit) owner_->breakAt(*hit);
  }
  bool ResumeOpEvents() override { return detailed_; }
  // Another trainer: its steps cost something else, so the budget times them afresh; a new run
  // (restart) is told about thinning again.
  void RestartDetailBudget(bool new_run) {
    budget_.Reset();
    if (new_run) told_about_detail_ = false;
  }
  uint32_t StepDetail(uint32_t optimizer_step) override {
    const double rate = owner_->detail_steps_per_second_.load(std::memory_order_relaxed);
    const double share = owner_->detail_time_share_.load(std::memory_order_relaxed);
    if (rate != budget_.steps_per_second() || share != budget_.time_share()) {
      budget_.set_limits(rate, share);
    }
    uint32_t watched = 0;  // what breakpoints read in every step
    const bool free_running = owner_->freeRunning(&watched);
    detailed_ = !free_running || budget_.Take(MonotonicNowNs());
    step_started_ = free_running;
    if (!detailed_ && !told_about_detail_) {
      told_about_detail_ = true;
      AddMessage(MessageLevel::kInfo,
                 QStringLiteral("training runs faster than the views follow: from optimizer step "
                                "%1 on, per-op detail (op times, memory, gradient statistics, "
                                "update ratios) is reported for at most %2 steps a second and %3 "
                                "% of the training time; stepping or a Speed brings it back for "
                                "every step, and a breakpoint on gradients or memory keeps what "
                                "it watches in every step")
                     .arg(optimizer_step)
                     .arg(budget_.steps_per_second())
                     .arg(budget_.time_share() * 100.0));
    }
    return detailed_ ? kDetailEvents : watched;
  }
  void OnSample(const SampleEvent& event) override {
    Add(event);
    sample_ = event.sample;
    optimizer_step_ = event.optimizer_step;
    if (!event.begin) {
      position_ = {Where::kAfterSample, 0, 0, event.sample, event.optimizer_step};
    }
    if (!event.begin) owner_->reachBoundary(Boundary::kSample);
  }
  void OnOptimizerStep(const OptimizerStepEvent& event) override {
    if (step_started_) budget_.EndStep(MonotonicNowNs());
    Add(event);
    position_ = {Where::kAfterOptimizerStep, 0, 0, 0, event.optimizer_step};
    owner_->reachBoundary(Boundary::kBatch);
  }
  void OnForwardOp(const ForwardOpEvent& event) override { Add(event); }
  void OnBackwardStep(const BackwardStepEvent& event) override {
    Add(event);
    if (!event.begin) {
      position_ = {Where::kAfterBackwardStep, event.step, event.op_index, sample_, optimizer_step_};
    }
    if (!event.begin) owner_->holdPace(/*after_backward_step=*/true);
    // Step backward op pauses once the step has run, as the board agent and a replay do: the
    // first step of a run and the last one of every sample are then visible too.
    if (!event.begin) owner_->reachBoundary(Boundary::kBackwardOp);
  }
  void OnMemory(const MemoryEvent& event) override { Add(event); }
  void OnMemorySummary(const MemorySummaryEvent& event) override {
    Add(event);
    const std::optional<BreakpointHit> hit = owner_->checkBreakpoints(
        [&event](BreakpointMonitor& monitor) { return monitor.onMemorySummary(event); });
    if (hit) owner_->breakAt(*hit);
  }
  void OnGradientStats(const GradientStatsEvent& event) override {
    Add(event);
    const std::optional<BreakpointHit> hit = owner_->checkBreakpoints(
        [&event](BreakpointMonitor& monitor) { return monitor.onGradientStats(event); });
    if (hit) owner_->breakAt(*hit);
  }
  void OnUpdateRatio(const UpdateRatioEvent& event) override { Add(event); }
  void OnLoss(const LossEvent& event) override { Add(event); }
  void OnMetric(const MetricEvent& event) override { Add(event); }

  void AddMessage(MessageLevel level, const QString& text) {
    batch_.add(StatusMessage{level, text});
  }

  // Where the step stands, for tensor reads (worker thread, or any thread while it is idle).
  // The text is made only when a tensor read asks for it: the worker passes here at every op.
  QString position() const {
    switch (position_.where) {
      case Where::kBeforeBackwardStep:
      case Where::kAfterBackwardStep:
        return QStringLiteral("%1 backward step %2 (op #%3), sample %4 of optimizer step %5")
            .arg(position_.where == Where::kBeforeBackwardStep ? QStringLiteral("before")
                                                               : QStringLiteral("after"))
            .arg(position_.step)
            .arg(position_.op_index)
            .arg(position_.sample)
            .arg(position_.optimizer_step);
      case Where::kAfterSample:
        return QStringLiteral("after sample %1 of optimizer step %2 (before the update)")
            .arg(position_.sample)
            .arg(position_.optimizer_step);
      case Where::kAfterOptimizerStep:
        return QStringLiteral("after optimizer step %1").arg(position_.optimizer_step);
      case Where::kNotStarted:
        break;
    }
    return QString();
  }

  void Publish() {
    owner_->publish(batch_);
    batch_.clear();
    since_publish_.restart();
  }

 private:
  template <typename Event>
  void Add(const Event& event) {
    batch_.add(event);
    if (since_publish_.elapsed() >= kPublishIntervalMs) Publish();
  }

  LocalEventSource* owner_;
  DetailBudget budget_;        // which free-running steps carry per-op detail
  bool detailed_ = true;       // the step being run carries it
  bool step_started_ = false;  // the budget is timing the step being run
  bool told_about_detail_ = false;
  EventBatch batch_;
  QElapsedTimer since_publish_;
  enum class Where {
    kNotStarted,
    kBeforeBackwardStep,
    kAfterBackwardStep,
    kAfterSample,
    kAfterOptimizerStep
  };
  struct Position {
    Where where = Where::kNotStarted;
    uint32_t step = 0;
    uint32_t op_index = 0;
    uint32_t sample = 0;
    uint32_t optimizer_step = 0;
  };
  Position position_;
  uint32_t sample_ = 0;  // of the sample event last seen
  uint32_t optimizer_step_ = 0;
};

LocalEventSource::LocalEventSource(std::shared_ptr<SessionStore> store, QObject* parent)
    : EventSource(std::move(store), parent) {}

LocalEventSource::~LocalEventSource() {
  stop();
}

Status LocalEventSource::load(Model model, LocalSetup setup, const QString& name) {
  stop();
  auto owned = std::make_unique<Model>(std::move(model));
  auto trainer = std::make_unique<Trainer>();
  TS_RETURN_IF_ERROR(trainer->Init(owned.get(), setup.options, setup.trainability));
  initial_bytes_ = owned->bytes();
  model_ = std::move(owned);
  trainer_ = std::move(trainer);
  setup_ = std::move(setup);
  name_ = name;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const Graph& graph = model_->graph();
    monitor_.setOpCount(
        graph.subgraphs.empty() ? 0 : static_cast<uint32_t>(graph.main().operators.size()));
    monitor_.setBreakpoints(monitor_.breakpoints());  // re-arms the budget for the new run
  }
  bridge_ = std::make_unique<Bridge>(this);
  trainer_->set_observer(bridge_.get());
  trainer_->set_gate(bridge_.get());
  for (const std::string& warning : trainer_->warnings()) {
    bridge_->AddMessage(MessageLevel::kWarning, QString::fromStdString(warning));
  }
  bridge_->Publish();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    progress_ = Progress::kFresh;
    completed_steps_ = 0;
  }
  return Status::Ok();
}

Status LocalEventSource::rebuildFromInitialWeights() {
  TrainabilityConfig config = setup_.trainability;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_trainability_) config = next_trainability_;
  }
  auto fresh = std::make_unique<Model>();
  TS_RETURN_IF_ERROR(Model::FromBytes(initial_bytes_, fresh.get()));
  auto trainer = std::make_unique<Trainer>();
  TS_RETURN_IF_ERROR(trainer->Init(fresh.get(), setup_.options, config));
  trainer->set_observer(bridge_.get());
  trainer->set_gate(bridge_.get());
  trainer_ = std::move(trainer);  // before the model it points into goes
  model_ = std::move(fresh);
  setup_.trainability = config;
  std::lock_guard<std::mutex> lock(mutex_);
  pending_trainability_ = false;
  monitor_.setBreakpoints(monitor_.breakpoints());  // re-arms the budget for the new run
  progress_ = Progress::kFresh;
  completed_steps_ = 0;
  return Status::Ok();
}

Status LocalEventSource::restart() {
  if (!loaded()) {
    Q_EMIT errorOccurred(QStringLiteral("no model is loaded"));
    return Status::Error(StatusCode::kInvalidArgument, "no model is loaded");
  }
  stop();
  Status status = rebuildFromInitialWeights();
  if (!status.ok()) {
    Q_EMIT errorOccurred(QString::fromUtf8(status.message()));
    return status;
  }
  // The recording of the run that ended stays as it was; the restarted run is a new session.
  setRecorder(nullptr);
  store()->clear();
  bridge_->RestartDetailBudget(/*new_run=*/true);
  for (const std::string& warning : trainer_->warnings()) {
    bridge_->AddMessage(MessageLevel::kWarning, QString::fromStdString(warning));
  }
  bridge_->AddMessage(MessageLevel::kInfo,
                      QStringLiteral("restarted from the initial weights: optimizer state, data "
                                     "order and step counters are back at the start"));
  bridge_->Publish();
  Q_EMIT sessionRestarted();
  return Status::Ok();
}

bool LocalEventSource::fillExperimentSpec(ExperimentSpec* spec) const {
  if (!loaded()) return false;
  // Only load() writes these (on the GUI thread, the worker stopped); the worker changes only
  // the trainability, which is not read here.
  spec->model_bytes = initial_bytes_;
  spec->options = setup_.options;
  spec->train = setup_.train;
  spec->test = setup_.test;
  return true;
}

LocalEventSource::Progress LocalEventSource::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_;
}

QString LocalEventSource::finishedSchedule() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (progress_ != Progress::kFinished) return QString();
  return QStringLiteral("trained %1 epoch(s), %2 optimizer step(s)")
      .arg(setup_.options.epochs)
      .arg(completed_steps_);
}

uint32_t LocalEventSource::optimizerSteps() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_steps_;
}

void LocalEventSource::setStepsPerSecond(double rate) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    steps_per_second_.store(rate > 0.0 ? rate : 0.0, std::memory_order_relaxed);
    next_pace_point_ = std::chrono::steady_clock::now();
  }
  wake_.notify_all();
}

void LocalEventSource::setDetailLimits(double steps_per_second, double time_share) {
  // As DetailBudget reads them (negative or NaN: off), so the worker sees a change only once.
  detail_steps_per_second_.store(steps_per_second > 0.0 ? steps_per_second : 0.0,
                                 std::memory_order_relaxed);
  detail_time_share_.store(time_share > 0.0 ? time_share : 0.0, std::memory_order_relaxed);
}

double LocalEventSource::stepsPerSecond() const {
  return steps_per_second_.load(std::memory_order_relaxed);
}

uint32_t LocalEventSource::pacedPointsPerStep() const {
  const uint32_t backward_steps =
      trainer_->selection().num_train_layers * setup_.options.batch_size;
  return backward_steps + 1;  // and the optimizer step itself
}

bool LocalEventSource::holdPace(bool after_backward_step) {
  const double rate = stepsPerSecond();
  if (rate <= 0.0) return true;
  const bool watching = rate <= kWatchRate;
  if (after_backward_step && !watching) return true;
  bridge_->Publish();  // what the pace holds on screen must be there
  return pace(watching ? 1.0 / pacedPointsPerStep() : 1.0);
}

bool LocalEventSource::pace(double fraction) {
  std::unique_lock<std::mutex> lock(mutex_);
  const double rate = stepsPerSecond();
  if (rate <= 0.0) return !stop_requested_;
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(fraction / rate));
  const auto now = std::chrono::steady_clock::now();
  // Time spent paused, or training slower than the pace, is not made up later in a burst.
  next_pace_point_ = std::max(next_pace_point_ + interval, now);
  const auto until = next_pace_point_;
  const auto done = [&] { return stop_requested_ || !running_ || stepsPerSecond() != rate; };
  // A tensor request is answered during the wait rather than after it.
  while (wake_.wait_until(lock, until, [&] { return done() || pending_read_; }) && !done()) {
    answerPendingRequest(lock);
  }
  return !stop_requested_;
}

QString LocalEventSource::description() const {
  return QStringLiteral("local engine: %1").arg(name_);
}

void LocalEventSource::request(bool run, Boundary pause_at) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = run;
    pause_at_ = pause_at;
  }
  wake_.notify_all();
}

void LocalEventSource::start() {
  startPausingAt(Boundary::kNone);
}

void LocalEventSource::startPausingAt(Boundary pause_at) {
  if (!loaded()) {
    Q_EMIT errorOccurred(QStringLiteral("no model is loaded"));
    return;
  }
  if (worker_.joinable()) {
    if (state() != State::kStopped) {
      request(true, pause_at);
      return;
    }
    worker_.join();  // the previous run finished its epochs
  }
  if (progress() == Progress::kStopped && !restart().ok()) return;  // Stop ended that session
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_ = false;
    running_ = true;
    pause_at_ = pause_at;
    progress_ = Progress::kInProgress;
    next_pace_point_ = std::chrono::steady_clock::now();
    worker_active_ = true;
  }
  setState(State::kRunning);
  worker_ = std::thread([this] { run(); });
}

void LocalEventSource::pause() {
  request(false, Boundary::kNone);
}
void LocalEventSource::resume() {
  request(true, Boundary::kNone);
}

void LocalEventSource::stepBackwardOp() {
  startPausingAt(Boundary::kBackwardOp);
}

void LocalEventSource::stepSample() {
  startPausingAt(Boundary::kSample);
}

void LocalEventSource::stepBatch() {
  startPausingAt(Boundary::kBatch);
}

void LocalEventSource::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_ = true;
    if (progress_ == Progress::kInProgress) progress_ = Progress::kStopped;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
  setState(State::kStopped);
}

void LocalEventSource::setTrainability(uint32_t last_n,
                                       const std::map<uint16_t, TrainRank>& ranks) {
  std::lock_guard<std::mutex> lock(mutex_);
  next_trainability_.num_train_layers = last_n;
  next_trainability_.op_ranks = ranks;
  pending_trainability_ = true;
}

bool LocalEventSource::setBreakpoints(const BreakpointSet& breakpoints) {
  std::lock_guard<std::mutex> lock(mutex_);
  monitor_.setBreakpoints(breakpoints);
  return true;
}

uint64_t LocalEventSource::breakpointHitCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hit_count_;
}

std::optional<BreakpointHit> LocalEventSource::lastBreakpointHit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_hit_;
}

QString LocalEventSource::lastBreakpointReason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_hit_reason_;
}

bool LocalEventSource::freeRunning(uint32_t* watched) const {
  std::lock_guard<std::mutex> lock(mutex_);
  *watched = monitor_.breakpoints().watchedEvents();
  return running_ && pause_at_ == Boundary::kNone && !stop_requested_ && stepsPerSecond() <= 0.0;
}

bool LocalEventSource::needsBoundaryLocked() const {
  return !running_ || stop_requested_ || pause_at_ == Boundary::kBackwardOp ||
         pending_read_.has_value();
}

bool LocalEventSource::reachBoundary(Boundary boundary) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stop_requested_) return false;
  answerPendingRequest(lock);
  if (running_ && pause_at_ == boundary) {
    running_ = false;
    pause_at_ = Boundary::kNone;
  }
  if (running_) return true;
  return waitWhilePaused(lock, nullptr, kNoOp);
}

bool LocalEventSource::breakAt(const BreakpointHit& hit) {
  const QString reason = DescribeHit(hit, &model_->graph());
  std::unique_lock<std::mutex> lock(mutex_);
  if (stop_requested_) return false;
  running_ = false;  // a hit overrides a step in progress
  pause_at_ = Boundary::kNone;
  last_hit_ = hit;
  last_hit_reason_ = reason;
  ++hit_count_;
  return waitWhilePaused(lock, &reason, hit.op_index);
}

bool LocalEventSource::waitWhilePaused(std::unique_lock<std::mutex>& lock, const QString* reason,
                                       uint32_t op) {
  lock.unlock();
  if (reason != nullptr) bridge_->AddMessage(MessageLevel::kWarning, *reason);
  bridge_->Publish();
  setState(State::kPaused);
  if (reason != nullptr) Q_EMIT breakpointHit(*reason, op);
  lock.lock();
  for (;;) {
    wake_.wait(lock, [this] { return running_ || stop_requested_ || pending_read_; });
    if (running_ || stop_requested_) break;
    answerPendingRequest(lock);
  }
  const bool stopping = stop_requested_;
  lock.unlock();
  if (!stopping) setState(State::kRunning);
  lock.lock();
  return !stopping;
}

void LocalEventSource::announceTrainability() {
  // What was published so far ran with the previous choice; a recording marks the change here.
  bridge_->Publish();
  if (const std::shared_ptr<BatchRecorder> recording = recorder()) {
    recording->trainabilityApplied(setup_.trainability);
  }
}

Status LocalEventSource::applyPendingTrainability() {
  TrainabilityConfig config;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!pending_trainability_) return Status::Ok();
    pending_trainability_ = false;
    config = next_trainability_;
  }
  TS_RETURN_IF_ERROR(trainer_->WriteWeightsToModel());
  auto rebuilt = std::make_unique<Trainer>();
  TS_RETURN_IF_ERROR(rebuilt->Init(model_.get(), setup_.options, config));
  rebuilt->set_progress(trainer_->optimizer_step(), trainer_->epoch());
  rebuilt->set_observer(bridge_.get());
  rebuilt->set_gate(bridge_.get());
  trainer_ = std::move(rebuilt);
  setup_.trainability = config;
  bridge_->RestartDetailBudget(/*new_run=*/false);
  announceTrainability();
  const MemorySummary& memory = trainer_->memory();
  bridge_->AddMessage(MessageLevel::kInfo,
                      QStringLiteral("trainability applied at optimizer step %1: heap peak %2 B, "
                                     "arena %3 B")
                          .arg(trainer_->optimizer_step())
                          .arg(memory.heap_peak_bytes)
                          .arg(memory.arena_bytes));
  return Status::Ok();
}

namespace {

// Training at full speed keeps a core busy; on a 2-core machine with anything else running, the
// GUI thread then waits for a core and the views stall. A debugger must stay responsive first, so
// the worker yields the CPU to the GUI thread under contention (Linux nice values are per thread).
void LowerWorkerPriority() {
#if defined(__linux__)
  constexpr int kWorkerNice = 5;
  const auto thread_id = static_cast<id_t>(syscall(SYS_gettid));
  (void)setpriority(PRIO_PROCESS, thread_id, kWorkerNice);  // failure only costs responsiveness
#endif
}

}  // namespace

void LocalEventSource::run() {
  LowerWorkerPriority();
  announceTrainability();
  const uint32_t batch = setup_.options.batch_size;
  const uint32_t steps = batch == 0 ? 0 : setup_.train.sample_count / batch;
  Status status = steps == 0 ? Status::Error(StatusCode::kInvalidArgument,
                                             "the training data holds fewer samples than a batch")
                             : Status::Ok();
  for (uint32_t e = 0; status.ok() && e < setup_.options.epochs; ++e) {
    const uint32_t epoch = trainer_->epoch() + 1;
    trainer_->set_progress(trainer_->optimizer_step(), epoch);
    for (uint32_t s = 0; status.ok() && s < steps; ++s) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_requested_) break;
      }
      status = applyPendingTrainability();
      if (status.ok()) status = trainer_->TrainStep(setup_.train, s * batch);
      if (status.ok()) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          ++completed_steps_;
        }
        if (!holdPace(/*after_backward_step=*/false)) break;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_requested_) break;
    }
    if (!status.ok()) break;
    float metric = 0.0f;
    const DataSet& evaluation = setup_.test.sample_count > 0 ? setup_.test : setup_.train;
    status = trainer_->Evaluate(evaluation, setup_.options.metric, &metric);
    if (status.ok()) {
      bridge_->OnMetric({epoch, static_cast<uint8_t>(setup_.options.metric), metric});
    }
  }
  if (!status.ok()) {
    bridge_->AddMessage(MessageLevel::kError, QString::fromUtf8(status.message()));
    Q_EMIT errorOccurred(QString::fromUtf8(status.message()));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stop_requested_) {
      progress_ = status.ok() ? Progress::kFinished : Progress::kStopped;
      bridge_->AddMessage(
          status.ok() ? MessageLevel::kInfo : MessageLevel::kWarning,
          QStringLiteral("training %1 after %2 epoch(s), %3 optimizer step(s)")
              .arg(status.ok() ? QStringLiteral("finished") : QStringLiteral("ended"))
              .arg(trainer_->epoch())
              .arg(completed_steps_));
    }
  }
  bridge_->Publish();
  std::optional<TensorRequest> unanswered;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    worker_active_ = false;  // from here requests are answered on the caller's thread
    unanswered.swap(pending_read_);
  }
  if (unanswered) answerTensorRequest(*unanswered, bridge_->position());
  setState(State::kStopped);
}

void LocalEventSource::requestTensorValues(const TensorRequest& request) {
  if (!loaded()) {
    EventSource::requestTensorValues(request);
    return;
  }
  QString where;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (worker_active_) {
      pending_read_ = request;
      wake_.notify_all();
      return;
    }
    switch (progress_) {
      case Progress::kFresh:
        where = QStringLiteral("the initial weights, before training");
        break;
      case Progress::kFinished:
        where = QStringLiteral("training finished after optimizer step %1").arg(completed_steps_);
        break;
      default:
        where = QStringLiteral("stopped after optimizer step %1").arg(completed_steps_);
        break;
    }
  }
  answerTensorRequest(request, where);
}

QString LocalEventSource::tensorValuesUnavailable() const {
  return loaded() ? QString() : QStringLiteral("no model is loaded");
}

void LocalEventSource::answerPendingRequest(std::unique_lock<std::mutex>& lock) {
  if (!pending_read_) return;
  const TensorRequest request = *pending_read_;
  pending_read_.reset();
  lock.unlock();
  answerTensorRequest(request, bridge_->position());
  lock.lock();
}

void LocalEventSource::answerTensorRequest(const TensorRequest& request, const QString& where) {
  auto answer = std::make_shared<TensorValues>();
  answer->request = request;
  answer->where = where;
  const Subgraph& subgraph = model_->graph().main();
  if (request.tensor >= 0 && static_cast<size_t>(request.tensor) < subgraph.tensors.size()) {
    answer->tensor_name = QString::fromStdString(subgraph.tensors[request.tensor].name);
  }
  TensorCopy copy;
  const Status status = trainer_->ReadTensor(request.tensor, request.aspect, &copy);
  if (status.ok()) {
    answer->shape = std::move(copy.shape);
    answer->values = std::move(copy.values);
  } else {
    answer->unavailable = QString::fromUtf8(status.message());
  }
  Q_EMIT tensorValuesReady(answer);
}

}  // namespace trainscope
