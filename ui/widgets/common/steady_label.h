// SPDX-License-Identifier: Apache-2.0
//
// SteadyLabel: a QLabel for text that changes many times a second (the status bar's step and
// memory counters). Its width only grows, to the widest text so far, and its size is fixed in
// between: the labels beside it stop jumping left and right as digits come and go, and a new
// text repaints the label alone instead of asking the window to lay itself out again. A font or
// style change starts over from the new text.
//
//   auto* label = new SteadyLabel(this);
//   label->setSteadyText(tr("step %1").arg(step));
#pragma once

#include <QLabel>

namespace trainscope {

class SteadyLabel : public QLabel {
  Q_OBJECT

 public:
  using QLabel::QLabel;

  void setSteadyText(const QString& text);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  QSize fixed_;  // the size the label is fixed at; invalid before the first text
};

}  // namespace trainscope
