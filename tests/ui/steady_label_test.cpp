// SPDX-License-Identifier: Apache-2.0
//
// A status-bar counter changes text many times a second; only a text wider than any before may
// make the window lay itself out again.
#include <QHBoxLayout>
#include <QTest>
#include <QWidget>

#include "ui/widgets/common/steady_label.h"

namespace trainscope {
namespace {

// Counts the layout requests a widget receives.
class LayoutRequests : public QObject {
 public:
  int count = 0;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::LayoutRequest) ++count;
    return QObject::eventFilter(watched, event);
  }
};

}  // namespace

class SteadyLabelTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aNarrowerOrEqualTextLaysNothingOutAgain() {
    QWidget window;
    auto* layout = new QHBoxLayout(&window);
    auto* label = new SteadyLabel;
    layout->addWidget(label);
    label->setSteadyText(QStringLiteral("step 100"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
    const int wide = label->width();

    LayoutRequests requests;
    window.installEventFilter(&requests);
    for (int step = 101; step < 200; ++step) {
      label->setSteadyText(QStringLiteral("step %1").arg(step));
      QCoreApplication::processEvents();
    }
    label->setSteadyText(QStringLiteral("step 1"));  // narrower: the width stays
    QCoreApplication::processEvents();
    QCOMPARE(requests.count, 0);
    QCOMPARE(label->width(), wide);
    QCOMPARE(label->text(), QStringLiteral("step 1"));

    label->setSteadyText(QStringLiteral("step 100000000"));  // wider: the label grows once
    QCoreApplication::processEvents();
    QVERIFY(requests.count >= 1);
    QVERIFY(label->width() > wide);
  }

  // A plain QLabel in the same place asks for a layout on every change of width: what the
  // steady one avoids.
  void aPlainLabelWouldAskEveryTime() {
    QWidget window;
    auto* layout = new QHBoxLayout(&window);
    auto* label = new QLabel(QStringLiteral("step 1"));
    layout->addWidget(label);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
    LayoutRequests requests;
    window.installEventFilter(&requests);
    for (const char* text : {"step 22", "step 1", "step 333", "step 4"}) {
      label->setText(QString::fromLatin1(text));
      QCoreApplication::processEvents();
    }
    QVERIFY(requests.count >= 3);
  }

  void aFontChangeStartsOverFromTheNewText() {
    SteadyLabel label;
    label.setSteadyText(QStringLiteral("memory 1.0 MiB"));
    const int before = label.width();
    QFont font = label.font();
    font.setPointSizeF(font.pointSizeF() * 2);
    label.setFont(font);
    QVERIFY(label.width() > before);
    QCOMPARE(label.width(), label.sizeHint().width());
  }
};

}  // namespace trainscope

QTEST_MAIN(trainscope::SteadyLabelTest)
#include "steady_label_test.moc"
