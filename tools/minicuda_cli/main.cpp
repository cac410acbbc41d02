// minicuda: the command-line tool of the simulator (docs/cli.md).
//
//   minicuda run [--trace LAYERS] [--format text|json|chrome|html] [--out FILE] -- PROGRAM ARGS...
//   minicuda devices
//   minicuda explain CALL
//   minicuda smi [-q] [--loop N]
//   minicuda smi -- PROGRAM ARGS...
//   minicuda sass FILE.ptx [--kernel NAME] [--arch sm_90]
//
// CLI11 parses and writes --help; a mistyped subcommand or option gets a message that names
// what to type instead, and exit status 2.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"

namespace cli = minicuda::cli;

namespace {

const std::vector<std::string> kSubcommands = {"run", "devices", "explain", "smi", "sass", "profile"};

// The long option names of `app` ("--trace"...), for suggestions.
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

// A parse error as a line that says what to type instead.
int report(const CLI::ParseError& error, const CLI::App& app, int argc, char** argv) {
  std::string sub = argc > 1 ? argv[1] : "";
  const CLI::App* command = nullptr;
  for (const std::string& name : kSubcommands) {
    if (name == sub) command = app.get_subcommand(name);
  }
  if (!sub.empty() && sub[0] != '-' && command == nullptr) {
    std::string guess = cli::closest(sub, kSubcommands);
    std::fprintf(stderr, "minicuda: unknown subcommand '%s'", sub.c_str());
    if (!guess.empty()) std::fprintf(stderr, "; did you mean '%s'?", guess.c_str());
    std::fprintf(stderr, " see minicuda --help\n");
    return 2;
  }
  std::string where = command ? "minicuda " + sub : "minicuda";
  // An option that is not one: name it and the closest real one.
  const CLI::App& scope = command ? *command : app;
  for (int i = command ? 2 : 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    std::string name = arg.substr(0, arg.find('='));
    std::vector<std::string> names = option_names(scope);
    if (name == "-h" || std::find(names.begin(), names.end(), name) != names.end()) continue;
    std::string guess = cli::closest(name, names);
    std::fprintf(stderr, "%s: unknown option '%s'", where.c_str(), name.c_str());
    if (!guess.empty()) {
      std::fprintf(stderr, "; did you mean '%s'?", guess.c_str());
    } else if (sub == "run" || sub == "smi" || sub == "profile") {
      std::fprintf(stderr, " (options for the program go after --: %s [OPTIONS] -- PROGRAM ARGS...);",
                   where.c_str());
    } else {
      std::fprintf(stderr, ";");
    }
    std::fprintf(stderr, " see %s --help\n", where.c_str());
    return 2;
  }
  std::fprintf(stderr, "%s: %s; see %s --help\n", where.c_str(), error.what(), where.c_str());
  return 2;
}

std::string explain_help() {
  std::string text = "records one CUDA call in a fresh simulated process and explains its chain, layer by layer (";
  std::vector<std::string> calls = cli::explain_calls();
  for (size_t i = 0; i < calls.size(); ++i) text += (i ? ", " : "") + calls[i];
  return text + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"minicuda: run, inspect and explain programs on the simulated GPU stack", "minicuda"};
  app.require_subcommand(1);
  app.footer("See docs/cli.md. Example: minicuda run --trace cudart,libcuda -- build/bin/vector_add\n");

  cli::RunOptions run_options;
  CLI::App* run = app.add_subcommand("run", "runs PROGRAM with the trace switched on (MINICUDA_TRACE...)");
  run->add_option("--trace", run_options.trace,
                  "layers to trace: 1 (all), or a comma list of cudart,libc,libcuda,kernel,nvidia,uvm,gpu,warp (warp: each warp-instruction of a PTX kernel, never part of 1)")
      ->capture_default_str();
  run->add_option("--format", run_options.format, "text (a tree), json (JSON lines), chrome (ui.perfetto.dev) or html (one page for a browser)")
      ->capture_default_str();
  run->add_option("--out", run_options.out, "write the trace to FILE instead of stderr");
  run->add_option("command", run_options.command, "-- PROGRAM ARGS...: the program to run")->required();

  app.add_subcommand("devices", "prints what deviceQuery prints for each simulated GPU");

  std::string call;
  CLI::App* explain = app.add_subcommand("explain", explain_help());
  explain->add_option("call", call, "the CUDA call to explain")->required();

  std::vector<std::string> smi_command;
  cli::SmiLiveOptions smi_options;
  CLI::App* smi = app.add_subcommand(
      "smi", "the simulated GPUs of the running minicuda programs (nvidia-smi); with -- PROGRAM: runs it, then sums up its GPU work");
  smi->add_flag("-q,--query", smi_options.query, "the detailed form: every field of every GPU and process");
  smi->add_option("-l,--loop", smi_options.loop_seconds, "print again every N seconds, until interrupted")
      ->check(CLI::PositiveNumber);
  smi->add_option("command", smi_command, "-- PROGRAM ARGS...: run the program, then print what its GPU did");

  std::vector<std::string> profile_command;
  CLI::App* profile = app.add_subcommand("profile", "runs PROGRAM, then prints each PTX kernel's counters (ncu --print-summary)");
  profile->add_option("command", profile_command, "-- PROGRAM ARGS...: the program to run")->required();

  cli::SassOptions sass_options;
  CLI::App* sass = app.add_subcommand("sass", "compiles a .ptx file with the driver's JIT and prints the SASS beside the PTX (cuobjdump -sass)");
  sass->add_option("file", sass_options.file, "the .ptx file")->required();
  sass->add_option("--kernel", sass_options.kernel, "print only this .entry (default: every one)");
  sass->add_option("--arch", sass_options.arch, "the architecture to compile for: sm_XY")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report(e, app, argc, argv);
  }
  if (run->parsed()) return cli::run(run_options);
  if (app.got_subcommand("devices")) return cli::devices();
  if (explain->parsed()) return cli::explain(call);
  if (smi->parsed()) return smi_command.empty() ? cli::smi_live(smi_options) : cli::smi(smi_command);
  if (sass->parsed()) return cli::sass(sass_options);
  if (profile->parsed()) return cli::profile(profile_command);
  return 2;
}
