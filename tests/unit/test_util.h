// Helpers shared by unit tests: temporary directories and files, the shared public data path.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ltl::testing {

inline std::filesystem::path TempDir() {
  static std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ltl-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    return std::filesystem::path(made ? made : "/tmp");
  }();
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
