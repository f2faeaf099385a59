// `reshape1 run DATA PATTERN --special-zero true|false -o OUT [options]`: reshape a tensor file.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
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

/// PATTERN is a .npy file when it names one; otherwise the pattern notation.
bool names_a_file(const std::string& pattern) {
  std::error_code ec;
  return pattern.ends_with(".npy") || std::filesystem::is_regular_file(pattern, ec);
}

reshape_pattern load_pattern(const run_args& a, std::string& what) {
  if (names_a_file(a.pattern)) {
    what = fmt::format("PATTERN '{}'", a.pattern);
    if (!a.flags.pattern_type.empty())
      throw error(errc::invalid_argument, {},
                  "--pattern-type applies to a pattern written as text; a .npy pattern's dtype is its type");
    const auto file = io::read_npy(a.pattern);
    const auto& v = file.view();
    if (v.type() == element_type::string || !is_integer(v.type()))
      return reshape_pattern::unknown(partial_shape(v.dims())).with_element_type(v.type());
    return reshape_pattern::from_tensor(v.type(), v.bytes(), v.dims());
  }
  what = "--pattern-type";
  const element_type type = a.flags.pattern_element_type();
  what = fmt::format("PATTERN '{}'", a.pattern);
  return parse_pattern(a.pattern, type);
}

int run(const run_args& a) {
  std::string what;
  try {
    const bool raw = !a.type.empty();
    io::loaded_tensor data;
    if (raw) {
      what = "--type";
      const element_type type = parse_element_type(a.type);
      what = fmt::format("--shape '{}'", a.shape_text);
      const shape dims = parse_shape(a.shape_text).to_static();
      what.clear();
      data = io::read_raw(a.data, type, dims);
    } else {
      data = io::read_npy(a.data);
    }
    const reshape_pattern pattern = load_pattern(a, what);
    what.clear();
    const auto& in = data.view();
    const auto result = infer_shape(partial_shape(in.dims()), pattern, a.flags.zero_copies(), a.flags.options());
    const tensor_view out(in.data(), in.type(), result.shape.to_static());

    io::write_options w;
    w.threads = a.threads;
    w.string_kind = data.dtype().find('S') != std::string::npos ? 'S' : 'U';
    const bool show_progress = !a.quiet && in.byte_size() > progress_threshold && ::isatty(STDERR_FILENO) != 0;
    if (show_progress)
      w.progress = [&](std::uint64_t done, std::uint64_t total) {
        std::fprintf(stderr, "\rreshape1 run: writing %s: %3d%%", a.output.c_str(),
                     static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)));
        if (done == total) std::fputc('\n', stderr);
      };
    if (raw) {
      io::write_raw(a.output, data, out.dims(), w);
    } else {
      io::write_npy(a.output, data, out.dims(), w);
    }
    if (!a.quiet)
      std::cerr << fmt::format("reshape1 run: {} {} -> {} {}\n", name(in.type()), to_string(in.dims()),
                               to_string(out.dims()), a.output);
    return exit_ok;
  } catch (const error& e) {
    std::cerr << "reshape1 run: " << (what.empty() ? std::string() : what + ": ") << e.what() << '\n';
    return exit_invalid;
  }
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<run_args>();
  auto* cmd = app.add_subcommand("run", "Reshape a tensor file (.npy, or raw with --type and --shape)");
  cmd->footer(
      "DATA is a .npy file (bool, int8..int64, uint8..uint64, float16/32/64, fixed-width strings), or a raw\n"
      "file with --type and --shape for the types numpy lacks (bf16, f8*, f4e2m1, nf4, i4, u1..u6).\n"
      "PATTERN is the pattern notation ([0,-1,4]) or a 1-D .npy file of any integer dtype.\n"
      "The output is .npy (raw when the input is raw), written to a temporary file and renamed into place:\n"
      "on any error nothing is written.\n"
      "Exit codes: 0 success, 1 invalid input or impossible reshape, 2 usage error.");
  cmd->add_option("DATA", args->data, "input tensor file")->required();
  cmd->add_option("PATTERN", args->pattern, "pattern, e.g. [0,-1,4], or a .npy file")->required();
  cmd->add_option("-o,--output", args->output, "output file")->required();
  add_reshape_flags(*cmd, args->flags, /*with_sound_bounds=*/false);
  auto* type = cmd->add_option("--type", args->type, "element type of a raw DATA file (e.g. bf16, u4)");
  auto* dims = cmd->add_option("--shape", args->shape_text, "shape of a raw DATA file, e.g. [2,3]");
  type->needs(dims);
  dims->needs(type);
  cmd->add_option("--threads", args->threads, "threads for writing large outputs (default: all cores)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace reshape1::cli
