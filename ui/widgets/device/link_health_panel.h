// SPDX-License-Identifier: Apache-2.0
//
// LinkHealthPanel: the link-health dock's contents. It polls a DeviceEventSource's health()
// snapshot on a timer (kRefreshMs, the 1 Hz-ish pull the counters are made for) and shows state,
// bytes/s, frames ok/bad/dropped, malformed payloads, board-side drops, heartbeats, the last
// command's ACK latency and reconnects. With no source it shows "not connected".
//
// The source is not owned (QPointer: a deleted source reads as none).
//
//   auto* panel = new LinkHealthPanel(dock);
//   panel->setSource(device_source);
#pragma once

#include <QPointer>
#include <QWidget>

#include <vector>

#include "ui/session/sources/link_health.h"

class QLabel;
class QTimer;

namespace trainscope {

class DeviceEventSource;

// One line per number, for the panel and for logs: {"State", "connected"}, {"Bytes/s", ...}.
std::vector<std::pair<QString, QString>> DescribeLinkHealth(const LinkHealth& health);

class LinkHealthPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kRefreshMs = 500;

  explicit LinkHealthPanel(QWidget* parent = nullptr);

  void setSource(DeviceEventSource* source);
  // The value shown for a row title ("Frames bad"), for tests.
  QString valueText(const QString& title) const;

 public Q_SLOTS:
  void refresh();

 private:
  QPointer<DeviceEventSource> source_;
  QTimer* timer_ = nullptr;
  std::vector<std::pair<QLabel*, QLabel*>> rows_;
};

}  // namespace trainscope
