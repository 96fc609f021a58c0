// SPDX-License-Identifier: Apache-2.0
//
// What each board folder (mps2-an386/, netduinoplus2/) implements: two UARTs and a timer, polled,
// no interrupts. Everything else of the firmware is common to every Cortex-M4F board.
//
//   link UART  carries the TrainScope protocol (QEMU's first -serial)
//   log UART   carries the firmware's own text: progress, warnings (QEMU's second -serial)
//   timer      a free-running clock for op durations and the agent's heartbeat
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope::firmware {

// Agent name in HELLO, e.g. "trainscope-fw mps2-an386".
extern const char kBoardName[];
// Whether BoardNowNs is an emulator's time (QEMU -icount), which the desktop is told.
extern const bool kEmulatedTime;
// The step of BoardNowNs: one count of the board's timer, in nanoseconds.
extern const uint32_t kClockResolutionNs;

// Starts the UARTs and the timer. Runs first in main(), before anything prints.
void BoardInit();
// One byte from the desktop, if the link UART holds one.
bool LinkReadByte(uint8_t* byte);
// Hands one byte to the link UART; false when its transmitter is busy.
bool LinkWriteByte(uint8_t byte);
// Writes all of `data` to the log UART, waiting for it.
void LogWrite(const char* data, size_t size);
// Nanoseconds since BoardInit from a hardware timer, in steps of kClockResolutionNs; call it at
// least every 4 seconds (a 32-bit counter is widened in software). Under QEMU -icount shift=0 a
// nanosecond is one instruction, so the difference of two reads counts the instructions between
// them (scripts/cortex-m-steps.sh).
uint64_t BoardNowNs();
// Microseconds since BoardInit.
inline uint64_t BoardNowUs() {
  return BoardNowNs() / 1000u;
}

}  // namespace trainscope::firmware
