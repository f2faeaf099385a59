// reshape1::io: tensors in files. numpy's .npy format (versions 1.0, 2.0 and 3.0), and raw binary files
// for the element types numpy has no dtype for. Reads memory-map the file; writes go to a temporary
// file in the destination's directory and are renamed into place, so a failed write leaves nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "reshape1/tensor.hpp"

namespace reshape1::io {

struct write_options {
  /// For string tensors: 'U' (numpy str, UTF-32) or 'S' (numpy bytes).
  char string_kind = 'U';
  /// For string tensors: the width of the dtype, in characters (U) or bytes (S); 0 takes the longest string
  /// (at least 1). A longer string is error(invalid_argument). Writing a loaded_tensor keeps its dtype's
  /// kind and width.
  std::size_t string_width = 0;
  /// Threads that write large files in parallel; 0 uses every hardware thread.
  unsigned threads = 0;
  /// Called now and then with (bytes written, total bytes).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

/// A tensor read from a file. Its bytes stay memory-mapped when they can be used as they are
/// (little-endian, row-major). Big-endian and Fortran-ordered numeric data is converted when first needed:
/// view() converts it all into memory once, while write_npy()/write_raw() of a loaded_tensor whose view()
/// was never taken convert it in bounded chunks on the way to the file. String data is decoded at once.
class loaded_tensor {
 public:
  loaded_tensor() = default;
  /// The tensor; converts the data on the first call when it needs converting (thread-safe). Throws
  /// error(io) if the file became shorter in the meantime.
  [[nodiscard]] const tensor_view& view() const&;
  /// The view points into this object's storage: keep the loaded_tensor alive while it is used.
  const tensor_view& view() const&& = delete;
  /// Element type, shape and size in bytes, without converting anything.
  [[nodiscard]] element_type type() const noexcept { return type_; }
  [[nodiscard]] const shape& dims() const noexcept { return dims_; }
  [[nodiscard]] std::uint64_t byte_size() const noexcept { return byte_size_; }
  /// The numpy dtype as the file wrote it (`<f4`, `>i8`, `<U7`...); empty for raw files.
  [[nodiscard]] const std::string& dtype() const noexcept { return dtype_; }
  /// Whether the view is the file's own bytes (mapped, not converted).
  [[nodiscard]] bool file_backed() const noexcept { return source_fd_ >= 0; }

 private:
  friend loaded_tensor read_npy(const std::filesystem::path&);
  friend loaded_tensor read_raw(const std::filesystem::path&, element_type, const shape&);
  friend void write_npy(const std::filesystem::path&, const loaded_tensor&, const shape&, const write_options&);
  friend void write_raw(const std::filesystem::path&, const loaded_tensor&, const shape&, const write_options&);
  struct conversion;  // a conversion not done yet (npy.cpp)
  void set_view(const tensor_view& v);
  std::shared_ptr<const void> keep_alive_;  // the mapping or the converted tensor
  std::shared_ptr<conversion> pending_;     // set while the data still needs converting
  tensor_view view_;
  element_type type_ = element_type::u8;
  shape dims_;
  std::uint64_t byte_size_ = 0;
  std::string dtype_;
  int source_fd_ = -1;           // open while keep_alive_ lives, when file_backed()
  std::uint64_t source_offset_ = 0;  // where the data starts in that file
};

/// Reads a .npy file. Errors: error(io) when the file cannot be read, error(bad_file) naming the file and
/// byte offset when it is malformed, error(unsupported) for dtypes reshape1 does not handle (complex,
/// object, structured...).
[[nodiscard]] loaded_tensor read_npy(const std::filesystem::path& path);

/// Reads a raw file holding exactly storage_size(type, count) bytes in OpenVINO's packing.
[[nodiscard]] loaded_tensor read_raw(const std::filesystem::path& path, element_type type, const shape& dims);


/// Writes `data` as a .npy file (version 1.0, or 2.0 when the header needs it). Types without a numpy
/// dtype (bf16, f8*, f4e2m1, nf4, i4, u1, u2, u3, u4, u6) are error(unsupported): use write_raw.
void write_npy(const std::filesystem::path& path, const tensor_view& data, const write_options& options = {});

/// Writes `data`'s storage bytes as they are (not for string tensors).
void write_raw(const std::filesystem::path& path, const tensor_view& data, const write_options& options = {});

/// Writes a loaded tensor's elements under the shape `dims` (same element count), as .npy or raw. The
/// reshape of a file: when the data is the input file's own bytes, the kernel copies them from file to
/// file (copy_file_range) without passing them through this process, as `cp` does.
void write_npy(const std::filesystem::path& path, const loaded_tensor& data, const shape& dims,
               const write_options& options = {});
void write_raw(const std::filesystem::path& path, const loaded_tensor& data, const shape& dims,
               const write_options& options = {});

/// The numpy dtype reshape1 writes for `type` (`<f4`, `|b1`...), or "" when numpy has none.
[[nodiscard]] std::string numpy_dtype(element_type type);

}  // namespace reshape1::io
