// minicuda run: the trace variables of docs/trace.md, then execvp.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "commands.h"

namespace minicuda::cli {

int run(const RunOptions& options) {
  if (options.format != "text" && options.format != "json" && options.format != "chrome" && options.format != "html") {
    std::fprintf(stderr, "minicuda run: unknown --format '%s'; use text, json, chrome or html\n", options.format.c_str());
    return 2;
  }
  if (options.command.empty()) {
    std::fprintf(stderr, "minicuda run: no program given; type minicuda run [options] -- PROGRAM ARGS...\n");
    return 2;
  }
  setenv("MINICUDA_TRACE", options.trace.c_str(), 1);
  setenv("MINICUDA_TRACE_FORMAT", options.format.c_str(), 1);
  if (!options.out.empty()) {
    setenv("MINICUDA_TRACE_FILE", options.out.c_str(), 1);
  } else {
    unsetenv("MINICUDA_TRACE_FILE");
  }
  std::vector<char*> argv;
  for (const std::string& arg : options.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execvp(argv[0], argv.data());
  int err = errno;
  std::fprintf(stderr, "minicuda run: cannot run '%s': %s\n", argv[0], std::strerror(err));
  return err == ENOENT ? 127 : 126;
}

}  // namespace minicuda::cli
