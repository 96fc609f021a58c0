// SPDX-License-Identifier: Apache-2.0
//
// Reading refuses what is not a regular file and what is too large before reading it; writing
// keeps the previous file whenever the new one cannot be written whole (a full disk).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine/model/file_io.h"
#include "tests/common/full_disk.h"

namespace trainscope {
namespace {

std::string TempFolder() {
  static std::string folder = [] {
    char path[] = "/tmp/trainscope-file-io-XXXXXX";
    return std::string(::mkdtemp(path));
  }();
  return folder;
}

std::vector<std::string> FilesIn(const std::string& folder) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  return names;
}

TEST(ReadFileBytes, RefusesFifosDevicesAndFoldersWithoutBlockingOnThem) {
  const std::string fifo = TempFolder() + "/input.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<uint8_t> bytes;
  Status status = ReadFileBytes(fifo, 1024, &bytes);  // would block forever if it opened it
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
  EXPECT_NE(std::string(status.message()).find("is a FIFO"), std::string::npos) << status.message();
  status = ReadFileBytes("/dev/zero", 1024, &bytes);  // would never end
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
  EXPECT_NE(std::string(status.message()).find("'/dev/zero' is a device"), std::string::npos);
  status = ReadFileBytes(TempFolder(), 1024, &bytes);
  EXPECT_NE(std::string(status.message()).find("is a folder"), std::string::npos);
  ::unlink(fifo.c_str());
}

TEST(ReadFileBytes, RefusesAFileOverTheCapBeforeReadingIt) {
  // 3 GiB that take no disk: refused from its size alone, so this returns at once.
  const std::string sparse = TempFolder() + "/huge.bin";
  FILE* file = std::fopen(sparse.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(::ftruncate(::fileno(file), int64_t{3} << 30), 0);
  std::fclose(file);
  std::vector<uint8_t> bytes;
  const Status status = ReadFileBytes(sparse, size_t{1} << 20, &bytes);
  EXPECT_EQ(status.code(), StatusCode::kInvalidFile);
  EXPECT_NE(std::string(status.message()).find("larger than 1048576 bytes"), std::string::npos);
  EXPECT_TRUE(bytes.empty());
  ::unlink(sparse.c_str());
}

TEST(WriteFileAtomically, ReplacesTheFileAndLeavesNoTemporary) {
  const std::string folder = TempFolder() + "/replace";
  ::mkdir(folder.c_str(), 0700);
  const std::string path = folder + "/out.bin";
  const std::vector<uint8_t> first(100, 1), second(300, 2);
  ASSERT_TRUE(WriteFileAtomically(path, first.data(), first.size()).ok());
  ASSERT_TRUE(WriteFileAtomically(path, second.data(), second.size()).ok());
  std::vector<uint8_t> read;
  ASSERT_TRUE(ReadFileBytes(path, 1024, &read).ok());
  EXPECT_EQ(read, second);
  EXPECT_EQ(FilesIn(folder), std::vector<std::string>{"out.bin"});
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_NE(info.st_mode & 0044, 0u) << "a new file's usual permissions, not mkstemp's 0600";
}

TEST(WriteFileAtomically, AFullDiskKeepsThePreviousFileAndSaysWhy) {
  testing::SmallDisk disk(64);
  if (!disk.ok()) GTEST_SKIP() << disk.why();
  const std::string path = disk.path() + "/checkpoint.bin";
  const std::vector<uint8_t> good(1788, 7);
  ASSERT_TRUE(WriteFileAtomically(path, good.data(), good.size()).ok());
  const std::vector<uint8_t> too_big(200 * 1024, 9);
  const Status status = WriteFileAtomically(path, too_big.data(), too_big.size());
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(std::string(status.message()).find("No space left on device"), std::string::npos)
      << status.message();
  std::vector<uint8_t> read;
  ASSERT_TRUE(ReadFileBytes(path, 1 << 20, &read).ok());
  EXPECT_EQ(read, good) << "the previous file is intact";
  EXPECT_EQ(FilesIn(disk.path()), std::vector<std::string>{"checkpoint.bin"});
}

}  // namespace
}  // namespace trainscope
