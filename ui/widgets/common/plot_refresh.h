// SPDX-License-Identifier: Apache-2.0
//
// ReplotWhenVisible: queue a replot of a plot now if it is on screen, else when it is shown.
// A plot in a hidden tab or dock still renders all its layers on replot(); while a source runs at
// full speed that was GUI-thread time spent on pixels nobody sees. The data is set as usual;
// only the rendering waits for the plot's next Show event.
//
//   graph->setData(keys, values, true);
//   ReplotWhenVisible(plot);
#pragma once

class QCustomPlot;

namespace trainscope {

void ReplotWhenVisible(QCustomPlot* plot);
// Whether a replot of `plot` is waiting for it to be shown (for tests).
bool HasDeferredReplot(const QCustomPlot* plot);

}  // namespace trainscope
