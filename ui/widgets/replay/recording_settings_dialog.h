// SPDX-License-Identifier: Apache-2.0
//
// File > Recording Settings: how large one recording may grow, how much the recordings folder
// keeps (the oldest go first when a new recording starts), what it holds now, and a button that
// deletes every recording but the one being written. The values are MiB in the app's settings
// (recording/maxMegabytes, recording/keepMegabytes); accept() writes them.
//
//   RecordingSettingsDialog dialog(dir, current_path, window);
//   if (dialog.exec() == QDialog::Accepted) ...  // the new limits apply to the next recording
#pragma once

#include <QDialog>

#include <cstdint>

class QLabel;
class QPushButton;
class QSpinBox;

namespace trainscope {

class RecordingSettingsDialog : public QDialog {
  Q_OBJECT

 public:
  RecordingSettingsDialog(QString dir, QString current_recording, QWidget* parent = nullptr);

  // The settings as MiB (what the spin boxes start from and accept() writes).
  static uint64_t MaxMegabytes();
  static uint64_t KeepMegabytes();

  QSpinBox* maxSpinBox() const { return max_; }
  QSpinBox* keepSpinBox() const { return keep_; }
  QLabel* usageLabel() const { return usage_; }
  QPushButton* deleteButton() const { return delete_; }
  // Deletes every recording but the current one and shows what is left.
  void deleteRecordings();

 public Q_SLOTS:
  void accept() override;

 private:
  void showUsage();

  QString dir_;
  QString current_;
  QSpinBox* max_ = nullptr;
  QSpinBox* keep_ = nullptr;
  QLabel* usage_ = nullptr;
  QPushButton* delete_ = nullptr;
};

}  // namespace trainscope
