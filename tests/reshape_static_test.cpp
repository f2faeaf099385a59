// Section 4 of docs/semantics.md: static inference, written as a table; each static_row runs through the
// fast path and the general path.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

struct static_row {
  const char* input;
  std::vector<std::int64_t> pattern;
  bool special_zero;
  const char* expected;  // shape or error:<code>
};

std::string pattern_text(const std::vector<std::int64_t>& p) {
  std::string s = "[";
  for (std::size_t i = 0; i < p.size(); ++i) s += (i ? "," : "") + std::to_string(p[i]);
  return s + "]";
}

class reshape_static : public ::testing::TestWithParam<static_row> {};

TEST_P(reshape_static, fast_and_general_paths_give_the_table_answer) {
  const auto& r = GetParam();
  EXPECT_EQ(infer_text(r.input, pattern_text(r.pattern), r.special_zero), r.expected);
  std::string fast;
  try {
    fast = to_string(infer_static_shape(parse_shape(r.input).to_static(), r.pattern, r.special_zero));
  } catch (const error& e) {
    fast = "error:" + std::string(name(e.code()));
  }
  EXPECT_EQ(fast, r.expected);
}

INSTANTIATE_TEST_SUITE_P(
    spec_and_openvino_examples, reshape_static,
    ::testing::Values(static_row{"[2,5,5,0]", {0, 4}, false, "[0,4]"},              // spec example 1
                      static_row{"[2,5,5,24]", {0, -1, 4}, true, "[2,150,4]"},      // spec example 2
                      static_row{"[2,2,3]", {0, 0, 1, -1}, true, "[2,2,1,3]"},      // spec example 3
                      static_row{"[3,1,1]", {-1, 0}, true, "[3,1]"},                // spec example 4
                      static_row{"[3,1,1]", {0, -1}, true, "[3,1]"},                // spec example 5
                      static_row{"[1,1,1]", {}, false, "[]"},
                      static_row{"[1,1,1]", {}, true, "[]"},
                      static_row{"[2,2,2,2]", {2, 0, 1, -1, 1, 2}, true, "[2,2,1,2,1,2]"},
                      static_row{"[4,0,2]", {-1, 0}, true, "[8,0]"},
                      static_row{"[2,1]", {0}, false, "error:count_mismatch"},
                      static_row{"[2,1]", {0}, true, "[2]"},
                      static_row{"[]", {-1}, true, "[1]"},
                      static_row{"[]", {0}, true, "error:copy_out_of_range"},
                      static_row{"[0,5]", {5, -1}, true, "[5,0]"},
                      static_row{"[0,0]", {-1}, true, "[0]"},
                      static_row{"[27021597764222979]", {3, -1}, false, "[3,9007199254740993]"},
                      static_row{"[9007199254740995]", {5, -1}, false, "[5,1801439850948199]"},
                      static_row{"[0]", {0, 4294967296, 4294967296}, false, "[0,4294967296,4294967296]"},
                      static_row{"[0]", {4294967296, 4294967296}, false, "error:overflow"},
                      static_row{"[1]", {9223372036854775807}, false, "error:count_mismatch"}),
    [](const auto& row_info) { return "row_" + std::to_string(row_info.index); });

TEST(reshape_static, fast_path_output_is_inline_up_to_rank_8) {
  const std::vector<std::int64_t> p{1, 1, 1, 1, 1, 1, 1, -1};
  const shape out = infer_static_shape(shape{2, 3}, p, false);
  EXPECT_EQ(to_string(out), "[1,1,1,1,1,1,1,6]");
  const std::vector<std::int64_t> p9{1, 1, 1, 1, 1, 1, 1, 1, -1};
  EXPECT_EQ(to_string(infer_static_shape(shape{2, 3}, p9, false)), "[1,1,1,1,1,1,1,1,6]");
}

}  // namespace
}  // namespace reshape1::test
