// SPDX-License-Identifier: Apache-2.0
//
// Run-time choice of an AVX2 path. Code that has one also keeps a portable path that gives the
// same results, so the build stays portable and a result never depends on the host. An AVX2 path
// may also use FMA: every processor with AVX2 has it, and HostHasAvx2() checks both.
//
//   #if defined(TRAINSCOPE_AVX2_PATH)
//     if (HostHasAvx2()) return SumAvx2(values, count);
//   #endif
//     return SumPortable(values, count);
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TRAINSCOPE_AVX2_PATH 1
#endif

namespace trainscope {

#if defined(TRAINSCOPE_AVX2_PATH)
inline bool HostHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// AVX-512F (and AVX2, which every such CPU has); code with an AVX-512 path also has an AVX2 one.
inline bool HostHasAvx512() {
  static const bool has = HostHasAvx2() && __builtin_cpu_supports("avx512f");
  return has;
}
#endif

}  // namespace trainscope
