/* Realm-level notifications and the host-driven scheduler: commits of
 * another thread and of other processes make the realm's notification fd
 * readable; fief_realm_deliver_notifications calls the callbacks on the
 * calling thread, several commits make one delivery; tokens released inside
 * a callback or from another thread are never called again and free their
 * userdata once; a worker thread runs only while something observes; killed
 * committers break nothing.  Timeouts are liveness bounds, not timings.
 *
 * Child processes are this program run again (`test_notifications
 * --commit PATH N`: N empty commits to PATH), so no child forks a process
 * that has threads running. */
#include "fief_test.h"

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char self_exe[4096];

static fief_realm_t *open_plain(const char *path) { return t_open(path, NULL, 0); }

/* One empty commit: a new version. */
static bool commit_once(fief_realm_t *r) { return fief_realm_begin_write(r) && fief_realm_commit(r); }

/* The number of threads of this process. */
static int thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.') n++;
    }
    closedir(d);
    return n;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* What a callback records. */
typedef struct {
    int calls;
    int did_change;
    int refresh_required;
    int frees;
    pthread_t thread;
    fief_notification_token_t *token; /* released by the callback when release_self */
    bool release_self;
    int sleep_ms;                     /* sleeps this long inside the call */
    volatile int in_call;
    volatile int call_done;
    fief_realm_t *commit_in_callback; /* commits through it inside the call */
    fief_realm_t *deliver_in_callback;
    bool nested_delivered;
} record_t;

static void on_change(void *userdata, fief_realm_notification_t n) {
    record_t *rec = userdata;
    rec->calls++;
    rec->thread = pthread_self();
    if (n == FIEF_REALM_DID_CHANGE) rec->did_change++;
    if (n == FIEF_REALM_REFRESH_REQUIRED) rec->refresh_required++;
    rec->in_call = 1;
    if (rec->sleep_ms) sleep_ms(rec->sleep_ms);
    if (rec->release_self && rec->token) {
        E(fief_release(rec->token));
        rec->token = NULL;
    }
    if (rec->commit_in_callback) E(commit_once(rec->commit_in_callback));
    if (rec->deliver_in_callback) {
        bool nested = true;
        E(fief_realm_deliver_notifications(rec->deliver_in_callback, &nested));
        rec->nested_delivered = nested;
    }
    rec->call_done = 1;
}

static void count_free(void *userdata) { ((record_t *)userdata)->frees++; }

/* Run this program as a child committing `n` times to `path`; returns its pid. */
static pid_t spawn_committer(const char *path, int n) {
    char count[32];
    snprintf(count, sizeof count, "%d", n);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self_exe, self_exe, "--commit", path, count, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int child_commit_main(const char *path, int n) {
    alarm(60);
    fief_realm_t *r = open_plain(path);
    if (!r) return 2;
    for (int i = 0; n < 0 || i < n; i++) {
        if (!commit_once(r)) return 3;
    }
    fief_release(r);
    return 0;
}

/* Run this program as a child that opens `path` with the standard schema
 * (an additive schema change: its only commit). */
static int child_schema_main(const char *path) {
    alarm(60);
    fief_schema_t *s = t_std_schema();
    fief_realm_t *r = t_open(path, s, 0);
    fief_release(s);
    if (!r) return 2;
    fief_release(r);
    return 0;
}

typedef struct {
    const char *path;
    int commits;
} thread_commit_args;

static void *commit_on_thread(void *arg) {
    thread_commit_args *a = arg;
    fief_realm_t *r = open_plain(a->path);
    if (!r) return NULL;
    for (int i = 0; i < a->commits; i++) E(commit_once(r));
    fief_release(r);
    return NULL;
}

TEST(another_threads_commit_wakes_the_fd_and_delivery_runs_here) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, count_free);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    E(fd >= 0);
    E(!t_fd_readable(fd, 0));
    uint64_t before = t_version(r);
    thread_commit_args a = {path, 1};
    t_run_thread(commit_on_thread, &a);
    E(t_fd_readable(fd, 10000));
    EQI(rec.calls, 0); /* nothing is called before the host delivers */
    bool delivered = false;
    E(fief_realm_deliver_notifications(r, &delivered));
    E(delivered);
    EQI(rec.calls, 1);
    EQI(rec.did_change, 1);
    E(pthread_equal(rec.thread, pthread_self()));
    EQU(t_version(r), before + 1); /* autorefresh moved it */
    E(!t_fd_readable(fd, 0));
    E(fief_realm_deliver_notifications(r, &delivered));
    E(!delivered);
    EQI(rec.calls, 1);
    E(fief_release(tok));
    EQI(rec.frees, 1);
    fief_release(r);
}

TEST(a_child_process_commit_wakes_the_fd) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    E(commit_once(r));
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    char note[4200];
    snprintf(note, sizeof note, "%s.note", path);
    E(t_file_exists(note));
    uint64_t before = t_version(r);
    pid_t pid = spawn_committer(path, 1);
    int status = 0;
    E(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    E(t_fd_readable(fd, 10000));
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.did_change, 1);
    EQU(t_version(r), before + 1);
    fief_release(tok);
    fief_release(r);
    /* fief_file_delete removes the pipe with the file. */
    E(fief_file_delete(path, NULL));
    E(!t_file_exists(note));
}

TEST(a_schema_change_at_another_process_open_wakes_the_fd) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    E(fief_realm_deliver_notifications(r, NULL));
    uint64_t before = t_version(r);
    EQI(t_run_self("--schema", path, NULL), 0);
    E(t_fd_readable(fd, 10000)); /* the schema's commit wrote to the pipe */
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.did_change, 1);
    EQU(t_version(r), before + 1);
    E(t_class(r, "AllTypes") != 0); /* the new class is seen after delivery */
    fief_release(tok);
    fief_release(r);
}

TEST(a_fallback_pipe_when_the_fifo_cannot_be_made) {
    /* "<path>.note" is taken by a regular file: both processes use the
     * fallback pipe named by the file's device and inode. */
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    E(commit_once(r));
    fief_release(r);
    char note[4200];
    snprintf(note, sizeof note, "%s.note", path);
    unlink(note);
    R(t_write_file(note, "x", 1));
    r = open_plain(path);
    R(r);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    pid_t pid = spawn_committer(path, 1);
    int status = 0;
    E(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    E(t_fd_readable(fd, 10000));
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.did_change, 1);
    fief_release(tok);
    fief_release(r);
    E(fief_file_delete(path, NULL)); /* removes the fallback pipe too */
    unlink(note);
}

TEST(three_commits_make_one_delivery) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    uint64_t before = t_version(r);
    thread_commit_args a = {path, 3};
    t_run_thread(commit_on_thread, &a);
    E(t_fd_readable(fd, 10000));
    /* Let the worker see the last commit too (it may still be running). */
    sleep_ms(100);
    bool delivered = false;
    E(fief_realm_deliver_notifications(r, &delivered));
    E(delivered);
    EQI(rec.calls, 1);
    EQU(t_version(r), before + 3);
    E(fief_realm_deliver_notifications(r, &delivered));
    E(!delivered);
    EQI(rec.calls, 1);
    fief_release(tok);
    fief_release(r);
}

TEST(own_commit_refresh_and_begin_write_tell_the_callbacks) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    fief_realm_t *other = open_plain(path);
    R(r && other);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    E(commit_once(r)); /* called at once, on this thread */
    EQI(rec.did_change, 1);
    E(commit_once(other));
    E(fief_realm_begin_write(r)); /* moves to the newest version first */
    EQI(rec.did_change, 2);
    E(fief_realm_cancel(r));
    E(commit_once(other));
    bool moved = false;
    E(fief_realm_refresh(r, &moved));
    E(moved);
    EQI(rec.did_change, 3);
    E(fief_realm_refresh(r, &moved));
    E(!moved);
    EQI(rec.did_change, 3);
    /* Registration inside a write transaction is allowed (as RealmSwift's). */
    E(fief_realm_begin_write(r));
    fief_notification_token_t *in_write = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    E(in_write != NULL);
    E(fief_realm_commit(r));
    EQI(rec.did_change, 5); /* both callbacks */
    fief_release(in_write);
    fief_release(tok);
    fief_release(other);
    fief_release(r);
}

TEST(autorefresh_off_gives_refresh_required) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    bool on = false;
    E(fief_realm_get_autorefresh(r, &on));
    E(on);
    E(fief_realm_set_autorefresh(r, false));
    E(fief_realm_get_autorefresh(r, &on));
    E(!on);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    uint64_t before = t_version(r);
    thread_commit_args a = {path, 1};
    t_run_thread(commit_on_thread, &a);
    E(t_fd_readable(fd, 10000));
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.refresh_required, 1);
    EQI(rec.did_change, 0);
    EQU(t_version(r), before); /* not moved */
    E(fief_realm_refresh(r, NULL));
    EQI(rec.did_change, 1);
    EQU(t_version(r), before + 1);
    fief_release(tok);
    fief_release(r);
}

TEST(release_inside_the_callback) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    rec.release_self = true;
    rec.token = fief_realm_add_notification_callback(r, on_change, &rec, count_free);
    R(rec.token);
    E(commit_once(r));
    EQI(rec.calls, 1);
    EQI(rec.frees, 1); /* at the end of the call that released it */
    E(rec.token == NULL);
    E(commit_once(r));
    thread_commit_args a = {path, 1};
    t_run_thread(commit_on_thread, &a);
    sleep_ms(50);
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.calls, 1);
    EQI(rec.frees, 1);
    fief_release(r);
}

typedef struct {
    record_t *rec;
    volatile int released;
    volatile int done_when_released;
} releaser_args;

static void *release_during_call(void *arg) {
    releaser_args *a = arg;
    double deadline = t_now() + 10;
    while (!a->rec->in_call && t_now() < deadline) sleep_ms(1);
    E(fief_release(a->rec->token));
    a->done_when_released = a->rec->call_done;
    a->released = 1;
    return NULL;
}

TEST(release_from_another_thread_during_delivery) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    rec.sleep_ms = 200;
    rec.token = fief_realm_add_notification_callback(r, on_change, &rec, count_free);
    R(rec.token);
    record_t second = {0};
    fief_notification_token_t *tok2 = fief_realm_add_notification_callback(r, on_change, &second, count_free);
    R(tok2);
    releaser_args a = {&rec, 0, 0};
    pthread_t th;
    R(pthread_create(&th, NULL, release_during_call, &a) == 0);
    E(commit_once(r)); /* calls back on this thread, slowly */
    pthread_join(th, NULL);
    E(a.released);
    E(a.done_when_released); /* the release waited for the call to end */
    EQI(rec.calls, 1);
    EQI(rec.frees, 1);
    EQI(second.calls, 1);
    rec.sleep_ms = 0;
    E(commit_once(r));
    EQI(rec.calls, 1); /* never again */
    EQI(second.calls, 2);
    fief_release(tok2);
    EQI(second.frees, 1);
    fief_release(r);
}

TEST(callbacks_may_commit_and_nested_delivery_returns_at_once) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    rec.commit_in_callback = r;
    rec.deliver_in_callback = r;
    uint64_t before = t_version(r);
    E(commit_once(r));
    EQI(rec.calls, 1); /* its own commit was not delivered recursively */
    E(!rec.nested_delivered);
    EQU(t_version(r), before + 2);
    rec.commit_in_callback = NULL;
    rec.deliver_in_callback = NULL;
    bool delivered = false;
    E(fief_realm_deliver_notifications(r, &delivered)); /* the next delivery tells it */
    E(delivered);
    EQI(rec.calls, 2);
    fief_release(tok);
    fief_release(r);
}

static void wakeup_counts(void *userdata) {
    record_t *rec = userdata;
    rec->thread = pthread_self();
    __atomic_add_fetch(&rec->calls, 1, __ATOMIC_SEQ_CST);
}

TEST(free_userdata_runs_once) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t recs[3];
    memset(recs, 0, sizeof recs);
    fief_notification_token_t *toks[3];
    for (int i = 0; i < 3; i++) {
        toks[i] = fief_realm_add_notification_callback(r, on_change, &recs[i], count_free);
        R(toks[i]);
    }
    E(commit_once(r));
    fief_release(r); /* the tokens keep the realm */
    for (int i = 0; i < 3; i++) {
        EQI(recs[i].calls, 1);
        EQI(recs[i].frees, 0);
        E(fief_release(toks[i]));
        EQI(recs[i].frees, 1);
        EERR(fief_release(toks[i]), FIEF_ERR_INVALID_HANDLE);
        EQI(recs[i].frees, 1);
    }
    /* The wake-up's userdata: freed when replaced, and when the realm goes. */
    r = open_plain(path);
    R(r);
    record_t w1 = {0}, w2 = {0};
    E(fief_realm_set_wakeup(r, wakeup_counts, &w1, count_free));
    E(fief_realm_set_wakeup(r, NULL, &w2, count_free));
    EQI(w1.frees, 1);
    EQI(w2.frees, 0); /* a NULL callback takes nothing */
    E(fief_realm_set_wakeup(r, wakeup_counts, &w2, count_free));
    fief_release(r);
    EQI(w2.frees, 1);
}

TEST(wakeup_runs_on_the_worker) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t wake = {0}, rec = {0};
    E(fief_realm_set_wakeup(r, wakeup_counts, &wake, count_free));
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    thread_commit_args a = {path, 1};
    t_run_thread(commit_on_thread, &a);
    double deadline = t_now() + 10;
    while (__atomic_load_n(&wake.calls, __ATOMIC_SEQ_CST) == 0 && t_now() < deadline) sleep_ms(1);
    E(wake.calls >= 1);
    E(!pthread_equal(wake.thread, pthread_self()));
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.calls, 1);
    fief_release(tok);
    fief_release(r);
    EQI(wake.frees, 1);
}

TEST(a_worker_thread_only_while_something_observes) {
    const char *path = t_path("n.fief");
    int base = thread_count();
    fief_realm_t *r = open_plain(path);
    R(r);
    E(commit_once(r));
    int fd = -1;
    E(fief_realm_get_notification_fd(r, &fd)); /* an fd alone starts nothing */
    EQI(thread_count(), base);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    EQI(thread_count(), base + 1);
    fief_notification_token_t *tok2 = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok2);
    EQI(thread_count(), base + 1); /* one per file */
    fief_release(tok);
    EQI(thread_count(), base + 1);
    fief_release(tok2);
    /* Joined; the kernel lists an exited thread a moment longer. */
    double deadline = t_now() + 5;
    while (thread_count() != base && t_now() < deadline) sleep_ms(1);
    EQI(thread_count(), base);
    fief_release(r);
}

TEST(closing_the_realm_stops_its_callbacks_and_the_worker) {
    const char *path = t_path("n.fief");
    int base = thread_count();
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, count_free);
    R(tok);
    EQI(thread_count(), base + 1);
    E(fief_realm_close(r));
    double deadline = t_now() + 5;
    while (thread_count() != base && t_now() < deadline) sleep_ms(1);
    EQI(thread_count(), base); /* nothing observes the file any more */
    thread_commit_args a = {path, 1};
    t_run_thread(commit_on_thread, &a);
    EQI(rec.calls, 0);
    EQI(rec.frees, 0);
    E(fief_release(tok)); /* still a valid handle; frees once */
    EQI(rec.frees, 1);
    fief_release(r);
}

TEST(in_memory_realms_are_woken_too) {
    fief_config_t *c = fief_config_new();
    R(c);
    E(fief_config_set_in_memory_identifier(c, "notify-mem"));
    fief_realm_t *r = fief_realm_open(c);
    fief_realm_t *other = fief_realm_open(c);
    fief_release(c);
    R(r && other);
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    E(commit_once(other));
    E(t_fd_readable(fd, 10000));
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.did_change, 1);
    fief_release(tok);
    fief_release(other);
    fief_release(r);
}

TEST(killed_committers_leave_nothing_broken) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    E(commit_once(r));
    record_t rec = {0};
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, NULL);
    R(tok);
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    srand(22);
    for (int i = 0; i < 12; i++) {
        pid_t pid = spawn_committer(path, -1); /* commits until killed */
        sleep_ms(20 + rand() % 80);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        E(fief_realm_deliver_notifications(r, NULL));
    }
    /* Whatever the last one left, the next commit of another process wakes us. */
    E(fief_realm_deliver_notifications(r, NULL));
    while (t_fd_readable(fd, 0)) E(fief_realm_deliver_notifications(r, NULL));
    int calls = rec.calls;
    pid_t pid = spawn_committer(path, 1);
    int status = 0;
    E(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    E(t_fd_readable(fd, 10000));
    E(fief_realm_deliver_notifications(r, NULL));
    EQI(rec.calls, calls + 1);
    /* And the file still commits here. */
    E(commit_once(r));
    fief_release(tok);
    fief_release(r);
}

TEST(bad_inputs) {
    const char *path = t_path("n.fief");
    fief_realm_t *r = open_plain(path);
    R(r);
    record_t rec = {0};
    EERRM(fief_realm_add_notification_callback(r, NULL, &rec, count_free), FIEF_ERR_INVALID_ARGUMENT, "callback");
    EQI(rec.frees, 0);
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen);
    EERRM(fief_realm_add_notification_callback(frozen, on_change, &rec, count_free), FIEF_ERR_FROZEN, "frozen");
    EQI(rec.frees, 0); /* a failed registration leaves userdata to the caller */
    int fd = -1;
    EERR(fief_realm_get_notification_fd(frozen, &fd), FIEF_ERR_FROZEN);
    EERR(fief_realm_set_autorefresh(frozen, true), FIEF_ERR_FROZEN);
    E(fief_realm_set_autorefresh(frozen, false));
    bool on = true;
    E(fief_realm_get_autorefresh(frozen, &on));
    E(!on);
    bool delivered = true;
    E(fief_realm_deliver_notifications(frozen, &delivered));
    E(!delivered);
    EERR(fief_realm_get_notification_fd(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_get_autorefresh(r, NULL), FIEF_ERR_INVALID_ARGUMENT);
    /* Wrong handle kinds, both ways. */
    fief_schema_t *schema = fief_realm_get_schema(r);
    R(schema);
    EERRM(fief_realm_add_notification_callback((fief_realm_t *)schema, on_change, &rec, NULL), FIEF_ERR_WRONG_HANDLE_TYPE, "schema");
    fief_notification_token_t *tok = fief_realm_add_notification_callback(r, on_change, &rec, count_free);
    R(tok);
    EERRM(fief_realm_deliver_notifications((fief_realm_t *)tok, NULL), FIEF_ERR_WRONG_HANDLE_TYPE, "notification token");
    EERR(fief_realm_get_notification_fd(NULL, &fd), FIEF_ERR_INVALID_HANDLE);
    E(fief_release(tok));
    EQI(rec.frees, 1);
    EERR(fief_release(tok), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_realm_deliver_notifications((fief_realm_t *)tok, NULL), FIEF_ERR_INVALID_HANDLE);
    /* Closed realms. */
    E(fief_realm_close(r));
    EERR(fief_realm_deliver_notifications(r, NULL), FIEF_ERR_CLOSED);
    EERR(fief_realm_add_notification_callback(r, on_change, &rec, NULL), FIEF_ERR_CLOSED);
    EERR(fief_realm_get_notification_fd(r, &fd), FIEF_ERR_CLOSED);
    fief_release(schema);
    fief_release(frozen);
    fief_release(r);
    /* Read-only realms never change. */
    fief_config_t *c = fief_config_new();
    E(fief_config_set_path(c, path));
    E(fief_config_set_read_only(c, true));
    fief_realm_t *ro = fief_realm_open(c);
    fief_release(c);
    R(ro);
    EERR(fief_realm_add_notification_callback(ro, on_change, &rec, NULL), FIEF_ERR_READ_ONLY);
    fief_release(ro);
}

static const t_case cases[] = {
    T(another_threads_commit_wakes_the_fd_and_delivery_runs_here),
    T(a_child_process_commit_wakes_the_fd),
    T(a_schema_change_at_another_process_open_wakes_the_fd),
    T(a_fallback_pipe_when_the_fifo_cannot_be_made),
    T(three_commits_make_one_delivery),
    T(own_commit_refresh_and_begin_write_tell_the_callbacks),
    T(autorefresh_off_gives_refresh_required),
    T(release_inside_the_callback),
    T(release_from_another_thread_during_delivery),
    T(callbacks_may_commit_and_nested_delivery_returns_at_once),
    T(free_userdata_runs_once),
    T(wakeup_runs_on_the_worker),
    T(a_worker_thread_only_while_something_observes),
    T(closing_the_realm_stops_its_callbacks_and_the_worker),
    T(in_memory_realms_are_woken_too),
    T(killed_committers_leave_nothing_broken),
    T(bad_inputs),
};

int main(int argc, char **argv) {
    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (n > 0) self_exe[n] = 0;
    if (argc == 4 && strcmp(argv[1], "--commit") == 0) return child_commit_main(argv[2], atoi(argv[3]));
    if (argc == 3 && strcmp(argv[1], "--schema") == 0) return child_schema_main(argv[2]);
    return T_MAIN(argc, argv, cases);
}
