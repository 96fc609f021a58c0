// SPDX-License-Identifier: Apache-2.0
//
// TensorAssembler: the desktop's side of one REQUEST_TENSOR answer. It puts TENSOR_HEADER and
// its TENSOR_CHUNKs back together and trusts none of it: the announced count is capped
// (wire::kMaxTensorValues) and must equal the product of the dimensions, chunks must arrive in
// order without gaps or overrun, and frames for another request are left alone. A lost chunk,
// a header that lies or a link that goes quiet ends the answer as kFailed with a sentence that
// says what and where; a board that cannot read the tensor ends it as kRefused with its reason.
//
// Ownership/threads: a plain value owned by the thread that reads the link. Host only.
//
//   assembler.Expect(command_id, tensor, aspect);  // after writing the request
//   ... link handler: assembler.OnHeader(h); assembler.OnChunk(c); ...
//   if (assembler.state() == TensorAssembler::State::kDone) Use(assembler.values());
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "serial/protocol/messages.h"

namespace trainscope {

class TensorAssembler {
 public:
  enum class State : uint8_t {
    kIdle,       // nothing asked
    kWaiting,    // asked; no header yet
    kReceiving,  // header taken; chunks arriving
    kDone,       // every value arrived
    kRefused,    // the board said why it cannot send the tensor (reason())
    kFailed,     // the answer cannot be trusted or was cut short (error())
  };

  void Expect(uint16_t command_id, int32_t tensor, wire::TensorAspect aspect);
  void OnHeader(const wire::TensorHeaderMessage& header);
  void OnChunk(const wire::TensorChunkMessage& chunk);
  // The link went quiet or away while waiting: fails with `what` and how far the answer got.
  void Abandon(const std::string& what);

  State state() const { return state_; }
  bool finished() const {
    return state_ == State::kDone || state_ == State::kRefused || state_ == State::kFailed;
  }
  uint16_t command_id() const { return command_id_; }
  const std::vector<int32_t>& shape() const { return shape_; }
  const std::vector<float>& values() const { return values_; }
  std::vector<float> TakeValues() { return std::move(values_); }
  uint32_t expected_values() const { return expected_; }
  uint32_t received_values() const { return static_cast<uint32_t>(values_.size()); }
  const std::string& reason() const { return reason_; }  // kRefused
  const std::string& error() const { return error_; }    // kFailed
  // Payload bytes of this answer's frames (header and chunks), what the line carried for it.
  uint64_t payload_bytes() const { return payload_bytes_; }
  uint32_t chunks() const { return chunks_; }
  uint64_t foreign_frames() const { return foreign_frames_; }  // for another (older) request

 private:
  void Fail(std::string error);

  State state_ = State::kIdle;
  uint16_t command_id_ = 0;
  int32_t tensor_ = 0;
  wire::TensorAspect aspect_ = wire::TensorAspect::kValue;
  uint32_t expected_ = 0;
  std::vector<int32_t> shape_;
  std::vector<float> values_;
  std::string reason_;
  std::string error_;
  uint64_t payload_bytes_ = 0;
  uint32_t chunks_ = 0;
  uint64_t foreign_frames_ = 0;
};

}  // namespace trainscope
