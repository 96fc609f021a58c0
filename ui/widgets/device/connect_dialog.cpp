// SPDX-License-Identifier: Apache-2.0
#include "ui/widgets/device/connect_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/session/app_settings.h"

namespace trainscope {

QString ExplainOpenError(const QString& message) {
  const QString lower = message.toLower();
  const bool refused = lower.contains(QLatin1String("permission denied")) ||
                       lower.contains(QLatin1String("access denied")) ||
                       lower.contains(QLatin1String("eacces"));
  if (!refused || lower.contains(QLatin1String("dialout"))) return message;
  return message + QStringLiteral(
                       "\nSerial ports belong to the 'dialout' group: run "
                       "'sudo usermod -aG dialout $USER', then log out and in again.");
}

ConnectDialog::ConnectDialog(Opener opener, QWidget* parent)
    : QDialog(parent), opener_(std::move(opener)) {
  setWindowTitle(tr("Connect to a board"));
  ports_ = new QListWidget(this);
  ports_->setAlternatingRowColors(true);
  auto* refresh = new QPushButton(tr("&Refresh"), this);
  connect(refresh, &QPushButton::clicked, this, &ConnectDialog::refreshPorts);

  baud_ = new QComboBox(this);
  for (const uint32_t rate : kBaudRates) baud_->addItem(QString::number(rate), rate);
  baud_->setCurrentText(QString::number(kDefaultBaudRate));

  custom_ = new QLineEdit(this);
  custom_->setPlaceholderText(tr("tcp://host:port or a pty path (overrides the list)"));
  custom_->setClearButtonEnabled(true);
  // The endpoint that last connected, so reconnecting to the same board is one click.
  custom_->setText(AppSettings().value(QStringLiteral("device/lastEndpoint")).toString());

  record_ = new QLineEdit(this);
  record_->setPlaceholderText(tr("optional .tstrace file"));
  auto* browse = new QPushButton(tr("&Browse..."), this);
  connect(browse, &QPushButton::clicked, this, &ConnectDialog::browseRecordPath);

  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = error_->font();
  bold.setBold(true);
  error_->setFont(bold);
  error_->hide();

  auto* port_row = new QHBoxLayout;
  port_row->addWidget(ports_, 1);
  port_row->addWidget(refresh, 0, Qt::AlignTop);
  auto* record_row = new QHBoxLayout;
  record_row->addWidget(record_, 1);
  record_row->addWidget(browse);

  auto* form = new QFormLayout;
  form->addRow(tr("Serial &ports:"), port_row);
  form->addRow(tr("&Baud rate:"), baud_);
  form->addRow(tr("&Endpoint:"), custom_);
  form->addRow(tr("Re&cord to:"), record_row);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  QPushButton* connect_button = buttons->addButton(tr("&Connect"), QDialogButtonBox::AcceptRole);
  connect_button->setDefault(true);
  connect(buttons, &QDialogButtonBox::accepted, this, &ConnectDialog::tryConnect);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(ports_, &QListWidget::itemDoubleClicked, this, &ConnectDialog::tryConnect);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(error_);
  layout->addWidget(buttons);
  refreshPorts();
}

void ConnectDialog::setPorts(const std::vector<SerialPortInfo>& ports) {
  const QString previous =
      ports_->currentItem() ? ports_->currentItem()->data(Qt::UserRole).toString() : QString();
  ports_->clear();
  for (const SerialPortInfo& port : ports) {
    QString text = QString::fromStdString(port.name);
    if (!port.description.empty())
      text += QStringLiteral(" - ") + QString::fromStdString(port.description);
    if (port.usb) {
      text += QStringLiteral(" (USB %1:%2)")
                  .arg(port.usb_vid, 4, 16, QLatin1Char('0'))
                  .arg(port.usb_pid, 4, 16, QLatin1Char('0'));
    }
    auto* item = new QListWidgetItem(text, ports_);
    item->setData(Qt::UserRole, QString::fromStdString(port.name));
    if (item->data(Qt::UserRole).toString() == previous) ports_->setCurrentItem(item);
  }
  if (ports_->currentItem() == nullptr && ports_->count() > 0) ports_->setCurrentRow(0);
}

void ConnectDialog::refreshPorts() {
  std::vector<SerialPortInfo> ports;
  Status status = ListSerialPorts(&ports);
  setPorts(ports);
  if (!status.ok()) {
    showError(QString::fromUtf8(status.message()));
  } else if (ports.empty()) {
    ports_->setToolTip(tr("No serial ports found; plug the board in and press Refresh"));
  }
}

QString ConnectDialog::endpointText() const {
  const QString custom = custom_->text().trimmed();
  if (!custom.isEmpty()) return custom;
  const QListWidgetItem* item = ports_->currentItem();
  if (item == nullptr) return QString();
  return item->data(Qt::UserRole).toString() + QLatin1Char('@') + baud_->currentText();
}

QString ConnectDialog::recordPath() const {
  return record_->text().trimmed();
}

QString ConnectDialog::errorText() const {
  return error_->isHidden() ? QString() : error_->text();
}

void ConnectDialog::showError(const QString& text) {
  error_->setText(text);
  error_->setVisible(!text.isEmpty());
}

void ConnectDialog::tryConnect() {
  const QString endpoint = endpointText();
  if (endpoint.isEmpty()) {
    showError(tr("Choose a serial port or type an endpoint such as tcp://127.0.0.1:5555."));
    return;
  }
  showError(QString());
  Status status = opener_ ? opener_(endpoint, recordPath())
                          : Status::Error(StatusCode::kInvalidArgument, "nothing to connect with");
  if (!status.ok()) {
    showError(ExplainOpenError(QString::fromUtf8(status.message())));
    return;
  }
  AppSettings().setValue(QStringLiteral("device/lastEndpoint"), endpoint);
  accept();
}

void ConnectDialog::browseRecordPath() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Record the session to"), record_->text(), tr("TrainScope traces (*.tstrace)"));
  if (!path.isEmpty()) record_->setText(path);
}

}  // namespace trainscope
