// SPDX-License-Identifier: Apache-2.0
//
// CompareWindow: two recorded sessions side by side. Three plots overlay session A and B: live
// bytes over the latest train step (with each peak), the loss per sample, and the latest
// gradient L2 norm per trained tensor as grouped bars (log scale). Legends name each trace by
// its file name; a summary line gives both run peaks and their difference. The numbers come
// from CompareSnapshots() (compare_data.h), which tests call without a window.
//
//   auto* window = new CompareWindow;
//   QString error;
//   if (!window->loadTraces(a, b, &error)) ShowError(error);
//   window->show();
#pragma once

#include <QString>
#include <QWidget>

#include "ui/session/sources/compare_data.h"

class QCPBarsGroup;
class QCustomPlot;
class QLabel;

namespace trainscope {

class CompareWindow : public QWidget {
  Q_OBJECT

 public:
  explicit CompareWindow(QWidget* parent = nullptr);
  ~CompareWindow() override;
  QSize sizeHint() const override { return QSize(900, 820); }

  bool loadTraces(const QString& path_a, const QString& path_b, QString* error);
  void setComparison(const TraceComparison& comparison, const QString& name_a,
                     const QString& name_b);
  const TraceComparison& comparison() const { return comparison_; }

  QCustomPlot* memoryPlot() const { return memory_; }
  QCustomPlot* lossPlot() const { return loss_; }
  QCustomPlot* gradientPlot() const { return gradients_; }
  QString summaryText() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void rebuild();
  void applyTheme();

  TraceComparison comparison_;
  QString name_a_;
  QString name_b_;
  QLabel* summary_ = nullptr;
  QCustomPlot* memory_ = nullptr;
  QCustomPlot* loss_ = nullptr;
  QCustomPlot* gradients_ = nullptr;
  QCPBarsGroup* bar_group_ = nullptr;
};

}  // namespace trainscope
