// The signal-processing rows of src/onnx/lower/signal.cpp: one case a row (rows_test.cpp runs them as
// onnx/lower_rows).
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> signal_cases() {
  return {
      // A real signal [2, 8, 1] along axis 1, one-sided: [2, 8 / 2 + 1, 2].
      {"DFT", 17, "x:f32[2,8,1]", "x", "y", attr_i("onesided", 1), "ShapeOf,Gather,Divide,Add,VariadicSplit,Concat,ScatterUpdate,ReduceSum,Broadcast", "[2,5,2]"},
      // 20: the axis an input (-3 of a complex [2, 8, 6, 2]), dft_length 10.
      {"DFT", 20, "x:f32[2,8,6,2] n:i64[]=10 a:i64[]=-3", "x,n,a", "y", "", "ShapeOf,Gather,Reshape,Convert,ScatterUpdate,Broadcast,Concat,ScatterUpdate,ReduceSum,Broadcast", "[2,10,6,2]"},
      // Frames of the window's 16 every 8 of 64: 7 frames, 16 / 2 + 1 bins.
      {"STFT", 17, "x:f32[2,64,1] step:i64[]=8 w:f32[16]=", "x,step,w", "y", "", "ShapeOf,ShapeOf,Gather,ReduceSum,Reshape,Convert,Slice,Subtract,Divide,Add,Divide,Add,Slice,Concat,ScatterUpdate,Broadcast,Concat,VariadicSplit,ReduceSum,ReduceSum,Add,ConvertLike,Multiply,Unsqueeze,Broadcast", "[2,7,9,2]"},
      {"MelWeightMatrix", 17, "n:i64[]=8 d:i64[]=64 r:i64[]=16000 lo:f32[]=0 hi:f32[]=8000", "n,d,r,lo,hi", "y", "", "Reshape,Convert,Divide,Add,Reshape,Convert,Concat,Convert,Broadcast",
       "[33,8]"},
      // Scores [3, 5, 2] and labels [3, 2]: a loss per element without reduction, a scalar with one.
      {"NegativeLogLikelihoodLoss", 12, "x:f32[3,5,2] t:i64[3,2]", "x,t", "y", attr_s("reduction", "none"), "ReduceSum,ConvertLike,Add", "[3,2]"},
      {"SoftmaxCrossEntropyLoss", 12, "x:f32[3,5] t:i64[3] w:f32[5]=", "x,t,w", "y,p", "", "LogSoftmax,ReduceSum,ConvertLike,Add,ReduceSum,Multiply,ShapeOf,ShapeOf,Squeeze,Range,ReduceSum", "[] [3,5]"},
  };
}

}  // namespace reshape1::test
