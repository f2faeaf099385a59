// The quantisation rows of src/onnx/lower/quantization.cpp: one case a row (rows_test.cpp runs them as
// onnx/lower_rows).
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> quantization_cases() {
  return {
      {"QuantizeLinear", 10, "x:f32[2,3] scale:f32[]=0.5 zp:u8[]=0", "x,scale,zp", "y", "", "Divide,Convert,Add,Convert",
       "[2,3]"},
      {"DequantizeLinear", 10, "x:u8[2,3] scale:f32[]=0.5 zp:u8[]=0", "x,scale,zp", "y", "",
       "Convert,Convert,Subtract,Multiply", "[2,3]"},
      // A's zero point per tensor (ONNX Runtime's only kind), one element made a scalar.
      {"MatMulInteger", 10, "a:u8[2,3,4] b:u8[4,5] az:u8[1]=", "a,b,az", "y", "",
       "Convert,Convert,Convert,Reshape,Subtract,MatMul,Convert", "[2,3,5]"},
      {"QLinearMatMul", 10, "a:u8[3,4] as:f32[]=1 az:u8[]=0 b:u8[4,5] bs:f32[]=1 bz:u8[]=0 ys:f32[]=1 yz:u8[]=0",
       "a,as,az,b,bs,bz,ys,yz", "y", "", "Convert,Convert,MatMul,Convert", "[3,5]"},
      // Scale and zero point from the whole input: scalars.
      {"DynamicQuantizeLinear", 11, "x:f32[2,3]", "x", "y,s,z", "",
       "ShapeOf,ShapeOf,Squeeze,Range,ReduceMin,ReduceMax,Subtract,Divide,Divide,Convert,Divide,Negative,Convert",
       "[2,3] [] []"},
  };
}

}  // namespace reshape1::test
