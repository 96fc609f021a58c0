// SPDX-License-Identifier: Apache-2.0
//
// Every dock's view sits in a scroll area: a dock smaller than its view needs scrolls instead of
// raising the window's minimum size, so a laptop screen (1366x768, 1280x720, 1024x700) holds the
// whole layout. The view still fills the dock whenever there is room.
//
//   SetScrollingDockWidget(dock, new MemoryView);
#pragma once

class QDockWidget;
class QWidget;

namespace trainscope {

void SetScrollingDockWidget(QDockWidget* dock, QWidget* content);

}  // namespace trainscope
