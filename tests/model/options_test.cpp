// The option table the command line, Python and the docs share (src/model/options.hpp): every option has a
// row, and each front end spells an option its own way in the library's messages.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/options.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/model/graph.hpp"

namespace reshape1 {
namespace {

using model::detail::option;
constexpr auto api = model::option_spelling::api;
constexpr auto cli = model::option_spelling::command_line;

/// What a call throws, as its message ("accepted" when it throws nothing).
template <class F>
std::string message_of(F&& call) {
  try {
    call();
  } catch (const error& e) {
    return e.what();
  }
  return "accepted";
}

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
  EXPECT_EQ(model::detail::spell(api, option::shape, "x", "[2,3]"), "shapes['x']=[2,3]");
  EXPECT_EQ(model::detail::spell(api, option::batch, {}, "8"), "batch=8");
  EXPECT_EQ(model::detail::spell(api, option::check_batch, {}, "1,0"), "check_batches=[1,0]");
  EXPECT_EQ(model::detail::usage_of(api, option::layout), "layouts={NAME: LAYOUT}");
  EXPECT_EQ(model::detail::spell(cli, option::shape, "x", "[2,3]"), "--shape x=[2,3]");
  EXPECT_EQ(model::detail::spell(cli, option::shape, {}, "[2,3]"), "--shape [2,3]");
  EXPECT_EQ(model::detail::spell(cli, option::shape, "x"), "--shape x");
  EXPECT_EQ(model::detail::spell(cli, option::batch, {}, "8"), "--batch 8");
  EXPECT_EQ(model::detail::spell(cli, option::output), "--output");
  EXPECT_EQ(model::detail::usage_of(cli, option::layout), "--layout NAME=LAYOUT");
  // An option only the command line has keeps its flag in the API's spelling.
  EXPECT_EQ(model::detail::spell(api, option::dot), "--dot");
}

TEST(options, a_request_error_names_the_option_in_the_callers_spelling) {
  const auto message = [](model::option_spelling s) {
    return message_of([&] { model::detail::check_request({.batch = dimension(2), .assume_kept = {""}, .spelling = s}); });
  };
  // Each request says how it is spelled: one after the other in a process, each gets its own words.
  EXPECT_EQ(message(api), "assume_kept: an empty op type; write assume_kept=[TYPE], e.g. MyOp");
  EXPECT_EQ(message(cli), "--assume-kept: an empty op type; write --assume-kept TYPE, e.g. MyOp");
  EXPECT_EQ(message(api), "assume_kept: an empty op type; write assume_kept=[TYPE], e.g. MyOp");
}

TEST(options, reads_and_fix_options_name_options_as_their_caller_asks) {
  // Where an IR's weights are looked for: standard input has nothing beside it.
  EXPECT_EQ(message_of([] { (void)model::weights_of("-", {}, cli); }),
            "-: an IR read from standard input has no file beside it to take its weights from; give the weights' "
            "file with --bin FILE");
  EXPECT_EQ(message_of([] { (void)model::weights_of("-", {}); }),
            "-: an IR read from standard input has no file beside it to take its weights from; give the weights' "
            "file with model_bin=FILE");
  model::fix_options o;
  o.check_shapes.push_back({{"x", partial_shape{2}}});
  EXPECT_EQ(message_of([&] { model::detail::check_fix_options(o); }),
            "check_shapes: there are no new sizes to check; give them with shapes={NAME: SHAPE}, or leave check_shapes "
            "out to fix for the batch");
  o.spelling = cli;
  EXPECT_EQ(message_of([&] { model::detail::check_fix_options(o); }),
            "--check-shape: there are no new sizes to check; give them with --shape NAME=SHAPE, or leave --check-shape "
            "out to fix for the batch");
  EXPECT_EQ(model::detail::plain_check(cli), "see reshape1 check without --batch");
  EXPECT_EQ(model::detail::plain_check(api), "see check()");
}

TEST(options, check_batches_are_read_one_by_one) {
  const std::vector<std::string> items{"1", "?", "2..4", "-1"};
  const auto b = model::detail::parse_check_batches(items, "1,?,2..4,-1", api);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(to_string(b[0]), "1");
  EXPECT_FALSE(b[1].is_static());
  EXPECT_EQ(to_string(b[2]), "2..4");
  EXPECT_FALSE(b[3].is_static());
  EXPECT_THROW((void)model::detail::parse_check_batches({}, "", api), error);
  EXPECT_EQ(message_of([] { (void)model::detail::parse_check_batches({}, "", cli); }),
            "--check-batch: no batch given; give numbers from 1, or ?, e.g. 1,2,8,?");
}

}  // namespace
}  // namespace reshape1
