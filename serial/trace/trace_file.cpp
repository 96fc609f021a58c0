// SPDX-License-Identifier: Apache-2.0
#include "serial/trace/trace_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "serial/protocol/byte_io.h"
#include "serial/protocol/wire_format.h"

namespace trainscope {
namespace {

Status IoError(const char* action, const std::string& path) {
  return Status::Error(StatusCode::kIoError, "%s %s: %s", action, path.c_str(),
                       std::strerror(errno));
}

bool WriteFully(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Reads up to `size` bytes; returns the count, or -1 on error.
ssize_t ReadFully(int fd, uint8_t* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

}  // namespace

Status ParseTraceHeader(const uint8_t* data, size_t size, const std::string& path,
                        TraceHeader* out) {
  if (size < 8 || std::memcmp(data, kTraceMagic, 8) != 0) {
    return Status::Error(StatusCode::kInvalidFile,
                         "%s: not a TrainScope trace (the file does not start with TSTRACE1)",
                         path.c_str());
  }
  if (size < kTraceHeaderBytes) {
    return Status::Error(StatusCode::kInvalidFile, "%s: trace header cut short: %zu of %zu bytes",
                         path.c_str(), size, kTraceHeaderBytes);
  }
  wire::ByteReader reader(data + 8, size - 8);
  out->header_bytes = reader.U16();
  out->protocol_version = reader.U16();
  reader.U32();  // reserved
  out->model_hash = reader.U64();
  out->created_unix_ms = reader.U64();
  if (out->header_bytes < kTraceHeaderBytes) {
    return Status::Error(StatusCode::kInvalidFile,
                         "%s: header size field says %u bytes, at least %zu expected", path.c_str(),
                         out->header_bytes, kTraceHeaderBytes);
  }
  if (out->protocol_version == 0 || out->protocol_version > wire::kProtocolVersion) {
    return Status::Error(StatusCode::kUnsupported,
                         "%s: recorded with protocol version %u; this TrainScope reads up to "
                         "version %u (update TrainScope)",
                         path.c_str(), out->protocol_version, wire::kProtocolVersion);
  }
  return Status::Ok();
}

TraceWriter::~TraceWriter() {
  Close();
}

Status TraceWriter::Create(const std::string& path, uint64_t model_hash) {
  Close();
  path_ = path;
  stream_bytes_ = 0;
  // No O_APPEND: Linux would then make SetModelHash's pwrite append too.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return IoError("create trace", path);
  uint8_t header[kTraceHeaderBytes] = {};
  wire::ByteWriter writer(header, sizeof header);
  writer.Bytes(kTraceMagic, sizeof kTraceMagic);
  writer.U16(static_cast<uint16_t>(kTraceHeaderBytes));
  writer.U16(wire::kProtocolVersion);
  writer.U32(0);
  writer.U64(model_hash);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  writer.U64(
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()));
  if (!WriteFully(fd_, header, sizeof header)) {
    Status status = IoError("write trace header to", path);
    Close();
    return status;
  }
  return Status::Ok();
}

Status TraceWriter::Append(const uint8_t* data, size_t size) {
  if (fd_ < 0) return Status::Error(StatusCode::kIoError, "trace %s: not open", path_.c_str());
  if (size == 0) return Status::Ok();
  if (!WriteFully(fd_, data, size)) return IoError("append to trace", path_);
  stream_bytes_ += size;
  return Status::Ok();
}

Status TraceWriter::SetModelHash(uint64_t model_hash) {
  if (fd_ < 0) return Status::Error(StatusCode::kIoError, "trace %s: not open", path_.c_str());
  uint8_t field[8];
  wire::ByteWriter writer(field, sizeof field);
  writer.U64(model_hash);
  if (::pwrite(fd_, field, sizeof field, 16) != static_cast<ssize_t>(sizeof field)) {
    return IoError("update trace header of", path_);
  }
  return Status::Ok();
}

Status TraceWriter::Sync() {
  if (fd_ >= 0 && ::fdatasync(fd_) != 0) return IoError("sync trace", path_);
  return Status::Ok();
}

void TraceWriter::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

TraceReader::~TraceReader() {
  Close();
}

Status TraceReader::Open(const std::string& path) {
  Close();
  path_ = path;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return IoError("open trace", path);
  uint8_t header[kTraceHeaderBytes];
  const ssize_t n = ReadFully(fd_, header, sizeof header);
  if (n < 0) return IoError("read trace", path);
  Status status = ParseTraceHeader(header, static_cast<size_t>(n), path, &header_);
  if (status.ok() && header_.header_bytes > kTraceHeaderBytes &&
      ::lseek(fd_, header_.header_bytes, SEEK_SET) < 0) {
    status = IoError("seek in trace", path);
  }
  if (!status.ok()) Close();
  return status;
}

Status TraceReader::Pump(wire::FrameSink* sink, size_t max_bytes, size_t* consumed) {
  *consumed = 0;
  if (fd_ < 0) return Status::Error(StatusCode::kIoError, "trace %s: not open", path_.c_str());
  uint8_t buffer[64 * 1024];
  while (*consumed < max_bytes) {
    const size_t want = std::min(sizeof buffer, max_bytes - *consumed);
    const ssize_t n = ReadFully(fd_, buffer, want);
    if (n < 0) return IoError("read trace", path_);
    if (n == 0) break;  // end for now; a writer may still add more
    decoder_.Push(buffer, static_cast<size_t>(n), sink);
    *consumed += static_cast<size_t>(n);
    if (static_cast<size_t>(n) < want) break;
  }
  return Status::Ok();
}

void TraceReader::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status ReplayTrace(const std::string& path, wire::FrameSink* sink, TraceReplay* out) {
  TraceReader reader;
  TS_RETURN_IF_ERROR(reader.Open(path));
  size_t consumed = 0;
  do {
    TS_RETURN_IF_ERROR(reader.Pump(sink, SIZE_MAX, &consumed));
  } while (consumed > 0);
  out->header = reader.header();
  out->counters = reader.decoder().counters();
  out->torn_tail_bytes = reader.decoder().pending_bytes();
  return Status::Ok();
}

}  // namespace trainscope
