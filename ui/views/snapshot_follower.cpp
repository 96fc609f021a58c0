// SPDX-License-Identifier: Apache-2.0
#include "ui/views/snapshot_follower.h"

namespace trainscope {

SnapshotFollower::SnapshotFollower(QObject* parent) : QObject(parent) {
  timer_.setInterval(kIntervalMs);
  connect(&timer_, &QTimer::timeout, this, &SnapshotFollower::poll);
}

void SnapshotFollower::setStore(std::shared_ptr<TraceStore> store) {
  store_ = std::move(store);
  delivered_once_ = false;
  latest_.reset();
  if (store_) {
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

void SnapshotFollower::deliver(bool force) {
  if (!store_) return;
  if (!force && delivered_once_ && store_->generation() == delivered_generation_) return;
  latest_ = store_->snapshot();
  delivered_generation_ = latest_->generation;
  delivered_once_ = true;
  if (callback_) callback_(latest_);
}

}  // namespace trainscope
