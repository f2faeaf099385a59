// The option tables of docs/cli.md and docs/python.md, generated from the one table the command line and
// the Python package take their options from (src/model/options.cpp).
//
//   option_docs --check docs/cli.md docs/python.md   exit 1, naming the block, when a table differs
//   option_docs --write docs/cli.md docs/python.md   rewrite the blocks in place
//
// A block is the text between `<!-- options: COMMAND -->` and `<!-- end options -->`; in docs/cli.md it
// lists the command's options with their Python keyword, in docs/python.md the function's keywords with
// their command-line option.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "model/options.hpp"

namespace {

using reshape1::model::detail::option_table;

std::string cell(std::string_view text) {
  std::string r;
  for (const char c : text) r += c == '|' ? std::string("\\|") : std::string(1, c);
  return r;
}

std::string cli_form(const reshape1::model::detail::option_row& r) {
  if (r.cli.empty()) return "(Python only)";
  std::string names(r.cli);
  std::string shown;
  for (std::size_t at = 0; at <= names.size();) {
    const auto comma = names.find(',', at);
    const auto name = names.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    shown += (shown.empty() ? "" : ", ") + std::string("`") + name + (r.cli_value.empty() ? "" : " " + std::string(r.cli_value)) + "`";
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return shown;
}

std::string python_form(const reshape1::model::detail::option_row& r) {
  if (r.python.empty()) return "(command line only)";
  return "`" + std::string(r.python) + "=" + std::string(r.python_value) + "`";
}

/// The generated table of `command` for `file` ("cli" or "python").
std::string table(std::string_view command, bool cli) {
  std::ostringstream out;
  out << (cli ? "| Option | Python | Meaning |\n" : "| Keyword | Command line | Meaning |\n") << "|---|---|---|\n";
  for (const auto& r : option_table()) {
    if (r.command != command || (!cli && r.python.empty()) || (cli && r.cli.empty())) continue;
    const std::string meaning = std::string(r.help) + (r.repeatable && cli ? " (repeatable)" : "");
    if (cli)
      out << "| " << cli_form(r) << " | " << python_form(r) << " | " << cell(meaning) << " |\n";
    else
      out << "| " << python_form(r) << " | " << cli_form(r) << " | " << cell(meaning) << " |\n";
  }
  return out.str();
}

/// The file with every block regenerated; `stale` collects the commands whose block differed.
std::string regenerated(const std::string& text, bool cli, std::string& stale, std::size_t& blocks) {
  constexpr std::string_view open = "<!-- options: ", close = "<!-- end options -->";
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const auto start = text.find(open, at);
    if (start == std::string::npos) break;
    const auto line_end = text.find("-->\n", start);
    const auto end = text.find(close, start);
    if (line_end == std::string::npos || end == std::string::npos) throw std::runtime_error("an unclosed options block");
    auto command = text.substr(start + open.size(), line_end - start - open.size());
    command.erase(command.find_last_not_of(' ') + 1);
    const auto body_at = line_end + 4;
    const std::string want = table(command, cli);
    if (want.find("|\n|---|---|---|\n|") == std::string::npos) throw std::runtime_error("no options for '" + command + "'");
    if (text.substr(body_at, end - body_at) != want) stale += (stale.empty() ? "" : ", ") + command;
    out += text.substr(at, body_at - at) + want;
    at = end;
    ++blocks;
  }
  return out + text.substr(at);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (std::string_view(argv[1]) != "--check" && std::string_view(argv[1]) != "--write")) {
    std::cerr << "usage: option_docs --check|--write CLI.md PYTHON.md\n";
    return 2;
  }
  const bool write = std::string_view(argv[1]) == "--write";
  int status = 0;
  for (int i = 2; i < 4; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (!in) {
      std::cerr << argv[i] << ": cannot read\n";
      return 2;
    }
    std::string stale;
    std::size_t blocks = 0;
    std::string text;
    try {
      text = regenerated(buffer.str(), i == 2, stale, blocks);
    } catch (const std::exception& e) {
      std::cerr << argv[i] << ": " << e.what() << '\n';
      return 2;
    }
    if (blocks == 0) {
      std::cerr << argv[i] << ": no options block\n";
      status = 1;
    } else if (!stale.empty() && write) {
      std::ofstream(argv[i], std::ios::binary) << text;
      std::cout << argv[i] << ": rewrote " << stale << '\n';
    } else if (!stale.empty()) {
      std::cerr << argv[i] << ": the options of " << stale
                << " differ from src/model/options.cpp; run option_docs --write (see docs/cli.md)\n";
      status = 1;
    }
  }
  return status;
}
