// SPDX-License-Identifier: Apache-2.0
#include <cstdio>

#include "app/cli/commands.h"

namespace trainscope::cli {

int Fail(const QString& message, int status) {
  std::fprintf(stderr, "error: %s\n", qPrintable(message));
  return status;
}

}  // namespace trainscope::cli
