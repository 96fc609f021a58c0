// SPDX-License-Identifier: Apache-2.0
//
// SKIP_WITHOUT_QEMU() for the gtest firmware tests: without qemu-system-arm or the cross
// toolchain the test skips with a message, unless TRAINSCOPE_REQUIRE_QEMU is set (CI sets it):
// then a missing tool fails it.
#pragma once

#include <gtest/gtest.h>

#include "tests/firmware/qemu_board_process.h"

#define SKIP_WITHOUT_QEMU()                                                                       \
  do {                                                                                            \
    const QString missing = ::trainscope::testing::MissingQemuTool();                             \
    if (!missing.isEmpty()) {                                                                     \
      if (::trainscope::testing::QemuRequired()) {                                                \
        FAIL() << qPrintable(missing) << " is missing and TRAINSCOPE_REQUIRE_QEMU is set";        \
      }                                                                                           \
      GTEST_SKIP() << qPrintable(missing) << " is missing (scripts/install-deps.sh installs it)"; \
    }                                                                                             \
  } while (false)
