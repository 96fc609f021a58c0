// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/common/snapshot_follower.h"

namespace trainscope {

SnapshotFollower::SnapshotFollower(QObject* parent) : QObject(parent) {
  timer_.setInterval(kIntervalMs);
  connect(&timer_, &QTimer::timeout, this, &SnapshotFollower::onTick);
}

void SnapshotFollower::setStore(std::shared_ptr<SessionStore> store) {
  store_ = std::move(store);
  delivered_once_ = false;
  latest_.reset();
  if (store_) {
    generation_at_last_tick_ = store_->generation();
    store_active_last_tick_ = false;
    timer_.start();
    deliver(true);
  } else {
    timer_.stop();
  }
}

void SnapshotFollower::poll() {
  deliver(false);
}

void SnapshotFollower::refresh() {
  deliver(true);
}

void SnapshotFollower::onTick() {
  if (!store_) return;
  const uint64_t generation = store_->generation();
  const bool active_now = generation != generation_at_last_tick_;
  const bool was_active = store_active_last_tick_;
  generation_at_last_tick_ = generation;
  store_active_last_tick_ = active_now;
  if (delivered_once_ && generation == delivered_generation_) return;
  // Held back only while the store keeps changing tick after tick: a change after a quiet tick
  // (a step) shows at once, and so does the last one before the store settles (a pause).
  const bool streaming = was_active && active_now;
  if (streaming && delivered_once_ && since_delivery_.isValid() &&
      since_delivery_.elapsed() < kBusyIntervalMs) {
    return;
  }
  deliver(false);
}

void SnapshotFollower::deliver(bool force) {
  if (!store_) return;
  if (!force && delivered_once_ && store_->generation() == delivered_generation_) return;
  latest_ = store_->snapshot();
  delivered_generation_ = latest_->generation;
  delivered_once_ = true;
  since_delivery_.start();
  ++deliveries_;
  forced_ = force;
  if (callback_) callback_(latest_);
  forced_ = false;
}

}  // namespace trainscope
