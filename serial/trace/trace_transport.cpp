// SPDX-License-Identifier: Apache-2.0
#include "serial/trace/trace_transport.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "serial/protocol/message_router.h"

namespace trainscope {

Status TraceTransport::Open() {
  std::ifstream file(path_, std::ios::binary | std::ios::ate);
  if (!file) return Status::Error(StatusCode::kIoError, "cannot open recording %s", path_.c_str());
  const std::streamoff size = file.tellg();
  if (size < 0 || static_cast<uint64_t>(size) > kMaxTraceBytes) {
    return Status::Error(StatusCode::kInvalidFile, "recording %s: %lld bytes (at most %llu)",
                         path_.c_str(), static_cast<long long>(size),
                         static_cast<unsigned long long>(kMaxTraceBytes));
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), size)) {
    return Status::Error(StatusCode::kIoError, "cannot read recording %s", path_.c_str());
  }
  TraceHeader header;
  TS_RETURN_IF_ERROR(ParseTraceHeader(bytes.data(), bytes.size(), path_, &header));
  const size_t skip = std::min<size_t>(header.header_bytes, bytes.size());
  stream_.assign(bytes.begin() + static_cast<std::ptrdiff_t>(skip), bytes.end());
  position_ = 0;
  open_ = true;
  return Status::Ok();
}

Status TraceTransport::Read(uint8_t* data, size_t capacity, int /*timeout_ms*/, size_t* received) {
  *received = 0;
  if (!open_) return Status::Error(StatusCode::kIoError, "recording %s: not open", path_.c_str());
  if (position_ >= stream_.size()) {
    return Status::Error(StatusCode::kIoError,
                         "the recording %s ends here (after %zu bytes of the link)", path_.c_str(),
                         stream_.size());
  }
  const auto begin = stream_.begin() + static_cast<std::ptrdiff_t>(position_);
  const auto delimiter = std::find(begin, stream_.end(), uint8_t{0});
  size_t count = static_cast<size_t>(delimiter - begin) + (delimiter != stream_.end() ? 1 : 0);
  count = std::min(count, capacity);
  std::memcpy(data, stream_.data() + position_, count);
  position_ += count;
  *received = count;
  return Status::Ok();
}

Status TraceTransport::Write(const uint8_t* /*data*/, size_t /*size*/) {
  if (!open_) return Status::Error(StatusCode::kIoError, "recording %s: not open", path_.c_str());
  return Status::Ok();
}

namespace {

// The first ACK of each of the two commands every diff session starts with.
class OpeningAcks final : public wire::LinkHandler {
 public:
  void OnAck(const wire::AckMessage& ack) override {
    if (ack.command == wire::MessageType::kRequestHello && !hello) hello = ack.command_id;
    if (ack.command == wire::MessageType::kPause && !pause) pause = ack.command_id;
  }
  uint16_t hello = 0;  // 0: none (ids are never 0)
  uint16_t pause = 0;
};

}  // namespace

Status TraceTransport::FirstCommandId(uint16_t* id) const {
  OpeningAcks handler;
  wire::MessageRouter router(nullptr, &handler);
  wire::StreamDecoder decoder;
  decoder.Push(stream_.data(), stream_.size(), &router);
  if (handler.hello != 0) {
    *id = handler.hello;
  } else if (handler.pause != 0) {
    // The board's answer to REQUEST_HELLO was lost (its HELLO answered anyway); PAUSE came next.
    *id = handler.pause == 1 ? 0xFFFF : static_cast<uint16_t>(handler.pause - 1);
  } else {
    return Status::Error(StatusCode::kInvalidFile,
                         "recording %s: the board acknowledged neither REQUEST_HELLO nor PAUSE, "
                         "so it cannot be replayed (record it with diff --record)",
                         path_.c_str());
  }
  return Status::Ok();
}

bool LooksLikeTrace(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char magic[sizeof kTraceMagic] = {};
  return file.read(magic, sizeof magic) && std::memcmp(magic, kTraceMagic, sizeof magic) == 0;
}

}  // namespace trainscope
