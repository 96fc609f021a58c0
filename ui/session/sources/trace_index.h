// SPDX-License-Identifier: Apache-2.0
//
// TraceIndex: a trace file decoded once and indexed for replay, without keeping its events. Every
// frame goes through the live link's decoder and wire::MessageRouter, so positions count events
// exactly as a device source would have stored them (LOG frames become status messages). The
// boundaries a debugger stops at are positions: the position just after each BACKWARD_STEP end,
// SAMPLE end and OPTIMIZER_STEP. The events themselves stay in the file (mapped, not copied) and
// a TraceEventReader (trace_event_reader.h) decodes them again from the nearest resume point, so an
// open replay holds a few bytes per step. Each announced trained set is kept with its position too
// (TrainedOpsAt), so a seek also knows the trainability in force.
//
// Damage is never fatal: bad frames, sequence gaps, undecodable payloads and a torn last frame
// (a killed recorder) are skipped and counted in `skips`, and a warning saying so becomes the
// first event; only a missing or unreadable header fails.
//
//   TraceIndex index;
//   if (Status s = IndexTrace(path, &index); !s.ok()) return s;
//   TraceEventReader reader(index);
//   store->append(reader.Read(index.backward_ends[9]));  // everything up to 10 steps
#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/graph.h"
#include "serial/protocol/messages.h"
#include "serial/trace/trace_file.h"
#include "ui/session/announced_model.h"
#include "ui/session/event_batch.h"

namespace trainscope {

// What a replay could not use.
struct ReplaySkips {
  uint64_t frames_bad = 0;          // CRC, COBS or length failures
  uint64_t frames_dropped = 0;      // sequence numbers missing between good frames
  uint64_t unknown_types = 0;       // good frames of types this version does not know
  uint64_t malformed_payloads = 0;  // good frames whose payload did not decode
  size_t torn_tail_bytes = 0;       // a last frame without its delimiter
  bool any() const;
  // "1 torn frame (17 bytes) at the end, 2 bad frames skipped"; empty when nothing was skipped.
  QString describe() const;
};

class TraceBytes;

struct TraceIndex {
  QString path;
  TraceHeader header;
  std::shared_ptr<const TraceBytes> bytes;  // what TraceEventReader decodes the events from
  size_t event_count = 0;                   // the skip warning included
  bool has_skip_warning = false;            // skips.any(): event 0 is skip_warning
  StatusMessage skip_warning;
  // Where decoding can start over: every kTraceResumeEvery events, the position of the next
  // event and the byte offset of the frame it comes from.
  struct ResumePoint {
    size_t position = 0;
    size_t offset = 0;
  };
  std::vector<ResumePoint> resume_points;
  std::vector<size_t> backward_ends;    // order position after each BACKWARD_STEP end event
  std::vector<size_t> sample_ends;      // after each SAMPLE end event
  std::vector<size_t> optimizer_steps;  // after each OPTIMIZER_STEP event
  QString agent_name;                   // from HELLO
  // The model as announced (the latest announcement, names), with the live path's caps.
  AnnouncedModelBuilder announcement;
  // Every trained set announced (op index -> rank), with the position in events.order from which
  // it holds: a recording announces again where a trainability change took effect.
  struct TrainedSet {
    size_t position = 0;
    std::map<uint16_t, TrainRank> ops;
  };
  std::vector<TrainedSet> trained_sets;
  ReplaySkips skips;

  size_t eventCount() const { return event_count; }
  // The model hash of the header, or of MODEL_ANNOUNCE when the header has none.
  uint64_t modelHash() const {
    return header.model_hash ? header.model_hash : announcement.model().hash;
  }
  bool announced() const { return announcement.announced(); }
};

Status IndexTrace(const QString& path, TraceIndex* out);
// The same from bytes already in memory (header included, copied); `name` appears in messages.
Status IndexTraceBytes(const uint8_t* data, size_t size, const QString& name, TraceIndex* out);

// The trained set in force once `cursor` events are replayed: the last one announced at or
// before the cursor, the first when the cursor precedes them all, null when none was announced.
const std::map<uint16_t, TrainRank>* TrainedOpsAt(const TraceIndex& index, size_t cursor);

// Events [begin, end) of `all` in their order, as a batch of their own.
EventBatch SliceEvents(const EventBatch& all, size_t begin, size_t end);
void AppendEvents(const EventBatch& all, size_t begin, size_t end, EventBatch* to);

// The announced graph (BuildAnnouncedGraph), for showing a trace whose model file is not at
// hand. Empty when nothing was announced.
Graph GraphFromAnnouncement(const TraceIndex& index);

}  // namespace trainscope
