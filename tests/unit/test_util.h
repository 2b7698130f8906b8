// Helpers shared by unit tests: temporary directories and files, the shared public data path.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <unistd.h>

namespace ltl::testing {

// One directory per test process, removed with its files when the process exits (each ctest
// entry is its own process, so a suite run left hundreds behind before). A forked child (a death
// test) exits without removing its parent's directory.
inline std::filesystem::path TempDir() {
  struct Owned {
    std::filesystem::path path;
    pid_t owner = ::getpid();
    Owned() {
      std::string tmpl = (std::filesystem::temp_directory_path() / "ltl-test-XXXXXX").string();
      if (::mkdtemp(tmpl.data()) != nullptr) path = tmpl;
    }
    ~Owned() {
      std::error_code ec;
      if (!path.empty() && ::getpid() == owner && std::getenv("LTL_KEEP_TEST_DIRS") == nullptr)
        std::filesystem::remove_all(path, ec);
    }
  };
  static const Owned dir;
  return dir.path.empty() ? std::filesystem::path("/tmp") : dir.path;
}

// A new, empty directory TempDir()/name, for a test that reads a directory's contents: TempDir()
// is shared by every test of the process (a whole `ltl_tests` run is one process) and holds what
// the tests before it wrote.
inline std::filesystem::path EmptyTempDir(const std::string& name) {
  auto dir = TempDir() / name;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  return dir;
}

inline std::string WriteTemp(const std::string& name, const std::string& content) {
  auto path = TempDir() / name;
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

// ../shared/data, or "" when absent.
inline std::string SharedData(const std::string& file) {
  const char* env = std::getenv("LTL_SHARED_DATA");
  std::filesystem::path p = env ? env : LTL_SOURCE_DIR "/../shared/data";
  p /= file;
  return std::filesystem::exists(p) ? p.string() : "";
}

}  // namespace ltl::testing
