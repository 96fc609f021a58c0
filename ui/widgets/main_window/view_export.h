// SPDX-License-Identifier: Apache-2.0
//
// Exporting what a view shows: plots (QCustomPlot) and the graph (a QGraphicsScene) as PNG, SVG
// or PDF, chosen by the file suffix; tables (any QAbstractItemModel, e.g. the layers panel) and
// the gradient statistics of the latest optimizer step as CSV. Every writer goes through
// QSaveFile: the data lands in a temporary file that is renamed over the target only when
// complete, so a failed export never leaves a half-written file or a stray temporary behind.
//
// InstallViewExports() adds the user-facing part to a MainWindow without the views knowing:
// "Export as PNG/SVG/PDF…" context menus on every plot and on the graph, "Export as CSV…" on the
// layers table, and View > Export Current View… (the view holding the focus, else the first
// visible one).
//
//   QString error;
//   if (!ExportPlot(view.plot(), "loss.svg", &error)) ShowError(error);
//   InstallViewExports(&window);
#pragma once

#include <QSize>
#include <QString>

#include <memory>

#include "engine/model/graph.h"
#include "ui/session/session_snapshot.h"

class QAbstractItemModel;
class QCustomPlot;
class QGraphicsScene;
class QWidget;

namespace trainscope {

class MainWindow;

enum class ImageFormat { kPng, kSvg, kPdf, kUnknown };
ImageFormat ImageFormatOfPath(const QString& path);  // by suffix, case-insensitive

// `size` empty: the plot's current size (at least 400x300 when it was never shown).
bool ExportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size = QSize());
// The whole scene, at scale 1 (PNG at most 8192 px a side).
bool ExportScene(QGraphicsScene* scene, const QString& path, QString* error);

// Display text of every cell, the horizontal header first; RFC 4180 quoting.
QString ModelToCsv(const QAbstractItemModel& model);
// One row per trained tensor with stats: op, tensor, name, optimizer step, l2, max |g|, mean,
// NaN and Inf counts, update ratio. `graph` (may be null) names the tensors.
QString GradientStatsToCsv(const SessionSnapshot& snapshot, const Graph* graph);
bool WriteTextFile(const QString& path, const QString& text, QString* error);

void InstallViewExports(MainWindow* window);

}  // namespace trainscope
