// SPDX-License-Identifier: Apache-2.0
//
// STRIDED_SLICE with TensorFlow semantics: INT32 begin / end / strides operands (inputs 1-3) of
// one entry per slice specification, and the masks of StridedSliceOptions:
//  - begin_mask / end_mask bit i: ignore begin[i] / end[i] and take the widest range;
//  - ellipsis_mask (one bit at most): that entry stands for every input dimension not named by
//    the other entries; without it, unnamed trailing dimensions are taken whole;
//  - new_axis_mask: the entry inserts a size-1 output dimension and consumes no input dimension;
//  - shrink_axis_mask: take the single element begin[i] and drop the dimension;
//  - offset (circle): end[i] is relative to the resolved begin.
// Negative begin/end count from the end, out-of-range values clamp, negative strides walk
// backwards. Eval and Backward resolve the operands and check the result against the graph's
// output shape. Backward scatters the gradient back into the sliced positions (+=) and reads only
// the begin/end/strides operands.
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/registrations.h"

namespace trainscope {
namespace {

constexpr int kMaxSpecEntries = 16;

// Per input dimension: the elements start, start + step, ... (length of them).
struct SliceView {
  Dims lengths;
  int strides[kMaxKernelRank] = {};  // input element stride per step
  int base = 0;                      // flat input offset of the first element
};

struct DimSlice {
  int start = 0;
  int step = 1;
  int length = 0;
};

int ClampTo(int64_t value, int low, int high) {
  return value < low ? low : (value > high ? high : static_cast<int>(value));
}

bool Bit(int32_t mask, int i) {
  return (static_cast<uint32_t>(mask) >> i & 1u) != 0;
}

DimSlice ResolveRange(int size, int32_t begin, int32_t end, int32_t step, bool begin_masked,
                      bool end_masked, bool offset) {
  DimSlice s;
  s.step = step;
  const int low = step > 0 ? 0 : -1;
  const int high = step > 0 ? size : size - 1;
  if (begin_masked) {
    s.start = step > 0 ? 0 : size - 1;
  } else {
    const int64_t forward = begin < 0 ? static_cast<int64_t>(begin) + size : begin;
    s.start = ClampTo(forward, low, high);
  }
  int stop = 0;
  if (end_masked) {
    stop = step > 0 ? size : -1;
  } else {
    int64_t raw = offset ? static_cast<int64_t>(s.start) + end : static_cast<int64_t>(end);
    if (raw < 0) raw += size;
    stop = ClampTo(raw, low, high);
  }
  const int span = step > 0 ? stop - s.start : s.start - stop;
  const int magnitude = step > 0 ? step : -step;
  s.length = span > 0 ? (span + magnitude - 1) / magnitude : 0;
  return s;
}

template <typename Io>
Status Resolve(const Io& io, SliceView* view) {
  const Dims input = DimsOf(InputTensor(io, 0));
  const OpOptions& o = io.op->options;
  const int entries = static_cast<int>(InputTensor(io, 1).element_count());
  const int32_t* begin = InputInts(io, 1);
  const int32_t* end = InputInts(io, 2);
  const int32_t* strides = InputInts(io, 3);
  int in_strides[kMaxKernelRank] = {};
  RowMajorStrides(input, in_strides);

  int named_after[kMaxSpecEntries + 1] = {};  // input dimensions named by entries > i
  for (int i = entries - 1; i >= 0; --i) {
    const bool names_dim = !Bit(o.ellipsis_mask, i) && !Bit(o.new_axis_mask, i);
    named_after[i] = named_after[i + 1] + (names_dim ? 1 : 0);
  }

  Dims out;
  int dim = 0;  // next input dimension
  view->base = 0;
  view->lengths.rank = input.rank;
  auto take_whole = [&](int d) {
    view->lengths.d[d] = input.d[d];
    view->strides[d] = in_strides[d];
    if (out.rank < kMaxKernelRank) out.d[out.rank] = input.d[d];
    ++out.rank;
  };
  for (int i = 0; i < entries; ++i) {
    if (Bit(o.ellipsis_mask, i)) {
      const int whole = input.rank - dim - named_after[i + 1];
      for (int k = 0; k < whole; ++k) take_whole(dim++);
      continue;
    }
    if (Bit(o.new_axis_mask, i)) {
      if (out.rank < kMaxKernelRank) out.d[out.rank] = 1;
      ++out.rank;
      continue;
    }
    if (dim >= input.rank) {
      return KernelError(io.op_index, *io.op, "entry %d names more dimensions than the input's %d",
                         i, input.rank);
    }
    if (strides[i] == 0) return KernelError(io.op_index, *io.op, "stride %d is 0", i);
    const int size = input.d[dim];
    DimSlice s;
    if (Bit(o.shrink_axis_mask, i)) {
      const int64_t index = begin[i] < 0 ? static_cast<int64_t>(begin[i]) + size : begin[i];
      if (index < 0 || index >= size) {
        return KernelError(io.op_index, *io.op,
                           "shrink index %d of entry %d is outside dimension %d of size %d",
                           static_cast<int>(begin[i]), i, dim, size);
      }
      s.start = static_cast<int>(index);
      s.length = 1;
    } else {
      s = ResolveRange(size, begin[i], end[i], strides[i], Bit(o.begin_mask, i), Bit(o.end_mask, i),
                       o.offset);
      if (out.rank < kMaxKernelRank) out.d[out.rank] = s.length;
      ++out.rank;
    }
    view->lengths.d[dim] = s.length;
    view->strides[dim] = in_strides[dim] * s.step;
    view->base += s.start * in_strides[dim];
    ++dim;
  }
  while (dim < input.rank) take_whole(dim++);

  const Dims actual = DimsOf(OutputTensor(io));
  if (out.rank > kMaxKernelRank || out != actual) {
    char have[96];
    FormatDims(actual, have, sizeof(have));
    return KernelError(io.op_index, *io.op,
                       "begin/end/strides give an output of rank %d that is not the graph's %s",
                       out.rank, have);
  }
  return Status::Ok();
}

Status Prepare(const Subgraph& subgraph, const Operator& op, uint32_t op_index) {
  const OpCheck check(subgraph, op, op_index);
  TS_RETURN_IF_ERROR(check.ExpectArity(4, 4, 4));
  const size_t entries = check.Input(1).element_count();
  for (size_t i = 1; i < 4; ++i) {
    if (check.Input(i).shape.size() != 1 || check.Input(i).element_count() != entries) {
      return check.Error("begin, end and strides must be 1-D with the same length");
    }
  }
  if (entries > static_cast<size_t>(kMaxSpecEntries)) {
    return check.Unsupported("%zu slice entries; at most %d are supported", entries,
                             kMaxSpecEntries);
  }
  const int32_t ellipsis = op.options.ellipsis_mask;
  if (ellipsis != 0 && (ellipsis & (ellipsis - 1)) != 0) {
    return check.Error("ellipsis_mask 0x%x has more than one bit set",
                       static_cast<unsigned>(ellipsis));
  }
  if (check.Output().element_count() > check.Input(0).element_count()) {
    return check.Error("output has more elements than the input");
  }
  return Status::Ok();
}

Status Eval(const KernelIo& io) {
  SliceView view;
  TS_RETURN_IF_ERROR(Resolve(io, &view));
  const float* x = InputFloats(io, 0);
  float* y = MutableOutputFloats(io);
  ForEachIndex(view.lengths, view.strides, view.base, [&](int o, int i) { y[o] = x[i]; });
  return Status::Ok();
}

Status Backward(const BackwardIo& io) {
  float* dx = InputGradient(io, 0);
  if (dx == nullptr) return Status::Ok();
  const float* dy = nullptr;
  TS_RETURN_IF_ERROR(OutputGradient(io, &dy));
  SliceView view;
  TS_RETURN_IF_ERROR(Resolve(io, &view));
  ForEachIndex(view.lengths, view.strides, view.base, [&](int o, int i) { dx[i] += dy[o]; });
  return Status::Ok();
}

}  // namespace

const OpRegistration& RegistrationStridedSlice() {
  static constexpr OpRegistration kRegistration = {
      op::kStridedSlice,
      Prepare,
      Eval,
      Backward,
      nullptr,
      /*int32_inputs=*/(1u << 1) | (1u << 2) | (1u << 3),
      /*backward_reads_inputs=*/(1u << 1) | (1u << 2) | (1u << 3),
      OutputUse::kNever,
      /*weights_input=*/-1,
      /*bias_input=*/-1,
      /*half_rank=*/false};
  return kRegistration;
}

}  // namespace trainscope
