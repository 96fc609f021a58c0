// SPDX-License-Identifier: Apache-2.0
//
// scripts/run-qemu-board.sh as a child process for the firmware tests: it builds the firmware for
// a run (minutes on a cold cache) and starts QEMU; the endpoint is its first stdout line. The
// script is stopped when the object goes away, and it stops QEMU by PID on its way out.
//
//   SKIP_WITHOUT_QEMU();
//   QemuBoard board(run_arguments, QStringLiteral("mps2-an386"));
//   ASSERT_TRUE(board.error().isEmpty()) << qPrintable(board.error());
//   RunCli({QStringLiteral("attach"), board.endpoint(), ...});
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#include <cstdlib>

namespace trainscope::testing {

// The first tool the firmware tests need that is not installed, or empty.
QString MissingQemuTool();
// Whether a missing tool fails the tests (TRAINSCOPE_REQUIRE_QEMU is set, as in CI) or skips them.
inline bool QemuRequired() {
  return std::getenv("TRAINSCOPE_REQUIRE_QEMU") != nullptr;
}

// The demo run both the board and the host train.
QStringList DemoRunFor(int epochs);

class QemuBoard {
 public:
  QemuBoard(const QStringList& run, const QString& board);
  ~QemuBoard();
  QemuBoard(const QemuBoard&) = delete;
  QemuBoard& operator=(const QemuBoard&) = delete;

  const QString& endpoint() const { return endpoint_; }  // "tcp://127.0.0.1:PORT"
  const QString& error() const { return error_; }
  QString log() const;  // what the firmware printed on its log UART

 private:
  QProcess process_;
  QString endpoint_;
  QString error_;
  QString log_;
};

}  // namespace trainscope::testing
