// _sluice: arrays in and out (see arrays.hpp).
#include "arrays.hpp"

#include <nanobind/stl/string.h>

#include <array>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

namespace sluice::python::module {

using namespace nb::literals;

void raise(error_kind kind, const std::string& message) { throw error(kind, message); }

std::int64_t element_count(const shape_t& shape) {
  std::int64_t n = 1;
  for (const std::int64_t extent : shape) n *= extent;
  return n;
}

namespace {

constexpr std::size_t dtype_count = 12;

/// A handle kept for the life of the process: module state must not be destroyed after the interpreter.
nb::handle keep(nb::handle h) {
  if (h) h.inc_ref();
  return h;
}

std::optional<dtype> dtype_from(char kind, std::size_t size) {
  switch (kind) {
    case 'b':
      if (size == 1) return dtype::bool_;
      break;
    case 'i':
      if (size == 1) return dtype::int8;
      if (size == 2) return dtype::int16;
      if (size == 4) return dtype::int32;
      if (size == 8) return dtype::int64;
      break;
    case 'u':
      if (size == 1) return dtype::uint8;
      if (size == 2) return dtype::uint16;
      if (size == 4) return dtype::uint32;
      if (size == 8) return dtype::uint64;
      break;
    case 'f':
      if (size == 2) return dtype::float16;
      if (size == 4) return dtype::float32;
      if (size == 8) return dtype::float64;
      break;
    default: break;
  }
  return std::nullopt;
}

/// The buffer protocol's format character (struct module codes) and item size.
std::optional<dtype> dtype_from_format(const char* format, std::size_t size) {
  if (!format) return dtype_from('u', size);
  while (*format == '<' || *format == '=' || *format == '@' || *format == '|') ++format;
  if (format[0] == 0 || format[1] != 0) return std::nullopt;
  switch (format[0]) {
    case '?': return dtype_from('b', size);
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': return dtype_from('i', size);
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': return dtype_from('u', size);
    case 'e': case 'f': case 'd': return dtype_from('f', size);
    default: return std::nullopt;
  }
}

std::string unsupported_dtype(const char* function, const char* parameter, const std::string& what) {
  return "sluice." + std::string(function) + ": '" + parameter + "' has dtype " + what +
         ", which sluice does not take (bool, int8–int64, uint8–uint64, float16–float64)";
}

shape_t shape_of(nb::handle sequence) {
  shape_t shape;
  for (nb::handle extent : sequence) shape.push_back(nb::cast<std::int64_t>(extent));
  return shape;
}

nb::tuple shape_tuple(const shape_t& shape) {
  nb::list items;
  for (const std::int64_t extent : shape) items.append(extent);
  return nb::tuple(items);
}

std::string where(int device) { return device < 0 ? std::string("host memory") : "cuda:" + std::to_string(device); }

// ---- the libraries --------------------------------------------------------------------------------------

struct torch_state {
  PyTypeObject* tensor = nullptr;
  nb::handle empty, arange, current_stream, int64;
  std::array<nb::handle, dtype_count> dtypes{};
};

struct array_module_state {  // numpy and cupy
  PyTypeObject* ndarray = nullptr;
  nb::handle module, empty, arange, contiguous;
};

torch_state torch;
array_module_state numpy, cupy;
nb::handle cupy_current_stream, cupy_device, cupy_get_device;

/// Looks for the libraries among the imported modules: an array of a library exists only once it is imported.
void refresh_libraries() {
  nb::dict modules = nb::borrow<nb::dict>(nb::module_::import_("sys").attr("modules"));
  if (!torch.tensor && modules.contains("torch")) {
    nb::handle t = modules["torch"];
    torch.tensor = reinterpret_cast<PyTypeObject*>(keep(t.attr("Tensor")).ptr());
    torch.empty = keep(t.attr("empty"));
    torch.arange = keep(t.attr("arange"));
    torch.current_stream = keep(t.attr("_C").attr("_cuda_getCurrentRawStream"));
    static constexpr std::array<const char*, dtype_count> names{"bool",  "int8",   "int16",   "int32",
                                                                "int64", "uint8",  "uint16",  "uint32",
                                                                "uint64", "float16", "float32", "float64"};
    for (std::size_t k = 0; k < dtype_count; ++k)
      if (nb::hasattr(t, names[k])) torch.dtypes[k] = keep(t.attr(names[k]));
    torch.int64 = torch.dtypes[static_cast<std::size_t>(dtype::int64)];
  }
  for (auto [name, state] : {std::pair{"numpy", &numpy}, std::pair{"cupy", &cupy}}) {
    if (state->ndarray || !modules.contains(name)) continue;
    nb::handle m = modules[name];
    state->module = keep(m);
    state->ndarray = reinterpret_cast<PyTypeObject*>(keep(m.attr("ndarray")).ptr());
    state->empty = keep(m.attr("empty"));
    state->arange = keep(m.attr("arange"));
    state->contiguous = keep(m.attr("ascontiguousarray"));
    if (state == &cupy) {
      cupy_current_stream = keep(m.attr("cuda").attr("get_current_stream"));
      cupy_device = keep(m.attr("cuda").attr("Device"));
      cupy_get_device = keep(m.attr("cuda").attr("runtime").attr("getDevice"));
    }
  }
}

std::optional<library> library_of(nb::handle object) {
  PyTypeObject* type = Py_TYPE(object.ptr());
  if (torch.tensor && PyType_IsSubtype(type, torch.tensor)) return library::torch;
  if (cupy.ndarray && PyType_IsSubtype(type, cupy.ndarray)) return library::cupy;
  if (numpy.ndarray && PyType_IsSubtype(type, numpy.ndarray)) return library::numpy;
  return std::nullopt;
}

dtype numpy_dtype(nb::handle dtype_object, const char* function, const char* parameter) {
  const std::string kind = nb::cast<std::string>(dtype_object.attr("kind"));
  const auto size = nb::cast<std::size_t>(dtype_object.attr("itemsize"));
  const auto type = dtype_from(kind.empty() ? '?' : kind[0], size);
  if (!type) raise(error_kind::type, unsupported_dtype(function, parameter, nb::cast<std::string>(nb::str(dtype_object))));
  return *type;
}

// ---- parsing ----------------------------------------------------------------------------------------------

struct parsed {
  array view;
  shape_t shape;
  bool contiguous = true;
  nb::object keep_alive;
};

parsed parse_torch(nb::handle t, const char* function, const char* parameter) {
  parsed p;
  nb::handle type = t.attr("dtype");
  std::optional<dtype> code;
  for (std::size_t k = 0; k < dtype_count; ++k)
    if (torch.dtypes[k].is(type)) code = static_cast<dtype>(k);
  if (!code) raise(error_kind::type, unsupported_dtype(function, parameter, nb::cast<std::string>(nb::str(type))));
  p.view.type = *code;
  p.view.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(t.attr("data_ptr")()));
  p.shape = shape_of(t.attr("shape"));
  p.view.size = static_cast<std::size_t>(element_count(p.shape));
  p.view.device = nb::cast<int>(t.attr("get_device")());
  p.contiguous = nb::cast<bool>(t.attr("is_contiguous")());
  return p;
}

parsed parse_cupy(nb::handle a, const char* function, const char* parameter) {
  parsed p;
  p.view.type = numpy_dtype(a.attr("dtype"), function, parameter);
  p.view.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(a.attr("data").attr("ptr")));
  p.shape = shape_of(a.attr("shape"));
  p.view.size = static_cast<std::size_t>(element_count(p.shape));
  p.view.device = nb::cast<int>(a.attr("device").attr("id"));
  p.contiguous = nb::cast<bool>(a.attr("flags").attr("c_contiguous"));
  return p;
}

/// NumPy and any other object with the buffer protocol: host memory.
parsed parse_buffer(nb::handle object, bool writable, const char* function, const char* parameter) {
  Py_buffer buffer;
  const int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(object.ptr(), &buffer, flags) != 0) {
    PyErr_Clear();
    raise(error_kind::value, "sluice." + std::string(function) + ": '" + parameter +
                                 (writable ? "' is not a writable array" : "' is not an array"));
  }
  parsed p;
  const auto type = dtype_from_format(buffer.format, static_cast<std::size_t>(buffer.itemsize));
  const std::string format = buffer.format ? buffer.format : "B";
  p.view.data = buffer.buf;
  p.view.device = -1;
  for (int d = 0; d < buffer.ndim; ++d) p.shape.push_back(buffer.shape[d]);
  p.view.size = static_cast<std::size_t>(element_count(p.shape));
  p.contiguous = PyBuffer_IsContiguous(&buffer, 'C') != 0;
  PyBuffer_Release(&buffer);  // the object keeps the memory; it stays referenced for the call
  if (!type) raise(error_kind::type, unsupported_dtype(function, parameter, "'" + format + "'"));
  p.view.type = *type;
  return p;
}

parsed parse_cuda_array_interface(nb::handle object, const char* function, const char* parameter) {
  nb::dict cai = nb::borrow<nb::dict>(object.attr("__cuda_array_interface__"));
  parsed p;
  const std::string typestr = nb::cast<std::string>(cai["typestr"]);
  const auto type = typestr.size() >= 3 ? dtype_from(typestr[1], std::stoul(typestr.substr(2))) : std::nullopt;
  if (!type) raise(error_kind::type, unsupported_dtype(function, parameter, "'" + typestr + "'"));
  p.view.type = *type;
  p.shape = shape_of(cai["shape"]);
  p.view.size = static_cast<std::size_t>(element_count(p.shape));
  p.view.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(nb::borrow<nb::tuple>(cai["data"])[0]));
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    // C-contiguous strides are allowed spelled out.
    std::int64_t expected = static_cast<std::int64_t>(itemsize(*type));
    const shape_t strides = shape_of(cai["strides"]);
    for (std::size_t d = p.shape.size(); d-- > 0;) {
      if (p.shape[d] != 1 && strides[d] != expected) p.contiguous = false;
      expected *= p.shape[d];
    }
  }
  p.view.device = p.view.data ? pointer_device(p.view.data) : 0;
  return p;
}

// The DLPack structures (dlpack.h, stable ABI), unversioned capsules ("dltensor").
struct dl_device {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct dl_dtype {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct dl_tensor {
  void* data;
  dl_device device;
  std::int32_t ndim;
  dl_dtype dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct dl_managed_tensor {
  dl_tensor tensor;
  void* manager_ctx;
  void (*deleter)(dl_managed_tensor*);
};

parsed parse_dlpack(nb::handle object, std::uintptr_t stream, const char* function, const char* parameter) {
  // The producer orders its pending work before our stream (DLPack: 0 is reserved, 1 = legacy default).
  nb::object capsule = object.attr("__dlpack__")("stream"_a = stream == 0 ? std::uintptr_t{1} : stream);
  auto* managed = static_cast<dl_managed_tensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!managed) {
    PyErr_Clear();
    raise(error_kind::type, "sluice." + std::string(function) + ": '" + parameter + "' gave no DLPack tensor");
  }
  const dl_tensor& t = managed->tensor;
  parsed p;
  static constexpr std::array<char, 7> kinds{'i', 'u', 'f', '?', '?', '?', 'b'};
  const auto type = t.dtype.lanes == 1 && t.dtype.code < kinds.size() ? dtype_from(kinds[t.dtype.code], t.dtype.bits / 8u)
                                                                       : std::nullopt;
  if (!type) raise(error_kind::type, unsupported_dtype(function, parameter, "(DLPack code " + std::to_string(t.dtype.code) + ")"));
  p.view.type = *type;
  p.view.data = static_cast<char*>(t.data) + t.byte_offset;
  for (int d = 0; d < t.ndim; ++d) p.shape.push_back(t.shape[d]);
  p.view.size = static_cast<std::size_t>(element_count(p.shape));
  if (t.strides) {
    std::int64_t expected = 1;
    for (int d = t.ndim; d-- > 0;) {
      if (t.shape[d] != 1 && t.strides[d] != expected) p.contiguous = false;
      expected *= t.shape[d];
    }
  }
  // kDLCPU = 1, kDLCUDAHost = 3 are host memory; kDLCUDA = 2, kDLCUDAManaged = 13 the device's.
  p.view.device = t.device.device_type == 2 || t.device.device_type == 13 ? t.device.device_id : -1;
  p.keep_alive = capsule;  // the capsule's destructor calls the producer's deleter
  return p;
}

nb::object contiguous_copy(library kind, nb::handle object) {
  switch (kind) {
    case library::torch: return object.attr("contiguous")();
    case library::cupy: return nb::borrow(cupy.contiguous)(object);
    case library::numpy: return nb::borrow(numpy.contiguous)(object);
    case library::other: break;
  }
  return {};
}

std::uintptr_t stream_value(nb::handle stream) {
  if (nb::isinstance<nb::int_>(stream)) return nb::cast<std::uintptr_t>(stream);
  if (nb::hasattr(stream, "cuda_stream")) return nb::cast<std::uintptr_t>(stream.attr("cuda_stream"));  // torch
  if (nb::hasattr(stream, "__cuda_stream__"))
    return nb::cast<std::uintptr_t>(nb::borrow<nb::tuple>(stream.attr("__cuda_stream__")())[1]);
  if (nb::hasattr(stream, "ptr")) return nb::cast<std::uintptr_t>(stream.attr("ptr"));  // cupy
  raise(error_kind::type, "sluice: 'stream' must be an int (cudaStream_t), a torch.cuda.Stream, a cupy Stream or an "
                          "object with __cuda_stream__");
}

}  // namespace

// ---- invocation -------------------------------------------------------------------------------------------

invocation::invocation(const char* function, nb::handle stream) : function_(function), explicit_stream_(stream) {}

void invocation::adopt(const argument& first) {
  bound_ = true;
  kind_ = first.kind;
  call_.device = first.view.device;
  if (kind_ == library::torch) device_object_ = first.object.attr("device");
  if (call_.device < 0) return;
  if (explicit_stream_ && !explicit_stream_.is_none()) call_.stream = stream_value(explicit_stream_);
  else if (kind_ == library::torch) call_.stream = nb::cast<std::uintptr_t>(nb::borrow(torch.current_stream)(call_.device));
  else if (kind_ == library::cupy) call_.stream = nb::cast<std::uintptr_t>(nb::borrow(cupy_current_stream)().attr("ptr"));
  else call_.stream = 0;
}

argument invocation::input(nb::handle object, const char* parameter) {
  argument a;
  a.object = nb::borrow(object);
  std::optional<library> kind = library_of(object);
  if (!kind) {
    refresh_libraries();
    kind = library_of(object);
  }
  parsed p;
  if (kind == library::torch) p = parse_torch(object, function_, parameter);
  else if (kind == library::cupy) p = parse_cupy(object, function_, parameter);
  else if (kind == library::numpy) p = parse_buffer(object, false, function_, parameter);
  else if (nb::hasattr(object, "__cuda_array_interface__")) p = parse_cuda_array_interface(object, function_, parameter);
  else if (nb::hasattr(object, "__dlpack__")) {
    // The stream is known once an array fixed the call; a first DLPack argument orders its producer
    // before the explicit stream, or the legacy default one.
    const std::uintptr_t stream =
        bound_ ? call_.stream : (explicit_stream_ && !explicit_stream_.is_none() ? stream_value(explicit_stream_) : 0);
    p = parse_dlpack(object, stream, function_, parameter);
  } else if (PyObject_CheckBuffer(object.ptr())) {
    p = parse_buffer(object, false, function_, parameter);
  } else {
    raise(error_kind::type, "sluice." + std::string(function_) + ": '" + parameter + "' is a " +
                                nb::cast<std::string>(nb::type_name(object.type())) +
                                ", not an array (NumPy, CuPy, torch, or any object with __cuda_array_interface__ "
                                "or __dlpack__)");
  }
  a.kind = kind.value_or(library::other);
  if (!p.contiguous) {
    if (a.kind == library::other)
      raise(error_kind::value, "sluice." + std::string(function_) + ": '" + parameter +
                                   "' is not contiguous; pass a C-contiguous array");
    a.object = contiguous_copy(a.kind, object);  // documented: non-contiguous inputs are copied
    return input(a.object, parameter);
  }
  a.view = p.view;
  a.shape = std::move(p.shape);
  a.keep_alive = std::move(p.keep_alive);
  if (!bound_) adopt(a);
  else if (a.view.device != call_.device)
    raise(error_kind::value, "sluice." + std::string(function_) + ": '" + parameter + "' is in " + where(a.view.device) +
                                 " but the first array is in " + where(call_.device) +
                                 "; every array of a call must be on one device");
  return a;
}

std::optional<argument> invocation::optional_input(nb::handle object, const char* parameter) {
  if (!object || object.is_none()) return std::nullopt;
  return input(object, parameter);
}

argument invocation::output(nb::handle out, const shape_t& shape, dtype type, const char* parameter) {
  if (!out || out.is_none()) return allocate(shape, type);
  argument a = input(out, parameter);
  if (a.kind == library::numpy) parse_buffer(out, true, function_, parameter);  // raises for a read-only array
  if (!a.object.is(out))
    raise(error_kind::value, "sluice." + std::string(function_) + ": '" + parameter +
                                 "' must be contiguous (the result is written into it)");
  if (a.view.type != type)
    raise(error_kind::type, "sluice." + std::string(function_) + ": '" + parameter + "' has dtype " +
                                std::string(name(a.view.type)) + " but the result is " + std::string(name(type)));
  if (a.view.size != static_cast<std::size_t>(element_count(shape)))
    raise(error_kind::value, "sluice." + std::string(function_) + ": '" + parameter + "' has " +
                                 std::to_string(a.view.size) + " elements but the result has " +
                                 std::to_string(element_count(shape)));
  return a;
}

library invocation::allocating_library() {
  if (!bound_) raise(error_kind::value, "sluice." + std::string(function_) + ": no array to take the library from");
  if (kind_ != library::other) return kind_;
  if (call_.device < 0) return library::numpy;
  refresh_libraries();
  if (!cupy.ndarray) {
    try {
      nb::module_::import_("cupy");
      refresh_libraries();
    } catch (const nb::python_error&) {
    }
  }
  if (cupy.ndarray) return library::cupy;
  if (torch.tensor) return library::torch;
  raise(error_kind::type, "sluice." + std::string(function_) +
                              ": outputs of this array type are allocated with CuPy or torch, and neither is "
                              "importable; pass out=");
}

argument invocation::allocate(const shape_t& shape, dtype type) {
  const std::string dtype_name(name(type));
  nb::object made;
  const library kind = allocating_library();
  switch (kind) {
    case library::torch: {
      if (!torch.dtypes[static_cast<std::size_t>(type)])
        raise(error_kind::type, "sluice." + std::string(function_) + ": this torch has no " + dtype_name + " dtype");
      nb::object device = device_object_.is_valid() ? device_object_ : nb::str(("cuda:" + std::to_string(call_.device)).c_str());
      made = nb::borrow(torch.empty)(shape_tuple(shape), "dtype"_a = torch.dtypes[static_cast<std::size_t>(type)],
                                     "device"_a = device);
      break;
    }
    case library::cupy: {
      const int current = nb::cast<int>(nb::borrow(cupy_get_device)());
      if (current == call_.device) {
        made = nb::borrow(cupy.empty)(shape_tuple(shape), "dtype"_a = dtype_name);
      } else {
        nb::object guard = nb::borrow(cupy_device)(call_.device);
        guard.attr("__enter__")();
        made = nb::borrow(cupy.empty)(shape_tuple(shape), "dtype"_a = dtype_name);
        guard.attr("__exit__")(nb::none(), nb::none(), nb::none());
      }
      break;
    }
    default: {
      if (!numpy.ndarray) {
        nb::module_::import_("numpy");
        refresh_libraries();
      }
      made = nb::borrow(numpy.empty)(shape_tuple(shape), "dtype"_a = dtype_name);
      break;
    }
  }
  argument a;
  a.object = made;
  a.kind = kind;
  a.shape = shape;
  a.view.type = type;
  a.view.size = static_cast<std::size_t>(element_count(shape));
  a.view.device = call_.device;
  if (kind == library::torch) a.view.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(made.attr("data_ptr")()));
  else if (kind == library::cupy) a.view.data = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(made.attr("data").attr("ptr")));
  else a.view.data = parse_buffer(made, true, function_, "out").view.data;
  return a;
}

argument invocation::arange(std::int64_t n) {
  switch (allocating_library()) {
    case library::torch: {
      nb::object device = device_object_.is_valid() ? device_object_ : nb::str(("cuda:" + std::to_string(call_.device)).c_str());
      return input(nb::borrow(torch.arange)(n, "dtype"_a = torch.int64, "device"_a = device), "positions");
    }
    case library::cupy: return input(nb::borrow(cupy.arange)(n, "dtype"_a = "int64"), "positions");
    default:
      if (!numpy.ndarray) {
        nb::module_::import_("numpy");
        refresh_libraries();
      }
      return input(nb::borrow(numpy.arange)(n, "dtype"_a = "int64"), "positions");
  }
}

nb::object prefix(const argument& a, std::size_t n) {
  nb::object slice = nb::steal(PySlice_New(nullptr, nb::int_(n).ptr(), nullptr));
  return a.object[slice];
}

nb::object reshaped(const argument& a, const shape_t& shape) {
  if (a.shape == shape) return a.object;
  return a.object.attr("reshape")(shape_tuple(shape));
}

}  // namespace sluice::python::module
