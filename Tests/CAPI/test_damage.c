/* Damaged files: copies of a realm file with flipped bytes, zeroed pages,
 * truncation and garbage are each opened, read whole and written to by a
 * child process.  Every copy must either read back exactly the original
 * data or fail with a file error (FIEF_ERR_CAT_FILE) — never crash, hang or
 * return different data — and a commit that succeeds on a damaged copy must
 * not disturb the data that was read.  Then fief_file_verify must report
 * damage in every copy that a read refused, and fief_file_copy must salvage
 * something readable from copies it can open.
 *
 * FIEF_DAMAGE_COPIES sets the number of damaged copies (default 400). */
#include "fief_test.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- a growing text buffer: the canonical dump of a realm ------------------ */

typedef struct text {
    char *data;
    size_t size, capacity;
} text;

static void text_add(text *t, const char *s) {
    size_t n = strlen(s);
    if (t->size + n + 1 > t->capacity) {
        t->capacity = (t->size + n + 1) * 2;
        t->data = realloc(t->data, t->capacity);
    }
    memcpy(t->data + t->size, s, n + 1);
    t->size += n;
}

static const char *const CLASSES[] = {"AllTypes", "StrPk", "NoPk"};
static const char *const PROPS[][22] = {
    {"id", "i", "b", "s", "bin", "ts", "f", "d", "dec", "oid", "uuid", "oi", "ob", "os", "obin", "ots", "of", "od",
     "odec", "ooid", "ouuid", "idx"},
    {"name", "value"},
    {"value", "label"},
};
static const size_t NUM_PROPS[] = {22, 2, 2};

/* Every object of every class, in key order; false (with the last error
 * set) as soon as a call fails.  `skip_id` leaves out the AllTypes object
 * with that id (the one a child adds). */
static bool dump(fief_realm_t *r, text *out, int64_t skip_id) {
    for (size_t c = 0; c < 3; c++) {
        fief_class_key_t cls = t_class(r, CLASSES[c]);
        fief_property_key_t keys[22];
        for (size_t p = 0; p < NUM_PROPS[c]; p++) keys[p] = t_prop(r, CLASSES[c], PROPS[c][p]);
        fief_results_t *all = fief_realm_get_objects(r, cls);
        if (!all) return false;
        size_t n;
        if (!fief_results_count(all, &n)) {
            fief_release(all);
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            fief_value_t v[22];
            if (!fief_results_get_values(all, i, keys, NUM_PROPS[c], v)) {
                fief_release(all);
                return false;
            }
            if (c == 0 && v[0].type == FIEF_TYPE_INT && v[0].u.integer == skip_id) continue;
            text_add(out, CLASSES[c]);
            for (size_t p = 0; p < NUM_PROPS[c]; p++) {
                char buf[20000];
                text_add(out, " ");
                text_add(out, t_value_str(v[p], buf, sizeof buf));
            }
            text_add(out, "\n");
        }
        fief_release(all);
    }
    return true;
}

/* ---- the original file ------------------------------------------------------ */

#define OBJECTS 1500

static void fill(fief_realm_t *r) {
    fief_class_key_t all = t_class(r, "AllTypes"), str = t_class(r, "StrPk"), nopk = t_class(r, "NoPk");
    const char *names[] = {"id", "i", "s", "os", "bin", "d", "idx"};
    fief_property_key_t k[7];
    for (int p = 0; p < 7; p++) k[p] = t_prop(r, "AllTypes", names[p]);
    fief_property_key_t sk[2] = {t_prop(r, "StrPk", "name"), t_prop(r, "StrPk", "value")};
    fief_property_key_t nk[2] = {t_prop(r, "NoPk", "value"), t_prop(r, "NoPk", "label")};
    static char longtext[6000];
    memset(longtext, 'x', sizeof longtext);
    E(fief_realm_begin_write(r));
    for (int64_t i = 0; i < OBJECTS; i++) {
        char s[64], os[64], bin[32];
        snprintf(s, sizeof s, "name %lld", (long long)i);
        snprintf(os, sizeof os, "note %lld", (long long)(i * 7));
        for (int b = 0; b < 32; b++) bin[b] = (char)(i + b);
        fief_value_t v[7] = {vi(i * 3 + 1), vi(i * i - 500), vs(s),
                             i % 3 ? vs(os) : (i % 50 == 1 ? vsn(longtext, sizeof longtext) : vnull()),
                             vbin(bin, (size_t)(i % 33)), vd((double)i / 7), vi(i % 10)};
        fief_object_t *o = fief_object_create(r, all, k, v, 7, FIEF_UPDATE_POLICY_ERROR);
        E(o != NULL);
        fief_release(o);
    }
    for (int i = 0; i < 200; i++) {
        char name[32];
        snprintf(name, sizeof name, "key-%03d", i);
        fief_value_t v[2] = {vs(name), vi(i * 11)};
        fief_object_t *o = fief_object_create(r, str, sk, v, 2, FIEF_UPDATE_POLICY_ERROR);
        E(o != NULL);
        fief_release(o);
        fief_value_t w[2] = {vi(-i), i % 2 ? vs(name) : vnull()};
        o = fief_object_create(r, nopk, nk, w, 2, FIEF_UPDATE_POLICY_ERROR);
        E(o != NULL);
        fief_release(o);
    }
    E(fief_realm_commit(r));
    /* Deletes leave holes, and a second commit frees pages. */
    E(fief_realm_begin_write(r));
    for (int64_t i = 0; i < OBJECTS; i += 5) {
        fief_value_t pk = vi(i * 3 + 1);
        fief_object_t *o = fief_object_find_by_primary_key(r, all, pk, NULL);
        E(o != NULL);
        E(fief_object_delete(o));
        fief_release(o);
    }
    E(fief_realm_commit(r));
}

static unsigned char *read_file(const char *path, size_t *size) {
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)n);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* ---- damage ------------------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Damage `data` in place; returns its new size. */
static size_t damage(unsigned char *data, size_t size, int kind) {
    switch (kind) {
    case 0: { /* flipped bits */
        int n = 1 + (int)(rng() % 8);
        for (int i = 0; i < n; i++) data[rng() % size] ^= (unsigned char)(1u << (rng() % 8));
        return size;
    }
    case 1: { /* a zeroed page */
        size_t page = (size_t)(rng() % (size / 4096)) * 4096;
        memset(data + page, 0, 4096);
        return size;
    }
    case 2: /* cut short */
        return (size_t)(rng() % size);
    default: { /* garbage over a range */
        size_t len = 1 + (size_t)(rng() % 4096);
        size_t at = (size_t)(rng() % size);
        if (at + len > size) len = size - at;
        for (size_t i = 0; i < len; i++) data[at + i] = (unsigned char)rng();
        return size;
    }
    }
}

/* ---- the child: open, read, write, read again ------------------------------- */

enum outcome { SAME = 0, REFUSED = 10, DIFFERENT = 20, WRONG_ERROR = 21, WRITE_BROKE = 22 };

static int file_error_or(int bad) {
    fief_error_t e;
    memset(&e, 0, sizeof e);
    fief_get_last_error(&e);
    if (e.categories & FIEF_ERR_CAT_FILE) return REFUSED;
    fprintf(stderr, "  unexpected error %d: %s\n", (int)e.code, e.message ? e.message : "");
    return bad;
}

static int child(const char *path, const text *expected) {
    alarm(20);
    fief_realm_t *r = t_open(path, NULL, 0);
    if (!r) return file_error_or(WRONG_ERROR);
    text got = {0};
    if (!dump(r, &got, -1)) return file_error_or(WRONG_ERROR);
    if (got.size != expected->size || memcmp(got.data, expected->data, got.size) != 0) return DIFFERENT;
    /* A write on top: add one object, change one; then everything else
     * must read as before. */
    fief_class_key_t all = t_class(r, "AllTypes");
    fief_property_key_t id = t_prop(r, "AllTypes", "id");
    if (!fief_realm_begin_write(r)) return file_error_or(WRITE_BROKE);
    fief_value_t pk = vi(-77);
    fief_object_t *o = fief_object_create(r, all, &id, &pk, 1, FIEF_UPDATE_POLICY_ERROR);
    if (!o) return file_error_or(WRITE_BROKE);
    fief_release(o);
    if (!fief_realm_commit(r)) return file_error_or(WRITE_BROKE);
    text again = {0};
    if (!dump(r, &again, -77)) return file_error_or(WRITE_BROKE);
    if (again.size != expected->size || memcmp(again.data, expected->data, again.size) != 0) return WRITE_BROKE;
    fief_release(r);
    return SAME;
}

static void count_report(void *userdata, fief_report_kind_t kind, const char *line) {
    (void)line;
    if (kind == FIEF_REPORT_PROBLEM) ++*(size_t *)userdata;
}

/* Verify and copy, in a child (they read damaged data too). */
static int check_and_copy(const char *path, const char *copy) {
    alarm(20);
    size_t problems = 0, reported = 0;
    if (!fief_file_verify(path, count_report, &reported, &problems)) return file_error_or(WRONG_ERROR) == REFUSED ? 1 : WRONG_ERROR;
    if (problems != reported) {
        fprintf(stderr, "  verify counted %zu problems but reported %zu\n", problems, reported);
        return WRONG_ERROR;
    }
    size_t lost = 0;
    if (!fief_file_copy(path, copy, NULL, NULL, &lost)) {
        int e = file_error_or(WRONG_ERROR);
        return e == REFUSED ? (problems ? 2 : 3) : e;
    }
    /* The copy itself is sound and opens. */
    size_t copy_problems = 1;
    if (!fief_file_verify(copy, NULL, NULL, &copy_problems) || copy_problems != 0) {
        fprintf(stderr, "  the salvaged copy is not sound (%zu problems)\n", copy_problems);
        return file_error_or(WRONG_ERROR) == REFUSED ? WRONG_ERROR : WRONG_ERROR;
    }
    fief_realm_t *r = t_open(copy, NULL, 0);
    text got = {0};
    if (!r || !dump(r, &got, -1)) {
        fprintf(stderr, "  the salvaged copy does not read\n");
        file_error_or(WRONG_ERROR);
        return WRONG_ERROR;
    }
    fief_release(r);
    return problems ? 2 : 3;
}

static int run_child(int (*body)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(body());
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static const char *g_path, *g_copy;
static text g_expected;
static int child_read(void) { return child(g_path, &g_expected); }
static int child_check(void) { return check_and_copy(g_path, g_copy); }

TEST(damaged_copies) {
    const char *original = t_path("original.fief");
    {
        fief_schema_t *s = t_std_schema();
        fief_realm_t *r = t_open(original, s, 0);
        E(r != NULL);
        fill(r);
        E(dump(r, &g_expected, -1));
        fief_release(r);
        fief_release(s);
    }
    size_t size;
    unsigned char *pristine = read_file(original, &size);
    E(pristine != NULL && size > 8 * 4096);
    unsigned char *copy = malloc(size);
    const char *env = getenv("FIEF_DAMAGE_COPIES");
    int copies = env ? atoi(env) : 400;
    int outcomes[4][3] = {{0}};
    int bad = 0;
    char path[4096], salvaged[4096];
    rng_state = 20261123;
    for (int i = 0; i < copies; i++) {
        int kind = i % 4;
        memcpy(copy, pristine, size);
        size_t n = damage(copy, size, kind);
        snprintf(path, sizeof path, "%s/damaged-%d.fief", t_dir(), i);
        snprintf(salvaged, sizeof salvaged, "%s/salvaged-%d.fief", t_dir(), i);
        E(t_write_file(path, copy, n));
        g_path = path;
        g_copy = salvaged;
        int read = run_child(child_read);
        if (read == SAME) outcomes[kind][0]++;
        else if (read == REFUSED) outcomes[kind][1]++;
        else {
            outcomes[kind][2]++;
            bad++;
            fprintf(stderr, "copy %d (damage kind %d): %s\n", i, kind,
                    read >= 1000 ? "CRASHED" : read == DIFFERENT ? "read DIFFERENT data" : read == WRITE_BROKE ? "a write broke the data" : "wrong error");
        }
        int checked = run_child(child_check);
        if (checked >= 1000 || checked == WRONG_ERROR) {
            bad++;
            fprintf(stderr, "copy %d (damage kind %d): verify or copy %s\n", i, kind, checked >= 1000 ? "CRASHED" : "failed wrongly");
        } else if (read == REFUSED && checked == 3) {
            /* The read found damage that verify missed. */
            bad++;
            fprintf(stderr, "copy %d (damage kind %d): refused when read, but verify found nothing\n", i, kind);
        }
        if (getenv("FIEF_TEST_KEEP")) continue;
        unlink(path);
        snprintf(path, sizeof path, "%s/damaged-%d.fief-lock", t_dir(), i);
        unlink(path);
        unlink(salvaged);
        snprintf(salvaged, sizeof salvaged, "%s/salvaged-%d.fief-lock", t_dir(), i);
        unlink(salvaged);
    }
    const char *kinds[] = {"flipped bits", "zeroed page", "cut short", "garbage"};
    for (int k = 0; k < 4; k++) {
        printf("%-13s: %3d read the same, %3d refused with a file error, %d wrong\n", kinds[k], outcomes[k][0],
               outcomes[k][1], outcomes[k][2]);
    }
    free(copy);
    free(pristine);
    EQI(bad, 0);
}

TEST(verify_and_copy_a_sound_file) {
    const char *original = t_path("sound.fief");
    fief_schema_t *s = t_std_schema();
    fief_realm_t *r = t_open(original, s, 0);
    E(r != NULL);
    fill(r);
    text before = {0};
    E(dump(r, &before, -1));
    size_t problems = 99, reported = 0;
    E(fief_file_verify(original, count_report, &reported, &problems));
    EQU(problems, 0);
    EQU(reported, 0);
    /* A copy from the open realm and one from the file: the same data,
     * no bigger than the original. */
    const char *a = t_path("copy-a.fief"), *b = t_path("copy-b.fief");
    E(fief_realm_write_copy(r, a, NULL, NULL, &problems));
    EQU(problems, 0);
    EERR(fief_realm_write_copy(r, a, NULL, NULL, &problems), FIEF_ERR_INVALID_ARGUMENT); /* exists */
    E(fief_realm_begin_write(r));
    EERR(fief_realm_write_copy(r, t_path("copy-c.fief"), NULL, NULL, &problems), FIEF_ERR_ALREADY_IN_TRANSACTION);
    E(fief_realm_cancel(r));
    E(fief_file_copy(original, b, NULL, NULL, &problems));
    EQU(problems, 0);
    struct stat so, sa;
    E(stat(original, &so) == 0 && stat(a, &sa) == 0);
    E(sa.st_size <= so.st_size);
    fief_release(r);
    const char *copies[] = {a, b};
    for (int i = 0; i < 2; i++) {
        E(fief_file_verify(copies[i], NULL, NULL, &problems));
        EQU(problems, 0);
        fief_realm_t *c = t_open(copies[i], NULL, 0);
        E(c != NULL);
        text got = {0};
        E(dump(c, &got, -1));
        EQI(got.size, before.size);
        E(memcmp(got.data, before.data, got.size) == 0);
        /* Primary keys and indexes were built again. */
        fief_value_t pk = vi(3 * 7 + 1);
        fief_object_t *o = fief_object_find_by_primary_key(c, t_class(c, "AllTypes"), pk, NULL);
        E(o != NULL);
        fief_release(o);
        fief_release(c);
    }
    fief_release(s);
    EERR(fief_file_verify(t_path("missing.fief"), NULL, NULL, &problems), FIEF_ERR_FILE_NOT_FOUND);
    EERR(fief_file_verify(NULL, NULL, NULL, &problems), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_file_copy(original, NULL, NULL, NULL, &problems), FIEF_ERR_INVALID_ARGUMENT);
}

/* The bytes of a file `fill` made (under `name`), and where in them the
 * string "name 1000" (a chunk of AllTypes.s) is. */
static unsigned char *filled_file(fief_schema_t *s, const char *name, size_t *size, size_t *at) {
    const char *path = t_path(name);
    fief_realm_t *r = t_open(path, s, 0);
    E(r != NULL);
    fill(r);
    fief_release(r);
    unsigned char *data = read_file(path, size);
    E(data != NULL);
    *at = 0;
    while (*at + 9 < *size && memcmp(data + *at, "name 1000", 9) != 0) ++*at;
    E(*at + 9 < *size);
    return data;
}

/* A damaged chunk names its class and property, and the rest of the file
 * stays readable; copy leaves out exactly that data. */
TEST(damaged_chunk_is_named) {
    fief_schema_t *s = t_std_schema();
    size_t size, at;
    unsigned char *data = filled_file(s, "named.fief", &size, &at);
    data[at + 5] ^= 0x01; /* one bit of "name 1000", in a chunk of AllTypes.s */
    const char *damaged = t_path("named-damaged.fief");
    E(t_write_file(damaged, data, size));
    free(data);
    fief_realm_t *r = t_open(damaged, NULL, 0);
    E(r != NULL);
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "AllTypes"));
    fief_results_t *q = fief_results_filter(all, "s == 'name 1000'", NULL, 0);
    size_t n;
    EERR(fief_results_count(q, &n), FIEF_ERR_FILE_CORRUPT);
    EMSG("property 's' of class 'AllTypes'");
    /* Other properties and classes still read. */
    fief_results_t *q2 = fief_results_filter(all, "i < 0", NULL, 0);
    E(fief_results_count(q2, &n));
    E(n > 0);
    E(t_count_class(r, t_class(r, "StrPk")) == 200);
    fief_release(q2);
    fief_release(q);
    fief_release(all);
    fief_release(r);
    size_t problems = 0;
    E(fief_file_verify(damaged, NULL, NULL, &problems));
    EQU(problems, 1);
    const char *salvaged = t_path("named-salvaged.fief");
    E(fief_file_copy(damaged, salvaged, NULL, NULL, &problems));
    EQU(problems, 1);
    r = t_open(salvaged, NULL, 0);
    E(r != NULL);
    EQI(t_count_class(r, t_class(r, "AllTypes")), OBJECTS - OBJECTS / 5);
    fief_release(r);
    fief_release(s);
}

/* A page of a class's data tree with a broken header: that class fails
 * with an error naming it, other classes read, the file is not written,
 * and copy salvages the class's other pages. */
TEST(damaged_page_is_contained) {
    fief_schema_t *s = t_std_schema();
    size_t size, at;
    unsigned char *data = filled_file(s, "page.fief", &size, &at);
    memset(data + at / 4096 * 4096 + 10, 0xEE, 6); /* the page's flags, lower and upper */
    const char *damaged = t_path("page-damaged.fief");
    E(t_write_file(damaged, data, size));
    free(data);
    fief_realm_t *r = t_open(damaged, NULL, 0);
    E(r != NULL);
    /* The class itself is refused (its tree is never handed to LMDB). */
    fief_class_key_t cls = t_class(r, "AllTypes");
    EERR(fief_realm_get_objects(r, cls) != NULL, FIEF_ERR_FILE_CORRUPT);
    EMSG("'AllTypes'");
    EQI(t_count_class(r, t_class(r, "StrPk")), 200);
    EERR(fief_realm_begin_write(r), FIEF_ERR_FILE_CORRUPT);
    fief_release(r);
    size_t problems = 0;
    E(fief_file_verify(damaged, NULL, NULL, &problems));
    E(problems >= 1);
    const char *salvaged = t_path("page-salvaged.fief");
    E(fief_file_copy(damaged, salvaged, NULL, NULL, &problems));
    E(problems >= 1);
    E(fief_file_verify(salvaged, NULL, NULL, &problems));
    EQU(problems, 0);
    r = t_open(salvaged, NULL, 0);
    E(r != NULL);
    size_t kept = t_count_class(r, t_class(r, "AllTypes"));
    printf("salvaged %zu of %d AllTypes objects\n", kept, OBJECTS - OBJECTS / 5);
    E(kept >= (OBJECTS - OBJECTS / 5) / 2);
    EQI(t_count_class(r, t_class(r, "StrPk")), 200);
    fief_release(r);
    fief_release(s);
}

int main(int argc, char **argv) {
    static const t_case cases[] = {T(damaged_copies), T(verify_and_copy_a_sound_file), T(damaged_chunk_is_named),
                                   T(damaged_page_is_contained)};
    return T_MAIN(argc, argv, cases);
}
