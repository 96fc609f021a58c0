// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/common/dock_content.h"

#include <QDockWidget>
#include <QScrollArea>

namespace trainscope {

void SetScrollingDockWidget(QDockWidget* dock, QWidget* content) {
  auto* area = new QScrollArea(dock);
  area->setObjectName(dock->objectName() + QStringLiteral("Scroll"));
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  area->setWidget(content);
  dock->setWidget(area);
}

}  // namespace trainscope
