// SPDX-License-Identifier: Apache-2.0
#include "app/firmware/common/ram_usage.h"

#include <errno.h>

#include <cstddef>
#include <cstdint>

extern "C" {
// From sections.ld.
extern uint8_t __ram_start[];
extern uint8_t __data_start[];
extern uint8_t __bss_end[];
extern uint8_t __heap_start[];
extern uint32_t __stack_limit[];  // lowest address of the stack region; the heap stops here
extern uint32_t __stack_top[];
}

namespace trainscope::firmware {
namespace {

constexpr uint32_t kPaint = 0xA5C3A5C3u;

uint8_t* program_break = nullptr;
uint8_t* break_peak = nullptr;

uint32_t Distance(const uint8_t* from, const uint8_t* to) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(to) - reinterpret_cast<uintptr_t>(from));
}

}  // namespace

extern "C" void PaintStack() {
  // Stop short of this function's own frame: everything below it is unused yet.
  const uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  for (uint32_t* word = __stack_limit; reinterpret_cast<uintptr_t>(word) + 64 < here; ++word) {
    *word = kPaint;
  }
}

MeasuredMemory MeasureRam() {
  MeasuredMemory memory;
  memory.heap_peak_bytes = break_peak ? Distance(__heap_start, break_peak) : 0;
  const uint32_t* word = __stack_limit;
  while (word < __stack_top && *word == kPaint) ++word;
  memory.stack_peak_bytes = static_cast<uint32_t>(sizeof(uint32_t) * (__stack_top - word));
  memory.static_bytes = Distance(__data_start, __bss_end);
  memory.ram_bytes = Distance(__ram_start, reinterpret_cast<const uint8_t*>(__stack_top));
  return memory;
}

uint32_t HeapFreeBytes() {
  return Distance(program_break ? program_break : __heap_start,
                  reinterpret_cast<const uint8_t*>(__stack_limit));
}

}  // namespace trainscope::firmware

// newlib's malloc grows the heap here. It never reaches into the stack region: past it, malloc
// returns null and operator new calls the new-handler (firmware_main.cpp), which reports.
extern "C" void* _sbrk(ptrdiff_t increment) {
  using trainscope::firmware::break_peak;
  using trainscope::firmware::program_break;
  if (program_break == nullptr) program_break = __heap_start;
  uint8_t* previous = program_break;
  if (increment > 0 && static_cast<size_t>(increment) >
                           trainscope::firmware::Distance(
                               program_break, reinterpret_cast<const uint8_t*>(__stack_limit))) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  program_break += increment;
  if (program_break > break_peak) break_peak = program_break;
  return previous;
}
