// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/replay/recording_settings_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <utility>

#include "ui/session/app_settings.h"
#include "ui/session/recordings.h"
#include "ui/session/sources/trace_recorder.h"
#include "ui/widgets/common/format.h"

namespace trainscope {
namespace {

const QString kMaxKey = QStringLiteral("recording/maxMegabytes");
const QString kKeepKey = QStringLiteral("recording/keepMegabytes");
constexpr int kLargestMegabytes = 1 << 20;  // 1 TiB

uint64_t Megabytes(const QString& key, uint64_t fallback_bytes) {
  bool ok = false;
  const qlonglong value = AppSettings().value(key).toLongLong(&ok);
  if (!ok || value <= 0 || value > kLargestMegabytes) return fallback_bytes >> 20;
  return static_cast<uint64_t>(value);
}

}  // namespace

uint64_t RecordingSettingsDialog::MaxMegabytes() {
  return Megabytes(kMaxKey, kDefaultMaxRecordingBytes);
}

uint64_t RecordingSettingsDialog::KeepMegabytes() {
  return Megabytes(kKeepKey, kDefaultKeptRecordingBytes);
}

RecordingSettingsDialog::RecordingSettingsDialog(QString dir, QString current_recording,
                                                 QWidget* parent)
    : QDialog(parent), dir_(std::move(dir)), current_(std::move(current_recording)) {
  setWindowTitle(tr("Recording Settings"));
  max_ = new QSpinBox(this);
  max_->setRange(1, kLargestMegabytes);
  max_->setSuffix(tr(" MiB"));
  max_->setValue(static_cast<int>(MaxMegabytes()));
  max_->setToolTip(tr("A recording stops at this size; training goes on"));
  keep_ = new QSpinBox(this);
  keep_->setRange(1, kLargestMegabytes);
  keep_->setSuffix(tr(" MiB"));
  keep_->setValue(static_cast<int>(KeepMegabytes()));
  keep_->setToolTip(
      tr("When a recording starts, the oldest recordings are deleted until the "
         "folder holds no more than this"));
  usage_ = new QLabel(this);
  usage_->setWordWrap(true);
  usage_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  delete_ = new QPushButton(tr("Delete Finished Recordings"), this);
  delete_->setToolTip(tr("Deletes every recording in the folder but the one being written"));
  connect(delete_, &QPushButton::clicked, this, &RecordingSettingsDialog::deleteRecordings);

  auto* form = new QFormLayout;
  form->addRow(tr("Each recording up to:"), max_);
  form->addRow(tr("The folder keeps at most:"), keep_);
  auto* rule = new QLabel(tr("A recording that reaches its size stops; training goes on. When a "
                             "new recording starts, the oldest ones go first."),
                          this);
  rule->setWordWrap(true);
  rule->setForegroundRole(QPalette::PlaceholderText);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &RecordingSettingsDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &RecordingSettingsDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(rule);
  layout->addWidget(usage_);
  layout->addWidget(delete_, 0, Qt::AlignLeft);
  layout->addWidget(buttons);
  setMinimumWidth(440);
  showUsage();
}

void RecordingSettingsDialog::showUsage() {
  const RecordingsUsage usage = ScanRecordings(dir_);
  QString text = tr("%1 recording(s), %2 in %3")
                     .arg(usage.files)
                     .arg(FormatBytes(usage.bytes), QDir::toNativeSeparators(dir_));
  const QFileInfo current(current_);
  if (!current_.isEmpty() && current.exists()) {
    text +=
        tr("; the one being written: %1").arg(FormatBytes(static_cast<uint64_t>(current.size())));
  }
  usage_->setText(text);
  delete_->setEnabled(usage.files > 0);
}

void RecordingSettingsDialog::deleteRecordings() {
  DeleteRecordings(dir_, current_);
  showUsage();
}

void RecordingSettingsDialog::accept() {
  QSettings settings = AppSettings();
  settings.setValue(kMaxKey, max_->value());
  settings.setValue(kKeepKey, keep_->value());
  QDialog::accept();
}

}  // namespace trainscope
