// The option table the command line, Python and the docs share (src/model/options.hpp): every option has a
// row, and each front end spells an option its own way in the library's messages.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/options.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1 {
namespace {

using model::detail::front_end;
using model::detail::option;

/// Sets the front end for one test and puts the default (the API's spelling) back.
struct spelled_for {
  explicit spelled_for(front_end f) { model::detail::set_front_end(f); }
  ~spelled_for() { model::detail::set_front_end(front_end::api); }
  spelled_for(const spelled_for&) = delete;
  spelled_for& operator=(const spelled_for&) = delete;
};

TEST(options, every_option_has_a_row_and_each_command_names_an_option_once) {
  std::set<option> seen;
  std::set<std::pair<std::string, std::string>> per_command;
  for (const auto& r : model::detail::option_table()) {
    seen.insert(r.key);
    EXPECT_TRUE(per_command.emplace(std::string(r.command), std::string(r.cli)).second) << r.command << ' ' << r.cli;
    EXPECT_FALSE(r.help.empty()) << r.cli;
    EXPECT_EQ(&model::detail::option_of(r.key, r.command), &r);
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(option::format) + 1);
}

TEST(options, the_api_spells_options_as_its_fields_and_the_command_line_as_its_flags) {
  EXPECT_EQ(model::detail::spell(option::shape, "x", "[2,3]"), "shapes['x']=[2,3]");
  EXPECT_EQ(model::detail::spell(option::batch, {}, "8"), "batch=8");
  EXPECT_EQ(model::detail::spell(option::check_batch, {}, "1,0"), "check_batches=[1,0]");
  EXPECT_EQ(model::detail::usage_of(option::layout), "layouts={NAME: LAYOUT}");
  spelled_for cli(front_end::cli);
  EXPECT_EQ(model::detail::spell(option::shape, "x", "[2,3]"), "--shape x=[2,3]");
  EXPECT_EQ(model::detail::spell(option::shape, {}, "[2,3]"), "--shape [2,3]");
  EXPECT_EQ(model::detail::spell(option::shape, "x"), "--shape x");
  EXPECT_EQ(model::detail::spell(option::batch, {}, "8"), "--batch 8");
  EXPECT_EQ(model::detail::spell(option::output), "--output");
  EXPECT_EQ(model::detail::usage_of(option::layout), "--layout NAME=LAYOUT");
}

TEST(options, a_request_error_names_the_option_in_the_callers_spelling) {
  const auto message = [] {
    try {
      model::detail::check_request({.batch = dimension(2), .assume_kept = {""}});
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::syntax);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(), "assume_kept: an empty op type; write assume_kept=[TYPE], e.g. MyOp");
  spelled_for cli(front_end::cli);
  EXPECT_EQ(message(), "--assume-kept: an empty op type; write --assume-kept TYPE, e.g. MyOp");
}

TEST(options, check_batches_are_read_one_by_one) {
  const std::vector<std::string> items{"1", "?", "2..4", "-1"};
  const auto b = model::detail::parse_check_batches(items, "1,?,2..4,-1");
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(to_string(b[0]), "1");
  EXPECT_FALSE(b[1].is_static());
  EXPECT_EQ(to_string(b[2]), "2..4");
  EXPECT_FALSE(b[3].is_static());
  EXPECT_THROW((void)model::detail::parse_check_batches({}, ""), error);
}

}  // namespace
}  // namespace reshape1
