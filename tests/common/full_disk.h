// SPDX-License-Identifier: Apache-2.0
//
// A small disk that fills: a tmpfs of `kib` KiB mounted on a fresh temporary folder (needs
// root, as CI and the development machines run; tests skip with the reason otherwise).
//
//   SmallDisk disk(64);
//   if (!disk.ok()) GTEST_SKIP() << disk.why();
//   WriteFileAtomically(disk.path() + "/x", ...);
#pragma once

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace trainscope::testing {

class SmallDisk {
 public:
  explicit SmallDisk(int kib) {
    char folder[] = "/tmp/trainscope-small-disk-XXXXXX";
    if (::mkdtemp(folder) == nullptr) {
      why_ = std::string("mkdtemp: ") + std::strerror(errno);
      return;
    }
    path_ = folder;
    const std::string options = "size=" + std::to_string(kib) + "k";
    if (::mount("tmpfs", folder, "tmpfs", 0, options.c_str()) != 0) {
      why_ = std::string("cannot mount a tmpfs (root needed): ") + std::strerror(errno);
      ::rmdir(folder);
      return;
    }
    mounted_ = true;
  }
  ~SmallDisk() {
    if (mounted_) ::umount(path_.c_str());
    if (!path_.empty()) ::rmdir(path_.c_str());
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  bool ok() const { return mounted_; }
  const std::string& why() const { return why_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string why_;
  bool mounted_ = false;
};

}  // namespace trainscope::testing
