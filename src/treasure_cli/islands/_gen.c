/*
 * treasure_cli.islands._gen: the island generator's random, loop-heavy steps in C.
 *
 * generator.py is the readable reference; with this module built it calls
 * these kernels for the noise of the land, the seeds and flood of the
 * regions, the mountain clusters, the trim, the treasure and the prisons.
 * Each kernel draws from the caller's numpy Generator itself: it takes the
 * bit generator's `capsule` (numpy's documented `bitgen_t`: the state and
 * its next_uint64 / next_uint32 / next_double functions), so every word
 * comes from numpy's own stream, the spare 32-bit half of a word included,
 * and the Generator goes on exactly where numpy's calls would have left it.
 * On those words the kernels run the algorithms of numpy's Generator
 * methods (numpy 1.17 to 2.x: _generator.pyx, distributions.c):
 *
 *   random()              next_double
 *   random(float32)       the top 24 bits of a 32-bit draw
 *   integers(0, n)        Lemire's bounded draw on 32-bit draws (ranges below 2**32)
 *   choice(n, k, False)   Floyd's sample then a Fisher-Yates shuffle with the same
 *                         bounded draw, or a shuffle of the tail of 0..n-1 when n > 10000
 *                         and k > n // 50
 *   permutation(n)        Fisher-Yates with random_interval (masked rejection)
 *
 * tests/islands/test_generator_compiled.py checks each against numpy and the
 * whole generator against the Python steps. Floats: only + - * / in the
 * order numpy evaluates them, in float32 where numpy works in float32; the
 * build turns off contraction into FMA (setup.py), which would round once
 * where numpy rounds twice.
 *
 * Optional: if this file does not compile, the install goes on and the
 * generator runs its numpy steps (the same islands, slower).
 */

#include "_accel.h"  /* first: it includes Python.h */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define M32 0xFFFFFFFFu

#if defined(__GNUC__) || defined(__clang__)
#define CTZ64(x) __builtin_ctzll(x)
#else
static inline int CTZ64(uint64_t x)  /* x != 0 */
{
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}
#endif

/* numpy/random/bitgen.h (the C API of numpy.random, stable since 1.17) */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

static bitgen_t *get_bitgen(PyObject *capsule)
{
    return (bitgen_t *)PyCapsule_GetPointer(capsule, "BitGenerator");
}

/* ---- numpy's draws ---- */

static inline uint32_t next32(bitgen_t *g)
{
    return g->next_uint32(g->state);
}

/* Lemire's bounded draw, Floyd's sample and Fisher-Yates, as rules/_draws.c makes them */
typedef bitgen_t DrawStream;
static inline uint32_t stream_next32(DrawStream *s)
{
    return next32(s);
}
#include "_numpy_draws.h"

/* random(dtype=float32): next_float */
static inline float unit_f32(bitgen_t *g)
{
    return (float)(next32(g) >> 8) * (1.0f / 16777216.0f);
}

/* random_interval(max): the smallest all-ones mask over max, redrawn until at most max */
static inline uint64_t interval(bitgen_t *g, uint64_t max)
{
    if (max == 0)
        return 0;
    uint64_t mask = max, value;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    if (max <= M32) {
        while ((value = (next32(g) & mask)) > max)
            ;
    } else {
        while ((value = (g->next_uint64(g->state) & mask)) > max)
            ;
    }
    return value;
}

/* choice(pop, size, replace=False): `size` distinct indices of range(pop), in numpy's order.
   pop < 2**31. Returns -1 (no exception set) when out of memory. */
static int sample(bitgen_t *g, int64_t pop, int64_t size, int64_t *out)
{
    if (pop <= 10000 || size <= pop / 50)
        return draws_floyd(g, pop, size, out) == 0 ? 0 : -1;
    /* numpy shuffles the tail of 0..pop-1 (all of it but the first when size == pop) */
    int64_t *idx = malloc((size_t)pop * sizeof(int64_t));
    if (idx == NULL)
        return -1;
    for (int64_t i = 0; i < pop; i++)
        idx[i] = i;
    draws_shuffle(g, idx, pop - 1, pop - size > 1 ? pop - size : 1);
    memcpy(out, idx + (pop - size), (size_t)size * sizeof(int64_t));
    free(idx);
    return 0;
}

/* ---- buffers ---- */

/* A C-contiguous buffer of `n` items (any number if n < 0) of `itemsize` bytes whose format is one of
   `formats` (the shared checks of _accel.h, then the length); -1 with an error set if it is not. */
static int get_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t n, Py_ssize_t itemsize, const char *formats,
                      int writable, const char *what)
{
    const char *name = formats[0] == 'd' ? "float64" : formats[0] == 'f' ? "float32"
                       : itemsize == 1 ? "bool" : itemsize == 4 ? "int32" : "int64";
    AccelArray want = {formats, itemsize, -1, 1, writable, name};
    if (accel_array(obj, view, want, what) < 0)
        return -1;
    if (n >= 0 && view->len != n * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items, got %zd", what, n, view->len / itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

#define BOOL_FORMATS "?bB"
#define INT32_FORMATS "il"
#define INT64_FORMATS "lq"

static int check_grid(Py_ssize_t width, Py_ssize_t height)
{
    if (width < 3 || height < 3 || width > (1 << 15) || height > (1 << 15)) {
        PyErr_Format(PyExc_ValueError, "grid %zd x %zd is out of range", width, height);
        return -1;
    }
    return 0;
}

/* ---- a growable int32 list ---- */

typedef struct {
    int32_t *data;
    Py_ssize_t len, cap;
} Ints;

static int ints_reserve(Ints *v, Py_ssize_t need)
{
    if (need <= v->cap)
        return 0;
    Py_ssize_t cap = v->cap ? v->cap : 64;
    while (cap < need)
        cap *= 2;
    int32_t *data = realloc(v->data, (size_t)cap * sizeof(int32_t));
    if (data == NULL)
        return -1;
    v->data = data;
    v->cap = cap;
    return 0;
}

/* Distinct values >= 0 in ascending order: insertion sort when short, else LSD radix sort on
   bytes (only as many passes as the largest value needs). */
static int sort_distinct(int32_t *a, Py_ssize_t n, Ints *scratch)
{
    if (n <= 16) {
        for (Py_ssize_t i = 1; i < n; i++) {
            int32_t v = a[i];
            Py_ssize_t j = i;
            while (j > 0 && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return 0;
    }
    if (ints_reserve(scratch, n) < 0)
        return -1;
    uint32_t top = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        top |= (uint32_t)a[i];
    int32_t *src = a, *dst = scratch->data;
    for (int shift = 0; shift < 32 && (shift == 0 || (top >> shift) != 0); shift += 8) {
        Py_ssize_t count[257] = {0};
        for (Py_ssize_t i = 0; i < n; i++)
            count[(((uint32_t)src[i] >> shift) & 0xFF) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (Py_ssize_t i = 0; i < n; i++)
            dst[count[((uint32_t)src[i] >> shift) & 0xFF]++] = src[i];
        int32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof(int32_t));
    return 0;
}

/* ---- 1. land: value noise, falloff, threshold ---- */

/* A float's bits as an unsigned key in the floats' order (-0.0 just below +0.0), and back. */
static inline uint32_t float_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static inline float key_float(uint32_t key)
{
    uint32_t u = (key & 0x80000000u) ? (key ^ 0x80000000u) : ~key;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The k-th smallest of the floats whose keys are keys[0..n) (keys is overwritten): radix selection,
   a byte of the key at a time, without data-dependent branches (np.partition's value; a -0.0 for a
   +0.0 or back would not change any `>=` against it). */
static float select_kth(uint32_t *keys, Py_ssize_t n, Py_ssize_t k)
{
    for (int shift = 24; shift >= 0; shift -= 8) {
        Py_ssize_t count[256] = {0};
        for (Py_ssize_t i = 0; i < n; i++)
            count[(keys[i] >> shift) & 0xFF]++;
        uint32_t digit = 0;
        while (k >= count[digit])
            k -= count[digit++];
        Py_ssize_t kept = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            uint32_t v = keys[i];
            keys[kept] = v;
            kept += ((v >> shift) & 0xFF) == digit;
        }
        n = kept;
    }
    return key_float(keys[0]);
}

/* One axis of _value_noise: the lattice cell of each coordinate and its smoothstep weight.
   numpy: y = arange(float32) / float32(cell); y0 = y.astype(int64); t = y - y0 (float64). */
static void noise_axis(Py_ssize_t n, float cell, Py_ssize_t *cell_of, double *t)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        float y = (float)i / cell;
        int64_t y0 = (int64_t)y;
        double ty = (double)y - (double)y0;
        double sq = ty * ty;
        double rest = 3.0 - 2.0 * ty;
        cell_of[i] = (Py_ssize_t)y0;
        t[i] = sq * rest;
    }
}

/* raw_land(capsule, land_out, width, height, k) -> land tiles: generator._raw_land into a bool
   (H*W) buffer; k is the rank of the threshold among the inner tiles' values. */
static PyObject *gen_raw_land(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule, *land_obj;
    Py_ssize_t width, height, k;
    if (!PyArg_ParseTuple(args, "OOnnn:raw_land", &capsule, &land_obj, &width, &height, &k))
        return NULL;
    if (check_grid(width, height) < 0)
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    Py_ssize_t iw = width - 2, ih = height - 2, inner = iw * ih;
    if (k < 0 || k >= inner) {
        PyErr_SetString(PyExc_ValueError, "raw_land: rank out of range");
        return NULL;
    }
    Py_buffer land;
    if (get_buffer(land_obj, &land, width * height, 1, BOOL_FORMATS, 1, "raw_land") < 0)
        return NULL;
    PyObject *result = NULL;
    float *field = calloc((size_t)inner, sizeof(float));
    float *lattice = NULL;
    uint32_t *keys = NULL;
    Py_ssize_t *x0 = malloc((size_t)width * sizeof(Py_ssize_t));
    Py_ssize_t *y0 = malloc((size_t)height * sizeof(Py_ssize_t));
    double *tx = malloc((size_t)width * sizeof(double));
    double *ty = malloc((size_t)height * sizeof(double));
    double *along = NULL;
    if (field == NULL || x0 == NULL || y0 == NULL || tx == NULL || ty == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t side = width < height ? width : height;
    double cell = (double)side / 4.0;
    if (!(cell > 2.0))
        cell = 2.0;
    float weight = 1.0f;
    while (cell >= 2.0) {
        /* _value_noise: a (gh, gw) float32 lattice, interpolated along x per lattice row, then along y */
        Py_ssize_t gh = (Py_ssize_t)((double)height / cell) + 2, gw = (Py_ssize_t)((double)width / cell) + 2;
        free(lattice);
        free(along);
        lattice = malloc((size_t)(gh * gw) * sizeof(float));
        along = malloc((size_t)(gh * iw) * sizeof(double));
        if (lattice == NULL || along == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < gh * gw; i++)
            lattice[i] = unit_f32(g);
        float fcell = (float)cell;
        noise_axis(width, fcell, x0, tx);
        noise_axis(height, fcell, y0, ty);
        /* only the inner columns and rows: the border is sea whatever the field says */
        for (Py_ssize_t r = 0; r < gh; r++) {
            const float *row = lattice + r * gw;
            double *out = along + r * iw;
            for (Py_ssize_t c = 1; c <= iw; c++) {
                double left = (double)row[x0[c]] * (1.0 - tx[c]);
                double right = (double)row[x0[c] + 1] * tx[c];
                out[c - 1] = left + right;
            }
        }
        double w = (double)weight;
        for (Py_ssize_t r = 1; r <= ih; r++) {
            const double *above = along + y0[r] * iw, *below = along + (y0[r] + 1) * iw;
            double up = 1.0 - ty[r], down = ty[r];
            float *f = field + (r - 1) * iw;
            for (Py_ssize_t c = 0; c < iw; c++) {
                double v = above[c] * up;
                double b = below[c] * down;
                v = v + b;
                v = v * w;
                f[c] = (float)((double)f[c] + v);
            }
        }
        cell = cell / 2.0;
        weight = weight * 0.5f;
    }
    /* falloff towards the edge, in float32 */
    {
        float hh = (float)((double)(height - 1) / 2.0), hd = (float)((double)height / 2.0);
        float wh = (float)((double)(width - 1) / 2.0), wd = (float)((double)width / 2.0);
        float scale = (float)1.2;
        float *rx2 = malloc((size_t)iw * sizeof(float));
        if (rx2 == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t c = 0; c < iw; c++) {
            float rx = ((float)(c + 1) - wh) / wd;
            rx2[c] = rx * rx;
        }
        for (Py_ssize_t r = 0; r < ih; r++) {
            float ry = ((float)(r + 1) - hh) / hd;
            float ry2 = ry * ry;
            float *f = field + r * iw;
            for (Py_ssize_t c = 0; c < iw; c++) {
                float sum = ry2 + rx2[c];
                float drop = scale * sum;
                f[c] = f[c] - drop;
            }
        }
        free(rx2);
    }
    keys = malloc((size_t)inner * sizeof(uint32_t));
    if (keys == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < inner; i++)
        keys[i] = float_key(field[i]);
    float threshold = select_kth(keys, inner, k);
    unsigned char *out = land.buf;
    memset(out, 0, (size_t)(width * height));
    Py_ssize_t count = 0;
    for (Py_ssize_t r = 0; r < ih; r++) {
        const float *f = field + r * iw;
        unsigned char *o = out + (r + 1) * width + 1;
        for (Py_ssize_t c = 0; c < iw; c++) {
            o[c] = f[c] >= threshold;
            count += o[c];
        }
    }
    result = PyLong_FromSsize_t(count);
done:
    free(field);
    free(lattice);
    free(keys);
    free(along);
    free(x0);
    free(y0);
    free(tx);
    free(ty);
    PyBuffer_Release(&land);
    return result;
}

/* top(labels) -> the largest of an int32 buffer's values (0 if empty) */
static PyObject *gen_top(PyObject *Py_UNUSED(module), PyObject *obj)
{
    Py_buffer view;
    if (get_buffer(obj, &view, -1, 4, INT32_FORMATS, 0, "top") < 0)
        return NULL;
    const int32_t *v = view.buf;
    Py_ssize_t n = view.len / 4;
    int32_t top = n ? v[0] : 0;
    for (Py_ssize_t i = 1; i < n; i++)
        top = v[i] > top ? v[i] : top;
    PyBuffer_Release(&view);
    return PyLong_FromLong(top);
}

/* below(capsule, top) -> rng.integers(0, top + 1) for 0 <= top < 2**32 */
static PyObject *gen_below(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule;
    long long top;
    if (!PyArg_ParseTuple(args, "OL:below", &capsule, &top))
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    if (top < 0 || top > (long long)M32) {
        PyErr_SetString(PyExc_ValueError, "below: top out of range");
        return NULL;
    }
    return PyLong_FromUnsignedLong(draws_bounded(g, (uint32_t)top));
}

/* ---- 2. regions ---- */

/* _spread_seeds: best-candidate sampling of `count` distinct land tiles into seeds. */
static int spread_seeds(bitgen_t *g, const int32_t *land_idx, Py_ssize_t n_land, Py_ssize_t width,
                        Py_ssize_t count, unsigned char *taken, int32_t *seeds)
{
    if (count > 1000) {  /* rng.choice(land_idx, size=count, replace=False) */
        int64_t *pick = malloc((size_t)count * sizeof(int64_t));
        if (pick == NULL)
            return -1;
        if (sample(g, n_land, count, pick) < 0) {
            free(pick);
            return -1;
        }
        for (Py_ssize_t k = 0; k < count; k++)
            seeds[k] = land_idx[pick[k]];
        free(pick);
        return 0;
    }
    /* tries = rng.choice(land_idx, size=(count, 8)) */
    int32_t *tries = malloc((size_t)count * 8 * sizeof(int32_t));
    if (tries == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < count * 8; i++)
        tries[i] = land_idx[draws_bounded(g, (uint32_t)(n_land - 1))];
    seeds[0] = tries[0];
    taken[tries[0]] = 1;
    for (Py_ssize_t k = 1; k < count; k++) {
        /* the try farthest (Manhattan) from every seed so far, ties to the first try, skipping seeds */
        const int32_t *cand = tries + 8 * k;
        int64_t gap[8];
        int used[8] = {0};
        for (int j = 0; j < 8; j++) {
            int64_t r = cand[j] / width, c = cand[j] % width, best = INT64_MAX;
            for (Py_ssize_t s = 0; s < k; s++) {
                int64_t dr = r - seeds[s] / width, dc = c - seeds[s] % width;
                int64_t d = (dr < 0 ? -dr : dr) + (dc < 0 ? -dc : dc);
                if (d < best)
                    best = d;
            }
            gap[j] = best;
        }
        int32_t seed = -1;
        for (int round = 0; round < 8 && seed < 0; round++) {
            int best = -1;
            for (int j = 0; j < 8; j++)
                if (!used[j] && (best < 0 || gap[j] > gap[best]))
                    best = j;
            used[best] = 1;
            if (!taken[cand[best]])
                seed = cand[best];
        }
        if (seed < 0) {  /* every try was already a seed: free[rng.integers(free.size)] */
            Py_ssize_t free_n = n_land - k;
            Py_ssize_t at = draws_bounded(g, (uint32_t)(free_n - 1));
            for (Py_ssize_t i = 0; i < n_land; i++) {
                if (!taken[land_idx[i]] && at-- == 0) {
                    seed = land_idx[i];
                    break;
                }
            }
        }
        seeds[k] = seed;
        taken[seed] = 1;
    }
    free(tries);
    return 0;
}

/* A claim on a tile during one round of the flood: the tile and the region reaching it. */
typedef struct {
    int32_t tile, region;
} Claim;

/* Moves the tiles marked in `marks` (bits over tiles lo..hi) to out[] in ascending order, clearing them. */
static Py_ssize_t take_marked(uint64_t *marks, Py_ssize_t lo, Py_ssize_t hi, int32_t *out)
{
    Py_ssize_t k = 0;
    for (Py_ssize_t w = lo >> 6; w <= hi >> 6; w++) {
        uint64_t bits = marks[w];
        marks[w] = 0;
        while (bits) {
            out[k++] = (int32_t)((w << 6) + CTZ64(bits));
            bits &= bits - 1;
        }
    }
    return k;
}

/* grow_regions(capsule, land, width, count, labels_out) -> bool: generator._grow_regions into an
   int32 (H*W) buffer; False where the Python step raises _Retry. */
static PyObject *gen_grow_regions(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule, *land_obj, *labels_obj;
    Py_ssize_t width, count;
    if (!PyArg_ParseTuple(args, "OOnnO:grow_regions", &capsule, &land_obj, &width, &count, &labels_obj))
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    Py_buffer land_view, labels_view;
    if (get_buffer(land_obj, &land_view, -1, 1, BOOL_FORMATS, 0, "grow_regions land") < 0)
        return NULL;
    Py_ssize_t n = land_view.len;
    if (get_buffer(labels_obj, &labels_view, n, 4, INT32_FORMATS, 1, "grow_regions labels") < 0) {
        PyBuffer_Release(&land_view);
        return NULL;
    }
    PyObject *result = NULL;
    const unsigned char *land = land_view.buf;
    int32_t *labels = labels_view.buf;
    int32_t *land_idx = NULL, *seeds = NULL;
    unsigned char *taken = NULL;
    uint64_t *marks = NULL;
    Claim *claims = NULL;
    Py_ssize_t claims_cap = 0;
    Ints active = {0}, next = {0}, alive = {0}, won = {0}, scratch = {0};
    if (width < 3 || n % width != 0 || n / width < 3 || n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "grow_regions: bad grid");
        goto done;
    }
    Py_ssize_t n_land = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        n_land += land[i] != 0;
    if (count < 1 || count > n_land) {
        PyErr_SetString(PyExc_ValueError, "grow_regions: count out of range");
        goto done;
    }
    land_idx = malloc((size_t)n_land * sizeof(int32_t));
    seeds = malloc((size_t)count * sizeof(int32_t));
    taken = calloc((size_t)n, 1);
    marks = calloc((size_t)(n >> 6) + 1, sizeof(uint64_t));
    if (land_idx == NULL || seeds == NULL || taken == NULL || marks == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0, j = 0; i < n; i++)
        if (land[i])
            land_idx[j++] = (int32_t)i;
    if (spread_seeds(g, land_idx, n_land, width, count, taken, seeds) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    free(land_idx);
    land_idx = NULL;
    free(taken);
    taken = NULL;
    /* While growing, sea is -1 and unclaimed land 0: one test for "open" */
    for (Py_ssize_t i = 0; i < n; i++)
        labels[i] = land[i] ? 0 : -1;
    if (ints_reserve(&active, count) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        labels[seeds[k]] = (int32_t)(k + 1);
        active.data[k] = seeds[k];
    }
    active.len = count;
    const Py_ssize_t offsets[4] = {-width, 1, width, -1};  /* the border is sea: no wrap */
    while (active.len) {
        Py_ssize_t m = active.len;
        if (ints_reserve(&next, m) < 0 || ints_reserve(&alive, m) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        if (claims_cap < 4 * m) {
            free(claims);
            claims_cap = 4 * m;
            if ((claims = malloc((size_t)claims_cap * sizeof(Claim))) == NULL) {
                PyErr_NoMemory();
                goto done;
            }
        }
        /* grows = rng.random(active.size) < 0.6; the tiles that do not grow stay active first,
           then the growing ones with an open neighbour (alive), then the tiles won. The coin
           flips are random: branch-free appends, not mispredicted branches. */
        Py_ssize_t nc = 0, stay = 0, grow_n = 0;
        int32_t *growing = alive.data;
        for (Py_ssize_t i = 0; i < m; i++) {
            int32_t s = active.data[i];
            int grows = g->next_double(g->state) < 0.6;
            next.data[stay] = s;
            growing[grow_n] = s;
            stay += !grows;
            grow_n += grows;
        }
        next.len = stay;
        /* claims (target, region) in numpy's order: by source, then N E S W; alive kept in place */
        Py_ssize_t alive_n = 0;
        for (Py_ssize_t i = 0; i < grow_n; i++) {
            int32_t s = growing[i], region = labels[s];
            Py_ssize_t before = nc;
            for (int d = 0; d < 4; d++) {
                int32_t t = (int32_t)(s + offsets[d]);
                claims[nc].tile = t;
                claims[nc].region = region;
                nc += labels[t] == 0;
            }
            growing[alive_n] = s;
            alive_n += nc > before;
        }
        memcpy(next.data + next.len, growing, (size_t)alive_n * sizeof(int32_t));
        next.len += alive_n;
        /* order = rng.permutation(targets.size): the same swaps on the claims themselves */
        for (Py_ssize_t i = nc - 1; i > 0; i--) {
            Py_ssize_t j = (Py_ssize_t)interval(g, (uint64_t)i);
            Claim t = claims[i];
            claims[i] = claims[j];
            claims[j] = t;
        }
        /* the first claim on each tile in that order wins; the tiles won join in ascending order */
        if (ints_reserve(&won, nc) < 0 || ints_reserve(&next, next.len + nc) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        Py_ssize_t won_n = 0, lo = n, hi = -1;
        for (Py_ssize_t i = 0; i < nc; i++) {
            int32_t t = claims[i].tile;
            int open = labels[t] == 0;
            labels[t] = open ? claims[i].region : labels[t];
            won.data[won_n] = t;
            won_n += open;
            lo = open && t < lo ? t : lo;
            hi = open && t > hi ? t : hi;
        }
        if (won_n && ((hi >> 6) - (lo >> 6)) <= 8 * won_n) {  /* a bit per tile over their span */
            for (Py_ssize_t i = 0; i < won_n; i++)
                marks[won.data[i] >> 6] |= (uint64_t)1 << (won.data[i] & 63);
            take_marked(marks, lo, hi, next.data + next.len);
        } else {
            if (sort_distinct(won.data, won_n, &scratch) < 0) {
                PyErr_NoMemory();
                goto done;
            }
            memcpy(next.data + next.len, won.data, (size_t)won_n * sizeof(int32_t));
        }
        next.len += won_n;
        Ints t = active;
        active = next;
        next = t;
    }
    int complete = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (labels[i] < 0)
            labels[i] = 0;
        else if (labels[i] == 0)
            complete = 0;  /* land no region reached */
    }
    result = PyBool_FromLong(complete);
done:
    free(land_idx);
    free(seeds);
    free(taken);
    free(marks);
    free(claims);
    free(active.data);
    free(next.data);
    free(alive.data);
    free(won.data);
    free(scratch.data);
    PyBuffer_Release(&land_view);
    PyBuffer_Release(&labels_view);
    return result;
}

/* ---- 3. mountains ---- */

#define MAX_CLUSTER 5

/* add_clusters(capsule, land, mountain, width, need) -> number of mountain tiles after:
   generator._add_clusters on bool (H*W) buffers. */
static PyObject *gen_add_clusters(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule, *land_obj, *mountain_obj;
    Py_ssize_t width, need;
    if (!PyArg_ParseTuple(args, "OOOnn:add_clusters", &capsule, &land_obj, &mountain_obj, &width, &need))
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    Py_buffer land_view, mountain_view;
    if (get_buffer(land_obj, &land_view, -1, 1, BOOL_FORMATS, 0, "add_clusters land") < 0)
        return NULL;
    Py_ssize_t n = land_view.len;
    if (get_buffer(mountain_obj, &mountain_view, n, 1, BOOL_FORMATS, 1, "add_clusters mountain") < 0) {
        PyBuffer_Release(&land_view);
        return NULL;
    }
    PyObject *result = NULL;
    const unsigned char *land = land_view.buf;
    unsigned char *mountain = mountain_view.buf;
    int32_t *free_idx = NULL;
    int64_t *pick = NULL, *heads = NULL, *steps = NULL;
    if (width < 3 || n % width != 0 || n >= INT32_MAX || need < 1) {
        PyErr_SetString(PyExc_ValueError, "add_clusters: bad arguments");
        goto done;
    }
    free_idx = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    if (free_idx == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t free_n = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (land[i] && !mountain[i])
            free_idx[free_n++] = (int32_t)i;
    Py_ssize_t half = need / 2 + need % 2;
    Py_ssize_t k = free_n < half ? free_n : half;
    pick = malloc((size_t)(k ? k : 1) * sizeof(int64_t));
    heads = malloc((size_t)(k ? k : 1) * sizeof(int64_t));
    steps = malloc((size_t)(k ? k : 1) * sizeof(int64_t));
    if (pick == NULL || heads == NULL || steps == NULL || sample(g, free_n, k, pick) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < k; i++)
        heads[i] = free_idx[pick[i]];
    for (Py_ssize_t i = 0; i < k; i++)  /* steps_left = rng.integers(0, MAX_CLUSTER, size=n) */
        steps[i] = draws_bounded(g, MAX_CLUSTER - 1);
    for (Py_ssize_t i = 0; i < k; i++)
        mountain[heads[i]] = 1;
    const Py_ssize_t offsets[4] = {-width, 1, width, -1};
    for (int round = 0; round < MAX_CLUSTER - 1; round++) {
        for (Py_ssize_t i = 0; i < k; i++) {
            Py_ssize_t nxt = heads[i] + offsets[draws_bounded(g, 3)];
            if (steps[i] > 0 && land[nxt]) {
                heads[i] = nxt;
                mountain[nxt] = 1;
            }
            steps[i]--;
        }
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        total += mountain[i] != 0;
    result = PyLong_FromSsize_t(total);
done:
    free(free_idx);
    free(pick);
    free(heads);
    free(steps);
    PyBuffer_Release(&land_view);
    PyBuffer_Release(&mountain_view);
    return result;
}

/* The flat indices of the true items of a bool buffer, into a new int32 array (caller frees). */
static int32_t *true_indices(const unsigned char *mask, Py_ssize_t n, Py_ssize_t *count)
{
    Py_ssize_t c = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        c += mask[i] != 0;
    int32_t *idx = malloc((size_t)(c ? c : 1) * sizeof(int32_t));
    if (idx == NULL)
        return NULL;
    for (Py_ssize_t i = 0, j = 0; i < n; i++)
        if (mask[i])
            idx[j++] = (int32_t)i;
    *count = c;
    return idx;
}

/* drop_some(capsule, mountain, edge, extra) -> number dropped: one round of generator._trim,
   given edge = mountain tiles next to walkable land (a bool buffer). */
static PyObject *gen_drop_some(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule, *mountain_obj, *edge_obj;
    Py_ssize_t extra;
    if (!PyArg_ParseTuple(args, "OOOn:drop_some", &capsule, &mountain_obj, &edge_obj, &extra))
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    Py_buffer mountain_view, edge_view;
    if (get_buffer(mountain_obj, &mountain_view, -1, 1, BOOL_FORMATS, 1, "drop_some mountain") < 0)
        return NULL;
    Py_ssize_t n = mountain_view.len;
    if (get_buffer(edge_obj, &edge_view, n, 1, BOOL_FORMATS, 0, "drop_some edge") < 0) {
        PyBuffer_Release(&mountain_view);
        return NULL;
    }
    PyObject *result = NULL;
    unsigned char *mountain = mountain_view.buf;
    const unsigned char *edge_mask = edge_view.buf;
    int64_t *pick = NULL;
    Py_ssize_t edge_n = 0;
    int32_t *edge = NULL;
    if (n >= INT32_MAX || extra < 1) {
        PyErr_SetString(PyExc_ValueError, "drop_some: bad arguments");
        goto done;
    }
    /* edge = flatnonzero(mountain & edge_mask) */
    unsigned char *both = malloc((size_t)(n ? n : 1));
    if (both == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        both[i] = mountain[i] && edge_mask[i];
    edge = true_indices(both, n, &edge_n);
    free(both);
    if (edge == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (edge_n <= extra) {
        for (Py_ssize_t i = 0; i < edge_n; i++)
            mountain[edge[i]] = 0;
        result = PyLong_FromSsize_t(edge_n);
        goto done;
    }
    pick = malloc((size_t)extra * sizeof(int64_t));
    if (pick == NULL || sample(g, edge_n, extra, pick) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < extra; i++)
        mountain[edge[pick[i]]] = 0;
    result = PyLong_FromSsize_t(extra);
done:
    free(edge);
    free(pick);
    PyBuffer_Release(&mountain_view);
    PyBuffer_Release(&edge_view);
    return result;
}

/* pockets(pieces, inland, pockets_out) -> number of pocket tiles, or -1: generator._largest_piece's
   choice of the main piece of walkable land (labels from grid.components, 0 = not walkable), and
   pockets_out = the walkable tiles outside it. -1 when the largest pieces tie and `inland` (the
   label of the most inland tile, which needs a distance field) is not given (-1). */
static PyObject *gen_pockets(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *pieces_obj, *pockets_obj;
    long inland;
    if (!PyArg_ParseTuple(args, "OlO:pockets", &pieces_obj, &inland, &pockets_obj))
        return NULL;
    Py_buffer pieces_view, pockets_view;
    if (get_buffer(pieces_obj, &pieces_view, -1, 4, INT32_FORMATS, 0, "pockets pieces") < 0)
        return NULL;
    Py_ssize_t n = pieces_view.len / 4;
    if (get_buffer(pockets_obj, &pockets_view, n, 1, BOOL_FORMATS, 1, "pockets out") < 0) {
        PyBuffer_Release(&pieces_view);
        return NULL;
    }
    PyObject *result = NULL;
    const int32_t *pieces = pieces_view.buf;
    unsigned char *pockets = pockets_view.buf;
    int32_t top = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (pieces[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "pockets: negative label");
            goto done;
        }
        if (pieces[i] > top)
            top = pieces[i];
    }
    if (inland < -1 || inland > top) {
        PyErr_SetString(PyExc_ValueError, "pockets: inland label out of range");
        goto done;
    }
    Py_ssize_t *sizes = calloc((size_t)top + 1, sizeof(Py_ssize_t));
    if (sizes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        sizes[pieces[i]]++;
    sizes[0] = 0;  /* not walkable */
    Py_ssize_t largest = 0, ties = 0;
    int32_t first = 0;  /* np.argmax: the first of the largest */
    for (int32_t l = 0; l <= top; l++) {
        if (sizes[l] > largest) {
            largest = sizes[l];
            first = l;
            ties = 1;
        } else if (sizes[l] == largest) {
            ties++;
        }
    }
    int32_t best;
    if (largest > 0 && ties == 1) {
        best = first;
    } else if (inland < 0) {
        free(sizes);
        result = PyLong_FromLong(-1);
        goto done;
    } else {
        best = sizes[inland] == largest ? (int32_t)inland : first;
    }
    free(sizes);
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char p = pieces[i] != 0 && pieces[i] != best;
        pockets[i] = p;
        count += p;
    }
    result = PyLong_FromSsize_t(count);
done:
    PyBuffer_Release(&pieces_view);
    PyBuffer_Release(&pockets_view);
    return result;
}

/* ---- 4. treasure and prisons ---- */

/* pick_tile(capsule, mask) -> flat index: rng.choice(np.flatnonzero(mask)). */
static PyObject *gen_pick_tile(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule, *mask_obj;
    if (!PyArg_ParseTuple(args, "OO:pick_tile", &capsule, &mask_obj))
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    Py_buffer view;
    if (get_buffer(mask_obj, &view, -1, 1, BOOL_FORMATS, 0, "pick_tile") < 0)
        return NULL;
    const unsigned char *mask = view.buf;
    Py_ssize_t n = view.len, count = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        count += mask[i] != 0;
    PyObject *result = NULL;
    if (count == 0 || count - 1 > (Py_ssize_t)M32) {
        PyErr_SetString(PyExc_ValueError, count ? "pick_tile: too many tiles" : "a cannot be empty unless no samples are taken");
    } else {
        Py_ssize_t at = draws_bounded(g, (uint32_t)(count - 1));
        for (Py_ssize_t i = 0; i < n; i++) {
            if (mask[i] && at-- == 0) {
                result = PyLong_FromSsize_t(i);
                break;
            }
        }
    }
    PyBuffer_Release(&view);
    return result;
}

/* pick_prisons(capsule, dist, far, count, prison_out) -> bool: generator._pick_prisons, marking the
   prisons in a bool buffer; False where the Python step raises _Retry. */
static PyObject *gen_pick_prisons(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule, *dist_obj, *prison_obj;
    Py_ssize_t far, count;
    if (!PyArg_ParseTuple(args, "OOnnO:pick_prisons", &capsule, &dist_obj, &far, &count, &prison_obj))
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    Py_buffer dist_view, prison_view;
    if (get_buffer(dist_obj, &dist_view, -1, 4, INT32_FORMATS, 0, "pick_prisons dist") < 0)
        return NULL;
    Py_ssize_t n = dist_view.len / 4;
    if (get_buffer(prison_obj, &prison_view, n, 1, BOOL_FORMATS, 1, "pick_prisons prison") < 0) {
        PyBuffer_Release(&dist_view);
        return NULL;
    }
    PyObject *result = NULL;
    const int32_t *dist = dist_view.buf;
    unsigned char *prison = prison_view.buf;
    int32_t *cand = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    int64_t *pick = malloc((size_t)(count > 0 ? count : 1) * sizeof(int64_t));
    if (cand == NULL || pick == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (count < 0 || n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "pick_prisons: bad arguments");
        goto done;
    }
    const Py_ssize_t least[3] = {far, 2, 1};
    for (int attempt = 0; attempt < 3; attempt++) {
        Py_ssize_t cand_n = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (dist[i] >= least[attempt])
                cand[cand_n++] = (int32_t)i;
        if (cand_n >= count) {
            if (sample(g, cand_n, count, pick) < 0) {
                PyErr_NoMemory();
                goto done;
            }
            for (Py_ssize_t i = 0; i < count; i++)
                prison[cand[pick[i]]] = 1;
            result = Py_NewRef(Py_True);
            goto done;
        }
    }
    result = Py_NewRef(Py_False);
done:
    free(cand);
    free(pick);
    PyBuffer_Release(&dist_view);
    PyBuffer_Release(&prison_view);
    return result;
}

/* verify(regions, mountain, prison, dist, treasure, n_regions, n_prisons, n_mountains) -> bool:
   generator._verify on the island's (H, W) arrays (int32, bool, bool, int32) and the treasure's
   flat index, in one pass. */
static PyObject *gen_verify(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *regions_obj, *mountain_obj, *prison_obj, *dist_obj;
    Py_ssize_t treasure, n_regions, n_prisons, n_mountains;
    if (!PyArg_ParseTuple(args, "OOOOnnnn:verify", &regions_obj, &mountain_obj, &prison_obj, &dist_obj,
                          &treasure, &n_regions, &n_prisons, &n_mountains))
        return NULL;
    Py_buffer views[4];
    int held = 0;
    PyObject *result = NULL;
    unsigned char *seen = NULL;
    if (get_buffer(regions_obj, &views[0], -1, 4, INT32_FORMATS, 0, "verify regions") < 0)
        return NULL;
    held = 1;
    Py_ssize_t n = views[0].len / 4;
    if (views[0].ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "verify: regions must be (H, W)");
        goto done;
    }
    Py_ssize_t height = views[0].shape[0], width = views[0].shape[1];
    if (get_buffer(mountain_obj, &views[1], n, 1, BOOL_FORMATS, 0, "verify mountain") < 0)
        goto done;
    held = 2;
    if (get_buffer(prison_obj, &views[2], n, 1, BOOL_FORMATS, 0, "verify prison") < 0)
        goto done;
    held = 3;
    if (get_buffer(dist_obj, &views[3], n, 4, INT32_FORMATS, 0, "verify dist") < 0)
        goto done;
    held = 4;
    const int32_t *reg = views[0].buf, *dist = views[3].buf;
    const unsigned char *mountain = views[1].buf, *prison = views[2].buf;
    if (treasure < 0 || treasure >= n || n_regions < 0) {
        PyErr_SetString(PyExc_ValueError, "verify: bad arguments");
        goto done;
    }
    seen = calloc((size_t)n_regions + 1, 1);
    if (seen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int ok = !mountain[treasure] && !prison[treasure] && reg[treasure] != 0;
    for (Py_ssize_t c = 0; c < width; c++)  /* the border is sea */
        ok &= reg[c] == 0 && reg[(height - 1) * width + c] == 0;
    for (Py_ssize_t r = 0; r < height; r++)
        ok &= reg[r * width] == 0 && reg[r * width + width - 1] == 0;
    Py_ssize_t prisons = 0, mountains = 0;
    unsigned bad = 0;
    for (Py_ssize_t i = 0; i < n && ok; i++) {
        int32_t v = reg[i];
        if ((uint32_t)v > (uint32_t)n_regions) {  /* a region number not in 0..n_regions */
            ok = 0;
            break;
        }
        seen[v] = 1;
        unsigned m = mountain[i] != 0, p = prison[i] != 0, sea = v == 0, reached = dist[i] >= 0;
        mountains += m;
        prisons += p;
        bad |= (m & p) | ((m | p) & sea) | (p & (dist[i] <= 0)) | (reached ^ (!sea & !m));  /* reached iff walkable */
    }
    ok = ok && !bad;
    for (Py_ssize_t v = 1; v <= n_regions && ok; v++)
        ok = seen[v];
    ok = ok && prisons == n_prisons && mountains == n_mountains;
    result = PyBool_FromLong(ok);
done:
    free(seen);
    for (int i = 0; i < held; i++)
        PyBuffer_Release(&views[i]);
    return result;
}

/* ---- the draws alone, for the tests against numpy ---- */

/* draws(capsule, kind, n, arg, out): fills `out` as numpy would:
   kind 0: rng.random(n)                    (float64 out)
   kind 1: rng.random(n, dtype=float32)     (float32 out)
   kind 2: rng.integers(0, arg, size=n)     (int64 out, 1 <= arg <= 2**32)
   kind 3: rng.permutation(n)               (int64 out)
   kind 4: rng.choice(arg, n, replace=False) (int64 out, n <= arg < 2**31) */
static PyObject *gen_draws(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *capsule, *out_obj;
    int kind;
    Py_ssize_t n;
    long long arg;
    if (!PyArg_ParseTuple(args, "OinLO:draws", &capsule, &kind, &n, &arg, &out_obj))
        return NULL;
    bitgen_t *g = get_bitgen(capsule);
    if (g == NULL)
        return NULL;
    if (n < 0 || kind < 0 || kind > 4 || (kind == 2 && (arg < 1 || arg > (long long)M32 + 1))
        || (kind == 4 && (arg < n || arg >= INT32_MAX))) {
        PyErr_SetString(PyExc_ValueError, "draws: bad arguments");
        return NULL;
    }
    Py_buffer view;
    static const Py_ssize_t sizes[5] = {8, 4, 8, 8, 8};
    static const char *const formats[5] = {"d", "f", INT64_FORMATS, INT64_FORMATS, INT64_FORMATS};
    if (get_buffer(out_obj, &view, n, sizes[kind], formats[kind], 1, "draws") < 0)
        return NULL;
    PyObject *result = Py_NewRef(Py_None);
    switch (kind) {
    case 0:
        for (Py_ssize_t i = 0; i < n; i++)
            ((double *)view.buf)[i] = g->next_double(g->state);
        break;
    case 1:
        for (Py_ssize_t i = 0; i < n; i++)
            ((float *)view.buf)[i] = unit_f32(g);
        break;
    case 2:
        for (Py_ssize_t i = 0; i < n; i++)
            ((int64_t *)view.buf)[i] = draws_bounded(g, (uint32_t)(arg - 1));
        break;
    case 3: {
        int64_t *p = view.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            p[i] = i;
        for (Py_ssize_t i = n - 1; i > 0; i--) {
            Py_ssize_t j = (Py_ssize_t)interval(g, (uint64_t)i);
            int64_t t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        break;
    }
    case 4:
        if (sample(g, arg, n, view.buf) < 0) {
            Py_DECREF(result);
            result = PyErr_NoMemory();
        }
        break;
    }
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef module_methods[] = {
    {"raw_land", gen_raw_land, METH_VARARGS,
     "raw_land(capsule, land_out, width, height, k)\n--\n\nThe land before islets are dropped (generator._raw_land); "
     "returns the number of land tiles."},
    {"top", gen_top, METH_O, "top(labels)\n--\n\nThe largest value of an int32 buffer."},
    {"below", gen_below, METH_VARARGS, "below(capsule, top)\n--\n\nrng.integers(0, top + 1)."},
    {"grow_regions", gen_grow_regions, METH_VARARGS,
     "grow_regions(capsule, land, width, count, labels_out)\n--\n\nSeeds and flood of the regions "
     "(generator._grow_regions); False: retry."},
    {"add_clusters", gen_add_clusters, METH_VARARGS,
     "add_clusters(capsule, land, mountain, width, need)\n--\n\nMountain clusters (generator._add_clusters); "
     "returns the mountain count."},
    {"drop_some", gen_drop_some, METH_VARARGS,
     "drop_some(capsule, mountain, edge, extra)\n--\n\nOne round of generator._trim; returns how many were dropped."},
    {"pick_tile", gen_pick_tile, METH_VARARGS,
     "pick_tile(capsule, mask)\n--\n\nrng.choice(np.flatnonzero(mask))."},
    {"pick_prisons", gen_pick_prisons, METH_VARARGS,
     "pick_prisons(capsule, dist, far, count, prison_out)\n--\n\ngenerator._pick_prisons; False: retry."},
    {"pockets", gen_pockets, METH_VARARGS,
     "pockets(pieces, inland, pockets_out)\n--\n\nWalkable tiles outside the main piece (generator._largest_piece); "
     "-1: a tie, give inland."},
    {"verify", gen_verify, METH_VARARGS,
     "verify(regions, mountain, prison, dist, treasure, n_regions, n_prisons, n_mountains)\n--\n\n"
     "generator._verify in one pass."},
    {"draws", gen_draws, METH_VARARGS,
     "draws(capsule, kind, n, arg, out)\n--\n\nOne of numpy's draws into `out` (for the tests)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef gen_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "treasure_cli.islands._gen",
    .m_doc = "Compiled steps of the island generator, drawing from a numpy Generator's bit generator.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__gen(void)
{
    return PyModule_Create(&gen_module);
}
