// SPDX-License-Identifier: Apache-2.0
//
// The RAM this firmware really uses, measured rather than planned:
//   heap   the high-water mark of the program break (_sbrk, which newlib's malloc grows), so it
//          includes the allocator's block headers and what it could not reuse;
//   stack  the deepest word overwritten since Reset_Handler painted the stack with a pattern;
//   static .data + .bss, from the linker script's symbols.
// The linker script (sections.ld) defines the symbols these read.
#pragma once

#include <cstdint>

#include "serial/board/board_layer.h"

namespace trainscope::firmware {

// Fills the stack below the caller's frame with the paint pattern; Reset_Handler calls it.
extern "C" void PaintStack();

MeasuredMemory MeasureRam();
// Bytes left between the program break and the bottom of the stack region.
uint32_t HeapFreeBytes();

}  // namespace trainscope::firmware
