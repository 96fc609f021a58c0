// SPDX-License-Identifier: Apache-2.0
//
// Runs trainscope-board-sim on a model (the demo unless told) as a child process for the
// end-to-end tests, and reads the endpoint it announces on its first stdout line. The process is
// killed when the object goes away, so a failing test never leaves a simulator behind.
//
//   BoardSimProcess sim({QStringLiteral("--tcp"), QStringLiteral("0")});
//   ASSERT_TRUE(sim.started()) << sim.error();
//   RunCli({QStringLiteral("attach"), sim.endpoint(), ...});
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#include <cstdint>

namespace trainscope::testing {

QString DemoFile(const char* name);
// Training samples of the demo (its label file holds one float per sample).
int DemoSampleCount();

// FNV-1a 64 of a file's bytes as 16 hex digits, computed here independently of the protocol code.
QString FileHashHex(const QString& path);

// The model, data and training options a simulator and the desktop side both get.
struct SimRun {
  QString model;
  QString input;
  QString target;
  QStringList training;  // --loss ... --batch ... (no --epochs)
  // MODEL --input F --target F and the training options, as train, diff and the simulator take.
  QStringList Arguments() const;
};
SimRun DemoRun();  // the demo with sparse cross-entropy

class BoardSimProcess {
 public:
  // `extra` comes after the demo model, data and "--loss sparse-ce --epochs 100000".
  explicit BoardSimProcess(const QStringList& extra, int timeout_ms = 10000);
  // `extra` comes after the run's arguments and "--epochs 100000".
  BoardSimProcess(const SimRun& run, const QStringList& extra, int timeout_ms = 10000);
  ~BoardSimProcess();
  BoardSimProcess(const BoardSimProcess&) = delete;
  BoardSimProcess& operator=(const BoardSimProcess&) = delete;

  bool started() const { return !endpoint_.isEmpty(); }
  const QString& error() const { return error_; }
  // What attach takes: "/dev/pts/N" or "tcp://127.0.0.1:PORT".
  const QString& endpoint() const { return endpoint_; }

 private:
  QProcess process_;
  QString endpoint_;
  QString error_;
};

}  // namespace trainscope::testing
