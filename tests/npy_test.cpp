// .npy and raw files: round trips for every supported dtype, versions 1-3, byte order, Fortran order,
// strings, every kind of malformed file, and writes that fail leaving nothing behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "io/files.hpp"
#include "reshape1/io/npy.hpp"
#include "test_util.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

class npy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("reshape1-npy-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    io::detail::fail_writes_after(std::nullopt);
    fs::remove_all(dir_);
  }
  fs::path path(const std::string& name) const { return dir_ / name; }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  fs::path write_bytes(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
  /// A .npy file built by hand: version `major`.0, the dict text as given, then `data`.
  fs::path make(const std::string& name, const std::string& dict, const std::string& data, int major = 1) const {
    std::string h = "\x93NUMPY";
    h += static_cast<char>(major);
    h += '\0';
    const std::size_t len = dict.size();
    h += static_cast<char>(len & 0xFF);
    h += static_cast<char>((len >> 8) & 0xFF);
    if (major >= 2) {
      h += static_cast<char>((len >> 16) & 0xFF);
      h += static_cast<char>((len >> 24) & 0xFF);
    }
    return write_bytes(name, h + dict + data);
  }
  static std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
           ", }\n";
  }
  fs::path dir_;
};

std::string bytes_of(std::initializer_list<unsigned> b) {
  std::string s;
  for (auto x : b) s += static_cast<char>(x);
  return s;
}

/// A file error: the code, a message part, the file it names and (when given) the byte offset.
void expect_file_error(const std::function<void()>& f, errc code, const std::string& message_part,
                       std::optional<std::size_t> offset = std::nullopt) {
  const auto e = expect_error_containing(f, code, message_part);
  if (!e) return;
  if (offset) {
    EXPECT_EQ(e->where().offset, offset) << e->what();
  }
  EXPECT_FALSE(e->where().file.empty());
}

TEST_F(npy, round_trip_for_every_numpy_dtype) {
  for (auto t : all_element_types()) {
    if (io::numpy_dtype(t).empty()) continue;
    tensor src(t, shape{3, 5});
    for (std::size_t i = 0; i < src.bytes().size(); ++i)
      src.bytes()[i] = static_cast<std::byte>(t == element_type::boolean ? i % 2 : (i * 37 + 11) & 0xFF);
    io::write_npy(path("t.npy"), src.view());
    const auto back = io::read_npy(path("t.npy"));
    EXPECT_EQ(back.view().type(), t);
    EXPECT_EQ(to_string(back.view().dims()), "[3,5]");
    EXPECT_EQ(back.dtype(), io::numpy_dtype(t));
    ASSERT_EQ(back.view().byte_size(), src.view().byte_size());
    EXPECT_EQ(std::memcmp(back.view().data(), src.data(), src.bytes().size()), 0) << name(t);
    // The data starts on a 64-byte boundary, as numpy writes it.
    EXPECT_EQ((fs::file_size(path("t.npy")) - src.bytes().size()) % 64, 0u);
  }
}

TEST_F(npy, scalars_and_empty_arrays) {
  const float one = 1.5f;
  io::write_npy(path("s.npy"), tensor_view(&one, element_type::f32, shape{}));
  const auto s = io::read_npy(path("s.npy"));
  EXPECT_EQ(to_string(s.view().dims()), "[]");
  EXPECT_EQ(*static_cast<const float*>(s.view().data()), 1.5f);
  io::write_npy(path("e.npy"), tensor_view(nullptr, element_type::i32, shape{0, 3}));
  const auto e = io::read_npy(path("e.npy"));
  EXPECT_EQ(to_string(e.view().dims()), "[0,3]");
}

TEST_F(npy, versions_2_and_3_are_read) {
  make("v2.npy", dict("<i2", "(2,)"), bytes_of({1, 0, 2, 0}), 2);
  make("v3.npy", dict("<i2", "(2,)"), bytes_of({3, 0, 4, 0}), 3);
  const auto v2 = io::read_npy(path("v2.npy"));
  const auto v3 = io::read_npy(path("v3.npy"));
  EXPECT_EQ(static_cast<const std::int16_t*>(v2.view().data())[1], 2);
  EXPECT_EQ(static_cast<const std::int16_t*>(v3.view().data())[1], 4);
}

TEST_F(npy, big_endian_data_is_converted) {
  make("be.npy", dict(">i4", "(2,)"), bytes_of({0, 0, 1, 2, 0xFF, 0xFF, 0xFF, 0xFE}));
  const auto t = io::read_npy(path("be.npy"));
  const auto* v = static_cast<const std::int32_t*>(t.view().data());
  EXPECT_EQ(v[0], 258);
  EXPECT_EQ(v[1], -2);
  EXPECT_EQ(t.dtype(), ">i4");
}

TEST_F(npy, fortran_order_is_converted_to_row_major) {
  // The 2x3 array [[0,1,2],[3,4,5]] in column-major order is 0,3,1,4,2,5.
  make("f.npy", dict("|u1", "(2, 3)", true), bytes_of({0, 3, 1, 4, 2, 5}));
  const auto t = io::read_npy(path("f.npy"));
  const auto* v = static_cast<const std::uint8_t*>(t.view().data());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v[i], i);
  // 2x2x2 in Fortran order: element (i,j,k) at i + 2j + 4k.
  make("f3.npy", dict("|u1", "(2, 2, 2)", true), bytes_of({0, 4, 2, 6, 1, 5, 3, 7}));
  const auto f3 = io::read_npy(path("f3.npy"));
  const auto* w = static_cast<const std::uint8_t*>(f3.view().data());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(w[i], i);
}

TEST_F(npy, strings_of_both_kinds) {
  std::string u = bytes_of({'a', 0, 0, 0, 0, 0, 0, 0, 0xE9, 0, 0, 0, 'x', 0, 0, 0});  // "a", "éx" as <U2
  make("u.npy", dict("<U2", "(2,)"), u);
  const auto t = io::read_npy(path("u.npy"));
  ASSERT_EQ(t.view().type(), element_type::string);
  EXPECT_EQ(t.view().strings()[0], "a");
  EXPECT_EQ(t.view().strings()[1], "\xC3\xA9x");
  make("s.npy", dict("|S3", "(2,)"), std::string("ab\0xyz", 6));
  const auto s = io::read_npy(path("s.npy"));
  EXPECT_EQ(s.view().strings()[0], "ab");
  EXPECT_EQ(s.view().strings()[1], "xyz");

  io::write_npy(path("u2.npy"), t.view());
  EXPECT_EQ(io::read_npy(path("u2.npy")).dtype(), "<U2");
  io::write_options o;
  o.string_kind = 'S';
  io::write_npy(path("s2.npy"), s.view(), o);
  EXPECT_EQ(io::read_npy(path("s2.npy")).dtype(), "|S3");
  const auto s2 = io::read_npy(path("s2.npy"));
  EXPECT_EQ(s2.view().strings()[1], "xyz");
}

// Bytes after the data are ignored, as numpy's np.load ignores them: the tensor is what the header says.
TEST_F(npy, bytes_after_the_data_are_left_alone_as_numpy_does) {
  std::string data(8, '\0');
  data[0] = '\x01';
  make("long.npy", dict("|u1", "(2,4)"), data + "trailing bytes");
  const auto t = io::read_npy(path("long.npy"));
  EXPECT_EQ(to_string(t.view().dims()), "[2,4]");
  EXPECT_EQ(t.view().byte_size(), 8u);
  EXPECT_EQ(std::to_integer<int>(t.view().bytes()[0]), 1);
}

TEST_F(npy, malformed_files_each_get_their_own_error) {
  write_bytes("magic.npy", "PK\x03\x04 not numpy at all");
  expect_file_error([&] { (void)io::read_npy(path("magic.npy")); }, errc::bad_file, "does not start with", 0);
  write_bytes("short.npy", "\x93NUMPY\x01");
  expect_file_error([&] { (void)io::read_npy(path("short.npy")); }, errc::bad_file, "ends inside the .npy preamble");
  write_bytes("len.npy", std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17));
  expect_file_error([&] { (void)io::read_npy(path("len.npy")); }, errc::bad_file, "header length 255 runs past", 8);
  make("dict.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)\n", "");
  expect_file_error([&] { (void)io::read_npy(path("dict.npy")); }, errc::bad_file, "expected ','");
  make("trunc.npy", dict("<f4", "(4,)"), std::string(12, '\0'));
  expect_file_error([&] { (void)io::read_npy(path("trunc.npy")); }, errc::bad_file,
                    "promises 16 bytes of <f4 data of shape [4], but the file holds 12");
  make("huge.npy", dict("<f8", "(4611686018427387904,)"), "");
  expect_file_error([&] { (void)io::read_npy(path("huge.npy")); }, errc::bad_file, "promises more than 2^64 bytes");
  make("huge2.npy", dict("|u1", "(4611686018427387904,)"), "");
  expect_file_error([&] { (void)io::read_npy(path("huge2.npy")); }, errc::bad_file,
                    "promises 4611686018427387904 bytes");
  make("dim.npy", dict("<f4", "(99999999999999999999,)"), "");
  expect_file_error([&] { (void)io::read_npy(path("dim.npy")); }, errc::bad_file, "does not fit int64");
  make("neg.npy", dict("<f4", "(-1,)"), "");
  expect_file_error([&] { (void)io::read_npy(path("neg.npy")); }, errc::bad_file, "non-negative integer");
  make("key.npy", "{'descr': '<f4', 'fortran_order': False}\n", "");
  expect_file_error([&] { (void)io::read_npy(path("key.npy")); }, errc::bad_file, "lacks 'shape'");
  make("extra.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}\n", std::string(4, '\0'));
  expect_file_error([&] { (void)io::read_npy(path("extra.npy")); }, errc::bad_file, "unexpected key 'x'");
  make("fo.npy", "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}\n", std::string(4, '\0'));
  expect_file_error([&] { (void)io::read_npy(path("fo.npy")); }, errc::bad_file, "True or False");
  make("ascii.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (), '\xC3\xA9': 1}\n", "");
  expect_file_error([&] { (void)io::read_npy(path("ascii.npy")); }, errc::bad_file, "not ASCII");
  make("ver.npy", dict("<f4", "()"), std::string(4, '\0'), 4);
  expect_file_error([&] { (void)io::read_npy(path("ver.npy")); }, errc::unsupported, "version 4.0", 6);
  write_bytes("empty.npy", "");
  expect_file_error([&] { (void)io::read_npy(path("empty.npy")); }, errc::bad_file, "does not start with");
  expect_file_error([&] { (void)io::read_npy(path("missing.npy")); }, errc::io, "cannot open");
  expect_file_error([&] { (void)io::read_npy(dir_); }, errc::io, "is a directory");
}

TEST_F(npy, unsupported_dtypes_are_named) {
  for (const auto& [descr, what] : std::vector<std::pair<std::string, std::string>>{
           {"<c8", "complex"}, {"|O", "not a simple dtype"}, {"<M8[ns]", "datetime"}, {"<f16", "extended"},
           {"|V4", "raw void"}, {"<x4", "unknown kind"}, {"<i3", "unknown kind or size"}}) {
    make("d.npy", dict(descr, "(1,)"), "");
    expect_file_error([&] { (void)io::read_npy(path("d.npy")); }, errc::unsupported,
                      "dtype '" + descr + "' (" + what);
  }
  make("st.npy", "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,)}\n", std::string(4, '\0'));
  expect_file_error([&] { (void)io::read_npy(path("st.npy")); }, errc::unsupported, "structured dtype");
}

TEST_F(npy, types_without_a_numpy_dtype_are_refused_for_npy_and_written_raw) {
  const std::vector<std::byte> bits(3);
  const tensor_view u6(bits.data(), element_type::u6, shape{4});
  expect_file_error([&] { io::write_npy(path("u6.npy"), u6); }, errc::unsupported, "numpy has no dtype for u6");
  EXPECT_TRUE(files().empty());
  io::write_raw(path("u6.bin"), u6);
  EXPECT_EQ(fs::file_size(path("u6.bin")), 3u);
  const auto raw = io::read_raw(path("u6.bin"), element_type::u6, shape{2, 2});
  EXPECT_EQ(raw.view().byte_size(), 3u);
  expect_file_error([&] { (void)io::read_raw(path("u6.bin"), element_type::u6, shape{5}); }, errc::bad_file,
                    "the file has 3 bytes, but a u6 tensor of shape [5] takes 6");
}

TEST_F(npy, an_interrupted_write_leaves_nothing) {
  std::vector<float> data(1000, 2.0f);
  io::detail::fail_writes_after(200);
  expect_file_error([&] { io::write_npy(path("out.npy"), tensor_view(data.data(), element_type::f32, shape{1000})); },
                    errc::io, "nothing was written");
  EXPECT_TRUE(files().empty()) << "left: " << (files().empty() ? "" : files()[0]);
  // An existing destination is left as it was.
  write_bytes("keep.npy", "old");
  expect_file_error([&] { io::write_npy(path("keep.npy"), tensor_view(data.data(), element_type::f32, shape{1000})); },
                    errc::io, "nothing was written");
  io::detail::fail_writes_after(std::nullopt);
  EXPECT_EQ(files(), std::vector<std::string>{"keep.npy"});
  EXPECT_EQ(fs::file_size(path("keep.npy")), 3u);
}

TEST_F(npy, reshaping_a_file_copies_in_the_kernel_and_keeps_the_bytes) {
  std::vector<std::int32_t> data(6000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::int32_t>(i * 7);
  io::write_npy(path("in.npy"), tensor_view(data.data(), element_type::i32, shape{6000}));
  const auto in = io::read_npy(path("in.npy"));
  ASSERT_TRUE(in.file_backed());
  io::write_npy(path("out.npy"), in, shape{60, 100});
  const auto out = io::read_npy(path("out.npy"));
  EXPECT_EQ(to_string(out.view().dims()), "[60,100]");
  EXPECT_EQ(std::memcmp(out.view().data(), data.data(), data.size() * 4), 0);
  io::write_raw(path("out.bin"), in, shape{6000});
  EXPECT_EQ(fs::file_size(path("out.bin")), data.size() * 4);
  expect_file_error([&] { io::write_npy(path("bad.npy"), in, shape{7}); }, errc::invalid_argument,
                    "6000 elements cannot take the shape [7]");
  // Converted data (big-endian here) is not the file's bytes: it is written from memory.
  make("be.npy", dict(">i2", "(2,)"), bytes_of({0, 1, 0, 2}));
  const auto be = io::read_npy(path("be.npy"));
  EXPECT_FALSE(be.file_backed());
  io::write_npy(path("be_out.npy"), be, shape{2, 1});
  const auto be_out = io::read_npy(path("be_out.npy"));
  EXPECT_EQ(static_cast<const std::int16_t*>(be_out.view().data())[1], 2);
}

TEST_F(npy, an_interrupted_kernel_copy_leaves_nothing) {
  std::vector<std::int32_t> data(6000, 5);
  io::write_npy(path("in.npy"), tensor_view(data.data(), element_type::i32, shape{6000}));
  const auto in = io::read_npy(path("in.npy"));
  io::detail::fail_writes_after(1000);
  expect_file_error([&] { io::write_npy(path("out.npy"), in, shape{6, 1000}); }, errc::io, "nothing was written");
  io::detail::fail_writes_after(std::nullopt);
  EXPECT_EQ(files(), std::vector<std::string>{"in.npy"});
}

TEST_F(npy, a_missing_directory_is_an_io_error) {
  const float x = 1;
  expect_file_error([&] { io::write_npy(path("no/such/dir/x.npy"), tensor_view(&x, element_type::f32, shape{1})); },
                    errc::io, "cannot create a file in");
}

TEST_F(npy, large_writes_in_parallel_are_identical) {
  std::vector<std::uint8_t> data((std::size_t{130} << 20) + 5);
  for (std::size_t i = 0; i < data.size(); i += 4096) data[i] = static_cast<std::uint8_t>(i >> 12);
  io::write_options o;
  o.threads = 3;
  std::uint64_t last = 0;
  o.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_LE(done, total);
    last = done;
  };
  io::write_raw(path("big.bin"), tensor_view(data.data(), element_type::u8, shape{static_cast<std::int64_t>(data.size())}), o);
  EXPECT_EQ(last, data.size());
  const auto back = io::read_raw(path("big.bin"), element_type::u8, shape{static_cast<std::int64_t>(data.size())});
  EXPECT_EQ(std::memcmp(back.view().data(), data.data(), data.size()), 0);
}


TEST_F(npy, string_dtypes_keep_their_width) {
  make("u8.npy", dict("<U8", "(2,)"), bytes_of({'a', 0, 0, 0}) + std::string(28, '\0') + std::string(32, '\0'));
  io::write_npy(path("u8_out.npy"), io::read_npy(path("u8.npy")), shape{2, 1});
  EXPECT_EQ(io::read_npy(path("u8_out.npy")).dtype(), "<U8");
  make("s8.npy", dict("|S8", "(2,)"), std::string("ab\0\0\0\0\0\0c\0\0\0\0\0\0\0", 16));
  io::write_npy(path("s8_out.npy"), io::read_npy(path("s8.npy")), shape{1, 2});
  EXPECT_EQ(io::read_npy(path("s8_out.npy")).dtype(), "|S8");
  make("s4.npy", dict("|S4", "(0, 3)"), "");
  io::write_npy(path("s4_out.npy"), io::read_npy(path("s4.npy")), shape{3, 0});
  EXPECT_EQ(io::read_npy(path("s4_out.npy")).dtype(), "|S4");
  // A width given for a plain tensor: a longer string is refused, nothing is written.
  const auto s = io::read_npy(path("s8.npy"));
  io::write_options o;
  o.string_kind = 'S';
  o.string_width = 1;
  expect_file_error([&] { io::write_npy(path("narrow.npy"), s.view(), o); }, errc::invalid_argument,
                    "more than the dtype's width 1");
  EXPECT_FALSE(fs::exists(path("narrow.npy")));
}

TEST_F(npy, inputs_that_are_not_regular_files_are_refused_at_once) {
  ASSERT_EQ(::mkfifo(path("fifo.npy").c_str(), 0600), 0);
  expect_file_error([&] { (void)io::read_npy(path("fifo.npy")); }, errc::io, "is a FIFO (a pipe), not a regular file");
  expect_file_error([&] { (void)io::read_npy("/dev/zero"); }, errc::io, "is a character device, not a regular file");
  expect_file_error([&] { (void)io::read_raw(dir_, element_type::u8, shape{1}); }, errc::io, "is a directory");
}

/// A Fortran-ordered or big-endian f32 .npy file of 2 MiB: large enough to be mapped, not read.
std::string big_converted_file() {
  std::string data(std::size_t{2} << 20, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  return data;
}

TEST_F(npy, an_input_that_shrinks_while_it_is_converted_is_a_clean_error) {
  for (const bool fortran : {true, false}) {
    const auto file = make("shrinks.npy", dict(fortran ? "<f4" : ">f4", "(512, 1024)", fortran), big_converted_file());
    io::detail::on_mapped([&](const fs::path& p) { fs::resize_file(p, 4096); });
    // Converted by view() into memory, or in chunks while writing: a clean error either way.
    expect_file_error(
        [&] {
          const auto t = io::read_npy(file);
          (void)t.view();
        },
        errc::io, "became shorter while it was being read");
    make("shrinks.npy", dict(fortran ? "<f4" : ">f4", "(512, 1024)", fortran), big_converted_file());
    expect_file_error([&] { io::write_npy(path("out.npy"), io::read_npy(file), shape{1024, 512}); }, errc::io,
                      "became shorter while it was being read");
    io::detail::on_mapped({});
    EXPECT_EQ(files(), std::vector<std::string>{"shrinks.npy"});
  }
}

TEST_F(npy, converting_while_writing_gives_the_bytes_view_gives) {
  // 17.6 MB of f64: more than one 16 MiB chunk of the streamed conversion.
  std::string data(std::size_t{1100} * 2000 * 8, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 13);
  for (const char* descr : {"<f8", ">f8"}) {
    for (const bool fortran : {true, false}) {
      if (std::string(descr) == "<f8" && !fortran) continue;  // nothing to convert
      const auto file = make("in.npy", dict(descr, "(1100, 2000)", fortran), data);
      io::write_npy(path("streamed.npy"), io::read_npy(file), shape{2000, 1100});
      const auto eager = io::read_npy(file);
      io::write_npy(path("eager.npy"), eager.view());
      const auto a = io::read_npy(path("streamed.npy"));
      const auto b = io::read_npy(path("eager.npy"));
      ASSERT_EQ(a.dims(), (shape{2000, 1100}));
      EXPECT_EQ(std::memcmp(a.view().data(), b.view().data(), data.size()), 0) << descr << " fortran " << fortran;
    }
  }
}

TEST_F(npy, an_input_that_shrinks_before_it_is_copied_leaves_nothing) {
  const auto file = make("in.npy", dict("<f4", "(512, 1024)"), big_converted_file());
  const auto in = io::read_npy(file);
  ASSERT_TRUE(in.file_backed());
  fs::resize_file(file, 8192);
  expect_file_error([&] { io::write_npy(path("out.npy"), in, shape{1024, 512}); }, errc::io, "became shorter");
  expect_file_error([&] { io::write_raw(path("out.bin"), in, shape{1024, 512}); }, errc::io, "became shorter");
  EXPECT_EQ(files(), std::vector<std::string>{"in.npy"});
}

TEST_F(npy, outputs_that_are_not_regular_files_are_written_in_place) {
  const float x[2] = {1, 2};
  const tensor_view v(x, element_type::f32, shape{2});
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream f(path("fifo"), std::ios::binary);
    got.assign(std::istreambuf_iterator<char>(f), {});
  });
  io::write_raw(path("fifo"), v);
  reader.join();
  EXPECT_EQ(got, std::string(reinterpret_cast<const char*>(x), sizeof x));
  EXPECT_TRUE(fs::is_fifo(path("fifo")));
  io::write_npy("/dev/null", v);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  expect_file_error([&] { io::write_raw(dir_, v); }, errc::io, "is a directory");
  expect_error_containing([&] { io::write_raw("", v); }, errc::invalid_argument, "the output file name is empty");
}

// A FIFO that no process opens for reading is refused after a short wait, not waited on forever (open()
// for writing blocks until a reader comes); nothing is written and the FIFO stays.
TEST_F(npy, a_fifo_without_a_reader_is_refused_after_a_wait) {
  const float x[2] = {1, 2};
  const tensor_view v(x, element_type::f32, shape{2});
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  io::detail::fifo_reader_wait(std::chrono::milliseconds(50));
  expect_file_error([&] { io::write_raw(path("fifo"), v); }, errc::io, "is a FIFO (a pipe) that no process reads");
  io::detail::fifo_reader_wait(std::chrono::milliseconds(5000));
  EXPECT_TRUE(fs::is_fifo(path("fifo")));
}

TEST_F(npy, a_symlinked_output_replaces_its_target_and_keeps_the_mode) {
  const float x[2] = {1, 2};
  const tensor_view v(x, element_type::f32, shape{2});
  write_bytes("target.bin", "old");
  fs::permissions(path("target.bin"), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  fs::create_symlink("target.bin", path("link.bin"));
  io::write_raw(path("link.bin"), v);
  EXPECT_TRUE(fs::is_symlink(path("link.bin")));
  EXPECT_EQ(fs::file_size(path("target.bin")), sizeof x);
  EXPECT_EQ(fs::status(path("target.bin")).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const std::string long_name(250, 'n');
  io::write_raw(path(long_name), v);
  EXPECT_EQ(fs::file_size(path(long_name)), sizeof x);
}

TEST_F(npy, temporary_files_are_removed_on_request) {
  const float x[2] = {1, 2};
  const tensor_view v(x, element_type::f32, shape{2});
  io::write_options o;
  bool removed = false;
  o.progress = [&](std::uint64_t, std::uint64_t) {
    // What the CLI's signal handler does, called while the temporary file exists.
    if (removed) return;
    removed = true;
    EXPECT_EQ(files().size(), 1u);
    io::detail::remove_temporary_files();
    EXPECT_TRUE(files().empty());
  };
  expect_file_error([&] { io::write_raw(path("out.bin"), v, o); }, errc::io, "cannot rename");
  EXPECT_TRUE(files().empty());
}

TEST(escaped, control_characters_and_bad_utf8_become_hex) {
  EXPECT_EQ(io::detail::escaped("plain é ü 漢 \U0001F600"), "plain é ü 漢 \U0001F600");
  EXPECT_EQ(io::detail::escaped(std::string("a\x1b]0;t\x07\0b\x7f", 10)), "a\\x1B]0;t\\x07\\x00b\\x7F");
  EXPECT_EQ(io::detail::escaped("\xC2\x9B" "x"), "\\xC2\\x9Bx");        // C1 control (CSI)
  EXPECT_EQ(io::detail::escaped("\xFF\xC3"), "\\xFF\\xC3");             // invalid, and half a character
  EXPECT_EQ(io::detail::escaped("\xC0\xAF\xED\xA0\x80"), "\\xC0\\xAF\\xED\\xA0\\x80");  // overlong, surrogate
  // Characters that reorder the line on a terminal: a right-to-left override, an isolate, a mark.
  EXPECT_EQ(io::detail::escaped("a\u202Eb\u2066c\u200Fd"), "a\\u{202E}b\\u{2066}c\\u{200F}d");
}

TEST_F(npy, a_file_read_into_memory_is_never_mapped_and_is_writable) {
  // The IR reader parses the XML in place: whatever its size, the file is a writable copy.
  const std::string big = big_converted_file(), small = "<net/>", empty;
  std::ofstream(path("big.xml"), std::ios::binary) << big;
  std::ofstream(path("small.xml"), std::ios::binary) << small;
  std::ofstream(path("empty.xml"), std::ios::binary);
  std::vector<fs::path> mapped;
  io::detail::on_mapped([&](const fs::path& p) { mapped.push_back(p); });
  for (const auto& [name, content] : {std::pair{"big.xml", &big}, std::pair{"small.xml", &small},
                                      std::pair{"empty.xml", &empty}}) {
    io::detail::mapped_file f(path(name), io::detail::file_access::read_into_memory);
    EXPECT_FALSE(f.mapped()) << name;
    const auto bytes = f.writable_bytes();
    ASSERT_EQ(bytes.size(), content->size()) << name;
    EXPECT_TRUE(std::equal(content->begin(), content->end(), reinterpret_cast<const char*>(bytes.data()))) << name;
    EXPECT_EQ(static_cast<const void*>(f.bytes().data()), static_cast<const void*>(bytes.data())) << name;
    if (!bytes.empty()) bytes[0] = std::byte{'x'};  // the copy is the reader's own
  }
  EXPECT_TRUE(mapped.empty());
  EXPECT_EQ(std::ifstream(path("small.xml")).get(), '<');  // the file itself is untouched
  // By default a large file is mapped, read-only: no writable bytes.
  {
    io::detail::mapped_file f(path("big.xml"));
    EXPECT_TRUE(f.mapped());
    EXPECT_TRUE(f.writable_bytes().empty());
    EXPECT_EQ(f.bytes().size(), big.size());
  }
  EXPECT_EQ(mapped.size(), 1U);
  io::detail::on_mapped({});
}

TEST_F(npy, a_copy_from_no_file_writes_the_bytes_given) {
  // copy_from takes mapped_file::fd() as it is: -1 (bytes that are not a file's alone) writes the fallback.
  const std::string a = "header:", b = "the bytes in memory";
  {
    io::detail::atomic_file out(path("out.bin"));
    out.write(std::as_bytes(std::span(a.data(), a.size())));
    out.copy_from(-1, 0, std::as_bytes(std::span(b.data(), b.size())), 1, {});
    out.commit();
  }
  std::ifstream in(path("out.bin"), std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), a + b);
}

TEST_F(npy, a_file_with_bytes_appended_reads_as_one_block_and_leaves_the_file_alone) {
  // fix reads each rewrite back as the .bin followed by the new constants, without writing them anywhere.
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (const std::size_t size : {std::size_t{0}, std::size_t{100}, page, page + 1, (std::size_t{2} << 20) + 3}) {
    std::string content(size, '\0');
    for (std::size_t i = 0; i < size; ++i) content[i] = static_cast<char>(i * 13 + 1);
    std::ofstream(path("w.bin"), std::ios::binary) << content;
    for (const std::size_t tail_size : {std::size_t{0}, std::size_t{5}, page + 7}) {
      std::vector<std::byte> tail(tail_size);
      for (std::size_t i = 0; i < tail_size; ++i) tail[i] = static_cast<std::byte>(200 - i % 100);
      const io::detail::mapped_file f(path("w.bin"), tail);
      const auto bytes = f.bytes();
      ASSERT_EQ(bytes.size(), size + tail_size) << size << " + " << tail_size;
      EXPECT_TRUE(std::equal(content.begin(), content.end(), reinterpret_cast<const char*>(bytes.data())))
          << size << " + " << tail_size;
      EXPECT_TRUE(std::equal(tail.begin(), tail.end(), bytes.begin() + static_cast<std::ptrdiff_t>(size)))
          << size << " + " << tail_size;
      EXPECT_EQ(f.fd(), -1);  // not the file's bytes alone: no kernel-side copy of it
    }
    EXPECT_EQ(fs::file_size(path("w.bin")), size);  // nothing was written to the file
  }
  fs::create_directories(path("d"));
  const std::vector<std::byte> tail(3);
  expect_file_error([&] { io::detail::mapped_file f(path("d"), tail); }, errc::io, "not a regular file");
  expect_file_error([&] { io::detail::mapped_file f(path("missing.bin"), tail); }, errc::io, "cannot open");
}

// A name with a NUL in it would be opened only up to the NUL (a C++ or Python caller can give one; argv
// cannot): refused, never another file read or written.
TEST_F(npy, a_file_name_holding_a_nul_is_refused) {
  { std::ofstream(path("a")) << "x"; }
  const auto with_nul = path("a").string() + std::string(1, '\0') + "b";
  expect_file_error([&] { io::detail::mapped_file f{fs::path(with_nul)}; }, errc::invalid_argument, "holds a NUL byte");
  expect_file_error([&] { io::detail::atomic_file f{fs::path(with_nul)}; }, errc::invalid_argument, "holds a NUL byte");
  EXPECT_EQ(fs::file_size(path("a")), 1u);
}

}  // namespace
}  // namespace reshape1::test
