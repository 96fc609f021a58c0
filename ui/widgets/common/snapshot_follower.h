// SPDX-License-Identifier: Apache-2.0
//
// SnapshotFollower: how a view stays current without being told. It polls the SessionStore at
// ~30 Hz and calls the view back only when the store's generation changed, so an idle view costs
// one atomic read per tick, and a burst of events costs one repaint per tick at most.
//
// While the store changes on every tick (a source at full speed), deliveries are spaced at least
// kBusyIntervalMs apart (~15 Hz): nobody reads faster than that, and each rebuild and replot
// costs GUI-thread time the event loop needs. The first change after a quiet tick (a step, F10)
// and the last one before the store goes quiet (pause) are delivered at the next tick, so
// stepping stays immediate and nothing is left unshown. poll() and refresh() are never held back.
//
// Owned by its view (QObject parent); the store is shared with the sources and other views.
//
//   follower_ = new SnapshotFollower(this);
//   follower_->setCallback([this](const auto& snapshot) { rebuild(*snapshot); });
//   follower_->setStore(store);
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>

#include "ui/session/session_store.h"

namespace trainscope {

class SnapshotFollower : public QObject {
  Q_OBJECT

 public:
  using Callback = std::function<void(const std::shared_ptr<const SessionSnapshot>&)>;
  static constexpr int kIntervalMs = 33;
  static constexpr int kBusyIntervalMs = 60;

  explicit SnapshotFollower(QObject* parent);

  void setStore(std::shared_ptr<SessionStore> store);
  const std::shared_ptr<SessionStore>& store() const { return store_; }
  void setCallback(Callback callback) { callback_ = std::move(callback); }

  // Pulls now if the generation changed since the last delivery.
  void poll();
  // Delivers the latest snapshot even if it did not change (the view's own inputs changed).
  void refresh();
  // True while the callback runs for refresh() or setStore(): the view must redraw even when
  // the parts of the snapshot it shows are the ones it drew last time.
  bool forced() const { return forced_; }
  const std::shared_ptr<const SessionSnapshot>& latest() const { return latest_; }
  // How many times the callback ran (for tests and benchmarks).
  uint64_t deliveries() const { return deliveries_; }

 private:
  // The timer's poll: like poll(), but spaced out while the store changes on every tick.
  void onTick();
  void deliver(bool force);

  std::shared_ptr<SessionStore> store_;
  std::shared_ptr<const SessionSnapshot> latest_;
  Callback callback_;
  QTimer timer_;
  QElapsedTimer since_delivery_;
  uint64_t delivered_generation_ = 0;
  uint64_t generation_at_last_tick_ = 0;
  bool store_active_last_tick_ = false;
  bool delivered_once_ = false;
  bool forced_ = false;
  uint64_t deliveries_ = 0;
};

}  // namespace trainscope
