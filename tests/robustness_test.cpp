// Property tests: generated static reshapes keep the element count; truncated or corrupted copies of
// the shipped files give a result or one reshape1::error, never anything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <random>

#include "reshape1/model/check.hpp"
#include "reshape1/io/npy.hpp"
#include "test_util.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

TEST(properties, generated_static_reshapes_keep_the_element_count) {
  std::mt19937_64 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int k = 0; k < 20'000; ++k) {
    // A random factorisation of a random count into input and output dimensions.
    std::vector<std::int64_t> primes;
    for (int n = pick(0, 6); n > 0; --n) primes.push_back(std::vector<int>{2, 3, 5, 7}[static_cast<std::size_t>(pick(0, 3))]);
    auto split = [&] {
      std::vector<std::int64_t> dims(static_cast<std::size_t>(pick(1, 4)), 1);
      for (auto p : primes) dims[static_cast<std::size_t>(pick(0, static_cast<int>(dims.size()) - 1))] *= p;
      return dims;
    };
    const auto in = split();
    auto out = split();
    const bool sz = pick(0, 1) == 1;
    if (pick(0, 2) == 0) out[static_cast<std::size_t>(pick(0, static_cast<int>(out.size()) - 1))] = -1;
    for (std::size_t i = 0; sz && i < out.size() && i < in.size(); ++i)
      if (out[i] == in[i] && pick(0, 2) == 0) out[i] = 0;  // copy it instead
    const shape input(in);
    const shape result = infer_static_shape(input, out, sz);
    EXPECT_EQ(result.element_count(), input.element_count()) << to_string(input);
    EXPECT_EQ(to_string(infer_shape(partial_shape(input), reshape_pattern::from_values(out), sz).shape),
              to_string(result));
  }
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class damaged : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("reshape1-damaged-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  fs::path dir_;
};

/// Runs `f`; anything but success or a reshape1::error fails the test.
void clean(const std::function<void()>& f, const std::string& what) {
  try {
    f();
  } catch (const error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
}

TEST_F(damaged, npy_truncated_at_every_header_byte_and_corrupted) {
  const std::string good = read(fs::path(RESHAPE1_SOURCE_DIR) / "examples/tensors/spec_example_2.npy");
  for (std::size_t n = 0; n < 200; ++n)
    clean([&] { (void)io::read_npy(write("t.npy", good.substr(0, n))); }, "truncated at " + std::to_string(n));
  for (std::size_t n = 200; n < good.size(); n += 97)
    EXPECT_THROW((void)io::read_npy(write("t.npy", good.substr(0, n))), error) << n;
  std::mt19937 rng(3);
  for (int k = 0; k < 2000; ++k) {
    std::string bad = good;
    for (int j = 0; j < 3; ++j) bad[rng() % 128] = static_cast<char>(rng());
    clean([&] {
      const auto t = io::read_npy(write("c.npy", bad));
      if (t.view().type() != element_type::string) (void)t.view().byte_size();
    }, "corrupted");
  }
}

TEST_F(damaged, ir_model_truncated_and_corrupted) {
  const fs::path base = fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-retail-0005";
  const std::string xml = read(base / "other.xml");
  const std::string bin = read(base / "other.bin");
  const auto bin_path = write("m.bin", bin);
  for (std::size_t n : {0ul, 1ul, 10ul, 100ul, 1000ul, 5000ul, xml.size() / 2, xml.size() - 20}) {
    EXPECT_THROW((void)model::read_ir(write("m.xml", xml.substr(0, n)), bin_path), error) << n;
  }
  std::mt19937 rng(5);
  for (int k = 0; k < 200; ++k) {
    std::string bad = xml;
    for (int j = 0; j < 4; ++j) bad[rng() % bad.size()] = "<>\"=/ 0123456789-?.x"[rng() % 21];
    clean([&] { (void)model::check(model::read_ir(write("m.xml", bad), bin_path)); }, "corrupted xml");
  }
  for (std::size_t n : {0ul, 8ul, bin.size() / 2, bin.size() - 1})
    EXPECT_THROW((void)model::read_ir(base / "other.xml", write("short.bin", bin.substr(0, n))), error) << n;
}

}  // namespace
}  // namespace reshape1::test
