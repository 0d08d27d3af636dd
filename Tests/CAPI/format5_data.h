/* The data of Tests/CAPI/data/format5_fulltext_sets.fief, a file in file
 * format 5 written by the format-5 library (commit 9886c58) with
 * Tests/CAPI/data/make_format5_fixture.c, which test_format6_upgrade and the
 * engine's Format6Tests read.  It holds the two things format 6 repairs:
 *
 *  - `Doc {id: int (primary key), text: string? (full-text indexed)}`:
 *    F5_DOCS documents made with their generation-0 texts and indexed;
 *    then, as a library older than full-text search would have done it,
 *    the texts of the documents F5_CHANGED were set to their generation-1
 *    texts, the documents F5_DELETED deleted and F5_ADDED documents (ids
 *    F5_DOCS ...) added with generation-1 texts, all without touching the
 *    index: it still holds the generation-0 words of the first F5_DOCS.
 *  - `Bag {id: int (primary key), values: Set<mixed>}`: F5_BAGS bags, bag b
 *    given the values f5_bag(b, ...) in that order.  Format 5 keys a
 *    decimal that is an integer outside int64's range apart from the equal
 *    double, so it holds F5_SIZE_5[b] elements; format 6 counts
 *    F5_SIZE_6[b] (Realm's one element per number).
 *
 * Object keys are 0, 1, ... in creation order in each class (the added
 * documents follow the first F5_DOCS). */
#ifndef FORMAT5_DATA_H
#define FORMAT5_DATA_H

#include "fief.h"

#include <stdio.h>
#include <string.h>

#define F5_DOCS 1200
#define F5_ADDED 100
#define F5_CHANGED(i) ((i) % 3 == 1)
#define F5_DELETED(i) ((i) % 7 == 3 && !F5_CHANGED(i))
#define F5_WORDS_PER_TEXT 6
#define F5_NUM_WORDS 16
static const char *const F5_WORDS[F5_NUM_WORDS] = {"alpha", "bravo",  "charlie", "delta", "echo",     "foxtrot",
                                                   "golf",  "hotel",  "india",   "juliet", "kilo",    "lima",
                                                   "mike",  "nectar", "oscar",   "papa"};

/* The text of document `id` in generation `gen` (0 or 1), into `out`. */
static void f5_text(int id, int gen, char *out, size_t size) {
    unsigned seed = (unsigned)id * 2654435761u + (unsigned)gen * 40503u + 17u;
    size_t at = 0;
    out[0] = '\0';
    for (int w = 0; w < F5_WORDS_PER_TEXT; w++) {
        seed = seed * 1103515245u + 12345u;
        int n = snprintf(out + at, size - at, "%s%s", w ? " " : "", F5_WORDS[(seed >> 16) % F5_NUM_WORDS]);
        if (n < 0 || (size_t)n >= size - at) return;
        at += (size_t)n;
    }
}

/* Whether document `id` exists once the file is written, and its text then. */
static int f5_doc_exists(int id) { return id >= F5_DOCS ? id < F5_DOCS + F5_ADDED : !F5_DELETED(id); }
static void f5_current_text(int id, char *out, size_t size) {
    f5_text(id, id >= F5_DOCS || F5_CHANGED(id) ? 1 : 0, out, size);
}

/* Whether `text` holds `word` as a whole word. */
static int f5_has_word(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = text; (p = strstr(p, word)) != NULL; p += n) {
        if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    }
    return 0;
}

/* decimal128 (BID) c * 10^e for a coefficient below 2^113, e in [-6176, 6111]. */
static fief_value_t f5_dec(int negative, uint64_t high_bits, uint64_t low_bits, int e) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_DECIMAL128;
    v.u.decimal128.w[0] = low_bits;
    v.u.decimal128.w[1] = (negative ? 1ull << 63 : 0) | ((uint64_t)(e + 6176) << 49) | high_bits;
    return v;
}
static fief_value_t f5_double(double d) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_DOUBLE;
    v.u.double_value = d;
    return v;
}
static fief_value_t f5_float(float f) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_FLOAT;
    v.u.float_value = f;
    return v;
}
static fief_value_t f5_int(int64_t i) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_INT;
    v.u.integer = i;
    return v;
}
static fief_value_t f5_string(const char *s) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_STRING;
    v.u.string.data = s;
    v.u.string.size = strlen(s);
    return v;
}

#define F5_TWO_70 1180591620717411303424.0 /* 2^70 */
#define F5_BAGS 6
#define F5_MAX_BAG 8
static const int F5_SIZE_5[F5_BAGS] = {2, 2, 1, 4, 7, 1};
static const int F5_SIZE_6[F5_BAGS] = {1, 1, 1, 4, 4, 1};

/* The values given to bag `b`, in order, into `out`; returns how many. */
static int f5_bag(int b, fief_value_t *out) {
    fief_value_t dec_2_70 = f5_dec(0, 64, 0, 0); /* 2^70 = 64 * 2^64 */
    switch (b) {
    case 0: /* decimal 2^70, then the equal double */
        out[0] = dec_2_70;
        out[1] = f5_double(F5_TWO_70);
        return 2;
    case 1: /* the double first */
        out[0] = f5_double(F5_TWO_70);
        out[1] = dec_2_70;
        return 2;
    case 2: /* the decimal alone: format 6 keys it as the double */
        out[0] = dec_2_70;
        return 1;
    case 3: /* equal numbers format 5 already counted once, and 2^70 + 1 (no double) */
        out[0] = f5_int(1);
        out[1] = f5_dec(0, 0, 1, 0);
        out[2] = f5_double(1.0);
        out[3] = f5_string("x");
        out[4] = f5_dec(0, 64, 1, 0);
        out[5] = f5_double(0.5);
        out[6] = f5_dec(0, 0, 5, -1);
        return 7;
    case 4: /* -2^64, 2^63 and 1e20 as decimals and doubles, and the float 2^70 */
        out[0] = f5_dec(1, 1, 0, 0);
        out[1] = f5_double(-18446744073709551616.0);
        out[2] = f5_dec(0, 0, 1ull << 63, 0);
        out[3] = f5_double(9223372036854775808.0);
        out[4] = f5_dec(0, 0, 1, 20);
        out[5] = f5_double(1e20);
        out[6] = f5_float(1180591620717411303424.0f);
        return 7;
    default: /* the double and the float 2^70: one element in both formats */
        out[0] = f5_double(F5_TWO_70);
        out[1] = f5_float(1180591620717411303424.0f);
        return 2;
    }
}

#endif
