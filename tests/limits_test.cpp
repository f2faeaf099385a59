// Sizes that must be handled (a result or one clear error) without exhausting memory or taking more than a
// few seconds. docs/semantics.md lists the limits.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include "reshape1/model/check.hpp"
#include "reshape1/io/npy.hpp"
#include "test_util.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

class limits : public ::testing::Test {
 protected:
  void SetUp() override {
    start_ = std::chrono::steady_clock::now();
    dir_ = fs::temp_directory_path() / ("reshape1-limits-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    // Generous, so that a loaded CI machine under sanitizers passes; a quadratic algorithm does not.
    EXPECT_LT(std::chrono::steady_clock::now() - start_, std::chrono::seconds(60));
  }
  std::chrono::steady_clock::time_point start_;
  fs::path dir_;
};

TEST_F(limits, a_pattern_of_a_million_elements) {
  std::vector<std::int64_t> values(1'000'000, 1);
  values[500'000] = -1;
  const auto r = infer_shape(parse_shape("[2,3]"), reshape_pattern::from_values(values), false);
  ASSERT_EQ(r.shape.size(), 1'000'000u);
  EXPECT_EQ(r.shape[500'000], dimension(6));
  const shape fast = infer_static_shape(shape{2, 3}, values, false);
  EXPECT_EQ(fast[500'000], 6);
  // The same through the notation (2 MB of text).
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) text += i == 0 ? "1" : i == 500'000 ? ",-1" : ",1";
  text += "]";
  EXPECT_EQ(parse_pattern(text).elements().size(), 1'000'000u);
}

TEST_F(limits, a_rank_of_ten_thousand) {
  std::vector<dimension> dims(10'000, dimension(1));
  dims[7] = dimension(interval(2, 9), "A");
  const partial_shape input(dims);
  std::vector<std::int64_t> ones(10'000, 1);
  ones[7] = 0;
  const auto r = infer_shape(input, reshape_pattern::from_values(ones), true);
  EXPECT_EQ(r.shape, input);
  EXPECT_EQ(to_string(infer_shape(input, reshape_pattern::from_values(std::vector<std::int64_t>{-1}), false).shape),
            "[2..9@A]");
}

TEST_F(limits, ten_megabytes_of_shape_text) {
  // 5,000,000 dimensions: above the notation's limit of 1,048,576, refused after reading them.
  std::string text = "[";
  for (int i = 0; i < 5'000'000; ++i) text += i == 0 ? "1" : ",1";
  text += "]";
  ASSERT_GE(text.size(), 10'000'000u);
  test::expect_error_containing([&] { (void)parse_shape(text); }, errc::too_large,
                                "more than 1048576 dimensions");
  // 10 MB of spaces inside a valid shape is just a long text.
  const std::string spaced = "[2," + std::string(10'000'000, ' ') + "3]";
  EXPECT_EQ(to_string(parse_shape(spaced)), "[2,3]");
}

TEST_F(limits, an_ir_model_with_a_hundred_thousand_layers) {
  // A chain x -> (Reshape with a Const pattern) x 50,000: 100,001 layers.
  std::ofstream xml(dir_ / "big.xml");
  xml << "<?xml version=\"1.0\"?>\n<net name=\"big\" version=\"11\"><layers>\n"
      << "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><output><port id=\"0\"><dim>2</dim>"
         "<dim>3</dim></port></output></layer>\n";
  constexpr int reshapes = 50'000;
  for (int k = 0; k < reshapes; ++k) {
    const int c = 2 * k + 1, r = 2 * k + 2;
    const bool flat = k % 2 == 0;
    xml << "<layer id=\"" << c << "\" name=\"p" << k << "\" type=\"Const\" version=\"opset1\"><data element_type=\"i64\""
        << " shape=\"2\" offset=\"" << (flat ? 0 : 16) << "\" size=\"16\"/><output><port id=\"0\"><dim>2</dim></port>"
        << "</output></layer>\n<layer id=\"" << r << "\" name=\"r" << k << "\" type=\"Reshape\" version=\"opset1\">"
        << "<data special_zero=\"true\"/><input><port id=\"0\">" << (flat ? "<dim>2</dim><dim>3</dim>" : "<dim>6</dim><dim>1</dim>")
        << "</port><port id=\"1\"><dim>2</dim></port></input><output><port id=\"2\">"
        << (flat ? "<dim>6</dim><dim>1</dim>" : "<dim>2</dim><dim>3</dim>") << "</port></output></layer>\n";
  }
  xml << "</layers><edges>\n";
  for (int k = 0; k < reshapes; ++k) {
    const int c = 2 * k + 1, r = 2 * k + 2, prev = k == 0 ? 0 : 2 * k;
    xml << "<edge from-layer=\"" << prev << "\" from-port=\"" << (k == 0 ? 0 : 2) << "\" to-layer=\"" << r
        << "\" to-port=\"0\"/><edge from-layer=\"" << c << "\" from-port=\"0\" to-layer=\"" << r << "\" to-port=\"1\"/>\n";
  }
  xml << "</edges></net>\n";
  xml.close();
  const std::int64_t patterns[4] = {6, 1, 2, 3};
  std::ofstream(dir_ / "big.bin", std::ios::binary).write(reinterpret_cast<const char*>(patterns), sizeof patterns);
  const auto g = model::read_ir(dir_ / "big.xml", dir_ / "big.bin");
  EXPECT_EQ(g.layers().size(), 100'001u);
  const auto report = model::check(g);
  EXPECT_EQ(report.summary.reshapes.count, 50'000u);
  EXPECT_EQ(report.summary.reshapes.ok, 50'000u);
  EXPECT_EQ(report.summary.reshapes.blocking, 0u);  // [6,1] and [2,3] never write the batch's own value (2 or 6)
}

TEST_F(limits, an_npy_header_that_claims_two_to_the_62_bytes) {
  std::string dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (4611686018427387904,), }";
  dict += std::string(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(dict.size() & 0xFF);
  file += static_cast<char>(dict.size() >> 8);
  file += dict;
  std::ofstream(dir_ / "huge.npy", std::ios::binary) << file;
  test::expect_error_containing([&] { (void)io::read_npy(dir_ / "huge.npy"); }, errc::bad_file,
                                "promises 4611686018427387904 bytes");
}

}  // namespace
}  // namespace reshape1::test
