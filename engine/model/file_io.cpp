// SPDX-License-Identifier: Apache-2.0
#include "engine/model/file_io.h"

#if defined(__unix__) || defined(__APPLE__)

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace trainscope {
namespace {

Status NotRegular(const std::string& path, const struct stat& info) {
  const char* what = S_ISFIFO(info.st_mode)                           ? "a FIFO"
                     : S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device"
                     : S_ISDIR(info.st_mode)                          ? "a folder"
                     : S_ISSOCK(info.st_mode)                         ? "a socket"
                                                                      : "not a regular file";
  return Status::Error(StatusCode::kInvalidFile, "'%s' is %s, not a file to read", path.c_str(),
                       what);
}

// Writes all of `data`, retrying short writes and interruptions.
bool WriteAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

}  // namespace

Status ReadFileBytes(const std::string& path, size_t max_bytes, std::vector<uint8_t>* out) {
  // Checked before opening: opening a FIFO for reading blocks until a writer comes.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return Status::Error(StatusCode::kIoError, "cannot open '%s': %s", path.c_str(),
                         std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) return NotRegular(path, info);
  if (static_cast<uint64_t>(info.st_size) > max_bytes) {
    return Status::Error(StatusCode::kInvalidFile, "'%s' is larger than %zu bytes", path.c_str(),
                         max_bytes);
  }
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::Error(StatusCode::kIoError, "cannot open '%s': %s", path.c_str(),
                         std::strerror(errno));
  }
  // The file may have been replaced or may grow while it is read: the cap holds regardless.
  std::vector<uint8_t> bytes;
  bytes.reserve(static_cast<size_t>(info.st_size));
  uint8_t chunk[1 << 16];
  size_t read = 0;
  while ((read = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    if (bytes.size() + read > max_bytes) {
      std::fclose(file);
      return Status::Error(StatusCode::kInvalidFile, "'%s' is larger than %zu bytes", path.c_str(),
                           max_bytes);
    }
    bytes.insert(bytes.end(), chunk, chunk + read);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) {
    return Status::Error(StatusCode::kIoError, "cannot read '%s'", path.c_str());
  }
  *out = std::move(bytes);
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, const uint8_t* data, size_t size) {
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    return Status::Error(StatusCode::kIoError, "cannot write '%s': %s", path.c_str(),
                         std::strerror(errno));
  }
  // mkstemp creates the file 0600; the result gets the permissions a new file would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  bool ok = ::fchmod(fd, 0666 & ~mask) == 0 && WriteAll(fd, data, size) && ::fsync(fd) == 0;
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && ::rename(temporary.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    ::unlink(temporary.c_str());
    return Status::Error(StatusCode::kIoError, "cannot write '%s': %s; the previous file is kept",
                         path.c_str(), std::strerror(error));
  }
  return Status::Ok();
}

}  // namespace trainscope

#else  // a board: no file system; models and data come embedded in the firmware

namespace trainscope {

Status ReadFileBytes(const std::string& path, size_t, std::vector<uint8_t>*) {
  return Status::Error(StatusCode::kUnsupported, "cannot read '%s': this build has no files",
                       path.c_str());
}

Status WriteFileAtomically(const std::string& path, const uint8_t*, size_t) {
  return Status::Error(StatusCode::kUnsupported, "cannot write '%s': this build has no files",
                       path.c_str());
}

}  // namespace trainscope

#endif
