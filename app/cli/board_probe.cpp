// SPDX-License-Identifier: Apache-2.0
#include "app/cli/board_probe.h"

#include <string>

#include "serial/protocol/frame_encoder.h"

namespace trainscope::cli {

Status BoardProbe::WaitUntil(const std::function<bool()>& done, const char* what) {
  Clock::time_point last_progress = Clock::now();
  uint64_t frames = session_->counters().frames_ok;
  while (!done()) {
    Status pumped = session_->Pump(20);
    if (!pumped.ok()) return pumped.Prepend(std::string("the link was lost while ") + what);
    if (session_->stats().activity == wire::BoardActivity::kHalted) {
      return Status::Error(StatusCode::kIoError, "the board halted while %s: %s", what,
                           session_->stats().last_error.c_str());
    }
    if (!session_->stats().last_refusal.empty()) {
      return Status::Error(StatusCode::kUnsupported, "the board refused a command while %s: %s",
                           what, session_->stats().last_refusal.c_str());
    }
    // Frames still arriving (a long transfer, a slow line) count as progress.
    const Clock::time_point now = Clock::now();
    if (session_->counters().frames_ok != frames) {
      frames = session_->counters().frames_ok;
      last_progress = now;
    }
    if (now - last_progress > std::chrono::milliseconds(options_.timeout_ms)) {
      return Status::Error(StatusCode::kIoError, "no answer from the board for %d ms while %s",
                           options_.timeout_ms, what);
    }
  }
  return Status::Ok();
}

Status BoardProbe::Connect(uint64_t model_hash) {
  TS_RETURN_IF_ERROR(session_->SendCommand(wire::MessageType::kRequestHello));
  const AttachStats& s = session_->stats();
  auto announced = [&s] { return s.has_hello && s.has_model && s.ops.size() == s.op_count; };
  TS_RETURN_IF_ERROR(WaitUntil(announced, "waiting for HELLO and MODEL_ANNOUNCE"));
  const uint32_t needed = wire::capability::kTensorValues | wire::capability::kPauseStep;
  if ((s.hello.capabilities & needed) != needed) {
    return Status::Error(
        StatusCode::kUnsupported, "the board (%s) cannot %s: its firmware does not advertise %s",
        s.hello.agent_name.c_str(),
        (s.hello.capabilities & wire::capability::kPauseStep) == 0 ? "pause and step"
                                                                   : "send tensor values",
        (s.hello.capabilities & wire::capability::kPauseStep) == 0 ? "PAUSE_STEP"
                                                                   : "TENSOR_VALUES");
  }
  if (s.model_hash != model_hash) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the board trains another model (hash %016llx, the model file's is "
                         "%016llx): give the file the board was built with",
                         static_cast<unsigned long long>(s.model_hash),
                         static_cast<unsigned long long>(model_hash));
  }
  return Status::Ok();
}

Status BoardProbe::SendAndWaitForPause(wire::MessageType command, const char* what) {
  const AttachStats& s = session_->stats();
  const uint64_t pauses_before = s.paused_reports;
  Status sent = session_->SendCommand(command);
  if (!sent.ok()) return sent.Prepend(std::string("the link was lost while ") + what);
  return WaitUntil(
      [&] {
        if (s.activity == wire::BoardActivity::kFinished && !s.paused) return true;
        return s.paused && s.paused_reports > pauses_before &&
               !session_->commands().awaiting(command);
      },
      what);
}

Status BoardProbe::ReadAt(const ProbePoint& point, std::vector<ProbeReading>* readings) {
  for (const ProbeRead& read : plan_->ReadsAt(point)) {
    // Which tensor, for which op, and how far its answer got: what a user needs after a cut.
    const std::string what = "reading the " + read.role + " of op " + std::to_string(read.op_index);
    Status requested =
        session_->RequestTensor(read.tensor, static_cast<wire::TensorAspect>(read.aspect));
    if (!requested.ok()) return requested.Prepend("the link was lost while " + what);
    TensorAssembler& answer = session_->tensor();
    const Status waited = WaitUntil([&answer] { return answer.finished(); }, what.c_str());
    if (!waited.ok()) {
      answer.Abandon(waited.message());
      return Status::Error(StatusCode::kIoError, "%s", answer.error().c_str());
    }
    ++transfer_.requests;
    transfer_.payload_bytes += answer.payload_bytes();
    transfer_.chunks += answer.chunks();
    transfer_.wire_bytes +=
        answer.payload_bytes() + (answer.chunks() + 1) * wire::kSmallFrameOverheadBytes;
    if (answer.state() == TensorAssembler::State::kFailed) {
      return Status::Error(StatusCode::kIoError, "%s", answer.error().c_str());
    }
    ProbeReading reading;
    reading.point = point;
    reading.read = read;
    reading.held = answer.state() == TensorAssembler::State::kDone;
    if (reading.held) {
      transfer_.values += answer.received_values();
      reading.copy.shape = answer.shape();
      reading.copy.values = answer.TakeValues();
    } else {
      ++transfer_.refused;
      reading.reason = answer.reason();
    }
    readings->push_back(std::move(reading));
  }
  return Status::Ok();
}

Status BoardProbe::Run(std::vector<ProbeReading>* readings) {
  const AttachStats& s = session_->stats();
  if (s.activity == wire::BoardActivity::kFinished || s.activity == wire::BoardActivity::kHalted) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the board is %s: there is no step left to compare (restart it, or run "
                         "the simulator with --loop)",
                         wire::BoardActivityName(s.activity));
  }
  if (!s.paused) TS_RETURN_IF_ERROR(SendAndWaitForPause(wire::MessageType::kPause, "pausing"));
  // The step a STEP_BATCH pause completed, from the pause report itself (RUN_STATE, repeated
  // with every heartbeat until heard), not from the OPTIMIZER_STEP event, a separate frame a
  // loaded board may fail to queue: a comparison must not read the wrong step.
  const auto completed = [&s] { return s.run_state.optimizer_step; };
  // To a boundary: the parameters are then the next step's starting state.
  auto to_boundary = [&]() -> Status {
    TS_RETURN_IF_ERROR(SendAndWaitForPause(wire::MessageType::kStepBatch, "stepping a batch"));
    if (s.activity == wire::BoardActivity::kFinished) {
      return Status::Error(StatusCode::kInvalidArgument,
                           "the board finished its schedule (last optimizer step %u) before the "
                           "step to compare: restart it, or run the simulator with --loop",
                           completed());
    }
    return Status::Ok();
  };
  TS_RETURN_IF_ERROR(to_boundary());
  if (options_.step != 0 && options_.step <= completed()) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "the board has done optimizer step %u already (it is at %u): give "
                         "--step %u or later",
                         options_.step, completed(), completed() + 1);
  }
  while (options_.step != 0 && completed() + 1 < options_.step) {
    TS_RETURN_IF_ERROR(to_boundary());
  }
  step_ = completed() + 1;

  const Clock::time_point start = Clock::now();
  for (const ProbePoint& point : plan_->points) {
    if (point.moment == ProbeMoment::kAfterBackwardOp) {
      TS_RETURN_IF_ERROR(
          SendAndWaitForPause(wire::MessageType::kStepBackwardOp, "stepping a backward op"));
      if (s.run_state.op_index != point.op_index) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "the board paused after op %u where op %u's backward step was "
                             "expected (sample %u of step %u): its trainability differs",
                             s.run_state.op_index, point.op_index, point.sample, step_);
      }
    } else if (point.moment == ProbeMoment::kAfterUpdate) {
      TS_RETURN_IF_ERROR(to_boundary());
      if (completed() != step_) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "the board reported optimizer step %u where %u was expected",
                             completed(), step_);
      }
    }
    TS_RETURN_IF_ERROR(ReadAt(point, readings));
  }
  transfer_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!options_.stay_paused) TS_RETURN_IF_ERROR(session_->SendCommand(wire::MessageType::kResume));
  return Status::Ok();
}

}  // namespace trainscope::cli
