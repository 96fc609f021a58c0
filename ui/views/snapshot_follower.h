// SPDX-License-Identifier: Apache-2.0
//
// SnapshotFollower: how a view stays current without being told. It polls the TraceStore at
// ~30 Hz and calls the view back only when the store's generation changed, so an idle view costs
// one atomic read per tick, and a burst of events costs one repaint per tick at most.
//
// Owned by its view (QObject parent); the store is shared with the sources and other views.
//
//   follower_ = new SnapshotFollower(this);
//   follower_->setCallback([this](const auto& snapshot) { rebuild(*snapshot); });
//   follower_->setStore(store);
#pragma once

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>

#include "ui/session/trace_store.h"

namespace trainscope {

class SnapshotFollower : public QObject {
  Q_OBJECT

 public:
  using Callback = std::function<void(const std::shared_ptr<const TraceSnapshot>&)>;
  static constexpr int kIntervalMs = 33;

  explicit SnapshotFollower(QObject* parent);

  void setStore(std::shared_ptr<TraceStore> store);
  const std::shared_ptr<TraceStore>& store() const { return store_; }
  void setCallback(Callback callback) { callback_ = std::move(callback); }

  // Pulls now if the generation changed since the last delivery.
  void poll();
  // Delivers the latest snapshot even if it did not change (the view's own inputs changed).
  void refresh();
  const std::shared_ptr<const TraceSnapshot>& latest() const { return latest_; }

 private:
  void deliver(bool force);

  std::shared_ptr<TraceStore> store_;
  std::shared_ptr<const TraceSnapshot> latest_;
  Callback callback_;
  QTimer timer_;
  uint64_t delivered_generation_ = 0;
  bool delivered_once_ = false;
};

}  // namespace trainscope
