/* Files of format 5 against this library's format 6: the fixture
 * Tests/CAPI/data/format5_fulltext_sets.fief (see format5_data.h), written
 * by the format-5 library, holds a full-text index left stale by writes of
 * a library that did not know it, and sets of mixed values holding a
 * decimal and the equal double as two elements.  A read-only open refuses
 * it with directions; fief verify finds no damage (and says what the
 * upgrade repairs); fief copy and a writable open make it format 6, whose
 * full-text index matches the texts and whose sets hold Realm's one
 * element per number; a process killed while it upgrades leaves the file
 * as it was or upgraded, never between.  A format-5 file without either
 * is read as it is; a file of a format newer than 8 is refused. */
#include "fief_test.h"
#include "format5_data.h"

#include <lmdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FIEF_TEST_DATA
#error FIEF_TEST_DATA (the directory of the test files) must be defined
#endif

/* A fresh copy of the format-5 fixture at `name` in the test directory. */
static const char *fixture(const char *name) {
    static char path[4096];
    snprintf(path, sizeof path, "%s", t_path(name));
    FILE *in = fopen(FIEF_TEST_DATA "/format5_fulltext_sets.fief", "rb");
    if (!in) return NULL;
    static unsigned char buffer[4 << 20];
    size_t n = fread(buffer, 1, sizeof buffer, in);
    fclose(in);
    unlink(path);
    return n > 0 && n < sizeof buffer && t_write_file(path, buffer, n) ? path : NULL;
}

static bool same_bytes(const char *path, const char *other) {
    FILE *a = fopen(path, "rb"), *b = fopen(other, "rb");
    bool same = a && b;
    while (same) {
        int x = fgetc(a), y = fgetc(b);
        if (x != y) same = false;
        if (x == EOF) break;
    }
    if (a) fclose(a);
    if (b) fclose(b);
    return same;
}

static fief_realm_t *open_path(const char *path, bool read_only) {
    fief_config_t *c = fief_config_new();
    if (!c || !fief_config_set_path(c, path) || !fief_config_set_read_only(c, read_only)) return NULL;
    fief_realm_t *r = fief_realm_open(c);
    fief_release(c);
    return r;
}

/* Findings of fief_file_verify: problems, and whether an info line holds `needle`. */
typedef struct {
    int problems;
    const char *needle;
    bool seen;
} findings;
static void collect(void *userdata, fief_report_kind_t kind, const char *line) {
    findings *f = userdata;
    if (kind == FIEF_REPORT_PROBLEM) {
        f->problems++;
        fprintf(stderr, "problem: %s\n", line);
    } else if (f->needle && strstr(line, f->needle)) {
        f->seen = true;
    }
}
static size_t verify(const char *path, const char *needle, bool *seen) {
    findings f = {0, needle, false};
    size_t problems = 99;
    if (!fief_file_verify(path, collect, &f, &problems)) return 99;
    if (seen) *seen = f.seen;
    return problems;
}

/* The file's contents as format 6 has them: every word's TEXT matches are
 * the documents whose current text holds it, every bag holds
 * F5_SIZE_6[b] elements, each of its values.  0, or a code saying what
 * differs (for the crash test's children). */
static int check_contents(fief_realm_t *r) {
    fief_class_key_t doc = t_class(r, "Doc"), bag = t_class(r, "Bag");
    fief_property_key_t bag_id = t_prop(r, "Bag", "id"), values = t_prop(r, "Bag", "values");
    fief_results_t *docs = fief_realm_get_objects(r, doc);
    if (!docs) return 1;
    size_t n = 0;
    int expected_docs = 0;
    for (int id = 0; id < F5_DOCS + F5_ADDED; id++) expected_docs += f5_doc_exists(id);
    if (!fief_results_count(docs, &n) || (int)n != expected_docs) return 2;
    char text[256];
    for (int w = 0; w < F5_NUM_WORDS; w++) {
        int want = 0;
        for (int id = 0; id < F5_DOCS + F5_ADDED; id++) {
            if (!f5_doc_exists(id)) continue;
            f5_current_text(id, text, sizeof text);
            want += f5_has_word(text, F5_WORDS[w]);
        }
        char predicate[64];
        snprintf(predicate, sizeof predicate, "text TEXT '%s'", F5_WORDS[w]);
        fief_results_t *matched = fief_results_filter(docs, predicate, NULL, 0);
        if (!matched || !fief_results_count(matched, &n)) return 3;
        fief_release(matched);
        if ((int)n != want) {
            fprintf(stderr, "'%s': %zu documents match, %d hold it\n", F5_WORDS[w], n, want);
            return 4;
        }
    }
    fief_release(docs);
    for (int b = 0; b < F5_BAGS; b++) {
        bool found = false;
        fief_object_t *o = fief_object_find_by_primary_key(r, bag, f5_int(b), &found);
        if (!o || !found) return 5;
        fief_set_t *set = fief_object_get_set(o, values);
        size_t size = 0;
        if (!set || !fief_set_count(set, &size)) return 6;
        if ((int)size != F5_SIZE_6[b]) {
            fprintf(stderr, "bag %d holds %zu elements, not %d\n", b, size, F5_SIZE_6[b]);
            return 7;
        }
        fief_value_t given[F5_MAX_BAG];
        int count = f5_bag(b, given);
        for (int i = 0; i < count; i++) {
            bool contains = false;
            if (!fief_set_contains(set, given[i], &contains) || !contains) {
                fprintf(stderr, "bag %d lacks its value %d\n", b, i);
                return 8;
            }
        }
        /* The values read back are distinct as Realm compares them. */
        fief_results_t *all = fief_realm_get_objects(r, bag);
        for (size_t i = 0; all && i < size; i++) {
            fief_value_t v;
            if (!fief_set_get(set, i, &v)) return 9;
            fief_query_arg_t arg = {.values = &v, .count = 1};
            fief_results_t *holding = fief_results_filter(all, "ANY values == $0", &arg, 1);
            size_t h = 0;
            if (!holding || !fief_results_count(holding, &h) || h == 0) return 10;
            fief_release(holding);
        }
        fief_release(all);
        (void)bag_id;
        fief_release(set);
        fief_release(o);
    }
    return 0;
}

/* Bag 0's one element after the upgrade: the double (keyed canonically
 * already, so the entry kept), 2^70. */
static void check_kept_element(fief_realm_t *r) {
    bool found = false;
    fief_object_t *o = fief_object_find_by_primary_key(r, t_class(r, "Bag"), f5_int(0), &found);
    R(o && found);
    fief_set_t *set = fief_object_get_set(o, t_prop(r, "Bag", "values"));
    R(set);
    fief_value_t v;
    E(fief_set_get(set, 0, &v));
    EQI(v.type, FIEF_TYPE_DOUBLE);
    EQD(v.u.double_value, F5_TWO_70);
    fief_release(set);
    fief_release(o);
}

TEST(read_only_open_of_format_5_says_how_to_upgrade) {
    const char *path = fixture("ro.fief");
    R(path != NULL);
    EERRM(open_path(path, true) != NULL, FIEF_ERR_FILE_FORMAT, "format 5");
    EMSG("full-text");
    EMSG("fief copy");
    /* Verified as it is, nothing written; verify says what the upgrade repairs. */
    bool stale = false, rekeyed = false;
    EQU(verify(path, "stale", &stale), 0);
    E(stale);
    EQU(verify(path, "keyed in format 5's form", &rekeyed), 0);
    E(rekeyed);
    E(same_bytes(path, FIEF_TEST_DATA "/format5_fulltext_sets.fief"));
}

TEST(writable_open_upgrades_format_5) {
    const char *path = fixture("upgraded.fief");
    R(path != NULL);
    fief_realm_t *r = open_path(path, false);
    R(r != NULL);
    EQI(check_contents(r), 0);
    check_kept_element(r);
    E(fief_realm_close(r));
    E(fief_release(r));
    bool said = false;
    EQU(verify(path, "format 10", &said), 0);
    E(said);
    /* Now format 10: a read-only open works. */
    r = open_path(path, true);
    R(r != NULL);
    EQI(check_contents(r), 0);
    E(fief_release(r));
    /* Writes keep the rebuilt index and the one-element sets. */
    r = open_path(path, false);
    R(r != NULL);
    fief_class_key_t doc = t_class(r, "Doc"), bag = t_class(r, "Bag");
    E(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_get(r, doc, 0);
    R(o);
    E(fief_object_set_value(o, t_prop(r, "Doc", "text"), vs("zulu alpha")));
    fief_release(o);
    bool found = false;
    o = fief_object_find_by_primary_key(r, bag, f5_int(2), &found);
    R(o && found);
    fief_set_t *set = fief_object_get_set(o, t_prop(r, "Bag", "values"));
    R(set);
    bool inserted = true;
    E(fief_set_insert(set, f5_double(F5_TWO_70), &inserted));
    E(!inserted);
    bool removed = false;
    E(fief_set_remove(set, f5_float(1180591620717411303424.0f), &removed));
    E(removed);
    size_t size = 9;
    E(fief_set_count(set, &size));
    EQU(size, 0);
    fief_release(set);
    fief_release(o);
    E(fief_realm_commit(r));
    fief_results_t *zulu = fief_results_filter(fief_realm_get_objects(r, doc), "text TEXT 'zulu'", NULL, 0);
    R(zulu);
    EQU(t_count(zulu), 1);
    fief_release(zulu);
    E(fief_realm_close(r));
    E(fief_release(r));
    EQU(verify(path, NULL, NULL), 0);
}

TEST(copy_of_format_5_is_format_6) {
    const char *path = fixture("copied.fief");
    R(path != NULL);
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", t_path("copy.fief"));
    bool merged = false;
    findings f = {0, "merged", false};
    size_t problems = 99;
    E(fief_file_copy(path, copy, collect, &f, &problems));
    EQU(problems, 0);
    merged = f.seen;
    E(merged);
    E(same_bytes(path, FIEF_TEST_DATA "/format5_fulltext_sets.fief"));
    EQU(verify(copy, NULL, NULL), 0);
    fief_realm_t *r = open_path(copy, true);
    R(r != NULL);
    EQI(check_contents(r), 0);
    check_kept_element(r);
    E(fief_release(r));
}

/* Set meta/format of the Fief file at `path` to `format` (raw LMDB).  Marking
 * a file of format 8 or later older drops the seal (4 bytes) its schema record
 * ends with, as older formats store the record without one; marking one of
 * format 10 or later older drops the seal every set entry ends with (format
 * 10 added them). */
static void unseal_sets(MDB_txn *txn) {
    MDB_dbi main_db;
    R(mdb_dbi_open(txn, NULL, 0, &main_db) == 0);
    char names[16][32];
    int count = 0;
    MDB_cursor *c;
    R(mdb_cursor_open(txn, main_db, &c) == 0);
    MDB_val k, v;
    for (int rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
        char name[32];
        unsigned a, b;
        char tail;
        if (k.mv_size >= sizeof name) continue;
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = 0;
        if (sscanf(name, "c%u.s%u%c", &a, &b, &tail) == 2 && count < 16) strcpy(names[count++], name);
    }
    mdb_cursor_close(c);
    for (int i = 0; i < count; i++) {
        MDB_dbi dbi;
        R(mdb_dbi_open(txn, names[i], 0, &dbi) == 0);
        /* Copied out first: the puts below may move what the cursor points at. */
        MDB_val keys[64], values[64];
        size_t n = 0;
        R(mdb_cursor_open(txn, dbi, &c) == 0);
        for (int rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
            R(v.mv_size >= 4 && n < 64);
            keys[n].mv_size = k.mv_size;
            keys[n].mv_data = malloc(k.mv_size);
            values[n].mv_size = v.mv_size - 4;
            values[n].mv_data = malloc(v.mv_size);
            R(keys[n].mv_data != NULL && values[n].mv_data != NULL);
            memcpy(keys[n].mv_data, k.mv_data, k.mv_size);
            memcpy(values[n].mv_data, v.mv_data, v.mv_size - 4);
            n++;
        }
        mdb_cursor_close(c);
        for (size_t j = 0; j < n; j++) {
            R(mdb_put(txn, dbi, &keys[j], &values[j], 0) == 0);
            free(keys[j].mv_data);
            free(values[j].mv_data);
        }
    }
}

static void set_format(const char *path, uint64_t format) {
    MDB_env *env;
    R(mdb_env_create(&env) == 0);
    R(mdb_env_set_maxdbs(env, 64) == 0);
    R(mdb_env_open(env, path, MDB_NOSUBDIR, 0644) == 0);
    MDB_txn *txn;
    MDB_dbi meta;
    R(mdb_txn_begin(env, NULL, 0, &txn) == 0);
    R(mdb_dbi_open(txn, "meta", 0, &meta) == 0);
    MDB_val k = {6, "format"}, v = {8, &format}, old;
    uint64_t current = 0;
    if (mdb_get(txn, meta, &k, &old) == 0 && old.mv_size == 8) memcpy(&current, old.mv_data, 8);
    R(mdb_put(txn, meta, &k, &v, 0) == 0);
    if (current >= 10 && format < 10) unseal_sets(txn);
    MDB_val sk = {6, "schema"}, sv;
    if (current >= 8 && format < 8 && mdb_get(txn, meta, &sk, &sv) == 0 && sv.mv_size > 4) {
        unsigned char *bytes = malloc(sv.mv_size - 4);
        R(bytes != NULL);
        memcpy(bytes, sv.mv_data, sv.mv_size - 4);
        MDB_val unsealed = {sv.mv_size - 4, bytes};
        R(mdb_put(txn, meta, &sk, &unsealed, 0) == 0);
        free(bytes);
    }
    R(mdb_txn_commit(txn) == 0);
    mdb_env_close(env);
}

TEST(newer_format_is_refused) {
    const char *path = fixture("newer.fief");
    R(path != NULL);
    set_format(path, 11);
    EERRM(open_path(path, true) != NULL, FIEF_ERR_FILE_FORMAT, "file format 11");
    EMSG("newer");
    EERRM(open_path(path, false) != NULL, FIEF_ERR_FILE_FORMAT, "file format 11");
    findings f = {0, NULL, false};
    size_t problems = 0;
    E(fief_file_verify(path, collect, &f, &problems));
    EQU(problems, 1);
    EERRM(fief_file_copy(path, t_path("newer-copy.fief"), NULL, NULL, &problems), FIEF_ERR_FILE_FORMAT, "file format 11");
    E(!t_file_exists(t_path("newer-copy.fief")));
}

/* A format-5 file without full-text indexes whose sets hold no number
 * format 6 keys otherwise (here: a current file marked 5, its set entries
 * unsealed): its sets have no checksums (format 10 adds them), so a read-only
 * open refuses it with directions; a writable open upgrades it, after which
 * it reads as before. */
TEST(read_only_open_of_plain_format_5_says_its_sets_are_unsealed) {
    const char *path = t_path("plain.fief");
    fief_property_info_t props[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                    t_prop_info("values", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    props[1].collection_type = FIEF_COLLECTION_SET;
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Bag";
    c.num_properties = 2;
    const fief_property_info_t *pp[1] = {props};
    fief_schema_t *s = fief_schema_new(&c, 1, pp);
    R(s);
    fief_realm_t *r = t_open(path, s, 0);
    R(r);
    fief_property_key_t id = t_prop(r, "Bag", "id"), values = t_prop(r, "Bag", "values");
    E(fief_realm_begin_write(r));
    fief_value_t one = vi(1);
    fief_object_t *o = fief_object_create(r, t_class(r, "Bag"), &id, &one, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    fief_set_t *set = fief_object_get_set(o, values);
    R(set);
    E(fief_set_insert(set, vd(1e30), NULL));
    E(fief_set_insert(set, vdec(1, 0x3040000000000000ull), NULL)); /* decimal 1 */
    E(fief_set_insert(set, vs("x"), NULL));
    fief_release(set);
    fief_release(o);
    E(fief_realm_commit(r));
    E(fief_realm_close(r));
    fief_release(r);
    set_format(path, 5);
    EERRM(open_path(path, true) != NULL, FIEF_ERR_FILE_FORMAT, "have no checksums");
    bool said = false;
    EQU(verify(path, "file format 5", &said), 0);
    E(said);
    r = open_path(path, false);
    R(r);
    E(fief_realm_close(r));
    fief_release(r);
    EQU(verify(path, "format 10,", &said), 0);
    E(said);
    r = open_path(path, true);
    R(r);
    bool found = false;
    o = fief_object_find_by_primary_key(r, t_class(r, "Bag"), vi(1), &found);
    R(o && found);
    set = fief_object_get_set(o, values);
    R(set);
    size_t size = 0;
    E(fief_set_count(set, &size));
    EQU(size, 3);
    bool contains = false;
    E(fief_set_contains(set, vd(1.0), &contains));
    E(contains);
    E(fief_set_contains(set, vd(1e30), &contains));
    E(contains);
    fief_release(set);
    fief_release(o);
    E(fief_realm_close(r));
    fief_release(r);
    fief_release(s);
}

/* A child process upgrades the file (a writable open) and is killed at a
 * random moment of it; a fresh process then finds the file as it was
 * (format 5: a read-only open refuses it, verify finds nothing wrong) or
 * upgraded (its contents exact), and a writable open completes it.  The
 * kills are spread over the time an open takes (measured first). */
static int check_after_kill(const char *path, bool *was_upgraded) {
    fief_realm_t *r = open_path(path, true);
    *was_upgraded = r != NULL;
    if (r) {
        int rc = check_contents(r);
        fief_release(r);
        if (rc) return 100 + rc;
    } else {
        fief_error_t e;
        if (!fief_get_last_error(&e) || e.code != FIEF_ERR_FILE_FORMAT || !strstr(e.message, "format 5")) return 30;
        bool stale = false;
        if (verify(path, "stale", &stale) != 0 || !stale) return 31;
    }
    r = open_path(path, false);
    if (!r) return 32;
    int rc = check_contents(r);
    fief_release(r);
    if (rc) return 200 + rc;
    return verify(path, NULL, NULL) == 0 ? 0 : 33;
}

/* Fork; the child opens `path` writable (after writing a byte to `fd`)
 * and exits 0.  Returns its pid. */
static pid_t upgrade_in_child(const char *path, int fd) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char b = 1;
        if (write(fd, &b, 1) != 1) _exit(3);
        fief_realm_t *r = open_path(path, false);
        _exit(r ? 0 : 2);
    }
    return pid;
}

TEST(killed_upgrade_leaves_format_5_or_6) {
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    /* How long an upgrade takes, from the child's start signal. */
    double took = 0;
    for (int i = 0; i < 3; i++) {
        const char *path = fixture("timed.fief");
        R(path);
        int fds[2];
        R(pipe(fds) == 0);
        pid_t pid = upgrade_in_child(path, fds[1]);
        R(pid > 0);
        char b;
        R(read(fds[0], &b, 1) == 1);
        double start = t_now();
        int status = 0;
        R(waitpid(pid, &status, 0) == pid);
        R(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        took += (t_now() - start) / 3;
        close(fds[0]);
        close(fds[1]);
    }
    int before = 0, after = 0;
    for (int it = 0; it < 16; it++) {
        const char *path = fixture("killed.fief");
        R(path);
        int fds[2];
        R(pipe(fds) == 0);
        pid_t pid = upgrade_in_child(path, fds[1]);
        R(pid > 0);
        char b;
        R(read(fds[0], &b, 1) == 1);
        useconds_t delay = (useconds_t)(took * 1e6 * (double)rand() / RAND_MAX * 1.2);
        usleep(delay);
        kill(pid, SIGKILL);
        int status = 0;
        R(waitpid(pid, &status, 0) == pid);
        close(fds[0]);
        close(fds[1]);
        /* Checked in a fresh process (LMDB environments must not cross fork()). */
        fflush(NULL);
        int result[2];
        R(pipe(result) == 0);
        pid_t checker = fork();
        if (checker == 0) {
            bool upgraded = false;
            int rc = check_after_kill(path, &upgraded);
            char u = upgraded;
            if (write(result[1], &u, 1) != 1) _exit(99);
            _exit(rc);
        }
        R(checker > 0);
        R(waitpid(checker, &status, 0) == checker);
        char upgraded = 0;
        R(read(result[0], &upgraded, 1) == 1);
        close(result[0]);
        close(result[1]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            char detail[96];
            snprintf(detail, sizeof detail, "iteration %d (killed after %u us): check failed with %d", it, (unsigned)delay,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            t_fail(__FILE__, __LINE__, "check_after_kill", detail);
        }
        if (upgraded) after++;
        else before++;
    }
    fprintf(stderr, "upgrade takes %.1f ms; kills left format 5 %d times, format 8 %d times\n", took * 1e3, before, after);
}

int main(int argc, char **argv) {
    static const t_case cases[] = {T(read_only_open_of_format_5_says_how_to_upgrade), T(writable_open_upgrades_format_5),
                                   T(copy_of_format_5_is_format_6), T(newer_format_is_refused),
                                   T(read_only_open_of_plain_format_5_says_its_sets_are_unsealed), T(killed_upgrade_leaves_format_5_or_6)};
    return T_MAIN(argc, argv, cases);
}
