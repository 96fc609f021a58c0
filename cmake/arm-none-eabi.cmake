# SPDX-License-Identifier: Apache-2.0
# Cross build for a Cortex-M4F board (the `cortex-m4` preset) with Debian's gcc-arm-none-eabi,
# libnewlib-arm-none-eabi and libstdc++-arm-none-eabi-newlib: no OS, hard-float single precision.
# Only the engine and the board agent build; flatc runs on the host (see the top CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
# Without an OS nothing links a test executable; libraries are all the configure step needs.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(TRAINSCOPE_MCU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_CXX_FLAGS_INIT
    "${TRAINSCOPE_MCU_FLAGS} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -Wno-psabi -ffp-contract=off")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${TRAINSCOPE_MCU_FLAGS} -Wl,--gc-sections --specs=nano.specs")

# Look for programs (flatc) on the host, for headers and libraries only in the cross sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
