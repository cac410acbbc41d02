// Processes: fd numbering, close, per-thread current process, isolation of fd tables.
#include <gtest/gtest.h>

#include "minicuda/kernel.h"

namespace k = minicuda::kernel;

namespace {
int g_opens = 0, g_releases = 0;
long fake_open(k::File& f) {
  ++g_opens;
  f.private_data = &g_opens;
  return 0;
}
void fake_release(k::File&) { ++g_releases; }
const k::FileOperations kFake = {"fake", fake_open, fake_release, nullptr, nullptr, nullptr, nullptr};

struct FakeNode {
  FakeNode() { k::register_chrdev("/dev/minicuda-test-proc", 240, 0, &kFake); }
  ~FakeNode() { k::unregister_chrdev("/dev/minicuda-test-proc"); }
};
}  // namespace

TEST(Process, DescriptorsStartAtThreeAndReuseTheLowestFree) {
  FakeNode node;
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  int a = k::sys_open("/dev/minicuda-test-proc", k::kORdWr);
  int b = k::sys_open("/dev/minicuda-test-proc", k::kORdWr);
  EXPECT_EQ(a, 3);
  EXPECT_EQ(b, 4);
  EXPECT_EQ(k::sys_close(a), 0);
  EXPECT_EQ(k::sys_open("/dev/minicuda-test-proc", k::kORdWr), 3);
  EXPECT_EQ(p->open_files(), 2u);
}

TEST(Process, CloseCallsReleaseAndBadFdIsEBADF) {
  FakeNode node;
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  int before = g_releases;
  int fd = k::sys_open("/dev/minicuda-test-proc", k::kORdWr);
  ASSERT_GE(fd, 3);
  EXPECT_EQ(k::sys_close(fd), 0);
  EXPECT_EQ(g_releases, before + 1);
  EXPECT_EQ(k::sys_close(fd), -k::kEBADF);
  EXPECT_EQ(k::sys_close(-1), -k::kEBADF);
  EXPECT_EQ(k::sys_close(1), -k::kEBADF);
}

TEST(Process, ExitReleasesEveryFile) {
  FakeNode node;
  int before = g_releases;
  {
    auto p = k::spawn_process();
    k::ProcessScope as(*p);
    k::sys_open("/dev/minicuda-test-proc", k::kORdWr);
    k::sys_open("/dev/minicuda-test-proc", k::kORdWr);
  }
  EXPECT_EQ(g_releases, before + 2);
}

TEST(Process, FdTablesAreSeparate) {
  FakeNode node;
  auto p1 = k::spawn_process();
  auto p2 = k::spawn_process();
  EXPECT_NE(p1->pid(), p2->pid());
  int fd;
  {
    k::ProcessScope as(*p1);
    fd = k::sys_open("/dev/minicuda-test-proc", k::kORdWr);
  }
  k::ProcessScope as(*p2);
  EXPECT_EQ(k::sys_ioctl(fd, 0, nullptr), -k::kEBADF);
  EXPECT_EQ(p2->file(fd), nullptr);
}

TEST(Process, OpenOfUnknownNodeIsENOENT) {
  EXPECT_EQ(k::sys_open("/dev/does-not-exist", k::kORdWr), -k::kENOENT);
  EXPECT_EQ(k::sys_open(nullptr, k::kORdWr), -k::kEFAULT);
}

TEST(Process, DoubleRegistrationIsEBUSY) {
  FakeNode node;
  EXPECT_EQ(k::register_chrdev("/dev/minicuda-test-proc", 240, 1, &kFake), -k::kEBUSY);
}
