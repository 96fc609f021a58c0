// SPDX-License-Identifier: Apache-2.0
//
// Reading a trace's events on demand, so that an open replay holds the index and not the events
// (a 1 GiB recording decodes to more than that).
//
// TraceBytes: the bytes of a trace, mapped read-only from its file (the page cache holds them
// and may drop them; nothing is copied to the heap), or a copy of bytes given in memory. The
// file must not shrink while it is mapped; recordings only grow.
//
// TraceEventReader: decodes the events of an indexed trace again, from any position, exactly as
// IndexTrace saw them (the skip warning first when there is one, LOG frames as messages). Seek()
// starts over from the nearest resume point the index kept (one every kTraceResumeEvery events),
// so reaching any position decodes at most that many events beyond it; Read() goes on from
// there.
//
//   TraceEventReader reader(index);               // the index must outlive the reader
//   reader.Seek(index.backward_ends[9]);
//   EventBatch next = reader.Read(500);      // up to 500 events, fewer at the end
#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/status.h"
#include "serial/protocol/message_router.h"
#include "ui/session/event_batch.h"
#include "ui/session/event_collector.h"
#include "ui/session/sources/trace_index.h"

class QFile;

namespace trainscope {

inline constexpr size_t kTraceResumeEvery = 4096;

class TraceBytes {
 public:
  // Maps `path` read-only; falls back to reading it when it cannot be mapped (an empty file).
  static Status Map(const QString& path, std::shared_ptr<const TraceBytes>* out);
  static std::shared_ptr<const TraceBytes> Copy(const uint8_t* data, size_t size);
  ~TraceBytes();
  TraceBytes(const TraceBytes&) = delete;
  TraceBytes& operator=(const TraceBytes&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  TraceBytes() = default;
  std::unique_ptr<QFile> file_;  // open while mapped
  std::vector<uint8_t> copy_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// One past the 0x00 that ends the frame starting at `offset`, or 0 when the bytes end first (a
// torn last frame). Index and reader feed the decoder one frame at a time, so that a position
// in events always has a byte offset.
size_t TraceFrameEnd(const uint8_t* data, size_t size, size_t offset);

// LOG frames become status messages, as on a live link; everything else of the link is dropped.
class LogsToMessages : public wire::LinkHandler {
 public:
  explicit LogsToMessages(EventCollector* collector) : collector_(collector) {}
  void OnLog(const wire::LogMessage& log) override;

 protected:
  EventCollector* collector_;
};

class TraceEventReader {
 public:
  explicit TraceEventReader(const TraceIndex& index);
  ~TraceEventReader();
  TraceEventReader(const TraceEventReader&) = delete;
  TraceEventReader& operator=(const TraceEventReader&) = delete;

  // The next Read() starts at `position` (clamped to the event count).
  void Seek(size_t position);
  EventBatch Read(size_t count);
  size_t position() const { return position_; }

 private:
  struct Decoding;
  // Once pending_ is used up: decodes frames until at least `wanted` events wait in it or the
  // bytes end.
  void DecodeAtLeast(size_t wanted);

  const TraceIndex* index_;
  std::unique_ptr<Decoding> decoding_;
  size_t position_ = 0;  // of the next event Read() returns
  size_t offset_ = 0;    // of the next frame to decode
  EventBatch pending_;   // decoded, not returned yet, from pending_begin_ on
  size_t pending_begin_ = 0;
};

// Events [begin, end) of the trace, decoded again.
EventBatch ReadTraceEvents(const TraceIndex& index, size_t begin, size_t end);

}  // namespace trainscope
