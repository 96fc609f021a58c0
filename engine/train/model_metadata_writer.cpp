// SPDX-License-Identifier: Apache-2.0
#include "engine/train/model_metadata_writer.h"

#include <cstring>

#include "engine/model/circle_subset_generated.h"

namespace trainscope {
namespace {

namespace fb = trainscope::circle;

constexpr flatbuffers::voffset_t SlotOffset(int id) {
  return static_cast<flatbuffers::voffset_t>(4 + 2 * id);
}

// Model table slots (circle 0.10 / TFLite 3): 0 version, 1 operator_codes, 2 subgraphs,
// 3 description, 4 buffers, 5 metadata_buffer, 6 metadata, 7 signature_defs. Offset slots not
// rebuilt here are copied as references into the original bytes.
constexpr int kSlotVersion = 0;
constexpr int kSlotBuffers = 4;
constexpr int kSlotMetadata = 6;
constexpr int kCopiedOffsetSlots[] = {1, 2, 3, 5, 7};
constexpr int kKnownSlotCount = 8;

constexpr size_t kPrefixAlignment = 16;  // Buffer.data is force_align: 16
constexpr size_t kMaxOutputBytes = (size_t{1} << 31) - 1;

const flatbuffers::Table* AsTable(const void* generated) {
  return reinterpret_cast<const flatbuffers::Table*>(generated);
}

Status CheckRootSlots(const flatbuffers::Table* root) {
  const uint8_t* vtable = root->GetVTable();
  const auto vtable_bytes = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable);
  const int slot_count = (vtable_bytes - 4) / 2;
  for (int id = kKnownSlotCount; id < slot_count; ++id) {
    if (root->CheckField(SlotOffset(id))) {
      return Status::Error(StatusCode::kUnsupported,
                           "model table field %d is set; its type is unknown, so the model cannot "
                           "be rewritten without losing it",
                           id);
    }
  }
  return Status::Ok();
}

// True when buffer `index` holds something besides the metadata entry `skip_entry`.
bool BufferIsShared(const Model& model, const fb::Model* root, uint32_t index, size_t skip_entry) {
  if (index == 0) return true;  // the empty sentinel every non-constant tensor points to
  for (const Subgraph& subgraph : model.graph().subgraphs) {
    for (const Tensor& tensor : subgraph.tensors) {
      if (tensor.buffer == index) return true;
    }
  }
  const std::vector<MetadataEntry>& entries = model.graph().metadata;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i != skip_entry && entries[i].buffer == index) return true;
  }
  if (const auto* listed = root->metadata_buffer(); listed != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < listed->size(); ++i) {
      if (listed->Get(i) >= 0 && static_cast<uint32_t>(listed->Get(i)) == index) return true;
    }
  }
  return false;
}

}  // namespace

Status SetModelMetadata(const Model& model, const std::string& name,
                        const std::vector<uint8_t>& data, std::vector<uint8_t>* out) {
  const std::vector<uint8_t>& original = model.bytes();
  if (model.graph().subgraphs.empty() || original.size() < 8) {
    return Status::Error(StatusCode::kInvalidArgument,
                         "metadata '%s': the model holds no verified bytes", name.c_str());
  }
  const size_t padded =
      (original.size() + kPrefixAlignment - 1) / kPrefixAlignment * kPrefixAlignment;
  if (padded + data.size() + name.size() + 4096 > kMaxOutputBytes) {
    return Status::Error(StatusCode::kUnsupported,
                         "model of %zu bytes with %zu bytes of metadata exceeds the 2 GiB "
                         "flatbuffer limit",
                         original.size(), data.size());
  }
  const uint8_t* base = original.data();
  const fb::Model* root = flatbuffers::GetRoot<fb::Model>(base);
  TS_RETURN_IF_ERROR(CheckRootSlots(AsTable(root)));

  flatbuffers::FlatBufferBuilder b(padded + data.size() + 1024);
  b.TrackMinAlign(kPrefixAlignment);
  // The builder grows downward: what is pushed first ends up last in the file.
  b.Pad(padded - original.size());
  b.PushBytes(base, original.size());
  // Builder offsets count from the end; the original byte at `p` sits `padded - p` from it.
  auto original_ref = [&](const void* p) {
    return static_cast<flatbuffers::uoffset_t>(
        padded - static_cast<size_t>(static_cast<const uint8_t*>(p) - base));
  };

  b.ForceVectorAlignment(data.size(), sizeof(uint8_t), kPrefixAlignment);
  const auto new_buffer = fb::CreateBuffer(b, b.CreateVector(data));

  const std::vector<MetadataEntry>& entries = model.graph().metadata;
  size_t existing = entries.size();
  for (size_t i = 0; i < entries.size() && existing == entries.size(); ++i) {
    if (entries[i].name == name) existing = i;
  }

  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  if (const auto* old_buffers = root->buffers(); old_buffers != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < old_buffers->size(); ++i) {
      buffers.emplace_back(original_ref(old_buffers->Get(i)));
    }
  }
  uint32_t target = static_cast<uint32_t>(buffers.size());
  if (existing < entries.size() &&
      !BufferIsShared(model, root, entries[existing].buffer, existing)) {
    target = entries[existing].buffer;
    buffers[target] = new_buffer;
  } else {
    buffers.push_back(new_buffer);
  }

  std::vector<flatbuffers::Offset<fb::Metadata>> metadata;
  bool written = false;
  if (const auto* old_metadata = root->metadata(); old_metadata != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < old_metadata->size(); ++i) {
      const fb::Metadata* entry = old_metadata->Get(i);
      const bool same_name = entry->name() != nullptr && entry->name()->str() == name;
      if (!same_name) {
        metadata.emplace_back(original_ref(entry));
      } else if (!written) {
        metadata.push_back(fb::CreateMetadata(b, b.CreateString(name), target));
        written = true;
      }
    }
  }
  if (!written) metadata.push_back(fb::CreateMetadata(b, b.CreateString(name), target));
  const auto buffers_vector = b.CreateVector(buffers);
  const auto metadata_vector = b.CreateVector(metadata);

  const flatbuffers::Table* old_root = AsTable(root);
  const flatbuffers::uoffset_t start = b.StartTable();
  if (old_root->CheckField(SlotOffset(kSlotVersion))) {
    b.AddElement<uint32_t>(SlotOffset(kSlotVersion), root->version());
  }
  for (int id : kCopiedOffsetSlots) {
    if (!old_root->CheckField(SlotOffset(id))) continue;
    const uint8_t* target_object = old_root->GetPointer<const uint8_t*>(SlotOffset(id));
    b.AddOffset(SlotOffset(id), flatbuffers::Offset<void>(original_ref(target_object)));
  }
  b.AddOffset(SlotOffset(kSlotBuffers), buffers_vector);
  b.AddOffset(SlotOffset(kSlotMetadata), metadata_vector);
  const flatbuffers::Offset<fb::Model> new_root(b.EndTable(start));

  char identifier[5] = {};
  std::memcpy(identifier, base + 4, 4);
  b.Finish(new_root, identifier);

  std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  Graph check;
  Status status = ReadGraph(bytes.data(), bytes.size(), &check);
  if (!status.ok()) return status.Prepend("metadata '" + name + "' could not be added");
  *out = std::move(bytes);
  return Status::Ok();
}

}  // namespace trainscope
