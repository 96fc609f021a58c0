// SPDX-License-Identifier: Apache-2.0
//
// Instructions per training step, counted by the firmware itself: the step-counting firmware
// (trainscope-firmware-<board>-steps, built and run by scripts/cortex-m-steps.sh) runs under
// QEMU -icount shift=0, where one instruction is one nanosecond of guest time, so the board's
// timer (BoardNowNs) counts instructions to its resolution (board_support.h).
//
// Each run counts one phase of the embedded run's first optimizer steps, named by QEMU's
// semihosting command line (-semihosting-config enable=on,target=native,arg=PHASE[,arg=NUMBER]);
// every phase starts from a fresh heap and the model's own weights, and trains the same samples:
//   engine        a Trainer with no observer: the engine alone, as `trainscope-cli train` runs
//                 without --events
//   timed         an observer that wants the forward ops, backward steps, losses and optimizer
//                 steps and only reads the clock: where the engine's instructions go
//   events [MASK]  an observer that wants every event (or those of MASK, a decimal of
//                 engine/core/events.h's kEvent* bits) and drops it: adds the engine's event work
//   board READS   the board itself (TrainingBoard: the agent encoding and sending every event),
//                 READS being the engine's clock reads per step that the events phase printed
// What was counted goes to the log UART, every number a difference of two timer reads:
//   count: setup board=NAME resolution_ns=R clock=C steps=N batch=B ops=K
//   count: op INDEX OPCODE                                        (K lines)
//   count: engine STEP TOTAL                                      (N lines each)
//   count: timed STEP TOTAL loss=L optimizer=O forward=F0,F1,... backward=B0,B1,...
//   count: events STEP TOTAL
//   count: reads P                                                (timed and events)
//   count: board STEP TOTAL bytes=LINK
//   count: done
// C is what an empty measurement reads: two clock calls back to back. The TOTAL of engine, timed
// and events brackets one Trainer::TrainStep call, so it holds one C too much; board's TOTAL runs
// from the first clock read of a step (its first forward op) to the next step's: the whole board
// loop, with nothing to subtract (and the counting's own bookkeeping, a few instructions, once);
// LINK is what the board handed to its link UART in that time.
// Fi and Bi are the engine's FORWARD_OP and BACKWARD_STEP durations of op i summed over the batch
// (each holds one C; Bi is 0 for an op that has no backward step); L runs from the clock read
// that ends the last forward op to the observer's read at the LOSS event (one a sample), O from
// the read that ends the last backward step to the observer's read at the OPTIMIZER_STEP event.
// P is the engine's clock reads per step. N is at most TRAINSCOPE_FIRMWARE_COUNTED_STEPS, and
// smaller when an epoch is shorter: no counted step may end at an epoch's end, where the board
// evaluates the metric.
//
// Then the firmware stops QEMU through semihosting, with exit status 0, or 1 after a
// "count: error TEXT" line.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/status.h"
#include "engine/exec/trainer.h"
#include "engine/model/model.h"

namespace trainscope::firmware {

// Optimizer steps the step-counting firmware counts at most.
inline constexpr uint32_t kMaxCountedSteps = 64;

// The engine's clock while counting: BoardNowNs, plus the board phase's bookkeeping, which comes
// before the timer read so that every interval a read opens holds the same instructions.
uint64_t CountingNowNs();

// Reads the phase from the semihosting command line, measures C and prints the setup. The
// engine, timed and events phases then run here, and QEMU stops (this never returns); for the
// board phase it returns, and the caller starts the board with `data`, calls CountBoardSteps()
// and runs it. Call with CountingNowNs installed.
Status StartCounting(Model* model, const DataSet& data, const TrainingOptions& options,
                     const TrainabilityConfig& trainability, uint32_t steps);

// The board layer reports each write to the link UART.
void CountLinkBytes(size_t bytes);

// From the next clock read on, counts the board's steps; after the last one it prints them and
// stops QEMU. Call just before TrainingBoard::Run.
void CountBoardSteps();

// Prints "count: error TEXT" and stops QEMU with exit status 1.
[[noreturn]] void CountingFailed(const char* text);

}  // namespace trainscope::firmware
