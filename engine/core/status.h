// SPDX-License-Identifier: Apache-2.0
//
// Status: the engine's only error channel.
//
// Every engine entry point that can fail returns a Status; nothing in the engine throws. A failed
// Status carries a code a program can branch on and a message a person can act on, naming what is
// wrong and where ("tensor 12 'conv/bias': data is 40 bytes, shape [4] of FLOAT32 needs 16").
//
//   Status s = ReadModel(bytes, &model);
//   if (!s.ok()) { fprintf(stderr, "error: %s\n", s.message()); return 1; }
#pragma once

#include <cstdint>
#include <string>

namespace trainscope {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  // the caller passed something unusable (bad option, wrong size)
  kInvalidModel,     // a model file is malformed or inconsistent
  kInvalidFile,      // a side file (train config, checkpoint, data) is malformed
  kUnsupported,      // well-formed, but this engine cannot do it (op, type, feature)
  kIoError,          // reading or writing a file failed
  kOutOfMemory,      // the arena or a size limit is too small
  kNumericError,     // NaN or Inf where a finite value is required
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(StatusCode code, const char* format, ...) __attribute__((format(printf, 2, 3)));

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const char* message() const { return message_.c_str(); }

  // Prefixes the message with context, e.g. the file name: "model.circle: tensor 3 ...".
  Status& Prepend(const std::string& context);

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace trainscope

#define TS_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::trainscope::Status ts_status_ = (expr); \
    if (!ts_status_.ok()) return ts_status_;  \
  } while (0)
