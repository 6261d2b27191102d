// _sluice: string_match, string_match_count, string_match_bitmap, multi_string_match (string_match.cuh;
// kernels: api_strings.hpp). Texts are 1-byte arrays of any library, or bytes (host); a pattern is bytes,
// a str (UTF-8), or a 1-byte array (a host one is copied to the device for a device text).
#include "api_strings.hpp"
#include "arrays.hpp"
#include "bindings.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <string>
#include <vector>

namespace sluice::python::module {
namespace {

using namespace nb::literals;

/// A pattern: host bytes held by the call (bytes, bytearray, str, NumPy and other buffers), or an array
/// argument of the call's device.
struct pattern_argument {
  std::string host;
  std::optional<argument> device;
  array view;
};

std::string host_bytes(nb::handle object, const char* function, const char* parameter) {
  if (PyUnicode_Check(object.ptr())) return nb::cast<std::string>(object);
  Py_buffer buffer;
  if (PyObject_GetBuffer(object.ptr(), &buffer, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    PyErr_Clear();
    raise(error_kind::type, "sluice." + std::string(function) + ": '" + parameter +
                                "' must be bytes, a str or a 1-byte array (C-contiguous)");
  }
  const std::string format = buffer.format ? buffer.format : "B";
  const bool one_byte = buffer.itemsize == 1 && (format == "B" || format == "b" || format == "c");
  std::string bytes(static_cast<const char*>(buffer.buf), one_byte ? static_cast<std::size_t>(buffer.len) : 0);
  PyBuffer_Release(&buffer);
  if (!one_byte)
    raise(error_kind::type, "sluice." + std::string(function) + ": '" + parameter + "' has elements of format '" +
                                format + "'; supported: uint8, int8 (or bytes, str)");
  return bytes;
}

bool is_host_buffer(nb::handle object) {
  return PyUnicode_Check(object.ptr()) ||
         (PyObject_CheckBuffer(object.ptr()) && !nb::hasattr(object, "__cuda_array_interface__"));
}

pattern_argument pattern_of(invocation& inv, nb::handle pattern) {
  pattern_argument p;
  if (is_host_buffer(pattern)) {
    p.host = host_bytes(pattern, inv.function(), "pattern");
    p.view = {p.host.data(), p.host.size(), dtype::uint8, -1};
  } else {
    p.device = inv.input(pattern, "pattern");
    p.view = p.device->view;
  }
  return p;
}

string_match_spec spec_of(std::string_view algorithm, int alphabet_bits, std::string_view verification,
                          bool check_alphabet) {
  return {.algorithm = parse_string_match_algorithm(algorithm), .alphabet_bits = alphabet_bits,
          .verification = parse_match_verification(verification), .check_alphabet = check_alphabet};
}

nb::object string_match(nb::handle text, nb::handle pattern, std::string_view algorithm, int alphabet_bits,
                        std::string_view verification, bool check_alphabet, nb::handle stream) {
  invocation inv("string_match", stream);
  const argument t = inv.input(text, "text");
  const pattern_argument p = pattern_of(inv, pattern);
  const string_match_spec spec = spec_of(algorithm, alphabet_bits, verification, check_alphabet);
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::string_match(inv.context(), t.view, p.view, nullptr, spec);
  }
  const argument positions = inv.allocate({static_cast<std::int64_t>(count)}, dtype::int64);
  if (count > 0) {
    nb::gil_scoped_release unlocked;
    python::string_match(inv.context(), t.view, p.view, &positions.view, spec);
  }
  return positions.object;
}

std::size_t string_match_count(nb::handle text, nb::handle pattern, std::string_view algorithm, int alphabet_bits,
                               std::string_view verification, bool check_alphabet, nb::handle stream) {
  invocation inv("string_match_count", stream);
  const argument t = inv.input(text, "text");
  const pattern_argument p = pattern_of(inv, pattern);
  const string_match_spec spec = spec_of(algorithm, alphabet_bits, verification, check_alphabet);
  nb::gil_scoped_release unlocked;
  return python::string_match(inv.context(), t.view, p.view, nullptr, spec);
}

nb::object string_match_bitmap(nb::handle text, nb::handle pattern, std::string_view algorithm, int alphabet_bits,
                               std::string_view verification, bool check_alphabet, nb::handle out, nb::handle stream) {
  invocation inv("string_match_bitmap", stream);
  const argument t = inv.input(text, "text");
  const pattern_argument p = pattern_of(inv, pattern);
  const string_match_spec spec = spec_of(algorithm, alphabet_bits, verification, check_alphabet);
  const auto words = static_cast<std::int64_t>(python::string_match_bitmap_words(t.view.size, p.view.size));
  const argument bitmap = inv.output(out, {words}, dtype::uint32, "out");
  {
    nb::gil_scoped_release unlocked;
    python::string_match_bitmap(inv.context(), t.view, p.view, bitmap.view, spec);
  }
  return bitmap.object;
}

nb::tuple multi_string_match(nb::handle text, nb::handle patterns, int alphabet_bits, bool check_alphabet,
                             nb::handle stream) {
  const char* function = "multi_string_match";
  invocation inv(function, stream);
  const argument t = inv.input(text, "text");
  if (is_host_buffer(patterns) || !nb::hasattr(patterns, "__iter__"))
    raise(error_kind::type, "sluice.multi_string_match: 'patterns' must be a sequence of bytes or str");
  std::vector<std::string> held;
  for (nb::handle pattern : patterns) held.push_back(host_bytes(pattern, function, "patterns"));
  const std::vector<std::string_view> views(held.begin(), held.end());
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::multi_string_match(inv.context(), t.view, views, nullptr, nullptr, alphabet_bits, check_alphabet);
  }
  const argument positions = inv.allocate({static_cast<std::int64_t>(count)}, dtype::int64);
  const argument ids = inv.allocate({static_cast<std::int64_t>(count)}, dtype::int32);
  if (count > 0) {
    nb::gil_scoped_release unlocked;
    python::multi_string_match(inv.context(), t.view, views, &positions.view, &ids.view, alphabet_bits, check_alphabet);
  }
  return nb::make_tuple(positions.object, ids.object);
}

}  // namespace

void bind_strings(nb::module_& m) {
  const auto none = nb::none();
  m.def("string_match", &string_match, "text"_a, "pattern"_a, nb::kw_only(), "algorithm"_a = "automatic",
        "alphabet_bits"_a = 8, "verification"_a = "exact", "check_alphabet"_a = true, "stream"_a = none,
        "int64 positions r, ascending, where text[r:r+len(pattern)] == pattern (overlapping matches all count). "
        "text: a uint8/int8 array or bytes; pattern: bytes, str (UTF-8) or a 1-byte array. Counts first, then "
        "writes the positions: two passes, reading the count back (synchronises the stream). algorithm: "
        "automatic, crk, crk_recurrence, drk, drk_wom32, drk_wom64, hrk, drk_2s; alphabet_bits (1-8): "
        "characters compare by their low bits, checked unless check_alphabet=False; verification: exact or "
        "fingerprint (the seed's probabilistic matchers).");
  m.def("string_match_count", &string_match_count, "text"_a, "pattern"_a, nb::kw_only(), "algorithm"_a = "automatic",
        "alphabet_bits"_a = 8, "verification"_a = "exact", "check_alphabet"_a = true, "stream"_a = none,
        "The number of matches of pattern in text (an int: synchronises the stream); arguments as string_match's.");
  m.def("string_match_bitmap", &string_match_bitmap, "text"_a, "pattern"_a, nb::kw_only(), "algorithm"_a = "automatic",
        "alphabet_bits"_a = 8, "verification"_a = "exact", "check_alphabet"_a = true, "out"_a = none,
        "stream"_a = none,
        "uint32 words, bit r % 32 of word r // 32 set where a match starts at r: ceil((n - m + 1) / 32) words "
        "(0 when the pattern is longer than the text). Asynchronous (unless alphabet_bits < 8 is checked).");
  m.def("multi_string_match", &multi_string_match, "text"_a, "patterns"_a, nb::kw_only(), "alphabet_bits"_a = 8,
        "check_alphabet"_a = true, "stream"_a = none,
        "(positions int64, pattern_ids int32): every match of any of the patterns (a sequence of bytes or str), "
        "sorted by position and then pattern index; overlapping matches and patterns that are prefixes of "
        "others all count. Two passes (count, then the hits), each reading the count back.");
}

}  // namespace sluice::python::module
