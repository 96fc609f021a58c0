// SPDX-License-Identifier: Apache-2.0
//
// The newlib system calls a bare-metal firmware answers itself. stdout and stderr go to the log
// UART; there are no files (the engine's file reads return UNSUPPORTED on a board anyway). _sbrk
// lives in ram_usage.cpp, beside the heap measurement it feeds.
#include <errno.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <cstddef>
#include <cstdint>

#include "app/firmware/common/board_support.h"

using trainscope::firmware::BoardNowUs;
using trainscope::firmware::LogWrite;

extern "C" {

// -nostartfiles leaves these to the firmware: no static constructors need them, and C++ statics
// with destructors register against __dso_handle (they are never run: main does not return).
void* __dso_handle = nullptr;
void _init() {}
void _fini() {}

int _write(int file, const char* data, int size) {
  if (file != 1 && file != 2) {
    errno = EBADF;
    return -1;
  }
  if (size > 0) LogWrite(data, static_cast<size_t>(size));
  return size;
}

int _read(int, char*, int) {
  return 0;  // end of file: nothing reads stdin
}

int _open(const char*, int, ...) {
  errno = ENOSYS;
  return -1;
}

int _close(int) {
  return -1;
}

int _lseek(int, int, int) {
  return 0;
}

int _fstat(int, struct stat* status) {
  status->st_mode = S_IFCHR;  // unbuffered character device: every printf goes out at once
  return 0;
}

int _isatty(int) {
  return 1;
}

int _getpid() {
  return 1;
}

int _kill(int, int) {
  errno = EINVAL;
  return -1;
}

[[noreturn]] void _exit(int) {
  static const char kText[] = "firmware: exit\n";
  LogWrite(kText, sizeof kText - 1);
  for (;;) {
  }
}

int _gettimeofday(struct timeval* time, void*) {
  const uint64_t now = BoardNowUs();
  time->tv_sec = static_cast<time_t>(now / 1000000u);
  time->tv_usec = static_cast<suseconds_t>(now % 1000000u);
  return 0;
}

}  // extern "C"
