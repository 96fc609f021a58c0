// SPDX-License-Identifier: Apache-2.0
//
// Reset and the vector table of a Cortex-M4F firmware: copy .data, clear .bss, paint the stack
// (ram_usage.h measures it later), switch the FPU on, run the C++ initialisers, then main(). A
// fault prints its name and the faulting registers on the log UART and stops there.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "app/firmware/common/board_support.h"
#include "app/firmware/common/ram_usage.h"

namespace trainscope::firmware {
[[noreturn]] void RunFirmware();  // firmware_main.cpp
}

extern "C" {
extern uint8_t __data_load[];
extern uint8_t __data_start[];
extern uint8_t __data_end[];
extern uint8_t __bss_start[];
extern uint8_t __bss_end[];
extern uint8_t __stack_top[];

void __libc_init_array();
[[noreturn]] void Reset_Handler();
[[noreturn]] void Fault_Handler();
void Ignored_Handler() {}
}

namespace {

using Handler = void (*)();

volatile uint32_t& Register(uintptr_t address) {
  return *reinterpret_cast<volatile uint32_t*>(address);
}

constexpr uintptr_t kCpacr = 0xE000ED88;  // coprocessor access control
constexpr uintptr_t kCfsr = 0xE000ED28;   // configurable fault status
constexpr uintptr_t kBfar = 0xE000ED38;   // bus fault address

}  // namespace

// Only the core's exceptions: the firmware polls its peripherals and enables no interrupt.
__attribute__((section(".isr_vector"), used)) const Handler kVectorTable[16] = {
    reinterpret_cast<Handler>(__stack_top),
    Reset_Handler,
    Fault_Handler,  // NMI
    Fault_Handler,  // HardFault
    Fault_Handler,  // MemManage
    Fault_Handler,  // BusFault
    Fault_Handler,  // UsageFault
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    Ignored_Handler,  // SVCall
    Ignored_Handler,  // DebugMonitor
    nullptr,
    Ignored_Handler,  // PendSV
    Ignored_Handler,  // SysTick
};

extern "C" void Reset_Handler() {
  std::memcpy(__data_start, __data_load, static_cast<size_t>(__data_end - __data_start));
  std::memset(__bss_start, 0, static_cast<size_t>(__bss_end - __bss_start));
  trainscope::firmware::PaintStack();
  Register(kCpacr) |= 0xFu << 20;  // CP10 and CP11: full access to the FPU
  __asm volatile("dsb\n isb" ::: "memory");
  __libc_init_array();
  trainscope::firmware::RunFirmware();
}

extern "C" void Fault_Handler() {
  uint32_t ipsr = 0;
  __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
  char text[96];
  const int n = std::snprintf(
      text, sizeof text, "firmware: fault (exception %lu), CFSR %08lx BFAR %08lx\n",
      static_cast<unsigned long>(ipsr & 0x1FFu), static_cast<unsigned long>(Register(kCfsr)),
      static_cast<unsigned long>(Register(kBfar)));
  if (n > 0)
    trainscope::firmware::LogWrite(text,
                                   static_cast<size_t>(n) < sizeof text ? n : sizeof text - 1);
  for (;;) {
  }
}
