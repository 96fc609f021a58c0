// SPDX-License-Identifier: Apache-2.0
#include "app/board-sim/simulated_line.h"

#include <algorithm>
#include <chrono>

#include "serial/protocol/wire_format.h"

namespace trainscope {

int64_t MonotonicNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ByteRate::ByteRate(uint32_t baud_rate)
    : bytes_per_second_(baud_rate / 10.0),
      burst_(std::max(16.0, bytes_per_second_ / 20.0)),
      tokens_(burst_) {}

size_t ByteRate::Take(size_t wanted, int64_t now_ns) {
  if (unlimited()) return wanted;
  if (last_ns_ >= 0 && now_ns > last_ns_) {
    tokens_ = std::min(burst_,
                       tokens_ + static_cast<double>(now_ns - last_ns_) * 1e-9 * bytes_per_second_);
  }
  last_ns_ = now_ns;
  const size_t available = static_cast<size_t>(tokens_);
  const size_t taken = std::min(wanted, available);
  tokens_ -= static_cast<double>(taken);
  return taken;
}

uint64_t FaultRandom::Next() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return state_ * 0x2545F4914F6CDD1Dull;
}

double FaultRandom::Uniform() {
  return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0);  // 53 random bits
}

SimulatedLine::SimulatedLine(BoardPort* port, uint32_t baud_rate, const LineFaults& faults)
    : port_(port),
      rate_(baud_rate),
      faults_(faults),
      random_(faults.seed),
      command_random_(faults.seed ^ 0xA5A5A5A5A5A5A5A5ull) {}

void SimulatedLine::Receive(const uint8_t* data, size_t size, std::vector<uint8_t>* out) {
  if (faults_.command_drop_rate <= 0.0) {
    out->insert(out->end(), data, data + size);
    return;
  }
  for (size_t i = 0; i < size; ++i) {
    incoming_.push_back(data[i]);
    if (data[i] != 0) continue;
    const bool is_frame = incoming_.size() > 1;  // a lone delimiter carries nothing to lose
    if (is_frame && command_random_.Uniform() < faults_.command_drop_rate) {
      ++stats_.commands_dropped;
      out->push_back(0);  // the delimiter survives: the next frame still starts clean
    } else {
      out->insert(out->end(), incoming_.begin(), incoming_.end());
    }
    incoming_.clear();
  }
}

size_t SimulatedLine::WriteThunk(void* line, const uint8_t* data, size_t size) {
  return static_cast<SimulatedLine*>(line)->Write(data, size, MonotonicNowNs());
}

void SimulatedLine::Pump() {
  while (pending_sent_ < pending_.size()) {
    const size_t taken =
        port_->WriteSome(pending_.data() + pending_sent_, pending_.size() - pending_sent_);
    if (taken == 0) return;
    pending_sent_ += std::min(taken, pending_.size() - pending_sent_);
  }
  pending_.clear();
  pending_sent_ = 0;
}

size_t SimulatedLine::Write(const uint8_t* data, size_t size, int64_t now_ns) {
  Pump();
  if (pending_sent_ < pending_.size()) return 0;  // the port is still busy
  const size_t taken = rate_.Take(size, now_ns);
  for (size_t i = 0; i < taken; ++i) {
    frame_.push_back(data[i]);
    // A sender never emits longer frames; this only bounds memory against a misbehaving one.
    if (data[i] == 0 || frame_.size() > 2 * wire::kMaxWireFrameBytes) EndFrame();
  }
  Pump();
  return taken;
}

void SimulatedLine::EndFrame() {
  const bool is_frame = frame_.size() > 1;  // a lone delimiter is idle filler
  if (is_frame && faults_.drop_rate > 0.0 && random_.Uniform() < faults_.drop_rate) {
    ++stats_.frames_dropped;
    frame_.clear();
    return;
  }
  if (faults_.corrupt_rate > 0.0) {
    for (uint8_t& byte : frame_) {
      if (random_.Uniform() >= faults_.corrupt_rate) continue;
      byte = static_cast<uint8_t>(byte ^ (1u << (random_.Next() % 8)));
      ++stats_.bytes_corrupted;
    }
  }
  pending_.insert(pending_.end(), frame_.begin(), frame_.end());
  stats_.bytes_sent += frame_.size();
  if (is_frame && faults_.disconnect_in_tensor > 0 && port_->connected()) {
    outgoing_decoder_.Push(frame_.data(), frame_.size(), &chunk_counter_);
  }
  frame_.clear();
  if (!is_frame) return;
  if (port_->connected()) ++stats_.frames_sent;
  if (stats_.disconnected) return;
  if ((faults_.disconnect_after > 0 && stats_.frames_sent >= faults_.disconnect_after) ||
      (faults_.disconnect_in_tensor > 0 &&
       stats_.tensor_chunks_sent >= faults_.disconnect_in_tensor)) {
    Disconnect();
  }
}

void SimulatedLine::Disconnect() {
  Pump();  // the frame that reached the count still goes out, then the cable comes off
  pending_.clear();
  pending_sent_ = 0;
  port_->Unplug();
  stats_.disconnected = true;
}

}  // namespace trainscope
