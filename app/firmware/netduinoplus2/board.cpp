// SPDX-License-Identifier: Apache-2.0
//
// The Netduino Plus 2 (STM32F405RG: 1 MB flash, 192 KB RAM) as QEMU models it: USART1
// (0x40011000) carries the link, USART2 (0x40004400) the log, and TIM2 (0x40000000), a 32-bit
// up-counter, is the clock. QEMU clocks TIM2 at 1 GHz and models no RCC, so the prescaler alone
// sets the rate; on a real STM32F4 the RCC must enable the clocks first and the prescaler follow
// the APB1 timer clock (docs/agent-guide.md).
#include <cstddef>
#include <cstdint>

#include "app/firmware/common/board_support.h"

namespace trainscope::firmware {
namespace {

struct Usart {
  volatile uint32_t sr;  // bit 5 RXNE, bit 7 TXE
  volatile uint32_t dr;
  volatile uint32_t brr;
  volatile uint32_t cr1;  // bit 13 UE, bit 3 TE, bit 2 RE
};

struct GeneralTimer {
  volatile uint32_t cr1;  // bit 0 CEN
  volatile uint32_t cr2, smcr, dier, sr, egr, ccmr1, ccmr2, ccer;
  volatile uint32_t cnt;
  volatile uint32_t psc;
  volatile uint32_t arr;
};

constexpr uint32_t kRxNotEmpty = 1u << 5;
constexpr uint32_t kTxEmpty = 1u << 7;
constexpr uint32_t kCountHz = 1000000000;  // QEMU's TIM2 clock, no prescaler
constexpr uint32_t kPrescaler = 0;
constexpr uint32_t kNsPerCount = 1000000000u / kCountHz;
static_assert(1000000000u % kCountHz == 0, "a count must be a whole number of nanoseconds");

Usart& LinkUsart() {
  return *reinterpret_cast<Usart*>(0x40011000u);
}
Usart& LogUsart() {
  return *reinterpret_cast<Usart*>(0x40004400u);
}
GeneralTimer& Timer() {
  return *reinterpret_cast<GeneralTimer*>(0x40000000u);
}

void StartUsart(Usart& usart) {
  usart.brr = 0x8B;  // 115200 baud from a 16 MHz clock; QEMU ignores it
  usart.cr1 = (1u << 13) | (1u << 3) | (1u << 2);
}

uint32_t last_count = 0;
uint64_t elapsed_counts = 0;

}  // namespace

const char kBoardName[] = "trainscope-fw netduinoplus2";
const bool kEmulatedTime = true;
const uint32_t kClockResolutionNs = kNsPerCount;

void BoardInit() {
  StartUsart(LinkUsart());
  StartUsart(LogUsart());
  Timer().cr1 = 0;
  Timer().psc = kPrescaler;
  Timer().arr = 0xFFFFFFFFu;
  Timer().egr = 1;  // load the prescaler now
  Timer().cr1 = 1;
  last_count = Timer().cnt;
}

bool LinkReadByte(uint8_t* byte) {
  if ((LinkUsart().sr & kRxNotEmpty) == 0) return false;
  *byte = static_cast<uint8_t>(LinkUsart().dr);
  return true;
}

bool LinkWriteByte(uint8_t byte) {
  if ((LinkUsart().sr & kTxEmpty) == 0) return false;
  LinkUsart().dr = byte;
  return true;
}

void LogWrite(const char* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    while ((LogUsart().sr & kTxEmpty) == 0) {
    }
    LogUsart().dr = static_cast<uint8_t>(data[i]);
  }
}

uint64_t BoardNowNs() {
  const uint32_t count = Timer().cnt;
  elapsed_counts += count - last_count;  // modulo 2^32: one wrap between two reads is fine
  last_count = count;
  return elapsed_counts * kNsPerCount;
}

}  // namespace trainscope::firmware
