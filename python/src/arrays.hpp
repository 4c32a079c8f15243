// python/src/arrays.hpp: the array check shared by every binding (arrays.cpp).
#pragma once

#include <Python.h>

#include <cstddef>

namespace claw_python {

/// Imports numpy's C API (once, at module import); false with a Python error set on failure.
bool import_numpy_api() noexcept;

/// The data of `obj` if it is a float64, native-order, aligned, C-contiguous ndarray of `ndim`
/// dimensions with shape (rows, cols) / (rows,) (a negative extent matches any), writable when
/// `writable`; else nullptr with TypeError / ValueError set, naming `function` and `name`.
/// `shape`, when given, receives the extents.
double* array_data(PyObject* obj, const char* function, const char* name, int ndim,
                   std::ptrdiff_t rows, std::ptrdiff_t cols, bool writable,
                   std::ptrdiff_t* shape = nullptr);

}  // namespace claw_python
