// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <pty.h>
#include <unistd.h>

#include <string>

#include "serial/transport/endpoint.h"
#include "serial/transport/tcp_transport.h"

namespace trainscope {
namespace {

Endpoint Parse(const std::string& text) {
  Endpoint endpoint;
  const Status status = ParseEndpoint(text, &endpoint);
  EXPECT_TRUE(status.ok()) << text << ": " << status.message();
  return endpoint;
}

std::string ErrorOf(const std::string& text) {
  Endpoint endpoint;
  const Status status = ParseEndpoint(text, &endpoint);
  EXPECT_FALSE(status.ok()) << text;
  return status.message();
}

TEST(Endpoint, TcpUrlsBecomeTcpClients) {
  Endpoint e = Parse("tcp://127.0.0.1:5555");
  EXPECT_EQ(e.kind, EndpointKind::kTcpClient);
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, 5555);
  e = Parse("tcp://[::1]:4000");
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, 4000);
  e = Parse("tcp://board.local:2000");
  EXPECT_EQ(e.host, "board.local");
}

TEST(Endpoint, ListenUrlsBecomeServersWithALoopbackDefault) {
  Endpoint e = Parse("tcp-listen://:0");
  EXPECT_EQ(e.kind, EndpointKind::kTcpServer);
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, 0);
  e = Parse("tcp-listen://0.0.0.0:7000");
  EXPECT_EQ(e.host, "0.0.0.0");
  EXPECT_EQ(e.port, 7000);
}

TEST(Endpoint, BadTcpUrlsSayWhatIsMissing) {
  EXPECT_NE(ErrorOf("tcp://localhost").find(":PORT"), std::string::npos);
  EXPECT_NE(ErrorOf("tcp://localhost:99999").find("1..65535"), std::string::npos);
  EXPECT_NE(ErrorOf("tcp://localhost:0").find("1..65535"), std::string::npos);
  EXPECT_NE(ErrorOf("tcp://:5000").find("host"), std::string::npos);
  EXPECT_NE(ErrorOf("tcp://[::1:80").find("IPv6"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("tcp://"), std::string::npos);
}

TEST(Endpoint, DeviceNamesPickSerialPortOrTerminal) {
  Endpoint e = Parse("/dev/ttyACM0");
  EXPECT_EQ(e.kind, EndpointKind::kSerialPort);
  EXPECT_EQ(e.path, "/dev/ttyACM0");
  EXPECT_EQ(e.baud_rate, kDefaultBaudRate);
  e = Parse("/dev/ttyUSB1@921600");
  EXPECT_EQ(e.kind, EndpointKind::kSerialPort);
  EXPECT_EQ(e.path, "/dev/ttyUSB1");
  EXPECT_EQ(e.baud_rate, 921600u);
  e = Parse("COM3");
  EXPECT_EQ(e.kind, EndpointKind::kSerialPort);
  e = Parse("\\\\.\\COM12@57600");
  EXPECT_EQ(e.kind, EndpointKind::kSerialPort);
  EXPECT_EQ(e.baud_rate, 57600u);
  e = Parse("/dev/pts/7");
  EXPECT_EQ(e.kind, EndpointKind::kTerminal);
  EXPECT_EQ(Parse("/tmp/qemu-console").kind, EndpointKind::kTerminal);
}

TEST(Endpoint, PrefixesForceTheTransport) {
  Endpoint e = Parse("tty:/dev/ttyUSB0@460800");
  EXPECT_EQ(e.kind, EndpointKind::kTerminal);
  EXPECT_EQ(e.path, "/dev/ttyUSB0");
  EXPECT_EQ(e.baud_rate, 460800u);
  e = Parse("serial:/dev/pts/3");
  EXPECT_EQ(e.kind, EndpointKind::kSerialPort);
  EXPECT_NE(ErrorOf("/dev/ttyACM0@fast").find("baud"), std::string::npos);
  EXPECT_NE(ErrorOf("tty:").find("missing"), std::string::npos);
}

TEST(Endpoint, LinksToPseudoTerminalsResolveToTheTerminalTransport) {
  int master = -1;
  int slave = -1;
  char name[256];
  ASSERT_EQ(::openpty(&master, &slave, name, nullptr, nullptr), 0);
  const std::string link = ::testing::TempDir() + "/trainscope_endpoint_link";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(name, link.c_str()), 0);
  const Endpoint e = Parse(link + "@230400");
  EXPECT_EQ(e.kind, EndpointKind::kTerminal);
  EXPECT_EQ(e.path, name);
  EXPECT_EQ(e.baud_rate, 230400u);

  std::unique_ptr<Transport> transport;
  const Status status = OpenEndpoint(link, &transport);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(transport->is_open());
  ::unlink(link.c_str());
  ::close(master);
  ::close(slave);
}

TEST(Endpoint, OpenEndpointCreatesTheMatchingTransport) {
  std::unique_ptr<Transport> server;
  ASSERT_TRUE(OpenEndpoint("tcp-listen://127.0.0.1:0", &server).ok());
  const uint16_t port = static_cast<TcpServerTransport*>(server.get())->bound_port();
  std::unique_ptr<Transport> client;
  const Status status = OpenEndpoint("tcp://127.0.0.1:" + std::to_string(port), &client);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_NE(client->Describe().find(std::to_string(port)), std::string::npos);

  std::unique_ptr<Transport> none;
  EXPECT_FALSE(OpenEndpoint("/dev/ttyTRAINSCOPE_NONE", &none).ok());
  EXPECT_EQ(none, nullptr);
}

}  // namespace
}  // namespace trainscope
