// onnx_free_batch IN.onnx OUT.onnx [--axis NAME=K]... [--out-axis NAME=K]... [--free NAME=K]...
// A copy of an ONNX model whose batch ONNX Runtime lets change, for the tests that run it at several
// batches (or at other sizes, with --free): each graph input that is not an initializer gets the dim_param "N" at its batch axis (0, or K;
// none for a scalar), each graph output likewise (so that ONNX Runtime warns when an output comes back
// with another size there), every value_info entry and subgraph output loses its shape, and every subgraph
// input its dims (ONNX Runtime checks them too, and they were written for batch 1: a Scan body's declared
// [1,3] sizes the outputs it computes from it; a Loop body's inputs keep their rank, which it requires). Tensors kept in external files are read into the
// copy (ONNX Runtime's shape inference does not read external data, and the copy lands elsewhere).
// --free NAME=K also frees axis K of input NAME (dim_param "NAME_K"), for the tests that run a model at
// other sizes; the graph outputs then lose every dim value (their rank stays), since any of them may
// follow a size. Nothing else changes.
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>

namespace {

void clear_shapes(onnx::GraphProto& g) {
  for (auto& v : *g.mutable_value_info())
    if (v.type().has_tensor_type()) v.mutable_type()->mutable_tensor_type()->clear_shape();
  for (auto& n : *g.mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) {
        clear_shapes(*a.mutable_g());
        for (auto& o : *a.mutable_g()->mutable_output())
          if (o.type().has_tensor_type()) o.mutable_type()->mutable_tensor_type()->clear_shape();
        for (auto& i : *a.mutable_g()->mutable_input())
          if (i.type().has_tensor_type() && i.type().tensor_type().has_shape())
            for (auto& d : *i.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) d.Clear();
      }
      for (auto& sub : *a.mutable_graphs()) clear_shapes(sub);
    }
}

/// Reads each initializer's external data (a file beside the model) into raw_data.
bool inline_external(onnx::GraphProto& g, const std::string& directory) {
  for (auto& t : *g.mutable_initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    std::string location;
    std::size_t offset = 0, length = std::string::npos;
    for (const auto& e : t.external_data()) {
      if (e.key() == "location") location = e.value();
      if (e.key() == "offset") offset = std::stoull(e.value());
      if (e.key() == "length") length = std::stoull(e.value());
    }
    std::ifstream in(directory + "/" + location, std::ios::binary);
    if (!in) {
      std::cerr << "onnx_free_batch: cannot read the external data " << location << "\n";
      return false;
    }
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    t.set_raw_data(data.substr(offset, length));
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
  }
  return true;
}

void free_axis(onnx::ValueInfoProto& v, int axis, const std::string& name = "N") {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
  auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
  if (axis < 0 || axis >= shape->dim_size()) return;
  shape->mutable_dim(axis)->set_dim_param(name);
}

bool parse_axis(const std::string& arg, std::map<std::string, int>& into) {
  const auto eq = arg.rfind('=');
  if (eq == std::string::npos) return false;
  into[arg.substr(0, eq)] = arg.substr(eq + 1) == "none" ? -1 : std::atoi(arg.substr(eq + 1).c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, int> axes, out_axes;
  std::multimap<std::string, int> freed;
  if (argc < 3) {
    std::cerr << "usage: onnx_free_batch IN.onnx OUT.onnx [--axis NAME=K|none]... [--out-axis NAME=K|none]... "
                 "[--free NAME=K]...\n";
    return 2;
  }
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--axis" || a == "--out-axis") && i + 1 < argc && parse_axis(argv[i + 1], a == "--axis" ? axes : out_axes)) {
      ++i;
      continue;
    }
    if (std::map<std::string, int> one; a == "--free" && i + 1 < argc && parse_axis(argv[i + 1], one) && one.begin()->second >= 0) {
      freed.insert(*one.begin());
      ++i;
      continue;
    }
    std::cerr << "onnx_free_batch: cannot read the argument '" << a << "'\n";
    return 2;
  }
  onnx::ModelProto m;
  {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in || !m.ParseFromIstream(&in)) {
      std::cerr << "onnx_free_batch: " << argv[1] << " is not an ONNX model\n";
      return 1;
    }
  }
  auto& g = *m.mutable_graph();
  std::map<std::string, bool> initializers;
  for (const auto& t : g.initializer()) initializers[t.name()] = true;
  for (auto& v : *g.mutable_input()) {
    if (initializers.contains(v.name())) continue;
    free_axis(v, axes.contains(v.name()) ? axes[v.name()] : 0);
  }
  for (auto& v : *g.mutable_input()) {
    const auto [from, to] = freed.equal_range(v.name());
    for (auto it = from; it != to; ++it) free_axis(v, it->second, v.name() + "_" + std::to_string(it->second));
  }
  for (auto& v : *g.mutable_output()) {
    free_axis(v, out_axes.contains(v.name()) ? out_axes[v.name()] : 0);
    if (!freed.empty() && v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) d.Clear();
  }
  clear_shapes(g);
  const std::string in_path = argv[1];
  const auto slash = in_path.rfind('/');
  if (!inline_external(g, slash == std::string::npos ? "." : in_path.substr(0, slash))) return 1;
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!out || !m.SerializeToOstream(&out)) {
    std::cerr << "onnx_free_batch: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
