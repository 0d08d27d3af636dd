/* Concurrency: reader threads and reader processes check a sum invariant
 * while one writer transfers between accounts; several writers (threads and
 * processes) increment one counter without losing updates.  Every process
 * has an alarm, so a deadlock fails the test instead of hanging it. */
#include "fief_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define ACCOUNTS 10
#define START_BALANCE 100
#define DURATION 2.5 /* seconds of concurrent activity */

static fief_schema_t *bank_schema(void) {
    fief_property_info_t acct[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                   t_prop_info("balance", FIEF_TYPE_INT, 0)};
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Account";
    c.num_properties = 2;
    const fief_property_info_t *pp[1] = {acct};
    return fief_schema_new(&c, 1, pp);
}

static const char *g_path;
static double g_deadline;

static fief_realm_t *open_bank(void) {
    fief_schema_t *s = bank_schema();
    fief_realm_t *r = t_open(g_path, s, 0);
    fief_release(s);
    return r;
}

/* Create the file and the accounts in a child process. */
static bool init_bank(void) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        fief_realm_t *r = open_bank();
        if (!r) _exit(1);
        fief_class_key_t ck = t_class(r, "Account");
        fief_property_key_t p[2] = {t_prop(r, "Account", "id"), t_prop(r, "Account", "balance")};
        fief_value_t v[ACCOUNTS * 2];
        for (int i = 0; i < ACCOUNTS; i++) {
            v[2 * i] = vi(i);
            v[2 * i + 1] = vi(START_BALANCE);
        }
        if (!fief_realm_begin_write(r)) _exit(2);
        if (!fief_object_create_many(r, ck, p, 2, v, ACCOUNTS, FIEF_UPDATE_POLICY_ERROR, NULL)) _exit(3);
        if (!fief_realm_commit(r)) _exit(4);
        fief_release(r);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

typedef struct reader_stats {
    long reads;
    long bad_sums;
    long errors;
    long versions_seen;
} reader_stats;

static void reader_loop(reader_stats *st) {
    fief_realm_t *r = open_bank();
    if (!r) {
        st->errors++;
        return;
    }
    fief_class_key_t ck = t_class(r, "Account");
    fief_property_key_t pb = t_prop(r, "Account", "balance");
    fief_results_t *all = fief_realm_get_objects(r, ck);
    if (!all) {
        st->errors++;
        fief_release(r);
        return;
    }
    uint64_t last = 0;
    while (t_now() < g_deadline) {
        if (!fief_realm_refresh(r, NULL)) {
            st->errors++;
            break;
        }
        uint64_t v = 0;
        if (!fief_realm_get_version(r, &v)) st->errors++;
        if (v < last) st->bad_sums++; /* versions never go back */
        if (v != last) st->versions_seen++;
        last = v;
        size_t n = 0;
        if (!fief_results_count(all, &n) || n != ACCOUNTS) {
            st->errors++;
            continue;
        }
        int64_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            fief_value_t val;
            if (!fief_results_get_values(all, i, &pb, 1, &val)) {
                st->errors++;
                break;
            }
            sum += val.u.integer;
        }
        if (sum != (int64_t)ACCOUNTS * START_BALANCE) st->bad_sums++;
        st->reads++;
    }
    fief_release(all);
    fief_release(r);
}

static void *reader_thread(void *arg) {
    reader_loop(arg);
    return NULL;
}

typedef struct writer_stats {
    long commits;
    long errors;
} writer_stats;

static void *writer_thread(void *arg) {
    writer_stats *st = arg;
    fief_realm_t *r = open_bank();
    if (!r) {
        st->errors++;
        return NULL;
    }
    fief_class_key_t ck = t_class(r, "Account");
    fief_property_key_t pb = t_prop(r, "Account", "balance");
    unsigned seed = 42;
    while (t_now() < g_deadline) {
        if (!fief_realm_begin_write(r)) {
            st->errors++;
            break;
        }
        int a = rand_r(&seed) % ACCOUNTS, b = rand_r(&seed) % ACCOUNTS;
        int64_t amount = rand_r(&seed) % 50;
        bool f1 = false, f2 = false;
        fief_object_t *oa = fief_object_find(r, ck, vi(a), &f1);
        fief_object_t *ob = fief_object_find(r, ck, vi(b), &f2);
        if (!oa || !ob) {
            st->errors++;
            fief_realm_cancel(r);
            fief_release(oa);
            fief_release(ob);
            break;
        }
        fief_value_t va, vb_;
        bool ok = fief_object_get_value(oa, pb, &va) && fief_object_set_value(oa, pb, vi(va.u.integer - amount)) &&
                  fief_object_get_value(ob, pb, &vb_) && fief_object_set_value(ob, pb, vi(vb_.u.integer + amount));
        fief_release(oa);
        fief_release(ob);
        if (!ok || !fief_realm_commit(r)) {
            st->errors++;
            fief_realm_cancel(r);
            break;
        }
        st->commits++;
    }
    fief_release(r);
    return NULL;
}

TEST(readers_and_writer) {
    g_path = t_path("bank.fief");
    R(init_bank());
    g_deadline = t_now() + DURATION;
    enum { PROCS = 2, THREADS = 3 };
    pid_t pids[PROCS];
    int fds[PROCS][2];
    for (int i = 0; i < PROCS; i++) {
        R(pipe(fds[i]) == 0);
        fflush(NULL);
        pids[i] = fork();
        R(pids[i] >= 0);
        if (pids[i] == 0) {
            alarm(30);
            close(fds[i][0]);
            reader_stats st = {0, 0, 0, 0};
            reader_loop(&st);
            if (write(fds[i][1], &st, sizeof st) != (ssize_t)sizeof st) _exit(5);
            _exit(0);
        }
        close(fds[i][1]);
    }
    alarm(60);
    pthread_t w, th[THREADS];
    writer_stats ws = {0, 0};
    reader_stats rs[THREADS];
    memset(rs, 0, sizeof rs);
    R(pthread_create(&w, NULL, writer_thread, &ws) == 0);
    for (int i = 0; i < THREADS; i++) R(pthread_create(&th[i], NULL, reader_thread, &rs[i]) == 0);
    pthread_join(w, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    printf("writer: %ld commits, %ld errors\n", ws.commits, ws.errors);
    EQI(ws.errors, 0);
    E(ws.commits > 10);
    for (int i = 0; i < THREADS; i++) {
        printf("reader thread %d: %ld reads, %ld versions, %ld bad sums, %ld errors\n", i, rs[i].reads,
               rs[i].versions_seen, rs[i].bad_sums, rs[i].errors);
        EQI(rs[i].bad_sums, 0);
        EQI(rs[i].errors, 0);
        E(rs[i].reads > 10);
        E(rs[i].versions_seen > 1);
    }
    for (int i = 0; i < PROCS; i++) {
        reader_stats st;
        memset(&st, 0, sizeof st);
        ssize_t got = read(fds[i][0], &st, sizeof st);
        close(fds[i][0]);
        int status = 0;
        waitpid(pids[i], &status, 0);
        E(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        E(got == (ssize_t)sizeof st);
        printf("reader process %d: %ld reads, %ld versions, %ld bad sums, %ld errors\n", i, st.reads,
               st.versions_seen, st.bad_sums, st.errors);
        EQI(st.bad_sums, 0);
        EQI(st.errors, 0);
        E(st.reads > 10);
        E(st.versions_seen > 1);
    }
    alarm(0);
    /* The final state holds the invariant too. */
    fief_realm_t *r = open_bank();
    R(r);
    reader_stats fin = {0, 0, 0, 0};
    g_deadline = t_now() + 0.05;
    fief_release(r);
    reader_loop(&fin);
    EQI(fin.bad_sums, 0);
}

#define INCREMENTS 40

static int increment_counter(void) {
    fief_realm_t *r = open_bank();
    if (!r) return 1;
    fief_class_key_t ck = t_class(r, "Account");
    fief_property_key_t pb = t_prop(r, "Account", "balance");
    for (int i = 0; i < INCREMENTS; i++) {
        if (!fief_realm_begin_write(r)) return 2;
        bool found = false;
        fief_object_t *o = fief_object_find(r, ck, vi(0), &found);
        if (!o) return 3;
        fief_value_t v;
        if (!fief_object_get_value(o, pb, &v)) return 4;
        if (!fief_object_set_value(o, pb, vi(v.u.integer + 1))) return 5;
        fief_release(o);
        if (!fief_realm_commit(r)) return 6;
    }
    fief_release(r);
    return 0;
}

static void *increment_thread(void *arg) {
    *(int *)arg = increment_counter();
    return NULL;
}

TEST(two_process_writers) {
    g_path = t_path("counter.fief");
    R(init_bank());
    enum { PROCS = 2, THREADS = 2 };
    pid_t pids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        fflush(NULL);
        pids[i] = fork();
        R(pids[i] >= 0);
        if (pids[i] == 0) {
            alarm(40);
            _exit(increment_counter());
        }
    }
    alarm(60);
    pthread_t th[THREADS];
    int rc[THREADS] = {0};
    for (int i = 0; i < THREADS; i++) R(pthread_create(&th[i], NULL, increment_thread, &rc[i]) == 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        EQI(rc[i], 0);
    }
    for (int i = 0; i < PROCS; i++) {
        int status = 0;
        waitpid(pids[i], &status, 0);
        E(WIFEXITED(status));
        EQI(WEXITSTATUS(status), 0);
    }
    alarm(0);
    fief_realm_t *r = open_bank();
    R(r);
    fief_class_key_t ck = t_class(r, "Account");
    bool found = false;
    fief_object_t *o = fief_object_find(r, ck, vi(0), &found);
    R(o);
    EQI(t_get_int(o, t_prop(r, "Account", "balance")), START_BALANCE + (PROCS + THREADS) * INCREMENTS);
    fief_release(o);
    fief_release(r);
}

static const t_case cases[] = {T(readers_and_writer), T(two_process_writers)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
