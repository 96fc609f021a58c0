// SPDX-License-Identifier: Apache-2.0
//
// SetModelMetadata: new model bytes equal to a model's, except that the metadata entry `name`
// points to a buffer holding `data` (the entry is added when missing, replaced when present).
//
// How: the original bytes are kept verbatim at the end of the new file and a new root Model
// table, a new buffers vector and a new metadata vector are written in front of them. FlatBuffers
// offsets only point forward, so the new tables refer to the untouched operator codes, subgraphs,
// strings and buffers; the prefix is a multiple of 16 bytes, so every 16-byte aligned buffer
// stays aligned. Nothing is decoded and re-encoded, so fields this engine does not model
// (quantization, signature defs, options of unknown ops, ...) survive byte for byte. A full
// rebuild through Graph + ModelBuilder would silently drop them.
//
// Costs, on purpose: the old root table (and, on replacement, the old metadata bytes) stay in the
// file as unreachable bytes, so each rewrite grows the file by the new metadata plus a few hundred
// bytes. Later duplicates of `name` are dropped so readers see exactly one entry. When the old
// entry's buffer is shared with a tensor or another entry, a new buffer is appended instead of
// replacing it.
//
//   std::vector<uint8_t> bytes;
//   TS_RETURN_IF_ERROR(SetModelMetadata(model, "CIRCLE_TRAINING", ctr0_bytes, &bytes));
//   Model updated;
//   TS_RETURN_IF_ERROR(Model::FromBytes(std::move(bytes), &updated));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/model/model.h"

namespace trainscope {

// The result is verified (ReadGraph) before it is returned. kUnsupported when the root Model
// table carries a field this writer cannot carry over, or the result would exceed 2 GiB.
Status SetModelMetadata(const Model& model, const std::string& name,
                        const std::vector<uint8_t>& data, std::vector<uint8_t>* out);

}  // namespace trainscope
