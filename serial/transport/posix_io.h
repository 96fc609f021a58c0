// SPDX-License-Identifier: Apache-2.0
//
// Shared plumbing of the file-descriptor transports (termios and TCP): poll-based read and
// write with timeouts, and errno translated into messages that tell the user what to do.
// Internal to trainscope_transport, exposed for its tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/status.h"

namespace trainscope::posix_io {

// "open /dev/ttyACM0: permission denied: add your user to the dialout group ...".
Status ErrnoStatus(int error, const std::string& action, const std::string& target);

// Waits up to timeout_ms for input, then reads what is there. A peer that closed the stream is
// reported as an error naming `target`.
Status ReadSome(int fd, uint8_t* data, size_t capacity, int timeout_ms, const std::string& target,
                size_t* received);

// Writes all bytes, waiting for room at most timeout_ms in total. Sockets use MSG_NOSIGNAL so a
// vanished peer is an error, not a SIGPIPE.
Status WriteAll(int fd, const uint8_t* data, size_t size, int timeout_ms, bool is_socket,
                const std::string& target);

void CloseFd(int* fd);  // closes and sets -1; safe on -1

}  // namespace trainscope::posix_io
