// onnx_from_text IN.textproto OUT.onnx: an ONNX ModelProto written as protobuf text (the fixtures under
// tests/data/onnx) serialised to the binary file ONNX Runtime and reshape1 read.
#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: onnx_from_text IN.textproto OUT.onnx\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "onnx_from_text: cannot read " << argv[1] << "\n";
    return 1;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto model;
  if (!google::protobuf::TextFormat::ParseFromString(text, &model)) {
    std::cerr << "onnx_from_text: " << argv[1] << " is not a ModelProto in text format\n";
    return 1;
  }
  const std::string tmp = std::string(argv[2]) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !model.SerializeToOstream(&out)) {
      std::cerr << "onnx_from_text: cannot write " << tmp << "\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), argv[2]) != 0) {
    std::cerr << "onnx_from_text: cannot rename " << tmp << " to " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
