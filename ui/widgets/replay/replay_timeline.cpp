// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/replay/replay_timeline.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QToolButton>

#include <climits>

#include "ui/session/sources/replay_event_source.h"
#include "ui/widgets/common/format.h"

namespace trainscope {
namespace {
constexpr double kSpeeds[] = {0.25, 0.5, 1.0, 2.0, 4.0, 16.0, 64.0};
constexpr int kDefaultSpeed = 2;  // 1x
}  // namespace

ReplayTimeline::ReplayTimeline(QWidget* parent) : QWidget(parent) {
  play_ = new QToolButton(this);
  play_->setAutoRaise(true);
  play_->setToolTip(tr("Play or pause the replay"));
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setToolTip(tr("Backward steps of the recording: drag to scrub"));
  speed_ = new QComboBox(this);
  speed_->setToolTip(tr("Replay speed"));
  for (double speed : kSpeeds) speed_->addItem(QStringLiteral("%1×").arg(speed), speed);
  speed_->setCurrentIndex(kDefaultSpeed);
  position_ = new QLabel(this);
  position_->setMinimumWidth(position_->fontMetrics().horizontalAdvance(
      QStringLiteral("backward step 00000 / 00000 · 000,000 events")));

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 2, 6, 2);
  layout->addWidget(play_);
  layout->addWidget(slider_, 1);
  layout->addWidget(position_);
  layout->addWidget(speed_);

  connect(play_, &QToolButton::clicked, this, &ReplayTimeline::togglePlay);
  connect(slider_, &QSlider::valueChanged, this, [this](int value) {
    if (source_) source_->seekToBackwardStep(static_cast<size_t>(value));
  });
  connect(speed_, &QComboBox::currentIndexChanged, this, [this] {
    if (source_) source_->setSpeed(speed_->currentData().toDouble());
  });
  updateFromSource();
}

ReplayTimeline::~ReplayTimeline() = default;

void ReplayTimeline::setSource(ReplayEventSource* source) {
  if (source_) disconnect(source_, nullptr, this, nullptr);
  source_ = source;
  if (source_) {
    connect(source_, &ReplayEventSource::positionChanged, this, &ReplayTimeline::updateFromSource);
    connect(source_, &EventSource::stateChanged, this, &ReplayTimeline::updateFromSource);
    source_->setSpeed(speed_->currentData().toDouble());
  }
  updateFromSource();
}

QString ReplayTimeline::positionText() const {
  return position_->text();
}

void ReplayTimeline::togglePlay() {
  if (!source_) return;
  if (source_->state() == EventSource::State::kRunning) {
    source_->pause();
  } else {
    source_->start();
  }
}

void ReplayTimeline::updateFromSource() {
  const bool open = source_ && source_->isOpen();
  setEnabled(open);
  const bool running = open && source_->state() == EventSource::State::kRunning;
  play_->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  const QSignalBlocker block(slider_);
  if (!open) {
    slider_->setRange(0, 0);
    position_->setText(tr("no recording open"));
    return;
  }
  const size_t total = source_->totalBackwardSteps();
  slider_->setRange(0, static_cast<int>(std::min<size_t>(total, INT_MAX)));
  slider_->setValue(static_cast<int>(std::min<size_t>(source_->position(), INT_MAX)));
  position_->setText(tr("backward step %1 / %2 · %3 events")
                         .arg(source_->position())
                         .arg(total)
                         .arg(FormatCount(source_->cursor())));
}

}  // namespace trainscope
