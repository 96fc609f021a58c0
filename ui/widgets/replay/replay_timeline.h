// SPDX-License-Identifier: Apache-2.0
//
// ReplayTimeline: the transport bar of a replay. A slider over the trace's backward steps scrubs
// (ReplayEventSource::seekToBackwardStep), a play/pause button and a speed choice drive playback,
// and a label reads "backward step 120 / 480 · 2.1 k events". It follows the source's
// positionChanged() and stateChanged(); it does not own the source.
//
//   ReplayTimeline timeline;
//   timeline.setSource(&replay);
#pragma once

#include <QPointer>
#include <QWidget>

#include "ui/session/sources/replay_event_source.h"

class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace trainscope {

class ReplayTimeline : public QWidget {
  Q_OBJECT

 public:
  explicit ReplayTimeline(QWidget* parent = nullptr);
  ~ReplayTimeline() override;

  void setSource(ReplayEventSource* source);  // null detaches
  ReplayEventSource* source() const { return source_; }

  QSlider* slider() const { return slider_; }
  QToolButton* playButton() const { return play_; }
  QComboBox* speedCombo() const { return speed_; }
  QString positionText() const;

 private:
  void updateFromSource();
  void togglePlay();

  QPointer<ReplayEventSource> source_;
  QSlider* slider_ = nullptr;
  QToolButton* play_ = nullptr;
  QComboBox* speed_ = nullptr;
  QLabel* position_ = nullptr;
};

}  // namespace trainscope
