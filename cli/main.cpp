// reshape1 command-line tool. The one place where argument errors become exit codes.
#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "completion.hpp"
#include "reshape1/version.hpp"

int main(int argc, char** argv) {
  using namespace reshape1::cli;
  CLI::App app{"reshape1: OpenVINO's Reshape-1, complete and exact", "reshape1"};
  app.set_version_flag("--version", "reshape1 " + std::string(reshape1::version()));
  app.require_subcommand(1);
  int exit_code = exit_ok;
  add_infer(app, exit_code);
  add_run(app, exit_code);
  add_check(app, exit_code);
  add_completion(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "reshape1: internal error: " << e.what() << '\n';
    return exit_usage + 1;
  }
  return exit_code;
}
