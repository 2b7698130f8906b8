// AtomicFile: a committed file replaces the previous one whole; an abandoned, failed or interrupted
// write leaves the previous file intact and no temporary file behind (the SIGTERM case runs in a
// death-test child with the real signal handler installed). Temporaries a SIGKILL left are removed
// by the next write of the same output; a live one (its flock held) and every name that is not
// exactly ours are left alone.
#include "common/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

TEST_F(AtomicFileTest, WriteWhenFullWritesOnlyAFullBufferAndEmptiesIt) {
  AtomicFile f;
  ASSERT_TRUE(f.Open(target_).ok());
  std::string buf = "line 1\n";
  ASSERT_TRUE(f.WriteWhenFull(&buf, 16).ok());
  EXPECT_EQ(buf, "line 1\n");  // below the threshold: kept
  buf += "line 2 is longer\n";
  ASSERT_TRUE(f.WriteWhenFull(&buf, 16).ok());
  EXPECT_TRUE(buf.empty());  // written and cleared
  buf = "tail\n";
  ASSERT_TRUE(f.Write(buf).ok());
  ASSERT_TRUE(f.Commit().ok());
  EXPECT_EQ(Read(), "line 1\nline 2 is longer\ntail\n");
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

// A descriptor holding an flock, as a concurrent run holds its live temporary.
class HeldLock {
 public:
  explicit HeldLock(const std::string& path, bool directory = false)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0))) {
    EXPECT_GE(fd_, 0) << path;
    EXPECT_EQ(::flock(fd_, LOCK_EX | LOCK_NB), 0) << path;
  }
  ~HeldLock() { ::close(fd_); }
  HeldLock(const HeldLock&) = delete;
  HeldLock& operator=(const HeldLock&) = delete;

 private:
  int fd_;
};

// Whether another open file description can take the flock of `path` (false: someone holds it).
bool LockIsFree(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return free;
}

TEST_F(AtomicFileTest, TemporaryLeftBySigkillIsRemovedByTheNextWrite) {
  // SIGKILL runs no handler: the half-written temporary stays. The next write of the same output
  // removes it, since no process holds its lock any more.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        AtomicFile f;
        if (!f.Open(target_).ok() || !f.Write("{\"half\": ").ok()) std::_Exit(3);
        ::raise(SIGKILL);
        std::_Exit(5);
      },
      ::testing::KilledBySignal(SIGKILL), "");
  std::vector<std::string> names = Names();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].rfind(".report.json.tmp-", 0), 0u) << names[0];
  EXPECT_EQ(names[0].size(), std::string(".report.json.tmp-XXXXXX").size());
  EXPECT_EQ(Read(), "previous");
  ASSERT_TRUE(WriteFileAtomically(target_, "new").ok());
  EXPECT_EQ(Names(), std::vector<std::string>{"report.json"});
  EXPECT_EQ(Read(), "new");
}

TEST_F(AtomicFileTest, OnlyStaleTemporariesOfOurExactNameAreRemoved) {
  auto plant = [&](const std::string& name) { std::ofstream(dir_ / name) << "x"; };
  plant(".report.json.tmp-AbC123");  // stale: exact shape, nobody holds it
  plant(".report.json.tmp-Live01");  // live: a concurrent run holds its lock
  HeldLock live((dir_ / ".report.json.tmp-Live01").string());
  std::vector<std::string> kept = {
      ".report.json.tmp-Live01",
      ".report.json.tmp-AbC12",       // five characters: not mkstemp's
      ".report.json.tmp-AbC1234",     // seven
      ".report.json.tmp-AbC_12",      // not a letter or digit
      ".report.json.tmp-AbC123.bak",  // a longer name
      ".report.html.tmp-AbC123",      // another output's (this run does not write it here)
      "report.json.tmp-AbC123",       // no leading dot
      ".report.json.tmp-Dir001",      // a directory
      ".report.json.tmp-Link01",      // a symbolic link (and what it points at)
      "victim",
  };
  for (const std::string& n : kept)
    if (n != ".report.json.tmp-Live01" && n != ".report.json.tmp-Dir001" &&
        n != ".report.json.tmp-Link01")
      plant(n);
  fs::create_directory(dir_ / ".report.json.tmp-Dir001");
  fs::create_symlink("victim", dir_ / ".report.json.tmp-Link01");
  if (::geteuid() == 0) {  // another user's file of the exact shape: not ours to remove
    plant(".report.json.tmp-Other1");
    ASSERT_EQ(::chown((dir_ / ".report.json.tmp-Other1").c_str(), 65534, 65534), 0);
    kept.push_back(".report.json.tmp-Other1");
  }
  ASSERT_TRUE(WriteFileAtomically(target_, "new").ok());
  kept.push_back("report.json");
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(Names(), kept);
  EXPECT_EQ(Read(), "new");
}

TEST_F(AtomicFileTest, TemporaryHoldsItsLockUntilPublished) {
  AtomicFile a;
  ASSERT_TRUE(a.Open(target_).ok());
  const std::string temp = a.temp_path();
  EXPECT_FALSE(LockIsFree(temp));
  ASSERT_TRUE(a.Finish().ok());  // closed, not yet renamed: still held
  EXPECT_FALSE(LockIsFree(temp));
  {
    AtomicFile b;  // a second writer of the same output sweeps; a's temporary stays
    ASSERT_TRUE(b.Open(target_).ok());
    EXPECT_TRUE(fs::exists(temp));
  }
  ASSERT_TRUE(a.Publish().ok());
  EXPECT_TRUE(LockIsFree(target_));
  EXPECT_EQ(Names(), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicFileTest, StaleTemporaryDirectoriesOfTheTargetAreRemoved) {
  auto dir = [&](const std::string& name) {
    fs::create_directory(dir_ / name);
    return (dir_ / name).string();
  };
  std::ofstream(dir(".traces.tmp-123") + "/conversation-0.json") << "{}";
  std::ofstream(dir_ / ".traces.tmp-123" / ".conversation-1.json.tmp-XyZ123") << "{";
  HeldLock live(dir(".traces.tmp-456"), /*directory=*/true);
  dir(".traces.tmp-789");
  fs::create_directory(dir_ / ".traces.tmp-789" / "sub");  // not what an export writes
  dir(".traces.tmp-12a");
  dir(".traces.tmp-");
  dir(".traces2.tmp-123");
  std::ofstream(dir_ / ".traces.tmp-555") << "a file, not a directory";
  EXPECT_EQ(RemoveStaleTempDirectories(dir_.string(), "traces"), 1u);
  EXPECT_EQ(Names(), (std::vector<std::string>{".traces.tmp-", ".traces.tmp-12a", ".traces.tmp-456",
                                               ".traces.tmp-555", ".traces.tmp-789",
                                               ".traces2.tmp-123", "report.json"}));
  EXPECT_TRUE(fs::is_directory(dir_ / ".traces.tmp-789" / "sub"));
}

TEST_F(AtomicFileTest, LockedDirectoryStaysUntilItsLockIsReleased) {
  const std::string tmp = (dir_ / ".traces.tmp-42").string();
  const int fd = CreateLockedDirectory(tmp);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(CreateLockedDirectory(tmp), -1);  // exists
  EXPECT_EQ(RemoveStaleTempDirectories(dir_.string(), "traces"), 0u);
  EXPECT_TRUE(fs::is_directory(tmp));
  ::close(fd);  // as a SIGKILL would
  EXPECT_EQ(RemoveStaleTempDirectories(dir_.string(), "traces"), 1u);
  EXPECT_FALSE(fs::exists(tmp));
}

}  // namespace
}  // namespace ltl
