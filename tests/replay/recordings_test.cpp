// SPDX-License-Identifier: Apache-2.0
//
// Recordings the user controls: the folder keeps to its total by deleting the oldest first (never
// the one being written), Recording Settings writes both limits and deletes on request, the
// status bar shows the size of the recording as it grows against its cap, and a new recording
// applies the retention rule and says so.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>

#include "tests/replay/recording_fixture.h"
#include "ui/controllers/replay_controller.h"
#include "ui/session/app_settings.h"
#include "ui/session/recordings.h"
#include "ui/session/sources/local_event_source.h"
#include "ui/session/sources/trace_recorder.h"
#include "ui/widgets/main_window/main_window.h"
#include "ui/widgets/replay/recording_settings_dialog.h"

namespace trainscope {
namespace {

// A file of `bytes` bytes whose modification time is `age_s` seconds ago.
void WriteRecording(const QString& path, qint64 bytes, int age_s) {
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(QByteArray(static_cast<int>(bytes), 'x'));
  file.close();
  ASSERT_TRUE(file.open(QIODevice::ReadWrite));
  ASSERT_TRUE(file.setFileTime(QDateTime::currentDateTime().addSecs(-age_s),
                               QFileDevice::FileModificationTime));
}

class RecordingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TestApp();
    testing::ScratchSettingsDir();
    AppSettings().remove(QStringLiteral("recording"));
    ASSERT_TRUE(dir_.isValid());
  }
  QString Path(const char* name) const { return dir_.filePath(QLatin1String(name)); }
  QTemporaryDir dir_;
};

TEST_F(RecordingsTest, TheOldestGoFirstAndTheCurrentOneStays) {
  WriteRecording(Path("a.tstrace"), 4000, 400);  // oldest
  WriteRecording(Path("b.tstrace"), 3000, 300);
  WriteRecording(Path("c.tstrace"), 2000, 200);
  WriteRecording(Path("d.tstrace"), 1000, 100);  // newest
  WriteRecording(Path("notes.txt"), 9000, 500);  // not a recording: never counted or deleted
  RecordingsUsage usage = ScanRecordings(dir_.path());
  EXPECT_EQ(usage.files, 4);
  EXPECT_EQ(usage.bytes, 10000u);
  // Within 5000 bytes: a and b would go - but a is being written, so b and c go and a stays.
  EXPECT_EQ(PruneRecordings(dir_.path(), 5000, Path("a.tstrace")), 2);
  EXPECT_TRUE(QFile::exists(Path("a.tstrace")));
  EXPECT_FALSE(QFile::exists(Path("b.tstrace")));
  EXPECT_FALSE(QFile::exists(Path("c.tstrace")));
  EXPECT_TRUE(QFile::exists(Path("d.tstrace")));
  EXPECT_TRUE(QFile::exists(Path("notes.txt")));
  EXPECT_EQ(PruneRecordings(dir_.path(), 100000, QString()), 0) << "within the limit: nothing";
  EXPECT_EQ(DeleteRecordings(dir_.path(), Path("d.tstrace")), 1);
  EXPECT_EQ(ScanRecordings(dir_.path()).files, 1);
  EXPECT_EQ(ScanRecordings(Path("missing")).files, 0);
}

TEST_F(RecordingsTest, SettingsDialogWritesBothLimitsAndDeletesOnRequest) {
  EXPECT_EQ(RecordingSettingsDialog::MaxMegabytes(), kDefaultMaxRecordingBytes >> 20);
  EXPECT_EQ(RecordingSettingsDialog::KeepMegabytes(), kDefaultKeptRecordingBytes >> 20);
  WriteRecording(Path("old.tstrace"), 5000, 100);
  WriteRecording(Path("now.tstrace"), 100, 0);
  RecordingSettingsDialog dialog(dir_.path(), Path("now.tstrace"));
  EXPECT_TRUE(dialog.usageLabel()->text().startsWith(QStringLiteral("2 recording(s), 4.98 KiB")))
      << dialog.usageLabel()->text().toStdString();
  dialog.maxSpinBox()->setValue(64);
  dialog.keepSpinBox()->setValue(512);
  dialog.accept();
  EXPECT_EQ(RecordingSettingsDialog::MaxMegabytes(), 64u);
  EXPECT_EQ(ReplayController::RecordingMaxBytesSetting(), uint64_t{64} << 20);
  EXPECT_EQ(ReplayController::RecordingKeepBytesSetting(), uint64_t{512} << 20);
  dialog.deleteRecordings();
  EXPECT_FALSE(QFile::exists(Path("old.tstrace")));
  EXPECT_TRUE(QFile::exists(Path("now.tstrace"))) << "the recording being written stays";
  EXPECT_TRUE(dialog.usageLabel()->text().startsWith(QStringLiteral("1 recording(s)")));
}

TEST_F(RecordingsTest, StatusBarShowsTheGrowingRecordingAndRetentionIsApplied) {
  // 3 MiB of old recordings in a folder allowed to keep 1 MiB.
  WriteRecording(Path("old-1.tstrace"), 1 << 20, 300);
  WriteRecording(Path("old-2.tstrace"), 1 << 20, 200);
  WriteRecording(Path("old-3.tstrace"), 1 << 20, 100);
  AppSettings().setValue(QStringLiteral("recording/keepMegabytes"), 1);
  auto store = std::make_shared<SessionStore>();
  LocalEventSource local(store);
  LocalSetup setup;
  setup.train = testing::ConvNetData(4);
  setup.options.loss = LossKind::kSparseCrossEntropy;
  ASSERT_TRUE(local.load(testing::ConvNet(), setup, QStringLiteral("convnet.circle")).ok());
  MainWindow window;
  window.setStore(store);
  window.setEventSource(&local);
  ReplayController controller(store);
  controller.setRecordingDir(dir_.path());
  controller.install(&window);
  ASSERT_NE(controller.currentRecorder(), nullptr);
  // Two old ones had to go to get within 1 MiB (the new one is still empty).
  EXPECT_EQ(ScanRecordings(dir_.path()).files, 1);
  EXPECT_TRUE(QFile::exists(Path("old-3.tstrace")));
  bool said = false;
  for (const StatusMessage& m : *store->snapshot()->messages) {
    said = said || m.text.contains(QStringLiteral("removed the 2 oldest recording(s)"));
  }
  EXPECT_TRUE(said);

  local.stepBatch();
  QElapsedTimer timer;
  timer.start();
  while (local.state() != EventSource::State::kPaused && timer.elapsed() < 5000) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  }
  controller.updateRecordingStatus();
  const uint64_t written = controller.currentRecorder()->bytesWritten();
  EXPECT_GT(written, 0u);
  const QString text = controller.recordingLabel()->text();
  EXPECT_TRUE(text.startsWith(QStringLiteral("rec ")) && text.contains(QStringLiteral(" of ")))
      << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("256 MiB"))) << text.toStdString();
  local.stop();
  controller.setRecordingEnabled(false);
  controller.updateRecordingStatus();
  EXPECT_EQ(controller.recordingLabel()->text(), QStringLiteral("not recording"));
  window.setEventSource(nullptr);
}

}  // namespace
}  // namespace trainscope
