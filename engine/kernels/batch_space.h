// SPDX-License-Identifier: Apache-2.0
//
// The shared geometry of SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on [batch, spatial..., depth]
// tensors with one or two spatial dimensions: the INT32 block_shape (input 1, one entry per
// spatial dimension) and the INT32 [spatial, 2] paddings or crops (input 2). A single spatial
// dimension is seen as height with a width of 1 and a width block of 1. The values live in
// tensors and are checked at run time against the graph's shapes.
#pragma once

#include <vector>

#include "engine/kernels/kernel_util.h"

namespace trainscope {

// The space side (the un-batched tensor) and the batch side as [batch, height, width, depth].
struct BatchSpaceGeometry {
  int space_batch = 0, space_h = 0, space_w = 0;
  int batch_h = 0, batch_w = 0;  // spatial size on the batch side
  int depth = 0;
  int block_h = 1, block_w = 1;
  int before_h = 0, before_w = 0;  // padding (SPACE_TO_BATCH) or crop (BATCH_TO_SPACE) before
};

// Input 0 and the output have rank 3 or 4, block_shape is [rank - 2], the paddings or crops
// operand [rank - 2, 2].
Status PrepareBatchSpace(const OpCheck& check);

// Resolves the block and the paddings/crops of `io` (space = the output for BATCH_TO_SPACE_ND,
// the input for SPACE_TO_BATCH_ND) and checks every shape they imply.
Status ResolveBatchSpace(const KernelIo& io, bool space_is_output, BatchSpaceGeometry* g);

}  // namespace trainscope
