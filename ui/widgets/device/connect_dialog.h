// SPDX-License-Identifier: Apache-2.0
//
// ConnectDialog: Device > Connect. Lists the serial ports libserialport finds (name, description,
// USB VID:PID) with a Refresh button and a baud rate choice (9600..921600, default 115200), or
// takes a free-text endpoint (tcp://host:port, a pty path, anything endpoint.h accepts), plus an
// optional trace file to record to. Connect calls the opener the owner gave; the dialog closes
// only when it succeeded, otherwise the error stays visible in the dialog (a permission error
// also says how to join the dialout group).
//
//   ConnectDialog dialog([&](const QString& endpoint, const QString& record) {
//     return source->open(endpoint, record);
//   }, window);
//   dialog.exec();
#pragma once

#include <QDialog>
#include <QString>

#include <functional>
#include <vector>

#include "engine/core/status.h"
#include "serial/transport/serial_port_transport.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace trainscope {

// The message to show for a failed open: `message` as is, plus the dialout hint when the system
// refused access and the message does not say what to do already.
QString ExplainOpenError(const QString& message);

class ConnectDialog : public QDialog {
  Q_OBJECT

 public:
  using Opener = std::function<Status(const QString& endpoint, const QString& record_path)>;
  static constexpr uint32_t kBaudRates[] = {9600,   19200,  38400,  57600,
                                            115200, 230400, 460800, 921600};

  explicit ConnectDialog(Opener opener, QWidget* parent = nullptr);

  // Replaces the port list (Refresh uses ListSerialPorts; tests give their own).
  void setPorts(const std::vector<SerialPortInfo>& ports);
  // What Connect opens: the free text when given, else the selected port with "@baud".
  QString endpointText() const;
  QString recordPath() const;
  QString errorText() const;

  QListWidget* portList() const { return ports_; }
  QComboBox* baudBox() const { return baud_; }
  QLineEdit* endpointEdit() const { return custom_; }
  QLineEdit* recordEdit() const { return record_; }

 public Q_SLOTS:
  void refreshPorts();
  // Opens through the opener; accept() on success, shows the error otherwise.
  void tryConnect();

 private:
  void showError(const QString& text);
  void browseRecordPath();

  Opener opener_;
  QListWidget* ports_ = nullptr;
  QComboBox* baud_ = nullptr;
  QLineEdit* custom_ = nullptr;
  QLineEdit* record_ = nullptr;
  QLabel* error_ = nullptr;
};

}  // namespace trainscope
