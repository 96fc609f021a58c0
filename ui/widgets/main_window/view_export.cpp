// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/main_window/view_export.h"

#include <QAbstractItemModel>
#include <QApplication>
#include <QBuffer>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTableView>

#include <algorithm>
#include <functional>

#include "engine/model/file_io.h"
#include "ui/widgets/common/qcustomplot_include.h"
#include "ui/widgets/gradients/gradients_view.h"
#include "ui/widgets/graph/graph_view.h"
#include "ui/widgets/layers/layers_panel.h"
#include "ui/widgets/loss/loss_view.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/memory/memory_view.h"

namespace trainscope {
namespace {

using Draw = std::function<void(QCPPainter* painter)>;

constexpr int kMaxPngSide = 8192;

// Renders `draw` in memory in the format the suffix of `path` names, then writes it atomically.
bool RenderToFile(const QString& path, QSize size, const QColor& background, const Draw& draw,
                  QString* error) {
  const ImageFormat format = ImageFormatOfPath(path);
  if (format == ImageFormat::kUnknown) {
    *error = QStringLiteral("%1: choose a .png, .svg or .pdf file name").arg(path);
    return false;
  }
  size = size.expandedTo(QSize(1, 1));
  QByteArray bytes;
  QBuffer file(&bytes);
  file.open(QIODevice::WriteOnly);
  // SVG and PDF: the same vector drawing on a different device.
  const auto paint_vectors = [&](QPaintDevice* device) {
    QCPPainter painter;
    if (!painter.begin(device)) return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.fillRect(QRect(QPoint(0, 0), size), background);
    draw(&painter);
    return painter.end();
  };
  bool drawn = true;
  if (format == ImageFormat::kPng) {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(background);
    {
      QCPPainter painter(&image);
      painter.setRenderHint(QPainter::Antialiasing);
      draw(&painter);
    }
    drawn = image.save(&file, "PNG");
  } else if (format == ImageFormat::kSvg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(QFileInfo(path).completeBaseName());
    drawn = paint_vectors(&svg);
  } else {
    QPdfWriter pdf(&file);
    pdf.setResolution(72);  // one painter unit = one point = one screen pixel of the view
    pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setCreator(QStringLiteral("TrainScope"));
    pdf.setTitle(QFileInfo(path).completeBaseName());
    drawn = paint_vectors(&pdf);
  }
  file.close();
  if (!drawn) {
    *error = QStringLiteral("%1: rendering failed").arg(path);
    return false;
  }
  const Status written =
      WriteFileAtomically(path.toStdString(), reinterpret_cast<const uint8_t*>(bytes.constData()),
                          static_cast<size_t>(bytes.size()));
  if (!written.ok()) *error = QString::fromUtf8(written.message());
  return written.ok();
}

QString CsvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n'))) {
    return text;
  }
  QString quoted = text;
  quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

// The plot a view shows right now (hidden tab pages do not count).
QCustomPlot* ShownPlot(QWidget* view) {
  const QList<QCustomPlot*> plots = view->findChildren<QCustomPlot*>();
  for (QCustomPlot* plot : plots) {
    if (plot->isVisibleTo(view)) return plot;
  }
  return plots.isEmpty() ? nullptr : plots.front();
}

QString AskPath(QWidget* parent, const QString& title, const QString& filters) {
  return QFileDialog::getSaveFileName(parent, title, QString(), filters);
}

const QString kImageFilters =
    QStringLiteral("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");

void Report(QWidget* parent, bool ok, const QString& error) {
  if (!ok) QMessageBox::warning(parent, QObject::tr("Export failed"), error);
}

void ExportViewInteractively(QWidget* view, GraphView* graph_view) {
  const QString path = AskPath(view, QObject::tr("Export View"), kImageFilters);
  if (path.isEmpty()) return;
  QString error;
  bool ok = false;
  if (graph_view != nullptr) {
    ok = ExportScene(graph_view->canvas()->scene(), path, &error);
  } else if (QCustomPlot* plot = ShownPlot(view)) {
    ok = ExportPlot(plot, path, &error);
  } else {
    error = QObject::tr("this view has nothing to export");
  }
  Report(view, ok, error);
}

void ExportCsvInteractively(QWidget* parent, const std::function<QString()>& csv) {
  const QString path = AskPath(parent, QObject::tr("Export CSV"), QStringLiteral("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  Report(parent, WriteTextFile(path, csv(), &error), error);
}

// Adds `actions` to a custom context menu of `widget`.
void AddContextMenu(QWidget* widget, const std::function<void(QMenu*)>& fill) {
  widget->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(widget, &QWidget::customContextMenuRequested, widget,
                   [widget, fill](const QPoint& at) {
                     QMenu menu(widget);
                     fill(&menu);
                     menu.exec(widget->mapToGlobal(at));
                   });
}

}  // namespace

ImageFormat ImageFormatOfPath(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return ImageFormat::kPng;
  if (suffix == QLatin1String("svg")) return ImageFormat::kSvg;
  if (suffix == QLatin1String("pdf")) return ImageFormat::kPdf;
  return ImageFormat::kUnknown;
}

bool ExportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size) {
  if (size.isEmpty()) size = plot->size();
  if (size.width() < 50 || size.height() < 50) size = QSize(400, 300);  // never laid out
  const QColor background = plot->palette().color(QPalette::Base);
  return RenderToFile(
      path, size, background,
      [plot, size](QCPPainter* painter) { plot->toPainter(painter, size.width(), size.height()); },
      error);
}

bool ExportScene(QGraphicsScene* scene, const QString& path, QString* error) {
  QRectF source = scene->itemsBoundingRect().adjusted(-16, -16, 16, 16);
  if (source.isEmpty()) source = QRectF(0, 0, 320, 240);
  QSize size = source.size().toSize();
  if (ImageFormatOfPath(path) == ImageFormat::kPng) {
    size = size.boundedTo(QSize(kMaxPngSide, kMaxPngSide));
  }
  const QColor background = scene->backgroundBrush().style() != Qt::NoBrush
                                ? scene->backgroundBrush().color()
                                : QApplication::palette().color(QPalette::Base);
  return RenderToFile(
      path, size, background,
      [scene, source, size](QCPPainter* painter) {
        scene->render(painter, QRectF(QPointF(0, 0), QSizeF(size)), source, Qt::KeepAspectRatio);
      },
      error);
}

QString ModelToCsv(const QAbstractItemModel& model) {
  QString out;
  const int columns = model.columnCount();
  QStringList header;
  for (int c = 0; c < columns; ++c) {
    header << CsvField(model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
  }
  out += header.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < columns; ++c) {
      const QModelIndex index = model.index(r, c);
      QVariant value = model.data(index, Qt::DisplayRole);
      // Checkbox columns have no display text; their state is the content.
      if (!value.isValid()) {
        const QVariant check = model.data(index, Qt::CheckStateRole);
        if (check.isValid()) {
          value = check.toInt() == Qt::Checked ? QStringLiteral("yes") : QStringLiteral("no");
        }
      }
      row << CsvField(value.toString());
    }
    out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return out;
}

QString GradientStatsToCsv(const SessionSnapshot& snapshot, const Graph* graph) {
  QString out = QStringLiteral(
      "op,tensor,name,optimizer_step,l2,max_abs,mean,nan_count,inf_count,update_ratio\n");
  for (const TensorGradient& t : snapshot.tensors) {
    if (!t.has_stats) continue;
    QString name;
    if (graph != nullptr && !graph->subgraphs.empty() && t.tensor >= 0 &&
        static_cast<size_t>(t.tensor) < graph->main().tensors.size()) {
      name = QString::fromStdString(graph->main().tensors[static_cast<size_t>(t.tensor)].name);
    }
    out += QStringList{QString::number(t.op_index),
                       QString::number(t.tensor),
                       CsvField(name),
                       QString::number(t.stats.optimizer_step),
                       QString::number(static_cast<double>(t.stats.l2), 'g', 9),
                       QString::number(static_cast<double>(t.stats.max_abs), 'g', 9),
                       QString::number(static_cast<double>(t.stats.mean), 'g', 9),
                       QString::number(t.stats.nan_count),
                       QString::number(t.stats.inf_count),
                       t.has_ratio ? QString::number(static_cast<double>(t.ratio.ratio), 'g', 9)
                                   : QString()}
               .join(QLatin1Char(',')) +
           QLatin1Char('\n');
  }
  return out;
}

bool WriteTextFile(const QString& path, const QString& text, QString* error) {
  const QByteArray bytes = text.toUtf8();
  const Status written =
      WriteFileAtomically(path.toStdString(), reinterpret_cast<const uint8_t*>(bytes.constData()),
                          static_cast<size_t>(bytes.size()));
  if (!written.ok()) *error = QString::fromUtf8(written.message());
  return written.ok();
}

void InstallViewExports(MainWindow* window) {
  const QString image_text = QObject::tr("Export as PNG/SVG/PDF…");
  auto gradient_csv = [window] {
    EventSource* source = window->eventSource();
    return source ? GradientStatsToCsv(*source->store()->snapshot(), nullptr)
                  : GradientStatsToCsv(SessionSnapshot(), nullptr);
  };
  for (QWidget* view : std::initializer_list<QWidget*>{window->memoryView(), window->lossView(),
                                                       window->gradientsView()}) {
    const bool gradients = view == window->gradientsView();
    for (QCustomPlot* plot : view->findChildren<QCustomPlot*>()) {
      AddContextMenu(plot, [plot, view, image_text, gradients, gradient_csv](QMenu* menu) {
        menu->addAction(image_text, plot, [plot] {
          const QString path = AskPath(plot, QObject::tr("Export Plot"), kImageFilters);
          QString error;
          if (!path.isEmpty()) Report(plot, ExportPlot(plot, path, &error), error);
        });
        if (gradients) {
          menu->addAction(QObject::tr("Export Gradient Stats as CSV…"), view,
                          [view, gradient_csv] { ExportCsvInteractively(view, gradient_csv); });
        }
      });
    }
  }
  GraphView* graph = window->graphView();
  AddContextMenu(graph->canvas(), [graph, image_text](QMenu* menu) {
    menu->addAction(image_text, graph, [graph] { ExportViewInteractively(graph, graph); });
  });
  QTableView* table = window->layersPanel()->table();
  AddContextMenu(table, [table](QMenu* menu) {
    menu->addAction(QObject::tr("Export Table as CSV…"), table, [table] {
      ExportCsvInteractively(table, [table] { return ModelToCsv(*table->model()); });
    });
  });

  QMenu* view_menu = window->menu(MainWindow::Menu::kView);
  view_menu->addSeparator();
  QAction* export_view = view_menu->addAction(QObject::tr("&Export Current View…"));
  export_view->setObjectName(QStringLiteral("exportCurrentViewAction"));
  QObject::connect(export_view, &QAction::triggered, window, [window] {
    QWidget* focus = QApplication::focusWidget();
    QWidget* views[] = {window->graphView(), window->memoryView(), window->gradientsView(),
                        window->lossView(), window->layersPanel()};
    QWidget* chosen = nullptr;
    for (QWidget* view : views) {
      if (focus != nullptr && (view == focus || view->isAncestorOf(focus))) chosen = view;
    }
    for (QWidget* view : views) {
      if (chosen == nullptr && view->isVisible()) chosen = view;
    }
    if (chosen == nullptr) return;
    if (chosen == window->layersPanel()) {
      QTableView* layers = window->layersPanel()->table();
      ExportCsvInteractively(window, [layers] { return ModelToCsv(*layers->model()); });
    } else {
      ExportViewInteractively(chosen,
                              chosen == window->graphView() ? window->graphView() : nullptr);
    }
  });
}

}  // namespace trainscope
