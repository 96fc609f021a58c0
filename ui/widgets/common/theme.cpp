// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/common/theme.h"

#include <algorithm>
#include <cmath>

#include "ui/widgets/common/qcustomplot_include.h"

namespace trainscope {

bool IsDarkPalette(const QPalette& palette) {
  return palette.color(QPalette::Window).lightness() < 128;
}

QColor ViewTheme::rankColor(TrainRank rank) const {
  switch (rank) {
    case TrainRank::kAll:
      return trainable;
    case TrainRank::kOnlyBias:
      return only_bias;
    case TrainRank::kUpperHalf:
    case TrainRank::kLowerHalf:
      return half_rank;
  }
  return trainable;
}

ViewTheme ViewTheme::fromPalette(const QPalette& palette) {
  ViewTheme theme;
  theme.dark = IsDarkPalette(palette);
  theme.background = palette.color(QPalette::Base);
  theme.surface = palette.color(QPalette::Window);
  theme.text = palette.color(QPalette::WindowText);
  theme.muted_text = palette.color(QPalette::PlaceholderText);
  theme.selection = palette.color(QPalette::Highlight);
  if (theme.dark) {
    theme.grid = QColor(255, 255, 255, 28);
    theme.border = QColor(150, 150, 160);
    theme.accent = QColor(255, 176, 0);
    theme.done = QColor(86, 180, 233);
    theme.trainable = QColor(64, 160, 120);
    theme.only_bias = QColor(120, 150, 200);
    theme.half_rank = QColor(190, 140, 60);
    theme.frozen = QColor(80, 84, 92);
    theme.outside = QColor(52, 54, 60);
    theme.error = QColor(255, 85, 85);
    theme.warning = QColor(240, 200, 70);
    theme.peak = QColor(255, 120, 120);
    theme.budget = QColor(240, 200, 70);
    theme.categories = {QColor(150, 150, 170), QColor(86, 180, 233), QColor(0, 158, 115),
                        QColor(230, 159, 0),   QColor(213, 94, 0),   QColor(204, 121, 167),
                        QColor(240, 228, 66),  QColor(120, 120, 120)};
  } else {
    theme.grid = QColor(0, 0, 0, 26);
    theme.border = QColor(120, 120, 130);
    theme.accent = QColor(230, 120, 0);
    theme.done = QColor(0, 114, 178);
    theme.trainable = QColor(150, 215, 180);
    theme.only_bias = QColor(175, 200, 235);
    theme.half_rank = QColor(240, 205, 140);
    theme.frozen = QColor(218, 218, 222);
    theme.outside = QColor(240, 240, 242);
    theme.error = QColor(210, 30, 30);
    theme.warning = QColor(200, 140, 0);
    theme.peak = QColor(200, 40, 40);
    theme.budget = QColor(170, 110, 0);
    theme.categories = {QColor(120, 120, 140), QColor(86, 180, 233), QColor(0, 158, 115),
                        QColor(230, 159, 0),   QColor(213, 94, 0),   QColor(204, 121, 167),
                        QColor(190, 175, 20),  QColor(160, 160, 160)};
  }
  if (!theme.muted_text.isValid() || theme.muted_text == theme.text) {
    theme.muted_text = theme.dark ? QColor(160, 160, 170) : QColor(100, 100, 110);
  }
  return theme;
}

QColor RampColor(double t) {
  // Anchors of a viridis-like ramp; linear interpolation between them.
  static const QColor kStops[] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140),
                                  QColor(94, 201, 98), QColor(253, 231, 37)};
  constexpr int kLast = 4;
  if (!std::isfinite(t)) t = 0.0;
  t = std::clamp(t, 0.0, 1.0) * kLast;
  const int i = std::min(kLast - 1, static_cast<int>(t));
  const double f = t - i;
  const QColor& a = kStops[i];
  const QColor& b = kStops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

void ApplyAxisTheme(QCPAxis* axis, const ViewTheme& theme) {
  axis->setBasePen(QPen(theme.border));
  axis->setTickPen(QPen(theme.border));
  axis->setSubTickPen(QPen(theme.border));
  axis->setTickLabelColor(theme.text);
  axis->setLabelColor(theme.text);
  axis->grid()->setPen(QPen(theme.grid, 0, Qt::SolidLine));
  axis->grid()->setSubGridPen(Qt::NoPen);
  axis->grid()->setZeroLinePen(Qt::NoPen);
}

void ApplyPlotTheme(QCustomPlot* plot, const ViewTheme& theme) {
  plot->setBackground(QBrush(theme.background));
  for (QCPAxisRect* rect : plot->axisRects()) {
    rect->setBackground(QBrush(theme.background));
    for (QCPAxis* axis : rect->axes()) ApplyAxisTheme(axis, theme);
  }
  plot->legend->setBrush(QBrush(theme.background));
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setTextColor(theme.text);
}

void PlaceLegendAbove(QCustomPlot* plot, int columns) {
  QCPLegend* legend = plot->legend;
  if (QCPLayoutInset* inset = plot->axisRect()->insetLayout();
      inset->elements(false).contains(legend)) {
    inset->take(legend);
    inset->simplify();
  }
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, legend);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(columns);
  legend->setVisible(true);
  legend->setMargins(QMargins(4, 2, 4, 2));
  legend->setRowSpacing(0);
  plot->plotLayout()->setRowStretchFactor(0, 0.001);
}

QPalette LightPalette() {
  QPalette palette;
  palette.setColor(QPalette::Window, QColor(246, 246, 248));
  palette.setColor(QPalette::WindowText, QColor(24, 24, 28));
  palette.setColor(QPalette::Base, QColor(255, 255, 255));
  palette.setColor(QPalette::AlternateBase, QColor(240, 240, 244));
  palette.setColor(QPalette::Text, QColor(24, 24, 28));
  palette.setColor(QPalette::Button, QColor(240, 240, 244));
  palette.setColor(QPalette::ButtonText, QColor(24, 24, 28));
  palette.setColor(QPalette::ToolTipBase, QColor(255, 255, 230));
  palette.setColor(QPalette::ToolTipText, QColor(24, 24, 28));
  palette.setColor(QPalette::PlaceholderText, QColor(110, 110, 120));
  palette.setColor(QPalette::Highlight, QColor(48, 120, 210));
  palette.setColor(QPalette::HighlightedText, Qt::white);
  return palette;
}

QPalette DarkPalette() {
  QPalette palette;
  palette.setColor(QPalette::Window, QColor(40, 42, 46));
  palette.setColor(QPalette::WindowText, QColor(226, 226, 230));
  palette.setColor(QPalette::Base, QColor(30, 31, 34));
  palette.setColor(QPalette::AlternateBase, QColor(44, 46, 50));
  palette.setColor(QPalette::Text, QColor(226, 226, 230));
  palette.setColor(QPalette::Button, QColor(48, 50, 54));
  palette.setColor(QPalette::ButtonText, QColor(226, 226, 230));
  palette.setColor(QPalette::ToolTipBase, QColor(56, 58, 64));
  palette.setColor(QPalette::ToolTipText, QColor(226, 226, 230));
  palette.setColor(QPalette::PlaceholderText, QColor(150, 150, 160));
  palette.setColor(QPalette::Highlight, QColor(70, 130, 220));
  palette.setColor(QPalette::HighlightedText, Qt::white);
  palette.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 128));
  palette.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 128));
  palette.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 128));
  return palette;
}

}  // namespace trainscope
