/* A thread that ends while its write transaction is open: the transaction is
 * cancelled on that thread as it exits, so the file's writer lock is free
 * again and every later write works, through the same realm handle, through
 * other realms of the file, from other threads and from other processes.
 * Nothing the dead thread wrote is ever committed. */
#include "fief_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static fief_schema_t *item_schema(void) {
    fief_property_info_t props[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                    t_prop_info("value", FIEF_TYPE_INT, 0)};
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Item";
    c.num_properties = 2;
    const fief_property_info_t *pp[1] = {props};
    return fief_schema_new(&c, 1, pp);
}

static fief_realm_t *open_items(const char *path) {
    fief_schema_t *s = item_schema();
    fief_realm_t *r = t_open(path, s, 0);
    fief_release(s);
    return r;
}

/* Create Item(id, value) inside the open write transaction. */
static bool put_item(fief_realm_t *r, int64_t id, int64_t value) {
    fief_class_key_t ck = t_class(r, "Item");
    fief_property_key_t p[2] = {t_prop(r, "Item", "id"), t_prop(r, "Item", "value")};
    fief_value_t v[2] = {vi(id), vi(value)};
    fief_object_t *o = fief_object_create(r, ck, p, v, 2, FIEF_UPDATE_POLICY_ALL);
    fief_release(o);
    return o != NULL;
}

/* Begin, put one item, commit. */
static bool write_item(fief_realm_t *r, int64_t id, int64_t value) {
    if (!fief_realm_begin_write(r)) return false;
    if (!put_item(r, id, value)) {
        fief_realm_cancel(r);
        return false;
    }
    return fief_realm_commit(r);
}

/* Another process opens the file and writes one item; whether it could. */
static bool write_in_child(const char *path, int64_t id, int64_t value) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        alarm(20);
        fief_realm_t *c = open_items(path);
        _exit(c && write_item(c, id, value) ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The value of Item `id` as `r` sees it after a refresh; -1 if absent. */
static int64_t item_value(fief_realm_t *r, int64_t id) {
    if (!fief_realm_refresh(r, NULL)) return -2;
    bool found = false;
    fief_object_t *o = fief_object_find_by_primary_key(r, t_class(r, "Item"), vi(id), &found);
    if (!o) return found ? -3 : -1;
    int64_t v = t_get_int(o, t_prop(r, "Item", "value"));
    fief_release(o);
    return v;
}

/* What a thread that dies inside a write does: begin, write, return. */
typedef struct abandon_args {
    fief_realm_t *realm; /* used if set, else opened from `path` and never released */
    const char *path;
    fief_realm_t *second; /* optional: a realm of another file, also left writing */
    bool began;
    bool wrote;
} abandon_args;

static void *abandon_write(void *arg) {
    abandon_args *a = arg;
    fief_realm_t *r = a->realm ? a->realm : open_items(a->path);
    if (!r || !fief_realm_begin_write(r)) return NULL;
    a->began = true;
    a->wrote = put_item(r, 1, 666) && put_item(r, 100, 666);
    if (a->second) {
        if (!fief_realm_begin_write(a->second) || !put_item(a->second, 100, 666)) a->wrote = false;
    }
    return NULL; /* no commit, no cancel, no release */
}

TEST(thread_exit_same_realm) {
    /* A thread that returned inside a write left the writer lock held by a dead thread (MDB_PANIC). */
    alarm(30);
    fief_realm_t *r = open_items(t_path("same.fief"));
    R(r);
    R(write_item(r, 1, 10));
    uint64_t before = 0;
    R(fief_realm_get_version(r, &before));

    abandon_args a = {r, NULL, NULL, false, false};
    t_run_thread(abandon_write, &a);
    R(a.began);
    E(a.wrote);

    /* The transaction ended with its thread. */
    bool writing = true;
    E(fief_realm_is_in_transaction(r, &writing));
    E(!writing);
    uint64_t after = 0;
    E(fief_realm_get_version(r, &after));
    EQU(after, before);
    /* Nothing of it was committed. */
    EQI(item_value(r, 1), 10);
    EQI(item_value(r, 100), -1);

    /* The same handle writes again, from this thread. */
    E(write_item(r, 2, 20));
    EQI(item_value(r, 2), 20);
    EQI(item_value(r, 100), -1);
    E(fief_realm_get_version(r, &after));
    EQU(after, before + 1);
    fief_release(r);
    alarm(0);
}

typedef struct writer_args {
    const char *path;
    fief_realm_t *realm;
    int64_t id;
    bool ok;
} writer_args;

static void *write_on_thread(void *arg) {
    writer_args *w = arg;
    fief_realm_t *r = w->realm ? w->realm : open_items(w->path);
    w->ok = r && write_item(r, w->id, w->id * 10);
    if (!w->ok) t_fail(__FILE__, __LINE__, "write_item on a new thread", NULL);
    if (!w->realm) fief_release(r);
    return NULL;
}

TEST(thread_exit_other_realms) {
    /* After a thread died inside a write, every write to the file in the process failed with MDB_PANIC. */
    alarm(30);
    const char *path = t_path("other.fief");
    fief_realm_t *r = open_items(path);
    R(r);
    R(write_item(r, 1, 10));

    /* The dead thread opened its own realm and never released it. */
    abandon_args a = {NULL, path, NULL, false, false};
    t_run_thread(abandon_write, &a);
    R(a.began);
    E(a.wrote);

    /* Another thread, through a realm it opens. */
    writer_args w = {path, NULL, 3, false};
    t_run_thread(write_on_thread, &w);
    E(w.ok);
    /* Another thread, through a realm opened before. */
    writer_args w2 = {NULL, r, 4, false};
    t_run_thread(write_on_thread, &w2);
    E(w2.ok);
    /* This thread, through a new realm. */
    fief_realm_t *r2 = open_items(path);
    R(r2);
    E(write_item(r2, 5, 50));
    /* Another process. */
    E(write_in_child(path, 6, 60));

    EQI(item_value(r2, 1), 10);
    EQI(item_value(r2, 3), 30);
    EQI(item_value(r2, 4), 40);
    EQI(item_value(r2, 5), 50);
    EQI(item_value(r2, 6), 60);
    EQI(item_value(r2, 100), -1);
    size_t n = t_count_class(r2, t_class(r2, "Item"));
    EQU(n, 5);
    fief_release(r2);
    fief_release(r);
    alarm(0);
}

TEST(thread_exit_two_files) {
    /* A thread that died writing two files left both files' writer locks held. */
    alarm(30);
    const char *p1 = t_path("one.fief"), *p2 = t_path("two.fief");
    fief_realm_t *r1 = open_items(p1), *r2 = open_items(p2);
    R(r1 && r2);
    abandon_args a = {r1, NULL, r2, false, false};
    t_run_thread(abandon_write, &a);
    R(a.began);
    E(a.wrote);
    E(write_item(r1, 7, 70));
    E(write_item(r2, 8, 80));
    EQI(item_value(r1, 100), -1);
    EQI(item_value(r2, 100), -1);
    EQI(item_value(r1, 7), 70);
    EQI(item_value(r2, 8), 80);
    fief_release(r1);
    fief_release(r2);
    alarm(0);
}

/* Begin a write, let the main thread release the realm, then exit. */
typedef struct handoff {
    fief_realm_t *realm;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int stage; /* 1: writing, 2: released by main */
} handoff;

static void *write_then_wait(void *arg) {
    handoff *h = arg;
    bool ok = fief_realm_begin_write(h->realm) && put_item(h->realm, 100, 666);
    pthread_mutex_lock(&h->mutex);
    h->stage = ok ? 1 : -1;
    pthread_cond_broadcast(&h->cond);
    while (h->stage == 1) pthread_cond_wait(&h->cond, &h->mutex);
    pthread_mutex_unlock(&h->mutex);
    return NULL;
}

TEST(thread_exit_after_release_elsewhere) {
    /* A realm released on another thread while its writer thread lived on had to be recoverable once that thread ended. */
    alarm(30);
    const char *path = t_path("handoff.fief");
    fief_realm_t *keep = open_items(path);
    R(keep);
    R(write_item(keep, 1, 10));
    handoff h;
    h.realm = open_items(path);
    R(h.realm);
    pthread_mutex_init(&h.mutex, NULL);
    pthread_cond_init(&h.cond, NULL);
    h.stage = 0;
    pthread_t th;
    R(pthread_create(&th, NULL, write_then_wait, &h) == 0);
    pthread_mutex_lock(&h.mutex);
    while (h.stage == 0) pthread_cond_wait(&h.cond, &h.mutex);
    int stage = h.stage;
    pthread_mutex_unlock(&h.mutex);
    EQI(stage, 1);
    /* The last handle goes on this thread: the transaction is cancelled here. */
    E(fief_release(h.realm));
    pthread_mutex_lock(&h.mutex);
    h.stage = 2;
    pthread_cond_broadcast(&h.cond);
    pthread_mutex_unlock(&h.mutex);
    pthread_join(th, NULL);
    /* Its thread has ended: the file can be written again. */
    E(write_item(keep, 2, 20));
    EQI(item_value(keep, 2), 20);
    EQI(item_value(keep, 100), -1);
    fief_release(keep);
    pthread_mutex_destroy(&h.mutex);
    pthread_cond_destroy(&h.cond);
    alarm(0);
}

/* Begin a write, then end the thread at once, skipping every cleanup
 * (thread-specific destructors included), as a thread killed by other means. */
static void *write_then_vanish(void *arg) {
    abandon_args *a = arg;
    a->began = fief_realm_begin_write(a->realm);
    a->wrote = a->began && put_item(a->realm, 100, 666);
    syscall(SYS_exit, 0);
    return NULL;
}

TEST(thread_vanishes_in_write) {
    /* A thread ended without its cleanup left the file unusable in the process until it exited. */
    alarm(30);
    const char *path = t_path("vanish.fief");
    fief_realm_t *r = open_items(path);
    R(r);
    R(write_item(r, 1, 10));
    abandon_args a = {open_items(path), NULL, NULL, false, false};
    R(a.realm);
    pthread_t th;
    R(pthread_create(&th, NULL, write_then_vanish, &a) == 0);
    pthread_join(th, NULL);
    R(a.began);
    E(a.wrote);

    /* LMDB refuses the environment now: a clear error, never a crash. */
    EERR(fief_realm_begin_write(r), FIEF_ERR_INTERNAL);
    EMSG("release every realm");
    EERR(fief_realm_begin_write(r), FIEF_ERR_INTERNAL);
    EERR(open_items(path), FIEF_ERR_INTERNAL);
    /* Other processes are not affected. */
    E(write_in_child(path, 3, 30));

    /* Once every realm of the file is released, the next open starts afresh. */
    E(fief_release(a.realm));
    E(fief_release(r));
    r = open_items(path);
    R(r);
    E(write_item(r, 2, 20));
    EQI(item_value(r, 1), 10);
    EQI(item_value(r, 2), 20);
    EQI(item_value(r, 3), 30);
    EQI(item_value(r, 100), -1);
    fief_release(r);
    alarm(0);
}

static const t_case cases[] = {T(thread_exit_same_realm), T(thread_exit_other_realms), T(thread_exit_two_files),
                               T(thread_exit_after_release_elsewhere), T(thread_vanishes_in_write)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
