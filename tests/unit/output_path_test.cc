// Output paths (common/output_path.h): what -o may name, symlinks written through, the report pair
// published only when both files are complete, and streams written without being replaced.
#include "common/output_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ltl {
namespace {

namespace fs = std::filesystem;

class OutputPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ltl-output-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string P(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

TEST_F(OutputPathTest, NewAndRegularFilesAreFilesAndOtherKindsAreRefusedOrStreamed) {
  auto fresh = ResolveOutputPath(P("new.json"), false);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->kind, OutputPath::Kind::kFile);
  std::ofstream(P("old.json")) << "x";
  EXPECT_EQ(ResolveOutputPath(P("old.json"), false)->kind, OutputPath::Kind::kFile);

  ASSERT_EQ(::mkfifo(P("fifo").c_str(), 0600), 0);
  auto fifo = ResolveOutputPath(P("fifo"), true);
  ASSERT_TRUE(fifo.ok());
  EXPECT_EQ(fifo->kind, OutputPath::Kind::kStream);
  auto fifo_pair = ResolveOutputPath(P("fifo"), false);
  ASSERT_FALSE(fifo_pair.ok());
  EXPECT_NE(fifo_pair.status().message().find("is a FIFO"), std::string::npos);

  fs::create_directories(P("sub"));
  auto dir = ResolveOutputPath(P("sub"), true);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("is a directory; an output replaces only a regular file"),
            std::string::npos);

  EXPECT_EQ(ResolveOutputPath("-", true)->kind, OutputPath::Kind::kStream);
  EXPECT_FALSE(ResolveOutputPath("-", false).ok());
  EXPECT_EQ(ResolveOutputPath("/dev/null", true)->kind, OutputPath::Kind::kStream);
}

TEST_F(OutputPathTest, ASymlinkIsWrittenThroughAndStays) {
  std::ofstream(P("real.jsonl")) << "previous";
  fs::create_symlink("real.jsonl", P("link.jsonl"));
  auto out = ResolveOutputPath(P("link.jsonl"), true);
  ASSERT_TRUE(out.ok());
  OutputWriter w;
  ASSERT_TRUE(w.Open(*out).ok());
  ASSERT_TRUE(w.Write("new").ok());
  ASSERT_TRUE(w.Commit().ok());
  EXPECT_TRUE(fs::is_symlink(P("link.jsonl")));
  EXPECT_EQ(Read(P("real.jsonl")), "new");
  // A dangling link names the file to create.
  fs::create_symlink("made.jsonl", P("dangling.jsonl"));
  auto made = ResolveOutputPath(P("dangling.jsonl"), true);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(fs::path(made->path).filename(), "made.jsonl");
}

TEST_F(OutputPathTest, DirectoryPrefixesMeanReportInsideThem) {
  fs::create_directories(P("out"));
  EXPECT_EQ(ReportPrefix(P("out")), P("out") + "/report");
  EXPECT_EQ(ReportPrefix(P("out") + "/"), P("out") + "/report");
  EXPECT_EQ(ReportPrefix(P("missing/")), P("missing/") + "report");
  EXPECT_EQ(ReportPrefix(P("run1")), P("run1"));
}

TEST_F(OutputPathTest, APairIsPublishedOnlyWhenEveryFileIsComplete) {
  std::ofstream(P("report.html")) << "old html";
  std::ofstream(P("report.json")) << "old json";
  // The second file cannot be created: neither is replaced, and no temporary is left.
  Status st = WriteFilesTogether(
      {{P("report.html"), "new html"}, {P("no-such-dir/report.json"), "new json"}});
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(Read(P("report.html")), "old html");
  size_t entries = 0;
  for (auto it = fs::directory_iterator(dir_); it != fs::directory_iterator(); ++it) ++entries;
  EXPECT_EQ(entries, 2u);
  ASSERT_TRUE(
      WriteFilesTogether({{P("report.html"), "new html"}, {P("report.json"), "new json"}}).ok());
  EXPECT_EQ(Read(P("report.html")), "new html");
  EXPECT_EQ(Read(P("report.json")), "new json");
}

}  // namespace
}  // namespace ltl
