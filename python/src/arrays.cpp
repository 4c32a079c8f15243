// python/src/arrays.cpp: the argument check of every array claw reads or writes, over numpy's C
// API (a few pointer reads; pybind11's generic path costs several times more per argument).
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL claw_python_ARRAY_API
#include <Python.h>
#include <numpy/arrayobject.h>

#include <cstddef>

#include "arrays.hpp"

namespace claw_python {

bool import_numpy_api() noexcept { return _import_array() >= 0; }

/// The data of `obj` if it is a float64, native-order, aligned, C-contiguous ndarray of `ndim`
/// dimensions with shape (rows, cols) / (rows,) (a negative extent matches any), writable when
/// `writable`; else nullptr with TypeError / ValueError naming the argument. `shape` receives
/// the extents.
double* array_data(PyObject* obj, const char* function, const char* name, int ndim,
                   std::ptrdiff_t rows, std::ptrdiff_t cols, bool writable, std::ptrdiff_t* shape) {
  if (!PyArray_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a numpy.ndarray of float64, not %s", function,
                 name, Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  auto* a = reinterpret_cast<PyArrayObject*>(obj);
  if (PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(a)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must have dtype float64 (native byte order), not %S",
                 function, name, reinterpret_cast<PyObject*>(PyArray_DESCR(a)));
    return nullptr;
  }
  if (PyArray_NDIM(a) != ndim) {
    PyErr_Format(PyExc_ValueError, "%s: %s must have %d dimension(s), not %d", function, name, ndim,
                 PyArray_NDIM(a));
    return nullptr;
  }
  if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a)) {
    PyErr_Format(PyExc_ValueError,
                 "%s: %s must be C-contiguous and aligned (it is used in place, never copied)",
                 function, name);
    return nullptr;
  }
  const npy_intp* dims = PyArray_DIMS(a);
  if ((rows >= 0 && dims[0] != rows) || (ndim == 2 && cols >= 0 && dims[1] != cols)) {
    // An extent that matches any size is written as a letter.
    const auto extent = [](std::ptrdiff_t e, const char* any) {
      return e >= 0 ? PyUnicode_FromFormat("%zd", e) : PyUnicode_FromString(any);
    };
    PyObject* r = extent(rows, "M");
    PyObject* c = extent(cols, "N");
    if (r && c) {
      if (ndim == 2)
        PyErr_Format(PyExc_ValueError, "%s: %s must have shape (%U, %U), not (%zd, %zd)", function,
                     name, r, c, dims[0], dims[1]);
      else
        PyErr_Format(PyExc_ValueError, "%s: %s must have shape (%U,), not (%zd,)", function, name,
                     r, dims[0]);
    }
    Py_XDECREF(r);
    Py_XDECREF(c);
    return nullptr;
  }
  if (writable && !PyArray_ISWRITEABLE(a)) {
    PyErr_Format(PyExc_ValueError, "%s: %s is read-only, but it is updated in place", function,
                 name);
    return nullptr;
  }
  if (shape)
    for (int i = 0; i < ndim; ++i) shape[i] = dims[i];
  return static_cast<double*>(PyArray_DATA(a));
}

}  // namespace claw_python
