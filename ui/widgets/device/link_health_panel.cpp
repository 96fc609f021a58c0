// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/device/link_health_panel.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QTimer>

#include "ui/session/sources/device_event_source.h"

namespace trainscope {
namespace {

QString Count(uint64_t value) {
  return QLocale().toString(static_cast<qulonglong>(value));
}

}  // namespace

std::vector<std::pair<QString, QString>> DescribeLinkHealth(const LinkHealth& h) {
  const QString state = h.connected      ? QStringLiteral("connected")
                        : h.reconnecting ? QStringLiteral("link lost, reconnecting")
                                         : QStringLiteral("not connected");
  const QString latency = h.last_ack_latency_us < 0
                              ? QStringLiteral("-")
                              : QStringLiteral("%1 ms").arg(
                                    static_cast<double>(h.last_ack_latency_us) / 1000.0, 0, 'f', 1);
  const QString silence = h.ms_since_last_frame < 0
                              ? QStringLiteral("-")
                              : QStringLiteral("%1 s").arg(
                                    static_cast<double>(h.ms_since_last_frame) / 1000.0, 0, 'f', 1);
  return {
      {QStringLiteral("State"), state},
      {QStringLiteral("Endpoint"), h.endpoint.isEmpty() ? QStringLiteral("-") : h.endpoint},
      {QStringLiteral("Board"), h.agent.isEmpty() ? QStringLiteral("-") : h.agent},
      {QStringLiteral("Bytes/s"), QLocale().toString(h.bytes_per_second, 'f', 0)},
      {QStringLiteral("Bytes"), Count(h.bytes)},
      {QStringLiteral("Frames ok"), Count(h.frames_ok)},
      {QStringLiteral("Frames bad"), Count(h.frames_bad)},
      {QStringLiteral("Frames dropped"), Count(h.frames_dropped)},
      {QStringLiteral("Malformed"), Count(h.malformed)},
      {QStringLiteral("Board drops"), Count(h.agent_drops)},
      {QStringLiteral("Heartbeats"), Count(h.heartbeats)},
      {QStringLiteral("Last ACK latency"), latency},
      {QStringLiteral("Commands resent"), Count(h.commands_resent)},
      {QStringLiteral("Unsolicited ACKs"), Count(h.unsolicited_acks)},
      {QStringLiteral("Last frame"), silence},
      {QStringLiteral("Backward steps"), Count(h.backward_steps)},
      {QStringLiteral("Reconnects"), Count(h.reconnects)},
  };
}

LinkHealthPanel::LinkHealthPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  for (const auto& [title, value] : DescribeLinkHealth(LinkHealth{})) {
    auto* label = new QLabel(title, this);
    auto* number = new QLabel(value, this);
    number->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    number->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(label, number);
    rows_.emplace_back(label, number);
  }
  timer_ = new QTimer(this);
  timer_->setInterval(kRefreshMs);
  connect(timer_, &QTimer::timeout, this, &LinkHealthPanel::refresh);
  timer_->start();
}

void LinkHealthPanel::setSource(DeviceEventSource* source) {
  source_ = source;
  refresh();
}

void LinkHealthPanel::refresh() {
  LinkHealth health;
  if (source_) health = source_->health();
  const auto lines = DescribeLinkHealth(health);
  for (size_t i = 0; i < lines.size() && i < rows_.size(); ++i) {
    rows_[i].second->setText(lines[i].second);
  }
}

QString LinkHealthPanel::valueText(const QString& title) const {
  for (const auto& [label, value] : rows_) {
    if (label->text() == title) return value->text();
  }
  return QString();
}

}  // namespace trainscope
