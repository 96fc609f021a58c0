// SPDX-License-Identifier: Apache-2.0
//
// MemoryView: the memory of the latest train step. The timeline tab stacks live bytes per
// MemoryCategory over the step's ticks (forward, backward, optimizer shaded behind), with the
// peak, a user-set RAM budget and a cursor at the newest tick; during backward it rises and falls
// with every op. The address-map tab draws each buffer as an offset x lifetime rectangle (the
// planned arena) with a tooltip naming tensor, op, category, size and lifetime.
//
// Reads the SessionStore through a SnapshotFollower; the Graph (copied) only names tensors and ops.
//
//   MemoryView view;
//   view.setGraph(model.graph());
//   view.setStore(store);
//   view.setBudgetBytes(64 * 1024);
#pragma once

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>

#include "engine/model/graph.h"
#include "serial/protocol/messages.h"
#include "ui/session/session_store.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPItemRect;
class QLabel;
class QSpinBox;
class QTabWidget;

namespace trainscope {

class AddressMapPlottable;
class SnapshotFollower;

class MemoryView : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryView(QWidget* parent = nullptr);
  ~MemoryView() override;
  // Docks start from this size; the content itself scales down much further.
  QSize sizeHint() const override { return QSize(560, 420); }

  void setGraph(const Graph& graph);
  void setStore(std::shared_ptr<SessionStore> store);
  void setBudgetBytes(uint64_t bytes);  // 0 hides the budget line
  uint64_t budgetBytes() const { return budget_bytes_; }

  QCustomPlot* timelinePlot() const { return timeline_; }
  QCustomPlot* addressPlot() const { return address_; }
  QTabWidget* tabs() const { return tabs_; }
  // What the figures assume ("adam · batch 1"): shown in the header beside them.
  void setSetupText(const QString& text);
  // The RAM an attached board reported (DEVICE_MEMORY), shown under the header beside the plan,
  // with its heap split in the tooltip; nullopt hides the line (no board, or none reported).
  void setDeviceMemory(const std::optional<wire::DeviceMemoryMessage>& memory);
  QString deviceMemoryText() const;
  // What is drawn, in bytes and ticks (for tests and the state dump).
  struct Shown {
    uint64_t current_bytes = 0;      // the header's "current"
    uint64_t peak_bytes = 0;         // the header's "peak" and the peak line
    uint64_t arena_bytes = 0;        // the header's "arena" and the arena line
    uint64_t max_stacked_bytes = 0;  // the highest stack the timeline draws
  };
  const Shown& shown() const { return shown_; }
  double cursorTick() const { return cursor_tick_; }
  uint64_t peakBytesShown() const { return peak_bytes_; }
  int bufferCount() const;
  // The tooltip text for a point of the address map (empty when no buffer is there).
  QString describeBufferAt(double tick, double offset_bytes) const;
  // How often the plots were rebuilt: only when the step's memory changed, or on refresh().
  uint64_t rebuildCount() const { return rebuilds_; }

 public Q_SLOTS:
  void refresh();

 Q_SIGNALS:
  void budgetChanged(uint64_t bytes);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void onSnapshot(const SessionSnapshot& snapshot);
  void rebuild(const SessionSnapshot& snapshot);
  void rebuildTimeline(const SessionSnapshot& snapshot);
  void rebuildAddressMap(const SessionSnapshot& snapshot);
  void applyTheme();
  void onAddressHover(QMouseEvent* event);
  QString tensorName(int32_t tensor) const;
  QString opOfStep(Phase phase, uint32_t step) const;

  Graph graph_;
  uint64_t budget_bytes_ = 0;
  double unit_ = 1024.0;
  double cursor_tick_ = 0.0;
  uint64_t peak_bytes_ = 0;
  Shown shown_;
  QString setup_text_;

  QTabWidget* tabs_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* device_memory_ = nullptr;
  std::optional<wire::DeviceMemoryMessage> device_memory_shown_;
  QSpinBox* budget_spin_ = nullptr;
  QCustomPlot* timeline_ = nullptr;
  QCustomPlot* address_ = nullptr;
  std::vector<QCPGraph*> stacks_;  // one per category, cumulative
  QCPItemStraightLine* peak_line_ = nullptr;
  QCPItemText* peak_label_ = nullptr;
  QCPItemStraightLine* budget_line_ = nullptr;
  QCPItemText* budget_label_ = nullptr;
  QCPItemStraightLine* cursor_line_ = nullptr;
  std::vector<QCPItemRect*> phase_bands_;
  std::vector<QCPItemText*> phase_labels_;
  AddressMapPlottable* buffers_ = nullptr;
  QCPItemStraightLine* arena_line_ = nullptr;
  QCPItemText* arena_label_ = nullptr;
  QCPItemStraightLine* address_cursor_ = nullptr;
  SnapshotFollower* follower_ = nullptr;
  // The timeline shown now: the store replaces it instead of changing it while a snapshot (and
  // so this view) holds it, so the same pointer means the same step state.
  std::shared_ptr<const LiveMemoryTimeline> shown_memory_;
  uint64_t shown_previous_peak_ = 0;
  uint32_t shown_previous_last_tick_ = 0;
  uint64_t rebuilds_ = 0;
};

}  // namespace trainscope
