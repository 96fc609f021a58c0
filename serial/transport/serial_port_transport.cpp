// SPDX-License-Identifier: Apache-2.0
#include "serial/transport/serial_port_transport.h"

#include <libserialport.h>

#include <cerrno>
#include <cstdio>
#include <utility>

#include "serial/transport/posix_io.h"

namespace trainscope {
namespace {

std::string Text(const char* text) {
  return text ? text : "";
}

std::string UsbIdentity(uint16_t vid, uint16_t pid) {
  char text[16];
  std::snprintf(text, sizeof text, "%04x:%04x", vid, pid);
  return text;
}

SerialPortInfo InfoOf(const sp_port* port) {
  SerialPortInfo info;
  info.name = Text(sp_get_port_name(port));
  info.description = Text(sp_get_port_description(port));
  if (sp_get_port_transport(port) == SP_TRANSPORT_USB) {
    int vid = 0;
    int pid = 0;
    if (sp_get_port_usb_vid_pid(port, &vid, &pid) == SP_OK) {
      info.usb = true;
      info.usb_vid = static_cast<uint16_t>(vid);
      info.usb_pid = static_cast<uint16_t>(pid);
    }
    info.manufacturer = Text(sp_get_port_usb_manufacturer(port));
    info.product = Text(sp_get_port_usb_product(port));
    info.serial_number = Text(sp_get_port_usb_serial(port));
  }
  return info;
}

}  // namespace

std::string DescribePort(const SerialPortInfo& port) {
  std::string text = port.name;
  if (!port.description.empty() && port.description != port.name) text += " - " + port.description;
  if (port.usb) text += " (" + UsbIdentity(port.usb_vid, port.usb_pid) + ")";
  return text;
}

Status ListSerialPorts(std::vector<SerialPortInfo>* ports) {
  ports->clear();
  sp_port** list = nullptr;
  // libserialport returns counts and errors through one enum; keep it in an int.
  const int result = sp_list_ports(&list);
  if (result != SP_OK) {
    char* message = sp_last_error_message();
    Status status = Status::Error(StatusCode::kIoError, "listing serial ports failed: %s",
                                  message ? message : "unknown error");
    sp_free_error_message(message);
    return status;
  }
  for (sp_port** p = list; *p != nullptr; ++p) ports->push_back(InfoOf(*p));
  sp_free_port_list(list);
  return Status::Ok();
}

SerialPortTransport::SerialPortTransport(std::string name, uint32_t baud_rate)
    : name_(std::move(name)), baud_rate_(baud_rate) {}

SerialPortTransport::~SerialPortTransport() {
  Close();
}

Status SerialPortTransport::PortError(const char* action, int result) const {
  if (result == SP_ERR_FAIL) {
    const int error = sp_last_error_code();
    if (error != 0) return posix_io::ErrnoStatus(error, action, name_);
  }
  if (result == SP_ERR_MEM) {
    return Status::Error(StatusCode::kIoError, "%s %s: out of memory", action, name_.c_str());
  }
  if (result == SP_ERR_SUPP) {
    return Status::Error(StatusCode::kIoError, "%s %s: not supported by this port or driver",
                         action, name_.c_str());
  }
  return Status::Error(StatusCode::kIoError, "%s %s: libserialport error %d", action, name_.c_str(),
                       result);
}

Status SerialPortTransport::Open() {
  Close();
  sp_port* port = nullptr;
  if (sp_get_port_by_name(name_.c_str(), &port) != SP_OK) {
    return Status::Error(StatusCode::kIoError,
                         "open %s: no such serial port; is the board connected? (for a "
                         "pseudo-terminal or emulator use its /dev/pts path or tty:PATH)",
                         name_.c_str());
  }
  int result = sp_open(port, SP_MODE_READ_WRITE);
  if (result != SP_OK) {
    Status status = PortError("open", result);
    sp_free_port(port);
    return status;
  }
  port_ = port;
  const int baud = static_cast<int>(baud_rate_);
  if ((result = sp_set_baudrate(port_, baud)) != SP_OK ||
      (result = sp_set_bits(port_, 8)) != SP_OK ||
      (result = sp_set_parity(port_, SP_PARITY_NONE)) != SP_OK ||
      (result = sp_set_stopbits(port_, 1)) != SP_OK ||
      (result = sp_set_flowcontrol(port_, SP_FLOWCONTROL_NONE)) != SP_OK) {
    Status status = PortError("configure", result);
    Close();
    return status;
  }
  const SerialPortInfo info = InfoOf(port_);
  if (info.usb) usb_identity_ = UsbIdentity(info.usb_vid, info.usb_pid);
  return Status::Ok();
}

void SerialPortTransport::Close() {
  if (port_ == nullptr) return;
  sp_close(port_);
  sp_free_port(port_);
  port_ = nullptr;
}

Status SerialPortTransport::Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) {
  *received = 0;
  if (port_ == nullptr) {
    return Status::Error(StatusCode::kIoError, "read %s: not open", name_.c_str());
  }
  if (capacity == 0) return Status::Ok();
  // A zero timeout means "wait forever" to libserialport, so "just look" is a separate call.
  const int result = timeout_ms > 0 ? sp_blocking_read_next(port_, data, capacity,
                                                            static_cast<unsigned>(timeout_ms))
                                    : sp_nonblocking_read(port_, data, capacity);
  if (result < 0) return PortError("read", result);
  *received = static_cast<size_t>(result);
  return Status::Ok();
}

Status SerialPortTransport::Write(const uint8_t* data, size_t size) {
  if (port_ == nullptr) {
    return Status::Error(StatusCode::kIoError, "write %s: not open", name_.c_str());
  }
  const int result = sp_blocking_write(port_, data, size, kTransportWriteTimeoutMs);
  if (result < 0) return PortError("write", result);
  if (static_cast<size_t>(result) < size) {
    return Status::Error(StatusCode::kIoError,
                         "write %s: timed out after %d ms with %d of %zu bytes written; is the "
                         "board reading?",
                         name_.c_str(), kTransportWriteTimeoutMs, result, size);
  }
  return Status::Ok();
}

std::string SerialPortTransport::Describe() const {
  std::string text = "serial " + name_ + " at " + std::to_string(baud_rate_) + " baud";
  if (!usb_identity_.empty()) text += " (USB " + usb_identity_ + ")";
  return text;
}

}  // namespace trainscope
