// LSTMSequence-5.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

TEST(recurrent, lstm_sequence_shapes) {
  const auto out = run("LSTMSequence", 5, {{"hidden_size", "64"}, {"direction", "forward"}},
                       {of("[1,30,42]"), of("[1,1,64]"), of("[1,1,64]"), of("[1]", element_type::i32),
                        of("[1,256,42]"), of("[1,256,64]"), of("[1,256]")},
                       3);
  EXPECT_EQ(shape_of(out, 0), "[1,1,30,64]");
  EXPECT_EQ(shape_of(out, 1), "[1,1,64]");
  EXPECT_EQ(shape_of(out, 2), "[1,1,64]");
  const auto bi = run("LSTMSequence", 5, {{"hidden_size", "8"}, {"direction", "bidirectional"}},
                      {of("[?,5,3]"), of("[4,2,8]"), of("[...]"), of("[...]"), of("[...]"), of("[...]"), of("[...]")},
                      3);
  EXPECT_EQ(shape_of(bi, 0), "[4,2,5,8]");
}

TEST(recurrent, disagreeing_weights_are_refused) {
  expect_refused([] {
    (void)run("LSTMSequence", 5, {{"hidden_size", "64"}, {"direction", "forward"}},
              {of("[1,30,42]"), of("[1,1,64]"), of("[1,1,64]"), of("[1]"), of("[1,128,42]"), of("[1,256,64]"),
               of("[1,256]")},
              3);
  }, "W dimension 1: 256 and 128 cannot be equal");
  expect_refused([] {
    (void)run("LSTMSequence", 5, {{"hidden_size", "64"}, {"direction", "sideways"}},
              {of("[1,30,42]"), of("[...]"), of("[...]"), of("[...]"), of("[...]"), of("[...]"), of("[...]")}, 3);
  }, "direction 'sideways'");
}

}  // namespace
}  // namespace reshape1::test
