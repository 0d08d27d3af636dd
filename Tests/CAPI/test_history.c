/* Change records and the version limit (issue 22).
 * The version limit (fief_config_set_max_active_versions): versions held by
 * frozen realms of this process and by a reader in another process count;
 * past the limit fief_realm_begin_write fails with
 * FIEF_ERR_TOO_MANY_VERSIONS and writes nothing; released, the write goes
 * on.  Change records across a writer process SIGKILLed mid-commit: the
 * newest version always has its record (same commit), no record is newer,
 * and every record verifies.  The parent opens a realm only after its
 * children (LMDB environments must not cross fork()). */
#include "fief_test.h"

#include <lmdb.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static fief_realm_t *open_limited(const char *path, uint64_t limit) {
    fief_config_t *c = fief_config_new();
    if (!c) return NULL;
    fief_schema_t *s = t_std_schema();
    bool ok = s && fief_config_set_path(c, path) && fief_config_set_schema(c, s);
    if (limit) ok = ok && fief_config_set_max_active_versions(c, limit);
    fief_realm_t *r = ok ? fief_realm_open(c) : NULL;
    fief_release(s);
    fief_release(c);
    return r;
}

/* One NoPk object's value set to `value` in a write of its own. */
static bool write_value(fief_realm_t *r, fief_object_key_t key, int64_t value) {
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    if (!fief_realm_begin_write(r)) return false;
    fief_object_t *o = fief_object_get(r, ck, key);
    bool ok = o && fief_object_set_value(o, pv, vi(value));
    fief_release(o);
    if (!ok) {
        fief_realm_cancel(r);
        return false;
    }
    return fief_realm_commit(r);
}

static int64_t read_value(fief_realm_t *r, fief_object_key_t key) {
    fief_object_t *o = fief_object_get(r, t_class(r, "NoPk"), key);
    if (!o) return -1;
    int64_t v = t_get_int(o, t_prop(r, "NoPk", "value"));
    fief_release(o);
    return v;
}

TEST(config_limit) {
    EERR(fief_config_set_max_active_versions(NULL, 3), FIEF_ERR_INVALID_HANDLE);
    fief_config_t *c = fief_config_new();
    R(c != NULL);
    E(fief_config_set_max_active_versions(c, 3));
    E(fief_config_set_max_active_versions(c, 0)); /* no limit */
    fief_release(c);
}

/* Frozen realms of this process: RealmSwift's case (a version pinned, two
 * writes, then the third fails with 4 active versions). */
TEST(frozen_realms_pass_the_limit) {
    fief_realm_t *r = open_limited(t_path("limit.fief"), 3);
    R(r != NULL);
    fief_class_key_t ck = t_class(r, "NoPk");
    fief_property_key_t pv = t_prop(r, "NoPk", "value");
    R(fief_realm_begin_write(r));
    fief_value_t v = vi(0);
    fief_object_t *o = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    R(o != NULL);
    fief_object_key_t key = -1;
    E(fief_object_get_key(o, &key));
    fief_release(o);
    R(fief_realm_commit(r));
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen != NULL);
    E(write_value(r, key, 1));
    E(write_value(r, key, 2));
    uint64_t before = 0;
    E(fief_realm_get_version(r, &before));
    EERRM(fief_realm_begin_write(r), FIEF_ERR_TOO_MANY_VERSIONS,
          "Number of active versions (4) in the Realm exceeded the limit of 3");
    bool in = true;
    E(fief_realm_is_in_transaction(r, &in) && !in);
    uint64_t after = 0;
    E(fief_realm_get_version(r, &after));
    EQU(after, before);
    EQI(read_value(r, key), 2);
    /* Released: the write goes on. */
    fief_release(frozen);
    E(write_value(r, key, 3));
    EQI(read_value(r, key), 3);
    fief_release(r);
}

/* A reader in another process holds a version: it counts as well. */
TEST(reader_process_passes_the_limit) {
    const char *path = t_path("limit_process.fief");
    int ready[2], go[2];
    R(pipe(ready) == 0 && pipe(go) == 0);
    pid_t child = fork();
    R(child >= 0);
    if (child == 0) {
        /* The reader: makes the file and its object, then holds a frozen
         * realm until told to let go. */
        fief_realm_t *r = open_limited(path, 0);
        fief_class_key_t ck = r ? t_class(r, "NoPk") : 0;
        fief_property_key_t pv = r ? t_prop(r, "NoPk", "value") : 0;
        fief_value_t v = vi(0);
        fief_object_t *o = NULL;
        bool ok = r && fief_realm_begin_write(r) && (o = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR)) != NULL
            && fief_realm_commit(r);
        fief_release(o);
        fief_realm_t *frozen = ok ? fief_realm_freeze(r) : NULL;
        char byte = frozen ? 'r' : 'f';
        if (write(ready[1], &byte, 1) != 1) _exit(2);
        if (read(go[0], &byte, 1) != 1) _exit(3);
        fief_release(frozen);
        fief_release(r);
        _exit(ok && frozen ? 0 : 1);
    }
    char byte = 0;
    R(read(ready[0], &byte, 1) == 1);
    E(byte == 'r');
    fief_realm_t *r = open_limited(path, 2);
    R(r != NULL);
    /* The child's object has key 0.  The first write: the version the
     * reader holds (the newest) and the new one make 2. */
    E(write_value(r, 0, 1));
    /* The next: the reader's, the newest and the new one make 3. */
    EERRM(fief_realm_begin_write(r), FIEF_ERR_TOO_MANY_VERSIONS, "Number of active versions (3) in the Realm exceeded the limit of 2");
    EQI(read_value(r, 0), 1);
    byte = 'x';
    R(write(go[1], &byte, 1) == 1);
    int status = 0;
    R(waitpid(child, &status, 0) == child);
    E(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The reader is gone: the write begins. */
    E(write_value(r, 0, 5));
    EQI(read_value(r, 0), 5);
    fief_release(r);
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    close(go[1]);
}

/* The file's history as raw LMDB sees it: the newest version and its
 * commit's transaction id (meta), and the records' versions and the
 * transaction ids they start with. */
typedef struct {
    uint64_t version, committed;
    size_t count;
    uint64_t versions[64], transactions[64];
    bool short_record;
} history_t;

static bool meta_u64(MDB_txn *txn, MDB_dbi meta, const char *name, uint64_t *out) {
    MDB_val k = {strlen(name), (void *)name}, v;
    if (mdb_get(txn, meta, &k, &v) != 0 || v.mv_size != 8) return false;
    memcpy(out, v.mv_data, 8);
    return true;
}

static bool read_history(const char *path, history_t *h) {
    memset(h, 0, sizeof *h);
    MDB_env *env;
    if (mdb_env_create(&env) != 0) return false;
    mdb_env_set_maxdbs(env, 64);
    bool ok = false;
    MDB_txn *txn = NULL;
    MDB_dbi meta, history;
    if (mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0 && mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0 &&
        mdb_dbi_open(txn, "meta", 0, &meta) == 0 && mdb_dbi_open(txn, "history", 0, &history) == 0 &&
        meta_u64(txn, meta, "version", &h->version) && meta_u64(txn, meta, "committedTransaction", &h->committed)) {
        MDB_cursor *c;
        if (mdb_cursor_open(txn, history, &c) == 0) {
            MDB_val k, v;
            ok = true;
            for (int rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
                if (k.mv_size != 8 || v.mv_size < 12) { h->short_record = true; continue; }
                if (h->count == 64) { ok = false; break; }
                const unsigned char *kb = k.mv_data;
                uint64_t version = 0;
                for (int i = 0; i < 8; i++) version = version << 8 | kb[i];
                h->versions[h->count] = version;
                memcpy(&h->transactions[h->count], v.mv_data, 8);
                h->count++;
            }
            mdb_cursor_close(c);
        }
    }
    if (txn) mdb_txn_abort(txn);
    mdb_env_close(env);
    return ok;
}

#define KILLS 12

TEST(records_survive_a_killed_writer) {
    const char *path = t_path("killed.fief");
    srand(20261129u);
    uint64_t last_reported = 0;
    for (int round = 0; round < KILLS; round++) {
        int report[2];
        R(pipe(report) == 0);
        pid_t child = fork();
        R(child >= 0);
        if (child == 0) {
            /* The writer: value t in commit t, reported once committed. */
            close(report[0]);
            fief_realm_t *r = open_limited(path, 0);
            if (!r) _exit(1);
            fief_class_key_t ck = t_class(r, "NoPk");
            fief_property_key_t pv = t_prop(r, "NoPk", "value");
            fief_value_t zero = vi(0);
            if (t_count_class(r, ck) == 0) {
                fief_object_t *o = NULL;
                if (!fief_realm_begin_write(r) || !(o = fief_object_create(r, ck, &pv, &zero, 1, FIEF_UPDATE_POLICY_ERROR)) ||
                    !fief_realm_commit(r))
                    _exit(2);
                fief_release(o);
            }
            for (uint64_t t = 1;; t++) {
                /* Some commits also create an object, some delete one. */
                if (!fief_realm_begin_write(r)) _exit(3);
                fief_object_t *o = fief_object_get(r, ck, 0);
                if (!o || !fief_object_set_value(o, pv, vi((int64_t)t))) _exit(4);
                fief_release(o);
                if (t % 3 == 0) {
                    fief_value_t v = vi(-(int64_t)t);
                    fief_object_t *n = fief_object_create(r, ck, &pv, &v, 1, FIEF_UPDATE_POLICY_ERROR);
                    if (!n) _exit(5);
                    fief_release(n);
                }
                if (!fief_realm_commit(r)) _exit(6);
                uint64_t version = 0;
                fief_realm_get_version(r, &version);
                if (write(report[1], &version, 8) != 8) _exit(7);
            }
        }
        close(report[1]);
        /* Killed at a random moment after its first commit. */
        uint64_t v;
        R(read(report[0], &v, 8) == 8);
        last_reported = v;
        struct timespec pause = {0, (long)(1 + rand() % 40) * 1000000L};
        nanosleep(&pause, NULL);
        kill(child, SIGKILL);
        int status = 0;
        R(waitpid(child, &status, 0) == child);
        E(WIFSIGNALED(status));
        while (read(report[0], &v, 8) == 8) last_reported = v;
        close(report[0]);
        history_t h;
        R(read_history(path, &h));
        /* Every commit reported is there; the newest version has its
         * record, from the same commit, and no record is newer. */
        E(h.version >= last_reported);
        E(!h.short_record);
        R(h.count > 0);
        EQU(h.versions[h.count - 1], h.version);
        EQU(h.transactions[h.count - 1], h.committed);
        for (size_t i = 1; i < h.count; i++) {
            EQU(h.versions[i], h.versions[i - 1] + 1);
            E(h.transactions[i] > h.transactions[i - 1]);
        }
    }
    E(last_reported > 0);
    size_t problems = 99;
    E(fief_file_verify(path, NULL, NULL, &problems));
    EQU(problems, 0);
    /* A writable open and a commit go on from there, trimming what the
     * killed writer's reader slot kept. */
    fief_realm_t *r = open_limited(path, 0);
    R(r != NULL);
    E(write_value(r, 0, 1000));
    fief_release(r);
    history_t h;
    R(read_history(path, &h));
    EQU(h.count, 1);
    EQU(h.versions[0], h.version);
}

static const t_case cases[] = {
    T(config_limit), T(frozen_realms_pass_the_limit), T(reader_process_passes_the_limit),
    T(records_survive_a_killed_writer),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
