// SPDX-License-Identifier: Apache-2.0
#include "engine/core/status.h"

#include <cstdarg>
#include <cstdio>

namespace trainscope {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kInvalidModel: return "invalid model";
    case StatusCode::kInvalidFile: return "invalid file";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kIoError: return "i/o error";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kNumericError: return "numeric error";
  }
  return "unknown";
}

Status Status::Error(StatusCode code, const char* format, ...) {
  Status status;
  status.code_ = code;
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  status.message_ = buffer;
  return status;
}

Status& Status::Prepend(const std::string& context) {
  if (!ok()) message_ = context + ": " + message_;
  return *this;
}

}  // namespace trainscope
