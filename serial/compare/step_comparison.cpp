// SPDX-License-Identifier: Apache-2.0
#include "serial/compare/step_comparison.h"

namespace trainscope {
namespace {

bool SameRead(const ProbeReading& a, const ProbeReading& b) {
  return a.point == b.point && a.read.tensor == b.read.tensor && a.read.aspect == b.read.aspect;
}

const ProbeReading* StartOf(const std::vector<ProbeReading>* start, const ProbeRead& read) {
  if (start == nullptr) return nullptr;
  for (const ProbeReading& s : *start) {
    if (s.held && s.read.tensor == read.tensor && s.read.aspect == read.aspect) return &s;
  }
  return nullptr;
}

std::vector<float> Minus(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] - b[i];
  return out;
}

// Counts `c` into the step's figures and appends it.
void Add(TensorComparison c, StepComparison* out) {
  if (c.board_held && c.reference_held && c.shape_matches) {
    if (out->largest < 0 ||
        c.difference.relative_l2 >
            out->tensors[static_cast<size_t>(out->largest)].difference.relative_l2) {
      out->largest = static_cast<int64_t>(out->tensors.size());
    }
  }
  if (c.divergent && out->first_divergent < 0) {
    out->first_divergent = static_cast<int64_t>(out->tensors.size());
  }
  out->tensors.push_back(std::move(c));
}

// The update comparison following an updated parameter's value comparison `value`.
bool UpdateComparison(const TensorComparison& value, const ProbeReading& board,
                      const ProbeReading& reference, const std::vector<ProbeReading>* start,
                      const DivergenceThresholds& thresholds, TensorComparison* update) {
  if (value.point.moment != ProbeMoment::kAfterUpdate ||
      value.read.aspect != TensorAspect::kValue || !value.shape_matches) {
    return false;
  }
  const ProbeReading* before = StartOf(start, value.read);
  if (before == nullptr || before->copy.values.size() != board.copy.values.size()) return false;
  *update = value;
  update->read.role = kUpdateRolePrefix + value.read.role;
  update->board_reading = update->reference_reading = -1;
  update->board_update = Minus(board.copy.values, before->copy.values);
  update->reference_update = Minus(reference.copy.values, before->copy.values);
  update->difference = CompareTensors(update->board_update.data(), update->reference_update.data(),
                                      update->reference_update.size());
  // Distance in floats is the weights' own: between two tiny updates it would only count the
  // rounding of the weights they were taken from.
  update->difference.max_ulp = value.difference.max_ulp;
  update->divergent = Diverges(*update, thresholds);
  return true;
}

}  // namespace

bool IsUpdateComparison(const TensorComparison& pair) {
  return pair.read.role.rfind(kUpdateRolePrefix, 0) == 0;
}

bool Diverges(const TensorComparison& pair, const DivergenceThresholds& thresholds) {
  if (!pair.board_held || !pair.reference_held) return false;
  if (!pair.shape_matches) return true;
  // Near convergence an update is a few float steps of its weights, and two correct boards
  // (another libm, another summation order) differ by about that much: relative to the update
  // such rounding looks large. An update diverges only when the weights differ by more.
  if (IsUpdateComparison(pair) && pair.difference.max_ulp <= kUpdateRoundingUlps &&
      pair.difference.nonfinite_mismatches == 0) {
    return false;
  }
  return Diverges(pair.difference, thresholds);
}

StepComparison CompareStep(const std::vector<ProbeReading>& board,
                           const std::vector<ProbeReading>& reference,
                           const DivergenceThresholds& thresholds,
                           const std::vector<ProbeReading>* start) {
  StepComparison out;
  std::vector<bool> paired(reference.size(), false);
  size_t hint = 0;  // both sides are in plan order: the partner is usually the next one
  for (size_t board_index = 0; board_index < board.size(); ++board_index) {
    const ProbeReading& b = board[board_index];
    TensorComparison c;
    c.board_reading = static_cast<int64_t>(board_index);
    c.point = b.point;
    c.read = b.read;
    c.board_held = b.held;
    c.board_reason = b.reason;
    const ProbeReading* r = nullptr;
    for (size_t n = 0; n < reference.size() && r == nullptr; ++n) {
      const size_t i = (hint + n) % reference.size();
      if (!paired[i] && SameRead(b, reference[i])) {
        paired[i] = true;
        r = &reference[i];
        c.reference_reading = static_cast<int64_t>(i);
        hint = i + 1;
      }
    }
    if (r != nullptr) {
      c.reference_held = r->held;
      c.reference_reason = r->reason;
    } else {
      c.reference_reason = "the reference engine did not reach this point";
    }
    if (c.board_held && c.reference_held) {
      ++out.compared;
      c.shape = r->copy.shape;
      c.shape_matches =
          b.copy.shape == r->copy.shape && b.copy.values.size() == r->copy.values.size();
      if (c.shape_matches) {
        c.difference =
            CompareTensors(b.copy.values.data(), r->copy.values.data(), r->copy.values.size());
      }
    } else if (c.board_held != c.reference_held) {
      ++out.held_on_one_side;
    }
    c.divergent = Diverges(c, thresholds);
    TensorComparison update;
    const bool has_update = r != nullptr && UpdateComparison(c, b, *r, start, thresholds, &update);
    Add(std::move(c), &out);
    if (has_update) {
      ++out.compared;
      Add(std::move(update), &out);
    }
  }
  for (size_t i = 0; i < reference.size(); ++i) {
    if (paired[i]) continue;
    TensorComparison c;
    c.reference_reading = static_cast<int64_t>(i);
    c.point = reference[i].point;
    c.read = reference[i].read;
    c.reference_held = reference[i].held;
    c.board_reason = "not read from the board";
    if (c.reference_held) ++out.held_on_one_side;
    out.tensors.push_back(std::move(c));
  }
  return out;
}

}  // namespace trainscope
