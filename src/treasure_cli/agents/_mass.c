/*
 * treasure_cli.agents._mass: the compiled twin of the numpy functions in
 * agents/mass_kernel.py (the readable reference), used by the logic agent.
 *
 * At 32x32 a whole-box numpy pass costs a few microseconds whatever its
 * size (np.cumsum along an axis is ~5 us on 1,400 tiles), and the agent
 * makes a dozen of them per action. These loops do the same arithmetic, in
 * the same order, so every float is the same bit for bit: the integral
 * image is summed down the columns first, then along the rows, as two
 * np.cumsum passes do, then divided by its total; a window is
 * ((a - b) - c) + d. Only adds, subtractions and divisions: no contraction
 * can change them (setup.py still builds with -ffp-contract=off).
 * tests/agents/test_mass_kernel.py compares both over random inputs.
 *
 * Arrays come in through the buffer protocol (any strides for the masks);
 * a bool array's format is "?", a float64 array's "d".
 *
 * Optional: if this file does not compile, the install goes on and the
 * agent uses the numpy functions.
 */

#include "_accel.h"  /* first: it includes Python.h */
#include <stdint.h>
#include <string.h>

#define PAD 2 /* the largest scan radius: the image's margin around the box */

#define AT(view, r, c) ((const char *)(view).buf + (r) * (view).strides[0] + (c) * (view).strides[1])

static const AccelArray BOOL_IN = ACCEL_BOOL_IN, FLOAT64_IN = ACCEL_FLOAT64_IN, FLOAT64_OUT = ACCEL_FLOAT64_OUT;
static const AccelArray BOOL_OR_FLOAT64_IN = {"?", 1, 2, 0, 0, "bool or float64"};

/* Set a ValueError and go to the function's one exit. */
#define FAIL(msg) do { PyErr_SetString(PyExc_ValueError, (msg)); goto done; } while (0)

/* integral(p, r0, c0, h, w, out): out[(h + 2*PAD + 1) x (w + 2*PAD + 1)] = the integral
 * image of p[r0:r0+h, c0:c0+w] padded by PAD zeros (and a zero first row and column),
 * divided by its total. */
static PyObject *integral(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t n[4];
    if (accel_nargs(nargs, 6, "integral(p, r0, c0, h, w, out)") < 0 || accel_ssizes(args + 1, 4, n) < 0)
        return NULL;
    Py_ssize_t r0 = n[0], c0 = n[1], h = n[2], w = n[3];
    Py_buffer p, out;
    AccelHeld held = {0};
    PyObject *result = NULL;
    double *col = NULL;
    /* p is bool or float64: taken as float64 if it is, else refused as not bool */
    int is_bool = accel_hold(&held, &p, accel_array(args[0], &p, FLOAT64_IN, NULL)) == 0;
    if (is_bool && accel_hold(&held, &p, accel_array(args[0], &p, BOOL_OR_FLOAT64_IN, "p")) < 0)
        goto done;
    if (r0 < 0 || c0 < 0 || h < 1 || w < 1 || r0 + h > p.shape[0] || c0 + w > p.shape[1])
        FAIL("the box is not inside p");
    if (accel_hold(&held, &out, accel_array(args[5], &out, FLOAT64_OUT, "out")) < 0)
        goto done;
    Py_ssize_t H = h + 2 * PAD + 1, W = w + 2 * PAD + 1;
    if (!accel_shape_is(&out, H, W))
        FAIL("out must be (h + 5) x (w + 5)");
    double *cs = (double *)out.buf;
    col = PyMem_Calloc((size_t)W, sizeof(double)); /* the running sums down each column */
    ACCEL_NO_MEMORY_IF(col == NULL);
    /* Row by row: col[j] is the first pass's value (the sum down column j), and the
     * row is its running sum across (the second pass). Rows and columns of padding add
     * zeros: they keep every first term as np.cumsum's (0 + x is x for x >= +0). */
    memset(cs, 0, (size_t)W * sizeof(double));
    for (Py_ssize_t i = 1; i < H; i++) {
        Py_ssize_t pr = i - PAD - 1; /* the row of the box, if any */
        if (pr >= 0 && pr < h) {
            const char *row = AT(p, r0 + pr, c0);
            Py_ssize_t step = p.strides[1];
            if (is_bool) {
                for (Py_ssize_t j = 0; j < w; j++)
                    col[j + PAD + 1] += row[j * step] ? 1.0 : 0.0;
            } else {
                for (Py_ssize_t j = 0; j < w; j++) {
                    double v;
                    memcpy(&v, row + j * step, sizeof v);
                    col[j + PAD + 1] += v;
                }
            }
        }
        double *out_row = cs + i * W;
        double run = col[0];
        out_row[0] = run;
        for (Py_ssize_t j = 1; j < W; j++) {
            run = run + col[j];
            out_row[j] = run;
        }
    }
    double total = cs[H * W - 1];
    for (Py_ssize_t k = 0; k < H * W; k++)
        cs[k] = cs[k] / total;
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(col);
    accel_release(&held);
    return result;
}

/* best_cover(cs, walk, r0, c0, pr, pc, discount) -> (row, col, cover): the first tile
 * (row-major) of the box at (r0, c0) whose 5x5 window mass (0 where walk is False),
 * divided by 1 + Manhattan distance from (pr, pc) / discount if discount > 0, is the
 * largest; its map position and undivided mass. cs: integral(...)'s image. */
static PyObject *best_cover(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t n[4];
    if (accel_nargs(nargs, 7, "best_cover(cs, walk, r0, c0, pr, pc, discount)") < 0 || accel_ssizes(args + 2, 4, n) < 0)
        return NULL;
    Py_ssize_t r0 = n[0], c0 = n[1], pr = n[2], pc = n[3];
    double discount = PyFloat_AsDouble(args[6]);
    if (discount == -1.0 && PyErr_Occurred())
        return NULL;
    Py_buffer cs, walk;
    AccelHeld held = {0};
    PyObject *result = NULL;
    if (accel_hold(&held, &cs, accel_array(args[0], &cs, FLOAT64_IN, "cs")) < 0
        || accel_hold(&held, &walk, accel_array(args[1], &walk, BOOL_IN, "walk")) < 0)
        goto done;
    Py_ssize_t H = cs.shape[0], W = cs.shape[1], h = H - 2 * PAD - 1, w = W - 2 * PAD - 1;
    if (h < 1 || w < 1 || r0 < 0 || c0 < 0 || r0 + h > walk.shape[0] || c0 + w > walk.shape[1])
        FAIL("the box is not inside walk");
    const Py_ssize_t k = 2 * PAD + 1; /* the 5x5 window's far corner */
    Py_ssize_t best_r = 0, best_c = 0;
    double best_score = 0.0, best_cover = 0.0;
    int first = 1;
    for (Py_ssize_t r = 0; r < h; r++) {
        const double *top = (const double *)AT(cs, r, 0), *bottom = (const double *)AT(cs, r + k, 0);
        Py_ssize_t cstep = cs.strides[1] / 8;
        const char *walk_row = AT(walk, r0 + r, c0);
        Py_ssize_t dr = r0 + r - pr;
        if (dr < 0)
            dr = -dr;
        for (Py_ssize_t c = 0; c < w; c++) {
            double cover = 0.0;
            if (walk_row[c * walk.strides[1]]) {
                cover = bottom[(c + k) * cstep] - top[(c + k) * cstep];
                cover -= bottom[c * cstep];
                cover += top[c * cstep];
            }
            double score = cover;
            if (discount > 0) {
                Py_ssize_t dc = c0 + c - pc;
                if (dc < 0)
                    dc = -dc;
                score = cover / (1.0 + (double)(dr + dc) / discount);
            }
            if (first || score > best_score) {
                first = 0;
                best_score = score;
                best_cover = cover;
                best_r = r;
                best_c = c;
            }
        }
    }
    result = Py_BuildValue("(nnd)", r0 + best_r, c0 + best_c, best_cover);
done:
    accel_release(&held);
    return result;
}

/* best_window(cs, r0, c0, k, cells, value) -> (index, value): the first of `cells` (a list
 * of tuples (_, row, col), map positions) whose (2k+1)x(2k+1) window mass (0 outside the
 * box at (r0, c0)) is more than value + 1e-12 and than each earlier one's; (-1, value)
 * if none. */
static PyObject *best_window(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t n[3];
    if (accel_nargs(nargs, 6, "best_window(cs, r0, c0, k, cells, value)") < 0 || accel_ssizes(args + 1, 3, n) < 0)
        return NULL;
    Py_ssize_t r0 = n[0], c0 = n[1], k = n[2];
    double value = PyFloat_AsDouble(args[5]);
    if (value == -1.0 && PyErr_Occurred())
        return NULL;
    if (!PyList_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "cells must be a list");
        return NULL;
    }
    if (k < 0 || k > PAD) {
        PyErr_SetString(PyExc_ValueError, "the radius must be 0 to 2");
        return NULL;
    }
    Py_buffer cs;
    if (accel_array(args[0], &cs, FLOAT64_IN, "cs") < 0)
        return NULL;
    Py_ssize_t h = cs.shape[0] - 2 * PAD - 1, w = cs.shape[1] - 2 * PAD - 1, lo = PAD - k, hi = PAD + k + 1;
    Py_ssize_t best = -1, count = PyList_GET_SIZE(args[4]);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *cell = PyList_GET_ITEM(args[4], i);
        if (!PyTuple_Check(cell) || PyTuple_GET_SIZE(cell) != 3) {
            PyBuffer_Release(&cs);
            PyErr_SetString(PyExc_TypeError, "a cell must be a tuple (_, row, col)");
            return NULL;
        }
        Py_ssize_t rc[2];
        if (accel_ssizes(&PyTuple_GET_ITEM(cell, 1), 2, rc) < 0) {
            PyBuffer_Release(&cs);
            return NULL;
        }
        Py_ssize_t r = rc[0] - r0, c = rc[1] - c0;
        double seen = 0.0;
        if (0 <= r && r < h && 0 <= c && c < w) {
            seen = *(const double *)AT(cs, r + hi, c + hi) - *(const double *)AT(cs, r + lo, c + hi);
            seen -= *(const double *)AT(cs, r + hi, c + lo);
            seen += *(const double *)AT(cs, r + lo, c + lo);
        }
        if (seen > value + 1e-12) {
            value = seen;
            best = i;
        }
    }
    PyBuffer_Release(&cs);
    return Py_BuildValue("(nd)", best, value);
}

/* count_both(a, b, r0, r1, c0, c1): tiles of rows r0..r1-1, columns c0..c1-1 true in both masks
 * (a stop past the edge is clipped, as a slice's). */
static PyObject *count_both(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t n[4];
    if (accel_nargs(nargs, 6, "count_both(a, b, r0, r1, c0, c1)") < 0 || accel_ssizes(args + 2, 4, n) < 0)
        return NULL;
    Py_buffer a, b;
    AccelHeld held = {0};
    PyObject *result = NULL;
    if (accel_hold(&held, &a, accel_array(args[0], &a, BOOL_IN, "a")) < 0
        || accel_hold(&held, &b, accel_array(args[1], &b, BOOL_IN, "b")) < 0)
        goto done;
    Py_ssize_t r0 = n[0], r1 = n[1], c0 = n[2], c1 = n[3];
    /* stops past the edge are clipped, as slices are */
    if (r1 > a.shape[0])
        r1 = a.shape[0];
    if (c1 > a.shape[1])
        c1 = a.shape[1];
    if (!accel_shape_is(&b, a.shape[0], a.shape[1]) || r0 < 0 || c0 < 0)
        FAIL("the masks differ in shape or the box starts before them");
    Py_ssize_t count = 0;
    for (Py_ssize_t r = r0; r < r1; r++) {
        const char *ra = AT(a, r, 0), *rb = AT(b, r, 0);
        for (Py_ssize_t c = c0; c < c1; c++)
            count += (ra[c * a.strides[1]] != 0) & (rb[c * b.strides[1]] != 0);
    }
    result = PyLong_FromSsize_t(count);
done:
    accel_release(&held);
    return result;
}

static PyMethodDef module_methods[] = {
    {"integral", (PyCFunction)(void (*)(void))integral, METH_FASTCALL,
     "integral(p, r0, c0, h, w, out): the box's padded integral image, as shares of its total, into out."},
    {"best_cover", (PyCFunction)(void (*)(void))best_cover, METH_FASTCALL,
     "best_cover(cs, walk, r0, c0, pr, pc, discount) -> (row, col, mass) of the richest 5x5 window."},
    {"best_window", (PyCFunction)(void (*)(void))best_window, METH_FASTCALL,
     "best_window(cs, r0, c0, k, cells, value) -> (index, value) of the first window seeing more."},
    {"count_both", (PyCFunction)(void (*)(void))count_both, METH_FASTCALL,
     "count_both(a, b, r0, r1, c0, c1) -> tiles of the box true in both masks."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef mass_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "treasure_cli.agents._mass",
    .m_doc = "Compiled integral images and window searches for the logic agent (see agents/mass_kernel.py).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__mass(void)
{
    return PyModule_Create(&mass_module);
}
