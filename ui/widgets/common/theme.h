// SPDX-License-Identifier: Apache-2.0
//
// ViewTheme: every colour the views paint with, derived from the widget palette so the views
// follow the system's light or dark scheme (and switch when the palette changes). Data colours
// (memory categories, trainability, the metric ramp) come in a light and a dark variant that stay
// distinguishable for the common forms of colour blindness.
//
//   const ViewTheme theme = ViewTheme::fromPalette(palette());
//   ApplyPlotTheme(plot, theme);
//   brush.setColor(theme.category(MemoryCategory::kWeightGradient));
#pragma once

#include <QColor>
#include <QPalette>

#include <array>

#include "engine/core/events.h"

class QCustomPlot;
class QCPAxis;

namespace trainscope {

struct ViewTheme {
  bool dark = false;
  QColor background;
  QColor surface;  // node fill, panels
  QColor text;
  QColor muted_text;
  QColor grid;
  QColor border;
  QColor accent;  // the current backward op, cursors
  QColor done;    // ops whose backward finished this sample
  QColor selection;
  QColor trainable;  // rank ALL
  QColor only_bias;
  QColor half_rank;  // UP_1_2_PART and LOWER_1_2_PART
  QColor frozen;     // in the backward range, weights not updated
  QColor outside;    // not in the backward range at all
  QColor error;      // NaN/Inf
  QColor warning;
  QColor peak;
  QColor budget;
  std::array<QColor, kMemoryCategoryCount> categories;

  QColor category(MemoryCategory c) const {
    return categories[static_cast<size_t>(c) % categories.size()];
  }
  QColor rankColor(TrainRank rank) const;

  static ViewTheme fromPalette(const QPalette& palette);
};

bool IsDarkPalette(const QPalette& palette);

// A perceptually ordered ramp (dark blue -> green -> yellow) for t in [0, 1].
QColor RampColor(double t);

// Backgrounds, axes, grids, legend and text colours of a plot.
void ApplyPlotTheme(QCustomPlot* plot, const ViewTheme& theme);
void ApplyAxisTheme(QCPAxis* axis, const ViewTheme& theme);

// Moves the plot's legend out of the data area into a row above it, `columns` entries wide.
void PlaceLegendAbove(QCustomPlot* plot, int columns);

// The palettes the main window installs when the user overrides the system scheme.
QPalette LightPalette();
QPalette DarkPalette();

}  // namespace trainscope
