/*
 * bench.c - Fief versus SQLite on the same data, in the same process.
 *
 *   bench [N]            warm-up round + 5 timed rounds, prints the table
 *   bench --check [N]    one round, result checks only (smoke test)
 *
 * Every op checks its result against values computed from the generated
 * data; any mismatch or API failure prints a message and exits 1.
 * See benchmarks/README.md.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fief.h"

/* ------------------------------------------------------------------------ */
/* Failure reporting                                                         */
/* ------------------------------------------------------------------------ */

static char g_tmpdir[4096];

static void cleanup_tmpdir(void) {
    if (!g_tmpdir[0]) return;
    DIR *d = opendir(g_tmpdir);
    if (d) {
        struct dirent *e;
        char p[8192];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(p, sizeof p, "%s/%s", g_tmpdir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(g_tmpdir);
    g_tmpdir[0] = 0;
}

/* A benchmark killed by SIGINT/SIGTERM removes its databases on the way out. */
static void on_signal(int sig) {
    cleanup_tmpdir();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench: FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    cleanup_tmpdir();
    exit(1);
}

static void fief_die(const char *what, int line) {
    fief_error_t e;
    memset(&e, 0, sizeof e);
    if (fief_get_last_error(&e))
        die("line %d: %s: fief error %d: %s", line, what, (int)e.code,
            e.message ? e.message : "(no message)");
    die("line %d: %s: failed, and fief_get_last_error reports no error", line, what);
}

/* A Fief call returning bool / a handle. */
#define FB(call) do { if (!(call)) fief_die(#call, __LINE__); } while (0)
#define FH(var, call) do { (var) = (call); if (!(var)) fief_die(#call, __LINE__); } while (0)

static void sql_die(sqlite3 *db, const char *what, int rc, int line) {
    die("line %d: %s: sqlite error %d: %s", line, what, rc, db ? sqlite3_errmsg(db) : "");
}
#define SQ(db, call, expect) do { int rc_ = (call); if (rc_ != (expect)) sql_die((db), #call, rc_, __LINE__); } while (0)

/* The per-op functions stay out of line so a profiler can attribute time to
 * them (benchmarks/profile uses perf's or callgrind's samples inside fief_<op>). */
#if defined(__GNUC__) && !defined(__clang__)
/* noclone: no ".constprop.0" copy under another name */
#define NOINLINE __attribute__((noinline, noclone))
#elif defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

#define CHECK(cond, ...) do { if (!(cond)) die(__VA_ARGS__); } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------------ */
/* Data                                                                      */
/* ------------------------------------------------------------------------ */

#define NAME_LEN 8
#define NUM_LOOKUPS 10000
#define PREFIX_CHAR 'B'
#define AGE_LIMIT 5

static const char *const COLORS[8] = {"black", "white", "brown", "golden",
                                      "grey",  "red",   "cream", "spotted"};

static uint64_t g_rng;
static uint64_t splitmix64(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct {
    size_t n;
    char *names;        /* n * NAME_LEN bytes; dog i (id i+1) at names + i*NAME_LEN */
    int64_t *ages;      /* 0..19 */
    int *colors;        /* index into COLORS */
    size_t *sorted;     /* dog indices ordered by name (byte order) */
    int64_t *lookup_ids;/* NUM_LOOKUPS random ids in 1..n */
    /* expected results */
    size_t count_lt;            /* age < AGE_LIMIT */
    size_t prefix_count;        /* names starting with PREFIX_CHAR */
    uint64_t prefix_len_sum;    /* sum of their lengths */
    uint64_t prefix_checksum;   /* sum of name_hash over them */
    int64_t age_sum;            /* sum of all ages */
    int64_t lookup_age_sum;     /* sum of ages of the looked-up dogs */
} Data;

static uint64_t name_hash(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ull; }
    return h;
}

static const char *g_sort_names;
static int cmp_by_name(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = memcmp(g_sort_names + x * NAME_LEN, g_sort_names + y * NAME_LEN, NAME_LEN);
    if (c) return c;
    return x < y ? -1 : x > y;
}

static void make_data(Data *d, size_t n) {
    memset(d, 0, sizeof *d);
    d->n = n;
    d->names = malloc(n * NAME_LEN);
    d->ages = malloc(n * sizeof *d->ages);
    d->colors = malloc(n * sizeof *d->colors);
    d->sorted = malloc(n * sizeof *d->sorted);
    d->lookup_ids = malloc(NUM_LOOKUPS * sizeof *d->lookup_ids);
    CHECK(d->names && d->ages && d->colors && d->sorted && d->lookup_ids, "out of memory");
    g_rng = 0x5EEDF1EF2024ull;
    for (size_t i = 0; i < n; i++) {
        char *nm = d->names + i * NAME_LEN;
        nm[0] = (char)('A' + splitmix64() % 26);
        for (int k = 1; k < NAME_LEN; k++) nm[k] = (char)('a' + splitmix64() % 26);
        d->ages[i] = (int64_t)(splitmix64() % 20);
        d->colors[i] = (int)(splitmix64() % 8);
        d->age_sum += d->ages[i];
        if (d->ages[i] < AGE_LIMIT) d->count_lt++;
        if (nm[0] == PREFIX_CHAR) {
            d->prefix_count++;
            d->prefix_len_sum += NAME_LEN;
            d->prefix_checksum += name_hash(nm, NAME_LEN);
        }
        d->sorted[i] = i;
    }
    g_sort_names = d->names;
    qsort(d->sorted, n, sizeof *d->sorted, cmp_by_name);
    for (int i = 0; i < NUM_LOOKUPS; i++) {
        d->lookup_ids[i] = (int64_t)(splitmix64() % n) + 1;
        d->lookup_age_sum += d->ages[d->lookup_ids[i] - 1];
    }
}

/* ------------------------------------------------------------------------ */
/* Ops                                                                       */
/* ------------------------------------------------------------------------ */

/* The ops in the order of the output table. */
enum { OP_INSERT, OP_INSERT_EACH, OP_COUNT_LT, OP_PREFIX_ITER, OP_SORT_ITER, OP_LOOKUP,
       OP_UPDATE, OP_UPDATE_SET, OP_DELETE_ALL, NUM_OPS };
static const char *const OP_NAMES[NUM_OPS] = {"insert",    "insert_each", "count_lt",
                                              "prefix_iter", "sort_iter", "lookup",
                                              "update",    "update_set",  "delete_all"};
/* The order they run in within a round: each op starts from the state the
 * one before it leaves (insert into an empty database, the reads on its N
 * rows, update on the original ages, update_set on N rows, delete_all on N
 * rows); insert_each runs last, on a second pair of fresh, empty databases. */
static const int ROUND_ORDER[NUM_OPS] = {OP_INSERT,     OP_COUNT_LT, OP_PREFIX_ITER,
                                         OP_SORT_ITER,  OP_LOOKUP,   OP_UPDATE,
                                         OP_UPDATE_SET, OP_DELETE_ALL, OP_INSERT_EACH};
/* Targets for Fief/SQLite time at N = 100,000. */
static const double TARGETS[NUM_OPS] = {0.5, 0.8, 0.1, 0.25, 0.8, 0.5, 0.8, 0.3, 0.25};
/* The age update_set gives every dog (no generated age is this high). */
#define AGE_SET 42
/* Footprint targets at N = 1,000,000: Fief's file after insert <= FILE_TARGET
 * x SQLite's database file; Fief's peak memory <= SQLite's + the input arrays
 * Fief's bulk insert is given + MEM_SLACK_MIB. */
#define FILE_TARGET 1.5
#define MEM_SLACK_MIB 128.0
#define FOOTPRINT_TARGET_N 1000000

/* ---------------------------------- Fief -------------------------------- */

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t cls;
    fief_property_key_t p_id, p_name, p_age, p_color;
    fief_value_t *values; /* n * 4 scratch for create_many */
} Fief;

/* Opens (creating it) the realm at `path` with `classes` (their properties
 * in `props`), at normal durability: what SQLite's WAL mode with
 * synchronous=NORMAL gives (a power loss may undo the last commit, never
 * damage the file); Fief still syncs the data at every commit, SQLite only
 * at checkpoints. */
static fief_realm_t *bench_realm_open(const char *path, const fief_class_info_t *classes, size_t num_classes,
                                      const fief_property_info_t *const *props) {
    fief_schema_t *schema;
    fief_config_t *config;
    fief_realm_t *realm;
    FH(schema, fief_schema_new(classes, num_classes, props));
    FH(config, fief_config_new());
    FB(fief_config_set_path(config, path));
    FB(fief_config_set_durability(config, FIEF_DURABILITY_NORMAL));
    FB(fief_config_set_schema(config, schema));
    FH(realm, fief_realm_open(config));
    FB(fief_release(config));
    FB(fief_release(schema));
    return realm;
}

/* The key of property `name` of the class at `cidx` in `schema`. */
static fief_property_key_t bench_prop_key(fief_schema_t *schema, size_t cidx, const char *name) {
    fief_property_info_t pi;
    bool found = false;
    FB(fief_schema_find_property(schema, cidx, name, &pi, &found));
    CHECK(found, "fief: property %s missing from the realm's schema", name);
    CHECK(pi.key != 0, "fief: property %s has key 0", name);
    return pi.key;
}

/* The key of class `name` in `realm`, and in `keys` those of its properties
 * `names`. */
static fief_class_key_t bench_class_keys(fief_realm_t *realm, const char *name, const char *const *names,
                                         fief_property_key_t *keys, size_t num_names) {
    fief_schema_t *rs;
    FH(rs, fief_realm_get_schema(realm));
    fief_class_info_t ci;
    size_t cidx = 0;
    bool found = false;
    FB(fief_schema_find_class(rs, name, &ci, &cidx, &found));
    CHECK(found, "fief: class %s missing from the realm's schema", name);
    for (size_t i = 0; i < num_names; i++) keys[i] = bench_prop_key(rs, cidx, names[i]);
    FB(fief_release(rs));
    return ci.key;
}

/* Closes `realm` and deletes its files at `path`. */
static void bench_realm_close_and_delete(fief_realm_t *realm, const char *path) {
    FB(fief_realm_close(realm));
    FB(fief_release(realm));
    bool deleted = false;
    FB(fief_file_delete(path, &deleted));
    CHECK(deleted, "fief: fief_file_delete found no file at %s", path);
}

static fief_value_t value_string(const char *s, size_t len) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_STRING;
    v.u.string.data = s;
    v.u.string.size = len;
    return v;
}

static fief_value_t value_int(int64_t i) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_INT;
    v.u.integer = i;
    return v;
}

static fief_value_t value_double(double d) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_DOUBLE;
    v.u.double_value = d;
    return v;
}

static void fief_open(Fief *f, const Data *d, const char *path) {
    snprintf(f->path, sizeof f->path, "%s", path);
    fief_property_info_t props[4];
    memset(props, 0, sizeof props);
    props[0].name = "id";    props[0].type = FIEF_TYPE_INT;    props[0].flags = FIEF_PROPERTY_PRIMARY_KEY;
    props[1].name = "name";  props[1].type = FIEF_TYPE_STRING;
    props[2].name = "age";   props[2].type = FIEF_TYPE_INT;
    props[3].name = "color"; props[3].type = FIEF_TYPE_STRING;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Dog";
    cls.num_properties = 4;
    const fief_property_info_t *const class_props[1] = {props};

    f->realm = bench_realm_open(path, &cls, 1, class_props);
    const char *const names[4] = {"id", "name", "age", "color"};
    fief_property_key_t keys[4];
    f->cls = bench_class_keys(f->realm, "Dog", names, keys, 4);
    f->p_id = keys[0];
    f->p_name = keys[1];
    f->p_age = keys[2];
    f->p_color = keys[3];

    if (!f->values) {
        f->values = malloc(d->n * 4 * sizeof *f->values);
        CHECK(f->values, "out of memory");
    }
}

static void fief_close_and_delete(Fief *f) {
    bench_realm_close_and_delete(f->realm, f->path);
    f->realm = NULL;
}

static size_t fief_count_all(Fief *f) {
    fief_results_t *all;
    size_t c = 0;
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    FB(fief_results_count(all, &c));
    FB(fief_release(all));
    return c;
}

/* After insert / insert_each: N objects, and a few of them read back whole. */
static void fief_check_inserted(Fief *f, const Data *d, const char *op) {
    size_t c = fief_count_all(f);
    CHECK(c == d->n, "fief %s: count %zu after insert, expected %zu", op, c, d->n);
    for (size_t i = 0; i < d->n; i += d->n / 7 + 1) {
        fief_value_t pk = {.type = FIEF_TYPE_INT};
        pk.u.integer = (int64_t)i + 1;
        bool found = false;
        fief_object_t *o = fief_object_find_by_primary_key(f->realm, f->cls, pk, &found);
        if (!o && found) fief_die("fief_object_find_by_primary_key", __LINE__);
        CHECK(o, "fief %s: id %zu not found after insert", op, i + 1);
        fief_value_t out[3];
        const fief_property_key_t rp[3] = {f->p_name, f->p_age, f->p_color};
        FB(fief_object_get_values(o, rp, 3, out));
        const char *col = COLORS[d->colors[i]];
        CHECK(out[0].type == FIEF_TYPE_STRING && out[0].u.string.size == NAME_LEN &&
              memcmp(out[0].u.string.data, d->names + i * NAME_LEN, NAME_LEN) == 0 &&
              out[1].type == FIEF_TYPE_INT && out[1].u.integer == d->ages[i] &&
              out[2].type == FIEF_TYPE_STRING && out[2].u.string.size == strlen(col) &&
              memcmp(out[2].u.string.data, col, strlen(col)) == 0,
              "fief %s: id %zu reads back wrong values", op, i + 1);
        FB(fief_release(o));
    }
}

static NOINLINE double fief_insert(Fief *f, const Data *d) {
    CHECK(fief_count_all(f) == 0, "fief insert: realm not empty before insert");
    const fief_property_key_t props[4] = {f->p_id, f->p_name, f->p_age, f->p_color};
    double t0 = now_ms();
    fief_value_t *v = f->values;
    for (size_t i = 0; i < d->n; i++, v += 4) {
        v[0].type = FIEF_TYPE_INT;    v[0].u.integer = (int64_t)i + 1;
        v[1].type = FIEF_TYPE_STRING; v[1].u.string.data = d->names + i * NAME_LEN;
                                      v[1].u.string.size = NAME_LEN;
        v[2].type = FIEF_TYPE_INT;    v[2].u.integer = d->ages[i];
        v[3].type = FIEF_TYPE_STRING; v[3].u.string.data = COLORS[d->colors[i]];
                                      v[3].u.string.size = strlen(COLORS[d->colors[i]]);
    }
    FB(fief_realm_begin_write(f->realm));
    FB(fief_object_create_many(f->realm, f->cls, props, 4, f->values, d->n,
                               FIEF_UPDATE_POLICY_ERROR, NULL));
    FB(fief_realm_commit(f->realm));
    double t = now_ms() - t0;
    fief_check_inserted(f, d, "insert");
    return t;
}

/* The same N objects, one fief_object_create per object (its handle released
 * at once), in one write transaction: what a program without the bulk call
 * writes. */
static NOINLINE double fief_insert_each(Fief *f, const Data *d) {
    CHECK(fief_count_all(f) == 0, "fief insert_each: realm not empty before insert");
    const fief_property_key_t props[4] = {f->p_id, f->p_name, f->p_age, f->p_color};
    double t0 = now_ms();
    FB(fief_realm_begin_write(f->realm));
    for (size_t i = 0; i < d->n; i++) {
        fief_value_t v[4];
        v[0].type = FIEF_TYPE_INT;    v[0].u.integer = (int64_t)i + 1;
        v[1].type = FIEF_TYPE_STRING; v[1].u.string.data = d->names + i * NAME_LEN;
                                      v[1].u.string.size = NAME_LEN;
        v[2].type = FIEF_TYPE_INT;    v[2].u.integer = d->ages[i];
        v[3].type = FIEF_TYPE_STRING; v[3].u.string.data = COLORS[d->colors[i]];
                                      v[3].u.string.size = strlen(COLORS[d->colors[i]]);
        fief_object_t *o;
        FH(o, fief_object_create(f->realm, f->cls, props, v, 4, FIEF_UPDATE_POLICY_ERROR));
        FB(fief_release(o));
    }
    FB(fief_realm_commit(f->realm));
    double t = now_ms() - t0;
    fief_check_inserted(f, d, "insert_each");
    return t;
}

static size_t fief_count_age_lt(Fief *f, int64_t limit) {
    fief_results_t *all, *res;
    fief_value_t arg = {.type = FIEF_TYPE_INT};
    arg.u.integer = limit;
    fief_query_arg_t qa = {.count = 1, .is_list = false, .values = &arg};
    size_t c = 0;
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    FH(res, fief_results_filter(all, "age < $0", &qa, 1));
    FB(fief_results_count(res, &c));
    FB(fief_release(res));
    FB(fief_release(all));
    return c;
}

static NOINLINE double fief_count_lt(Fief *f, const Data *d) {
    double t0 = now_ms();
    size_t c = fief_count_age_lt(f, AGE_LIMIT);
    double t = now_ms() - t0;
    CHECK(c == d->count_lt, "fief count_lt: got %zu, expected %zu", c, d->count_lt);
    return t;
}

static NOINLINE double fief_prefix_iter(Fief *f, const Data *d) {
    char pfx[1] = {PREFIX_CHAR};
    fief_value_t arg = {.type = FIEF_TYPE_STRING};
    arg.u.string.data = pfx;
    arg.u.string.size = 1;
    fief_query_arg_t qa = {.count = 1, .is_list = false, .values = &arg};
    uint64_t len_sum = 0, checksum = 0;
    size_t c = 0;
    double t0 = now_ms();
    fief_results_t *all, *res;
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    FH(res, fief_results_filter(all, "name BEGINSWITH $0", &qa, 1));
    FB(fief_results_count(res, &c));
    for (size_t i = 0; i < c; i++) {
        fief_value_t v;
        FB(fief_results_get_values(res, i, &f->p_name, 1, &v));
        CHECK(v.type == FIEF_TYPE_STRING, "fief prefix_iter: name is not a string");
        len_sum += v.u.string.size;
        checksum += name_hash(v.u.string.data, v.u.string.size);
    }
    FB(fief_release(res));
    FB(fief_release(all));
    double t = now_ms() - t0;
    CHECK(c == d->prefix_count && len_sum == d->prefix_len_sum && checksum == d->prefix_checksum,
          "fief prefix_iter: got %zu rows / length sum %llu, expected %zu / %llu (checksum %s)", c,
          (unsigned long long)len_sum, d->prefix_count, (unsigned long long)d->prefix_len_sum,
          checksum == d->prefix_checksum ? "ok" : "differs");
    return t;
}

static NOINLINE double fief_sort_iter(Fief *f, const Data *d) {
    fief_sort_descriptor_t key = {.key_path = "name", .ascending = true};
    size_t c = 0;
    double t0 = now_ms();
    fief_results_t *all, *res;
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    FH(res, fief_results_sort(all, &key, 1));
    FB(fief_results_count(res, &c));
    CHECK(c == d->n, "fief sort_iter: %zu results, expected %zu", c, d->n);
    for (size_t i = 0; i < c; i++) {
        fief_value_t v;
        FB(fief_results_get_values(res, i, &f->p_name, 1, &v));
        CHECK(v.type == FIEF_TYPE_STRING && v.u.string.size == NAME_LEN &&
              memcmp(v.u.string.data, d->names + d->sorted[i] * NAME_LEN, NAME_LEN) == 0,
              "fief sort_iter: wrong name at position %zu", i);
    }
    FB(fief_release(res));
    FB(fief_release(all));
    return now_ms() - t0;
}

static NOINLINE double fief_lookup(Fief *f, const Data *d) {
    const fief_property_key_t rp[2] = {f->p_name, f->p_age};
    int64_t age_sum = 0;
    double t0 = now_ms();
    for (int i = 0; i < NUM_LOOKUPS; i++) {
        int64_t id = d->lookup_ids[i];
        fief_value_t pk = {.type = FIEF_TYPE_INT};
        pk.u.integer = id;
        bool found = false;
        fief_object_t *o = fief_object_find_by_primary_key(f->realm, f->cls, pk, &found);
        if (!o && found) fief_die("fief_object_find_by_primary_key", __LINE__);
        CHECK(o, "fief lookup: id %lld not found", (long long)id);
        fief_value_t out[2];
        FB(fief_object_get_values(o, rp, 2, out));
        CHECK(out[0].type == FIEF_TYPE_STRING && out[0].u.string.size == NAME_LEN &&
              memcmp(out[0].u.string.data, d->names + (id - 1) * NAME_LEN, NAME_LEN) == 0 &&
              out[1].type == FIEF_TYPE_INT,
              "fief lookup: id %lld reads back wrong values", (long long)id);
        age_sum += out[1].u.integer;
        FB(fief_release(o));
    }
    double t = now_ms() - t0;
    CHECK(age_sum == d->lookup_age_sum, "fief lookup: age sum %lld, expected %lld",
          (long long)age_sum, (long long)d->lookup_age_sum);
    return t;
}

static NOINLINE double fief_update(Fief *f, const Data *d) {
    size_t c = 0;
    double t0 = now_ms();
    FB(fief_realm_begin_write(f->realm));
    fief_results_t *all;
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    FB(fief_results_count(all, &c));
    CHECK(c == d->n, "fief update: %zu objects, expected %zu", c, d->n);
    for (size_t i = 0; i < c; i++) {
        fief_object_t *o;
        FH(o, fief_results_get_object(all, i));
        fief_value_t v;
        FB(fief_object_get_value(o, f->p_age, &v));
        CHECK(v.type == FIEF_TYPE_INT, "fief update: age is not an int");
        v.u.integer += 1;
        FB(fief_object_set_value(o, f->p_age, v));
        FB(fief_release(o));
    }
    FB(fief_release(all));
    FB(fief_realm_commit(f->realm));
    double t = now_ms() - t0;
    /* every age went up by one: sum + n, and count(age < 6) == count(old age < 5) */
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    FB(fief_results_count(all, &c));
    CHECK(c == d->n, "fief update: %zu objects after update, expected %zu", c, d->n);
    int64_t sum = 0;
    for (size_t i = 0; i < c; i++) {
        fief_value_t v;
        FB(fief_results_get_values(all, i, &f->p_age, 1, &v));
        CHECK(v.type == FIEF_TYPE_INT, "fief update: age is not an int");
        sum += v.u.integer;
    }
    FB(fief_release(all));
    CHECK(sum == d->age_sum + (int64_t)d->n, "fief update: age sum %lld, expected %lld",
          (long long)sum, (long long)(d->age_sum + (int64_t)d->n));
    size_t lt = fief_count_age_lt(f, AGE_LIMIT + 1);
    CHECK(lt == d->count_lt, "fief update: count(age < %d) %zu, expected %zu", AGE_LIMIT + 1, lt,
          d->count_lt);
    return t;
}

/* Every dog's age set to AGE_SET in one call (fief_results_set_value): the
 * set-based counterpart of SQLite's UPDATE. */
static NOINLINE double fief_update_set(Fief *f, const Data *d) {
    double t0 = now_ms();
    FB(fief_realm_begin_write(f->realm));
    fief_results_t *all;
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    fief_value_t age = {.type = FIEF_TYPE_INT};
    age.u.integer = AGE_SET;
    FB(fief_results_set_value(all, f->p_age, age));
    FB(fief_release(all));
    FB(fief_realm_commit(f->realm));
    double t = now_ms() - t0;
    size_t c = 0;
    FH(all, fief_realm_get_objects(f->realm, f->cls));
    FB(fief_results_count(all, &c));
    CHECK(c == d->n, "fief update_set: %zu objects after update_set, expected %zu", c, d->n);
    int64_t sum = 0;
    for (size_t i = 0; i < c; i++) {
        fief_value_t v;
        FB(fief_results_get_values(all, i, &f->p_age, 1, &v));
        CHECK(v.type == FIEF_TYPE_INT, "fief update_set: age is not an int");
        sum += v.u.integer;
    }
    FB(fief_release(all));
    CHECK(sum == (int64_t)d->n * AGE_SET, "fief update_set: age sum %lld, expected %lld", (long long)sum,
          (long long)d->n * AGE_SET);
    size_t lt = fief_count_age_lt(f, AGE_SET);
    CHECK(lt == 0, "fief update_set: %zu dogs younger than %d", lt, AGE_SET);
    return t;
}

static NOINLINE double fief_delete_all(Fief *f, const Data *d) {
    CHECK(fief_count_all(f) == d->n, "fief delete_all: wrong count before delete");
    double t0 = now_ms();
    FB(fief_realm_begin_write(f->realm));
    FB(fief_realm_delete_all_of_class(f->realm, f->cls));
    FB(fief_realm_commit(f->realm));
    double t = now_ms() - t0;
    size_t c = fief_count_all(f);
    CHECK(c == 0, "fief delete_all: %zu objects left", c);
    fief_value_t pk = {.type = FIEF_TYPE_INT};
    pk.u.integer = 1;
    bool found = true;
    fief_object_t *o = fief_object_find_by_primary_key(f->realm, f->cls, pk, &found);
    if (!o && found) fief_die("fief_object_find_by_primary_key", __LINE__);
    CHECK(!o, "fief delete_all: id 1 still found after delete_all");
    return t;
}

/* --------------------------------- SQLite ------------------------------- */

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *ins, *count_all, *count_lt, *prefix, *sort, *lookup,
        *update, *update_set, *sum_age, *delete_all, *row;
} Sql;

/* The prefix query.  Without an index SQLite has several correct forms; the
 * warm-up round times each candidate and the timed rounds use the fastest
 * (so SQLite's figure is its best honest one).  FIEF_BENCH_SQLITE_PREFIX
 * forces one query (it must select the names and take no parameters). */
static const char *const PREFIX_CANDIDATES[] = {
    "SELECT name FROM dogs WHERE name GLOB 'B*'",
    "SELECT name FROM dogs WHERE name LIKE 'B%'",
    "SELECT name FROM dogs WHERE name >= 'B' AND name < 'C'",
};
#define NUM_PREFIX_CANDIDATES (sizeof PREFIX_CANDIDATES / sizeof PREFIX_CANDIDATES[0])
static const char *g_prefix_query = NULL;

static const char *sqlite_prefix_query(void) {
    if (g_prefix_query) return g_prefix_query;
    const char *q = getenv("FIEF_BENCH_SQLITE_PREFIX");
    return q && *q ? q : PREFIX_CANDIDATES[0];
}

static sqlite3_stmt *sql_prep(Sql *s, const char *q) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, q, -1, &st, NULL);
    if (rc != SQLITE_OK) die("sqlite prepare \"%s\": %s", q, sqlite3_errmsg(s->db));
    return st;
}

static void sql_exec(Sql *s, const char *q) {
    char *err = NULL;
    if (sqlite3_exec(s->db, q, NULL, NULL, &err) != SQLITE_OK)
        die("sqlite \"%s\": %s", q, err ? err : "?");
}

static void sql_step_done(Sql *s, sqlite3_stmt *st) {
    SQ(s->db, sqlite3_step(st), SQLITE_DONE);
    SQ(s->db, sqlite3_reset(st), SQLITE_OK);
}

/* A Sql with only its connection set: lets the other workloads' SQLite
 * sides use sql_prep, sql_exec and sql_step_done on their own connections. */
static Sql sql_on(sqlite3 *db) {
    Sql s;
    memset(&s, 0, sizeof s);
    s.db = db;
    return s;
}

/* Opens (creating it) the SQLite database at `path` in WAL mode with
 * synchronous=NORMAL, the setting every workload compares Fief with. */
static sqlite3 *sql_open_wal(const char *path) {
    sqlite3 *db = NULL;
    SQ(db, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
    Sql s = sql_on(db);
    sqlite3_stmt *st = sql_prep(&s, "PRAGMA journal_mode=WAL");
    SQ(db, sqlite3_step(st), SQLITE_ROW);
    CHECK(strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0, "sqlite: journal_mode is not wal");
    sqlite3_finalize(st);
    sql_exec(&s, "PRAGMA synchronous=NORMAL");
    return db;
}

/* Finalizes `stmts`, closes `db` and deletes its files at `path`. */
static void sql_close_and_delete_db(sqlite3 *db, const char *path, sqlite3_stmt *const *stmts, size_t num_stmts) {
    for (size_t i = 0; i < num_stmts; i++) sqlite3_finalize(stmts[i]);
    SQ(db, sqlite3_close(db), SQLITE_OK);
    CHECK(unlink(path) == 0, "sqlite: cannot delete %s", path);
    char p[8300];
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

static void sql_open(Sql *s, const char *path) {
    snprintf(s->path, sizeof s->path, "%s", path);
    s->db = sql_open_wal(path);
    sql_exec(s, "CREATE TABLE dogs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                "age INTEGER NOT NULL, color TEXT NOT NULL)");
    s->begin = sql_prep(s, "BEGIN");
    s->commit = sql_prep(s, "COMMIT");
    s->ins = sql_prep(s, "INSERT INTO dogs(id, name, age, color) VALUES (?, ?, ?, ?)");
    s->count_all = sql_prep(s, "SELECT count(*) FROM dogs");
    s->count_lt = sql_prep(s, "SELECT count(*) FROM dogs WHERE age < ?");
    s->prefix = sql_prep(s, sqlite_prefix_query());
    s->sort = sql_prep(s, "SELECT name FROM dogs ORDER BY name");
    s->lookup = sql_prep(s, "SELECT name, age FROM dogs WHERE id = ?");
    s->update = sql_prep(s, "UPDATE dogs SET age = age + 1");
    s->update_set = sql_prep(s, "UPDATE dogs SET age = ?");
    s->sum_age = sql_prep(s, "SELECT count(*), sum(age) FROM dogs");
    s->delete_all = sql_prep(s, "DELETE FROM dogs");
    s->row = sql_prep(s, "SELECT name, age, color FROM dogs WHERE id = ?");
}

static void sql_close_and_delete(Sql *s) {
    sqlite3_stmt *const all[] = {s->begin, s->commit, s->ins, s->count_all, s->count_lt, s->prefix,
                                 s->sort, s->lookup, s->update, s->update_set, s->sum_age, s->delete_all,
                                 s->row};
    sql_close_and_delete_db(s->db, s->path, all, sizeof all / sizeof all[0]);
    s->db = NULL;
}

static int64_t sql_scalar(Sql *s, sqlite3_stmt *st) {
    SQ(s->db, sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    SQ(s->db, sqlite3_step(st), SQLITE_DONE);
    SQ(s->db, sqlite3_reset(st), SQLITE_OK);
    return v;
}

/* After insert / insert_each: N rows, and the same few rows as Fief's check
 * read back whole. */
static void sql_check_inserted(Sql *s, const Data *d, const char *op) {
    int64_t c = sql_scalar(s, s->count_all);
    CHECK(c == (int64_t)d->n, "sqlite %s: count %lld, expected %zu", op, (long long)c, d->n);
    for (size_t i = 0; i < d->n; i += d->n / 7 + 1) {
        const char *col = COLORS[d->colors[i]];
        SQ(s->db, sqlite3_bind_int64(s->row, 1, (sqlite3_int64)i + 1), SQLITE_OK);
        SQ(s->db, sqlite3_step(s->row), SQLITE_ROW);
        const char *nm = (const char *)sqlite3_column_text(s->row, 0);
        size_t nlen = (size_t)sqlite3_column_bytes(s->row, 0);
        int64_t age = sqlite3_column_int64(s->row, 1);
        const char *cl = (const char *)sqlite3_column_text(s->row, 2);
        size_t clen = (size_t)sqlite3_column_bytes(s->row, 2);
        CHECK(nm && nlen == NAME_LEN && memcmp(nm, d->names + i * NAME_LEN, NAME_LEN) == 0 &&
              age == d->ages[i] && cl && clen == strlen(col) && memcmp(cl, col, clen) == 0,
              "sqlite %s: id %zu reads back wrong values", op, i + 1);
        SQ(s->db, sqlite3_step(s->row), SQLITE_DONE);
        SQ(s->db, sqlite3_reset(s->row), SQLITE_OK);
    }
}

/* One bound INSERT per row in one transaction: SQLite's insert and
 * insert_each are this same code (SQLite has no bulk call), timed separately
 * so that each ratio compares runs made at the same point of the round. */
static double sql_insert_rows(Sql *s, const Data *d, const char *op) {
    CHECK(sql_scalar(s, s->count_all) == 0, "sqlite %s: table not empty before insert", op);
    double t0 = now_ms();
    sql_step_done(s, s->begin);
    for (size_t i = 0; i < d->n; i++) {
        const char *col = COLORS[d->colors[i]];
        SQ(s->db, sqlite3_bind_int64(s->ins, 1, (sqlite3_int64)i + 1), SQLITE_OK);
        SQ(s->db, sqlite3_bind_text(s->ins, 2, d->names + i * NAME_LEN, NAME_LEN, SQLITE_STATIC),
           SQLITE_OK);
        SQ(s->db, sqlite3_bind_int64(s->ins, 3, d->ages[i]), SQLITE_OK);
        SQ(s->db, sqlite3_bind_text(s->ins, 4, col, (int)strlen(col), SQLITE_STATIC), SQLITE_OK);
        sql_step_done(s, s->ins);
    }
    sql_step_done(s, s->commit);
    double t = now_ms() - t0;
    sql_check_inserted(s, d, op);
    return t;
}

static NOINLINE double sql_insert(Sql *s, const Data *d) { return sql_insert_rows(s, d, "insert"); }

static NOINLINE double sql_insert_each(Sql *s, const Data *d) {
    return sql_insert_rows(s, d, "insert_each");
}

static NOINLINE double sql_count_lt(Sql *s, const Data *d) {
    double t0 = now_ms();
    SQ(s->db, sqlite3_bind_int64(s->count_lt, 1, AGE_LIMIT), SQLITE_OK);
    int64_t c = sql_scalar(s, s->count_lt);
    double t = now_ms() - t0;
    CHECK(c == (int64_t)d->count_lt, "sqlite count_lt: got %lld, expected %zu", (long long)c,
          d->count_lt);
    return t;
}

static double sql_prefix_run(Sql *s, sqlite3_stmt *st, const Data *d) {
    uint64_t len_sum = 0, checksum = 0;
    size_t c = 0;
    int rc;
    double t0 = now_ms();
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *nm = (const char *)sqlite3_column_text(st, 0);
        size_t len = (size_t)sqlite3_column_bytes(st, 0);
        len_sum += len;
        checksum += name_hash(nm, len);
        c++;
    }
    if (rc != SQLITE_DONE) sql_die(s->db, "sqlite3_step(prefix)", rc, __LINE__);
    SQ(s->db, sqlite3_reset(st), SQLITE_OK);
    double t = now_ms() - t0;
    CHECK(c == d->prefix_count && len_sum == d->prefix_len_sum && checksum == d->prefix_checksum,
          "sqlite prefix_iter (%s): got %zu rows / length sum %llu, expected %zu / %llu",
          sqlite3_sql(st), c, (unsigned long long)len_sum, d->prefix_count,
          (unsigned long long)d->prefix_len_sum);
    return t;
}

static int g_choose_prefix = 0; /* set for the warm-up round */

static NOINLINE double sql_prefix_iter(Sql *s, const Data *d) {
    if (g_choose_prefix && !getenv("FIEF_BENCH_SQLITE_PREFIX")) {
        /* time (and check) every candidate; keep the fastest */
        double best = 0;
        for (size_t k = 0; k < NUM_PREFIX_CANDIDATES; k++) {
            sqlite3_stmt *st = sql_prep(s, PREFIX_CANDIDATES[k]);
            double t = 1e300;
            for (int rep = 0; rep < 3; rep++) {
                double x = sql_prefix_run(s, st, d);
                if (x < t) t = x;
            }
            sqlite3_finalize(st);
            fprintf(stderr, "bench: sqlite prefix candidate %.3f ms: %s\n", t,
                    PREFIX_CANDIDATES[k]);
            if (k == 0 || t < best) {
                best = t;
                g_prefix_query = PREFIX_CANDIDATES[k];
            }
        }
        sqlite3_finalize(s->prefix);
        s->prefix = sql_prep(s, g_prefix_query);
        fprintf(stderr, "bench: sqlite prefix query: %s\n", g_prefix_query);
    }
    return sql_prefix_run(s, s->prefix, d);
}

static NOINLINE double sql_sort_iter(Sql *s, const Data *d) {
    size_t i = 0;
    int rc;
    double t0 = now_ms();
    while ((rc = sqlite3_step(s->sort)) == SQLITE_ROW) {
        const char *nm = (const char *)sqlite3_column_text(s->sort, 0);
        size_t len = (size_t)sqlite3_column_bytes(s->sort, 0);
        CHECK(i < d->n && len == NAME_LEN &&
              memcmp(nm, d->names + d->sorted[i] * NAME_LEN, NAME_LEN) == 0,
              "sqlite sort_iter: wrong name at position %zu", i);
        i++;
    }
    if (rc != SQLITE_DONE) sql_die(s->db, "sqlite3_step(sort)", rc, __LINE__);
    SQ(s->db, sqlite3_reset(s->sort), SQLITE_OK);
    double t = now_ms() - t0;
    CHECK(i == d->n, "sqlite sort_iter: %zu rows, expected %zu", i, d->n);
    return t;
}

static NOINLINE double sql_lookup(Sql *s, const Data *d) {
    int64_t age_sum = 0;
    double t0 = now_ms();
    for (int i = 0; i < NUM_LOOKUPS; i++) {
        int64_t id = d->lookup_ids[i];
        SQ(s->db, sqlite3_bind_int64(s->lookup, 1, id), SQLITE_OK);
        SQ(s->db, sqlite3_step(s->lookup), SQLITE_ROW);
        const char *nm = (const char *)sqlite3_column_text(s->lookup, 0);
        size_t len = (size_t)sqlite3_column_bytes(s->lookup, 0);
        CHECK(len == NAME_LEN && memcmp(nm, d->names + (id - 1) * NAME_LEN, NAME_LEN) == 0,
              "sqlite lookup: id %lld reads back a wrong name", (long long)id);
        age_sum += sqlite3_column_int64(s->lookup, 1);
        SQ(s->db, sqlite3_reset(s->lookup), SQLITE_OK);
    }
    double t = now_ms() - t0;
    CHECK(age_sum == d->lookup_age_sum, "sqlite lookup: age sum %lld, expected %lld",
          (long long)age_sum, (long long)d->lookup_age_sum);
    return t;
}

static NOINLINE double sql_update(Sql *s, const Data *d) {
    double t0 = now_ms();
    sql_step_done(s, s->begin);
    sql_step_done(s, s->update);
    sql_step_done(s, s->commit);
    double t = now_ms() - t0;
    CHECK(sqlite3_changes(s->db) == (int)d->n, "sqlite update: %d rows changed, expected %zu",
          sqlite3_changes(s->db), d->n);
    SQ(s->db, sqlite3_step(s->sum_age), SQLITE_ROW);
    int64_t c = sqlite3_column_int64(s->sum_age, 0), sum = sqlite3_column_int64(s->sum_age, 1);
    SQ(s->db, sqlite3_reset(s->sum_age), SQLITE_OK);
    CHECK(c == (int64_t)d->n && sum == d->age_sum + (int64_t)d->n,
          "sqlite update: count %lld / age sum %lld, expected %zu / %lld", (long long)c,
          (long long)sum, d->n, (long long)(d->age_sum + (int64_t)d->n));
    SQ(s->db, sqlite3_bind_int64(s->count_lt, 1, AGE_LIMIT + 1), SQLITE_OK);
    int64_t lt = sql_scalar(s, s->count_lt);
    CHECK(lt == (int64_t)d->count_lt, "sqlite update: count(age < %d) %lld, expected %zu",
          AGE_LIMIT + 1, (long long)lt, d->count_lt);
    return t;
}

static NOINLINE double sql_update_set(Sql *s, const Data *d) {
    double t0 = now_ms();
    sql_step_done(s, s->begin);
    SQ(s->db, sqlite3_bind_int64(s->update_set, 1, AGE_SET), SQLITE_OK);
    sql_step_done(s, s->update_set);
    sql_step_done(s, s->commit);
    double t = now_ms() - t0;
    CHECK(sqlite3_changes(s->db) == (int)d->n, "sqlite update_set: %d rows changed, expected %zu",
          sqlite3_changes(s->db), d->n);
    SQ(s->db, sqlite3_step(s->sum_age), SQLITE_ROW);
    int64_t c = sqlite3_column_int64(s->sum_age, 0), sum = sqlite3_column_int64(s->sum_age, 1);
    SQ(s->db, sqlite3_reset(s->sum_age), SQLITE_OK);
    CHECK(c == (int64_t)d->n && sum == (int64_t)d->n * AGE_SET,
          "sqlite update_set: count %lld / age sum %lld, expected %zu / %lld", (long long)c,
          (long long)sum, d->n, (long long)d->n * AGE_SET);
    SQ(s->db, sqlite3_bind_int64(s->count_lt, 1, AGE_SET), SQLITE_OK);
    int64_t lt = sql_scalar(s, s->count_lt);
    CHECK(lt == 0, "sqlite update_set: %lld dogs younger than %d", (long long)lt, AGE_SET);
    return t;
}

static NOINLINE double sql_delete_all(Sql *s, const Data *d) {
    CHECK(sql_scalar(s, s->count_all) == (int64_t)d->n, "sqlite delete_all: wrong count before");
    double t0 = now_ms();
    sql_step_done(s, s->begin);
    sql_step_done(s, s->delete_all);
    sql_step_done(s, s->commit);
    double t = now_ms() - t0;
    int64_t c = sql_scalar(s, s->count_all);
    CHECK(c == 0, "sqlite delete_all: %lld rows left", (long long)c);
    return t;
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                    */
/* ------------------------------------------------------------------------ */

#define ROUNDS 5

static double run_fief(int op, Fief *f, const Data *d) {
    switch (op) {
    case OP_INSERT: return fief_insert(f, d);
    case OP_INSERT_EACH: return fief_insert_each(f, d);
    case OP_COUNT_LT: return fief_count_lt(f, d);
    case OP_PREFIX_ITER: return fief_prefix_iter(f, d);
    case OP_SORT_ITER: return fief_sort_iter(f, d);
    case OP_LOOKUP: return fief_lookup(f, d);
    case OP_UPDATE: return fief_update(f, d);
    case OP_UPDATE_SET: return fief_update_set(f, d);
    default: return fief_delete_all(f, d);
    }
}

static double run_sql(int op, Sql *s, const Data *d) {
    switch (op) {
    case OP_INSERT: return sql_insert(s, d);
    case OP_INSERT_EACH: return sql_insert_each(s, d);
    case OP_COUNT_LT: return sql_count_lt(s, d);
    case OP_PREFIX_ITER: return sql_prefix_iter(s, d);
    case OP_SORT_ITER: return sql_sort_iter(s, d);
    case OP_LOOKUP: return sql_lookup(s, d);
    case OP_UPDATE: return sql_update(s, d);
    case OP_UPDATE_SET: return sql_update_set(s, d);
    default: return sql_delete_all(s, d);
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n) {
    double tmp[ROUNDS];
    memcpy(tmp, v, (size_t)n * sizeof *v);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* ------------------------------------------------------------------------ */
/* Footprint: file size after insert, peak memory per engine                 */
/* ------------------------------------------------------------------------ */

/* Both engines share this process during the timed rounds, so their memory
 * cannot be told apart there.  After the rounds, the benchmark runs itself
 * once per engine as a child process (`--footprint fief|sqlite N`, through
 * /proc/self/exe): the child generates the same data, opens a fresh database,
 * resets the peak RSS (writing "5" to /proc/self/clear_refs sets VmHWM back to
 * the current RSS), runs that engine's insert, reads VmHWM and the files'
 * sizes, then runs the rest of a round (with its result checks) and reads
 * VmHWM again.  It prints one line of key=value pairs that the parent reads
 * from a pipe.  Linux only: elsewhere the figures read n/a. */

typedef struct {
    long long base_kib;      /* VmRSS just before the insert (after the reset) */
    long long insert_kib;    /* VmHWM after the insert */
    long long round_kib;     /* VmHWM after the whole round (insert included) */
    long long anon_kib;      /* RssAnon right after the insert */
    long long mapped_kib;    /* RssFile right after the insert */
    long long main_bytes;    /* fief: realm file; sqlite: db file, as committed */
    long long main_alloc;    /* the same file's allocated bytes (st_blocks * 512) */
    long long aux_bytes;     /* fief: -lock file; sqlite: -wal file, as committed */
    long long ckpt_main;     /* sqlite: db file after wal_checkpoint(TRUNCATE) */
    long long ckpt_aux;      /* sqlite: -wal file after it */
    long long reset;         /* 1 when clear_refs reset the peak */
} Footprint;

static const char *const FOOTPRINT_KEYS[] = {"base_kib", "insert_kib", "round_kib",
                                             "anon_kib", "mapped_kib", "main_bytes",
                                             "main_alloc", "aux_bytes", "ckpt_main",
                                             "ckpt_aux", "reset"};
#define NUM_FOOTPRINT_KEYS (sizeof FOOTPRINT_KEYS / sizeof FOOTPRINT_KEYS[0])

static long long *footprint_field(Footprint *fp, size_t k) {
    long long *fields[NUM_FOOTPRINT_KEYS] = {
        &fp->base_kib,   &fp->insert_kib, &fp->round_kib, &fp->anon_kib,
        &fp->mapped_kib, &fp->main_bytes, &fp->main_alloc, &fp->aux_bytes,
        &fp->ckpt_main,  &fp->ckpt_aux,   &fp->reset};
    return fields[k];
}

static long long file_bytes(const char *path, long long *alloc) {
    struct stat st;
    if (stat(path, &st) != 0) {
        if (alloc) *alloc = -1;
        return -1;
    }
    if (alloc) *alloc = (long long)st.st_blocks * 512;
    return (long long)st.st_size;
}

/* A "Key:   123 kB" line of /proc/self/status, in KiB; -1 if unavailable. */
static long long status_kib(const char *key) {
    FILE *fp = fopen("/proc/self/status", "r");
    if (!fp) return -1;
    char line[256];
    long long v = -1;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = strtoll(line + klen + 1, NULL, 10);
            break;
        }
    }
    fclose(fp);
    return v;
}

static int reset_peak_rss(void) {
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    if (!fp) return 0;
    int ok = fputs("5", fp) >= 0;
    ok = (fclose(fp) == 0) && ok;
    return ok;
}

static NOINLINE void footprint_child(int engine, const Data *d, const int *op_enabled) {
    Fief f;
    Sql s;
    Footprint fp;
    char p[8192], aux[8300];
    memset(&f, 0, sizeof f);
    memset(&s, 0, sizeof s);
    for (size_t k = 0; k < NUM_FOOTPRINT_KEYS; k++) *footprint_field(&fp, k) = -1;
    snprintf(p, sizeof p, "%s/%s", g_tmpdir, engine == 0 ? "fief.realm" : "sqlite.db");
    if (engine == 0) fief_open(&f, d, p); else sql_open(&s, p);

    fp.reset = reset_peak_rss();
    fp.base_kib = status_kib("VmRSS");
    if (engine == 0) fief_insert(&f, d); else sql_insert(&s, d);
    fp.insert_kib = status_kib("VmHWM");
    fp.anon_kib = status_kib("RssAnon");
    fp.mapped_kib = status_kib("RssFile");
    fp.main_bytes = file_bytes(p, &fp.main_alloc);
    snprintf(aux, sizeof aux, "%s%s", p, engine == 0 ? "-lock" : "-wal");
    fp.aux_bytes = file_bytes(aux, NULL);
    if (engine == 1) {
        /* Copy every WAL frame into the database file and truncate the WAL:
         * the database file then holds all the rows, as Fief's file does. */
        sqlite3_stmt *st = sql_prep(&s, "PRAGMA wal_checkpoint(TRUNCATE)");
        SQ(s.db, sqlite3_step(st), SQLITE_ROW);
        CHECK(sqlite3_column_int(st, 0) == 0, "sqlite: wal_checkpoint(TRUNCATE) was blocked");
        sqlite3_finalize(st);
        fp.ckpt_main = file_bytes(p, NULL);
        fp.ckpt_aux = file_bytes(aux, NULL);
    }
    const char *ename = engine == 0 ? "fief" : "sqlite";
    fprintf(stderr, "bench: footprint %-6s RSS before insert %8.1f MiB, peak after %-12s %8.1f MiB "
            "(RSS now: anon %.1f + file-mapped %.1f)\n", ename, fp.base_kib / 1024.0, "insert",
            fp.insert_kib / 1024.0, fp.anon_kib / 1024.0, fp.mapped_kib / 1024.0);

    /* The rest of a round, as in the timed rounds (results checked). */
    for (int k = 1; k < NUM_OPS; k++) {
        int op = ROUND_ORDER[k];
        if (!op_enabled[op]) continue;
        if (op == OP_INSERT_EACH) {
            snprintf(p, sizeof p, "%s/%s", g_tmpdir, engine == 0 ? "fief-each.realm" : "sqlite-each.db");
            if (engine == 0) { fief_close_and_delete(&f); fief_open(&f, d, p); }
            else { sql_close_and_delete(&s); sql_open(&s, p); }
        }
        if (engine == 0) run_fief(op, &f, d); else run_sql(op, &s, d);
        /* the peak since the reset after each op: where it rises is where it is made */
        fprintf(stderr, "bench: footprint %-6s %35s %-12s %8.1f MiB (RSS now: anon %.1f + "
                "file-mapped %.1f)", ename, "peak after", OP_NAMES[op],
                status_kib("VmHWM") / 1024.0, status_kib("RssAnon") / 1024.0,
                status_kib("RssFile") / 1024.0);
        if (op == OP_INSERT_EACH) fprintf(stderr, ", file %lld bytes", file_bytes(p, NULL));
        fprintf(stderr, "\n");
    }
    fp.round_kib = status_kib("VmHWM");
    if (engine == 0) fief_close_and_delete(&f); else sql_close_and_delete(&s);
    free(f.values);

    printf("footprint");
    for (size_t k = 0; k < NUM_FOOTPRINT_KEYS; k++)
        printf(" %s=%lld", FOOTPRINT_KEYS[k], *footprint_field(&fp, k));
    printf("\n");
    fflush(stdout);
}

/* Runs `--footprint <engine> N` as a child process and parses its line. */
static void run_footprint(const char *engine, size_t n, Footprint *out) {
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        char nbuf[32];
        snprintf(nbuf, sizeof nbuf, "%zu", n);
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0) _exit(127);
        close(fds[1]);
        execl("/proc/self/exe", "fief-bench", "--footprint", engine, nbuf, (char *)NULL);
        fprintf(stderr, "bench: cannot run /proc/self/exe: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char buf[4096];
    size_t len = 0;
    ssize_t got;
    while ((got = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0 ||
           (got < 0 && errno == EINTR))
        if (got > 0) len += (size_t)got;
    buf[len] = 0;
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "footprint run of %s failed (%s %d)", engine,
          WIFEXITED(status) ? "exit status" : "signal",
          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    const char *line = strstr(buf, "footprint ");
    CHECK(line, "footprint run of %s printed no result", engine);
    for (size_t k = 0; k < NUM_FOOTPRINT_KEYS; k++) {
        char key[64];
        snprintf(key, sizeof key, " %s=", FOOTPRINT_KEYS[k]);
        const char *v = strstr(line, key);
        CHECK(v, "footprint run of %s: no %s", engine, FOOTPRINT_KEYS[k]);
        *footprint_field(out, k) = strtoll(v + strlen(key), NULL, 10);
    }
}

static double mib(long long bytes) { return (double)bytes / (1024.0 * 1024.0); }
static double kib_mib(long long kib) { return (double)kib / 1024.0; }

static void usage(void) {
    fprintf(stderr, "usage: bench [--check] [N]   (N >= 1, default 100000)\n");
    exit(2);
}

/* Runs `op` on both engines, Fief first in even rounds, SQLite first in odd. */
static void run_pair(int op, int r, int sqlite_only, Fief *f, Sql *s, const Data *d, double *tf,
                     double *ts) {
    *tf = 0;
    if (sqlite_only) {
        *ts = run_sql(op, s, d);
    } else if (r % 2 == 0) {
        *tf = run_fief(op, f, d);
        *ts = run_sql(op, s, d);
    } else {
        *ts = run_sql(op, s, d);
        *tf = run_fief(op, f, d);
    }
}

static void open_round(int r, const char *suffix, int sqlite_only, Fief *f, Sql *s,
                       const Data *d) {
    char p[8192];
    snprintf(p, sizeof p, "%s/fief-%d%s.realm", g_tmpdir, r, suffix);
    if (!sqlite_only) fief_open(f, d, p);
    snprintf(p, sizeof p, "%s/sqlite-%d%s.db", g_tmpdir, r, suffix);
    sql_open(s, p);
}

static void close_round(int sqlite_only, Fief *f, Sql *s) {
    if (!sqlite_only) fief_close_and_delete(f);
    sql_close_and_delete(s);
}

/* ------------------------------------------------------------------------ */
/* Graph ops: lists (issue 6).  Fief's list property against SQLite's        */
/* natural child table, WITHOUT ROWID, keyed by (owner, position).           */
/* ------------------------------------------------------------------------ */

#define GRAPH_LISTS 10000
#define GRAPH_ELEMENTS 100
#define GRAPH_BIG 1000000
#define GRAPH_SMALL_COMMITS 100
#define MAP_KEYS 100000
/* The graph ops, in the order they run: the list ops on one pair of
 * databases, then the link ops on another (see "Graph ops: links" below),
 * then the map ops on a third ("Graph ops: maps"), then issue 21's graph
 * workload on a fourth (graph.c). */
enum {
    GOP_LIST_APPEND, GOP_LIST_READ, GOP_BIG_APPEND, GOP_BIG_APPEND_ONE,
    GOP_BACKLINK_COUNT, GOP_LINK_FOLLOW, GOP_DELETE_LINKED,
    GOP_MAP_SET, GOP_MAP_GET,
    GOP_GW_LIST_APPEND, GOP_GW_BACKLINK_COUNT, GOP_GW_LINK_FOLLOW, GOP_GW_DELETE_LINKED,
    NUM_GOPS
};
#define GOP_FIRST_LINK GOP_BACKLINK_COUNT
#define GOP_FIRST_MAP GOP_MAP_SET
#define GOP_FIRST_GW GOP_GW_LIST_APPEND
static const char *const GOP_NAMES[NUM_GOPS] = {"list_append", "list_read", "big_append", "big_append1",
                                                "backlink_count", "link_follow", "delete_linked",
                                                "map_set", "map_get",
                                                "graph_list_append", "graph_backlink_count", "graph_link_follow",
                                                "graph_delete_linked"};
/* The "elements" column: list elements written or read, objects counted,
 * followed or deleted, map keys set or read. */
static const int GOP_ELEMENTS[NUM_GOPS] = {GRAPH_LISTS * GRAPH_ELEMENTS, GRAPH_LISTS * GRAPH_ELEMENTS, GRAPH_BIG,
                                           GRAPH_SMALL_COMMITS, 100000, 100000, 10000, MAP_KEYS, MAP_KEYS,
                                           100000, 10000, 100000, 10000};
/* An op that needs another's result runs it too when only it is asked for
 * (FIEF_BENCH_OPS); -1: none.  The graph workload's ops after the first run
 * on the lists it appends. */
static const int GOP_NEEDS[NUM_GOPS] = {-1, GOP_LIST_APPEND, -1, GOP_BIG_APPEND, -1, -1, -1, -1, GOP_MAP_SET,
                                        -1, GOP_GW_LIST_APPEND, GOP_GW_LIST_APPEND, GOP_GW_LIST_APPEND};
/* big_append1 is a small durable commit on either side (Fief syncs the data
 * at every commit, SQLite's WAL at checkpoints): the point is that appending
 * to a list of a million elements costs no more than any small commit.  The
 * graph workload's targets are issue 21's: what beating realm-core 14.14
 * means on this machine. */
static const double GTARGETS[NUM_GOPS] = {0.5, 0.5, 0.5, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.35, 0.7, 0.8, 0.12};

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t cls;
    fief_property_key_t p_name, p_scores, p_big;
    fief_object_key_t owners[GRAPH_LISTS];
} GraphFief;

/* Opens (creating it) the realm at `path` with one class, "Owner", of
 * `num_props` properties, at normal durability; sets its class key and the
 * keys of the properties named in `names`. */
static fief_realm_t *owner_realm_open(const char *path, const fief_property_info_t *props, size_t num_props,
                                      fief_class_key_t *cls, const char *const *names, fief_property_key_t *keys,
                                      size_t num_names) {
    fief_class_info_t owner;
    memset(&owner, 0, sizeof owner);
    owner.name = "Owner";
    owner.num_properties = num_props;
    const fief_property_info_t *const class_props[1] = {props};
    fief_realm_t *realm = bench_realm_open(path, &owner, 1, class_props);
    *cls = bench_class_keys(realm, "Owner", names, keys, num_names);
    return realm;
}

static void graph_fief_open(GraphFief *g, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t props[3];
    memset(props, 0, sizeof props);
    props[0].name = "name";   props[0].type = FIEF_TYPE_STRING;
    props[1].name = "scores"; props[1].type = FIEF_TYPE_INT; props[1].collection_type = FIEF_COLLECTION_LIST;
    props[2].name = "big";    props[2].type = FIEF_TYPE_INT; props[2].collection_type = FIEF_COLLECTION_LIST;
    const char *const names[3] = {"name", "scores", "big"};
    fief_property_key_t keys[3];
    g->realm = owner_realm_open(path, props, 3, &g->cls, names, keys, 3);
    g->p_name = keys[0];
    g->p_scores = keys[1];
    g->p_big = keys[2];
    /* The owners, made before any timing. */
    FB(fief_realm_begin_write(g->realm));
    for (int i = 0; i < GRAPH_LISTS; i++) {
        fief_value_t name = value_string("owner", 5);
        fief_object_t *o;
        FH(o, fief_object_create(g->realm, g->cls, &g->p_name, &name, 1, FIEF_UPDATE_POLICY_ERROR));
        FB(fief_object_get_key(o, &g->owners[i]));
        FB(fief_release(o));
    }
    FB(fief_realm_commit(g->realm));
}

static void graph_fief_close(GraphFief *g) {
    bench_realm_close_and_delete(g->realm, g->path);
}

static int64_t graph_value(int list, int element) { return (int64_t)list * 1000 + element; }

/* Append 100 elements to each of 10,000 lists, one call per element, in one transaction. */
static NOINLINE double graph_fief_list_append(GraphFief *g) {
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    for (int i = 0; i < GRAPH_LISTS; i++) {
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->cls, g->owners[i]));
        fief_list_t *l;
        FH(l, fief_object_get_list(o, g->p_scores));
        for (int j = 0; j < GRAPH_ELEMENTS; j++) {
            fief_value_t v = value_int(graph_value(i, j));
            FB(fief_list_append(l, &v, 1));
        }
        FB(fief_release(l));
        FB(fief_release(o));
    }
    FB(fief_realm_commit(g->realm));
    return now_ms() - t0;
}

/* Read every list back (one range read per list), checking every element. */
static NOINLINE double graph_fief_list_read(GraphFief *g) {
    static fief_value_t values[GRAPH_ELEMENTS];
    double t0 = now_ms();
    int64_t sum = 0;
    for (int i = 0; i < GRAPH_LISTS; i++) {
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->cls, g->owners[i]));
        fief_list_t *l;
        FH(l, fief_object_get_list(o, g->p_scores));
        size_t size = 0;
        FB(fief_list_count(l, &size));
        CHECK(size == GRAPH_ELEMENTS, "fief list_read: list %d has %zu elements", i, size);
        FB(fief_list_get_range(l, 0, size, values));
        for (size_t j = 0; j < size; j++) sum += values[j].u.integer;
        FB(fief_release(l));
        FB(fief_release(o));
    }
    double t = now_ms() - t0;
    int64_t expected = 0;
    for (int i = 0; i < GRAPH_LISTS; i++)
        for (int j = 0; j < GRAPH_ELEMENTS; j++) expected += graph_value(i, j);
    CHECK(sum == expected, "fief list_read: sum %lld, expected %lld", (long long)sum, (long long)expected);
    return t;
}

/* One list of 1,000,000 elements, appended one by one in one transaction
 * (linear: each append touches only the list's last segment). */
static NOINLINE double graph_fief_big_append(GraphFief *g) {
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    fief_object_t *o;
    FH(o, fief_object_get(g->realm, g->cls, g->owners[0]));
    fief_list_t *l;
    FH(l, fief_object_get_list(o, g->p_big));
    for (int j = 0; j < GRAPH_BIG; j++) {
        fief_value_t v = value_int(j);
        FB(fief_list_append(l, &v, 1));
    }
    FB(fief_realm_commit(g->realm));
    size_t size = 0;
    FB(fief_list_count(l, &size));
    FB(fief_release(l));
    FB(fief_release(o));
    double t = now_ms() - t0;
    CHECK(size == GRAPH_BIG, "fief big_append: %zu elements", size);
    return t;
}

/* Then 100 transactions of one append each to that list: each as small as any small commit. */
static NOINLINE double graph_fief_big_append_one(GraphFief *g) {
    double t0 = now_ms();
    fief_object_t *o;
    FH(o, fief_object_get(g->realm, g->cls, g->owners[0]));
    fief_list_t *l;
    FH(l, fief_object_get_list(o, g->p_big));
    for (int j = 0; j < GRAPH_SMALL_COMMITS; j++) {
        FB(fief_realm_begin_write(g->realm));
        fief_value_t v = value_int(-j);
        FB(fief_list_append(l, &v, 1));
        FB(fief_realm_commit(g->realm));
    }
    size_t size = 0;
    FB(fief_list_count(l, &size));
    FB(fief_release(l));
    FB(fief_release(o));
    double t = now_ms() - t0;
    CHECK(size == GRAPH_BIG + GRAPH_SMALL_COMMITS, "fief big_append1: %zu elements", size);
    return t;
}

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *ins, *sel, *count_big;
} GraphSql;

static void graph_sql_open(GraphSql *g, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    sqlite3_stmt *st;
    sql_exec(&s, "CREATE TABLE owners(id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
    sql_exec(&s, "CREATE TABLE scores(owner INTEGER NOT NULL REFERENCES owners(id), position INTEGER NOT NULL, "
                 "value INTEGER NOT NULL, PRIMARY KEY(owner, position)) WITHOUT ROWID");
    sql_exec(&s, "BEGIN");
    st = sql_prep(&s, "INSERT INTO owners(id, name) VALUES (?, 'owner')");
    for (int i = 0; i < GRAPH_LISTS; i++) {
        SQ(g->db, sqlite3_bind_int64(st, 1, i), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    sql_exec(&s, "COMMIT");
    g->begin = sql_prep(&s, "BEGIN");
    g->commit = sql_prep(&s, "COMMIT");
    g->ins = sql_prep(&s, "INSERT INTO scores(owner, position, value) VALUES (?, ?, ?)");
    g->sel = sql_prep(&s, "SELECT value FROM scores WHERE owner = ? ORDER BY position");
    g->count_big = sql_prep(&s, "SELECT count(*) FROM scores WHERE owner = -1");
}

/* SQLite: the big list is owner -1's rows, appended at the next position. */
static NOINLINE double graph_sql_big_append(GraphSql *g) {
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    sql_step_done(&s, g->begin);
    for (int j = 0; j < GRAPH_BIG; j++) {
        SQ(g->db, sqlite3_bind_int64(g->ins, 1, -1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(g->ins, 2, j), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(g->ins, 3, j), SQLITE_OK);
        sql_step_done(&s, g->ins);
    }
    sql_step_done(&s, g->commit);
    int64_t n = sql_scalar(&s, g->count_big);
    double t = now_ms() - t0;
    CHECK(n == GRAPH_BIG, "sqlite big_append: %lld rows", (long long)n);
    return t;
}

static NOINLINE double graph_sql_big_append_one(GraphSql *g) {
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    for (int j = 0; j < GRAPH_SMALL_COMMITS; j++) {
        sql_step_done(&s, g->begin);
        SQ(g->db, sqlite3_bind_int64(g->ins, 1, -1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(g->ins, 2, GRAPH_BIG + j), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(g->ins, 3, -j), SQLITE_OK);
        sql_step_done(&s, g->ins);
        sql_step_done(&s, g->commit);
    }
    int64_t n = sql_scalar(&s, g->count_big);
    double t = now_ms() - t0;
    CHECK(n == GRAPH_BIG + GRAPH_SMALL_COMMITS, "sqlite big_append1: %lld rows", (long long)n);
    return t;
}

static void graph_sql_close(GraphSql *g) {
    sqlite3_stmt *const all[] = {g->begin, g->commit, g->ins, g->sel, g->count_big};
    sql_close_and_delete_db(g->db, g->path, all, sizeof all / sizeof all[0]);
}

static NOINLINE double graph_sql_list_append(GraphSql *g) {
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    sql_step_done(&s, g->begin);
    for (int i = 0; i < GRAPH_LISTS; i++) {
        for (int j = 0; j < GRAPH_ELEMENTS; j++) {
            SQ(g->db, sqlite3_bind_int64(g->ins, 1, i), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(g->ins, 2, j), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(g->ins, 3, graph_value(i, j)), SQLITE_OK);
            sql_step_done(&s, g->ins);
        }
    }
    sql_step_done(&s, g->commit);
    return now_ms() - t0;
}

static NOINLINE double graph_sql_list_read(GraphSql *g) {
    double t0 = now_ms();
    int64_t sum = 0;
    for (int i = 0; i < GRAPH_LISTS; i++) {
        SQ(g->db, sqlite3_bind_int64(g->sel, 1, i), SQLITE_OK);
        int rows = 0;
        int rc;
        while ((rc = sqlite3_step(g->sel)) == SQLITE_ROW) {
            sum += sqlite3_column_int64(g->sel, 0);
            rows++;
        }
        CHECK(rc == SQLITE_DONE, "sqlite list_read: %s", sqlite3_errmsg(g->db));
        SQ(g->db, sqlite3_reset(g->sel), SQLITE_OK);
        CHECK(rows == GRAPH_ELEMENTS, "sqlite list_read: list %d has %d rows", i, rows);
    }
    double t = now_ms() - t0;
    int64_t expected = 0;
    for (int i = 0; i < GRAPH_LISTS; i++)
        for (int j = 0; j < GRAPH_ELEMENTS; j++) expected += graph_value(i, j);
    CHECK(sum == expected, "sqlite list_read: sum %lld, expected %lld", (long long)sum, (long long)expected);
    return t;
}

/* ------------------------------------------------------------------------ */
/* Graph ops: links (issue 6).  LINK_DOGS dogs; LINK_DOGS people, each      */
/* with a to-one link `dog` (1 in 16 null); the first LINK_LISTS people     */
/* also have a list `dogs` of LINK_LIST_LEN dogs.  SQLite: the natural       */
/* tables, a foreign-key column `person.dog` with an index, and the child   */
/* table person_dogs(person, position, dog) keyed by (person, position)     */
/* with an index on dog.                                                    */
/* ------------------------------------------------------------------------ */

#define LINK_DOGS 100000
#define LINK_LISTS 10000
#define LINK_LIST_LEN 10
#define LINK_DELETE_EVERY 10 /* delete_linked deletes the dogs whose index is a multiple of this */
#define LINK_DELETES (LINK_DOGS / LINK_DELETE_EVERY)

typedef struct {
    int32_t dog_age[LINK_DOGS];
    int32_t person_dog[LINK_DOGS];            /* a dog's index, or -1 for a null link */
    int32_t list_dog[LINK_LISTS * LINK_LIST_LEN]; /* person p's list: [p * LEN, (p + 1) * LEN) */
    int32_t backlinks[LINK_DOGS];             /* how many people link each dog (to-one) */
    int64_t follow_sum, follow_nulls;         /* link_follow's expected answer */
} LinkData;

/* Fixed-seed data.  To-one links never point to a dog that delete_linked
 * deletes (those are referenced from lists only), so its SQLite side is
 * exactly "delete the child rows, then the objects". */
static void make_link_data(LinkData *ld) {
    uint64_t saved = g_rng;
    g_rng = 0x6c696e6b73ULL;
    memset(ld->backlinks, 0, sizeof ld->backlinks);
    for (int i = 0; i < LINK_DOGS; i++) ld->dog_age[i] = (int32_t)(splitmix64() % 20);
    ld->follow_sum = 0;
    ld->follow_nulls = 0;
    for (int i = 0; i < LINK_DOGS; i++) {
        uint64_t r = splitmix64();
        if (r % 16 == 0) {
            ld->person_dog[i] = -1;
            ld->follow_nulls++;
            continue;
        }
        int dog = (int)((r >> 8) % LINK_DOGS);
        if (dog % LINK_DELETE_EVERY == 0) dog++;
        ld->person_dog[i] = dog;
        ld->backlinks[dog]++;
        ld->follow_sum += (int64_t)(i + 1) * ld->dog_age[dog];
    }
    for (int k = 0; k < LINK_LISTS * LINK_LIST_LEN; k++) ld->list_dog[k] = (int32_t)(splitmix64() % LINK_DOGS);
    g_rng = saved;
}

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t dog_cls, person_cls;
    fief_property_key_t p_dog_name, p_dog_age, p_person_name, p_person_dog, p_person_dogs;
    fief_object_key_t dogs[LINK_DOGS];
    fief_object_key_t people[LINK_DOGS];
} LinkFief;

static void link_fief_open(LinkFief *g, const LinkData *ld, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t dog_props[2], person_props[3];
    memset(dog_props, 0, sizeof dog_props);
    memset(person_props, 0, sizeof person_props);
    dog_props[0].name = "name"; dog_props[0].type = FIEF_TYPE_STRING;
    dog_props[1].name = "age";  dog_props[1].type = FIEF_TYPE_INT;
    person_props[0].name = "name"; person_props[0].type = FIEF_TYPE_STRING;
    person_props[1].name = "dog";  person_props[1].type = FIEF_TYPE_LINK;
    person_props[1].link_target = "Dog"; person_props[1].flags = FIEF_PROPERTY_NULLABLE;
    person_props[2].name = "dogs"; person_props[2].type = FIEF_TYPE_LINK;
    person_props[2].link_target = "Dog"; person_props[2].collection_type = FIEF_COLLECTION_LIST;
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";    classes[0].num_properties = 2;
    classes[1].name = "Person"; classes[1].num_properties = 3;
    const fief_property_info_t *const class_props[2] = {dog_props, person_props};
    g->realm = bench_realm_open(path, classes, 2, class_props);
    const char *const dog_names[2] = {"name", "age"}, *const person_names[3] = {"name", "dog", "dogs"};
    fief_property_key_t keys[3];
    g->dog_cls = bench_class_keys(g->realm, "Dog", dog_names, keys, 2);
    g->p_dog_name = keys[0];
    g->p_dog_age = keys[1];
    g->person_cls = bench_class_keys(g->realm, "Person", person_names, keys, 3);
    g->p_person_name = keys[0];
    g->p_person_dog = keys[1];
    g->p_person_dogs = keys[2];

    /* The data, made before any timing: dogs, then people with their links, then the lists. */
    fief_value_t *values = malloc((size_t)LINK_DOGS * 2 * sizeof *values);
    CHECK(values, "out of memory");
    memset(values, 0, (size_t)LINK_DOGS * 2 * sizeof *values);
    FB(fief_realm_begin_write(g->realm));
    for (int i = 0; i < LINK_DOGS; i++) {
        values[2 * i] = value_string("dog", 3);
        values[2 * i + 1] = value_int(ld->dog_age[i]);
    }
    const fief_property_key_t dog_keys[2] = {g->p_dog_name, g->p_dog_age};
    FB(fief_object_create_many(g->realm, g->dog_cls, dog_keys, 2, values, LINK_DOGS, FIEF_UPDATE_POLICY_ERROR, g->dogs));
    memset(values, 0, (size_t)LINK_DOGS * 2 * sizeof *values);
    for (int i = 0; i < LINK_DOGS; i++) {
        values[2 * i] = value_string("person", 6);
        if (ld->person_dog[i] < 0) {
            values[2 * i + 1].type = FIEF_TYPE_NULL;
        } else {
            values[2 * i + 1].type = FIEF_TYPE_LINK;
            values[2 * i + 1].u.link.class_key = g->dog_cls;
            values[2 * i + 1].u.link.object_key = g->dogs[ld->person_dog[i]];
        }
    }
    const fief_property_key_t person_keys[2] = {g->p_person_name, g->p_person_dog};
    FB(fief_object_create_many(g->realm, g->person_cls, person_keys, 2, values, LINK_DOGS, FIEF_UPDATE_POLICY_ERROR,
                               g->people));
    for (int p = 0; p < LINK_LISTS; p++) {
        fief_value_t elems[LINK_LIST_LEN];
        memset(elems, 0, sizeof elems);
        for (int j = 0; j < LINK_LIST_LEN; j++) {
            elems[j].type = FIEF_TYPE_LINK;
            elems[j].u.link.class_key = g->dog_cls;
            elems[j].u.link.object_key = g->dogs[ld->list_dog[p * LINK_LIST_LEN + j]];
        }
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->person_cls, g->people[p]));
        fief_list_t *l;
        FH(l, fief_object_get_list(o, g->p_person_dogs));
        FB(fief_list_append(l, elems, LINK_LIST_LEN));
        FB(fief_release(l));
        FB(fief_release(o));
    }
    FB(fief_realm_commit(g->realm));
    free(values);
}

static void link_fief_close(LinkFief *g) {
    bench_realm_close_and_delete(g->realm, g->path);
}

static void check_backlink_counts(const char *engine, const LinkData *ld, const int32_t *got) {
    for (int i = 0; i < LINK_DOGS; i++)
        CHECK(got[i] == ld->backlinks[i], "%s backlink_count: dog %d has %d linking people, expected %d", engine, i,
              got[i], ld->backlinks[i]);
}

/* For each dog: its linking objects through Person.dog (fief_object_get_backlinks), counted. */
static NOINLINE double graph_fief_backlink_count(LinkFief *g, const LinkData *ld) {
    static int32_t got[LINK_DOGS];
    double t0 = now_ms();
    for (int i = 0; i < LINK_DOGS; i++) {
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->dog_cls, g->dogs[i]));
        fief_results_t *r;
        FH(r, fief_object_get_backlinks(o, g->person_cls, g->p_person_dog));
        size_t c = 0;
        FB(fief_results_count(r, &c));
        got[i] = (int32_t)c;
        FB(fief_release(r));
        FB(fief_release(o));
    }
    double t = now_ms() - t0;
    check_backlink_counts("fief", ld, got);
    return t;
}

/* For each person (all people, in order): read the link, then the dog's age
 * by the keys the link holds (no object handle). */
static NOINLINE double graph_fief_link_follow(LinkFief *g, const LinkData *ld) {
    double t0 = now_ms();
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->person_cls));
    size_t n = 0;
    FB(fief_results_count(all, &n));
    int64_t sum = 0, nulls = 0;
    for (size_t i = 0; i < n; i++) {
        fief_value_t link;
        FB(fief_results_get_values(all, i, &g->p_person_dog, 1, &link));
        if (link.type != FIEF_TYPE_LINK) {
            nulls++;
            continue;
        }
        fief_value_t age;
        FB(fief_object_get_values_by_key(g->realm, link.u.link.class_key, link.u.link.object_key, &g->p_dog_age, 1, &age));
        sum += (int64_t)(i + 1) * age.u.integer;
    }
    FB(fief_release(all));
    double t = now_ms() - t0;
    CHECK(n == LINK_DOGS, "fief link_follow: %zu people", n);
    CHECK(sum == ld->follow_sum && nulls == ld->follow_nulls,
          "fief link_follow: sum %lld, %lld nulls; expected %lld, %lld", (long long)sum, (long long)nulls,
          (long long)ld->follow_sum, (long long)ld->follow_nulls);
    return t;
}

/* Delete the dogs whose index is a multiple of LINK_DELETE_EVERY (every one
 * listed about once): Fief removes each from every list that holds it. */
static NOINLINE double graph_fief_delete_linked(LinkFief *g, const LinkData *ld) {
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    for (int i = 0; i < LINK_DOGS; i += LINK_DELETE_EVERY) {
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->dog_cls, g->dogs[i]));
        FB(fief_object_delete(o));
        FB(fief_release(o));
    }
    FB(fief_realm_commit(g->realm));
    double t = now_ms() - t0;
    /* Every list holds its surviving dogs, in order; the dogs are gone. */
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->dog_cls));
    size_t n = 0;
    FB(fief_results_count(all, &n));
    FB(fief_release(all));
    CHECK(n == LINK_DOGS - LINK_DELETES, "fief delete_linked: %zu dogs left", n);
    for (int p = 0; p < LINK_LISTS; p++) {
        fief_value_t elems[LINK_LIST_LEN];
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->person_cls, g->people[p]));
        fief_list_t *l;
        FH(l, fief_object_get_list(o, g->p_person_dogs));
        size_t size = 0;
        FB(fief_list_count(l, &size));
        CHECK(size <= LINK_LIST_LEN, "fief delete_linked: list %d has %zu elements", p, size);
        FB(fief_list_get_range(l, 0, size, elems));
        size_t k = 0;
        for (int j = 0; j < LINK_LIST_LEN; j++) {
            int dog = ld->list_dog[p * LINK_LIST_LEN + j];
            if (dog % LINK_DELETE_EVERY == 0) continue;
            CHECK(k < size && elems[k].type == FIEF_TYPE_LINK && elems[k].u.link.object_key == g->dogs[dog],
                  "fief delete_linked: list %d, element %zu is not dog %d", p, k, dog);
            k++;
        }
        CHECK(k == size, "fief delete_linked: list %d has %zu elements, expected %zu", p, size, k);
        FB(fief_release(l));
        FB(fief_release(o));
    }
    return t;
}

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *count_links, *follow, *del_rows, *del_dog, *count_dogs, *list_sel;
} LinkSql;

static void link_sql_open(LinkSql *g, const LinkData *ld, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    sqlite3_stmt *st;
    sql_exec(&s, "CREATE TABLE dog(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)");
    sql_exec(&s, "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, dog INTEGER REFERENCES dog(id))");
    sql_exec(&s, "CREATE INDEX person_dog ON person(dog)");
    sql_exec(&s, "CREATE TABLE person_dogs(person INTEGER NOT NULL REFERENCES person(id), position INTEGER NOT NULL, "
                 "dog INTEGER NOT NULL REFERENCES dog(id), PRIMARY KEY(person, position)) WITHOUT ROWID");
    sql_exec(&s, "CREATE INDEX person_dogs_dog ON person_dogs(dog)");
    /* Ids are indexes + 1. */
    sql_exec(&s, "BEGIN");
    st = sql_prep(&s, "INSERT INTO dog(id, name, age) VALUES (?, 'dog', ?)");
    for (int i = 0; i < LINK_DOGS; i++) {
        SQ(g->db, sqlite3_bind_int64(st, 1, i + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(st, 2, ld->dog_age[i]), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    st = sql_prep(&s, "INSERT INTO person(id, name, dog) VALUES (?, 'person', ?)");
    for (int i = 0; i < LINK_DOGS; i++) {
        SQ(g->db, sqlite3_bind_int64(st, 1, i + 1), SQLITE_OK);
        if (ld->person_dog[i] < 0) SQ(g->db, sqlite3_bind_null(st, 2), SQLITE_OK);
        else SQ(g->db, sqlite3_bind_int64(st, 2, ld->person_dog[i] + 1), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    st = sql_prep(&s, "INSERT INTO person_dogs(person, position, dog) VALUES (?, ?, ?)");
    for (int p = 0; p < LINK_LISTS; p++) {
        for (int j = 0; j < LINK_LIST_LEN; j++) {
            SQ(g->db, sqlite3_bind_int64(st, 1, p + 1), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(st, 2, j), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(st, 3, ld->list_dog[p * LINK_LIST_LEN + j] + 1), SQLITE_OK);
            sql_step_done(&s, st);
        }
    }
    sqlite3_finalize(st);
    sql_exec(&s, "COMMIT");
    g->begin = sql_prep(&s, "BEGIN");
    g->commit = sql_prep(&s, "COMMIT");
    g->count_links = sql_prep(&s, "SELECT count(*) FROM person WHERE dog = ?");
    g->follow = sql_prep(&s, "SELECT dog.age FROM person LEFT JOIN dog ON dog.id = person.dog ORDER BY person.id");
    g->del_rows = sql_prep(&s, "DELETE FROM person_dogs WHERE dog = ?");
    g->del_dog = sql_prep(&s, "DELETE FROM dog WHERE id = ?");
    g->count_dogs = sql_prep(&s, "SELECT count(*) FROM dog");
    g->list_sel = sql_prep(&s, "SELECT dog FROM person_dogs WHERE person = ? ORDER BY position");
}

static void link_sql_close(LinkSql *g) {
    sqlite3_stmt *const all[] = {g->begin, g->commit, g->count_links, g->follow, g->del_rows, g->del_dog, g->count_dogs,
                                 g->list_sel};
    sql_close_and_delete_db(g->db, g->path, all, sizeof all / sizeof all[0]);
}

static NOINLINE double graph_sql_backlink_count(LinkSql *g, const LinkData *ld) {
    static int32_t got[LINK_DOGS];
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    for (int i = 0; i < LINK_DOGS; i++) {
        SQ(g->db, sqlite3_bind_int64(g->count_links, 1, i + 1), SQLITE_OK);
        got[i] = (int32_t)sql_scalar(&s, g->count_links);
    }
    double t = now_ms() - t0;
    check_backlink_counts("sqlite", ld, got);
    return t;
}

static NOINLINE double graph_sql_link_follow(LinkSql *g, const LinkData *ld) {
    double t0 = now_ms();
    int64_t sum = 0, nulls = 0, i = 0;
    int rc;
    while ((rc = sqlite3_step(g->follow)) == SQLITE_ROW) {
        i++;
        if (sqlite3_column_type(g->follow, 0) == SQLITE_NULL) nulls++;
        else sum += i * sqlite3_column_int64(g->follow, 0);
    }
    CHECK(rc == SQLITE_DONE, "sqlite link_follow: %s", sqlite3_errmsg(g->db));
    SQ(g->db, sqlite3_reset(g->follow), SQLITE_OK);
    double t = now_ms() - t0;
    CHECK(i == LINK_DOGS, "sqlite link_follow: %lld people", (long long)i);
    CHECK(sum == ld->follow_sum && nulls == ld->follow_nulls,
          "sqlite link_follow: sum %lld, %lld nulls; expected %lld, %lld", (long long)sum, (long long)nulls,
          (long long)ld->follow_sum, (long long)ld->follow_nulls);
    return t;
}

static NOINLINE double graph_sql_delete_linked(LinkSql *g, const LinkData *ld) {
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    sql_step_done(&s, g->begin);
    for (int i = 0; i < LINK_DOGS; i += LINK_DELETE_EVERY) {
        SQ(g->db, sqlite3_bind_int64(g->del_rows, 1, i + 1), SQLITE_OK);
        sql_step_done(&s, g->del_rows);
        SQ(g->db, sqlite3_bind_int64(g->del_dog, 1, i + 1), SQLITE_OK);
        sql_step_done(&s, g->del_dog);
    }
    sql_step_done(&s, g->commit);
    double t = now_ms() - t0;
    int64_t n = sql_scalar(&s, g->count_dogs);
    CHECK(n == LINK_DOGS - LINK_DELETES, "sqlite delete_linked: %lld dogs left", (long long)n);
    for (int p = 0; p < LINK_LISTS; p++) {
        SQ(g->db, sqlite3_bind_int64(g->list_sel, 1, p + 1), SQLITE_OK);
        int j = 0, rc;
        while ((rc = sqlite3_step(g->list_sel)) == SQLITE_ROW) {
            int64_t dog = sqlite3_column_int64(g->list_sel, 0) - 1;
            while (j < LINK_LIST_LEN && ld->list_dog[p * LINK_LIST_LEN + j] % LINK_DELETE_EVERY == 0) j++;
            CHECK(j < LINK_LIST_LEN && ld->list_dog[p * LINK_LIST_LEN + j] == dog,
                  "sqlite delete_linked: list %d holds dog %lld out of place", p, (long long)dog);
            j++;
        }
        CHECK(rc == SQLITE_DONE, "sqlite delete_linked: %s", sqlite3_errmsg(g->db));
        SQ(g->db, sqlite3_reset(g->list_sel), SQLITE_OK);
        while (j < LINK_LIST_LEN && ld->list_dog[p * LINK_LIST_LEN + j] % LINK_DELETE_EVERY == 0) j++;
        CHECK(j == LINK_LIST_LEN, "sqlite delete_linked: list %d is missing dogs", p);
    }
    return t;
}

/* ------------------------------------------------------------------------ */
/* Graph ops: maps.  One owner object with a map property string -> int;    */
/* MAP_KEYS distinct keys of 11 bytes (4 random letters, then the index in  */
/* 7 digits, so they arrive in no order), set in one transaction, then     */
/* every key read back in another order.  SQLite: the natural child table  */
/* map_entries(owner, key, value) keyed by (owner, key), WITHOUT ROWID.     */
/* ------------------------------------------------------------------------ */

#define MAP_KEY_LEN 11

typedef struct {
    char keys[MAP_KEYS][MAP_KEY_LEN + 1];
    int32_t get_order[MAP_KEYS]; /* map_get reads key get_order[i] at step i */
    int64_t sum;                 /* the sum of every value */
} MapData;

static int64_t map_value(int i) { return (int64_t)i * 7 + 3; }

static void make_map_data(MapData *md) {
    uint64_t saved = g_rng;
    g_rng = 0x6d617073ULL;
    md->sum = 0;
    for (int i = 0; i < MAP_KEYS; i++) {
        char *k = md->keys[i];
        for (int c = 0; c < 4; c++) k[c] = (char)('a' + splitmix64() % 26);
        snprintf(k + 4, MAP_KEY_LEN + 1 - 4, "%07d", i);
        md->get_order[i] = i;
        md->sum += map_value(i);
    }
    for (int i = MAP_KEYS - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(splitmix64() % (uint64_t)(i + 1));
        int32_t t = md->get_order[i];
        md->get_order[i] = md->get_order[j];
        md->get_order[j] = t;
    }
    g_rng = saved;
}

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t cls;
    fief_property_key_t p_name, p_entries;
    fief_object_key_t owner;
} MapFief;

static void map_fief_open(MapFief *g, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t props[2];
    memset(props, 0, sizeof props);
    props[0].name = "name";    props[0].type = FIEF_TYPE_STRING;
    props[1].name = "entries"; props[1].type = FIEF_TYPE_INT; props[1].collection_type = FIEF_COLLECTION_MAP;
    const char *const names[2] = {"name", "entries"};
    fief_property_key_t keys[2];
    g->realm = owner_realm_open(path, props, 2, &g->cls, names, keys, 2);
    g->p_name = keys[0];
    g->p_entries = keys[1];
    /* The owner, made before any timing. */
    FB(fief_realm_begin_write(g->realm));
    fief_value_t name = value_string("owner", 5);
    fief_object_t *o;
    FH(o, fief_object_create(g->realm, g->cls, &g->p_name, &name, 1, FIEF_UPDATE_POLICY_ERROR));
    FB(fief_object_get_key(o, &g->owner));
    FB(fief_release(o));
    FB(fief_realm_commit(g->realm));
}

static void map_fief_close(MapFief *g) {
    bench_realm_close_and_delete(g->realm, g->path);
}

/* Set MAP_KEYS keys of the owner's map, one fief_map_set each, in one transaction. */
static NOINLINE double graph_fief_map_set(MapFief *g, const MapData *md) {
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    fief_object_t *o;
    FH(o, fief_object_get(g->realm, g->cls, g->owner));
    fief_map_t *m;
    FH(m, fief_object_get_map(o, g->p_entries));
    for (int i = 0; i < MAP_KEYS; i++) {
        fief_string_t key = {md->keys[i], MAP_KEY_LEN};
        fief_value_t v = value_int(map_value(i));
        FB(fief_map_set(m, key, v));
    }
    FB(fief_release(m));
    FB(fief_release(o));
    FB(fief_realm_commit(g->realm));
    double t = now_ms() - t0;
    FH(o, fief_object_get(g->realm, g->cls, g->owner));
    FH(m, fief_object_get_map(o, g->p_entries));
    size_t size = 0;
    FB(fief_map_count(m, &size));
    FB(fief_release(m));
    FB(fief_release(o));
    CHECK(size == MAP_KEYS, "fief map_set: the map has %zu keys", size);
    return t;
}

/* Get every key (fief_map_get), in another order than they were set. */
static NOINLINE double graph_fief_map_get(MapFief *g, const MapData *md) {
    double t0 = now_ms();
    fief_object_t *o;
    FH(o, fief_object_get(g->realm, g->cls, g->owner));
    fief_map_t *m;
    FH(m, fief_object_get_map(o, g->p_entries));
    int64_t sum = 0;
    for (int i = 0; i < MAP_KEYS; i++) {
        int k = md->get_order[i];
        fief_string_t key = {md->keys[k], MAP_KEY_LEN};
        fief_value_t v;
        bool found = false;
        FB(fief_map_get(m, key, &v, &found));
        CHECK(found && v.type == FIEF_TYPE_INT && v.u.integer == map_value(k), "fief map_get: key %s", md->keys[k]);
        sum += v.u.integer;
    }
    FB(fief_release(m));
    FB(fief_release(o));
    double t = now_ms() - t0;
    CHECK(sum == md->sum, "fief map_get: sum %lld, expected %lld", (long long)sum, (long long)md->sum);
    return t;
}

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *set, *get, *count;
} MapSql;

static void map_sql_open(MapSql *g, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    sql_exec(&s, "CREATE TABLE owners(id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
    sql_exec(&s, "CREATE TABLE map_entries(owner INTEGER NOT NULL REFERENCES owners(id), key TEXT NOT NULL, "
                 "value INTEGER NOT NULL, PRIMARY KEY(owner, key)) WITHOUT ROWID");
    sql_exec(&s, "INSERT INTO owners(id, name) VALUES (1, 'owner')");
    g->begin = sql_prep(&s, "BEGIN");
    g->commit = sql_prep(&s, "COMMIT");
    /* A map set adds the key or replaces its value: an upsert. */
    g->set = sql_prep(&s, "INSERT INTO map_entries(owner, key, value) VALUES (?, ?, ?) "
                          "ON CONFLICT(owner, key) DO UPDATE SET value = excluded.value");
    g->get = sql_prep(&s, "SELECT value FROM map_entries WHERE owner = ? AND key = ?");
    g->count = sql_prep(&s, "SELECT count(*) FROM map_entries WHERE owner = 1");
}

static void map_sql_close(MapSql *g) {
    sqlite3_stmt *const all[] = {g->begin, g->commit, g->set, g->get, g->count};
    sql_close_and_delete_db(g->db, g->path, all, sizeof all / sizeof all[0]);
}

static NOINLINE double graph_sql_map_set(MapSql *g, const MapData *md) {
    Sql s = sql_on(g->db);
    double t0 = now_ms();
    sql_step_done(&s, g->begin);
    for (int i = 0; i < MAP_KEYS; i++) {
        SQ(g->db, sqlite3_bind_int64(g->set, 1, 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_text(g->set, 2, md->keys[i], MAP_KEY_LEN, SQLITE_STATIC), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(g->set, 3, map_value(i)), SQLITE_OK);
        sql_step_done(&s, g->set);
    }
    sql_step_done(&s, g->commit);
    double t = now_ms() - t0;
    int64_t n = sql_scalar(&s, g->count);
    CHECK(n == MAP_KEYS, "sqlite map_set: %lld rows", (long long)n);
    return t;
}

static NOINLINE double graph_sql_map_get(MapSql *g, const MapData *md) {
    double t0 = now_ms();
    int64_t sum = 0;
    for (int i = 0; i < MAP_KEYS; i++) {
        int k = md->get_order[i];
        SQ(g->db, sqlite3_bind_int64(g->get, 1, 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_text(g->get, 2, md->keys[k], MAP_KEY_LEN, SQLITE_STATIC), SQLITE_OK);
        int rc = sqlite3_step(g->get);
        CHECK(rc == SQLITE_ROW && sqlite3_column_int64(g->get, 0) == map_value(k), "sqlite map_get: key %s", md->keys[k]);
        sum += sqlite3_column_int64(g->get, 0);
        SQ(g->db, sqlite3_reset(g->get), SQLITE_OK);
    }
    double t = now_ms() - t0;
    CHECK(sum == md->sum, "sqlite map_get: sum %lld, expected %lld", (long long)sum, (long long)md->sum);
    return t;
}

/* Whether op `op` is named in FIEF_BENCH_OPS (every op when it is unset). */
static int op_named(const char *ops_env, const char *name) {
    if (!ops_env || !*ops_env) return 1;
    size_t len = strlen(name);
    for (const char *p = ops_env; (p = strstr(p, name)) != NULL; p += len)
        if ((p == ops_env || p[-1] == ',') && (p[len] == 0 || p[len] == ',')) return 1;
    return 0;
}

#include "graph.c"

/* The graph ops: warm-up + ROUNDS rounds (one round in check mode), each on
 * fresh databases; prints a second table.  `enabled[op]`: run op (the
 * others are skipped, and their pair of databases is not even made when
 * none of its ops runs).  `repeat`: read-only ops run that many times in a
 * row (profiling; the last time counts). */
static void run_graph(int check_only, const int *enabled, int repeat) {
    static double times[2][NUM_GOPS][ROUNDS];
    static LinkData ld;
    static MapData md;
    static GraphData gd;
    int any_list = 0, any_link = 0, any_map = 0, any_gw = 0;
    for (int op = 0; op < NUM_GOPS; op++) {
        if (!enabled[op]) continue;
        if (op < GOP_FIRST_LINK) any_list = 1;
        else if (op < GOP_FIRST_MAP) any_link = 1;
        else if (op < GOP_FIRST_GW) any_map = 1;
        else any_gw = 1;
    }
    if (any_link) make_link_data(&ld);
    if (any_map) make_map_data(&md);
    if (any_gw) make_graph_data(&gd);
    int total = check_only ? 1 : ROUNDS + 1;
    for (int r = 0; r < total; r++) {
        static GraphFief gf;
        static LinkFief lf;
        static MapFief mf;
        static GraphWorkFief wf;
        GraphSql gs;
        LinkSql ls;
        MapSql ms;
        GraphWorkSql ws;
        char p[8192];
        double t[2][NUM_GOPS];
        for (int op = 0; op < NUM_GOPS; op++) {
            if (op == GOP_LIST_APPEND && any_list) {
                snprintf(p, sizeof p, "%s/graph-fief-%d.realm", g_tmpdir, r);
                graph_fief_open(&gf, p);
                snprintf(p, sizeof p, "%s/graph-sqlite-%d.db", g_tmpdir, r);
                graph_sql_open(&gs, p);
            }
            if (op == GOP_FIRST_LINK && any_link) {
                snprintf(p, sizeof p, "%s/links-fief-%d.realm", g_tmpdir, r);
                link_fief_open(&lf, &ld, p);
                snprintf(p, sizeof p, "%s/links-sqlite-%d.db", g_tmpdir, r);
                link_sql_open(&ls, &ld, p);
            }
            if (op == GOP_FIRST_MAP && any_map) {
                snprintf(p, sizeof p, "%s/maps-fief-%d.realm", g_tmpdir, r);
                map_fief_open(&mf, p);
                snprintf(p, sizeof p, "%s/maps-sqlite-%d.db", g_tmpdir, r);
                map_sql_open(&ms, p);
            }
            if (op == GOP_FIRST_GW && any_gw) {
                snprintf(p, sizeof p, "%s/workload-fief-%d.realm", g_tmpdir, r);
                gw_fief_open(&wf, &gd, p);
                snprintf(p, sizeof p, "%s/workload-sqlite-%d.db", g_tmpdir, r);
                gw_sql_open(&ws, &gd, p);
            }
            if (enabled[op]) {
                int reads = op == GOP_LIST_READ || op == GOP_BACKLINK_COUNT || op == GOP_LINK_FOLLOW || op == GOP_MAP_GET ||
                            op == GOP_GW_BACKLINK_COUNT || op == GOP_GW_LINK_FOLLOW;
                for (int k = reads ? repeat : 1; k > 0; k--) {
                    for (int side = 0; side < 2; side++) {
                        int fief_side = (r % 2 == 0) ? side == 0 : side == 1;
                        double v;
                        switch (op) {
                        case GOP_LIST_APPEND: v = fief_side ? graph_fief_list_append(&gf) : graph_sql_list_append(&gs); break;
                        case GOP_LIST_READ: v = fief_side ? graph_fief_list_read(&gf) : graph_sql_list_read(&gs); break;
                        case GOP_BIG_APPEND: v = fief_side ? graph_fief_big_append(&gf) : graph_sql_big_append(&gs); break;
                        case GOP_BIG_APPEND_ONE: v = fief_side ? graph_fief_big_append_one(&gf) : graph_sql_big_append_one(&gs); break;
                        case GOP_BACKLINK_COUNT: v = fief_side ? graph_fief_backlink_count(&lf, &ld) : graph_sql_backlink_count(&ls, &ld); break;
                        case GOP_LINK_FOLLOW: v = fief_side ? graph_fief_link_follow(&lf, &ld) : graph_sql_link_follow(&ls, &ld); break;
                        case GOP_DELETE_LINKED: v = fief_side ? graph_fief_delete_linked(&lf, &ld) : graph_sql_delete_linked(&ls, &ld); break;
                        case GOP_MAP_SET: v = fief_side ? graph_fief_map_set(&mf, &md) : graph_sql_map_set(&ms, &md); break;
                        case GOP_MAP_GET: v = fief_side ? graph_fief_map_get(&mf, &md) : graph_sql_map_get(&ms, &md); break;
                        case GOP_GW_LIST_APPEND: v = fief_side ? graph_fief_gw_list_append(&wf, &gd) : graph_sql_gw_list_append(&ws, &gd); break;
                        case GOP_GW_BACKLINK_COUNT: v = fief_side ? graph_fief_gw_backlink_count(&wf, &gd) : graph_sql_gw_backlink_count(&ws, &gd); break;
                        case GOP_GW_LINK_FOLLOW: v = fief_side ? graph_fief_gw_link_follow(&wf, &gd) : graph_sql_gw_link_follow(&ws, &gd); break;
                        default: v = fief_side ? graph_fief_gw_delete_linked(&wf, &gd) : graph_sql_gw_delete_linked(&ws, &gd); break;
                        }
                        t[fief_side ? 0 : 1][op] = v;
                    }
                }
                if (check_only) printf("check %-20s ok  (fief %.3f ms, sqlite %.3f ms)\n", GOP_NAMES[op], t[0][op], t[1][op]);
                else if (r > 0) { times[0][op][r - 1] = t[0][op]; times[1][op][r - 1] = t[1][op]; }
                else fprintf(stderr, "bench: warm-up %-20s fief %10.3f ms  sqlite %10.3f ms\n", GOP_NAMES[op], t[0][op], t[1][op]);
            } else if (check_only) {
                printf("check %-20s skipped (FIEF_BENCH_OPS)\n", GOP_NAMES[op]);
            }
            if (op == GOP_FIRST_LINK - 1 && any_list) {
                graph_fief_close(&gf);
                graph_sql_close(&gs);
            }
            if (op == GOP_FIRST_MAP - 1 && any_link) {
                link_fief_close(&lf);
                link_sql_close(&ls);
            }
            if (op == GOP_FIRST_GW - 1 && any_map) {
                map_fief_close(&mf);
                map_sql_close(&ms);
            }
            if (op == NUM_GOPS - 1 && any_gw) {
                gw_fief_close(&wf);
                gw_sql_close(&ws);
            }
        }
    }
    if (check_only) return;
    printf("%-20s %10s %14s %14s %10s\n", "graph op", "elements", "fief_ms", "sqlite_ms", "fief/sqlite");
    int met = 0, compared = 0;
    char summary[1024] = "";
    size_t off = 0;
    for (int op = 0; op < NUM_GOPS; op++) {
        if (!enabled[op]) {
            printf("%-20s %10d %14s %14s %10s\n", GOP_NAMES[op], GOP_ELEMENTS[op], "skipped", "skipped", "n/a");
            continue;
        }
        double mf = median(times[0][op], ROUNDS), ms = median(times[1][op], ROUNDS);
        double ratio = ms > 0 ? mf / ms : 0;
        printf("%-20s %10d %14.3f %14.3f %10.3f\n", GOP_NAMES[op], GOP_ELEMENTS[op], mf, ms, ratio);
        int ok = ratio <= GTARGETS[op];
        met += ok;
        compared++;
        off += (size_t)snprintf(summary + off, sizeof summary - off, " %s %.3f%s%.2f %s;", GOP_NAMES[op], ratio,
                                ok ? "<=" : ">", GTARGETS[op], ok ? "MET" : "MISSED");
    }
    if (off) summary[off - 1] = 0;
    printf("graph targets: %d/%d met:%s\n", met, compared, summary);
}
#include "geo.c"
#include "fts.c"
#include "query.c"
#include "observe.c"

int main(int argc, char **argv) {
    int check_only = 0;
    int footprint_engine = -1; /* --footprint fief|sqlite: the child of run_footprint */
    /* --observe-child PATH FD: the cross-process observer of notify_latency */
    if (argc == 4 && strcmp(argv[1], "--observe-child") == 0) return observe_child_main(argv[2], atoi(argv[3]));
    size_t n = 100000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            check_only = 1;
        } else if (strcmp(argv[i], "--footprint") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "fief") == 0) footprint_engine = 0;
            else if (strcmp(argv[i], "sqlite") == 0) footprint_engine = 1;
            else usage();
        } else {
            char *end = NULL;
            errno = 0;
            unsigned long long v = strtoull(argv[i], &end, 10);
            if (errno || !end || *end || v == 0 || argv[i][0] == '-') usage();
            n = (size_t)v;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    const char *rep = getenv("FIEF_BENCH_REPEAT");
    int repeat_env = rep && *rep ? atoi(rep) : 1;

    /* Development aid: FIEF_BENCH_OPS=sort_iter,lookup runs only those ops
     * (insert always runs: the others need its data). */
    int op_enabled[NUM_OPS];
    const char *ops_env = getenv("FIEF_BENCH_OPS");
    for (int op = 0; op < NUM_OPS; op++) op_enabled[op] = op == OP_INSERT || op_named(ops_env, OP_NAMES[op]);
    /* The same for the graph ops (each with the op it needs). */
    int gop_enabled[NUM_GOPS];
    for (int op = 0; op < NUM_GOPS; op++) gop_enabled[op] = op_named(ops_env, GOP_NAMES[op]);
    for (int op = 0; op < NUM_GOPS; op++)
        if (gop_enabled[op] && GOP_NEEDS[op] >= 0) gop_enabled[GOP_NEEDS[op]] = 1;

    const char *tmp = getenv("TMPDIR");
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/fief-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_tmpdir)) {
        g_tmpdir[0] = 0;
        die("mkdtemp: %s", strerror(errno));
    }

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);

    Data d;
    make_data(&d, n);

    if (footprint_engine >= 0) {
        footprint_child(footprint_engine, &d, op_enabled);
        cleanup_tmpdir();
        return 0;
    }

    /* Development aid: FIEF_BENCH_SQLITE_ONLY=1 runs (and checks) the SQLite side only. */
    const char *so = getenv("FIEF_BENCH_SQLITE_ONLY");
    int sqlite_only = so && *so && strcmp(so, "0") != 0;
    /* FIEF_BENCH_FOOTPRINT=0 skips the per-engine footprint runs (profiling). */
    const char *fe = getenv("FIEF_BENCH_FOOTPRINT");
    int footprint = !(fe && strcmp(fe, "0") == 0);
    fprintf(stderr, "bench: N=%zu, fief %s, sqlite %s, dir %s%s\n", n,
            sqlite_only ? "(skipped)" : fief_version_string(), sqlite3_libversion(), g_tmpdir,
            check_only ? " (check mode)" : "");

    Fief f;
    Sql s;
    memset(&f, 0, sizeof f);
    memset(&s, 0, sizeof s);
    static double times[2][NUM_OPS][ROUNDS];
    int total_rounds = check_only ? 1 : ROUNDS + 1; /* round 0: warm-up */
    for (int r = 0; r < total_rounds; r++) {
        open_round(r, "", sqlite_only, &f, &s, &d);
        g_choose_prefix = (r == 0);
        for (int k = 0; k < NUM_OPS; k++) {
            int op = ROUND_ORDER[k];
            double tf = 0, ts;
            if (!op_enabled[op]) {
                if (check_only) printf("check %-12s skipped (FIEF_BENCH_OPS)\n", OP_NAMES[op]);
                continue;
            }
            if (op == OP_INSERT_EACH) {
                /* insert_each needs empty databases: a second, fresh pair */
                close_round(sqlite_only, &f, &s);
                open_round(r, "-each", sqlite_only, &f, &s, &d);
            }
            /* Development aid for profiling: FIEF_BENCH_REPEAT=k runs each
             * read-only op k times in a row (the last time is reported). */
            int repeat = 1;
            if (repeat_env > 1 && (op == OP_COUNT_LT || op == OP_PREFIX_ITER ||
                                   op == OP_SORT_ITER || op == OP_LOOKUP))
                repeat = repeat_env;
            for (int k2 = 1; k2 < repeat; k2++) {
                if (!sqlite_only) run_fief(op, &f, &d);
                run_sql(op, &s, &d);
            }
            run_pair(op, r, sqlite_only, &f, &s, &d, &tf, &ts);
            if (check_only) {
                printf("check %-12s ok  (fief %.3f ms, sqlite %.3f ms)\n", OP_NAMES[op], tf, ts);
            } else if (r > 0) {
                times[0][op][r - 1] = tf;
                times[1][op][r - 1] = ts;
            } else {
                fprintf(stderr, "bench: warm-up %-12s fief %10.3f ms  sqlite %10.3f ms\n",
                        OP_NAMES[op], tf, ts);
            }
        }
        close_round(sqlite_only, &f, &s);
    }

    /* The graph ops (lists), unless FIEF_BENCH_GRAPH=0. */
    const char *ge = getenv("FIEF_BENCH_GRAPH");
    int graph = !sqlite_only && !(ge && strcmp(ge, "0") == 0);
    int any_gop = 0;
    for (int op = 0; op < NUM_GOPS; op++) any_gop |= gop_enabled[op];
    graph = graph && any_gop;

    /* File size and peak memory: one child process per engine. */
    Footprint fpf, fps;
    memset(&fpf, 0, sizeof fpf);
    memset(&fps, 0, sizeof fps);
    if (footprint) {
        /* the children run the prefix query the warm-up chose */
        if (g_prefix_query) setenv("FIEF_BENCH_SQLITE_PREFIX", g_prefix_query, 1);
        fprintf(stderr, "bench: footprint runs (one child process per engine)\n");
        if (!sqlite_only) run_footprint("fief", n, &fpf);
        run_footprint("sqlite", n, &fps);
    }

    if (check_only) {
        if (footprint)
            printf("check %-12s ok  (file: fief %.3f MiB, sqlite %.3f MiB; peak memory: "
                   "fief %.1f MiB, sqlite %.1f MiB)\n", "footprint",
                   sqlite_only ? 0.0 : mib(fpf.main_bytes), mib(fps.ckpt_main),
                   sqlite_only ? 0.0 : kib_mib(fpf.round_kib), kib_mib(fps.round_kib));
        if (graph) run_graph(1, gop_enabled, repeat_env);
        run_geo(1, ops_env, sqlite_only);
        if (!sqlite_only) run_fts(1, ops_env);
        if (!sqlite_only) run_query(1, n, repeat_env);
        if (!sqlite_only) run_observe(1, n);
        printf("check passed: every op run gave correct results on %s (N=%zu)\n",
               sqlite_only ? "SQLite" : "both engines", n);
        cleanup_tmpdir();
        return 0;
    }

    printf("%-12s %10s %14s %14s %10s\n", "op", "N", "fief_ms", "sqlite_ms", "fief/sqlite");
    int met = 0, compared = 0;
    char summary[2048] = "";
    size_t off = 0;
    for (int op = 0; op < NUM_OPS; op++) {
        double mf = median(times[0][op], ROUNDS), ms = median(times[1][op], ROUNDS);
        double ratio = ms > 0 ? mf / ms : 0;
        if (!op_enabled[op]) {
            printf("%-12s %10zu %14s %14s %10s\n", OP_NAMES[op], n, "skipped", "skipped", "n/a");
            continue;
        }
        if (sqlite_only) {
            printf("%-12s %10zu %14s %14.3f %10s\n", OP_NAMES[op], n, "n/a", ms, "n/a");
            continue;
        }
        printf("%-12s %10zu %14.3f %14.3f %10.3f\n", OP_NAMES[op], n, mf, ms, ratio);
        int ok = ratio <= TARGETS[op];
        met += ok;
        compared++;
        off += (size_t)snprintf(summary + off, sizeof summary - off, " %s %.3f%s%.2f %s;",
                                OP_NAMES[op], ratio, ok ? "<=" : ">", TARGETS[op],
                                ok ? "MET" : "MISSED");
    }
    if (sqlite_only) {
        printf("targets: not compared (FIEF_BENCH_SQLITE_ONLY)\n");
    } else {
        if (off) summary[off - 1] = 0;
        printf("targets%s: %d/%d met:%s\n", n == 100000 ? "" : " (defined at N=100000)", met,
               compared, summary);
    }
    if (graph) run_graph(0, gop_enabled, repeat_env);
    run_geo(0, ops_env, sqlite_only);
    if (!sqlite_only) run_fts(0, ops_env);
    if (!sqlite_only) run_query(0, n, repeat_env);
    if (!sqlite_only) run_observe(0, n);
    if (!footprint) {
        cleanup_tmpdir();
        return 0;
    }

    /* Footprint table: MiB = 2^20 bytes. */
    int have_mem = fps.round_kib > 0 && (sqlite_only || fpf.round_kib > 0);
    printf("%-12s %10s %14s %14s %10s\n", "footprint", "N", "fief_MiB", "sqlite_MiB",
           "fief/sqlite");
    if (sqlite_only) {
        printf("%-12s %10zu %14s %14.3f %10s\n", "file", n, "n/a", mib(fps.ckpt_main), "n/a");
    } else {
        printf("%-12s %10zu %14.3f %14.3f %10.3f\n", "file", n, mib(fpf.main_bytes),
               mib(fps.ckpt_main), (double)fpf.main_bytes / (double)fps.ckpt_main);
    }
    if (!have_mem) {
        printf("%-12s %10zu %14s %14s %10s\n", "peak_insert", n, "n/a", "n/a", "n/a");
        printf("%-12s %10zu %14s %14s %10s\n", "peak_round", n, "n/a", "n/a", "n/a");
    } else if (sqlite_only) {
        printf("%-12s %10zu %14s %14.1f %10s\n", "peak_insert", n, "n/a", kib_mib(fps.insert_kib), "n/a");
        printf("%-12s %10zu %14s %14.1f %10s\n", "peak_round", n, "n/a", kib_mib(fps.round_kib), "n/a");
    } else {
        printf("%-12s %10zu %14.1f %14.1f %10.3f\n", "peak_insert", n, kib_mib(fpf.insert_kib),
               kib_mib(fps.insert_kib), (double)fpf.insert_kib / (double)fps.insert_kib);
        printf("%-12s %10zu %14.1f %14.1f %10.3f\n", "peak_round", n, kib_mib(fpf.round_kib),
               kib_mib(fps.round_kib), (double)fpf.round_kib / (double)fps.round_kib);
    }
    long long values_bytes = (long long)(n * 4 * sizeof(fief_value_t));
    long long data_bytes =
        (long long)(n * (NAME_LEN + sizeof *d.ages + sizeof *d.colors + sizeof *d.sorted) +
                    NUM_LOOKUPS * sizeof *d.lookup_ids);
    if (!sqlite_only)
        printf("file: fief = the realm file after insert's commit (%lld bytes, %lld allocated; "
               "its -lock file, %lld bytes, not counted); sqlite = the database file after "
               "PRAGMA wal_checkpoint(TRUNCATE) (%lld bytes); right after the commit: db %lld + "
               "wal %lld bytes\n",
               fpf.main_bytes, fpf.main_alloc, fpf.aux_bytes, fps.ckpt_main, fps.main_bytes,
               fps.aux_bytes);
    if (have_mem) {
        printf("memory: peak RSS (VmHWM) of one child process per engine, reset%s before its "
               "insert; insert = until its checks end, round = the whole round\n",
               fps.reset == 1 && (sqlite_only || fpf.reset == 1)
                   ? "" : " (NOT: clear_refs failed, peak since process start)");
        printf("memory: RSS before insert: fief %.1f, sqlite %.1f MiB; right after insert "
               "anon/file-mapped: fief %.1f/%.1f, sqlite %.1f/%.1f MiB\n",
               kib_mib(fpf.base_kib), kib_mib(fps.base_kib), kib_mib(fpf.anon_kib),
               kib_mib(fpf.mapped_kib), kib_mib(fps.anon_kib), kib_mib(fps.mapped_kib));
        printf("memory: input arrays: fief_value_t[4*N] for the bulk insert %.1f MiB (Fief "
               "only); generated data %.1f MiB (in both processes)\n",
               mib(values_bytes), mib(data_bytes));
    }
    if (!sqlite_only) {
        char tgt[1024];
        int fmet = 0, fcmp = 0;
        size_t o2 = 0;
        double fr = (double)fpf.main_bytes / (double)fps.ckpt_main;
        int ok = fr <= FILE_TARGET;
        fmet += ok;
        fcmp++;
        o2 += (size_t)snprintf(tgt + o2, sizeof tgt - o2, " file %.3f%s%.2f %s;", fr,
                               ok ? "<=" : ">", FILE_TARGET, ok ? "MET" : "MISSED");
        if (have_mem) {
            double lim = kib_mib(fps.round_kib) + mib(values_bytes) + MEM_SLACK_MIB;
            ok = kib_mib(fpf.round_kib) <= lim;
            fmet += ok;
            fcmp++;
            o2 += (size_t)snprintf(tgt + o2, sizeof tgt - o2,
                                   " peak memory fief %.1f%s%.1f (sqlite %.1f + input %.1f + "
                                   "%.0f) MiB %s;",
                                   kib_mib(fpf.round_kib), ok ? "<=" : ">", lim,
                                   kib_mib(fps.round_kib), mib(values_bytes), MEM_SLACK_MIB,
                                   ok ? "MET" : "MISSED");
        }
        tgt[o2 - 1] = 0;
        printf("footprint targets%s: %d/%d met:%s\n",
               n == FOOTPRINT_TARGET_N ? "" : " (defined at N=1000000)", fmet, fcmp, tgt);
    }
    cleanup_tmpdir();
    return 0;
}
