// SPDX-License-Identifier: Apache-2.0
//
// The window on a laptop: at 1366x768, 1280x720 and 1024x700 it takes the size it is given (no
// view forces it wider or taller), every dock lies inside it and no two docks overlap, long
// headers elide instead of widening, Reset Layout fits the screen, and a window restored from
// a bigger screen comes back on this one. The real app (AppController, the device, replay and
// experiment controllers) on the demo, after training so every view has content; offscreen.
#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "app/gui/app_controller.h"
#include "tests/app/app_test_setup.h"
#include "ui/controllers/device_session_controller.h"
#include "ui/controllers/experiment_controller.h"
#include "ui/controllers/replay_controller.h"
#include "ui/widgets/main_window/main_window.h"

namespace trainscope {

struct FullApp {
  std::shared_ptr<SessionStore> store = std::make_shared<SessionStore>();
  MainWindow window;
  AppController controller{&window, store};
  DeviceSessionController device{store};
  ReplayController replay{store};
  ExperimentController experiments;

  FullApp() {
    window.setStore(store);
    device.install(&window);
    replay.setRecordingEnabled(false);
    replay.install(&window);
    experiments.install(&window);
  }
  ~FullApp() {
    if (controller.source()) controller.source()->stop();
  }
};

QString Describe(const QWidget* widget) {
  const QRect r = widget->geometry();
  return QStringLiteral("%1 at %2,%3 %4x%5 (min %6x%7)")
      .arg(widget->objectName())
      .arg(r.x())
      .arg(r.y())
      .arg(r.width())
      .arg(r.height())
      .arg(widget->minimumSizeHint().width())
      .arg(widget->minimumSizeHint().height());
}

class AppWindowSizesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(testing::PrepareAppTest(settings_dir_, &demo_),
             "a scratch settings folder and the demo (the trainscope_demo target) are needed");
  }

  void fitsALaptopScreen_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1366x768") << QSize(1366, 768);
    QTest::newRow("1280x720") << QSize(1280, 720);
    QTest::newRow("1024x700") << QSize(1024, 700);
  }

  void fitsALaptopScreen() {
    QFETCH(QSize, size);
    FullApp app;
    QVERIFY(app.controller.open(demo_).ok());
    app.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&app.window));
    // Content first: a trained session, the link health and experiments docks open.
    app.window.action(MainWindow::Command::kStepBatch)->trigger();
    QTRY_VERIFY(app.controller.source()->state() == EventSource::State::kPaused);
    app.experiments.dock()->show();
    for (QDockWidget* dock : app.window.findChildren<QDockWidget*>()) dock->show();
    app.window.resize(size);
    QTest::qWait(50);
    // A tab behind another is parked outside the window; only what is on screen counts.
    const auto shown = [](const QDockWidget* dock) {
      return dock->isVisible() && !dock->isFloating() && !dock->visibleRegion().isEmpty();
    };
    QStringList docks;
    for (const QDockWidget* dock : app.window.findChildren<QDockWidget*>()) {
      if (shown(dock)) docks << Describe(dock);
    }
    const QString layout = docks.join(QStringLiteral("\n"));
    QVERIFY2(app.window.width() <= size.width() && app.window.height() <= size.height(),
             qPrintable(QStringLiteral("the window is %1x%2 (minimum %3x%4):\n%5")
                            .arg(app.window.width())
                            .arg(app.window.height())
                            .arg(app.window.minimumSizeHint().width())
                            .arg(app.window.minimumSizeHint().height())
                            .arg(layout)));
    const QRect inside = app.window.rect();
    const QList<QDockWidget*> all = app.window.findChildren<QDockWidget*>();
    for (const QDockWidget* dock : all) {
      if (!shown(dock)) continue;
      QVERIFY2(inside.contains(dock->geometry()),
               qPrintable(Describe(dock) + QStringLiteral("\n") + layout));
      for (const QDockWidget* other : all) {
        if (other == dock || !shown(other)) continue;
        QVERIFY2(!dock->geometry().intersects(other->geometry()),
                 qPrintable(Describe(dock) + QStringLiteral(" overlaps ") + Describe(other)));
      }
    }
  }

  // The offscreen screen is 800x800: a layout saved at 1600x1000 must come back inside it, and
  // Reset Layout must size the window for it.
  void restoredAndResetWindowsFitTheScreen() {
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    QVERIFY(screen.width() < 1600 && screen.height() < 1000);
    {
      FullApp app;
      QVERIFY(app.controller.open(demo_).ok());
      app.window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&app.window));
      app.window.setGeometry(300, 200, 1600, 1000);
      QCOMPARE(app.window.width(), 1600);
      app.window.close();  // saves the geometry
    }
    FullApp restored;
    QVERIFY(restored.controller.open(demo_).ok());
    restored.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&restored.window));
    QVERIFY2(screen.contains(restored.window.frameGeometry()),
             qPrintable(QStringLiteral("%1,%2 %3x%4")
                            .arg(restored.window.x())
                            .arg(restored.window.y())
                            .arg(restored.window.width())
                            .arg(restored.window.height())));
    restored.window.resize(300, 300);
    restored.window.resetLayout();
    QCOMPARE(restored.window.size(), screen.size().boundedTo(QSize(1600, 1000)));
    for (const char* name :
         {"graphDock", "memoryDock", "layersDock", "lossDock", "gradientsDock"}) {
      auto* dock = restored.window.findChild<QDockWidget*>(QLatin1String(name));
      QVERIFY(dock != nullptr && dock->isVisible());
      QVERIFY2(restored.window.rect().contains(dock->geometry()), name);
    }
  }

  // A long header (an op name, a file name) never widens its dock: the text elides.
  void longDockTitlesDoNotWidenTheWindow() {
    FullApp app;
    QVERIFY(app.controller.open(demo_).ok());
    app.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&app.window));
    app.window.resize(1024, 700);
    const int before = app.window.minimumSizeHint().width();
    auto* dock = app.window.findChild<QDockWidget*>(QStringLiteral("layersDock"));
    dock->setWindowTitle(QStringLiteral("Layers of ") + QString(400, QLatin1Char('x')));
    QTest::qWait(20);
    QCOMPARE(app.window.minimumSizeHint().width(), before);
    QVERIFY(app.window.width() <= 1024);
  }

 private:
  QTemporaryDir settings_dir_;
  SessionFiles demo_;
};

}  // namespace trainscope

QTEST_MAIN(trainscope::AppWindowSizesTest)
#include "app_window_sizes_test.moc"
