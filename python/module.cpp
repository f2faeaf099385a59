// reshape1._core: the Python binding of reshape1 (pybind11). The public names are re-exported, with
// their docstrings, by the pure-Python package reshape1/__init__.py; this file is the whole C++ side.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/files.hpp"
#include "model/options.hpp"
#include "render/reports.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/onnx.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/model/shapes.hpp"
#include "reshape1/reshape1.hpp"

namespace py = pybind11;
using namespace reshape1;

namespace {

/// Python names options by their keyword arguments (`batch=8`), which are the API's field names.
constexpr auto keywords = model::option_spelling::api;

// ---- errors ---------------------------------------------------------------------------------------

/// reshape1.Error, set by the package at import (it is defined in Python, a ValueError subclass).
/// Until then, errors are raised as ValueError with the same message.
PyObject* error_class = nullptr;

void raise_error(const error& e) {
  if (error_class == nullptr) {
    PyErr_SetString(PyExc_ValueError, e.what());
    return;
  }
  py::tuple indices(e.where().indices.size());
  for (std::size_t i = 0; i < e.where().indices.size(); ++i) indices[i] = py::int_(e.where().indices[i]);
  py::object instance = py::reinterpret_borrow<py::object>(error_class)(
      py::str(name(e.code())), py::str(e.what()), indices, py::str(e.hint()));
  PyErr_SetObject(error_class, instance.ptr());
}

[[noreturn]] void fail(const std::string& what, const std::string& hint = {}) {
  // error() itself appends "; hint" to the message.
  throw error(errc::invalid_argument, {}, what, hint);
}

// ---- arguments ------------------------------------------------------------------------------------

/// Runs `parse`; an error it raises is raised again with its message after `named: `, as the command line
/// names the argument a text came from (`pattern '[a]': offset 1: ...` where `reshape1 infer` says
/// `PATTERN '[a]': ...`).
template <class Parse>
auto named(const std::string& name, Parse&& parse) {
  try {
    return parse();
  } catch (const error& e) {
    std::string what = e.what();
    const auto tail = "; " + e.hint();
    if (!e.hint().empty() && what.ends_with(tail)) what.resize(what.size() - tail.size());  // error() appends it
    throw error(e.code(), e.where(), name + ": " + what, e.hint());
  }
}

/// `argument 'text'`, control characters escaped as the command line prints them (a NUL would cut the
/// message short: Python's exception takes it as a C string).
std::string quoted(const char* argument, std::string_view text) {
  return std::string(argument) + " '" + io::detail::escaped(text) + "'";
}

empty_rule parse_empty_rule(std::string_view s) {
  if (s == "openvino") return empty_rule::openvino;
  if (s == "tensorflow") return empty_rule::tensorflow;
  if (s == "strict") return empty_rule::strict;
  fail("empty_rule: unknown rule '" + std::string(s) + "'", "use \"openvino\", \"tensorflow\" or \"strict\"");
}

/// One Python integer (int, numpy integer, anything with __index__; not bool-like floats). Returns
/// false when it does not fit int64 but fits uint64 (stored in `big`).
bool to_int64(PyObject* o, std::int64_t& out, std::uint64_t& big, const char* what) {
  py::object index;
  if (!PyLong_Check(o)) {
    index = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!index) {
      PyErr_Clear();
      throw py::type_error(std::string(what) + ": expected integers, got " +
                           std::string(py::str(py::type::handle_of(o).attr("__name__"))));
    }
    o = index.ptr();
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    out = v;
    return true;
  }
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (!PyErr_Occurred()) {
      big = u;
      return false;
    }
    PyErr_Clear();
  }
  fail(std::string(what) + ": the value " + std::string(py::str(o)) + " does not fit 64 bits");
}

/// The items of a tuple, list or 1-D sequence-like object (numpy arrays included), as a fast sequence.
py::object as_sequence(py::handle obj, const char* what) {
  if (PyTuple_Check(obj.ptr()) || PyList_Check(obj.ptr())) return py::reinterpret_borrow<py::object>(obj);
  if (py::isinstance<py::array>(obj)) return py::reinterpret_borrow<py::array>(obj).attr("tolist")();
  // Only ordered collections (a reshape1.Shape, a range): bytes would be read as their byte values, a
  // set or a dict has no order to give dimensions or pattern elements, and an iterator is consumed.
  if (PyBytes_Check(obj.ptr()) || PyByteArray_Check(obj.ptr()) || PyMemoryView_Check(obj.ptr()) ||
      PyAnySet_Check(obj.ptr()) || PyDict_Check(obj.ptr()) || PyIter_Check(obj.ptr()))
    throw py::type_error(std::string(what) + ": expected a str, tuple, list or numpy integer array, got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  PyObject* seq = PySequence_Fast(obj.ptr(), what);
  if (seq == nullptr) {
    PyErr_Clear();
    throw py::type_error(std::string(what) + ": expected a str, tuple, list or numpy integer array, got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  return py::reinterpret_steal<py::object>(seq);
}

/// The input shape. Strings are the notation; sequences hold integers (-1 is `?`) or dimension
/// strings ("2..8", "?@A").
partial_shape to_partial_shape(py::handle obj, bool& is_plain_static, shape& static_out) {
  is_plain_static = false;
  if (PyUnicode_Check(obj.ptr())) return parse_shape(obj.cast<std::string_view>());
  if (py::isinstance<py::array>(obj) && py::reinterpret_borrow<py::array>(obj).ndim() != 1)
    fail("input: a numpy array of dimensions must be 1-D");
  const py::object seq = as_sequence(obj, "input");
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  bool all_static = true;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyUnicode_Check(items[i])) {
      all_static = false;
      break;
    }
    std::int64_t v = 0;
    std::uint64_t big = 0;
    if (!to_int64(items[i], v, big, "input")) fail("input: dimension " + std::to_string(big) + " does not fit int64");
    if (v < 0) {
      all_static = false;
      break;
    }
    static_out.push_back(v);
  }
  if (all_static) {
    is_plain_static = true;
    return partial_shape(static_out);
  }
  partial_shape out;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyUnicode_Check(items[i])) {
      const auto one = parse_shape("[" + py::reinterpret_borrow<py::str>(items[i]).cast<std::string>() + "]");
      if (one.size() != 1 || !one.rank_known())
        fail("input: item " + std::to_string(i) + " is not one dimension", "write e.g. \"2..8\" or \"?@A\"");
      out.push_back(one[0]);
      continue;
    }
    std::int64_t v = 0;
    std::uint64_t big = 0;
    to_int64(items[i], v, big, "input");
    out.push_back(v == -1 ? dimension() : dimension(v));
  }
  return out;
}

/// The pattern as i64 values (`values`), when it is given as integers. `big` holds the positions and
/// values above int64 (only an unsigned pattern type can hold them).
struct pattern_values {
  std::vector<std::int64_t> values;
  std::vector<std::pair<std::size_t, std::uint64_t>> big;
  std::optional<shape> tensor_shape;  // a numpy pattern of rank != 1
  bool scalar = false;
};

pattern_values to_pattern_values(py::handle obj) {
  pattern_values out;
  if (py::isinstance<py::array>(obj)) {
    const auto a = py::reinterpret_borrow<py::array>(obj);
    if (a.ndim() == 0) {
      out.scalar = true;
    } else if (a.ndim() != 1) {
      std::vector<std::int64_t> dims(a.shape(), a.shape() + a.ndim());
      out.tensor_shape = shape(dims);
    }
    const py::object flat = a.attr("ravel")().attr("tolist")();
    if (out.scalar) {
      out.values.resize(1);
      std::uint64_t big = 0;
      if (!to_int64(flat.ptr(), out.values[0], big, "pattern")) out.big.emplace_back(0, big);
      return out;
    }
    pattern_values inner = to_pattern_values(flat);
    inner.tensor_shape = out.tensor_shape;
    return inner;
  }
  if (PyLong_Check(obj.ptr())) {
    out.scalar = true;
    out.values.resize(1);
    std::uint64_t big = 0;
    if (!to_int64(obj.ptr(), out.values[0], big, "pattern")) out.big.emplace_back(0, big);
    return out;
  }
  const py::object seq = as_sequence(obj, "pattern");
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  out.values.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    std::uint64_t big = 0;
    const auto k = static_cast<std::size_t>(i);
    if (!to_int64(items[i], out.values[k], big, "pattern")) out.big.emplace_back(k, big);
  }
  return out;
}

/// Integers given for a pattern declared as `type` must fit it, as the notation's literals must
/// (a tensor of that type could not hold them). 64-bit values above int64 are checked by inference.
void check_fits(const pattern_values& pv, element_type type) {
  if (!is_integer(type) || bit_width(type) == 64) return;
  const int bits = bit_width(type);
  const bool is_signed = is_signed_integer(type);
  const std::int64_t lo = is_signed ? -(std::int64_t{1} << (bits - 1)) : 0;
  const std::int64_t hi = is_signed ? (std::int64_t{1} << (bits - 1)) - 1 : (std::int64_t{1} << bits) - 1;
  for (std::size_t i = 0; i < pv.values.size(); ++i) {
    const bool big = std::any_of(pv.big.begin(), pv.big.end(), [&](const auto& b) { return b.first == i; });
    if (big || pv.values[i] < lo || pv.values[i] > hi) {
      const std::string text = big ? std::to_string(std::find_if(pv.big.begin(), pv.big.end(), [&](const auto& b) {
                                                      return b.first == i;
                                                    })->second)
                                   : std::to_string(pv.values[i]);
      throw error(errc::value_range, {{i}, {}, {}},
                  "pattern[" + std::to_string(i) + "]: value " + text + " does not fit " + std::string(name(type)) +
                      " (" + std::to_string(lo) + ".." + std::to_string(hi) + "); choose a wider element type",
                  "choose a wider element type");
    }
  }
}

reshape_pattern to_pattern(py::handle obj, element_type type) {
  if (PyUnicode_Check(obj.ptr())) {
    const auto text = obj.cast<std::string_view>();
    return named(quoted("pattern", text), [&] { return parse_pattern(text, type); });
  }
  const pattern_values pv = to_pattern_values(obj);
  check_fits(pv, type);
  reshape_pattern p;
  if (pv.big.empty()) {
    p = pv.scalar ? reshape_pattern::scalar(pv.values[0]) : reshape_pattern::from_values(pv.values);
    if (type != element_type::i64) p = p.with_element_type(type);
  } else {
    // Values above int64: the bytes of a u64 tensor, decoded by the library, declared as `type`.
    std::vector<std::byte> bytes(pv.values.size() * 8);
    std::size_t b = 0;
    for (std::size_t i = 0; i < pv.values.size(); ++i) {
      std::uint64_t raw = static_cast<std::uint64_t>(pv.values[i]);
      if (b < pv.big.size() && pv.big[b].first == i) raw = pv.big[b++].second;
      for (std::size_t k = 0; k < 8; ++k) bytes[i * 8 + k] = static_cast<std::byte>((raw >> (8 * k)) & 0xFF);
    }
    const shape tshape = pv.scalar ? shape{} : shape{static_cast<std::int64_t>(pv.values.size())};
    p = reshape_pattern::from_tensor(element_type::u64, bytes, tshape).with_element_type(type);
  }
  if (pv.tensor_shape) p = p.with_tensor_shape(*pv.tensor_shape);
  return p;
}

// ---- results --------------------------------------------------------------------------------------

struct py_shape {
  partial_shape value;
};

struct py_dim {
  dimension value;
};

struct py_result {
  partial_shape shape;
  std::vector<std::pair<std::string, std::string>> equalities;
};

py::tuple static_tuple(const partial_shape& s) {
  if (!s.is_static())
    throw error(errc::invalid_argument, {},
                "shape " + to_string(s) + " is not static: it has no tuple of integers",
                "read .dims (min, max, symbol) or str() instead");
  py::tuple t(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i].lo());
  return t;
}

py::object optional_int(std::int64_t v) {
  return v == interval::unbounded ? py::object(py::none()) : py::object(py::int_(v));
}

reshape_options make_options(std::string_view rule, bool sound_bounds, bool legacy_scalar_pattern) {
  reshape_options o;
  o.empty = parse_empty_rule(rule);
  o.sound_bounds = sound_bounds;
  o.legacy_scalar_pattern = legacy_scalar_pattern;
  return o;
}

// Result is a small hand-written CPython type (not a pybind11 class): creating a pybind11 instance
// costs more than the whole static inference, and infer() is called in loops by graph tools.
struct result_object {
  PyObject_HEAD
  py_result value;
};

PyTypeObject* result_type = nullptr;

py::object make_result(py_result&& r) {
  PyObject* o = result_type->tp_alloc(result_type, 0);
  if (o == nullptr) throw py::error_already_set();
  new (&reinterpret_cast<result_object*>(o)->value) py_result(std::move(r));
  return py::reinterpret_steal<py::object>(o);
}

void result_dealloc(PyObject* o) {
  reinterpret_cast<result_object*>(o)->value.~py_result();
  PyTypeObject* type = Py_TYPE(o);
  type->tp_free(o);
  Py_DECREF(type);
}

/// Integers of a tuple or list of plain ints, into `out` (at most `cap`); false for anything else.
bool small_int_sequence(PyObject* o, std::int64_t* out, std::size_t cap, std::size_t& n) {
  if (!PyTuple_CheckExact(o) && !PyList_CheckExact(o)) return false;
  const Py_ssize_t size = PySequence_Fast_GET_SIZE(o);
  if (static_cast<std::size_t>(size) > cap) return false;
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < size; ++i) {
    if (!PyLong_CheckExact(items[i])) return false;
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(items[i], &overflow);
    if (overflow != 0) return false;
    out[i] = v;
  }
  n = static_cast<std::size_t>(size);
  return true;
}

py::object infer(py::handle input, py::handle pattern, bool special_zero, std::string_view pattern_type,
                 std::string_view rule, bool sound_bounds, bool legacy_scalar_pattern) {
  const reshape_options options = make_options(rule, sound_bounds, legacy_scalar_pattern);
  // The static fast path: plain non-negative ints and i64 values (infer_static_shape: the same answers
  // and messages as infer_shape), with no allocation up to rank 8.
  if (pattern_type == "i64") {
    std::int64_t in[shape::inline_rank];
    std::int64_t values[shape::inline_rank];
    std::size_t rank = 0;
    std::size_t length = 0;
    if (small_int_sequence(input.ptr(), in, shape::inline_rank, rank) &&
        std::all_of(in, in + rank, [](std::int64_t d) { return d >= 0; }) &&
        small_int_sequence(pattern.ptr(), values, shape::inline_rank, length))
      return make_result(py_result{infer_static_shape(shape(std::span<const std::int64_t>(in, rank)),
                                                      std::span<const std::int64_t>(values, length), special_zero,
                                                      options),
                                   {}});
  }
  const element_type type = pattern_type == "i64" ? element_type::i64 : parse_element_type(pattern_type);
  bool plain_static = false;
  shape static_input;
  partial_shape in = PyUnicode_Check(input.ptr())
                         ? named(quoted("input", input.cast<std::string_view>()),
                                 [&] { return to_partial_shape(input, plain_static, static_input); })
                         : to_partial_shape(input, plain_static, static_input);
  reshape_result r = infer_shape(in, to_pattern(pattern, type), special_zero, options);
  py_result out{std::move(r.shape), {}};
  for (const auto& eq : r.symbol_equalities)
    out.equalities.emplace_back(std::string(eq.input.name()), std::string(eq.output.name()));
  return make_result(std::move(out));
}

// ---- numpy reshape --------------------------------------------------------------------------------

constexpr int npy_corder = 0;

/// The pattern's i64 values for the data path (static: values only).
std::vector<std::int64_t> data_pattern(py::handle pattern) {
  if (PyUnicode_Check(pattern.ptr())) {
    const auto text = pattern.cast<std::string_view>();
    const auto p = named(quoted("pattern", text), [&] { return parse_pattern(text); });
    if (p.kind() != pattern_kind::values || p.tensor_shape().size() != 1)
      fail("pattern: reshaping data needs a 1-D pattern of known values, got " + to_string(p));
    std::vector<std::int64_t> v;
    for (const auto& e : p.elements()) v.push_back(e.lo);
    return v;
  }
  pattern_values pv = to_pattern_values(pattern);
  if (pv.scalar || pv.tensor_shape) fail("pattern: reshaping data needs a 1-D pattern");
  if (!pv.big.empty())
    throw error(errc::invalid_value, {{pv.big[0].first}, {}, {}},
                "pattern[" + std::to_string(pv.big[0].first) + "]: the value " + std::to_string(pv.big[0].second) +
                    " does not fit int64");
  return std::move(pv.values);
}

py::object reshape_array(py::handle array, py::handle pattern, bool special_zero, std::string_view rule,
                         py::handle copy) {
  auto& api = py::detail::npy_api::get();
  if (!api.PyArray_Check_(array.ptr()))
    throw py::type_error("reshape: expected a numpy.ndarray, got " +
                         std::string(py::str(py::type::handle_of(array).attr("__name__"))));
  const auto* proxy = py::detail::array_proxy(array.ptr());
  reshape_options options;
  options.empty = parse_empty_rule(rule);
  const shape in(std::span<const std::int64_t>(reinterpret_cast<const std::int64_t*>(proxy->dimensions),
                                               static_cast<std::size_t>(proxy->nd)));
  static_assert(sizeof(Py_intptr_t) == sizeof(std::int64_t));
  // Plain ints up to rank 8 need no allocation; anything else goes through the general conversion.
  std::int64_t small[shape::inline_rank];
  std::size_t length = 0;
  std::vector<std::int64_t> values;
  std::span<const std::int64_t> p;
  if (small_int_sequence(pattern.ptr(), small, shape::inline_rank, length)) {
    p = std::span<const std::int64_t>(small, length);
  } else {
    values = data_pattern(pattern);
    p = values;
  }
  const shape out = infer_static_shape(in, p, special_zero, options);
  const auto a = py::reinterpret_borrow<py::array>(array);

  std::span<const std::int64_t> dims = out.dims();
  // numpy reads the new dimensions and never writes them.
  py::detail::npy_api::PyArray_Dims newshape{const_cast<Py_intptr_t*>(reinterpret_cast<const Py_intptr_t*>(dims.data())),
                                             static_cast<int>(dims.size())};
  const bool c_contiguous = (proxy->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) != 0;

  if (copy.is_none() || (c_contiguous && copy.ptr() == Py_False)) {
    // numpy's own reshape: a view when the strides allow (always for C-contiguous data), else a copy.
    PyObject* r = api.PyArray_Newshape_(a.ptr(), &newshape, npy_corder);
    if (r == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  }
  if (!PyObject_IsTrue(copy.ptr())) {
    // copy=False on strided data: a view, or refuse (numpy's rule for assigning .shape).
    py::object view = py::reinterpret_steal<py::object>(api.PyArray_View_(a.ptr(), nullptr, nullptr));
    if (!view) throw py::error_already_set();
    py::tuple t(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) t[i] = py::int_(dims[i]);
    if (PyObject_SetAttrString(view.ptr(), "shape", t.ptr()) != 0) {
      PyErr_Clear();
      throw error(errc::invalid_argument, {},
                  "reshape: an array of shape " + to_string(in) + " with these strides has no view of shape " +
                      to_string(out) + "; copy=False refuses to copy",
                  "pass copy=None to copy when needed");
    }
    return view;
  }
  // copy=True: a new C-ordered array. Plain data is copied by the library, without the GIL.
  if (c_contiguous && !a.dtype().attr("hasobject").cast<bool>()) {
    py::array result(a.dtype(), std::vector<py::ssize_t>(dims.begin(), dims.end()));
    const auto nbytes = static_cast<std::size_t>(a.nbytes());
    const tensor_view source(a.data(), element_type::u8, shape{static_cast<std::int64_t>(nbytes)});
    std::byte* destination = static_cast<std::byte*>(result.mutable_data());
    {
      py::gil_scoped_release unlocked;
      copy_elements(source, std::span<std::byte>(destination, nbytes));
    }
    return result;
  }
  py::object fresh = py::reinterpret_steal<py::object>(api.PyArray_NewCopy_(a.ptr(), npy_corder));
  if (!fresh) throw py::error_already_set();
  PyObject* r = api.PyArray_Newshape_(fresh.ptr(), &newshape, npy_corder);
  if (r == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

/// Raw bytes of any element type: checks the size and returns the output shape.
py::tuple reshape_raw_shape(py::handle data, std::string_view type_name, py::handle input, py::handle pattern,
                            bool special_zero, std::string_view rule) {
  const element_type type = parse_element_type(type_name);
  if (type == element_type::string) fail("element_type: string tensors have no raw bytes", "use a numpy object array");
  bool plain_static = false;
  shape dims;
  const partial_shape ps = to_partial_shape(input, plain_static, dims);
  if (!ps.is_static()) fail("shape: the data's shape must be static, got " + to_string(ps));
  const shape in = ps.to_static();
  Py_buffer buffer;
  if (PyObject_GetBuffer(data.ptr(), &buffer, PyBUF_C_CONTIGUOUS) != 0) throw py::error_already_set();
  const std::uint64_t have = static_cast<std::uint64_t>(buffer.len);
  const void* ptr = buffer.buf;
  PyBuffer_Release(&buffer);
  const tensor_view view(ptr, type, in);
  if (view.byte_size() != have)
    fail("data: " + std::to_string(have) + " bytes, but a " + std::string(name(type)) + " tensor of shape " +
             to_string(in) + " takes " + std::to_string(view.byte_size()),
         "pass the tensor's packed bytes");
  reshape_options options;
  options.empty = parse_empty_rule(rule);
  const tensor_view result = reshape(view, data_pattern(pattern), special_zero, options);
  py::tuple t(result.dims().size());
  for (std::size_t i = 0; i < result.dims().size(); ++i) t[i] = py::int_(result.dims()[i]);
  return t;
}

}  // namespace

// ---- model checks ---------------------------------------------------------------------------------

// The reports go to Python as the JSON the command line prints (src/render): reshape1/__init__.py builds
// its report classes from it, whose attribute names are its keys, so the two cannot drift apart.

/// How a report names the model: its path as given, "" for ONNX bytes.
std::string model_name(const py::object& model) {
  return py::isinstance<py::bytes>(model) ? std::string() : model.cast<std::string>();
}

py::str json_of(const render::json& j) { return py::str(render::json_text(j)); }

/// The shapes a report wrote, by their text: Python's Shape objects are these, not the text read back.
py::dict shapes_of(const render::shapes_seen& seen) {
  py::dict d;
  for (const auto& [text, shape] : seen) d[py::str(text)] = py_shape{shape};
  return d;
}

/// A model given as a path (an IR .xml or an .onnx file, told apart by content) or as the bytes of an
/// ONNX model (reshape1/__init__.py serialises an onnx.ModelProto). Reading touches no Python object.
/// `base_dir` ("" for none) is where a model in memory finds its external data; refused for a file.
model::graph read_model(const py::object& model, const std::string& bin, const std::string& base_dir) {
  if (py::isinstance<py::bytes>(model)) {
    if (!bin.empty()) fail("model_bin: an ONNX model given as bytes has no weights file");
    const auto view = model.cast<std::string_view>();
    py::gil_scoped_release unlocked;
    return onnx::read(std::as_bytes(std::span(view.data(), view.size())), "<ONNX bytes>", base_dir);
  }
  const auto path = model.cast<std::string>();
  py::gil_scoped_release unlocked;
  return onnx::read_any(path, bin, base_dir);
}

/// reshape1::model::check: the report's JSON, its shapes, and whether `reshape1 check` would exit 1.
py::tuple check_model(const py::object& model, const std::string& bin, const std::string& base_dir) {
  model::check_report report;
  const auto graph = read_model(model, bin, base_dir);
  {
    py::gil_scoped_release unlocked;  // propagating touches no Python object
    report = model::check(graph);
  }
  render::shapes_seen seen;
  const auto json = json_of(render::check_json(report, model_name(model), &seen));
  return py::make_tuple(json, shapes_of(seen), report.summary.failed());
}

dimension to_batch(py::handle batch);

/// reshape1::model::check_batch: the report's JSON and its shapes.
py::tuple check_batch_model(const py::object& model, const std::string& bin, py::handle batch,
                            const std::vector<std::pair<std::string, py::object>>& shapes,
                            const std::vector<std::pair<std::string, std::string>>& layouts,
                            const std::vector<std::string>& assume_kept, const std::vector<std::string>& assume_constant,
                            const std::string& base_dir) {
  // In the command line's order (--batch, --shape, --layout, then the request as a whole), before the
  // model is read: the same first mistake is refused with the same words.
  model::reshape_request request;
  if (!batch.is_none()) request.batch = to_batch(batch);
  for (const auto& [name, shape_obj] : shapes) {
    bool plain = false;
    shape unused;
    const auto text = PyUnicode_Check(shape_obj.ptr()) ? shape_obj.cast<std::string>() : std::string(py::str(shape_obj));
    request.shapes.emplace_back(name, named(model::detail::spell(keywords, model::detail::option::shape, name, text),
                                            [&] { return to_partial_shape(shape_obj, plain, unused); }));
  }
  request.layouts = layouts;
  request.assume_kept = assume_kept;
  request.assume_constant = assume_constant;
  model::detail::check_request(request);
  model::batch_report report;
  const auto graph = read_model(model, bin, base_dir);
  {
    py::gil_scoped_release unlocked;
    report = model::check_batch(graph, request);
  }
  render::shapes_seen seen;
  const auto json = json_of(render::batch_json(report, model_name(model), &seen));
  return py::make_tuple(json, shapes_of(seen));
}

dimension to_batch(py::handle batch);

/// `check_batches` read by `--check-batch`'s parser, each int as its decimal text (so -1 is `?` there too);
/// None: the default batches.
std::vector<dimension> to_check_batches(const std::optional<std::vector<py::object>>& batches) {
  if (!batches) return {};
  std::vector<std::string> items;
  for (const auto& b : *batches) {
    if (PyUnicode_Check(b.ptr())) {
      items.push_back(b.cast<std::string>());
      continue;
    }
    std::int64_t v = 0;
    std::uint64_t big = 0;
    if (!to_int64(b.ptr(), v, big, "check_batches"))
      fail("check_batches: give integers >= 1, -1 or \"?\" for a dynamic batch, or intervals such as \"1..8\"");
    items.push_back(std::to_string(v));
  }
  std::string as_given;
  for (const auto& item : items) as_given += (as_given.empty() ? "" : ",") + item;
  return model::detail::parse_check_batches(items, as_given, keywords);
}

dimension to_batch(py::handle batch) {
  // As the CLI's --batch: an empty text is a mistake (not "no batch"), and -1 means a dynamic batch, as
  // in OpenVINO.
  if (PyUnicode_Check(batch.ptr())) {
    const auto text = batch.cast<std::string>();
    return model::parse_batch(text, model::detail::spell(keywords, model::detail::option::batch, {}, text));  // --batch's parser
  }
  // A bool is an int to Python; True would be batch 1 and False batch 0.
  if (PyBool_Check(batch.ptr()))
    throw py::type_error("batch must be an int or a str, not a bool (" + py::str(batch).cast<std::string>() + ")");
  // An int is read as its decimal text, so that -2 or 0 is refused in --batch's words.
  std::int64_t v = 0;
  std::uint64_t big = 0;
  const auto text = to_int64(batch.ptr(), v, big, "batch") ? std::to_string(v) : std::to_string(big);
  return model::parse_batch(text, model::detail::spell(keywords, model::detail::option::batch, {}, text));
}

/// A shape keyword's (name, shape) pairs, each read as check_batch's `shapes` reads it, named in errors as
/// option `key` names it.
std::vector<std::pair<std::string, partial_shape>> to_shapes(const std::vector<std::pair<std::string, py::object>>& shapes,
                                                             model::detail::option key) {
  std::vector<std::pair<std::string, partial_shape>> r;
  for (const auto& [name, shape_obj] : shapes) {
    bool plain = false;
    shape unused;
    const auto text = PyUnicode_Check(shape_obj.ptr()) ? shape_obj.cast<std::string>() : std::string(py::str(shape_obj));
    r.emplace_back(name, named(model::detail::spell(keywords, key, name, text), [&] { return to_partial_shape(shape_obj, plain, unused); }));
  }
  return r;
}

/// reshape1::onnx::shapes, either format: the model is a path or ONNX bytes; `out` ("" for none) is where the
/// copy that declares the shapes is written, for a path. The report's JSON, its shapes, and the copy's bytes
/// for a model given as bytes.
py::tuple shapes_model(const py::object& model, const std::string& bin, const std::string& out, const std::string& base_dir,
                       const std::vector<std::pair<std::string, py::object>>& shapes) {
  model::shapes_options options;
  options.bin = bin;
  options.base_dir = base_dir;
  const bool in_memory = py::isinstance<py::bytes>(model);
  if (in_memory && !bin.empty()) model::detail::refuse_for_format(keywords, model::detail::option::bin, "onnx");
  if (!in_memory && !base_dir.empty()) model::detail::refuse_base_dir_for_file(keywords);
  options.shapes = to_shapes(shapes, model::detail::option::shape);
  options.copy = in_memory || !out.empty();  // a model in memory comes back with its shapes
  model::shapes_report report;
  if (in_memory) {
    const auto view = model.cast<std::string_view>();
    py::gil_scoped_release unlocked;
    report = onnx::shapes(std::as_bytes(std::span(view.data(), view.size())), "<ONNX bytes>", options);
  } else {
    const auto path = model.cast<std::string>();
    py::gil_scoped_release unlocked;
    if (!out.empty()) onnx::check_shapes_output(path, bin, out);  // before the analysis, as the CLI
    report = onnx::shapes(path, options);
    if (!out.empty()) onnx::write_shapes(report, path, out);
  }
  render::shapes_seen seen;
  const auto json = json_of(render::shapes_json(report, model_name(model), out.empty() ? render::json() : render::json(out), &seen));
  return py::make_tuple(json, shapes_of(seen),
                        in_memory && report.output ? py::object(py::bytes(std::get<model::onnx_output>(*report.output).model))
                                                   : py::object(py::none()));
}

/// reshape1::onnx::fix, either format: the model is a path or ONNX bytes; `out` ("" for none) is written
/// for a path when the report holds a fixed model. The report's JSON, and the fixed bytes for a model given
/// as bytes.
py::tuple fix_model(const py::object& model, const std::string& bin, const std::string& out,
                    const std::optional<std::vector<py::object>>& batches,
                    const std::vector<std::pair<std::string, std::string>>& layouts,
                    const std::optional<std::string>& batch_name, const std::string& base_dir,
                    const std::vector<std::pair<std::string, py::object>>& shapes,
                    const std::vector<std::vector<std::pair<std::string, py::object>>>& check_shapes,
                    const std::vector<std::string>& assume_constant) {
  model::fix_options options;
  options.bin = bin;
  options.base_dir = base_dir;
  options.batch_name = batch_name;
  const bool in_memory = py::isinstance<py::bytes>(model);
  // The model and the options that do not fit it first, then the batches, as the CLI reads them.
  if (in_memory && !bin.empty()) model::detail::refuse_for_format(keywords, model::detail::option::bin, "onnx");
  if (!in_memory) onnx::check_fix_input(model.cast<std::string>(), options);
  // As the command line: the library refuses what does not go together (batches with new sizes...).
  using model::detail::option;
  options.shapes = to_shapes(shapes, option::shape);
  options.check_batches = to_check_batches(batches);
  for (const auto& sample : check_shapes) options.check_shapes.push_back(to_shapes(sample, option::check_shape));
  options.assume_constant = assume_constant;
  options.layouts = layouts;
  model::fix_report report;
  bool written = false;
  if (in_memory) {
    const auto view = model.cast<std::string_view>();
    py::gil_scoped_release unlocked;
    report = onnx::fix(std::as_bytes(std::span(view.data(), view.size())), "<ONNX bytes>", options);
  } else {
    const auto path = model.cast<std::string>();
    py::gil_scoped_release unlocked;
    if (!out.empty()) onnx::check_fix_output(path, bin, out);  // before the analysis, as the CLI
    report = onnx::fix(path, options);
    if (!out.empty() && report.writes()) {
      onnx::write_fixed(report, path, out);
      written = true;
    }
  }
  const auto* fixed = std::get_if<model::onnx_output>(&report.output);
  return py::make_tuple(json_of(render::fix_json(report, model_name(model), written ? render::json(out) : render::json())),
                        in_memory && report.writes() ? py::object(py::bytes(fixed->model)) : py::object(py::none()));
}

/// "ir" or "onnx": what a file's content says it is.
std::string format_of_file(const std::string& path) {
  return onnx::format_of(path) == model::model_format::onnx ? "onnx" : "ir";
}

PYBIND11_MODULE(_core, m) {
  m.doc() = "reshape1's C++ core. Import the package `reshape1`, which re-exports these names.";
  m.attr("__version__") = RESHAPE1_VERSION;
  // pybind11's numpy API is a function-local static that imports numpy when first used. First used by two
  // threads at once, one would wait for the other's initialisation while holding the GIL that the other's
  // import of numpy needs: a deadlock. Made here, while the import of this module runs alone.
  try {
    (void)py::detail::npy_api::get();
  } catch (const py::error_already_set&) {
    // No numpy: nothing here needs it but arrays, which cannot be given then.
  }

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const error& e) {
      raise_error(e);
    }
  });
  m.def(
      "_set_error_class", [](py::object cls) {
        Py_XDECREF(error_class);
        error_class = cls.release().ptr();
      },
      "Internal: the class raised for reshape1 errors.");

  py::class_<py_dim>(m, "Dim", "One dimension of a Shape: an interval min..max and an optional symbol.")
      .def_property_readonly("min", [](const py_dim& d) { return d.value.lo(); }, "The lower bound (>= 0).")
      .def_property_readonly(
          "max", [](const py_dim& d) { return optional_int(d.value.hi()); }, "The upper bound; None when unbounded.")
      .def_property_readonly(
          "symbol",
          [](const py_dim& d) -> py::object {
            return d.value.has_symbol() ? py::object(py::str(std::string(d.value.symbol().name()))) : py::none();
          },
          "The symbol's name (dimensions with the same symbol are equal); None when there is none.")
      .def_property_readonly("is_static", [](const py_dim& d) { return d.value.is_static(); },
                             "True when min == max.")
      .def("__str__", [](const py_dim& d) { return to_string(d.value); }, "The notation: 5, ?, 2..8, ?@A.")
      .def("__repr__", [](const py_dim& d) { return "Dim('" + to_string(d.value) + "')"; })
      .def("__eq__", [](const py_dim& a, const py_dim& b) { return a.value == b.value; })
      .def("__hash__", [](const py_dim& d) { return py::hash(py::str(to_string(d.value))); });

  py::class_<py_shape>(m, "Shape",
                       "A partial shape: dimensions that are integers, intervals (2..8, ?) with optional symbols "
                       "(?@A), or an unknown rank ([...]). str() gives the notation; tuple() the integers when "
                       "the shape is static.")
      .def(py::init([](py::handle s) {
             bool plain = false;
             shape dims;
             return py_shape{to_partial_shape(s, plain, dims)};
           }),
           py::arg("shape"),
           "Shape(shape): from the notation (\"[2,?@A,1..10]\") or a sequence of integers (-1 is ?) and "
           "dimension strings.")
      .def_property_readonly(
          "rank", [](const py_shape& s) -> py::object {
            return s.value.rank() ? py::object(py::int_(*s.value.rank())) : py::none();
          },
          "The number of dimensions; None when the rank is unknown.")
      .def_property_readonly("is_static", [](const py_shape& s) { return s.value.is_static(); },
                             "True when the rank is known and every dimension is a single value.")
      .def_property_readonly(
          "dims",
          [](const py_shape& s) {
            py::tuple t(s.value.size());
            for (std::size_t i = 0; i < s.value.size(); ++i) t[i] = py::cast(py_dim{s.value[i]});
            return t;
          },
          "The dimensions as a tuple of Dim (empty when the rank is unknown).")
      .def("__iter__", [](const py_shape& s) { return py::iter(static_tuple(s.value)); },
           "The integers of a static shape; raises reshape1.Error (invalid_argument) otherwise.")
      .def("__str__", [](const py_shape& s) { return to_string(s.value); }, "The notation, e.g. [2,?@A,1..10].")
      .def("__repr__", [](const py_shape& s) { return "Shape('" + to_string(s.value) + "')"; })
      .def(
          "__eq__",
          [](const py_shape& a, py::handle b) -> py::object {
            if (py::isinstance<py_shape>(b)) return py::bool_(a.value == b.cast<const py_shape&>().value);
            if (PyTuple_Check(b.ptr()))
              return a.value.is_static() ? py::bool_(static_tuple(a.value).equal(b)) : py::bool_(false);
            return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          },
          "Equal to another Shape with the same dimensions and symbols, or to the tuple of a static shape.")
      .def("__hash__", [](const py_shape& s) { return py::hash(py::str(to_string(s.value))); });

  {
    static PyGetSetDef getset[] = {
        {"shape",
         [](PyObject* self, void*) -> PyObject* {
           try {
             return py::cast(py_shape{reinterpret_cast<result_object*>(self)->value.shape}).release().ptr();
           } catch (py::error_already_set& e) {
             e.restore();
             return nullptr;
           }
         },
         nullptr, "The output Shape.", nullptr},
        {"symbol_equalities",
         [](PyObject* self, void*) -> PyObject* {
           const auto& eqs = reinterpret_cast<result_object*>(self)->value.equalities;
           PyObject* l = PyList_New(static_cast<Py_ssize_t>(eqs.size()));
           if (l == nullptr) return nullptr;
           for (std::size_t i = 0; i < eqs.size(); ++i) {
             py::object pair;
             try {
               pair = py::make_tuple(py::str(eqs[i].first), py::str(eqs[i].second));
             } catch (py::error_already_set& e) {
               e.restore();
               Py_DECREF(l);
               return nullptr;
             }
             PyList_SET_ITEM(l, static_cast<Py_ssize_t>(i), pair.release().ptr());
           }
           return l;
         },
         nullptr, "Pairs (input symbol, output symbol) that the reshape proves equal; at most one pair.", nullptr},
        {nullptr, nullptr, nullptr, nullptr, nullptr}};
    static PyType_Slot slots[] = {
        {Py_tp_dealloc, reinterpret_cast<void*>(&result_dealloc)},
        {Py_tp_repr, reinterpret_cast<void*>(+[](PyObject* self) -> PyObject* {
           const auto& r = reinterpret_cast<result_object*>(self)->value;
           std::string s = "Result(shape='" + to_string(r.shape) + "', symbol_equalities=[";
           for (std::size_t i = 0; i < r.equalities.size(); ++i)
             s += (i ? ", ('" : "('") + r.equalities[i].first + "', '" + r.equalities[i].second + "')";
           s += "])";
           return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
         })},
        {Py_tp_getset, getset},
        // Only infer() makes results: a Result made from Python would hold no C++ value.
        {Py_tp_new, reinterpret_cast<void*>(+[](PyTypeObject*, PyObject*, PyObject*) -> PyObject* {
           PyErr_SetString(PyExc_TypeError, "reshape1.Result cannot be created directly; call reshape1.infer()");
           return nullptr;
         })},
        {Py_tp_doc, const_cast<char*>("The answer of infer(): .shape, the output Shape, and .symbol_equalities, the "
                                      "pairs of symbols the reshape proves equal.")},
        {0, nullptr}};
    static PyType_Spec spec = {"reshape1.Result", static_cast<int>(sizeof(result_object)), 0, Py_TPFLAGS_DEFAULT,
                               slots};
    PyObject* type = PyType_FromSpec(&spec);
    if (type == nullptr) throw py::error_already_set();
    result_type = reinterpret_cast<PyTypeObject*>(type);
    m.attr("Result") = py::reinterpret_borrow<py::object>(type);  // the module keeps a reference
  }

  m.def("infer", &infer, py::arg("input"), py::arg("pattern"), py::arg("special_zero").none(false), py::kw_only(),
        py::arg("pattern_type") = "i64", py::arg("empty_rule") = "openvino", py::arg("sound_bounds") = false,
        py::arg("legacy_scalar_pattern") = false, R"doc(Infer the output shape of Reshape-1.

input: the data's shape: the notation ("[2,?@A,1..10]", "[...]"), or a tuple, list or 1-D numpy
    array of integers (-1 is an unknown dimension ?) and dimension strings ("2..8", "?@A").
pattern: the notation ("[0,-1,4]", "[-7..0,?@A]", "[?,?]", "[...]", "1"), a sequence or numpy
    array of integers, or an int (a rank-0 pattern).
special_zero: whether 0 in the pattern copies the input dimension at that index.
pattern_type: the pattern tensor's declared element type ("i32", "u8"...): its values must fit
    it; a non-integer type is refused (code "pattern_type").
empty_rule: how -1 resolves next to a literal 0: "openvino" (OpenVINO's answer), "tensorflow"
    (zeros left out of both products) or "strict" (refused: "infer_zero").
sound_bounds: read bounds that may be -1 or 0 in every way they could be at run time.
legacy_scalar_pattern: accept a rank-0 pattern holding 1, as older OpenVINO did.

Returns a Result: .shape (a Shape) and .symbol_equalities (pairs of symbol names).
Raises reshape1.Error (code, message, indices, hint) on invalid input, pattern or options, and
TypeError on an argument of the wrong Python type.)doc");
  m.def(
      "_noop",
      [](py::handle, py::handle, bool, std::string_view, std::string_view, bool, bool) {},
      py::arg("input"), py::arg("pattern"), py::arg("special_zero").none(false), py::kw_only(), py::arg("pattern_type") = "i64",
      py::arg("empty_rule") = "openvino", py::arg("sound_bounds") = false, py::arg("legacy_scalar_pattern") = false,
      "Internal, for bench/python_bench.py: infer's arguments, converted the same way, and nothing done.");
  m.def("reshape", &reshape_array, py::arg("array"), py::arg("pattern"), py::arg("special_zero").none(false), py::kw_only(),
        py::arg("empty_rule") = "openvino", py::arg("copy") = py::none(),
        R"doc(Reshape a numpy array by a Reshape-1 pattern.

pattern: integers (sequence or 1-D numpy array) or the notation of known values ("[0,-1,4]").
The output shape is reshape1's inference on array.shape; no element is read or changed, so any
dtype works (complex, structured, object...). The result is what numpy's own reshape returns:
  - a C-contiguous array gives a view sharing its memory (the view keeps the array alive);
  - another array gives a view when its strides allow, else a C-ordered copy;
  - copy=False refuses to copy (reshape1.Error "invalid_argument" when no view is possible);
  - copy=True always copies (plain data is copied without holding the GIL).
Raises reshape1.Error with the inference's code and message (e.g. "count_mismatch").)doc");
  m.def("_reshape_raw_shape", &reshape_raw_shape, py::arg("data"), py::arg("element_type"), py::arg("shape"),
        py::arg("pattern"), py::arg("special_zero").none(false), py::arg("empty_rule") = "openvino",
        "Internal: checks raw bytes against (element_type, shape) and returns the reshaped shape.");
  m.def(
      "_error_codes",
      [] {
        py::list l;
        for (int c = 0; c <= static_cast<int>(errc::too_large); ++c) l.append(std::string(name(static_cast<errc>(c))));
        return l;
      },
      "Internal: every stable error code name, in the C++ order.");
  m.def("_fix", &fix_model, py::arg("model"), py::arg("bin"), py::arg("out"), py::arg("batches"), py::arg("layouts"),
        py::arg("batch_name"), py::arg("base_dir"), py::arg("shapes"), py::arg("check_shapes"), py::arg("assume_constant"),
        "Internal: reshape1::onnx::fix and write_fixed, the report as JSON and the fixed bytes of a model in memory "
        "(see reshape1.fix).");
  m.def("_shapes", &shapes_model, py::arg("model"), py::arg("bin"), py::arg("out"), py::arg("base_dir"), py::arg("shapes"),
        "Internal: reshape1::onnx::shapes and write_shapes, the report as JSON, its shapes, and for an ONNX model in "
        "memory the bytes of the copy that declares them (see reshape1.shapes).");
  m.def("_check_batch", &check_batch_model, py::arg("model"), py::arg("bin"), py::arg("batch"), py::arg("shapes"),
        py::arg("layouts"), py::arg("assume_kept"), py::arg("assume_constant"), py::arg("base_dir"), "Internal: reshape1::model::check_batch, the report as JSON (see reshape1.check_batch).");
  m.def("_format", &format_of_file, py::arg("path"));
  m.def(
      "_refuse_base_dir", [] { model::detail::refuse_base_dir_for_file(keywords); },
      "Internal: refuses base_dir for a model read from a file, with the command line's words.");
  m.def(
      "_refuse_for_format",
      [](const std::string& keyword, const std::string& format) {
        for (const auto& r : model::detail::option_table())
          if (r.python == keyword) return model::detail::refuse_for_format(keywords, r.key, format);
        throw std::invalid_argument("no such keyword: " + keyword);
      },
      py::arg("keyword"), py::arg("format"), "Internal: refuses a keyword the model's format does not take, as the CLI does.");
  m.def(
      "_options",
      [] {
        py::list l;
        for (const auto& r : model::detail::option_table())
          l.append(py::make_tuple(std::string(r.command), std::string(r.cli), std::string(r.cli_value),
                                  std::string(r.python), std::string(r.python_value), std::string(r.help), r.repeatable));
        return l;
      },
      "Internal: the table of the model commands' options, (command, cli, cli_value, python, python_value, help, "
      "repeatable), shared with the command line and the docs.");
  m.def("_check", &check_model, py::arg("model"), py::arg("bin"), py::arg("base_dir"),
        "Internal: reshape1::model::check, the report as JSON and whether it failed (see reshape1.check).");
  m.def(
      "element_types",
      [] {
        py::list l;
        for (const auto t : all_element_types()) l.append(std::string(name(t)));
        return l;
      },
      "The element type names reshape1 knows (OpenVINO IR names: \"i64\", \"bf16\", \"u4\"...).");
}
