/*
 * numpy Generator's integer draws, written once for the two compiled modules
 * that make them: rules/_draws.c (the hint draws, over its own PCG64) and
 * islands/_gen.c (the island generator, over numpy's bit generator). Lemire's
 * bounded draw, Floyd's sample and the Fisher-Yates shuffle, in numpy's order
 * of random calls, so both give numpy's values. rules/draws.py (`PyDraws`) is
 * their readable Python reference; tests/rules/test_draws.py and
 * tests/islands/test_generator_compiled.py compare each module with numpy.
 *
 * The including file first defines the stream they draw from:
 *     typedef ... DrawStream;
 *     static inline uint32_t stream_next32(DrawStream *s);
 * (one source text, compiled into each of the two modules).
 */
#ifndef TREASURE_CLI_NUMPY_DRAWS_H
#define TREASURE_CLI_NUMPY_DRAWS_H

#include <stdint.h>
#include <stdlib.h>

#define DRAWS_M32 0xFFFFFFFFu

/* Uniform in [0, top]: Lemire's multiply-and-reject, as numpy's buffered_bounded_lemire_uint32;
   a zero range draws nothing, the full range returns the draw itself. */
static inline uint32_t draws_bounded(DrawStream *s, uint32_t top)
{
    if (top == 0)
        return 0;
    uint32_t u = stream_next32(s);
    if (top == DRAWS_M32)
        return u;
    uint32_t span = top + 1;
    uint64_t m = (uint64_t)u * span;
    uint32_t leftover = (uint32_t)m;
    if (leftover < span) {
        uint32_t threshold = (DRAWS_M32 - top) % span;
        while (leftover < threshold) {
            m = (uint64_t)stream_next32(s) * span;
            leftover = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Fisher-Yates as numpy's shuffles: for i from `last` down to `first`, swap a[i] with a[j],
   j drawn in [0, i] (i < 2**32). */
static inline void draws_shuffle(DrawStream *s, int64_t *a, int64_t last, int64_t first)
{
    for (int64_t i = last; i >= first; i--) {
        int64_t j = draws_bounded(s, (uint32_t)i);
        int64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

#define DRAWS_LINEAR_TAKEN 16  /* up to this many picks, "taken?" is a scan of the picks */

/* choice(pop, size, replace=False) where numpy uses Floyd's sample (pop <= 10000 or
   size <= pop // 50): `size` distinct ints of range(pop) into out, in numpy's order. 0 done;
   -1 out of memory (no exception set); else the first bound past 2**32 - 1, where numpy
   stops with an error (the draws up to it made, as numpy makes them). */
static int64_t draws_floyd(DrawStream *s, int64_t pop, int64_t size, int64_t *out)
{
    uint64_t *table = NULL, mask = 0;  /* open addressing on v + 1 (0 is empty), at most half full */
    int bits = 0;
    if (size > DRAWS_LINEAR_TAKEN) {
        while (((int64_t)1 << bits) < 2 * size)
            bits++;
        mask = ((uint64_t)1 << bits) - 1;
        if ((table = calloc((size_t)mask + 1, sizeof(uint64_t))) == NULL)
            return -1;
    }
    /* for j in the last `size` positions take a number in [0, j], or j if taken */
    int64_t count = 0;
    for (int64_t j = pop - size; j < pop; j++) {
        if (j > (int64_t)DRAWS_M32) {
            free(table);
            return j;
        }
        int64_t v = draws_bounded(s, (uint32_t)j);
        if (table == NULL) {
            for (int64_t i = 0; i < count; i++) {
                if (out[i] == v) {
                    v = j;  /* j is new: nothing above j - 1 was drawn yet */
                    break;
                }
            }
        } else {
            uint64_t slot = ((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
            while (table[slot] != 0 && table[slot] != (uint64_t)v + 1)
                slot = (slot + 1) & mask;
            if (table[slot] != 0) {
                v = j;
                slot = ((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
                while (table[slot] != 0)
                    slot = (slot + 1) & mask;
            }
            table[slot] = (uint64_t)v + 1;
        }
        out[count++] = v;
    }
    free(table);
    draws_shuffle(s, out, size - 1, 1);  /* numpy's _shuffle_int: last to second */
    return 0;
}

#endif
