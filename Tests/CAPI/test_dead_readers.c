/* Reader processes SIGKILLed while they hold a snapshot must not pin the
 * file: a writer process rewrites every object in a loop while reader
 * processes open the file, read, hold their snapshot and are killed at
 * random moments (fixed seed).  The file must stay within GROWTH_LIMIT
 * times its size after the first commits (without clearing dead readers
 * it grows by a whole rewrite per commit), every reader must see
 * consistent snapshots, and at the end every object must hold the last
 * committed values.
 * And a process that had the file open before readers died must not find
 * the reader table full of their slots.
 * The parent process opens no realm while it still forks children (LMDB
 * environments must not cross fork()). */
#include "fief_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OBJECTS 1000
#define WARMUP_COMMITS 20
#define DURATION 2.5     /* seconds of writing while readers come and die */
#define TAIL_COMMITS 100 /* commits after the last reader died */
#define READERS_AT_ONCE 2
#define MAX_HOLD_MS 25   /* a reader is killed 0..MAX_HOLD_MS ms after it starts */
#define SEED 20240611u
/* The file may grow to this many times its warm-up size while readers come
 * and go: live readers pin up to MAX_HOLD_MS of commits (2-8x here, more
 * if the machine is loaded); without clearing dead readers the file grew
 * about 500x in this test.  Once every reader is dead, it may grow by at
 * most its warm-up size (about three rewrites). */
#define GROWTH_LIMIT 32

static fief_schema_t *doc_schema(void) {
    fief_property_info_t props[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                    t_prop_info("rev", FIEF_TYPE_INT, 0),
                                    t_prop_info("body", FIEF_TYPE_STRING, 0)};
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Doc";
    c.num_properties = 3;
    const fief_property_info_t *pp[1] = {props};
    return fief_schema_new(&c, 1, pp);
}

static fief_realm_t *open_docs(const char *path) {
    fief_config_t *c = fief_config_new();
    fief_schema_t *s = doc_schema();
    fief_realm_t *r = NULL;
    if (c && s && fief_config_set_path(c, path) && fief_config_set_schema(c, s) &&
        fief_config_set_durability(c, FIEF_DURABILITY_NORMAL))
        r = fief_realm_open(c);
    fief_release(s);
    fief_release(c);
    return r;
}

/* The body of object `i` after commit `t`: 100..199 bytes of one letter. */
static size_t body_of(int64_t t, int i, char *out) {
    size_t n = 100 + (size_t)(i % 100);
    memset(out, 'a' + (int)((t + i) % 26), n);
    return n;
}

static void child_die(const char *what) {
    fief_error_t e;
    memset(&e, 0, sizeof e);
    fief_get_last_error(&e);
    fprintf(stderr, "child %d: %s failed: %d %s\n", (int)getpid(), what, (int)e.code, e.message ? e.message : "");
    _exit(3);
}

/* The writer: commit t = 1, 2, ..., rewriting every object, and report
 * each commit on `fd`, until a byte arrives on `stop` (non-blocking).
 * Exits 0. */
static void writer(const char *path, int fd, int stop) {
    fief_realm_t *r = open_docs(path);
    if (!r) child_die("writer open");
    fief_class_key_t ck = t_class(r, "Doc");
    fief_property_key_t p[3] = {t_prop(r, "Doc", "id"), t_prop(r, "Doc", "rev"), t_prop(r, "Doc", "body")};
    static char bodies[OBJECTS][200];
    static fief_value_t v[OBJECTS * 3];
    char c;
    for (int64_t t = 1; read(stop, &c, 1) != 1; t++) {
        for (int i = 0; i < OBJECTS; i++) {
            v[3 * i] = vi(i);
            v[3 * i + 1] = vi(t);
            v[3 * i + 2] = vsn(bodies[i], body_of(t, i, bodies[i]));
        }
        if (!fief_realm_begin_write(r)) child_die("begin_write");
        if (!fief_object_create_many(r, ck, p, 3, v, OBJECTS, FIEF_UPDATE_POLICY_ALL, NULL)) child_die("rewrite");
        if (!fief_realm_commit(r)) child_die("commit");
        if (write(fd, &t, sizeof t) != (ssize_t)sizeof t) _exit(4);
        /* At most about 1000 commits a second, so that what live readers
         * pin (MAX_HOLD_MS of commits) does not grow with the machine's speed. */
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    fief_release(r);
    _exit(0);
}

/* Whether every object of `all` has revision `*rev` (set from the first). */
static bool consistent(fief_results_t *all, fief_property_key_t prev, int64_t *rev) {
    size_t n = 0;
    if (!fief_results_count(all, &n) || n != OBJECTS) return false;
    for (size_t i = 0; i < n; i++) {
        fief_value_t v;
        if (!fief_results_get_values(all, i, &prev, 1, &v)) return false;
        if (i == 0) *rev = v.u.integer;
        if (v.u.integer != *rev) return false;
    }
    return true;
}

/* A reader: open, read a snapshot, report 'o' (or 'b' for an inconsistent
 * one) on `fd`, and keep reading newer snapshots until killed. */
static void reader(const char *path, int fd) {
    alarm(20);
    fief_realm_t *r = open_docs(path);
    if (!r) child_die("reader open");
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "Doc"));
    fief_property_key_t prev = t_prop(r, "Doc", "rev");
    if (!all) child_die("get_objects");
    int64_t rev = 0;
    char c = consistent(all, prev, &rev) ? 'o' : 'b';
    if (write(fd, &c, 1) != 1) _exit(4);
    for (;;) {
        struct timespec ts = {0, 2000000L};
        nanosleep(&ts, NULL);
        if (!fief_realm_refresh(r, NULL)) child_die("refresh");
        if (!consistent(all, prev, &rev)) {
            c = 'b';
            if (write(fd, &c, 1) != 1) _exit(4);
        }
    }
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Read every commit number reported so far (blocking until `at_least`). */
static int64_t drain(int fd, int64_t last, int64_t at_least) {
    int64_t t;
    for (;;) {
        ssize_t got = read(fd, &t, sizeof t);
        if (got == (ssize_t)sizeof t) {
            last = t;
            continue;
        }
        if (got < 0 && errno == EAGAIN && last < at_least) {
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        return last;
    }
}

TEST(dead_readers_do_not_pin_the_file) {
    /* SIGKILLed readers kept their LMDB reader slots: a 1 MB file grew to 1.4 GB in 35 s. */
    const char *path = t_path("docs.fief");
    alarm(60);
    int wp[2], rp[2], sp[2];
    R(pipe(wp) == 0 && pipe(rp) == 0 && pipe(sp) == 0);
    R(fcntl(wp[0], F_SETFL, O_NONBLOCK) == 0 && fcntl(rp[0], F_SETFL, O_NONBLOCK) == 0 &&
      fcntl(sp[0], F_SETFL, O_NONBLOCK) == 0);
    fflush(NULL);
    pid_t w = fork();
    R(w >= 0);
    if (w == 0) {
        close(wp[0]);
        close(sp[1]);
        alarm(40);
        writer(path, wp[1], sp[0]);
    }
    close(wp[1]);
    close(sp[0]);
    int64_t committed = drain(wp[0], 0, WARMUP_COMMITS);
    long warm = file_size(path);
    R(warm > 0);

    srand(SEED);
    pid_t readers[READERS_AT_ONCE];
    double kill_at[READERS_AT_ONCE];
    int started = 0;
    for (int i = 0; i < READERS_AT_ONCE; i++) readers[i] = 0;
    long largest = warm;
    double deadline = t_now() + DURATION;
    while (t_now() < deadline) {
        for (int i = 0; i < READERS_AT_ONCE; i++) {
            if (readers[i] && t_now() >= kill_at[i]) {
                kill(readers[i], SIGKILL);
                waitpid(readers[i], NULL, 0);
                readers[i] = 0;
            }
            if (!readers[i]) {
                fflush(NULL);
                pid_t pid = fork();
                R(pid >= 0);
                if (pid == 0) {
                    close(wp[0]);
                    close(rp[0]);
                    close(sp[1]);
                    reader(path, rp[1]);
                }
                readers[i] = pid;
                kill_at[i] = t_now() + (rand() % (MAX_HOLD_MS + 1)) / 1000.0;
                started++;
            }
        }
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
        committed = drain(wp[0], committed, 0);
        long size = file_size(path);
        if (size > largest) largest = size;
    }
    for (int i = 0; i < READERS_AT_ONCE; i++) {
        if (readers[i]) {
            kill(readers[i], SIGKILL);
            waitpid(readers[i], NULL, 0);
        }
    }
    /* Every reader is dead: the writer must not grow the file any more. */
    committed = drain(wp[0], committed, 0);
    long before_tail = file_size(path);
    if (before_tail > largest) largest = before_tail;
    committed = drain(wp[0], committed, committed + TAIL_COMMITS);
    char stop = 's';
    E(write(sp[1], &stop, 1) == 1);
    close(sp[1]);
    int status = 0;
    waitpid(w, &status, 0);
    E(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    committed = drain(wp[0], committed, 0);
    close(wp[0]);
    close(rp[1]);
    long held = 0, inconsistent = 0;
    char c;
    while (read(rp[0], &c, 1) == 1) {
        if (c == 'o') held++;
        else inconsistent++;
    }
    close(rp[0]);
    long final_size = file_size(path);
    if (final_size > largest) largest = final_size;
    printf("%lld commits, %d readers started, %ld held a snapshot; file: %ld bytes after warm-up, "
           "%ld at most, %ld when the last reader died, %ld at the end\n",
           (long long)committed, started, held, warm, largest, before_tail, final_size);
    EQI(inconsistent, 0);
    E(held >= 20);
    E(committed > WARMUP_COMMITS + TAIL_COMMITS + 50);
    E(largest <= GROWTH_LIMIT * warm);
    E(final_size - before_tail <= warm);

    /* Every object holds the values of the last commit. */
    fief_realm_t *r = open_docs(path);
    R(r);
    fief_class_key_t ck = t_class(r, "Doc");
    fief_property_key_t prev = t_prop(r, "Doc", "rev"), pbody = t_prop(r, "Doc", "body");
    EQU(t_count_class(r, ck), OBJECTS);
    char expected[200];
    long wrong = 0;
    for (int i = 0; i < OBJECTS; i++) {
        bool found = false;
        fief_object_t *o = fief_object_find_by_primary_key(r, ck, vi(i), &found);
        if (!o) {
            wrong++;
            continue;
        }
        fief_value_t v;
        size_t n = body_of(committed, i, expected);
        if (t_get_int(o, prev) != committed) wrong++;
        else if (!fief_object_get_value(o, pbody, &v) || v.type != FIEF_TYPE_STRING || v.u.string.size != n ||
                 memcmp(v.u.string.data, expected, n) != 0)
            wrong++;
        fief_release(o);
    }
    EQI(wrong, 0);
    fief_release(r);
    alarm(0);
}

TEST(dead_readers_do_not_fill_the_reader_table) {
    /* Slots of dead reader processes filled LMDB's reader table (MDB_READERS_FULL) for processes that had the file open. */
    const char *path = t_path("full.fief");
    alarm(30);
    fflush(NULL);
    pid_t maker = fork();
    R(maker >= 0);
    if (maker == 0) {
        fief_realm_t *r = open_docs(path);
        _exit(r ? 0 : 1);
    }
    int status = 0;
    waitpid(maker, &status, 0);
    R(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* A child opens the file, holds HELD snapshots (one reader slot each:
     * frozen realms) and is killed; the table (1022 slots) is then nearly
     * full of dead slots. */
    enum { HELD = 1016, MORE = 20 };
    int p[2];
    R(pipe(p) == 0);
    fflush(NULL);
    pid_t holder = fork();
    R(holder >= 0);
    if (holder == 0) {
        close(p[0]);
        fief_realm_t *r = open_docs(path);
        if (!r) child_die("holder open");
        int held = 0;
        while (held < HELD && fief_realm_freeze(r)) held++;
        if (write(p[1], &held, sizeof held) != (ssize_t)sizeof held) _exit(4);
        pause();
        _exit(0);
    }
    close(p[1]);
    int held = 0;
    R(read(p[0], &held, sizeof held) == (ssize_t)sizeof held);
    close(p[0]);
    EQI(held, HELD);

    /* This process has the file open before the holder dies (so opening
     * does not clear the slots), then needs more slots than are free. */
    fief_realm_t *r = open_docs(path);
    R(r);
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
    fief_realm_t *frozen[MORE];
    int got = 0;
    for (; got < MORE; got++) {
        frozen[got] = fief_realm_freeze(r);
        if (!frozen[got]) break;
    }
    EQI(got, MORE);
    for (int i = 0; i < got; i++) fief_release(frozen[i]);
    /* And it still writes. */
    R(fief_realm_begin_write(r));
    fief_property_key_t props[3] = {t_prop(r, "Doc", "id"), t_prop(r, "Doc", "rev"), t_prop(r, "Doc", "body")};
    fief_value_t v[3] = {vi(1), vi(1), vs("x")};
    fief_object_t *o = fief_object_create(r, t_class(r, "Doc"), props, v, 3, FIEF_UPDATE_POLICY_ERROR);
    E(o != NULL);
    fief_release(o);
    E(fief_realm_commit(r));
    EQU(t_count_class(r, t_class(r, "Doc")), 1);
    fief_release(r);
    alarm(0);
}

static const t_case cases[] = {T(dead_readers_do_not_pin_the_file), T(dead_readers_do_not_fill_the_reader_table)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
