// Fuzz target: the .npy reader. Whatever the bytes, read_npy gives a tensor or a reshape1::error; a tensor
// it reads writes back and reads again to the same elements.
#include <cstring>
#include <filesystem>
#include <fstream>

#include "fuzz_input.hpp"
#include "reshape1/error.hpp"
#include "reshape1/io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace reshape1;
  const auto in = fuzz::scratch_dir() / "in.npy";
  std::ofstream(in, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    const auto t = io::read_npy(in);
    const auto& v = t.view();
    if (v.type() != element_type::string && v.byte_size() != storage_size(v.type(), static_cast<std::uint64_t>(v.element_count())))
      fuzz::invariant_broken("byte size");
    const auto out = fuzz::scratch_dir() / "out.npy";
    io::write_options o;
    o.string_kind = t.dtype().find('S') != std::string::npos ? 'S' : 'U';
    try {
      io::write_npy(out, v, o);
    } catch (const error& e) {
      if (e.code() == errc::invalid_argument) return 0;  // bytes in an 'S' array that are not UTF-8, etc.
      throw;
    }
    const auto back = io::read_npy(out);
    if (!(back.view().dims() == v.dims()) || back.view().type() != v.type()) fuzz::invariant_broken("round trip shape");
    if (v.type() == element_type::string) {
      for (std::int64_t i = 0; i < v.element_count(); ++i) {
        // numpy drops trailing NULs, so a string that ends in NUL comes back shorter.
        std::string a = v.strings()[static_cast<std::size_t>(i)];
        while (!a.empty() && a.back() == '\0') a.pop_back();
        if (back.view().strings()[static_cast<std::size_t>(i)] != a) fuzz::invariant_broken("round trip strings");
      }
    } else if (std::memcmp(back.view().data(), v.data(), static_cast<std::size_t>(v.byte_size())) != 0) {
      fuzz::invariant_broken("round trip bytes");
    }
  } catch (const error&) {
  }
  return 0;
}
