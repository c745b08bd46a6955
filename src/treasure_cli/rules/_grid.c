/*
 * treasure_cli.rules._grid: compiled twins of grid.py's BFS, pieces, Manhattan
 * distances, neighbours, bounding box and shortest-path DAG descendants (one search, or a walk
 * forward through the DAG) and bit packing, and of island.py's region tables,
 * prisons and prison reach, and of actions.py's legal_moves (the rule of
 * moves: the logic agent asks it for every tile it plans from).
 *
 * grid.py and island.py keep the numpy versions as the readable reference and
 * the fallback; tests/rules/test_grid_compiled.py and test_island_compiled.py
 * compare both bit for bit. Each function
 * here fills an output array the caller made (numpy, C order) and returns
 * True, or returns False without raising when it declines an input it does
 * not handle (a dtype or shape it does not know, a position off the grid):
 * the caller then runs the numpy version, so odd inputs behave exactly as
 * they always did.
 *
 * Arrays come in through the buffer protocol with their strides, so views
 * need no copy. An input's element counts as set when it is non-zero (as
 * numpy's conversion to bool has it).
 *
 * Why compiled: on a 32x32 map a numpy BFS is ~40 layers of ~9 numpy calls,
 * 100-200 us, where a plain queue over the same tiles takes a few us; on big
 * maps the queue also touches far less memory than numpy's temporaries.
 *
 * Optional: if this file does not compile, the install goes on and grid.py
 * uses numpy.
 */

#include "_accel.h"  /* first: it includes Python.h */
#include <stdint.h>
#include <limits.h>
#include <string.h>

/* How an input's elements are tested for non-zero. */
enum kind { K_U8, K_U16, K_U32, K_U64, K_F32, K_F64 };

typedef struct {
    Py_buffer view;
    const char *buf;
    Py_ssize_t h, w, s0, s1;  /* strides in bytes */
    enum kind kind;
} Grid;

/* 1: a 2-D grid we read; 0: declined (no error set); -1: error. */
static int grid_in(PyObject *obj, Grid *g)
{
    if (!PyObject_CheckBuffer(obj))
        return 0;
    if (PyObject_GetBuffer(obj, &g->view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t size = g->view.itemsize;
    char f = accel_letter(&g->view);
    int ok = f != 0;
    if (ok) {
        switch (f) {
        case '?': case 'b': case 'B': ok = size == 1; g->kind = K_U8; break;
        case 'h': case 'H': ok = size == 2; g->kind = K_U16; break;
        case 'i': case 'I': case 'l': case 'L': case 'q': case 'Q':
            ok = size == 4 || size == 8;
            g->kind = size == 4 ? K_U32 : K_U64;
            break;
        case 'f': ok = size == 4; g->kind = K_F32; break;
        case 'd': ok = size == 8; g->kind = K_F64; break;
        default: ok = 0;
        }
    }
    if (!ok || g->view.ndim != 2) {
        PyBuffer_Release(&g->view);
        return 0;
    }
    g->buf = g->view.buf;
    g->h = g->view.shape[0];
    g->w = g->view.shape[1];
    g->s0 = g->view.strides[0];
    g->s1 = g->view.strides[1];
    return 1;
}

/* Row r of g as 0/1 bytes in dst[0..w). */
static void read_row(const Grid *g, Py_ssize_t r, uint8_t *dst)
{
    const char *p = g->buf + r * g->s0;
    Py_ssize_t w = g->w, s = g->s1, c;
    switch (g->kind) {
    case K_U8:
        if (s == 1) {
            for (c = 0; c < w; c++)
                dst[c] = p[c] != 0;
        } else {
            for (c = 0; c < w; c++)
                dst[c] = p[c * s] != 0;
        }
        break;
    case K_U16:
        for (c = 0; c < w; c++) { uint16_t v; memcpy(&v, p + c * s, 2); dst[c] = v != 0; }
        break;
    case K_U32:
        for (c = 0; c < w; c++) { uint32_t v; memcpy(&v, p + c * s, 4); dst[c] = v != 0; }
        break;
    case K_U64:
        for (c = 0; c < w; c++) { uint64_t v; memcpy(&v, p + c * s, 8); dst[c] = v != 0; }
        break;
    case K_F32:
        for (c = 0; c < w; c++) { float v; memcpy(&v, p + c * s, 4); dst[c] = v != 0.0f; }
        break;
    case K_F64:
        for (c = 0; c < w; c++) { double v; memcpy(&v, p + c * s, 8); dst[c] = v != 0.0; }
        break;
    }
}

/* A writable, C-ordered (h, w) output of `itemsize`-byte items with format `fmt` ('i': int32).
   1 ok, 0 declined, -1 error. */
static int grid_out(PyObject *obj, Py_buffer *view, Py_ssize_t h, Py_ssize_t w, char fmt, Py_ssize_t itemsize)
{
    char letters[3] = {fmt, fmt == 'i' ? 'l' : 0, 0};
    AccelArray want = {letters, itemsize, 2, 1, 1, NULL};
    int got = accel_array(obj, view, want, NULL);
    if (got == 1 && !accel_shape_is(view, h, w)) {
        PyBuffer_Release(view);
        return 0;
    }
    return got;
}

/* The grids' flat and padded indices are int32: larger grids are left to numpy. */
static int too_big(Py_ssize_t h, Py_ssize_t w)
{
    return (double)(h + 2) * (double)(w + 2) >= 2147483647.0;
}

/* The padded grid (one blocked tile on every side) of g's set tiles, as bytes; NULL: no memory. */
static uint8_t *padded_bytes(const Grid *g)
{
    Py_ssize_t wp = g->w + 2;
    uint8_t *m = calloc((size_t)(g->h + 2) * (size_t)wp, 1);
    if (!m)
        return NULL;
    for (Py_ssize_t r = 0; r < g->h; r++)
        read_row(g, r, m + (r + 1) * wp + 1);
    return m;
}

/* A non-negative position index of an item; -1 on error or below 0 (declined). */
static Py_ssize_t index_of(PyObject *o)
{
    Py_ssize_t v = PyNumber_AsSsize_t(o, NULL);
    if (v == -1 && PyErr_Occurred())
        return -2;
    return v < 0 ? -1 : v;
}

/* A function of (mask, out)'s arguments: the mask as a Grid and `out`, a C-ordered output of
   its shape (`fmt`, `itemsize`), both held. 1 both got, 0 declined, -1 error. */
static int mask_and_out(PyObject *args, Grid *g, Py_buffer *ov, char fmt, Py_ssize_t itemsize, AccelHeld *held)
{
    PyObject *mask_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OO", &mask_obj, &out_obj))
        return -1;
    int got = accel_hold(held, &g->view, grid_in(mask_obj, g));
    if (got <= 0)
        return got;
    if (too_big(g->h, g->w))
        return 0;
    return accel_hold(held, ov, grid_out(out_obj, ov, g->h, g->w, fmt, itemsize));
}

/* ---- BFS ----------------------------------------------------------------- */

typedef struct { int32_t p, o; } Item;  /* a tile's padded and plain flat index */

PyDoc_STRVAR(bfs_doc,
"bfs(passable, sources, mask, until, extra, out) -> bool\n\n"
"grid.bfs_distance into `out` (int32, C order, passable's shape): `sources` a\n"
"sequence of (row, col) or None with `mask` a grid of sources; `until` a\n"
"(row, col) or None. False (out undefined) when declined.");

static PyObject *bfs(PyObject *self, PyObject *args)
{
    PyObject *passable_obj, *sources, *mask_obj, *until, *extra_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOOOOO", &passable_obj, &sources, &mask_obj, &until, &extra_obj, &out_obj))
        return NULL;
    /* extra: any integer (a huge one means no limit); anything else is numpy's to judge */
    if (!PyLong_Check(extra_obj))
        Py_RETURN_FALSE;
    int overflow;
    long long extra = PyLong_AsLongLongAndOverflow(extra_obj, &overflow);
    if (extra == -1 && PyErr_Occurred())
        return NULL;
    if (overflow)
        extra = overflow > 0 ? LLONG_MAX : LLONG_MIN;
    Grid g, mg;
    Py_buffer ov;
    AccelHeld held = {0};
    PyObject *result = Py_False;
    uint8_t *free_ = NULL;
    Item *queue = NULL;
    int have_mask = mask_obj != Py_None;
    ACCEL_TAKE(accel_hold(&held, &g.view, grid_in(passable_obj, &g)));
    Py_ssize_t h = g.h, w = g.w, wp = w + 2;
    if (too_big(h, w))
        goto done;
    if (have_mask) {
        ACCEL_TAKE(accel_hold(&held, &mg.view, grid_in(mask_obj, &mg)));
        if (mg.h != h || mg.w != w)
            goto done;
    }
    ACCEL_TAKE(accel_hold(&held, &ov, grid_out(out_obj, &ov, h, w, 'i', 4)));
    int32_t *dist = ov.buf;
    Py_ssize_t n = h * w;
    /* Every queued tile is a distinct tile of the grid: n items at most. Big maps
       that stop early touch only the start of this (pages are mapped on use). */
    free_ = padded_bytes(&g);
    queue = malloc((size_t)(n ? n : 1) * sizeof(Item));
    ACCEL_NO_MEMORY_IF(!free_ || !queue);
    memset(dist, 0xff, (size_t)n * 4);  /* UNREACHABLE = -1 */
    Py_ssize_t tail = 0;
    if (have_mask) {
        uint8_t *row = malloc(w ? w : 1);
        ACCEL_NO_MEMORY_IF(!row);
        for (Py_ssize_t r = 0; r < h; r++) {
            read_row(&mg, r, row);
            for (Py_ssize_t c = 0; c < w; c++) {
                if (row[c]) {
                    int32_t o = (int32_t)(r * w + c), p = (int32_t)((r + 1) * wp + c + 1);
                    dist[o] = 0;
                    free_[p] = 0;
                    queue[tail].p = p;
                    queue[tail++].o = o;
                }
            }
        }
        free(row);
    } else {
        PyObject *seq = PySequence_Fast(sources, "sources must be a sequence");
        if (!seq) {
            PyErr_Clear();
            goto done;
        }
        Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
        PyObject **items = PySequence_Fast_ITEMS(seq);
        for (Py_ssize_t i = 0; i < k; i++) {
            Py_ssize_t rc[2];
            PyObject *pos = items[i];
            if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) != 2) {
                Py_DECREF(seq);
                goto done;  /* other position types: numpy's indexing decides */
            }
            for (int j = 0; j < 2; j++) {
                rc[j] = index_of(PyTuple_GET_ITEM(pos, j));
                if (rc[j] < 0) {
                    Py_DECREF(seq);
                    if (rc[j] == -2) {
                        PyErr_Clear();
                    }
                    goto done;
                }
            }
            if (rc[0] >= h || rc[1] >= w) {
                Py_DECREF(seq);
                goto done;
            }
            int32_t o = (int32_t)(rc[0] * w + rc[1]);
            if (dist[o] == 0)
                continue;  /* a repeated source */
            int32_t p = (int32_t)((rc[0] + 1) * wp + rc[1] + 1);
            dist[o] = 0;
            free_[p] = 0;
            queue[tail].p = p;
            queue[tail++].o = o;
        }
        Py_DECREF(seq);
    }
    /* `last`: the layer after which the search stops (INT32_MAX: it runs to the end). */
    int32_t stop = -1, last = INT32_MAX;
    int32_t more = (int32_t)(extra < 0 ? 0 : extra > INT32_MAX / 2 ? INT32_MAX / 2 : extra);
    if (until != Py_None) {
        Py_ssize_t ur, uc;
        if (!PyTuple_Check(until) || PyTuple_GET_SIZE(until) != 2)
            goto done;
        ur = index_of(PyTuple_GET_ITEM(until, 0));
        uc = ur < 0 ? ur : index_of(PyTuple_GET_ITEM(until, 1));
        if (ur < 0 || uc < 0) {
            if (ur == -2 || uc == -2)
                PyErr_Clear();
            goto done;
        }
        if (ur >= h || uc >= w)
            goto done;
        stop = (int32_t)(ur * w + uc);
        if (dist[stop] == 0)
            last = more;
    }
    /* numpy's version finishes the layer holding `until`, then `extra` more
       (a negative extra stops at that layer): so the tiles of layer
       dist[until] + max(extra, 0) are the last whose distance is written. */
    const int32_t dp[4] = {(int32_t)-wp, 1, (int32_t)wp, -1};
    const int32_t dout[4] = {(int32_t)-w, 1, (int32_t)w, -1};
    for (Py_ssize_t head = 0; head < tail; head++) {
        Item it = queue[head];
        int32_t d = dist[it.o];
        if (d >= last)
            break;
        for (int j = 0; j < 4; j++) {
            int32_t p = it.p + dp[j];
            if (free_[p]) {
                int32_t o = it.o + dout[j];
                free_[p] = 0;
                dist[o] = d + 1;
                queue[tail].p = p;
                queue[tail++].o = o;
                if (o == stop && last == INT32_MAX) {
                    int64_t l = (int64_t)d + 1 + more;
                    last = l < INT32_MAX ? (int32_t)l : INT32_MAX;
                }
            }
        }
    }
    result = Py_True;
done:
    free(free_);
    free(queue);
    accel_release(&held);
    return Py_XNewRef(result);
}

/* ---- pieces -------------------------------------------------------------- */

static int32_t find_root(int32_t *parent, int32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];  /* path halving */
        x = parent[x];
    }
    return x;
}

/* ---- whole-grid passes: a mask in, an array of its shape out ---------------- */

/* Fills `out` (C order, g's shape) from the mask g; 0 done, -1 out of memory. */
typedef int (*MaskPass)(const Grid *g, void *out);

/* The (mask, out) functions' one body: their arguments, the pass, the buffers released.
   `bool_only`: a mask of another dtype is declined. */
static PyObject *mask_pass(PyObject *args, char fmt, Py_ssize_t itemsize, int bool_only, MaskPass pass)
{
    Grid g;
    Py_buffer ov;
    AccelHeld held = {0};
    PyObject *result = Py_False;
    ACCEL_TAKE(mask_and_out(args, &g, &ov, fmt, itemsize, &held));
    if (!bool_only || accel_letter(&g.view) == '?')
        result = pass(&g, ov.buf) < 0 ? PyErr_NoMemory() : Py_True;
done:
    accel_release(&held);
    return Py_XNewRef(result);
}

/* Pieces: 4-connected labels 1, 2, ... in order of their first tile, 0 off the mask. */
static int components_pass(const Grid *g, void *out)
{
    Py_ssize_t h = g->h, w = g->w;
    int32_t *lab = out;
    /* Provisional labels in row-major order: a tile with no set neighbour above or to
       its left starts one, so at most one per two tiles (a checkerboard), plus label 0. */
    Py_ssize_t cap = (h * w + 1) / 2 + 2;
    int32_t *parent = malloc((size_t)cap * sizeof(int32_t));
    uint8_t *row = malloc(w ? w : 1);
    if (!parent || !row) {
        free(parent);
        free(row);
        return -1;
    }
    int32_t n = 0;
    parent[0] = 0;
    for (Py_ssize_t r = 0; r < h; r++) {
        read_row(g, r, row);
        int32_t *cur = lab + r * w, *up = r ? cur - w : NULL;
        int32_t left = 0;
        for (Py_ssize_t c = 0; c < w; c++) {
            if (!row[c]) {
                cur[c] = left = 0;
                continue;
            }
            int32_t a = up ? up[c] : 0;
            if (!a && !left) {
                n++;
                parent[n] = left = n;
            } else if (a && left && a != left) {
                /* Two pieces meet: the larger root goes under the smaller, so a
                   piece's root is its smallest label, the one of its first tile. */
                int32_t ra = find_root(parent, a), rb = find_root(parent, left);
                if (ra < rb)
                    parent[rb] = ra;
                else if (rb < ra)
                    parent[ra] = rb;
            } else if (!left) {
                left = a;
            }
            cur[c] = left;
        }
    }
    /* Roots in increasing order are the pieces in order of their first tile:
       number them 1, 2, ... (every parent is smaller than its child, so it is
       numbered first). */
    int32_t k = 0;
    for (int32_t i = 1; i <= n; i++)
        parent[i] = parent[i] == i ? ++k : parent[parent[i]];
    for (Py_ssize_t i = 0; i < h * w; i++)
        lab[i] = parent[lab[i]];
    free(parent);
    free(row);
    return 0;
}

PyDoc_STRVAR(components_doc,
"components(passable, out) -> bool\n\n"
"grid.components into `out` (int32, C order, passable's shape).");

static PyObject *components(PyObject *self, PyObject *args)
{
    return mask_pass(args, 'i', 4, 0, components_pass);
}

/* ---- Manhattan distances -------------------------------------------------- */

static int manhattan_pass(const Grid *g, void *out)
{
    Py_ssize_t h = g->h, w = g->w;
    int32_t *d = out;
    uint8_t *row = malloc(w ? w : 1);
    if (!row)
        return -1;
    /* Two sweeps (Rosenfeld and Pfaltz): from the top left each tile takes the
       better of its upper and left neighbours plus one, then from the bottom
       right the same with the lower and right ones. Exact for the L1 distance.
       Off the mask starts at H + W + 1, farther than any tile: an empty mask
       stays at that value everywhere, as the numpy version gives. */
    const int32_t far = (int32_t)(h + w + 1);
    for (Py_ssize_t r = 0; r < h; r++) {
        read_row(g, r, row);
        int32_t *cur = d + r * w;
        const int32_t *up = r ? cur - w : NULL;
        int32_t prev = far;  /* the left neighbour's value */
        for (Py_ssize_t c = 0; c < w; c++) {
            int32_t v = row[c] ? 0 : far;
            if (up && up[c] + 1 < v)
                v = up[c] + 1;
            if (prev + 1 < v)
                v = prev + 1;
            cur[c] = prev = v;
        }
    }
    for (Py_ssize_t r = h - 1; r >= 0; r--) {
        int32_t *cur = d + r * w;
        const int32_t *down = r + 1 < h ? cur + w : NULL;
        int32_t next = far;
        for (Py_ssize_t c = w - 1; c >= 0; c--) {
            int32_t v = cur[c];
            if (down && down[c] + 1 < v)
                v = down[c] + 1;
            if (next + 1 < v)
                v = next + 1;
            cur[c] = next = v;
        }
    }
    free(row);
    return 0;
}

PyDoc_STRVAR(manhattan_doc,
"manhattan(mask, out) -> bool\n\n"
"grid.manhattan_distance_to into `out` (int32, C order, mask's shape).");

static PyObject *manhattan(PyObject *self, PyObject *args)
{
    return mask_pass(args, 'i', 4, 0, manhattan_pass);
}

/* ---- neighbours ---------------------------------------------------------- */

static int neighbours_pass(const Grid *g, void *out_)
{
    Py_ssize_t h = g->h, w = g->w;
    uint8_t *out = out_;
    /* Three rows at a time (above, this one, below), each with a blocked tile at
       both ends: no copy of the whole grid, whose pages cost more than the work. */
    uint8_t *rows = calloc(4 * (size_t)(w + 2), 1);
    if (!rows)
        return -1;
    uint8_t *zero = rows + 3 * (w + 2), *above = zero, *mid = rows, *below = rows + (w + 2);
    uint8_t *spare = rows + 2 * (w + 2);
    if (h)
        read_row(g, 0, mid + 1);
    for (Py_ssize_t r = 0; r < h; r++) {
        if (r + 1 < h)
            read_row(g, r + 1, below + 1);
        const uint8_t *b = r + 1 < h ? below : zero;
        uint8_t *o = out + r * w;
        for (Py_ssize_t c = 1; c <= w; c++)
            o[c - 1] = above[c] | b[c] | mid[c - 1] | mid[c + 1];
        /* rotate: this row is the next one's above, below its mid */
        uint8_t *old_above = above == zero ? spare : above;
        above = mid;
        mid = below;
        below = old_above;
    }
    free(rows);
    return 0;
}

PyDoc_STRVAR(neighbours_doc,
"neighbours(mask, out) -> bool\n\n"
"grid.neighbours_of for a bool mask into `out` (bool, C order, mask's shape).");

static PyObject *neighbours(PyObject *self, PyObject *args)
{
    return mask_pass(args, '?', 1, 1, neighbours_pass);  /* other dtypes: numpy's `|=` decides */
}

/* ---- bounding box -------------------------------------------------------- */

/* Whether the element at p is non-zero: floats by their bits without the sign
   (so -0.0 is zero and NaN is not, as numpy's conversion to bool has it). */
static inline int nonzero_at(enum kind kind, const char *p)
{
    switch (kind) {
    case K_U8: return *(const uint8_t *)p != 0;
    case K_U16: { uint16_t v; memcpy(&v, p, 2); return v != 0; }
    case K_U32: { uint32_t v; memcpy(&v, p, 4); return v != 0; }
    case K_U64: { uint64_t v; memcpy(&v, p, 8); return v != 0; }
    case K_F32: { uint32_t v; memcpy(&v, p, 4); return (v & 0x7fffffffu) != 0; }
    case K_F64: { uint64_t v; memcpy(&v, p, 8); return (v & 0x7fffffffffffffffull) != 0; }
    }
    return 0;
}

/* The first column in [c0, c1) of the row at p that is set, or c1. */
static Py_ssize_t first_set(const Grid *g, const char *p, Py_ssize_t c0, Py_ssize_t c1)
{
    Py_ssize_t c = c0, s = g->s1;
    if (g->kind == K_U8 && s == 1) {  /* bytes: eight at a time */
        for (; c + 8 <= c1; c += 8) {
            uint64_t v;
            memcpy(&v, p + c, 8);
            if (v)
                break;
        }
    } else if (g->kind == K_F64 && s == 8) {  /* doubles: four at a time, their bits ORed */
        for (; c + 4 <= c1; c += 4) {
            uint64_t v[4];
            memcpy(v, p + c * 8, 32);
            if ((v[0] | v[1] | v[2] | v[3]) << 1)
                break;
        }
    }
    for (; c < c1; c++)
        if (nonzero_at(g->kind, p + c * s))
            return c;
    return c1;
}

/* The last column in [c0, c1) of the row at p that is set, or c0 - 1. */
static Py_ssize_t last_set(const Grid *g, const char *p, Py_ssize_t c0, Py_ssize_t c1)
{
    Py_ssize_t c = c1, s = g->s1;
    if (g->kind == K_U8 && s == 1) {
        for (; c - 8 >= c0; c -= 8) {
            uint64_t v;
            memcpy(&v, p + c - 8, 8);
            if (v)
                break;
        }
    } else if (g->kind == K_F64 && s == 8) {
        for (; c - 4 >= c0; c -= 4) {
            uint64_t v[4];
            memcpy(v, p + (c - 4) * 8, 32);
            if ((v[0] | v[1] | v[2] | v[3]) << 1)
                break;
        }
    }
    for (; c > c0; c--)
        if (nonzero_at(g->kind, p + (c - 1) * s))
            return c - 1;
    return c0 - 1;
}

static PyObject *make_slice(Py_ssize_t start, Py_ssize_t stop)
{
    PyObject *a = PyLong_FromSsize_t(start), *b = PyLong_FromSsize_t(stop), *s = NULL;
    if (a && b)
        s = PySlice_New(a, b, NULL);
    Py_XDECREF(a);
    Py_XDECREF(b);
    return s;
}

PyDoc_STRVAR(bounding_box_doc,
"bounding_box(mask) -> (slice, slice) | None | False\n\n"
"grid.bounding_box; False when declined.");

static PyObject *bounding_box(PyObject *self, PyObject *mask_obj)
{
    Grid g;
    int got = grid_in(mask_obj, &g);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    Py_ssize_t h = g.h, w = g.w, top = 0, bottom = h - 1, left = w, right = -1;
    /* The first and last rows holding a set tile; then, between them, each row is
       only searched beyond the columns already known to be in the box. */
    while (top < h && first_set(&g, g.buf + top * g.s0, 0, w) == w)
        top++;
    if (top == h) {
        PyBuffer_Release(&g.view);
        Py_RETURN_NONE;
    }
    while (first_set(&g, g.buf + bottom * g.s0, 0, w) == w)
        bottom--;
    for (Py_ssize_t r = top; r <= bottom; r++) {
        const char *p = g.buf + r * g.s0;
        Py_ssize_t c = first_set(&g, p, 0, left);
        if (c < left)
            left = c;
        c = last_set(&g, p, right + 1, w);
        if (c > right)
            right = c;
    }
    PyBuffer_Release(&g.view);
    return Py_BuildValue("(NN)", make_slice(top, bottom + 1), make_slice(left, right + 1));
}

/* ---- the island's region tables ------------------------------------------- */

/* A set of int64 keys (open addressing, linear probing); KEY_NONE marks a free slot. */
#define KEY_NONE INT64_MIN

typedef struct {
    int64_t *slot;
    size_t cap, n;  /* cap: a power of two, kept at least twice n */
} KeySet;

static int keyset_init(KeySet *s, size_t cap)
{
    s->cap = cap;
    s->n = 0;
    s->slot = malloc(cap * sizeof(int64_t));
    if (!s->slot)
        return -1;
    for (size_t i = 0; i < cap; i++)
        s->slot[i] = KEY_NONE;
    return 0;
}

static size_t keyset_home(const KeySet *s, int64_t key)
{
    /* Fibonacci hashing: the top bits of key times 2^64 / golden ratio. */
    uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 32) & (s->cap - 1);
}

/* 0 ok, -1 no memory. */
static int keyset_add(KeySet *s, int64_t key)
{
    size_t i = keyset_home(s, key);
    while (s->slot[i] != KEY_NONE) {
        if (s->slot[i] == key)
            return 0;
        i = (i + 1) & (s->cap - 1);
    }
    s->slot[i] = key;
    if (++s->n * 2 > s->cap) {  /* grow: rehash into twice the slots */
        KeySet bigger;
        if (keyset_init(&bigger, s->cap * 2) < 0)
            return -1;
        for (size_t j = 0; j < s->cap; j++) {
            int64_t k = s->slot[j];
            if (k != KEY_NONE) {
                size_t h = keyset_home(&bigger, k);
                while (bigger.slot[h] != KEY_NONE)
                    h = (h + 1) & (bigger.cap - 1);
                bigger.slot[h] = k;
            }
        }
        bigger.n = s->n;
        free(s->slot);
        *s = bigger;
    }
    return 0;
}

static int compare_keys(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The set's keys, ascending, packed at the start of its slots; returns how many. */
static size_t keyset_sorted(KeySet *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slot[i] != KEY_NONE)
            s->slot[n++] = s->slot[i];
    if (n <= 32) {  /* the usual handful: insertion sort */
        for (size_t i = 1; i < n; i++) {
            int64_t k = s->slot[i];
            size_t j = i;
            for (; j && s->slot[j - 1] > k; j--)
                s->slot[j] = s->slot[j - 1];
            s->slot[j] = k;
        }
    } else {
        qsort(s->slot, n, sizeof(int64_t), compare_keys);
    }
    return n;
}

/* x >> 31 rounding down (numpy's shift of an int64), also for negative x
   without relying on the compiler's shift of negative numbers. */
static int64_t shift31_floor(int64_t x)
{
    return x >= 0 ? x >> 31 : -((-(x + 1)) >> 31) - 1;
}

/* A pair of regions' code as island.py's numpy version forms it:
   (int64(min) << 31) | max, both as int64 (so a negative max sets every high bit). */
static int64_t pair_code(int32_t u, int32_t v)
{
    int64_t a = u < v ? u : v, b = u < v ? v : u;
    return (int64_t)((uint64_t)a << 31) | b;
}

/* An int32 (H, W) grid in C order (1 ok, 0 declined). */
static int int32_grid_in(PyObject *obj, Py_buffer *view)
{
    return accel_array(obj, view, (AccelArray)ACCEL_INT32_IN, NULL);
}

/* A tuple of the set's keys, ascending, as Python ints; NULL on error. */
static PyObject *sorted_ints(KeySet *s)
{
    size_t n = keyset_sorted(s);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(s->slot[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
    }
    return t;
}

PyDoc_STRVAR(region_tables_doc,
"region_tables(regions, mountain, sea, land, bounds) -> tuple | False\n\n"
"The island's region-derived masks in one pass: fills `sea`, `land` and `bounds`\n"
"(bool, C order, regions' shape: Island.sea, .land, .all_boundaries) and returns\n"
"(region_count, land_regions, mountain_regions, adjacent_pairs) as Island's numpy\n"
"code gives them. `regions`: int32 in C order. False (outputs undefined) when declined.");

static PyObject *region_tables(PyObject *self, PyObject *args)
{
    PyObject *regions_obj, *mountain_obj, *sea_obj, *land_obj, *bounds_obj;
    if (!PyArg_ParseTuple(args, "OOOOO", &regions_obj, &mountain_obj, &sea_obj, &land_obj, &bounds_obj))
        return NULL;
    Py_buffer rv, sv, lv, bv;
    Grid mg;
    AccelHeld held = {0};
    KeySet lands = {0}, mountains = {0}, pairs = {0};
    uint8_t *mrow = NULL;
    PyObject *result = Py_False, *land_t = NULL, *mountain_t = NULL, *pair_t = NULL;
    ACCEL_TAKE(accel_hold(&held, &rv, int32_grid_in(regions_obj, &rv)));
    Py_ssize_t h = rv.shape[0], w = rv.shape[1];
    ACCEL_TAKE(accel_hold(&held, &mg.view, grid_in(mountain_obj, &mg)));
    if (mg.h != h || mg.w != w || too_big(h, w))
        goto done;
    ACCEL_TAKE(accel_hold(&held, &sv, grid_out(sea_obj, &sv, h, w, '?', 1)));
    ACCEL_TAKE(accel_hold(&held, &lv, grid_out(land_obj, &lv, h, w, '?', 1)));
    ACCEL_TAKE(accel_hold(&held, &bv, grid_out(bounds_obj, &bv, h, w, '?', 1)));
    const int32_t *reg = rv.buf;
    uint8_t *sea = sv.buf, *land = lv.buf, *bounds = bv.buf;
    mrow = malloc(w ? w : 1);
    if (!mrow || keyset_init(&lands, 64) < 0 || keyset_init(&mountains, 64) < 0 || keyset_init(&pairs, 64) < 0)
        goto no_memory;
    /* Consecutive tiles mostly repeat the last value or pair seen: those skip the set. */
    int64_t last_land = KEY_NONE, last_mountain = KEY_NONE, last_across = KEY_NONE, last_down = KEY_NONE;
    int32_t top = INT32_MIN;
    for (Py_ssize_t r = 0; r < h; r++) {
        const int32_t *row = reg + r * w, *up = r ? row - w : NULL, *down = r + 1 < h ? row + w : NULL;
        read_row(&mg, r, mrow);
        for (Py_ssize_t c = 0; c < w; c++) {
            int32_t v = row[c];
            Py_ssize_t i = r * w + c;
            if (v > top)
                top = v;
            sea[i] = v == 0;
            land[i] = v != 0;
            if (v == 0) {
                bounds[i] = 0;
                continue;
            }
            if (v != last_land) {
                last_land = v;
                if (keyset_add(&lands, v) < 0)
                    goto no_memory;
            }
            if (mrow[c] && v != last_mountain) {
                last_mountain = v;
                if (keyset_add(&mountains, v) < 0)
                    goto no_memory;
            }
            /* A tile is on a boundary when a 4-neighbour is land of another region;
               each touching pair is counted from its left or upper tile. */
            int32_t left = c ? row[c - 1] : 0, right = c + 1 < w ? row[c + 1] : 0;
            int32_t above = up ? up[c] : 0, below = down ? down[c] : 0;
            bounds[i] = (left && left != v) | (right && right != v) | (above && above != v)
                        | (below && below != v);
            if (right && right != v) {
                int64_t code = pair_code(v, right);
                if (code != last_across) {
                    last_across = code;
                    if (keyset_add(&pairs, code) < 0)
                        goto no_memory;
                }
            }
            if (below && below != v) {
                int64_t code = pair_code(v, below);
                if (code != last_down) {
                    last_down = code;
                    if (keyset_add(&pairs, code) < 0)
                        goto no_memory;
                }
            }
        }
    }
    long long count = h && w ? (long long)top + 1 : 1;
    /* With no mountain on land and R below 0, numpy's table of R entries raises: let it. */
    if (mountains.n == 0 && count < 0)
        goto done;
    if (!(land_t = sorted_ints(&lands)) || !(mountain_t = sorted_ints(&mountains)))
        goto error;
    size_t n = keyset_sorted(&pairs);
    if (!(pair_t = PyTuple_New((Py_ssize_t)n)))
        goto error;
    for (size_t k = 0; k < n; k++) {
        int64_t code = pairs.slot[k];
        /* (Py_BuildValue parses its format for every pair: several times the cost of this.) */
        PyObject *pair = PyTuple_New(2);
        if (!pair)
            goto error;
        PyTuple_SET_ITEM(pair_t, (Py_ssize_t)k, pair);
        PyObject *a = PyLong_FromLongLong(shift31_floor(code));
        if (!a)
            goto error;
        PyTuple_SET_ITEM(pair, 0, a);
        PyObject *b = PyLong_FromLongLong(code & (((int64_t)1 << 31) - 1));
        if (!b)
            goto error;
        PyTuple_SET_ITEM(pair, 1, b);
    }
    result = Py_BuildValue("(LOOO)", count, land_t, mountain_t, pair_t);
    goto done;
no_memory:
    PyErr_NoMemory();
error:
    result = NULL;
done:
    Py_XDECREF(land_t);
    Py_XDECREF(mountain_t);
    Py_XDECREF(pair_t);
    free(lands.slot);
    free(mountains.slot);
    free(pairs.slot);
    free(mrow);
    accel_release(&held);
    return result == Py_False ? Py_NewRef(Py_False) : result;
}

PyDoc_STRVAR(positions_doc,
"positions(mask) -> tuple | False\n\n"
"The (row, col) of every set tile of a 2-D grid, in row-major order (Island.prisons);\n"
"False when declined.");

static PyObject *positions(PyObject *self, PyObject *mask_obj)
{
    Grid g;
    int got = grid_in(mask_obj, &g);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    PyObject *list = PyList_New(0), *result = NULL;
    if (!list)
        goto done;
    for (Py_ssize_t r = 0; r < g.h; r++) {
        const char *p = g.buf + r * g.s0;
        for (Py_ssize_t c = first_set(&g, p, 0, g.w); c < g.w; c = first_set(&g, p, c + 1, g.w)) {
            PyObject *pos = Py_BuildValue("(nn)", r, c);
            if (!pos || PyList_Append(list, pos) < 0) {
                Py_XDECREF(pos);
                goto done;
            }
            Py_DECREF(pos);
        }
    }
    result = PyList_AsTuple(list);
done:
    Py_XDECREF(list);
    PyBuffer_Release(&g.view);
    return result;
}

PyDoc_STRVAR(piece_reach_doc,
"piece_reach(pieces, prison, out) -> 1 | 2 | False\n\n"
"Island.prison_reach from the walk pieces (int32 labels, none below 0) and the\n"
"prison mask: 1 when the prisons hold every piece and no prison is off them (the\n"
"reach is the walkable mask); 2 when `out` (bool, C order) holds the reach, the\n"
"tiles whose label a prison holds; False when declined.");

static PyObject *piece_reach(PyObject *self, PyObject *args)
{
    PyObject *pieces_obj, *prison_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOO", &pieces_obj, &prison_obj, &out_obj))
        return NULL;
    Grid pg, mg;
    Py_buffer ov;
    AccelHeld held = {0};
    uint8_t *seen = NULL, *mrow = NULL;
    PyObject *result = Py_False;
    ACCEL_TAKE(accel_hold(&held, &pg.view, grid_in(pieces_obj, &pg)));
    Py_ssize_t h = pg.h, w = pg.w;
    if (!accel_is_int32(&pg.view) || too_big(h, w))
        goto done;
    ACCEL_TAKE(accel_hold(&held, &mg.view, grid_in(prison_obj, &mg)));
    if (mg.h != h || mg.w != w)
        goto done;
    /* The labels' range: a table of that many entries (none below 0, or declined). */
    int32_t top = 0;
    for (Py_ssize_t r = 0; r < h; r++) {
        const char *p = pg.buf + r * pg.s0;
        for (Py_ssize_t c = 0; c < w; c++) {
            int32_t v;
            memcpy(&v, p + c * pg.s1, 4);
            if (v < 0)
                goto done;
            if (v > top)
                top = v;
        }
    }
    seen = calloc((size_t)top + 1, 1);
    mrow = malloc(w ? w : 1);
    ACCEL_NO_MEMORY_IF(!seen || !mrow);
    for (Py_ssize_t r = 0; r < h; r++) {
        const char *p = pg.buf + r * pg.s0;
        read_row(&mg, r, mrow);
        for (Py_ssize_t c = 0; c < w; c++) {
            if (mrow[c]) {
                int32_t v;
                memcpy(&v, p + c * pg.s1, 4);
                seen[v] = 1;
            }
        }
    }
    int every = !seen[0];
    for (int32_t k = 1; every && k <= top; k++)
        every = seen[k];
    if (every) {
        result = PyLong_FromLong(1);
        goto done;
    }
    ACCEL_TAKE(accel_hold(&held, &ov, grid_out(out_obj, &ov, h, w, '?', 1)));
    uint8_t *out = ov.buf;
    for (Py_ssize_t r = 0; r < h; r++) {
        const char *p = pg.buf + r * pg.s0;
        for (Py_ssize_t c = 0; c < w; c++) {
            int32_t v;
            memcpy(&v, p + c * pg.s1, 4);
            out[r * w + c] = seen[v];
        }
    }
    result = PyLong_FromLong(2);
done:
    free(seen);
    free(mrow);
    accel_release(&held);
    return result == Py_False ? Py_NewRef(Py_False) : result;
}

/* ---- descendants in the shortest-path DAG -------------------------------- */

PyDoc_STRVAR(dag_descendants_doc,
"dag_descendants(distance, row, col, out) -> bool\n\n"
"grid.dag_descendants into `out` (bool, C order, distance's shape): the tiles\n"
"reached from (row, col) by steps to a 4-neighbour one farther in `distance`\n"
"(int32, C order), the start included. A queue over the tiles found only.\n"
"False (out undefined) when declined.");

static PyObject *dag_descendants(PyObject *self, PyObject *args)
{
    PyObject *dist_obj, *out_obj;
    Py_ssize_t r0, c0;
    if (!PyArg_ParseTuple(args, "OnnO", &dist_obj, &r0, &c0, &out_obj))
        return NULL;
    Py_buffer dv, ov;
    AccelHeld held = {0};
    PyObject *result = Py_False;
    int32_t *queue = NULL;
    ACCEL_TAKE(accel_hold(&held, &dv, int32_grid_in(dist_obj, &dv)));
    Py_ssize_t h = dv.shape[0], w = dv.shape[1];
    if (too_big(h, w) || r0 < 0 || r0 >= h || c0 < 0 || c0 >= w)
        goto done;
    ACCEL_TAKE(accel_hold(&held, &ov, grid_out(out_obj, &ov, h, w, '?', 1)));
    const int32_t *dist = dv.buf;
    uint8_t *seen = ov.buf;
    Py_ssize_t n = h * w;
    queue = malloc((size_t)(n ? n : 1) * sizeof(int32_t));  /* pages mapped on use */
    ACCEL_NO_MEMORY_IF(!queue);
    memset(seen, 0, (size_t)n);
    Py_ssize_t head = 0, tail = 0;
    int32_t start = (int32_t)(r0 * w + c0);
    seen[start] = 1;
    queue[tail++] = start;
    while (head < tail) {
        int32_t u = queue[head++];
        int32_t next = dist[u] + 1;
        Py_ssize_t r = u / w, c = u % w;
        /* N, E, S, W: the order does not change the set */
        if (r > 0 && !seen[u - w] && dist[u - w] == next) { seen[u - w] = 1; queue[tail++] = (int32_t)(u - w); }
        if (c + 1 < w && !seen[u + 1] && dist[u + 1] == next) { seen[u + 1] = 1; queue[tail++] = u + 1; }
        if (r + 1 < h && !seen[u + w] && dist[u + w] == next) { seen[u + w] = 1; queue[tail++] = (int32_t)(u + w); }
        if (c > 0 && !seen[u - 1] && dist[u - 1] == next) { seen[u - 1] = 1; queue[tail++] = u - 1; }
    }
    result = Py_True;
done:
    free(queue);
    accel_release(&held);
    return Py_XNewRef(result);
}

/* Whether cell (r, c) of g is set (non-zero), for one cell of any kind grid_in takes. */
static int cell_set(const Grid *g, Py_ssize_t r, Py_ssize_t c)
{
    const char *p = g->buf + r * g->s0 + c * g->s1;
    switch (g->kind) {
    case K_U8: return *p != 0;
    case K_U16: { uint16_t v; memcpy(&v, p, 2); return v != 0; }
    case K_U32: { uint32_t v; memcpy(&v, p, 4); return v != 0; }
    case K_U64: { uint64_t v; memcpy(&v, p, 8); return v != 0; }
    case K_F32: { float v; memcpy(&v, p, 4); return v != 0.0f; }
    case K_F64: { double v; memcpy(&v, p, 8); return v != 0.0; }
    }
    return 0;
}

static const char legal_moves_doc[] =
    "legal_moves(table, walkable, (row, col)) -> [(move, (row, col)), ...], as actions.legal_moves\n"
    "with its table of moves (_MOVE_TABLE: (dr, dc, [the moves of 1..4 steps]) per direction);\n"
    "False (declined) for an input it does not read.";

static PyObject *legal_moves(PyObject *self, PyObject *args)
{
    PyObject *table, *walk_obj, *pos;
    if (!PyArg_ParseTuple(args, "O!OO", &PyList_Type, &table, &walk_obj, &pos))
        return NULL;
    if (!PyTuple_Check(pos) || PyTuple_GET_SIZE(pos) != 2)
        Py_RETURN_FALSE;
    Py_ssize_t r0 = PyNumber_AsSsize_t(PyTuple_GET_ITEM(pos, 0), PyExc_OverflowError);
    Py_ssize_t c0 = PyNumber_AsSsize_t(PyTuple_GET_ITEM(pos, 1), PyExc_OverflowError);
    if ((r0 == -1 || c0 == -1) && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    Grid walk;
    if (!grid_in(walk_obj, &walk))
        Py_RETURN_FALSE;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        goto fail;
    for (Py_ssize_t d = 0; d < PyList_GET_SIZE(table); d++) {
        PyObject *entry = PyList_GET_ITEM(table, d);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3 || !PyList_Check(PyTuple_GET_ITEM(entry, 2))) {
            PyErr_SetString(PyExc_TypeError, "a table entry must be (dr, dc, [moves])");
            goto fail;
        }
        Py_ssize_t dr = PyNumber_AsSsize_t(PyTuple_GET_ITEM(entry, 0), PyExc_OverflowError);
        Py_ssize_t dc = PyNumber_AsSsize_t(PyTuple_GET_ITEM(entry, 1), PyExc_OverflowError);
        if ((dr == -1 || dc == -1) && PyErr_Occurred())
            goto fail;
        PyObject *moves = PyTuple_GET_ITEM(entry, 2);
        Py_ssize_t r = r0, c = c0;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(moves); k++) {
            r += dr;
            c += dc;
            if (!(0 <= r && r < walk.h && 0 <= c && c < walk.w && cell_set(&walk, r, c)))
                break;
            PyObject *item = Py_BuildValue("(O(nn))", PyList_GET_ITEM(moves, k), r, c);
            if (item == NULL || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                goto fail;
            }
            Py_DECREF(item);
        }
    }
    PyBuffer_Release(&walk.view);
    return out;
fail:
    Py_XDECREF(out);
    PyBuffer_Release(&walk.view);
    return NULL;
}

/* ---- a forward walk through the shortest-path DAG ------------------------ */

/* The arguments of grid.DagWalk's functions, held: `distance` (int32, C order) and the walk's
   state, `alive` (bool) the descendants of its root and `parents` (uint8) for each of them its
   DAG parents that are alive, both of distance's shape. 1 got, 0 declined. */
static int walk_state(PyObject *dist_obj, PyObject *alive_obj, PyObject *parents_obj, Py_buffer *dv,
                      Py_buffer *av, Py_buffer *pv, AccelHeld *held)
{
    if (accel_hold(held, dv, int32_grid_in(dist_obj, dv)) <= 0)
        return 0;
    Py_ssize_t h = dv->shape[0], w = dv->shape[1];
    return !too_big(h, w) && accel_hold(held, av, grid_out(alive_obj, av, h, w, '?', 1)) > 0
           && accel_hold(held, pv, grid_out(parents_obj, pv, h, w, 'B', 1)) > 0;
}

PyDoc_STRVAR(dag_walk_start_doc,
"dag_walk_start(distance, alive, parents) -> bool\n\n"
"grid.DagWalk's state with the source of `distance` (int32, C order) as root:\n"
"`alive` (bool) the tiles at distance >= 0, `parents` (uint8) each one's\n"
"4-neighbours one step nearer the source. False when declined.");

static PyObject *dag_walk_start(PyObject *self, PyObject *args)
{
    PyObject *dist_obj, *alive_obj, *parents_obj;
    if (!PyArg_ParseTuple(args, "OOO", &dist_obj, &alive_obj, &parents_obj))
        return NULL;
    Py_buffer dv, av, pv;
    AccelHeld held = {0};
    PyObject *result = Py_False;
    if (!walk_state(dist_obj, alive_obj, parents_obj, &dv, &av, &pv, &held))
        goto done;
    Py_ssize_t h = dv.shape[0], w = dv.shape[1];
    const int32_t *dist = dv.buf;
    uint8_t *alive = av.buf, *parents = pv.buf;
    for (Py_ssize_t r = 0; r < h; r++) {
        for (Py_ssize_t c = 0; c < w; c++) {
            Py_ssize_t u = r * w + c;
            int32_t d = dist[u];
            alive[u] = d >= 0;
            uint8_t k = 0;
            if (d > 0) {  /* (the source has no parent; -1 marks unreachable tiles) */
                int32_t up = d - 1;
                k = (r > 0 && dist[u - w] == up) + (c + 1 < w && dist[u + 1] == up)
                    + (r + 1 < h && dist[u + w] == up) + (c > 0 && dist[u - 1] == up);
            }
            parents[u] = k;
        }
    }
    result = Py_True;
done:
    accel_release(&held);
    return Py_NewRef(result);
}

PyDoc_STRVAR(dag_walk_advance_doc,
"dag_walk_advance(distance, alive, parents, root, to) -> bool\n\n"
"Moves grid.DagWalk's root from `root` to `to`, an alive tile no nearer the\n"
"source: drops every alive tile nearer than `to` or as near, then every tile\n"
"left without an alive parent. The work follows the tiles dropped.\n"
"False (state unchanged) when declined.");

static PyObject *dag_walk_advance(PyObject *self, PyObject *args)
{
    PyObject *dist_obj, *alive_obj, *parents_obj;
    Py_ssize_t r0, c0, r1, c1;
    if (!PyArg_ParseTuple(args, "OOO(nn)(nn)", &dist_obj, &alive_obj, &parents_obj, &r0, &c0, &r1, &c1))
        return NULL;
    Py_buffer dv, av, pv;
    AccelHeld held = {0};
    PyObject *result = Py_False;
    int32_t *queue = NULL;
    if (!walk_state(dist_obj, alive_obj, parents_obj, &dv, &av, &pv, &held))
        goto done;
    Py_ssize_t h = dv.shape[0], w = dv.shape[1];
    if (r0 < 0 || r0 >= h || c0 < 0 || c0 >= w || r1 < 0 || r1 >= h || c1 < 0 || c1 >= w)
        goto done;
    const int32_t *dist = dv.buf;
    uint8_t *alive = av.buf, *parents = pv.buf;
    int32_t root = (int32_t)(r0 * w + c0), to = (int32_t)(r1 * w + c1);
    if (!alive[root] || !alive[to] || dist[to] < dist[root])
        goto done;
    result = Py_True;
    if (root == to)
        goto done;
    queue = malloc((size_t)(h * w) * sizeof(int32_t));  /* each tile is dropped once; pages mapped on use */
    ACCEL_NO_MEMORY_IF(!queue);
    /* Every alive tile descends from the root, through alive tiles: so a search from
       the root over alive children meets all those up to `to`'s layer, and each
       tile dropped takes its children's count of alive parents down with it. */
    int32_t limit = dist[to];
    Py_ssize_t head = 0, tail = 0;
    alive[root] = 0;
    queue[tail++] = root;
    while (head < tail) {
        int32_t u = queue[head++];
        int32_t next = dist[u] + 1;
        Py_ssize_t r = u / w, c = u % w;
        int32_t nb[4];
        int k = 0;
        if (r > 0) nb[k++] = (int32_t)(u - w);
        if (c + 1 < w) nb[k++] = u + 1;
        if (r + 1 < h) nb[k++] = (int32_t)(u + w);
        if (c > 0) nb[k++] = u - 1;
        for (int j = 0; j < k; j++) {
            int32_t v = nb[j];
            if (!alive[v] || dist[v] != next)
                continue;
            parents[v]--;
            if (v != to && (next <= limit || parents[v] == 0)) {
                alive[v] = 0;
                queue[tail++] = v;
            }
        }
    }
done:
    free(queue);
    accel_release(&held);
    return Py_XNewRef(result);
}

/* ---- a mask's tiles as bits ------------------------------------------------ */

PyDoc_STRVAR(pack_bits_doc,
"pack_bits(mask) -> bytes | False\n\n"
"grid.pack_bits: a 2-D grid of bytes (bool, int8, uint8) as one bit a tile, row by row,\n"
"the first tile the top bit (numpy.packbits(mask, axis=None).tobytes()); False when declined.");

static PyObject *pack_bits(PyObject *self, PyObject *mask_obj)
{
    Grid g;
    int got = grid_in(mask_obj, &g);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    PyObject *result = Py_NewRef(Py_False);
    if (g.kind != K_U8 || too_big(g.h, g.w))
        goto done;
    Py_ssize_t n = g.h * g.w;
    Py_SETREF(result, PyBytes_FromStringAndSize(NULL, (n + 7) / 8));
    if (!result)
        goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(result);
    if (g.s1 == 1 && g.s0 == g.w) {  /* C order: one run of n bytes, 8 a time */
        const unsigned char *p = (const unsigned char *)g.buf;
        Py_ssize_t i = 0;
        for (; i + 8 <= n; i += 8, p += 8)
            *out++ = (unsigned char)((p[0] != 0) << 7 | (p[1] != 0) << 6 | (p[2] != 0) << 5 | (p[3] != 0) << 4
                                     | (p[4] != 0) << 3 | (p[5] != 0) << 2 | (p[6] != 0) << 1 | (p[7] != 0));
        if (i < n) {
            unsigned char byte = 0;
            for (int k = 0; i < n; i++, k++)
                byte |= (unsigned char)((*p++ != 0) << (7 - k));
            *out = byte;
        }
    } else {  /* any strides: tile by tile */
        unsigned char byte = 0;
        int k = 0;
        for (Py_ssize_t r = 0; r < g.h; r++) {
            const char *p = g.buf + r * g.s0;
            for (Py_ssize_t c = 0; c < g.w; c++) {
                byte |= (unsigned char)((p[c * g.s1] != 0) << (7 - k));
                if (++k == 8) {
                    *out++ = byte;
                    byte = 0;
                    k = 0;
                }
            }
        }
        if (k)
            *out = byte;
    }
done:
    PyBuffer_Release(&g.view);
    return result;
}

static PyMethodDef module_methods[] = {
    {"bfs", bfs, METH_VARARGS, bfs_doc},
    {"components", components, METH_VARARGS, components_doc},
    {"manhattan", manhattan, METH_VARARGS, manhattan_doc},
    {"neighbours", neighbours, METH_VARARGS, neighbours_doc},
    {"bounding_box", bounding_box, METH_O, bounding_box_doc},
    {"region_tables", region_tables, METH_VARARGS, region_tables_doc},
    {"positions", positions, METH_O, positions_doc},
    {"pack_bits", pack_bits, METH_O, pack_bits_doc},
    {"piece_reach", piece_reach, METH_VARARGS, piece_reach_doc},
    {"dag_descendants", dag_descendants, METH_VARARGS, dag_descendants_doc},
    {"dag_walk_start", dag_walk_start, METH_VARARGS, dag_walk_start_doc},
    {"dag_walk_advance", dag_walk_advance, METH_VARARGS, dag_walk_advance_doc},
    {"legal_moves", legal_moves, METH_VARARGS, legal_moves_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef grid_module = {
    PyModuleDef_HEAD_INIT,
    "_grid",
    "Compiled twins of treasure_cli.rules.grid's BFS, pieces, distances, neighbours and bounding box, "
    "and of the island's region tables, prisons and prison reach.",
    -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__grid(void)
{
    return PyModule_Create(&grid_module);
}
