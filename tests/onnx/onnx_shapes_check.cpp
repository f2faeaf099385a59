// onnx_shapes_check ORIGINAL.onnx WRITTEN.onnx EXPOSED.onnx
// What ONNX's own library says of a model `reshape1 shapes -o` wrote (tests/onnx/shapes_ort.py drives it):
//   - "checker": ONNX's checker on WRITTEN ("ok", the error, or "skipped" above the opset Debian's ONNX
//     1.12 knows, 17);
//   - "declared": every tensor WRITTEN declares (the top graph's inputs, outputs and value_info, and those of
//     its If branches and Loop and Scan bodies): its dims, each a number, a dim_param name, or null;
//   - "onnx_knows_more": the tensors whose shape ONNX's shape inference (with data propagation) gives from
//     ORIGINAL where WRITTEN declares less (a rank, or a number where WRITTEN has a name or nothing);
//     "disagree": where both give a number and the numbers differ (values the file holds, initializers and
//     Constant nodes' outputs, aside). Both in the tensors' order, as
//     "NAME: onnx [..] reshape1 [..]".
// EXPOSED is WRITTEN with every value_info of its top graph made a graph output too, so that ONNX Runtime
// returns each tensor and the test compares its shape with the one declared; a tensor a Loop's or Scan's
// body declares is returned as its Shape stacked over the iterations (expose_bodies). Prints one JSON object.
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

onnx::ModelProto load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto m;
  if (!in || !m.ParseFromString(bytes)) {
    std::cerr << "onnx_shapes_check: cannot read " << path << '\n';
    std::exit(2);
  }
  return m;
}

/// A JSON string literal.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

using dims = std::vector<std::string>;  // each a number, a quoted name, or null

std::optional<dims> dims_of(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return std::nullopt;
  dims out;
  for (const auto& d : v.type().tensor_type().shape().dim())
    out.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? quoted(d.dim_param()) : "null");
  return out;
}

/// The tensors `g` declares; with `subgraphs`, those of an If's branches and a Loop's or Scan's body too.
void declared(const onnx::GraphProto& g, bool subgraphs, std::map<std::string, dims>& out, std::vector<std::string>* order) {
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *list)
      if (const auto d = dims_of(v); d && out.emplace(v.name(), *d).second && order != nullptr) order->push_back(v.name());
  if (subgraphs)
    for (const auto& n : g.node())
      for (const auto& a : n.attribute())
        if (a.has_g()) declared(a.g(), true, out, order);
}

/// What a body tensor's shape is exposed as: `PREFIX{levels}:{name}`, the stack of its Shape over the
/// iterations of `levels` Loops and Scans (tests/onnx/shapes_ort.py reads it back).
std::string exposed_name(int levels, const std::string& tensor) {
  return "reshape1.shape_of:" + std::to_string(levels) + ":" + tensor;
}

bool onnx_domain(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

/// Makes every tensor a Loop's or Scan's body of `g` declares (and, through them, their own bodies')
/// observable: the body computes the tensor's Shape and gives it out as one more scan output, which the
/// node stacks over its iterations into one more output. Returns those outputs of `g`'s nodes, by the
/// tensor each stacks and the levels of bodies it came through.
std::vector<std::pair<std::string, int>> expose_bodies(onnx::GraphProto& g) {
  std::vector<std::pair<std::string, int>> added;
  const auto nodes = g.node_size();  // the Shape nodes added below are not bodies' holders
  for (int k = 0; k < nodes; ++k) {
    auto& n = *g.mutable_node(k);
    if (!onnx_domain(n) || (n.op_type() != "Loop" && n.op_type() != "Scan")) continue;
    onnx::GraphProto* body = nullptr;
    for (auto& a : *n.mutable_attribute())
      if (a.name() == "body" && a.has_g()) body = a.mutable_g();
    if (body == nullptr) continue;
    // The stacks of the body's own Loops and Scans, then a Shape of each tensor the body declares.
    auto stacked = expose_bodies(*body);
    std::vector<std::string> declared_here;
    std::set<std::string> once;  // a body output may be one of its inputs, passed on
    for (const auto* list : {&body->input(), &body->value_info(), &body->output()})
      for (const auto& v : *list)
        if (dims_of(v) && once.insert(v.name()).second) declared_here.push_back(v.name());
    for (const auto& name : declared_here) {
      auto* shape = body->add_node();
      shape->set_op_type("Shape");
      shape->add_input(name);
      shape->add_output(exposed_name(0, name));
      stacked.emplace_back(name, 0);
    }
    if (stacked.empty()) continue;
    // The node's outputs line up with the body's (Loop: after the condition): outputs it leaves out are
    // named "" so that the new ones follow the body's.
    const int before = body->output_size() - (n.op_type() == "Loop" ? 1 : 0);
    while (n.output_size() < before) n.add_output("");
    int scan_outputs = 0;
    for (const auto& [name, levels] : stacked) {
      auto* out = body->add_output();
      out->set_name(exposed_name(levels, name));
      out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
      n.add_output(exposed_name(levels + 1, name));
      added.emplace_back(name, levels + 1);
      ++scan_outputs;
    }
    // A Scan that lists its scan outputs' axes or directions lists the new ones (stacked along axis 0).
    for (auto& a : *n.mutable_attribute())
      if (n.op_type() == "Scan" && (a.name() == "scan_output_axes" || a.name() == "scan_output_directions"))
        for (int j = 0; j < scan_outputs; ++j) a.add_ints(0);
  }
  return added;
}

std::map<std::string, dims> declared(const onnx::GraphProto& g, bool branches, std::vector<std::string>* order) {
  std::map<std::string, dims> out;
  declared(g, branches, out, order);
  return out;
}

std::string text(const dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + d[i];
  return s + "]";
}

bool number(const std::string& s) { return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0); }

int opset_of(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return static_cast<int>(o.version());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: onnx_shapes_check ORIGINAL.onnx WRITTEN.onnx EXPOSED.onnx\n";
    return 2;
  }
  auto original = load(argv[1]);
  auto written = load(argv[2]);

  std::string checker = "ok";
  if (opset_of(written) > 17) {
    checker = "skipped";
  } else {
    try {
      onnx::checker::check_model(written);
    } catch (const std::exception& e) {
      checker = std::string("error: ") + e.what();
    }
  }

  std::vector<std::string> order;
  const auto ours = declared(written.graph(), true, &order);
  std::string inference = "ok";
  std::map<std::string, dims> theirs;
  if (opset_of(original) <= 17) {
    try {
      onnx::ShapeInferenceOptions options(false, 0, true);
      onnx::shape_inference::InferShapes(original, onnx::OpSchemaRegistry::Instance(), options);
      theirs = declared(original.graph(), true, nullptr);
    } catch (const std::exception& e) {
      inference = std::string("error: ") + e.what();
    }
  } else {
    inference = "skipped";
  }
  // Values the file holds (Constant nodes' outputs, initializers) are not listed by reshape1 shapes.
  std::set<std::string> held;
  const std::function<void(const onnx::GraphProto&)> values = [&](const onnx::GraphProto& g) {
    for (const auto& t : g.initializer()) held.insert(t.name());
    for (const auto& n : g.node()) {
      if (n.op_type() == "Constant")
        for (const auto& o : n.output()) held.insert(o);
      for (const auto& a : n.attribute())
        if (a.has_g()) values(a.g());
    }
  };
  values(original.graph());
  for (const auto& name : held) theirs.erase(name);
  std::vector<std::string> more, disagree;
  std::set<std::string> names(order.begin(), order.end());
  for (const auto& [name, d] : theirs)
    if (!names.contains(name)) order.push_back(name), names.insert(name);
  for (const auto& name : order) {
    const auto t = theirs.find(name);
    if (t == theirs.end()) continue;
    const auto o = ours.find(name);
    const auto line = quoted(name + ": onnx " + text(t->second) + " reshape1 " + (o == ours.end() ? "none" : text(o->second)));
    if (o == ours.end() || o->second.size() != t->second.size()) {
      (o == ours.end() ? more : disagree).push_back(line);
      continue;
    }
    bool knows_more = false, differs = false;
    for (std::size_t k = 0; k < t->second.size(); ++k) {
      if (number(t->second[k]) && !number(o->second[k])) knows_more = true;
      if (number(t->second[k]) && number(o->second[k]) && t->second[k] != o->second[k]) differs = true;
    }
    if (differs) disagree.push_back(line);
    else if (knows_more) more.push_back(line);
  }

  auto exposed = written;
  std::set<std::string> outputs;
  for (const auto& o : exposed.graph().output()) outputs.insert(o.name());
  for (const auto& v : written.graph().value_info())
    if (outputs.insert(v.name()).second) *exposed.mutable_graph()->add_output() = v;
  for (const auto& [name, levels] : expose_bodies(*exposed.mutable_graph())) {
    auto* out = exposed.mutable_graph()->add_output();
    out->set_name(exposed_name(levels, name));
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  }
  std::ofstream out(argv[3], std::ios::binary);
  if (!exposed.SerializeToOstream(&out)) {
    std::cerr << "onnx_shapes_check: cannot write " << argv[3] << '\n';
    return 2;
  }

  std::ostringstream j;
  j << "{\"checker\": " << quoted(checker) << ", \"inference\": " << quoted(inference) << ", \"declared\": {";
  bool first = true;
  for (const auto& [name, d] : ours) {
    j << (first ? "" : ", ") << quoted(name) << ": " << text(d);
    first = false;
  }
  const auto list = [&](const std::vector<std::string>& xs) {
    std::string s = "[";
    for (std::size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
    return s + "]";
  };
  j << "}, \"onnx_knows_more\": " << list(more) << ", \"disagree\": " << list(disagree) << "}";
  std::cout << j.str() << '\n';
  return 0;
}
