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


TEST(recurrent, cells) {
  const std::vector<std::pair<std::string, std::string>> h16 = {{"hidden_size", "16"}};
  const auto lstm = run("LSTMCell", 4, h16, {of("[?,10]"), of("[2,16]"), of("[2,16]"), of("[64,10]"), of("[64,16]"), of("[64]")}, 2);
  EXPECT_EQ(shape_of(lstm, 0), "[2,16]");
  EXPECT_EQ(shape_of(lstm, 1), "[2,16]");
  // LSTMCell-1 takes the peepholes P [3H] as a seventh input.
  EXPECT_EQ(shape_of(run("LSTMCell", 1, h16,
                         {of("[2,10]"), of("[2,16]"), of("[2,16]"), of("[64,10]"), of("[64,16]"), of("[64]"), of("[48]")}, 2)),
            "[2,16]");
  EXPECT_EQ(shape_of(run("GRUCell", 3, h16, {of("[4,10]"), of("[4,16]"), of("[48,10]"), of("[48,16]"), of("[48]")})),
            "[4,16]");
  EXPECT_EQ(shape_of(run("GRUCell", 3, {{"hidden_size", "16"}, {"linear_before_reset", "true"}},
                         {of("[4,10]"), of("[...]"), of("[48,10]"), of("[48,16]"), of("[64]")})),
            "[4,16]");
  EXPECT_EQ(shape_of(run("RNNCell", 1, h16, {of("[4,10]"), of("[?,16]"), of("[16,10]"), of("[16,16]"), of("[16]")})),
            "[4,16]");
  expect_refused([&] {
    (void)run("LSTMCell", 4, h16, {of("[2,10]"), of("[2,16]"), of("[3,16]"), of("[64,10]"), of("[64,16]"), of("[64]")}, 2);
  }, "C dimension 0: 2 and 3 cannot be equal");
  expect_refused([&] {
    (void)run("GRUCell", 3, h16, {of("[4,10]"), of("[4,16]"), of("[48,10]"), of("[48,16]"), of("[64]")});
  }, "B dimension 0: 48 and 64 cannot be equal");
  expect_refused([&] {
    (void)run("RNNCell", 1, h16, {of("[4,10]"), of("[4,16]"), of("[16,12]"), of("[16,16]"), of("[16]")});
  }, "W dimension 1: 10 and 12 cannot be equal");
  expect_refused([&] {
    (void)run("LSTMCell", 1, h16,
              {of("[2,10]"), of("[2,16]"), of("[2,16]"), of("[64,10]"), of("[64,16]"), of("[64]"), of("[16]")}, 2);
  }, "P dimension 0: 48 and 16 cannot be equal");
  expect_refused([] {
    (void)run("RNNCell", 1, {{"hidden_size", "0"}}, {of("[4,10]"), of("[4,16]"), of("[16,10]"), of("[16,16]"), of("[16]")});
  }, "hidden_size is 0");
  expect_refused([&] { (void)run("RNNCell", 1, h16, {of("[4,10,1]"), of("[4,16]"), of("[...]"), of("[...]"), of("[...]")}); },
                 "X [4,10,1] has rank 3, not 2");
}

TEST(recurrent, gru_and_rnn_sequences) {
  const auto gru = run("GRUSequence", 5, {{"hidden_size", "8"}, {"direction", "bidirectional"}},
                       {of("[3,20,5]"), of("[3,2,8]"), of("[3]"), of("[2,24,5]"), of("[2,24,8]"), of("[2,24]")}, 2);
  EXPECT_EQ(shape_of(gru, 0), "[3,2,20,8]");
  EXPECT_EQ(shape_of(gru, 1), "[3,2,8]");
  const auto rnn = run("RNNSequence", 5, {{"hidden_size", "8"}, {"direction", "reverse"}},
                       {of("[?,?,5]"), of("[3,1,8]"), of("[...]"), of("[1,8,5]"), of("[1,8,8]"), of("[1,8]")}, 2);
  EXPECT_EQ(shape_of(rnn, 0), "[3,1,?,8]");
  expect_refused([] {
    (void)run("GRUSequence", 5, {{"hidden_size", "8"}, {"direction", "forward"}},
              {of("[3,20,5]"), of("[3,2,8]"), of("[3]"), of("[...]"), of("[...]"), of("[...]")}, 2);
  }, "H0 dimension 1: 1 and 2 cannot be equal");
  expect_refused([] {
    (void)run("RNNSequence", 5, {{"hidden_size", "8"}, {"direction", "forward"}},
              {of("[3,20,5]"), of("[3,1,8]"), of("[4]"), of("[...]"), of("[...]"), of("[...]")}, 2);
  }, "sequence lengths dimension 0: 3 and 4 cannot be equal");
  expect_refused([] {
    (void)run("GRUSequence", 5, {{"hidden_size", "8"}, {"direction", "up"}},
              {of("[3,20,5]"), of("[...]"), of("[...]"), of("[...]"), of("[...]"), of("[...]")}, 2);
  }, "direction 'up'");
}

TEST(recurrent, ctc_greedy_decoder_seq_len) {
  const auto out = run("CTCGreedyDecoderSeqLen", 6, {{"merge_repeated", "true"}, {"classes_index_type", "i64"}},
                       {of("[8,100,37]"), of("[?]"), values({36}, "[]")}, 2);
  EXPECT_EQ(shape_of(out, 0), "[8,100]");
  EXPECT_EQ(shape_of(out, 1), "[8]");
  EXPECT_EQ(out[0].type, element_type::i64);
  EXPECT_EQ(out[1].type, element_type::i32);
  expect_refused([] { (void)run("CTCGreedyDecoderSeqLen", 6, {}, {of("[8,100,37]"), of("[7]")}, 2); },
                 "the batch of the logits and the sequence lengths: 8 and 7 cannot be equal");
  expect_refused([] { (void)run("CTCGreedyDecoderSeqLen", 6, {}, {of("[8,100]"), of("[8]")}, 2); }, "must be [N, T, C]");
  expect_refused([] { (void)run("CTCGreedyDecoderSeqLen", 6, {}, {of("[8,100,3]"), of("[8]"), of("[2]")}, 2); },
                 "the blank index [2] must be a scalar");
}

}  // namespace
}  // namespace reshape1::test
