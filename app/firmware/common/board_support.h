// SPDX-License-Identifier: Apache-2.0
//
// What each board folder (mps2-an386/, netduinoplus2/) implements: two UARTs and a timer, polled,
// no interrupts. Everything else of the firmware is common to every Cortex-M4F board.
//
//   link UART  carries the TrainScope protocol (QEMU's first -serial)
//   log UART   carries the firmware's own text: progress, warnings (QEMU's second -serial)
//   timer      a free-running microsecond clock for op durations and the agent's heartbeat
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainscope::firmware {

// Agent name in HELLO, e.g. "trainscope-fw mps2-an386".
extern const char kBoardName[];
// Whether BoardNowUs is an emulator's time (QEMU -icount), which the desktop is told.
extern const bool kEmulatedTime;

// Starts the UARTs and the timer. Runs first in main(), before anything prints.
void BoardInit();
// One byte from the desktop, if the link UART holds one.
bool LinkReadByte(uint8_t* byte);
// Hands one byte to the link UART; false when its transmitter is busy.
bool LinkWriteByte(uint8_t byte);
// Writes all of `data` to the log UART, waiting for it.
void LogWrite(const char* data, size_t size);
// Microseconds since BoardInit from a hardware timer; call at least once a minute (a 32-bit
// counter is widened in software).
uint64_t BoardNowUs();

}  // namespace trainscope::firmware
