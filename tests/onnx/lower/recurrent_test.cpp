// The recurrent rows of src/onnx/lower/recurrent.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> recurrent_cases() {
  // X [L=5, N=2, I=3], hidden size 4, one direction: Y [L, 1, N, 4], the states [1, N, 4]. The layout moves
  // to the batch first and back; the initial states and the lengths are built from X's shape.
  const std::string into = "Transpose,ShapeOf,Gather,Gather,Concat,Broadcast,Broadcast";
  return {
      {"LSTM", 7, "x:f32[5,2,3] w:f32[1,16,3]= r:f32[1,16,4]=", "x,w,r", "y,yh,yc", attr_i("hidden_size", 4),
       into + ",Broadcast,Concat,Broadcast,LSTMSequence,Transpose,Transpose,Transpose", "[5,1,2,4] [1,2,4] [1,2,4]"},
      // B's two halves added: OpenVINO has one bias per gate.
      {"GRU", 7, "x:f32[5,2,3] w:f32[1,12,3]= r:f32[1,12,4]= b:f32[1,24]=", "x,w,r,b", "y,yh", attr_i("hidden_size", 4),
       into + ",Split,Add,GRUSequence,Transpose,Transpose", "[5,1,2,4] [1,2,4]"},
      // LSTM of uint8 weights held transposed, W [1, 3, 16] and R [1, 4, 16], each with a scale and zero point.
      {"DynamicQuantizeLSTM", 1,
       "x:f32[5,2,3] w:u8[1,3,16]= r:u8[1,4,16]= ws:f32[1]= wz:u8[1]= rs:f32[1]= rz:u8[1]=", "x,w,r,,,,,,ws,wz,rs,rz", "y,yh,yc",
       attr_i("hidden_size", 4),
       "Convert,Transpose,Convert,Transpose,Transpose,ShapeOf,Gather,Gather,Concat,Broadcast,Broadcast,"
       "Broadcast,Concat,Broadcast,LSTMSequence,Transpose,Transpose,Transpose", "[5,1,2,4] [1,2,4] [1,2,4]", "com.microsoft"},
      // An LSTM over X [5, 2, 3] beside an attention state of the memory's depth 6 (no AW): W [1, 16, 3 + 6].
      {"AttnLSTM", 1,
       "x:f32[5,2,3] w:f32[1,16,9]= r:f32[1,16,4]= qw:f32[1,4,7]= mw:f32[1,6,7]= v:f32[1,7]= m:f32[2,8,6]",
       "x,w,r,,,,,,qw,mw,v,m", "y,yh,yc", attr_i("hidden_size", 4),
       "ShapeOf,Slice,VariadicSplit,ShapeOf,Slice,VariadicSplit,VariadicSplit,ShapeOf,Slice,VariadicSplit,"
       "VariadicSplit,VariadicSplit,VariadicSplit,VariadicSplit,ReduceSum,MatMul,ReduceSum,Unsqueeze,Add,"
       "Add,ReduceSum,ShapeOf,Slice,Concat,Unsqueeze,Broadcast,ConvertLike,Concat,Transpose,ShapeOf,Gather,"
       "Gather,Concat,Broadcast,Broadcast,Broadcast,Concat,Broadcast,LSTMSequence,Transpose,Transpose,"
       "Transpose", "[5,1,2,4] [1,2,4] [1,2,4]", "com.microsoft"},
      {"RNN", 7, "x:f32[5,2,3] w:f32[1,4,3]= r:f32[1,4,4]=", "x,w,r", "y,yh", attr_i("hidden_size", 4),
       into + ",Broadcast,RNNSequence,Transpose,Transpose", "[5,1,2,4] [1,2,4]"},
  };
}

namespace {

// LSTM's peepholes P [D, 3H]: read when a Const gives them (the shapes do not change), refused of another shape.
TEST(lower_recurrent, lstm_peepholes) {
  const std::string tensors = "x:f32[2,1,3] w:f32[1,8,3]= r:f32[1,8,2]= ";
  const std::string inputs = "x,w,r,,,,,p";
  EXPECT_EQ(refused_when_read({"LSTM", 7, tensors + "p:f32[1,6]=", inputs, "y", attr_i("hidden_size", 2), "", ""}), "");
  expect_refused_with({"LSTM", 7, tensors + "p:f32[1,4]=", inputs, "y", attr_i("hidden_size", 2), "", ""},
                      "its peepholes P (input 7) are [1,4], not [1, 6]");
  EXPECT_NE(not_covered_why({"LSTM", 7, tensors + "p:f32[1,6]", inputs, "y", attr_i("hidden_size", 2), "", ""})
                .find("LSTM with peepholes (P) that no Const gives is not covered"),
            std::string::npos);
}

}  // namespace

}  // namespace reshape1::test
