// minicuda smi on a running program: this test is the program. It allocates device memory, so
// its nvidia.ko publishes a status file (driver/kernel/nvidia_ko/src/nv_smi.cpp) into a folder
// of its own (MINICUDA_SMI_DIR), and then runs the built `minicuda smi` (MINICUDA_CLI) on that
// folder while it is still alive: the table and the -q form must name this pid and its memory
// to the byte; a dead pid's file, a pid reused by another process, and bad or truncated files
// must not show up, nor crash the CLI.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

void smi_spin_launch(volatile int* stop);  // smi_spin_kernel.cu

namespace {

std::string g_dir;  // this test's MINICUDA_SMI_DIR

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

std::string own_file() { return g_dir + "/" + std::to_string(getpid()) + ".json"; }

// Waits until this process's status file holds `needle` (the publisher rewrites it every 20 ms).
bool published(const std::string& needle) {
  for (int i = 0; i < 500; ++i) {
    if (read_text(own_file()).find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr
};

CliRun run_cli(const std::string& args) {
  CliRun r;
  const std::string command = std::string(MINICUDA_CLI) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

class SmiLive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/minicuda-smi-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    g_dir = tmpl;
    // Read when the first RM client is made: before this process's first CUDA call.
    setenv("MINICUDA_SMI_DIR", g_dir.c_str(), 1);
    setenv("MINICUDA_SMI_INTERVAL_MS", "20", 1);
    ASSERT_EQ(cudaMalloc(&small_, 1 << 20), cudaSuccess);      // a 2 MiB pool chunk
    ASSERT_EQ(cudaMalloc(&large_, 3 << 20), cudaSuccess);      // a chunk of its own, 4 MiB
  }
  static void TearDownTestSuite() {
    cudaFree(small_);
    cudaFree(large_);
  }
  static void* small_;
  static void* large_;
};
void* SmiLive::small_ = nullptr;
void* SmiLive::large_ = nullptr;

// The context's own local memory (414 MiB on the H200: driver/user/src/context_reserve.h) and the
// two chunks, 2 MiB + 4 MiB.
constexpr unsigned long long kVidmem = 0x19e00000ull + (6ull << 20);

TEST_F(SmiLive, TableNamesThePidAndItsMemory) {
  ASSERT_TRUE(published("\"memory_used\":" + std::to_string(kVidmem) + ",\"contexts\":1")) << read_text(own_file());
  CliRun r = run_cli("smi");
  EXPECT_EQ(r.status, 0) << r.out;
  const std::string pid = std::to_string(getpid());
  // The GPU row: the simulated H200, this program's pid, the PMA's 420 MiB in use.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\\|   0  NVIDIA H200 +" + pid + " \\|"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(" 420MiB / [0-9]+MiB"))) << r.out;
  // The Processes row: GPU 0, this pid, type C, this program's name, 420 MiB.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\\|    0   N/A  N/A +" + pid + "      C   test_smi_live +420MiB \\|")))
      << r.out;
  EXPECT_NE(r.out.find("Driver Version: 580.159.04"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| 00000000:00:06.0   Off |"), std::string::npos) << r.out;  // the H200's, as measured
}

// While a grid runs, the file names it and the compute engine is busy for the whole interval.
TEST_F(SmiLive, RunningKernelAndUtilisation) {
  int* stop = nullptr;
  ASSERT_EQ(cudaHostAlloc(&stop, sizeof(int), cudaHostAllocMapped), cudaSuccess);
  *stop = 0;
  smi_spin_launch(stop);
  ASSERT_TRUE(published("\"compute\":100,")) << read_text(own_file());
  ASSERT_TRUE(published("\"running_kernel\":\"smi_spin\"")) << read_text(own_file());
  CliRun table = run_cli("smi");
  CliRun query = run_cli("smi -q");
  __atomic_store_n(stop, 1, __ATOMIC_RELEASE);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(std::regex_search(table.out, std::regex("\\|    100%      Default \\|"))) << table.out;
  EXPECT_TRUE(std::regex_search(query.out, std::regex("Running Kernel +: smi_spin \\(channel [0-9]+\\)"))) << query.out;
  EXPECT_TRUE(std::regex_search(query.out, std::regex("Grids Launched +: 1\n"))) << query.out;
  // Then the engine is idle again: no kernel, and (a whole interval later) 0%.
  EXPECT_TRUE(published("\"compute\":0,\"ce0\"")) << read_text(own_file());
  EXPECT_TRUE(published("\"running_kernel\":\"\"")) << read_text(own_file());
  EXPECT_EQ(cudaFreeHost(stop), cudaSuccess);
}

TEST_F(SmiLive, QueryFormGivesTheBytes) {
  ASSERT_TRUE(published("\"memory_used\":" + std::to_string(kVidmem)));
  CliRun r = run_cli("smi -q");
  EXPECT_EQ(r.status, 0) << r.out;
  const std::string pid = std::to_string(getpid());
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Simulated By +: pid " + pid + " \\(test_smi_live\\), its device 0")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Process ID +: " + pid + "\n +Simulated PID +: 1000\n"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Used GPU Memory +: 420 MiB \\(440401920 bytes\\)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Contexts +: 1\n"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Temperature +: N/A \\(not simulated\\)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Running Kernel +: None"))) << r.out;
}

// A file left by a program that was killed: its pid is dead, or now another process's.
TEST_F(SmiLive, StaleFilesAreIgnored) {
  ASSERT_TRUE(published("\"memory_used\":" + std::to_string(kVidmem)));
  const std::string mine = read_text(own_file());
  const std::string self = "\"pid\":" + std::to_string(getpid()) + ",";
  ASSERT_NE(mine.find(self), std::string::npos);
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);  // reaped: the pid is dead
  std::string dead = mine;
  dead.replace(dead.find(self), self.size(), "\"pid\":" + std::to_string(child) + ",");
  write_text(g_dir + "/" + std::to_string(child) + ".json", dead);
  // The parent of this test runs, but did not start at the file's start_time: a reused pid.
  std::string reused = dead;
  const std::string parent = std::to_string(getppid());
  const size_t pid_at = reused.find("\"pid\":");
  reused.replace(pid_at, reused.find(',', pid_at) - pid_at, "\"pid\":" + parent);
  reused.replace(reused.find("\"start_time\":"), reused.find(",\"driver_version\"") - reused.find("\"start_time\":"),
                 "\"start_time\":1");
  write_text(g_dir + "/" + parent + ".json", reused);
  CliRun r = run_cli("smi");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find(" " + std::to_string(child) + " "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" " + parent + " "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("skipped"), std::string::npos) << r.out;  // stale is not an error
  EXPECT_NE(r.out.find(" " + std::to_string(getpid()) + " "), std::string::npos) << r.out;
  std::remove((g_dir + "/" + std::to_string(child) + ".json").c_str());
  std::remove((g_dir + "/" + parent + ".json").c_str());
}

// Files that are not status files, under the name of a live pid (this test's parent): each is
// named on stderr and skipped; the live program still shows; the CLI exits 0.
TEST_F(SmiLive, BadFilesNeverCrashTheCli) {
  ASSERT_TRUE(published("\"memory_used\":" + std::to_string(kVidmem)));
  const std::string mine = read_text(own_file());
  const std::string path = g_dir + "/" + std::to_string(getppid()) + ".json";
  const std::string bad[] = {
      "",                                             // empty
      mine.substr(0, mine.size() / 2),                // cut short
      mine.substr(0, mine.size() - 3),                // cut short at the end
      "not json at all \x01\x02",                     // garbage
      std::string(100000, '['),                       // nested deeper than the reader goes
      "{\"version\":1,\"pid\":\"x\"}",                // wrong kinds
      "{\"version\":2,\"pid\":1}",                    // another format
      mine + "trailing",                              // a value and then more
      "{\"version\":1,\"pid\":1e400}",                // a number out of range
      "\"unterminated \\u12",                         // a broken escape
  };
  for (const std::string& text : bad) {
    write_text(path, text);
    for (const char* args : {"smi", "smi -q"}) {
      CliRun r = run_cli(args);
      EXPECT_EQ(r.status, 0) << args << " on " << text.substr(0, 60) << ":\n" << r.out;
      EXPECT_NE(r.out.find(path + " is not a status file of format 1: skipped"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(std::to_string(getpid())), std::string::npos) << r.out;
    }
  }
  std::remove(path.c_str());
}

TEST_F(SmiLive, LoopPrintsAgain) {
  ASSERT_TRUE(published("\"memory_used\":" + std::to_string(kVidmem)));
  CliRun r = run_cli("smi --loop 1 & sleep 2.5; kill $!");
  size_t tables = 0;
  for (size_t at = r.out.find("Processes:"); at != std::string::npos; at = r.out.find("Processes:", at + 1)) ++tables;
  EXPECT_GE(tables, 2u) << r.out;
}

// A program's file goes with it: the sample runs to its end, and its folder is empty after.
TEST_F(SmiLive, FileIsRemovedAtExit) {
#ifdef MINICUDA_VECTOR_ADD
  char tmpl[] = "/tmp/minicuda-smi-exit-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string command = std::string("MINICUDA_SMI_DIR=") + tmpl + " " + MINICUDA_VECTOR_ADD + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(rmdir(tmpl), 0) << "the folder is not empty";
#else
  GTEST_SKIP() << "vector_add is not built";
#endif
}

}  // namespace
