// The attention rows of src/onnx/lower/attention.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows).
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> attention_cases() {
  return {
      // Grouped query heads (4 over 2 key heads), the past before K and V, a 2-D mask: Y, the presents, the
      // scores.
      {"Attention", 23, "q:f32[2,4,3,5] k:f32[2,2,6,5] v:f32[2,2,6,7] m:f32[3,8] pk:f32[2,2,2,5] pv:f32[2,2,2,7]",
       "q,k,v,m,pk,pv", "y,pk2,pv2,qk", "",
       "ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,Concat,Concat,ShapeOf,Slice,"
       "Concat,VariadicSplit,ShapeOf,Slice,ShapeOf,Slice,Divide,Slice,Slice,Slice,Concat,Reshape,Unsqueeze,Unsqueeze,"
       "MatMul,Slice,Slice,Concat,Reshape,Slice,ConvertLike,VariadicSplit,Slice,VariadicSplit,Broadcast,Add,SoftMax,"
       "ShapeOf,Slice,Slice,Slice,Concat,Reshape,MatMul,Slice,ShapeOf,Slice,Concat,Reshape",
       "[2,4,3,7] [2,2,8,5] [2,2,8,7] [2,4,3,8]"},
      // 3-D: the heads from the attributes; 24: one length per batch entry.
      {"Attention", 24, "q:f32[2,3,8] k:f32[2,5,4] v:f32[2,5,6] n:i64[2]=3,5", "q,k,v,,,,n", "y",
       attr_i("q_num_heads", 4) + attr_i("kv_num_heads", 2),
       "Reshape,Transpose,Reshape,Transpose,Reshape,Transpose,ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,"
       "Slice,Concat,Broadcast,Concat,ShapeOf,Slice,Concat,VariadicSplit,ShapeOf,Slice,ShapeOf,Slice,Divide,Slice,"
       "Slice,Slice,Concat,Reshape,Unsqueeze,Unsqueeze,MatMul,Slice,Slice,Concat,Reshape,Slice,ConvertLike,"
       "VariadicSplit,Unsqueeze,Add,SoftMax,ShapeOf,Slice,Slice,Slice,Concat,Reshape,MatMul,Slice,ShapeOf,Slice,"
       "Concat,Reshape,Transpose,Reshape", "[2,3,12]"},
      // 3-D with num_heads, the caches gathered by position; the first 4 of each head's 6 rotated.
      {"RotaryEmbedding", 23, "x:f32[2,3,12] cos:f32[8,2]= sin:f32[8,2]= p:i64[2,3]=0,1,2,3,4,5", "x,cos,sin,p", "y",
       attr_i("num_heads", 2) + attr_i("rotary_embedding_dim", 4),
       "Reshape,ShapeOf,Slice,Concat,Concat,VariadicSplit,ShapeOf,Slice,Concat,VariadicSplit,Concat,Gather,Unsqueeze,"
       "ShapeOf,Slice,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,VariadicSplit,Multiply,Concat,ShapeOf,"
       "Reshape", "[2,3,12]"},
      // com.microsoft's: positions one per (b, s), or one offset.
      {"RotaryEmbedding", 1, "x:f32[2,3,8] p:i64[2,3]=0,1,2,3,4,5 cos:f32[8,2]= sin:f32[8,2]=", "x,p,cos,sin", "y", "",
       "ShapeOf,Slice,Multiply,Concat,Reshape,Concat,Concat,VariadicSplit,ShapeOf,Slice,Concat,VariadicSplit,Concat,"
       "Gather,Unsqueeze,ShapeOf,Slice,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,Multiply,ShapeOf,"
       "Reshape",
       "[2,3,8]", "com.microsoft"},
      // com.microsoft's BERT attention: Q, K, V from one MatMul; a past of 2 steps, key lengths per entry.
      {"Attention", 1, "x:f32[2,3,4] w:f32[4,12]= b:f32[12]= m:i32[2] past:f32[2,2,2,2,2]", "x,w,b,m,past", "y,present",
       attr_i("num_heads", 2),
       "MatMul,ShapeOf,Slice,VariadicSplit,Add,Split,Reshape,Transpose,Reshape,Transpose,Reshape,Transpose,"
       "VariadicSplit,Squeeze,Concat,Squeeze,Concat,Unsqueeze,Unsqueeze,Concat,MatMul,ConvertLike,ShapeOf,"
       "Slice,Slice,Concat,Reshape,ReduceSum,Unsqueeze,ShapeOf,Broadcast,Add,SoftMax,MatMul,Transpose,"
       "Reshape",
       "[2,3,4] [2,2,2,5,2]", "com.microsoft"},
      // MultiHeadAttention: separate Q, K, V with a bias, a past, key lengths; the scores out.
      {"MultiHeadAttention", 1, "q:f32[2,3,4] k:f32[2,5,4] v:f32[2,5,4] b:f32[12]= m:i32[2,7] pk:f32[2,2,2,2] pv:f32[2,2,2,2]",
       "q,k,v,b,m,,pk,pv", "y,pk2,pv2,qk", attr_i("num_heads", 2),
       "ShapeOf,Slice,Concat,VariadicSplit,Add,Add,ShapeOf,Slice,VariadicSplit,Add,Reshape,Transpose,Slice,"
       "VariadicSplit,Reshape,Transpose,Reshape,Transpose,ShapeOf,Slice,VariadicSplit,Concat,VariadicSplit,Concat,"
       "ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,ShapeOf,Slice,Concat,"
       "VariadicSplit,MatMul,ConvertLike,ShapeOf,Slice,VariadicSplit,ShapeOf,Slice,VariadicSplit,Unsqueeze,Add,"
       "SoftMax,MatMul,Transpose,Reshape",
       "[2,3,4] [2,2,7,2] [2,2,7,2] [2,2,3,7]",
       "com.microsoft"},
      // And its embeddings: word, position and segment rows summed, normalised; the mask summed per entry.
      {"EmbedLayerNormalization", 1,
       "ids:i32[2,3] seg:i32[2,3] word:f32[10,4]= pos:f32[8,4]= segs:f32[2,4]= g:f32[4]= b:f32[4]= m:i32[2,3]",
       "ids,seg,word,pos,segs,g,b,m", "y,mi,sum", "",
       "ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,ShapeOf,Slice,ShapeOf,Slice,Concat,"
       "Broadcast,Slice,Slice,Concat,Broadcast,ShapeOf,Slice,ShapeOf,Slice,ShapeOf,Slice,Concat,Concat,VariadicSplit,Slice,"
       "Gather,ShapeOf,Slice,Concat,VariadicSplit,ShapeOf,Broadcast,Add,Gather,Add,MVN,VariadicSplit,Multiply,"
       "VariadicSplit,Add,ReduceSum",
       "[2,3,4] [2] [2,3,4]", "com.microsoft"},
      // The same of uint8 tables, each dequantised by its scale and zero point; two outputs.
      {"QEmbedLayerNormalization", 1,
       "ids:i32[2,3] word:u8[10,4]= pos:u8[8,4]= g:u8[4]= b:u8[4]= ws:f32[]=1 ps:f32[]=1 gs:f32[]=1 bs:f32[]=1 wz:u8[]=0 "
       "pz:u8[]=0 gz:u8[]=0 bz:u8[]=0",
       "ids,,word,pos,,g,b,,ws,ps,,gs,bs,wz,pz,,gz,bz", "y,mi", "",
       "Convert,Convert,Reshape,Subtract,Convert,Reshape,Multiply,Convert,Convert,Reshape,Subtract,Convert,"
       "Reshape,Multiply,ShapeOf,Slice,ShapeOf,Slice,Concat,Concat,VariadicSplit,Slice,Gather,ShapeOf,Slice,"
       "Concat,VariadicSplit,ShapeOf,Broadcast,Add,MVN,Convert,Convert,Reshape,Subtract,Convert,Reshape,"
       "Multiply,VariadicSplit,Multiply,Convert,Convert,Reshape,Subtract,Convert,Reshape,Multiply,"
       "VariadicSplit,Add,ReduceSum", "[2,3,4] [2]", "com.microsoft"},
      // A cache [2, 3, 8, 4] written at each entry's index along -2 with an update [2, 3, 2, 4]: the cache's shape.
      {"TensorScatter", 24, "c:f32[2,3,8,4] u:f32[2,3,2,4] at:i64[2]=0,3", "c,u,at", "y", "", "ShapeOf,Slice,Concat,VariadicSplit,ReduceSum,ReduceSum,Add,ReduceSum,Add,Add,ShapeOf,Slice,VariadicSplit,ShapeOf,ShapeOf,Squeeze,Unsqueeze,Subtract,Broadcast,Concat,Reshape,ConvertLike,Add", "[2,3,8,4]"},
      // GroupQueryAttention: 2 query heads of 16 on 1 key head, a past of 4 before K and V, T = 7: the output
      // [2, 3, 32], the presents [2, 1, max(7, 4), 16].
      {"GroupQueryAttention", 1,
       "q:f32[2,3,32] k:f32[2,3,16] v:f32[2,3,16] pk:f32[2,1,4,16] pv:f32[2,1,4,16] sl:i32[2]=6,6 t:i32[]=7",
       "q,k,v,pk,pv,sl,t", "y,ok,ov", attr_i("num_heads", 2) + attr_i("kv_num_heads", 1), "ShapeOf,Slice,VariadicSplit,Concat,ShapeOf,Slice,Concat,VariadicSplit,Reshape,Reshape,Transpose,"
       "Reshape,Reshape,Transpose,Reshape,Reshape,Transpose,ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,"
       "Slice,Slice,Concat,Broadcast,Concat,Concat,Concat,ShapeOf,Slice,Concat,VariadicSplit,Reshape,Convert,"
       "ShapeOf,Slice,ShapeOf,Slice,Divide,Slice,Slice,Slice,Concat,Reshape,Unsqueeze,MatMul,Slice,Slice,"
       "Concat,Reshape,Slice,ConvertLike,Reshape,VariadicSplit,Unsqueeze,Add,ShapeOf,Slice,Squeeze,Range,"
       "Unsqueeze,Slice,Squeeze,Range,Unsqueeze,Subtract,ConvertLike,Add,SoftMax,ShapeOf,Slice,Slice,Slice,"
       "Concat,Reshape,Unsqueeze,MatMul,Slice,ShapeOf,Slice,Concat,Reshape,Transpose,Reshape,ShapeOf,Slice,"
       "Maximum,Slice,Slice,Concat,ReduceSum,Broadcast,Slice,Slice,Concat,ReduceSum,Broadcast",
       "[2,3,32] [2,1,7,16] [2,1,7,16]", "com.microsoft"},
      // QAttention: com.microsoft.Attention of the dequantized input [2, 3, 8] and weights [8, 24], 2 heads.
      {"QAttention", 1, "x:u8[2,3,8] w:u8[8,24]= b:f32[24]= xs:f32[]=1 ws:f32[]=1", "x,w,b,xs,ws", "y,present",
       attr_i("num_heads", 2), "Convert,ConvertLike,Reshape,Multiply,Convert,ShapeOf,Slice,ConvertLike,Reshape,Broadcast,Multiply,"
       "ConvertLike,MatMul,ShapeOf,Slice,VariadicSplit,Add,Split,Reshape,Transpose,Reshape,Transpose,Reshape,"
       "Transpose,Unsqueeze,Unsqueeze,Concat,MatMul,SoftMax,MatMul,Transpose,Reshape", "[2,3,8] [2,2,2,3,4]", "com.microsoft"},
      // DecoderMaskedMultiHeadAttention, a token of 2 heads of 4 written into pasts of 6 rows, 3 of them used:
      // the output [2, 1, 8], the presents the pasts' shape, the scores [2, 2, 1, 3 + 1].
      {"DecoderMaskedMultiHeadAttention", 1,
       "q:f32[2,1,8] k:f32[2,1,8] v:f32[2,1,8] pk:f32[2,2,6,4] pv:f32[2,2,6,4] p:i32[]=3", "q,k,v,,,pk,pv,p", "y,ok,ov,qk",
       attr_i("num_heads", 2) + attr_i("past_present_share_buffer", 1) + attr_i("output_qk", 1), "VariadicSplit,Reshape,Transpose,Reshape,Transpose,Reshape,Transpose,ShapeOf,Slice,ShapeOf,Slice,"
       "Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,Concat,Reshape,Convert,Add,Concat,ShapeOf,Slice,"
       "Slice,Concat,VariadicSplit,MatMul,Concat,VariadicSplit,ReduceSum,ConvertLike,Unsqueeze,Add,ShapeOf,"
       "Slice,ShapeOf,Slice,Slice,Concat,ReduceSum,Broadcast,ShapeOf,Slice,Slice,Slice,Concat,ReduceSum,"
       "Broadcast,ShapeOf,Slice,Concat,ReduceSum,Broadcast,SoftMax,MatMul,Transpose,Reshape",
       "[2,1,8] [2,2,6,4] [2,2,6,4] [2,2,1,4]", "com.microsoft"},
  };
}

}  // namespace reshape1::test
