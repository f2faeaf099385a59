// `reshape1 run DATA PATTERN --special-zero true|false -o OUT [options]`: reshape a tensor file.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "report.hpp"
#include "reshape1/io/npy.hpp"
#include "reshape1/reshape1.hpp"

namespace reshape1::cli {
namespace {

struct run_args {
  std::string data;
  std::string pattern;
  std::string output;
  std::string type;
  std::string shape_text;
  unsigned threads = 0;
  bool quiet = false;
  reshape_flags flags;
};

constexpr std::uint64_t progress_threshold = std::uint64_t{1} << 30;

/// Test hook (docs/cli.md): with RESHAPE1_TEST_PAUSE_BEFORE_RENAME=SECONDS, `run` stops that long once the
/// output's bytes are all written and before the temporary file is renamed, announcing it on standard
/// error, so that a test can send a signal while the temporary file exists.
double test_pause_seconds() {
  const char* v = std::getenv("RESHAPE1_TEST_PAUSE_BEFORE_RENAME");
  return v == nullptr ? 0.0 : std::strtod(v, nullptr);
}

int run(const run_args& a, session& s) {
  const bool raw = !a.type.empty();
  io::loaded_tensor data;
  if (raw) {
    data = io::read_raw(a.data, parse_element_type(a.type), parse_shape(a.shape_text).to_static());
  } else {
    data = io::read_npy(a.data);
  }
  const reshape_pattern pattern = load_pattern(a.pattern, a.flags, s);
  s.context.clear();
  const auto result = infer_shape(partial_shape(data.dims()), pattern, a.flags.zero_copies(), a.flags.options());
  const shape out_dims = result.shape.to_static();

  // A raw input is written raw, except under a .npy name, which gets a .npy file when numpy has the dtype.
  const bool npy_output = !raw || names_a_file(a.output);
  if (npy_output && io::numpy_dtype(data.type()).empty() && data.type() != element_type::string)
    throw CLI::ValidationError(
        "--output", printable(fmt::format("'{}' ends in .npy, but numpy has no dtype for {}, so the output is raw; "
                                          "give it another name (e.g. .bin)",
                                          a.output, name(data.type()))));
  const std::string summary = fmt::format("reshape1 run: {} {} -> {} {}", name(data.type()), to_string(data.dims()),
                                          to_string(out_dims), printable(a.output));

  // -o naming the input (through any link): allowed only when the file would come out the same.
  std::error_code ec;
  if (a.data != "-" && a.output != "-" && std::filesystem::equivalent(a.data, a.output, ec)) {
    const bool same_bytes = out_dims == data.dims() && npy_output == !raw &&
                            (data.file_backed() || data.type() == element_type::string);
    if (!same_bytes)
      throw CLI::ValidationError("--output", "names the input file DATA, which the reshape would change; write "
                                             "the output to another file");
    if (!a.quiet) std::cerr << summary << " (unchanged: it is DATA)\n";
    return exit_ok;
  }

  io::write_options w;
  w.threads = a.threads;
  const bool show_progress = !a.quiet && data.byte_size() > progress_threshold && ::isatty(STDERR_FILENO) != 0;
  const double pause = test_pause_seconds();
  bool paused = false;
  if (show_progress || pause > 0)
    w.progress = [&](std::uint64_t done, std::uint64_t total) {
      if (show_progress) {
        std::fprintf(stderr, "\rreshape1 run: writing %s: %3d%%", printable(a.output).c_str(),
                     static_cast<int>(total == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total)));
        if (done == total) std::fputc('\n', stderr);
      }
      if (pause > 0 && done == total && !paused) {
        paused = true;
        std::fputs("reshape1 run: test hook: paused before the rename\n", stderr);
        std::fflush(stderr);
        std::this_thread::sleep_for(std::chrono::duration<double>(pause));
      }
    };
  if (npy_output) {
    io::write_npy(a.output, data, out_dims, w);
  } else {
    io::write_raw(a.output, data, out_dims, w);
  }
  if (!a.quiet) std::cerr << summary << '\n';
  return exit_ok;
}

}  // namespace

void add_run(CLI::App& app, session& s) {
  auto args = std::make_shared<run_args>();
  auto* cmd = app.add_subcommand("run", "Reshape a tensor file (.npy, or raw with --type and --shape)");
  cmd->footer(
      "DATA is a .npy file (bool, int8..int64, uint8..uint64, float16/32/64, fixed-width strings), or a raw\n"
      "file with --type and --shape for the types numpy lacks (bf16, f8*, f4e2m1, nf4, i4, u1..u6); - reads\n"
      "standard input. DATA must be a regular file or standard input: FIFOs and devices are refused.\n"
      "PATTERN is the pattern notation ('[0,-1,4]': quote it, [ ] are glob characters to the shell) or a\n"
      "1-D .npy file of any integer dtype.\n"
      "The output has the input's dtype and is .npy (raw when DATA is raw and OUT does not end in .npy). A new\n"
      "or regular OUT is written to a temporary file beside it and renamed into place (a symbolic link is\n"
      "followed and its target replaced): on any error, or SIGINT/SIGTERM/SIGHUP/SIGXFSZ, nothing is left. A device,\n"
      "a FIFO or - (standard output) is written directly. OUT naming DATA is refused unless nothing changes.\n"
      "Exit codes: 0 success, 1 invalid input or impossible reshape, 2 usage error.");
  cmd->add_option("DATA", args->data, "input tensor file, or - for standard input")->required();
  cmd->add_option("PATTERN", args->pattern, "pattern, e.g. '[0,-1,4]', or a .npy file")->required();
  cmd->add_option("-o,--output", args->output, "output file, or - for standard output")
      ->required()
      ->check(non_empty());
  add_reshape_flags(*cmd, args->flags, /*with_sound_bounds=*/false);
  auto* type = cmd->add_option("--type", args->type, "element type of a raw DATA file (e.g. bf16, u4)")
                   ->check(element_type_name());
  auto* dims = cmd->add_option("--shape", args->shape_text, "shape of a raw DATA file, e.g. '[2,3]'")
                   ->check(static_shape_text());
  type->needs(dims);
  dims->needs(type);
  cmd->add_option("--threads", args->threads, "threads for writing large outputs (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  cmd->callback([args, &s] {
    s.command = "run";
    s.exit_code = run(*args, s);
  });
}

}  // namespace reshape1::cli
