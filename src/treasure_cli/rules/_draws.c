/*
 * treasure_cli.rules._draws: the compiled twin of `PyDraws` in draws.py.
 *
 * The same class API and the same values, call for call: numpy's
 * SeedSequence (pool of four 32-bit words, no spawn key) hashes the seed
 * keys' 32-bit words, its generate_state(4, uint64) seeds a PCG64 (128-bit
 * LCG, default multiplier, XSL-RR output), and the draws are numpy
 * Generator's algorithms on that stream: 53-bit floats, Lemire's bounded
 * draw on 32-bit halves (the spare high half of a word kept for the next
 * 32-bit draw, as numpy's bit generator keeps it), Floyd's sample and a
 * Fisher-Yates shuffle. draws.py is the readable reference;
 * tests/rules/test_draws.py runs both classes against numpy.
 *
 * Optional: if this file does not compile (no C compiler, no Python headers,
 * no 128-bit integers), the install goes on and draws.py uses PyDraws.
 */

#include "_accel.h"  /* first: it includes Python.h */
#include <stdint.h>

#ifndef __SIZEOF_INT128__
#error "this module needs unsigned __int128 (the package falls back to the Python class)"
#endif

typedef unsigned __int128 u128;

#define M32 0xFFFFFFFFu

/* numpy's SeedSequence constants (bit_generator.pyx) */
#define POOL_SIZE 4
#define INIT_A 0x43b0d7e5u
#define MULT_A 0x931e8875u
#define INIT_B 0x8b51f9ddu
#define MULT_B 0x58f38dedu
#define MIX_MULT_L 0xca01f9ddu
#define MIX_MULT_R 0x4973f715u
#define XSHIFT 16

/* PCG64's default 128-bit multiplier */
#define PCG_MULT (((u128)2549297995355413924ULL << 64) + 4865540595714422341ULL)

static uint32_t hashmix(uint32_t value, uint32_t *hash_const)
{
    value ^= *hash_const;
    *hash_const *= MULT_A;
    value *= *hash_const;
    value ^= value >> XSHIFT;
    return value;
}

static uint32_t mix(uint32_t x, uint32_t y)
{
    uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y;
    result ^= result >> XSHIFT;
    return result;
}

/* SeedSequence(words).pool */
static void seed_pool(const uint32_t *words, Py_ssize_t n, uint32_t pool[POOL_SIZE])
{
    uint32_t hash_const = INIT_A;
    for (int i = 0; i < POOL_SIZE; i++)
        pool[i] = hashmix(i < n ? words[i] : 0, &hash_const);
    for (int src = 0; src < POOL_SIZE; src++)
        for (int dst = 0; dst < POOL_SIZE; dst++)
            if (src != dst)
                pool[dst] = mix(pool[dst], hashmix(pool[src], &hash_const));
    for (Py_ssize_t src = POOL_SIZE; src < n; src++)
        for (int dst = 0; dst < POOL_SIZE; dst++)
            pool[dst] = mix(pool[dst], hashmix(words[src], &hash_const));
}

/* SeedSequence.generate_state(4, np.uint64): eight 32-bit words, read in pairs low word first */
static void generate_state(const uint32_t pool[POOL_SIZE], uint64_t out[4])
{
    uint32_t hash_const = INIT_B;
    uint32_t state[8];
    for (int i = 0; i < 8; i++) {
        uint32_t v = pool[i % POOL_SIZE];
        v ^= hash_const;
        hash_const *= MULT_B;
        v *= hash_const;
        v ^= v >> XSHIFT;
        state[i] = v;
    }
    for (int k = 0; k < 4; k++)
        out[k] = (uint64_t)state[2 * k] | ((uint64_t)state[2 * k + 1] << 32);
}

typedef struct {
    PyObject_HEAD
    u128 state;
    u128 inc;
    uint32_t spare;   /* the high half of a word split for 32-bit draws */
    int has_spare;
} DrawsObject;

/* PCG64 as numpy seeds it: pcg_setseq_128_srandom_r(state = seed[0:2], seq = seed[2:4]),
   each pair high word first. */
static void pcg_seed(DrawsObject *self, const uint64_t seed[4])
{
    u128 initstate = ((u128)seed[0] << 64) + seed[1];
    u128 initseq = ((u128)seed[2] << 64) + seed[3];
    self->state = 0;
    self->inc = (initseq << 1) | 1;
    self->state = self->state * PCG_MULT + self->inc;
    self->state += initstate;
    self->state = self->state * PCG_MULT + self->inc;
    self->has_spare = 0;
    self->spare = 0;
}

/* One raw 64-bit word: an LCG step, then XSL-RR output. */
static inline uint64_t next64(DrawsObject *self)
{
    self->state = self->state * PCG_MULT + self->inc;
    uint64_t x = (uint64_t)(self->state >> 64) ^ (uint64_t)self->state;
    unsigned rot = (unsigned)(self->state >> 122);
    return (x >> rot) | (x << ((-rot) & 63));
}

static inline uint32_t next32(DrawsObject *self)
{
    if (self->has_spare) {
        self->has_spare = 0;
        return self->spare;
    }
    uint64_t w = next64(self);
    self->spare = (uint32_t)(w >> 32);
    self->has_spare = 1;
    return (uint32_t)w;
}

/* Lemire's bounded draw, Floyd's sample and Fisher-Yates, as islands/_gen.c makes them */
typedef DrawsObject DrawStream;
static inline uint32_t stream_next32(DrawStream *s)
{
    return next32(s);
}
#include "_numpy_draws.h"

/* ---- arguments ---- */

/* Binds fast-call arguments (positional, then keywords) to `count` named parameters, all required. */
static int bind_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     const char *const *names, Py_ssize_t count, PyObject **out, const char *fname)
{
    if (kwnames == NULL && nargs == count) {
        for (Py_ssize_t i = 0; i < count; i++)
            out[i] = args[i];
        return 0;
    }
    if (nargs > count) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", fname, count, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        out[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        Py_ssize_t i = 0;
        while (i < count && PyUnicode_CompareWithASCIIString(key, names[i]) != 0)
            i++;
        if (i == count) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, names[i]);
            return -1;
        }
    }
    return 0;
}

/* ---- the seed ---- */

typedef struct {
    uint32_t *data;
    Py_ssize_t len, cap;
    uint32_t local[32];
} Words;

static int words_push(Words *w, uint32_t value)
{
    if (w->len == w->cap) {
        Py_ssize_t cap = w->cap * 2;
        uint32_t *data;
        if (w->data == w->local) {
            data = PyMem_Malloc(cap * sizeof(uint32_t));
            if (data != NULL)
                memcpy(data, w->local, w->len * sizeof(uint32_t));
        } else {
            data = PyMem_Realloc(w->data, cap * sizeof(uint32_t));
        }
        if (data == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        w->data = data;
        w->cap = cap;
    }
    w->data[w->len++] = value;
    return 0;
}

/* A key's 32-bit words, low word first; 0 is one word 0 (as SeedSequence splits an int). */
static int push_key(Words *w, PyObject *item)
{
    PyObject *key = PyNumber_Index(item);
    if (key == NULL)
        return -1;
    int overflow;
    long long small = PyLong_AsLongLongAndOverflow(key, &overflow);
    if (small == -1 && PyErr_Occurred())
        goto fail;
    if (overflow < 0 || (overflow == 0 && small < 0)) {
        PyErr_Format(PyExc_ValueError, "seed keys must be non-negative, got %S", item);
        goto fail;
    }
    if (overflow == 0) {
        unsigned long long v = (unsigned long long)small;
        if (words_push(w, (uint32_t)(v & M32)) < 0)
            goto fail;
        for (v >>= 32; v; v >>= 32)
            if (words_push(w, (uint32_t)(v & M32)) < 0)
                goto fail;
        Py_DECREF(key);
        return 0;
    }
    /* 2**63 or more: 32 bits at a time with Python ints */
    PyObject *shift = PyLong_FromLong(32);
    if (shift == NULL)
        goto fail;
    for (;;) {
        unsigned long long low = PyLong_AsUnsignedLongLongMask(key);
        if (low == (unsigned long long)-1 && PyErr_Occurred())
            break;
        if (words_push(w, (uint32_t)(low & M32)) < 0)
            break;
        PyObject *rest = PyNumber_Rshift(key, shift);
        if (rest == NULL)
            break;
        Py_DECREF(key);
        key = rest;
        int more = PyObject_IsTrue(key);
        if (more < 0)
            break;
        if (!more) {
            Py_DECREF(shift);
            Py_DECREF(key);
            return 0;
        }
    }
    Py_DECREF(shift);
fail:
    Py_DECREF(key);
    return -1;
}

static PyObject *Draws_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"seed_keys", NULL};
    PyObject *seed_keys;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Draws", kwlist, &seed_keys))
        return NULL;
    PyObject *keys = PySequence_Fast(seed_keys, "Draws() needs a sequence of seed keys");
    if (keys == NULL)
        return NULL;
    Words w = {NULL, 0, 32, {0}};
    w.data = w.local;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(keys);
    PyObject **items = PySequence_Fast_ITEMS(keys);
    DrawsObject *self = NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (push_key(&w, items[i]) < 0)
            goto done;
    self = (DrawsObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        goto done;
    uint32_t pool[POOL_SIZE];
    uint64_t seed[4];
    seed_pool(w.data, w.len, pool);
    generate_state(pool, seed);
    pcg_seed(self, seed);
done:
    if (w.data != w.local)
        PyMem_Free(w.data);
    Py_DECREF(keys);
    return (PyObject *)self;
}

/* ---- draws ---- */

static PyObject *Draws_random(DrawsObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyFloat_FromDouble((double)(next64(self) >> 11) * (1.0 / 9007199254740992.0));
}

static PyObject *Draws_below(DrawsObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"top"};
    PyObject *arg;
    if (bind_args(args, nargs, kwnames, names, 1, &arg, "below") < 0)
        return NULL;
    int overflow;
    long long top = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (top == -1 && PyErr_Occurred())
        return NULL;
    if (overflow || top < 0 || top > (long long)M32) {
        PyErr_Format(PyExc_ValueError, "top %S is not in 0..2**32-1", arg);
        return NULL;
    }
    return PyLong_FromUnsignedLong(draws_bounded(self, (uint32_t)top));
}

/* sample() of ints too big for C: only its refusals and its empty answer remain to give. */
static PyObject *sample_big(PyObject *n_obj, PyObject *size_obj)
{
    PyObject *n = PyNumber_Index(n_obj), *size = PyNumber_Index(size_obj);
    PyObject *zero = PyLong_FromLong(0), *limit = PyLong_FromLong(10000), *fifty = PyLong_FromLong(50);
    PyObject *part = NULL, *first = NULL, *result = NULL;
    int a, b;
    if (n == NULL || size == NULL || zero == NULL || limit == NULL || fifty == NULL)
        goto done;
    if ((a = PyObject_RichCompareBool(size, zero, Py_GE)) < 0 || (b = PyObject_RichCompareBool(size, n, Py_LE)) < 0)
        goto done;
    if (!a || !b) {
        PyErr_Format(PyExc_ValueError, "cannot take %S distinct items of %S", size_obj, n_obj);
        goto done;
    }
    if ((part = PyNumber_FloorDivide(n, fifty)) == NULL)
        goto done;
    if ((a = PyObject_RichCompareBool(n, limit, Py_GT)) < 0 || (b = PyObject_RichCompareBool(size, part, Py_GT)) < 0)
        goto done;
    if (a && b) {
        PyErr_SetString(PyExc_ValueError, "Draws.sample: numpy shuffles a tail here; use a Generator");
        goto done;
    }
    if ((a = PyObject_RichCompareBool(size, zero, Py_EQ)) < 0)
        goto done;
    if (a) {
        result = PyList_New(0);
        goto done;
    }
    /* n is 2**63 or more and size at most n // 50: Floyd's first bound, n - size, is out of range */
    if ((first = PyNumber_Subtract(n, size)) == NULL)
        goto done;
    PyErr_Format(PyExc_ValueError, "top %S is not in 0..2**32-1", first);
done:
    Py_XDECREF(n);
    Py_XDECREF(size);
    Py_XDECREF(zero);
    Py_XDECREF(limit);
    Py_XDECREF(fifty);
    Py_XDECREF(part);
    Py_XDECREF(first);
    return result;
}

static PyObject *Draws_sample(DrawsObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"n", "size"};
    PyObject *arg[2];
    if (bind_args(args, nargs, kwnames, names, 2, arg, "sample") < 0)
        return NULL;
    int over_n, over_size;
    long long n = PyLong_AsLongLongAndOverflow(arg[0], &over_n);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    long long size = PyLong_AsLongLongAndOverflow(arg[1], &over_size);
    if (size == -1 && PyErr_Occurred())
        return NULL;
    if (over_n || over_size)
        return sample_big(arg[0], arg[1]);
    if (size < 0 || size > n) {
        PyErr_Format(PyExc_ValueError, "cannot take %S distinct items of %S", arg[1], arg[0]);
        return NULL;
    }
    if (n > 10000 && size > n / 50) {
        PyErr_SetString(PyExc_ValueError, "Draws.sample: numpy shuffles a tail here; use a Generator");
        return NULL;
    }
    int64_t local[64];
    int64_t *picked = local;
    PyObject *result = NULL;
    if (size > 64 && (picked = PyMem_Malloc(size * sizeof(int64_t))) == NULL)
        return PyErr_NoMemory();
    int64_t got = draws_floyd(self, n, size, picked);
    if (got < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (got > 0) {
        PyErr_Format(PyExc_ValueError, "top %lld is not in 0..2**32-1", (long long)got);
        goto done;
    }
    if ((result = PyList_New(size)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *item = PyLong_FromLongLong(picked[i]);
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    if (picked != local)
        PyMem_Free(picked);
    return result;
}

/* ---- pickling: the generator's state and the spare half ---- */

static PyObject *restore_fn;  /* the module's _restore, set at import */

static PyObject *Draws_reduce(DrawsObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *spare = self->has_spare ? PyLong_FromUnsignedLong(self->spare) : Py_NewRef(Py_None);
    if (spare == NULL)
        return NULL;
    return Py_BuildValue("O(KKKKN)", restore_fn,
                         (unsigned long long)(self->state >> 64), (unsigned long long)self->state,
                         (unsigned long long)(self->inc >> 64), (unsigned long long)self->inc, spare);
}

static PyTypeObject DrawsType;

static PyObject *draws_restore(PyObject *Py_UNUSED(module), PyObject *args)
{
    unsigned long long s_hi, s_lo, i_hi, i_lo;
    PyObject *spare;
    if (!PyArg_ParseTuple(args, "KKKKO:_restore", &s_hi, &s_lo, &i_hi, &i_lo, &spare))
        return NULL;
    DrawsObject *self = (DrawsObject *)DrawsType.tp_alloc(&DrawsType, 0);
    if (self == NULL)
        return NULL;
    self->state = ((u128)s_hi << 64) + s_lo;
    self->inc = ((u128)i_hi << 64) + i_lo;
    self->has_spare = spare != Py_None;
    self->spare = 0;
    if (self->has_spare) {
        unsigned long v = PyLong_AsUnsignedLong(spare);
        if (v == (unsigned long)-1 && PyErr_Occurred()) {
            Py_DECREF(self);
            return NULL;
        }
        self->spare = (uint32_t)v;
    }
    return (PyObject *)self;
}

static PyMethodDef Draws_methods[] = {
    {"random", (PyCFunction)Draws_random, METH_NOARGS,
     "random()\n--\n\nUniform float in [0, 1), as Generator.random()."},
    {"below", (PyCFunction)(void (*)(void))Draws_below, METH_FASTCALL | METH_KEYWORDS,
     "below(top)\n--\n\nUniform int in [0, top], as Generator.integers(0, top + 1), for 0 <= top < 2**32."},
    {"sample", (PyCFunction)(void (*)(void))Draws_sample, METH_FASTCALL | METH_KEYWORDS,
     "sample(n, size)\n--\n\n`size` distinct indices of range(n), in the order Generator.choice(a, size,\n"
     "replace=False) takes a[i] for an array a of n items (n up to 10,000, or size at most n // 50)."},
    {"__reduce__", (PyCFunction)Draws_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject DrawsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "treasure_cli.rules._draws.Draws",
    .tp_basicsize = sizeof(DrawsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Draws(seed_keys)\n--\n\nA numpy-compatible source of the few draws the hint draw makes "
              "(compiled; see PyDraws in treasure_cli.rules.draws).",
    .tp_new = Draws_new,
    .tp_methods = Draws_methods,
};

static PyMethodDef module_methods[] = {
    {"_restore", draws_restore, METH_VARARGS, "Rebuild a pickled Draws."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef draws_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "treasure_cli.rules._draws",
    .m_doc = "Compiled Draws: numpy's SeedSequence, PCG64 and Generator draws for the hint draw.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__draws(void)
{
    if (PyType_Ready(&DrawsType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&draws_module);
    if (module == NULL)
        return NULL;
    restore_fn = PyObject_GetAttrString(module, "_restore");
    if (restore_fn == NULL || PyModule_AddObjectRef(module, "Draws", (PyObject *)&DrawsType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
