// SPDX-License-Identifier: Apache-2.0
#include "serial/link/tensor_assembler.h"

#include <utility>

namespace trainscope {

void TensorAssembler::Expect(uint16_t command_id, int32_t tensor, wire::TensorAspect aspect) {
  *this = TensorAssembler{};
  state_ = State::kWaiting;
  command_id_ = command_id;
  tensor_ = tensor;
  aspect_ = aspect;
}

void TensorAssembler::Fail(std::string error) {
  state_ = State::kFailed;
  error_ = std::move(error);
  values_.clear();
}

void TensorAssembler::OnHeader(const wire::TensorHeaderMessage& header) {
  if (state_ != State::kWaiting || header.command_id != command_id_) {
    ++foreign_frames_;
    return;
  }
  payload_bytes_ += 9 + 4 * uint64_t{header.rank} + 4 + 1 + header.reason.size;
  const std::string what = "tensor " + std::to_string(tensor_);
  if (header.tensor != tensor_ || header.aspect != aspect_) {
    Fail("the board answered request " + std::to_string(command_id_) + " with tensor " +
         std::to_string(header.tensor) + " instead of " + std::to_string(tensor_));
    return;
  }
  if (header.result != wire::TensorReadResult::kOk) {
    state_ = State::kRefused;
    reason_ = header.reason.size > 0 ? std::string(header.reason.c_str())
                                     : std::string(wire::TensorReadResultName(header.result));
    return;
  }
  if (header.rank > wire::kMaxTensorRank || header.value_count > wire::kMaxTensorValues) {
    Fail(what + ": the header announces " + std::to_string(header.value_count) +
         " values of rank " + std::to_string(header.rank) + ", over the protocol's limits");
    return;
  }
  uint64_t product = 1;
  for (size_t d = 0; d < header.rank; ++d) {
    if (header.dims[d] < 0) {
      Fail(what + ": dimension " + std::to_string(d) + " is negative");
      return;
    }
    product *= static_cast<uint64_t>(header.dims[d]);
    if (product > wire::kMaxTensorValues) break;
  }
  if (product != header.value_count) {
    Fail(what + ": the header's shape holds " + std::to_string(product) + " values but announces " +
         std::to_string(header.value_count));
    return;
  }
  shape_.assign(header.dims, header.dims + header.rank);
  expected_ = header.value_count;
  values_.reserve(expected_);
  state_ = expected_ == 0 ? State::kDone : State::kReceiving;
}

void TensorAssembler::OnChunk(const wire::TensorChunkMessage& chunk) {
  if (state_ != State::kReceiving || chunk.command_id != command_id_) {
    ++foreign_frames_;
    return;
  }
  payload_bytes_ += 7 + 4 * uint64_t{chunk.count};
  ++chunks_;
  const uint32_t received = received_values();
  if (chunk.offset != received) {
    Fail("tensor " + std::to_string(tensor_) + ": a chunk starting at value " +
         std::to_string(chunk.offset) + " arrived after " + std::to_string(received) + " of " +
         std::to_string(expected_) + " values (a frame was lost)");
    return;
  }
  if (chunk.count == 0 || chunk.count > expected_ - received) {
    Fail("tensor " + std::to_string(tensor_) + ": a chunk of " + std::to_string(chunk.count) +
         " values at " + std::to_string(received) + " does not fit the announced " +
         std::to_string(expected_));
    return;
  }
  values_.insert(values_.end(), chunk.values, chunk.values + chunk.count);
  if (received_values() == expected_) state_ = State::kDone;
}

void TensorAssembler::Abandon(const std::string& what) {
  if (finished() || state_ == State::kIdle) return;
  const uint32_t received = received_values();
  Fail("tensor " + std::to_string(tensor_) + ": " + what + " after " + std::to_string(received) +
       (state_ == State::kReceiving ? " of " + std::to_string(expected_) + " values"
                                    : std::string(" values, before the board answered")));
}

}  // namespace trainscope
