// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "serial/agent/agent.h"
#include "serial/protocol/message_router.h"
#include "serial/protocol/stream_decoder.h"
#include "serial/transport/posix_io.h"
#include "serial/transport/serial_port_transport.h"
#include "serial/transport/tcp_transport.h"
#include "serial/transport/terminal_transport.h"

namespace trainscope {
namespace {

using Clock = std::chrono::steady_clock;

long ElapsedMs(Clock::time_point start) {
  return static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

// An openpty() pair: the test plays the board on the master side.
struct Pty {
  Pty() {
    char name[256];
    if (::openpty(&master, &slave, name, nullptr, nullptr) == 0) slave_name = name;
    // Raw master side, so bytes pass unchanged in both directions.
    ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
  }
  ~Pty() {
    if (master >= 0) ::close(master);
    if (slave >= 0) ::close(slave);
  }
  std::vector<uint8_t> ReadMaster(size_t want, int timeout_ms) {
    std::vector<uint8_t> got;
    const auto start = Clock::now();
    while (got.size() < want && ElapsedMs(start) < timeout_ms) {
      pollfd p{master, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      uint8_t buffer[4096];
      const ssize_t n = ::read(master, buffer, sizeof buffer);
      if (n > 0) got.insert(got.end(), buffer, buffer + n);
    }
    return got;
  }
  int master = -1;
  int slave = -1;
  std::string slave_name;
};

std::vector<uint8_t> Pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>((i * 131) >> 3);
  return bytes;
}

TEST(TerminalTransport, ExchangesBytesOverAPseudoTerminal) {
  Pty pty;
  ASSERT_FALSE(pty.slave_name.empty());
  TerminalTransport tty(pty.slave_name, 115200);
  ASSERT_TRUE(tty.Open().ok());
  EXPECT_NE(tty.Describe().find(pty.slave_name), std::string::npos);

  const std::vector<uint8_t> out = {0x00, 0x11, 0x0A, 0x0D, 0xFF, 0x03, 0x1A};  // raw, unmangled
  ASSERT_TRUE(tty.Write(out.data(), out.size()).ok());
  EXPECT_EQ(pty.ReadMaster(out.size(), 2000), out);

  const std::vector<uint8_t> in = {0x13, 0x00, 0x7F, 0x0D, 0x0A, 0x04};
  ASSERT_EQ(::write(pty.master, in.data(), in.size()), static_cast<ssize_t>(in.size()));
  std::vector<uint8_t> got;
  const auto start = Clock::now();
  while (got.size() < in.size() && ElapsedMs(start) < 2000) {
    uint8_t buffer[64];
    size_t n = 0;
    ASSERT_TRUE(tty.Read(buffer, sizeof buffer, 100, &n).ok());
    got.insert(got.end(), buffer, buffer + n);
  }
  EXPECT_EQ(got, in);
}

TEST(TerminalTransport, ReadTimesOutQuietlyAfterTheRequestedTime) {
  Pty pty;
  TerminalTransport tty(pty.slave_name);
  ASSERT_TRUE(tty.Open().ok());
  uint8_t buffer[16];
  size_t n = 99;
  const auto start = Clock::now();
  ASSERT_TRUE(tty.Read(buffer, sizeof buffer, 150, &n).ok());
  const long elapsed = ElapsedMs(start);
  EXPECT_EQ(n, 0u);
  EXPECT_GE(elapsed, 140);
  EXPECT_LT(elapsed, 1000);
  ASSERT_TRUE(tty.Read(buffer, sizeof buffer, 0, &n).ok());
  EXPECT_EQ(n, 0u);
}

TEST(TerminalTransport, WritesMoreThanThePtyBufferHoldsWhileTheOtherSideReads) {
  Pty pty;
  TerminalTransport tty(pty.slave_name);
  ASSERT_TRUE(tty.Open().ok());
  const std::vector<uint8_t> data = Pattern(200000);
  std::vector<uint8_t> got;
  std::thread reader([&] { got = pty.ReadMaster(data.size(), 5000); });
  const Status status = tty.Write(data.data(), data.size());
  reader.join();
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(got, data);
}

TEST(TerminalTransport, FollowsLinksToTheDevice) {
  Pty pty;
  const std::string link = ::testing::TempDir() + "/trainscope_tty_link";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(pty.slave_name.c_str(), link.c_str()), 0);
  TerminalTransport tty(link);
  ASSERT_TRUE(tty.Open().ok());
  EXPECT_EQ(tty.resolved_path(), pty.slave_name);
  EXPECT_NE(tty.Describe().find(link), std::string::npos);
  ::unlink(link.c_str());
}

TEST(TerminalTransport, ReportsAClosedOtherEnd) {
  Pty pty;
  TerminalTransport tty(pty.slave_name);
  ASSERT_TRUE(tty.Open().ok());
  ::close(pty.slave);
  pty.slave = -1;
  ::close(pty.master);
  pty.master = -1;
  uint8_t buffer[16];
  size_t n = 0;
  const Status status = tty.Read(buffer, sizeof buffer, 200, &n);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("closed"), std::string::npos) << status.message();
}

TEST(TerminalTransport, RefusesMissingPathsAndFilesThatAreNotTerminals) {
  TerminalTransport missing("/dev/trainscope-no-such-device");
  Status status = missing.Open();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("/dev/trainscope-no-such-device"),
            std::string::npos);
  EXPECT_NE(std::string(status.message()).find("connected"), std::string::npos);

  const std::string file = ::testing::TempDir() + "/trainscope_not_a_tty";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  TerminalTransport not_tty(file);
  status = not_tty.Open();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("not a terminal"), std::string::npos)
      << status.message();
  ::unlink(file.c_str());

  Pty pty;
  TerminalTransport odd_baud(pty.slave_name, 123457);
  status = odd_baud.Open();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("123457"), std::string::npos);
}

TEST(TransportErrors, PermissionDeniedTellsTheUserAboutTheDialoutGroup) {
  const Status status = posix_io::ErrnoStatus(EACCES, "open", "/dev/ttyACM0");
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  const std::string message = status.message();
  EXPECT_NE(message.find("/dev/ttyACM0"), std::string::npos) << message;
  EXPECT_NE(message.find("dialout"), std::string::npos) << message;
  EXPECT_NE(std::string(posix_io::ErrnoStatus(EBUSY, "open", "/dev/ttyUSB0").message())
                .find("another program"),
            std::string::npos);
}

TEST(TcpTransport, LoopbackClientAndServerExchangeBytesBothWays) {
  TcpServerTransport server("127.0.0.1", 0);
  ASSERT_TRUE(server.Open().ok());
  ASSERT_NE(server.bound_port(), 0);
  TcpClientTransport client("127.0.0.1", server.bound_port());
  ASSERT_TRUE(client.Open().ok());
  ASSERT_TRUE(server.AcceptClient(2000).ok());
  ASSERT_TRUE(server.has_client());
  EXPECT_EQ(client.Describe(), "tcp://127.0.0.1:" + std::to_string(server.bound_port()));

  const std::vector<uint8_t> data = Pattern(300000);
  std::vector<uint8_t> at_server;
  std::thread reader([&] {
    const auto start = Clock::now();
    while (at_server.size() < data.size() && ElapsedMs(start) < 5000) {
      uint8_t buffer[8192];
      size_t n = 0;
      if (!server.Read(buffer, sizeof buffer, 50, &n).ok()) break;
      at_server.insert(at_server.end(), buffer, buffer + n);
    }
  });
  ASSERT_TRUE(client.Write(data.data(), data.size()).ok());
  reader.join();
  EXPECT_EQ(at_server, data);

  const std::vector<uint8_t> reply = {0, 1, 2, 3, 0};
  ASSERT_TRUE(server.Write(reply.data(), reply.size()).ok());
  std::vector<uint8_t> at_client;
  const auto start = Clock::now();
  while (at_client.size() < reply.size() && ElapsedMs(start) < 2000) {
    uint8_t buffer[16];
    size_t n = 0;
    ASSERT_TRUE(client.Read(buffer, sizeof buffer, 50, &n).ok());
    at_client.insert(at_client.end(), buffer, buffer + n);
  }
  EXPECT_EQ(at_client, reply);

  uint8_t buffer[16];
  size_t n = 1;
  const auto quiet = Clock::now();
  ASSERT_TRUE(client.Read(buffer, sizeof buffer, 100, &n).ok());
  EXPECT_EQ(n, 0u);
  EXPECT_GE(ElapsedMs(quiet), 90);
}

TEST(TcpTransport, ServerSurvivesAClientLeavingAndTakesTheNextOne) {
  TcpServerTransport server("127.0.0.1", 0);
  ASSERT_TRUE(server.Open().ok());
  {
    TcpClientTransport first("127.0.0.1", server.bound_port());
    ASSERT_TRUE(first.Open().ok());
    ASSERT_TRUE(server.AcceptClient(2000).ok());
  }
  uint8_t buffer[16];
  size_t n = 0;
  for (int i = 0; i < 20 && server.has_client(); ++i) {
    ASSERT_TRUE(server.Read(buffer, sizeof buffer, 50, &n).ok());
  }
  EXPECT_FALSE(server.has_client());
  const uint8_t lost[] = {1, 2, 3};
  EXPECT_TRUE(server.Write(lost, sizeof lost).ok());  // nobody listening: discarded

  TcpClientTransport second("127.0.0.1", server.bound_port());
  ASSERT_TRUE(second.Open().ok());
  const uint8_t hello[] = {9, 8, 7};
  ASSERT_TRUE(second.Write(hello, sizeof hello).ok());
  std::vector<uint8_t> got;
  const auto start = Clock::now();
  while (got.size() < 3 && ElapsedMs(start) < 2000) {
    ASSERT_TRUE(server.Read(buffer, sizeof buffer, 50, &n).ok());
    got.insert(got.end(), buffer, buffer + n);
  }
  EXPECT_EQ(got, std::vector<uint8_t>(hello, hello + 3));
}

TEST(TcpTransport, ClientReportsARefusedConnectionAndAClosedServer) {
  uint16_t port = 0;
  {
    TcpServerTransport probe("127.0.0.1", 0);
    ASSERT_TRUE(probe.Open().ok());
    port = probe.bound_port();
  }
  TcpClientTransport client("127.0.0.1", port);
  const Status refused = client.Open();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.message()).find("refused"), std::string::npos) << refused.message();

  TcpServerTransport server("127.0.0.1", 0);
  ASSERT_TRUE(server.Open().ok());
  TcpClientTransport connected("127.0.0.1", server.bound_port());
  ASSERT_TRUE(connected.Open().ok());
  ASSERT_TRUE(server.AcceptClient(2000).ok());
  server.Close();
  uint8_t buffer[8];
  size_t n = 0;
  const Status closed = connected.Read(buffer, sizeof buffer, 1000, &n);
  EXPECT_FALSE(closed.ok());
}

TEST(SerialPortTransport, EnumerationWorksWithoutHardware) {
  std::vector<SerialPortInfo> ports;
  const Status status = ListSerialPorts(&ports);
  ASSERT_TRUE(status.ok()) << status.message();
  for (const SerialPortInfo& port : ports) {
    EXPECT_FALSE(port.name.empty());
    EXPECT_EQ(DescribePort(port).rfind(port.name, 0), 0u);
  }
}

TEST(SerialPortTransport, MissingPortGivesAnActionableError) {
  SerialPortTransport port("/dev/ttyTRAINSCOPE_NONE", 115200);
  const Status status = port.Open();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("/dev/ttyTRAINSCOPE_NONE"), std::string::npos);
  EXPECT_FALSE(port.is_open());
  uint8_t buffer[4];
  size_t n = 0;
  EXPECT_FALSE(port.Read(buffer, sizeof buffer, 10, &n).ok());
}

// The device path end to end: an agent writes into the pty's board side, the desktop reads the
// other side through TerminalTransport and decodes the agent's HELLO.
size_t WriteToMaster(void* context, const uint8_t* data, size_t size) {
  const ssize_t n = ::write(*static_cast<int*>(context), data, size);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

class HelloCatcher : public wire::LinkHandler {
 public:
  void OnHello(const wire::HelloMessage& hello) override { name = hello.agent_name.c_str(); }
  std::string name;
};

TEST(TerminalTransport, CarriesAnAgentSessionToTheDesktopDecoder) {
  Pty pty;
  TerminalTransport tty(pty.slave_name);
  ASSERT_TRUE(tty.Open().ok());
  static uint8_t tx[2048];
  AgentConfig config;
  config.name = "pty-board";
  config.tx_storage = tx;
  config.tx_storage_size = sizeof tx;
  config.write = &WriteToMaster;
  config.write_context = &pty.master;
  Agent agent(config);
  agent.Start();
  agent.OnLoss(LossEvent{1, 0, 0.5f});

  HelloCatcher link;
  wire::MessageRouter router(nullptr, &link);
  wire::StreamDecoder decoder;
  const auto start = Clock::now();
  while (decoder.counters().frames_ok < 2 && ElapsedMs(start) < 2000) {
    uint8_t buffer[256];
    size_t n = 0;
    ASSERT_TRUE(tty.Read(buffer, sizeof buffer, 50, &n).ok());
    decoder.Push(buffer, n, &router);
  }
  EXPECT_EQ(link.name, "pty-board");
  EXPECT_EQ(decoder.counters().frames_ok, 2u);
  EXPECT_EQ(decoder.counters().frames_bad, 0u);
}

}  // namespace
}  // namespace trainscope
