// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/common/steady_label.h"

#include <QEvent>

#include <algorithm>

namespace trainscope {

void SteadyLabel::setSteadyText(const QString& text) {
  if (text == this->text() && fixed_.isValid()) return;
  setText(text);  // while the size is fixed, this posts no layout request
  const QSize hint = sizeHint();
  if (fixed_.isValid() && hint.width() <= fixed_.width() && hint.height() == fixed_.height()) {
    return;
  }
  fixed_ = QSize(std::max(hint.width(), fixed_.isValid() ? fixed_.width() : 0), hint.height());
  setFixedSize(fixed_);
}

void SteadyLabel::changeEvent(QEvent* event) {
  QLabel::changeEvent(event);
  if (event->type() != QEvent::FontChange && event->type() != QEvent::StyleChange) return;
  fixed_ = QSize();
  setMinimumSize(0, 0);
  setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
  setSteadyText(text());
}

}  // namespace trainscope
