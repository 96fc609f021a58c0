// SPDX-License-Identifier: Apache-2.0
//
// MainWindow: the Help menu - every shortcut (listed from the window's own actions, so the list
// cannot drift from the menus), the documentation and About.
#include <QAction>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

#include "ui/widgets/main_window/main_window.h"

namespace trainscope {
namespace {

// The documentation beside the program: the installed package's, else the source tree's.
QString DocumentationDir() {
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& candidate : {here.filePath(QStringLiteral("../share/doc/trainscope")),
                                   here.filePath(QStringLiteral("../../../docs")),
                                   here.filePath(QStringLiteral("../../docs"))}) {
    if (QFileInfo(candidate).isDir()) return QDir(candidate).absolutePath();
  }
  return QString();
}

void CollectShortcuts(const QMenu* menu, const QString& path, QList<QPair<QString, QString>>* out) {
  for (QAction* action : menu->actions()) {
    if (action->isSeparator()) continue;
    const QString name = path + QStringLiteral(" > ") + action->text().remove(QLatin1Char('&'));
    if (action->menu() != nullptr) {
      CollectShortcuts(action->menu(), name, out);
    } else if (!action->shortcut().isEmpty()) {
      out->append({name, action->shortcut().toString(QKeySequence::NativeText)});
    }
  }
}

}  // namespace

QList<QPair<QString, QString>> MainWindow::shortcuts() const {
  QList<QPair<QString, QString>> found;
  for (QAction* top : menuBar()->actions()) {
    if (top->menu() != nullptr && top->isVisible()) {
      CollectShortcuts(top->menu(), top->text().remove(QLatin1Char('&')), &found);
    }
  }
  return found;
}

void MainWindow::createHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard Shortcuts…"), this, [this] {
    const QList<QPair<QString, QString>> list = shortcuts();
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Keyboard Shortcuts"));
    auto* table = new QTableWidget(static_cast<int>(list.size()), 2, &dialog);
    table->setHorizontalHeaderLabels({tr("Command"), tr("Shortcut")});
    table->verticalHeader()->setVisible(false);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int row = 0; row < list.size(); ++row) {
      table->setItem(row, 0, new QTableWidgetItem(list[row].first));
      table->setItem(row, 1, new QTableWidgetItem(list[row].second));
    }
    table->resizeColumnsToContents();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog.resize(520, 480);
    dialog.exec();
  });
  keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
  QAction* docs = help->addAction(tr("&Documentation"), this, [] {
    const QString dir = DocumentationDir();
    if (!dir.isEmpty()) QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
  });
  docs->setShortcut(QKeySequence::HelpContents);
  const QString docs_dir = DocumentationDir();
  docs->setEnabled(!docs_dir.isEmpty());
  docs->setStatusTip(docs_dir.isEmpty() ? tr("No documentation was installed beside the program")
                                        : QDir::toNativeSeparators(docs_dir));
  help->addSeparator();
  help->addAction(tr("&About TrainScope"), this, [this] {
    QMessageBox::about(
        this, tr("About TrainScope"),
        tr("<b>TrainScope %1</b><p>A visual debugger for on-device training with onert-micro's "
           "semantics: the backward pass op by op, trainable layers, arena memory and gradients, "
           "from the embedded engine, a board over a serial port, or a recording.</p>"
           "<p>Built with Qt %2, QCustomPlot, FlatBuffers and libserialport.</p>")
            .arg(QCoreApplication::applicationVersion(), QLatin1String(qVersion())));
  });
}

}  // namespace trainscope
