// The WebAssembly module's one entry point: the command-line tool itself (reshape1::cli::main), run on
// files in the module's memory file system. The JS API (reshape1.js) writes the files, builds the argument
// list from its options, and collects what the tool prints and writes: the JSON a page shows is the one
// `reshape1 ... --json` prints, from the same renderer, and the options and their refusals are the tool's.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <sys/stat.h>

#include "commands.hpp"

namespace {

/// Runs `reshape1 ARGS...` and returns its exit code; standard output and error go to the callbacks the
/// module was created with. Both are flushed before returning: the next command starts with nothing of this
/// one's left in a buffer.
int run(const emscripten::val& args) {
  // emscripten starts with a umask of 0777, and the tool gives a file it writes the permissions an ordinary
  // new file would have: none, there. A shell's usual mask instead, so that the JS API can read the files.
  ::umask(022);
  std::vector<std::string> words{"reshape1"};
  for (auto& a : emscripten::vecFromJSArray<std::string>(args)) words.push_back(std::move(a));
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const int code = reshape1::cli::main(static_cast<int>(words.size()), argv.data());
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  return code;
}

}  // namespace

EMSCRIPTEN_BINDINGS(reshape1) { emscripten::function("run", &run); }
