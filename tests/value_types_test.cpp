// The value types keep their invariants through every special member: copies are equal and
// independent, moved-from objects are valid and empty ([] for shapes, an empty tensor), and no
// operation can make a negative dimension.
#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

static_assert(std::is_nothrow_move_constructible_v<shape> && std::is_nothrow_move_assignable_v<shape>);
static_assert(std::is_nothrow_move_constructible_v<partial_shape> && std::is_nothrow_move_assignable_v<partial_shape>);
static_assert(std::is_nothrow_move_constructible_v<tensor>);
static_assert(std::is_trivially_copyable_v<dimension> && std::is_trivially_copyable_v<symbol>);
static_assert(sizeof(symbol) == sizeof(void*));
static_assert(std::is_convertible_v<shape, partial_shape>);  // widening is implicit
static_assert(!std::is_convertible_v<partial_shape, shape>);

shape ranked(std::size_t rank) {
  shape s;
  for (std::size_t i = 0; i < rank; ++i) s.push_back(static_cast<std::int64_t>(i + 2));
  return s;
}

TEST(value_types, shape_copies_and_moves_inline_and_heap_ranks) {
  for (const std::size_t rank : {std::size_t{0}, std::size_t{3}, shape::inline_rank, shape::inline_rank + 1, std::size_t{20}}) {
    const shape original = ranked(rank);
    shape copy = original;
    EXPECT_EQ(copy, original);
    shape assigned;
    assigned = original;
    EXPECT_EQ(assigned, original);
    assigned = assigned;  // self-assignment keeps the value
    EXPECT_EQ(assigned, original);
    shape moved = std::move(copy);
    EXPECT_EQ(moved, original);
    EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    EXPECT_EQ(to_string(copy), "[]");
    copy.push_back(7);  // and usable
    EXPECT_EQ(to_string(copy), "[7]");
    shape target = ranked(2);
    target = std::move(moved);
    EXPECT_EQ(target, original);
    EXPECT_EQ(to_string(moved), "[]");  // NOLINT(bugprone-use-after-move)
  }
}

// A shape keeps its element count as dimensions are added (inference and views read it without a pass
// over the dimensions): it must follow every special member and the element-count rule.
TEST(value_types, shape_keeps_its_element_count) {
  auto product = [](const shape& s) {
    std::int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
  };
  for (const std::size_t rank : {std::size_t{0}, std::size_t{3}, shape::inline_rank + 1, std::size_t{20}}) {
    const shape original = ranked(rank);
    if (rank <= 17) {
      EXPECT_EQ(original.element_count(), product(original));
    }
    shape copy = original;
    shape assigned;
    assigned = original;
    shape moved = std::move(copy);
    if (rank <= 17) {
      EXPECT_EQ(assigned.element_count(), product(original));
      EXPECT_EQ(moved.element_count(), product(original));
    } else {  // 2 x 3 x ... x 21 is past int64
      EXPECT_THROW((void)moved.element_count(), error);
    }
    EXPECT_EQ(copy.element_count(), 1);  // NOLINT(bugprone-use-after-move): moved-from is []
    shape target = ranked(2);
    target = std::move(moved);
    EXPECT_EQ(moved.element_count(), 1);  // NOLINT(bugprone-use-after-move)
    moved.push_back(5);
    EXPECT_EQ(moved.element_count(), 5);
  }
  // A 0 makes the count 0 whatever else overflowed, before or after it.
  const std::int64_t big = std::int64_t{1} << 40;
  shape overflow_then_zero{big, big};
  EXPECT_THROW((void)overflow_then_zero.element_count(), error);
  overflow_then_zero.push_back(0);
  EXPECT_EQ(overflow_then_zero.element_count(), 0);
  shape zero_then_overflow{0, big};
  zero_then_overflow.push_back(big);
  EXPECT_EQ(zero_then_overflow.element_count(), 0);
  // The result of static inference keeps the input's count.
  const auto out = infer_static_shape(shape{2, 5, 5, 24}, std::vector<std::int64_t>{0, -1, 4}, true);
  EXPECT_EQ(out, (shape{2, 150, 4}));
  EXPECT_EQ(out.element_count(), 1200);
  shape copied_out = out;
  EXPECT_EQ(copied_out.element_count(), 1200);
  EXPECT_EQ(infer_static_shape(shape{3, 0}, std::vector<std::int64_t>{0, -1}, true).element_count(), 0);
  EXPECT_EQ(infer_static_shape(shape{6}, std::vector<std::int64_t>{2, 3}, false).element_count(), 6);
}

TEST(value_types, shape_refuses_negative_dimensions_everywhere) {
  shape s{1, 2};
  expect_error([&] { s.push_back(-5); }, errc::invalid_shape,
               "shape[2]: dimension -5 is negative; a static shape has dimensions >= 0", {2});
  EXPECT_EQ(to_string(s), "[1,2]");  // unchanged
  EXPECT_THROW((shape{3, -1}), error);
  const std::vector<std::int64_t> negative{-2};
  EXPECT_THROW(shape{std::span<const std::int64_t>(negative)}, error);
}

TEST(value_types, partial_shape_copies_and_moves) {
  for (const auto& text : {"[]", "[...]", "[2,?@A,1..10]", "[1,2,3,4,5,6,7,8,9,?@B]"}) {
    const partial_shape original = parse_shape(text);
    partial_shape copy = original;
    EXPECT_EQ(copy, original);
    partial_shape moved = std::move(copy);
    EXPECT_EQ(moved, original);
    EXPECT_EQ(to_string(copy), "[]");  // NOLINT(bugprone-use-after-move): even from [...]
    EXPECT_EQ(copy.rank(), std::optional<std::size_t>(0));
    partial_shape assigned = parse_shape("[5]");
    assigned = std::move(moved);
    EXPECT_EQ(to_string(assigned), text);
    EXPECT_EQ(to_string(moved), "[]");  // NOLINT(bugprone-use-after-move)
  }
}

TEST(value_types, partial_shape_reads_like_the_notation) {
  const partial_shape s{2, {1, 10}, dimension(768, "C"), dimension()};
  EXPECT_EQ(to_string(s), "[2,1..10,768@C,?]");
  EXPECT_EQ(s.rank(), std::optional<std::size_t>(4));
  EXPECT_EQ(partial_shape::dynamic().rank(), std::nullopt);
  EXPECT_EQ(partial_shape::dynamic().size(), 0u);
  const partial_shape widened = shape{2, 3};
  EXPECT_EQ(to_string(widened), "[2,3]");
  EXPECT_TRUE(widened.is_static());
}

TEST(value_types, symbols_are_handles_to_one_name) {
  const symbol a("A"), also_a(std::string("A")), b("B");
  EXPECT_EQ(a, also_a);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.name(), "A");
  EXPECT_FALSE(symbol());
  EXPECT_FALSE(symbol(""));  // an empty name is no symbol
  EXPECT_EQ(symbol().name(), "");
  EXPECT_EQ(dimension(5, "A").symbol(), a);
}

TEST(value_types, tensor_special_members_keep_a_consistent_view) {
  tensor t(element_type::i32, shape{2, 3});
  t.bytes()[0] = std::byte{42};
  const tensor copy = t;
  EXPECT_EQ(copy.view().bytes()[0], std::byte{42});
  EXPECT_NE(copy.view().data(), t.view().data());
  tensor moved = std::move(t);
  EXPECT_EQ(moved.bytes()[0], std::byte{42});
  // The moved-from tensor is the empty tensor: its view claims no elements and no bytes.
  const auto empty = t.view();  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(empty.element_count(), 0);
  EXPECT_EQ(empty.byte_size(), 0u);
  EXPECT_EQ(empty.dims().element_count(), 0);
  EXPECT_EQ(to_string(empty.dims()), "[0]");
  // So is a default one, tensor and view.
  EXPECT_EQ(tensor().view().byte_size(), 0u);
  EXPECT_EQ(tensor().view().dims().element_count(), tensor().view().element_count());
  EXPECT_EQ(tensor_view().dims().element_count(), tensor_view().element_count());
  tensor assigned(element_type::u8, shape{4});
  assigned = std::move(moved);
  EXPECT_EQ(to_string(assigned.dims()), "[2,3]");
  EXPECT_EQ(moved.view().byte_size(), 0u);  // NOLINT(bugprone-use-after-move)
  const tensor strings(element_type::string, shape{2});
  const tensor strings_copy = strings;
  EXPECT_EQ(strings_copy.view().strings().size(), 2u);
}

TEST(value_types, error_carries_its_hint) {
  try {
    (void)infer_shape(parse_shape("[2,3]"), parse_pattern("[-1,-1]"), false);
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.hint(), "give the other dimensions explicitly");
    EXPECT_EQ(std::string(e.what()), "pattern[0] and pattern[1]: only one -1 is allowed; give the other dimensions explicitly");
  }
}

TEST(value_types, pattern_kinds) {
  EXPECT_EQ(parse_pattern("[2,-1]").kind(), pattern_kind::values);
  EXPECT_EQ(parse_pattern("[2..4,-1]").kind(), pattern_kind::bounds);
  EXPECT_EQ(parse_pattern("[?,?]").kind(), pattern_kind::unknown);
  // OpenVINO's -1 upper bound is read once, at the boundary.
  EXPECT_EQ(reshape_pattern::from_bounds({{3, -1, {}}}).elements()[0].hi, pattern_bound::no_upper);
}

}  // namespace
}  // namespace reshape1::test
