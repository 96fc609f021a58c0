// SPDX-License-Identifier: Apache-2.0
//
// WaitFor: polls a condition that another thread makes true (the local source's worker),
// returning as soon as it holds or false after `limit`, so tests never sleep a fixed long time.
#pragma once

#include <chrono>
#include <thread>

namespace trainscope::testing {

template <typename Predicate>
bool WaitFor(Predicate predicate,
             std::chrono::milliseconds limit = std::chrono::milliseconds(10000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return predicate();
}

}  // namespace trainscope::testing
