// AtomicFile: a committed file replaces the previous one whole; an abandoned, failed or interrupted
// write leaves the previous file intact and no temporary file behind (the SIGTERM case runs in a
// death-test child with the real signal handler installed).
#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ltl {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  // A threadsafe death test runs the test again in a new process, SetUp included. That child
  // must work in the parent's directory, which the parent inspects after it died (with a
  // directory of its own, the parent's checks looked at files no child had touched, and the
  // child's directory stayed behind in /tmp). The parent names the directory in the environment.
  static constexpr const char* kDirVariable = "LTL_ATOMIC_TEST_DIR";

  void SetUp() override {
    if (const char* inherited = std::getenv(kDirVariable)) {  // the death-test child
      dir_ = inherited;
      target_ = (dir_ / "report.json").string();
      return;
    }
    dir_ = fs::temp_directory_path() /
           ("ltl-atomic-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    target_ = (dir_ / "report.json").string();
    std::ofstream(target_) << "previous";
    ::setenv(kDirVariable, dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv(kDirVariable);
    fs::remove_all(dir_);
  }

  std::string Read() const {
    std::ifstream f(target_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
  std::string target_;
};

TEST_F(AtomicFileTest, CommitReplacesWholeFile) {
  ASSERT_TRUE(WriteFileAtomically(target_, "new content").ok());
  EXPECT_EQ(Read(), "new content");
  EXPECT_EQ(Names(), std::vector<std::string>{"report.json"});
  struct stat st;
  ASSERT_EQ(::stat(target_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(AtomicFileTest, AbandonedWriteKeepsPrevious) {
  {
    AtomicFile f;
    ASSERT_TRUE(f.Open(target_).ok());
    ASSERT_TRUE(f.Write("half a rep").ok());
    EXPECT_EQ(Names().size(), 2u);  // the temporary file sits beside the target
  }                                 // destroyed without Commit()
  EXPECT_EQ(Read(), "previous");
  EXPECT_EQ(Names(), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicFileTest, UnwritableDirectoryIsAClearError) {
  Status st = WriteFileAtomically((dir_ / "missing" / "r.json").string(), "x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("missing/r.json: cannot create output"), std::string::npos)
      << st.message();
}

TEST_F(AtomicFileTest, SigtermDuringWriteRemovesTempAndKeepsPrevious) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InstallInterruptCleanup();
        AtomicFile f;
        if (!f.Open(target_).ok()) std::_Exit(3);
        if (!f.Write("half a rep").ok()) std::_Exit(4);
        ::raise(SIGTERM);
        std::_Exit(5);  // not reached: the handler re-raises with the default action
      },
      ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(Read(), "previous");
  EXPECT_EQ(Names(), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicFileTest, SigintWithTwoPendingOutputs) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string second = (dir_ / "report.html").string();
  EXPECT_EXIT(
      {
        InstallInterruptCleanup();
        AtomicFile a;
        AtomicFile b;
        if (!a.Open(target_).ok() || !b.Open(second).ok()) std::_Exit(3);
        (void)a.Write("{");
        (void)b.Write("<html>");
        ::raise(SIGINT);
        std::_Exit(5);
      },
      ::testing::KilledBySignal(SIGINT), "");
  EXPECT_EQ(Read(), "previous");
  EXPECT_EQ(Names(), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicFileTest, SigtermWhileBuildingADirectoryRemovesItAndItsFiles) {
  // The cache-trace export builds its output directory as a hidden temporary directory: an
  // interrupt after some files were written must leave neither the directory nor its files.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string tmp = (dir_ / ".traces.tmp-1").string();
  EXPECT_EXIT(
      {
        InstallInterruptCleanup();
        fs::create_directories(tmp);
        RegisterPendingTempDir(tmp);
        for (int i = 0; i < 300; ++i)  // more entries than one getdents64 buffer holds
          if (!WriteFileAtomically(tmp + "/conversation-" + std::to_string(i) + ".json", "{}").ok())
            std::_Exit(3);
        AtomicFile pending;  // and one file still being written inside it
        if (!pending.Open(tmp + "/last.json").ok()) std::_Exit(4);
        ::raise(SIGTERM);
        std::_Exit(5);
      },
      ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(Names(), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicFileTest, UnregisteredDirectoryIsLeftAlone) {
  const std::string out = (dir_ / "traces").string();
  fs::create_directories(out);
  RegisterPendingTempDir(out);
  UnregisterPendingTempDir();  // renamed into place: no longer temporary
  RemovePendingTempFiles();
  EXPECT_TRUE(fs::is_directory(out));
}

}  // namespace
}  // namespace ltl
