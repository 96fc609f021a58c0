// SPDX-License-Identifier: Apache-2.0
//
// The forward-only kernels in a build with TRAINSCOPE_FORWARD_ONLY_KERNELS=OFF: none. Models with
// such operators are refused by CheckRunnable ("unsupported operator ABS at index 2").
#include "engine/kernels/registrations.h"

namespace trainscope {

size_t ForwardOnlyRegistrationCount() {
  return 0;
}

// Never called: the count is 0.
const OpRegistration& ForwardOnlyRegistration(size_t /*index*/) {
  return RegistrationAdd();
}

}  // namespace trainscope
