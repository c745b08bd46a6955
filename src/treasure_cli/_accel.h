/*
 * The argument and buffer handling of the package's compiled modules
 * (rules/_grid.c, rules/_draws.c, islands/_gen.c, agents/_mass.c), written
 * once: how an array comes in through the buffer protocol, what its format
 * letter is, which checks it must pass, and how the buffers a call holds are
 * all released at its one exit.
 *
 * Two ways to meet an array that is not what a function takes: a module whose
 * Python caller keeps a numpy version (rules/_grid.c) *declines* it (returns
 * without an error, and numpy decides); the others *refuse* it with the same
 * TypeError ("NAME must be a 2-D array of bool"). accel_array does both: `what`
 * NULL declines, a name refuses.
 *
 * Every module includes this header once; everything here is static.
 */
#ifndef TREASURE_CLI_ACCEL_H
#define TREASURE_CLI_ACCEL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* A buffer's item format as one struct letter ('?', 'i', 'd', ...), its native byte-order
   mark skipped; 0 for a longer format (a record, a non-native order). */
static inline char accel_letter(const Py_buffer *view)
{
    const char *f = view->format ? view->format : "B";
#if PY_LITTLE_ENDIAN
    if (*f == '@' || *f == '=' || *f == '<')
#else
    if (*f == '@' || *f == '=' || *f == '>')
#endif
        f++;
    return f[0] && !f[1] ? f[0] : 0;
}

/* Whether a buffer's items are signed 32-bit ints ('l' is one where a long has 32 bits). */
static inline int accel_is_int32(const Py_buffer *view)
{
    char f = accel_letter(view);
    return (f == 'i' || f == 'l') && view->itemsize == 4;
}

/* What an array argument must be. */
typedef struct {
    const char *letters;  /* its format letter is one of these */
    Py_ssize_t itemsize;  /* bytes an item */
    int ndim;             /* its dimensions; < 0: any */
    int c_order;          /* C-contiguous (else any strides) */
    int writable;         /* an output (always C-contiguous) */
    const char *name;     /* its dtype for the refusal: "bool", "int32", ... */
} AccelArray;

#define ACCEL_BOOL_IN {"?", 1, 2, 0, 0, "bool"}
#define ACCEL_BOOL_OUT {"?", 1, 2, 1, 1, "bool"}
#define ACCEL_INT32_IN {"il", 4, 2, 1, 0, "int32"}
#define ACCEL_INT32_OUT {"il", 4, 2, 1, 1, "int32"}
#define ACCEL_FLOAT64_IN {"d", 8, 2, 0, 0, "float64"}
#define ACCEL_FLOAT64_OUT {"d", 8, 2, 1, 1, "float64"}

/* obj's buffer as `want` says, into `view`. 1: got (release it, or hold it: accel_hold);
   0: declined, no error set (`what` NULL); -1: an error set (`what`: a TypeError naming it,
   or the exporter's own error). */
static inline int accel_array(PyObject *obj, Py_buffer *view, AccelArray want, const char *what)
{
    int flags = PyBUF_FORMAT | PyBUF_STRIDES;
    if (want.c_order || want.writable)
        flags |= PyBUF_C_CONTIGUOUS;
    if (want.writable)
        flags |= PyBUF_WRITABLE;
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        if (what != NULL)
            return -1;
        PyErr_Clear();
        return 0;
    }
    char f = accel_letter(view);
    if (f != 0 && strchr(want.letters, f) != NULL && view->itemsize == want.itemsize
        && (want.ndim < 0 || view->ndim == want.ndim))
        return 1;
    PyBuffer_Release(view);
    if (what == NULL)
        return 0;
    if (want.ndim < 0)
        PyErr_Format(PyExc_TypeError, "%s must be %s array of %s", what, want.writable ? "a writable" : "an", want.name);
    else
        PyErr_Format(PyExc_TypeError, "%s must be a%s %d-D array of %s", what, want.writable ? " writable" : "",
                     want.ndim, want.name);
    return -1;
}

/* Whether a 2-D buffer is h x w. */
static inline int accel_shape_is(const Py_buffer *view, Py_ssize_t h, Py_ssize_t w)
{
    return view->shape[0] == h && view->shape[1] == w;
}

/* The buffers one call holds, released together at its one exit (`done:`), so no path
   needs its own list of what to release. */
#define ACCEL_MAX_HELD 8
typedef struct {
    Py_buffer *views[ACCEL_MAX_HELD];
    int n;
} AccelHeld;

/* Hold `view` (got == 1) and pass `got` on: `got = accel_hold(&held, &v, accel_array(...))`. */
static inline int accel_hold(AccelHeld *held, Py_buffer *view, int got)
{
    if (got == 1)
        held->views[held->n++] = view;
    return got;
}

static inline void accel_release(AccelHeld *held)
{
    while (held->n > 0)
        PyBuffer_Release(held->views[--held->n]);
}

/* A function with one exit keeps its result in `result` and ends at `done:`, where it frees
   what it took. ACCEL_TAKE(got): a buffer declined (got 0: the result is False) or an error
   (got -1: NULL) ends the call; ACCEL_NO_MEMORY_IF(failed): so does an allocation that failed. */
#define ACCEL_TAKE(got) \
    do { int got_ = (got); if (got_ <= 0) { result = got_ < 0 ? NULL : Py_False; goto done; } } while (0)
#define ACCEL_NO_MEMORY_IF(failed) \
    do { if (failed) { PyErr_NoMemory(); result = NULL; goto done; } } while (0)

/* A vectorcall function's argument count: a TypeError quoting its call form when wrong. */
static inline int accel_nargs(Py_ssize_t nargs, Py_ssize_t want, const char *usage)
{
    if (nargs == want)
        return 0;
    PyErr_SetString(PyExc_TypeError, usage);
    return -1;
}

/* args[0..n) as Py_ssize_t (an OverflowError past its range). */
static inline int accel_ssizes(PyObject *const *args, Py_ssize_t n, Py_ssize_t *out)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyNumber_AsSsize_t(args[i], PyExc_OverflowError);
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

#endif
