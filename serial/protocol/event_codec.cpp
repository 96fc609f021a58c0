// SPDX-License-Identifier: Apache-2.0
//
// Payloads of the training events: the fields of each engine/core/events.h struct in
// declaration order, fixed width, little-endian (table in docs/protocol.md).
#include "serial/protocol/payload_codec.h"

namespace trainscope::wire {
namespace {

DecodeStatus Finish(const ByteReader& reader, bool values_valid) {
  if (!reader.ok()) return DecodeStatus::kTruncated;
  return values_valid ? DecodeStatus::kOk : DecodeStatus::kInvalidValue;
}

constexpr uint8_t kBackwardTrainable = 1u << 0;
constexpr uint8_t kBackwardLastLayer = 1u << 1;
constexpr uint8_t kBackwardBegin = 1u << 2;

}  // namespace

bool EncodePayload(const SampleEvent& event, ByteWriter* writer) {
  writer->U32(event.epoch);
  writer->U32(event.optimizer_step);
  writer->U32(event.sample);
  writer->U8(event.begin ? 1 : 0);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, SampleEvent* out) {
  ByteReader reader(data, size);
  out->epoch = reader.U32();
  out->optimizer_step = reader.U32();
  out->sample = reader.U32();
  out->begin = reader.U8() != 0;
  return Finish(reader, true);
}

bool EncodePayload(const OptimizerStepEvent& event, ByteWriter* writer) {
  writer->U32(event.epoch);
  writer->U32(event.optimizer_step);
  writer->U32(event.batch_size);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, OptimizerStepEvent* out) {
  ByteReader reader(data, size);
  out->epoch = reader.U32();
  out->optimizer_step = reader.U32();
  out->batch_size = reader.U32();
  return Finish(reader, true);
}

bool EncodePayload(const ForwardOpEvent& event, ByteWriter* writer) {
  writer->U32(event.op_index);
  writer->I32(event.opcode);
  writer->U64(event.duration_ns);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, ForwardOpEvent* out) {
  ByteReader reader(data, size);
  out->op_index = reader.U32();
  out->opcode = reader.I32();
  out->duration_ns = reader.U64();
  return Finish(reader, true);
}

bool EncodePayload(const BackwardStepEvent& event, ByteWriter* writer) {
  writer->U32(event.step);
  writer->U32(event.op_index);
  writer->I32(event.opcode);
  uint8_t flags = 0;
  if (event.trainable) flags |= kBackwardTrainable;
  if (event.is_last_layer) flags |= kBackwardLastLayer;
  if (event.begin) flags |= kBackwardBegin;
  writer->U8(flags);
  writer->U8(static_cast<uint8_t>(event.rank));
  writer->U64(event.duration_ns);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, BackwardStepEvent* out) {
  ByteReader reader(data, size);
  out->step = reader.U32();
  out->op_index = reader.U32();
  out->opcode = reader.I32();
  const uint8_t flags = reader.U8();
  out->trainable = (flags & kBackwardTrainable) != 0;
  out->is_last_layer = (flags & kBackwardLastLayer) != 0;
  out->begin = (flags & kBackwardBegin) != 0;
  const uint8_t rank = reader.U8();
  out->rank = static_cast<TrainRank>(rank);
  out->duration_ns = reader.U64();
  return Finish(reader, rank < kTrainRankCount);
}

bool EncodePayload(const MemoryEvent& event, ByteWriter* writer) {
  writer->U32(event.tick);
  writer->U8(static_cast<uint8_t>(event.phase));
  writer->U32(event.step);
  writer->I32(event.tensor);
  writer->U8(static_cast<uint8_t>(event.category));
  writer->U64(event.bytes);
  writer->U64(event.offset);
  writer->U8(event.alloc ? 1 : 0);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, MemoryEvent* out) {
  ByteReader reader(data, size);
  out->tick = reader.U32();
  const uint8_t phase = reader.U8();
  out->phase = static_cast<Phase>(phase);
  out->step = reader.U32();
  out->tensor = reader.I32();
  const uint8_t category = reader.U8();
  out->category = static_cast<MemoryCategory>(category);
  out->bytes = reader.U64();
  out->offset = reader.U64();
  out->alloc = reader.U8() != 0;
  return Finish(
      reader, phase <= static_cast<uint8_t>(Phase::kOptimizer) && category < kMemoryCategoryCount);
}

bool EncodePayload(const MemorySummaryEvent& event, ByteWriter* writer) {
  writer->U32(event.tick);
  writer->U8(static_cast<uint8_t>(event.phase));
  writer->U32(event.step);
  writer->U64(event.current_bytes);
  writer->U64(event.peak_bytes);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, MemorySummaryEvent* out) {
  ByteReader reader(data, size);
  out->tick = reader.U32();
  const uint8_t phase = reader.U8();
  out->phase = static_cast<Phase>(phase);
  out->step = reader.U32();
  out->current_bytes = reader.U64();
  out->peak_bytes = reader.U64();
  return Finish(reader, phase <= static_cast<uint8_t>(Phase::kOptimizer));
}

bool EncodePayload(const GradientStatsEvent& event, ByteWriter* writer) {
  writer->U32(event.optimizer_step);
  writer->U32(event.op_index);
  writer->I32(event.tensor);
  writer->F32(event.l2);
  writer->F32(event.max_abs);
  writer->F32(event.mean);
  writer->U32(event.nan_count);
  writer->U32(event.inf_count);
  for (uint32_t count : event.histogram) writer->U32(count);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, GradientStatsEvent* out) {
  ByteReader reader(data, size);
  out->optimizer_step = reader.U32();
  out->op_index = reader.U32();
  out->tensor = reader.I32();
  out->l2 = reader.F32();
  out->max_abs = reader.F32();
  out->mean = reader.F32();
  out->nan_count = reader.U32();
  out->inf_count = reader.U32();
  for (uint32_t& count : out->histogram) count = reader.U32();
  return Finish(reader, true);
}

bool EncodePayload(const UpdateRatioEvent& event, ByteWriter* writer) {
  writer->U32(event.optimizer_step);
  writer->I32(event.tensor);
  writer->F32(event.update_norm);
  writer->F32(event.weight_norm);
  writer->F32(event.ratio);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, UpdateRatioEvent* out) {
  ByteReader reader(data, size);
  out->optimizer_step = reader.U32();
  out->tensor = reader.I32();
  out->update_norm = reader.F32();
  out->weight_norm = reader.F32();
  out->ratio = reader.F32();
  return Finish(reader, true);
}

bool EncodePayload(const LossEvent& event, ByteWriter* writer) {
  writer->U32(event.optimizer_step);
  writer->U32(event.sample);
  writer->F32(event.value);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, LossEvent* out) {
  ByteReader reader(data, size);
  out->optimizer_step = reader.U32();
  out->sample = reader.U32();
  out->value = reader.F32();
  return Finish(reader, true);
}

bool EncodePayload(const MetricEvent& event, ByteWriter* writer) {
  writer->U32(event.epoch);
  writer->U8(event.metric);
  writer->F32(event.value);
  return writer->ok();
}

DecodeStatus DecodePayload(const uint8_t* data, size_t size, MetricEvent* out) {
  ByteReader reader(data, size);
  out->epoch = reader.U32();
  out->metric = reader.U8();
  out->value = reader.F32();
  return Finish(reader, true);
}

}  // namespace trainscope::wire
