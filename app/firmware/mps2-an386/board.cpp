// SPDX-License-Identifier: Apache-2.0
//
// Arm's MPS2 AN386 (Cortex-M4) as QEMU models it: CMSDK APB UART0 (0x40004000) carries the link,
// UART1 (0x40005000) the log, and CMSDK APB timer 0 (0x40000000, 25 MHz: 40 ns a count) counts
// down from 0xFFFFFFFF as the clock. QEMU does not pace the UARTs at their baud rate; under
// -icount the timer runs on instruction-counted time. (SysTick and the dual timer run from the
// same 25 MHz clock in QEMU, so none resolves finer than 40 ns.)
#include <cstddef>
#include <cstdint>

#include "app/firmware/common/board_support.h"

namespace trainscope::firmware {
namespace {

struct CmsdkUart {
  volatile uint32_t data;
  volatile uint32_t state;  // bit 0 TX full, bit 1 RX full
  volatile uint32_t ctrl;   // bit 0 TX enable, bit 1 RX enable
  volatile uint32_t intstatus;
  volatile uint32_t bauddiv;
};

struct CmsdkTimer {
  volatile uint32_t ctrl;  // bit 0 enable
  volatile uint32_t value;
  volatile uint32_t reload;
};

constexpr uint32_t kTxFull = 1u << 0;
constexpr uint32_t kRxFull = 1u << 1;
constexpr uint32_t kClockHz = 25000000;
constexpr uint32_t kNsPerTick = 1000000000u / kClockHz;

CmsdkUart& LinkUart() {
  return *reinterpret_cast<CmsdkUart*>(0x40004000u);
}
CmsdkUart& LogUart() {
  return *reinterpret_cast<CmsdkUart*>(0x40005000u);
}
CmsdkTimer& Timer() {
  return *reinterpret_cast<CmsdkTimer*>(0x40000000u);
}

void StartUart(CmsdkUart& uart) {
  uart.bauddiv = kClockHz / 115200;  // QEMU needs at least 16 to transmit; it ignores the rate
  uart.ctrl = 0x3;
}

uint32_t last_value = 0xFFFFFFFFu;
uint64_t elapsed_ticks = 0;

}  // namespace

const char kBoardName[] = "trainscope-fw mps2-an386";
const bool kEmulatedTime = true;
const uint32_t kClockResolutionNs = kNsPerTick;

void BoardInit() {
  StartUart(LinkUart());
  StartUart(LogUart());
  Timer().ctrl = 0;
  Timer().reload = 0xFFFFFFFFu;
  Timer().value = 0xFFFFFFFFu;
  Timer().ctrl = 1;
}

bool LinkReadByte(uint8_t* byte) {
  if ((LinkUart().state & kRxFull) == 0) return false;
  *byte = static_cast<uint8_t>(LinkUart().data);
  return true;
}

bool LinkWriteByte(uint8_t byte) {
  if ((LinkUart().state & kTxFull) != 0) return false;
  LinkUart().data = byte;
  return true;
}

void LogWrite(const char* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    while ((LogUart().state & kTxFull) != 0) {
    }
    LogUart().data = static_cast<uint8_t>(data[i]);
  }
}

uint64_t BoardNowNs() {
  const uint32_t value = Timer().value;  // counts down; wraps every 171 s
  elapsed_ticks += last_value - value;   // modulo 2^32: one wrap between two reads is fine
  last_value = value;
  return elapsed_ticks * kNsPerTick;
}

}  // namespace trainscope::firmware
