// reshape1 command-line tool: its options, and the one place where errors become messages and exit codes.
// main.cpp calls it; so does the WebAssembly module (wasm/), which runs the same commands on files in
// its memory file system.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "completion.hpp"
#include "io/files.hpp"
#include "model/options.hpp"
#include "report.hpp"
#include "reshape1/version.hpp"

namespace {

using namespace reshape1::cli;

/// The exit code for an error a subcommand throws: for `check`, `fix` and `shapes`, the model could not be read or an
/// option is wrong (2, as 1 means that some layer has a problem); for `infer` and `run`, invalid input (1).
int exit_code_for(const session& s, reshape1::errc) {
  return s.command == "check" || s.command == "fix" || s.command == "shapes" ? exit_usage : exit_invalid;
}

extern "C" void on_termination(int signal) {
  // Async-signal-safe: unlink the temporary files of unfinished writes, then die of the signal as usual.
  reshape1::io::detail::remove_temporary_files();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void remove_temporary_files_on_termination() {
  // SIGXFSZ: a file-size limit (ulimit -f) reached while writing ends the process as the others do.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // started ignoring it (nohup): keep ignoring it
    struct sigaction sa {};
    sa.sa_handler = on_termination;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

void add_help(CLI::App& app) {
  auto* cmd = app.add_subcommand("help", "Print this help, or a subcommand's: reshape1 help run");
  auto topic = std::make_shared<std::string>();
  cmd->add_option("COMMAND", *topic, "infer, run, check, fix or shapes")->check(CLI::IsMember({"infer", "run", "check", "fix", "shapes"}));
  cmd->callback([&app, topic] {
    if (topic->empty()) {
      std::cout << app.get_formatter()->make_help(&app, "reshape1", CLI::AppFormatMode::Normal);
    } else {
      const CLI::App* sub = app.get_subcommand(*topic);
      std::cout << sub->get_formatter()->make_help(sub, "reshape1 " + *topic, CLI::AppFormatMode::Normal);
    }
  });
}

}  // namespace

int reshape1::cli::main(int argc, char** argv) {
  CLI::App app{"reshape1: OpenVINO's Reshape-1, complete and exact", "reshape1"};
  app.set_version_flag("--version", "reshape1 " + std::string(reshape1::version()));
  app.require_subcommand(1);
  app.footer("Quote shapes and patterns ('[2,5,5,24]'): [ ] and ? are glob characters to the shell.\n"
             "Exit codes: 0 success, 1 invalid input (or a check that answers no), 2 usage error, 3 a bug in reshape1,\n"
             "4 check --batch cannot tell; see docs/cli.md.");
  session s;
  add_infer(app, s);
  add_run(app, s);
  add_check(app, s);
  add_fix(app, s);
  add_shapes(app, s);
  add_help(app);
  add_completion(app);
  remove_temporary_files_on_termination();
  auto who = [&] { return s.command.empty() ? std::string("reshape1") : "reshape1 " + s.command; };
  try {
    app.parse(argc, argv);
    return s.exit_code;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (s.command.empty())
      for (const auto* sub : app.get_subcommands())
        if (sub->get_name() != "help") s.command = sub->get_name();
    // A --json run answers in JSON even when its options do not parse: a script reads one object.
    if (std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--json"; })) {
      const reshape1::error usage_error(reshape1::errc::invalid_argument, {}, e.what());
      std::cout << json_text(error_json(usage_error, e.what())) << '\n';
      return exit_usage;
    }
    std::cerr << who() << ": " << printable(e.what()) << "\nRun '" << who() << " --help' for more information.\n";
    return exit_usage;
  } catch (const reshape1::error& e) {
    const std::string message = s.context.empty() ? e.what() : fmt::format("{}: {}", s.context, e.what());
    if (s.json) {
      std::cout << json_text(error_json(e, message)) << '\n';
    } else {
      std::cerr << who() << ": " << printable(message) << '\n';
    }
    return exit_code_for(s, e.code());
  } catch (const std::bad_alloc&) {
    // Not the input's fault as such, nor an answer: for check and fix, exit 1 would read as "no". Saying so
    // allocates: where even that fails, the words are written as they are.
    const int code = exit_code_for(s, reshape1::errc::too_large);
    static constexpr const char* message = "not enough memory: the input needs more than this process can allocate";
    try {
      if (s.json) {
        std::cout << json_text(out_of_memory_json(message)) << '\n';
      } else {
        std::cerr << who() << ": " << message << '\n';
      }
    } catch (const std::bad_alloc&) {
      std::fputs(s.json ? R"({"error":{"code":"out_of_memory","message":"not enough memory","indices":[]}})" "\n"
                        : "reshape1: not enough memory\n",
                 s.json ? stdout : stderr);
    }
    return code;
  } catch (const std::exception& e) {
    std::cerr << who() << ": internal error (a bug in reshape1: please report it): " << printable(e.what()) << '\n';
    return exit_internal;
  }
}
