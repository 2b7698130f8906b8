// The salt file: created with mode 0600 and 32 hex digits, reused unchanged, two files give
// different keys, and unsafe or malformed files are refused with a message that names the path
// but never the key.
#include "hash/salt_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace ltl {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(SaltFile, CreatedPrivateThenReused) {
  // A directory of its own: the check for temporary files below lists it.
  const std::filesystem::path dir = testing::EmptyTempDir("salt-created");
  std::string path = (dir / "salt-a").string();
  std::filesystem::remove(path);
  auto first = LoadOrCreateSalt(path);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->created);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string content = Slurp(path);
  ASSERT_EQ(content.size(), 33u);
  EXPECT_EQ(content.find_first_not_of("0123456789abcdef"), 32u);
  auto again = LoadOrCreateSalt(path);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->key.k0, first->key.k0);
  EXPECT_EQ(again->key.k1, first->key.k1);
  EXPECT_EQ(Slurp(path), content);
  // The key is the file's bytes, little-endian.
  auto parsed = ParseSalt(content, path);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->k0, first->key.k0);

  std::string other = (dir / "salt-b").string();
  std::filesystem::remove(other);
  auto second = LoadOrCreateSalt(other);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->key.k0, first->key.k0);
  // No temporary files left beside them.
  for (auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(SaltFile, ParsesKnownBytes) {
  auto k = ParseSalt("000102030405060708090a0b0c0d0e0f\n", "f");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->k0, 0x0706050403020100ull);
  EXPECT_EQ(k->k1, 0x0f0e0d0c0b0a0908ull);
}

TEST(SaltFile, RefusesUnsafeOrMalformedFiles) {
  std::string writable = testing::WriteTemp("salt-gw", "000102030405060708090a0b0c0d0e0f\n");
  ::chmod(writable.c_str(), 0620);
  auto r = LoadOrCreateSalt(writable);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("writable by group or others"), std::string::npos);
  EXPECT_EQ(r.status().message().find("000102"), std::string::npos);  // never the key

  auto dir = LoadOrCreateSalt(testing::TempDir().string());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("not a regular file"), std::string::npos);

  std::string bad = testing::WriteTemp("salt-bad", "secretsecretsecret\n");
  ::chmod(bad.c_str(), 0600);
  auto b = LoadOrCreateSalt(bad);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("32 hexadecimal digits"), std::string::npos);
  EXPECT_EQ(b.status().message().find("secret"), std::string::npos);

  auto missing_dir = LoadOrCreateSalt((testing::TempDir() / "no/such/dir/salt").string());
  EXPECT_FALSE(missing_dir.ok());
}

}  // namespace
}  // namespace ltl
