// SPDX-License-Identifier: Apache-2.0
//
// SerialPortTransport drives real serial hardware (on-board UARTs, USB CDC-ACM, FTDI/CP210x
// adapters) through libserialport, which also knows each port's USB identity for the port
// list. It cannot open pseudo-terminals; use TerminalTransport for those (ParseEndpoint picks).
//
// ListSerialPorts() enumerates what the system has; an empty list is not an error.
//
//   std::vector<SerialPortInfo> ports;
//   Status s = ListSerialPorts(&ports);
//   SerialPortTransport port(ports[0].name, 921600);
//   s = port.Open();
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "serial/transport/transport.h"

struct sp_port;

namespace trainscope {

struct SerialPortInfo {
  std::string name;         // "/dev/ttyACM0", "COM3"
  std::string description;  // libserialport's one-line description
  bool usb = false;
  uint16_t usb_vid = 0;
  uint16_t usb_pid = 0;
  std::string manufacturer;
  std::string product;
  std::string serial_number;
};

// "/dev/ttyACM0 - STM32 STLink (0483:374b)".
std::string DescribePort(const SerialPortInfo& port);

Status ListSerialPorts(std::vector<SerialPortInfo>* ports);

class SerialPortTransport : public Transport {
 public:
  SerialPortTransport(std::string name, uint32_t baud_rate = kDefaultBaudRate);
  ~SerialPortTransport() override;
  SerialPortTransport(const SerialPortTransport&) = delete;
  SerialPortTransport& operator=(const SerialPortTransport&) = delete;

  Status Open() override;
  void Close() override;
  bool is_open() const override { return port_ != nullptr; }
  Status Read(uint8_t* data, size_t capacity, int timeout_ms, size_t* received) override;
  Status Write(const uint8_t* data, size_t size) override;
  std::string Describe() const override;

 private:
  Status PortError(const char* action, int result) const;

  std::string name_;
  uint32_t baud_rate_;
  std::string usb_identity_;  // "0483:374b", filled by Open for USB ports
  sp_port* port_ = nullptr;
};

}  // namespace trainscope
