// op_attributes LIST.tsv [--write]
// op_attributes --probes OUT.bin < PROBES      (single-node models for tests/onnx/op_attributes_ort.py)
// The attributes column of src/onnx/op_list.tsv held against ONNX's own library (Debian's ONNX 1.12, whose
// schemas reach opset 17): for each default-domain row whose since_version that library holds a schema of,
// the names of the schema's attributes, sorted and comma-separated ("-" for none; "?" for a schema that
// takes attributes it does not name, as LayerNormalization-17's). Other rows (versions
// above 17, operators the library does not hold, com.microsoft) keep what the file says: "?" until they
// are transcribed. Without --write, prints each row that differs and exits 1 if any does (the test
// onnx.op_attributes_match_onnx); with --write, rewrites the file's rows with the column filled in.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split(const std::string& row, char by) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(row);
  while (std::getline(in, field, by)) out.push_back(field);
  if (!row.empty() && row.back() == by) out.emplace_back();
  return out;
}

/// Whether `schema` refuses an attribute it does not name: its Verify says "Unrecognized attribute" of a
/// node that has one (a schema built with AllowUncheckedAttributes, LayerNormalization-17's, takes any;
/// ONNX 1.12 has no getter for it).
bool refuses_unknown(const onnx::OpSchema& schema) {
  onnx::NodeProto node;
  node.set_op_type(schema.Name());
  for (int k = 0; k < schema.min_input(); ++k) node.add_input("in" + std::to_string(k));
  for (int k = 0; k < schema.min_output(); ++k) node.add_output("out" + std::to_string(k));
  auto* probe = node.add_attribute();
  probe->set_name("reshape1_probe");
  probe->set_type(onnx::AttributeProto::INT);
  probe->set_i(1);
  try {
    schema.Verify(node);
  } catch (const std::exception& e) {
    return std::string(e.what()).find("Unrecognized attribute") != std::string::npos;
  }
  return false;
}

/// The positions below the least count of `schema`'s inputs (or outputs) that ONNX 1.12's checker lets a node
/// name "", as op_list.tsv's empty_inputs (empty_outputs) field writes them: a node of the least counts with
/// one position named "" is verified.
std::string empty_positions(const onnx::OpSchema& schema, bool inputs) {
  const int least = inputs ? schema.min_input() : schema.min_output();
  std::string out;
  for (int k = 0; k < least; ++k) {
    onnx::NodeProto node;
    node.set_op_type(schema.Name());
    for (int i = 0; i < schema.min_input(); ++i) node.add_input(inputs && i == k ? "" : "in" + std::to_string(i));
    for (int o = 0; o < std::max(schema.min_output(), 1); ++o)
      node.add_output(!inputs && o == k ? "" : "out" + std::to_string(o));
    bool refused = false;
    try {
      schema.Verify(node);
    } catch (const std::exception& e) {
      refused = std::string(e.what()).find("is marked single but has an empty string") != std::string::npos;
    }
    if (!refused) out += (out.empty() ? "" : ",") + std::to_string(k);
  }
  return out.empty() ? "-" : out;
}

/// What ONNX 1.12 says the attributes of (op, since) of the default domain are, or nullopt when it holds
/// no schema of exactly that version or the schema takes any attribute ("?", not checked).
std::optional<std::string> from_onnx(const std::string& op, int since) {
  const auto* schema = onnx::OpSchemaRegistry::Schema(op, since, "");
  if (schema == nullptr || schema->SinceVersion() != since) return std::nullopt;
  // ONNX Runtime turns a Constant node into an initializer before it checks any node against its schema: it
  // takes the value attribute and runs the model whatever else the node holds. Refusing the others would
  // refuse models it runs (tests/onnx/op_attributes_ort.py finds it cannot be asked there).
  if (op == "Constant") return "?";
  if (!refuses_unknown(*schema)) return "?";
  std::vector<std::string> names;
  for (const auto& [name, attribute] : schema->attributes()) names.push_back(name);
  std::sort(names.begin(), names.end());
  if (names.empty()) return "-";
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

/// reshape1's element type names as ONNX 1.12's type strings: the types the types column may list that it knows.
const std::map<std::string, std::string>& type_strings() {
  static const std::map<std::string, std::string> names = {
      {"f32", "tensor(float)"},   {"u8", "tensor(uint8)"},   {"i8", "tensor(int8)"},       {"u16", "tensor(uint16)"},
      {"i16", "tensor(int16)"},   {"i32", "tensor(int32)"},  {"i64", "tensor(int64)"},     {"boolean", "tensor(bool)"},
      {"f16", "tensor(float16)"}, {"f64", "tensor(double)"}, {"u32", "tensor(uint32)"},    {"u64", "tensor(uint64)"},
      {"bf16", "tensor(bfloat16)"}, {"string", "tensor(string)"}};
  return names;
}

/// Where op_list.tsv's types column (what ONNX Runtime 1.30 said, by tests/onnx/op_types_ort.py) and `schema`'s
/// type constraints differ, what differs ("" where they agree): each input position's types (those ONNX 1.12 names),
/// which positions are bound to one type parameter (one that takes two or more of those types: ONNX Runtime shows
/// no binding of a single type), and that an output the column puts with inputs has their parameter.
std::string types_differ(const onnx::OpSchema& schema, const std::string& column) {
  struct group {
    std::vector<int> inputs, outputs;
    std::set<std::string> types;
  };
  std::vector<group> groups;
  for (const auto& text : split(column, ';')) {
    const auto colon = text.find(':');
    group g;
    for (const auto& member : split(text.substr(0, colon), ','))
      (member[0] == 'o' ? g.outputs : g.inputs).push_back(std::stoi(member.substr(member[0] == 'o' ? 1 : 0)));
    for (const auto& t : split(text.substr(colon + 1), ','))
      if (type_strings().contains(t)) g.types.insert(type_strings().at(t));
    groups.push_back(g);
  }
  const auto& formal = schema.inputs();
  const auto formal_of = [&](int k) { return formal.empty() ? nullptr : &formal[std::min<std::size_t>(static_cast<std::size_t>(k), formal.size() - 1)]; };
  const auto known_types = [&](const onnx::OpSchema::FormalParameter& p) {
    std::set<std::string> out;
    for (const auto* t : p.GetTypes())
      for (const auto& [_, name] : type_strings())
        if (*t == name) out.insert(name);
    return out;
  };
  std::ostringstream problem;
  std::map<int, std::size_t> group_of;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const int k : groups[g].inputs) {
      group_of[k] = g;
      const auto* p = formal_of(k);
      if (p == nullptr) {
        problem << "input " << k << " is past the schema's; ";
        continue;
      }
      // ONNX's schemas take strings in ops ONNX Runtime's CPU provider has no string kernel for (Pad, Resize,
      // NonZero): the column leaves string out there, as a session refuses it.
      auto schema_types = known_types(*p);
      if (!groups[g].types.contains("tensor(string)")) schema_types.erase("tensor(string)");
      if (schema_types != groups[g].types) problem << "input " << k << " takes other types; ";
    }
  for (const auto& [k, g] : group_of)
    for (const auto& [j, h] : group_of) {
      if (j <= k) continue;
      const auto *a = formal_of(k), *b = formal_of(j);
      const bool one_list = a == b && !a->GetIsHomogeneous();
      const bool bound = a->GetTypeStr() == b->GetTypeStr() && !one_list && known_types(*a).size() >= 2;
      if (bound != (g == h)) problem << "inputs " << k << " and " << j << (bound ? " are" : " are not") << " bound in the schema; ";
    }
  for (const auto& g : groups)
    for (const int o : g.outputs) {
      if (g.inputs.empty()) continue;
      if (static_cast<std::size_t>(o) >= schema.outputs().size() && schema.outputs().empty()) continue;
      const auto& out = schema.outputs()[std::min<std::size_t>(static_cast<std::size_t>(o), schema.outputs().size() - 1)];
      if (out.GetTypeStr() != formal_of(g.inputs[0])->GetTypeStr()) problem << "output " << o << " has another parameter; ";
    }
  return problem.str();
}

/// `--probes OUT`: reads lines `domain<TAB>op<TAB>opset<TAB>inputs<TAB>outputs<TAB>attribute` and writes, for
/// each, a model of one node of that op (the domain imported at `opset`, ai.onnx at 21 beside another
/// domain) with that many float inputs and outputs and an INT attribute of that name ("" for none), as
/// records of a little-endian u32 length and the serialised ModelProto (tests/onnx/ort/attributes.js
/// loads them in ONNX Runtime). Two optional fields more let the kernel probe reach a session: the inputs'
/// element types (ONNX data type numbers, comma-separated, one per input) and further attributes
/// (`name:kind` comma-separated, kind i for the INT 1, is for the INTS [1,1], f for the FLOAT 1, s for
/// the STRING "a"). A ninth names the node's inputs and outputs left empty, named "" (`i1`, `o0`, comma-separated):
/// the "required" probe asks which positions ONNX Runtime refuses so. A tenth declares the outputs' element types
/// (comma-separated, one per output; empty or 0 for none): ONNX Runtime names the type it infers for an output
/// declared with another ("does not match expected type"), which tells the type probe what an output follows.
int write_probes(const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    std::cerr << "op_attributes: cannot write " << path << '\n';
    return 2;
  }
  int count = 0;
  for (std::string line; std::getline(std::cin, line);) {
    const auto f = split(line, '\t');
    if (f.size() != 6 && f.size() != 8 && f.size() != 9 && f.size() != 10) {
      std::cerr << "op_attributes: a probe is six, eight, nine or ten fields: " << line << '\n';
      return 2;
    }
    const auto types = f.size() >= 8 && !f[6].empty() ? split(f[6], ',') : std::vector<std::string>{};
    const auto extra = f.size() >= 8 && !f[7].empty() ? split(f[7], ',') : std::vector<std::string>{};
    const auto empty = f.size() >= 9 && !f[8].empty() ? split(f[8], ',') : std::vector<std::string>{};
    const auto output_types = f.size() == 10 && !f[9].empty() ? split(f[9], ',') : std::vector<std::string>{};
    const auto left_empty = [&](char kind, int k) {
      return std::find(empty.begin(), empty.end(), kind + std::to_string(k)) != empty.end();
    };
    const std::string domain = f[0] == "ai.onnx" ? "" : f[0];
    onnx::ModelProto model;
    model.set_ir_version(10);
    auto* opset = model.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(std::stoi(f[2]));
    if (!domain.empty()) {
      auto* standard = model.add_opset_import();
      standard->set_domain("");
      standard->set_version(21);
    }
    auto* graph = model.mutable_graph();
    graph->set_name("probe");
    auto* node = graph->add_node();
    node->set_op_type(f[1]);
    node->set_domain(domain);
    node->set_name("probe");
    for (int k = 0; k < std::stoi(f[3]); ++k) {
      if (left_empty('i', k)) {
        node->add_input("");
        continue;
      }
      auto* input = graph->add_input();
      input->set_name("in" + std::to_string(k));
      input->mutable_type()->mutable_tensor_type()->set_elem_type(
          k < static_cast<int>(types.size()) ? std::stoi(types[static_cast<std::size_t>(k)]) : onnx::TensorProto::FLOAT);
      node->add_input(input->name());
    }
    for (int k = 0; k < std::stoi(f[4]); ++k) {
      node->add_output(left_empty('o', k) ? "" : "out" + std::to_string(k));
      if (left_empty('o', k)) continue;
      auto* output = graph->add_output();
      output->set_name(node->output(k));
      const auto declared = k < static_cast<int>(output_types.size()) ? std::stoi(output_types[static_cast<std::size_t>(k)]) : 0;
      if (declared != 0) output->mutable_type()->mutable_tensor_type()->set_elem_type(declared);
    }
    if (!f[5].empty()) {
      auto* attribute = node->add_attribute();
      attribute->set_name(f[5]);
      attribute->set_type(onnx::AttributeProto::INT);
      attribute->set_i(1);
    }
    for (const auto& named : extra) {
      const auto colon = named.find(':');
      if (colon == std::string::npos) {
        std::cerr << "op_attributes: an attribute is name:kind: " << named << '\n';
        return 2;
      }
      const std::string kind = named.substr(colon + 1);
      auto* attribute = node->add_attribute();
      attribute->set_name(named.substr(0, colon));
      if (kind == "i") {
        attribute->set_type(onnx::AttributeProto::INT);
        attribute->set_i(1);
      } else if (kind == "is") {
        attribute->set_type(onnx::AttributeProto::INTS);
        attribute->add_ints(1);
        attribute->add_ints(1);
      } else if (kind == "f") {
        attribute->set_type(onnx::AttributeProto::FLOAT);
        attribute->set_f(1.0F);
      } else if (kind == "s") {
        attribute->set_type(onnx::AttributeProto::STRING);
        attribute->set_s("a");
      } else {
        std::cerr << "op_attributes: an attribute's kind is i, is, f or s: " << named << '\n';
        return 2;
      }
    }
    const std::string bytes = model.SerializeAsString();
    const auto size = static_cast<std::uint32_t>(bytes.size());
    const char length[4] = {static_cast<char>(size & 0xff), static_cast<char>((size >> 8) & 0xff),
                            static_cast<char>((size >> 16) & 0xff), static_cast<char>(size >> 24)};
    out.write(length, 4);
    out << bytes;
    ++count;
  }
  if (!out) {
    std::cerr << "op_attributes: cannot write " << path << '\n';
    return 2;
  }
  return count > 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--probes") return write_probes(argv[2]);
  if (argc < 2 || argc > 3 || (argc == 3 && std::string(argv[2]) != "--write")) {
    std::cerr << "usage: op_attributes LIST.tsv [--write]\n";
    return 2;
  }
  const std::string path = argv[1];
  const bool write = argc == 3;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "op_attributes: cannot read " << path << '\n';
    return 2;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  int differ = 0, checked = 0;
  for (auto& line : lines) {
    if (line.empty() || line[0] == '#') continue;
    auto fields = split(line, '\t');
    if (fields.size() != 10) {
      std::cerr << "op_attributes: not ten fields: " << line << '\n';
      return 2;
    }
    // The empty positions, where ONNX Runtime gave the counts (tests/onnx/op_kernels_ort.py writes them),
    // held against ONNX's own checker.
    if (const auto* schema = fields[0] == "ai.onnx" ? onnx::OpSchemaRegistry::Schema(fields[1], std::stoi(fields[2]), "") : nullptr;
        schema != nullptr && schema->SinceVersion() == std::stoi(fields[2]) && fields[7] != "?") {
      for (const bool inputs : {true, false}) {
        const auto expected = empty_positions(*schema, inputs);
        const auto& given = fields[inputs ? 7 : 8];
        if (given == expected) continue;
        ++differ;
        std::cout << fields[0] << '\t' << fields[1] << '\t' << fields[2] << ": the list says " << (inputs ? "inputs " : "outputs ")
                  << given << " below the least may be \"\", ONNX's checker " << expected << '\n';
      }
    }
    // The types, where ONNX Runtime gave them (tests/onnx/op_types_ort.py writes them), held against the schema.
    if (const auto* schema = fields[0] == "ai.onnx" ? onnx::OpSchemaRegistry::Schema(fields[1], std::stoi(fields[2]), "") : nullptr;
        schema != nullptr && schema->SinceVersion() == std::stoi(fields[2]) && fields[9] != "?" && fields[9] != "-") {
      // Where ONNX Runtime 1.30's schemas (what a model meets) and ONNX 1.12's differ: it refuses an int32 or int64
      // Erf-13, which 1.12 takes; it takes a GridSample-16 of int32 X beside a float grid, which 1.12 binds to one
      // type.
      static const std::set<std::string> revised = {"Erf 13", "GridSample 16"};
      const auto problem = revised.contains(fields[1] + ' ' + fields[2]) ? std::string() : types_differ(*schema, fields[9]);
      if (!problem.empty()) {
        ++differ;
        std::cout << fields[0] << '\t' << fields[1] << '\t' << fields[2] << ": the types column " << fields[9]
                  << " and ONNX's schema differ: " << problem << '\n';
      }
    }
    const auto expected = fields[0] == "ai.onnx" ? from_onnx(fields[1], std::stoi(fields[2])) : std::nullopt;
    const std::string given = fields[4];
    if (expected) ++checked;
    if (expected && given != *expected) {
      ++differ;
      if (!write)
        std::cout << fields[0] << '\t' << fields[1] << '\t' << fields[2] << ": the list says '" << given
                  << "', ONNX's schema '" << *expected << "'\n";
    }
    fields[4] = expected ? *expected : given.empty() ? "?" : given;
    line = fields[0];
    for (std::size_t k = 1; k < fields.size(); ++k) line += '\t' + fields[k];
  }
  if (write) {
    std::ofstream out(path, std::ios::trunc);
    for (const auto& line : lines) out << line << '\n';
    if (!out) {
      std::cerr << "op_attributes: cannot write " << path << '\n';
      return 2;
    }
    std::cout << "op_attributes: " << checked << " rows from ONNX's schemas, " << differ << " changed\n";
    return 0;
  }
  std::cout << "op_attributes: " << checked << " rows held against ONNX's schemas, " << differ << " differ\n";
  return differ == 0 ? 0 : 1;
}
