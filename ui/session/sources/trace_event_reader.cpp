// SPDX-License-Identifier: Apache-2.0
#include "ui/session/sources/trace_event_reader.h"

#include <QFile>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "serial/protocol/stream_decoder.h"

namespace trainscope {

Status TraceBytes::Map(const QString& path, std::shared_ptr<const TraceBytes>* out) {
  auto file = std::make_unique<QFile>(path);
  if (!file->open(QIODevice::ReadOnly)) {
    return Status::Error(StatusCode::kIoError, "%s: cannot open: %s", qPrintable(path),
                         qPrintable(file->errorString()));
  }
  const qint64 size = file->size();
  std::shared_ptr<TraceBytes> bytes(new TraceBytes);
  if (size > 0) {
    if (const uchar* mapped = file->map(0, size)) {
      bytes->data_ = mapped;
      bytes->size_ = static_cast<size_t>(size);
      bytes->file_ = std::move(file);
      *out = std::move(bytes);
      return Status::Ok();
    }
  }
  const QByteArray all = file->readAll();
  if (file->error() != QFileDevice::NoError) {
    return Status::Error(StatusCode::kIoError, "%s: cannot read: %s", qPrintable(path),
                         qPrintable(file->errorString()));
  }
  *out = Copy(reinterpret_cast<const uint8_t*>(all.constData()), static_cast<size_t>(all.size()));
  return Status::Ok();
}

std::shared_ptr<const TraceBytes> TraceBytes::Copy(const uint8_t* data, size_t size) {
  std::shared_ptr<TraceBytes> bytes(new TraceBytes);
  bytes->copy_.assign(data, data + size);
  bytes->data_ = bytes->copy_.data();
  bytes->size_ = size;
  return bytes;
}

TraceBytes::~TraceBytes() = default;  // closing the file unmaps it

size_t TraceFrameEnd(const uint8_t* data, size_t size, size_t offset) {
  if (offset >= size) return 0;
  const void* zero = std::memchr(data + offset, 0, size - offset);
  return zero == nullptr ? 0 : static_cast<size_t>(static_cast<const uint8_t*>(zero) - data) + 1;
}

void LogsToMessages::OnLog(const wire::LogMessage& log) {
  MessageLevel level = MessageLevel::kInfo;
  if (log.level == wire::LogLevel::kWarning) level = MessageLevel::kWarning;
  if (log.level == wire::LogLevel::kError) level = MessageLevel::kError;
  collector_->addMessage(level, QString::fromUtf8(log.text.c_str()));
}

// A decoder starting at a frame boundary: frames decode alike whatever came before them.
struct TraceEventReader::Decoding {
  Decoding() : logs(&collector), router(&collector, &logs) {}
  EventCollector collector;
  LogsToMessages logs;
  wire::MessageRouter router;
  wire::StreamDecoder decoder;
};

TraceEventReader::TraceEventReader(const TraceIndex& index) : index_(&index) {
  Seek(0);
}

TraceEventReader::~TraceEventReader() = default;

void TraceEventReader::Seek(size_t position) {
  position = std::min(position, index_->eventCount());
  decoding_ = std::make_unique<Decoding>();
  pending_.clear();
  pending_begin_ = 0;
  const auto& points = index_->resume_points;
  const auto after = std::upper_bound(
      points.begin(), points.end(), position,
      [](size_t p, const TraceIndex::ResumePoint& point) { return p < point.position; });
  if (after == points.begin()) {  // before the first frame: the warning, if any, comes first
    position_ = 0;
    offset_ = points.empty() ? 0 : points.front().offset;
  } else {
    position_ = std::prev(after)->position;
    offset_ = std::prev(after)->offset;
  }
  constexpr size_t kSkipChunk = size_t{1} << 14;
  while (position_ < position) {
    if (Read(std::min(kSkipChunk, position - position_)).order.empty()) break;  // bytes ended
  }
}

void TraceEventReader::DecodeAtLeast(size_t wanted) {
  pending_.clear();
  pending_begin_ = 0;
  const TraceBytes* bytes = index_->bytes.get();
  if (bytes == nullptr) return;
  Decoding& d = *decoding_;
  while (d.collector.size() < wanted) {
    const size_t end = TraceFrameEnd(bytes->data(), bytes->size(), offset_);
    if (end == 0) break;  // the end, or a torn last frame the index left out too
    d.decoder.Push(bytes->data() + offset_, end - offset_, &d.router);
    offset_ = end;
  }
  pending_ = d.collector.take();
}

EventBatch TraceEventReader::Read(size_t count) {
  EventBatch out;
  const size_t end = std::min(index_->eventCount(), position_ + std::min(count, SIZE_MAX / 2));
  if (position_ < end && position_ == 0 && index_->has_skip_warning) {
    out.add(index_->skip_warning);
    ++position_;
  }
  while (position_ < end) {
    if (pending_begin_ == pending_.size()) {
      DecodeAtLeast(end - position_);
      if (pending_.size() == pending_begin_) break;  // the bytes ended early: nothing to add
    }
    const size_t take = std::min(end - position_, pending_.size() - pending_begin_);
    if (out.order.empty() && pending_begin_ == 0 && take == pending_.size()) {
      out = std::move(pending_);  // the usual case in long reads: no copy
      pending_.clear();
      position_ += take;
      continue;
    }
    AppendEvents(pending_, pending_begin_, pending_begin_ + take, &out);
    pending_begin_ += take;
    position_ += take;
  }
  return out;
}

EventBatch ReadTraceEvents(const TraceIndex& index, size_t begin, size_t end) {
  TraceEventReader reader(index);
  reader.Seek(begin);
  return reader.Read(end > begin ? end - begin : 0);
}

}  // namespace trainscope
