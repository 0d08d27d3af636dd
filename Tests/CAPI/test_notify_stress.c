/* Results notifications under load (issue 22): writers in two threads and
 * two processes make seeded random commits (objects inserted, deleted and
 * updated, links changed, list elements appended and removed, map values
 * set, linked objects deleted) while an observer watches four results
 * (filtered through a link, sorted, sorted and limited, distinct).  Every
 * change set, applied to the rows the observer had (deletions, then
 * insertions), gives exactly the rows read fresh in the callback, and every
 * row whose value changed is among the modifications.  The crash test
 * SIGKILLs a writer in the middle of its loop of commits, several times,
 * while observers in two other processes run; a new writer's later commits
 * still reach them, and their change sets stay exact.
 *
 * Results whose query another process's migration made impossible (the
 * property it reads removed) are told the error once, then nothing.
 *
 * Child processes are this program run again (`--writer PATH SEED COMMITS`,
 * `--observe PATH`, `--drop-value PATH`).  Timeouts are liveness bounds, not timings. */
#include "fief_test.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Owner(name, score); Item(value, group, owner: Owner?, tags: list of
 * Owner, meta: map of int). */
static fief_schema_t *stress_schema(void) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Owner";
    classes[0].num_properties = 2;
    classes[1].name = "Item";
    classes[1].num_properties = 5;
    fief_property_info_t owner[2] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("score", FIEF_TYPE_INT, 0)};
    fief_property_info_t item[5] = {t_prop_info("value", FIEF_TYPE_INT, 0), t_prop_info("group", FIEF_TYPE_INT, 0),
                                    t_prop_info("owner", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                    t_prop_info("tags", FIEF_TYPE_LINK, 0), t_prop_info("meta", FIEF_TYPE_INT, 0)};
    item[2].link_target = "Owner";
    item[3].link_target = "Owner";
    item[3].collection_type = FIEF_COLLECTION_LIST;
    item[4].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *props[2] = {owner, item};
    return fief_schema_new(classes, 2, props);
}

static fief_realm_t *open_stress(const char *path) {
    fief_schema_t *s = stress_schema();
    fief_realm_t *r = t_open(path, s, 0);
    fief_release(s);
    return r;
}

typedef struct {
    fief_realm_t *realm;
    fief_class_key_t owner_class, item_class;
    fief_property_key_t name, score, value, group, owner, tags, meta;
} stress_keys;

static bool load_keys(stress_keys *k, fief_realm_t *r) {
    k->realm = r;
    k->owner_class = t_class(r, "Owner");
    k->item_class = t_class(r, "Item");
    k->name = t_prop(r, "Owner", "name");
    k->score = t_prop(r, "Owner", "score");
    k->value = t_prop(r, "Item", "value");
    k->group = t_prop(r, "Item", "group");
    k->owner = t_prop(r, "Item", "owner");
    k->tags = t_prop(r, "Item", "tags");
    k->meta = t_prop(r, "Item", "meta");
    return k->owner_class && k->item_class && k->value && k->meta;
}

/* ---- writing ------------------------------------------------------------- */

static unsigned next_random(unsigned *state) {
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

/* A random live object of `cls` (NULL when there is none). */
static fief_object_t *random_object(stress_keys *k, fief_class_key_t cls, unsigned *rng) {
    fief_results_t *all = fief_realm_get_objects(k->realm, cls);
    if (!all) return NULL;
    size_t count = 0;
    fief_object_t *o = NULL;
    if (fief_results_count(all, &count) && count > 0) o = fief_results_get_object(all, next_random(rng) % count);
    fief_release(all);
    return o;
}

static fief_value_t link_to(stress_keys *k, fief_object_t *o) {
    fief_object_key_t key = 0;
    if (!o || !fief_object_get_key(o, &key)) return vnull();
    return vlink(k->owner_class, key);
}

static bool create_owner(stress_keys *k, unsigned *rng) {
    char name[32];
    snprintf(name, sizeof name, "o%u", next_random(rng));
    fief_property_key_t keys[2] = {k->name, k->score};
    fief_value_t values[2] = {vs(name), vi(next_random(rng) % 100)};
    fief_object_t *o = fief_object_create(k->realm, k->owner_class, keys, values, 2, FIEF_UPDATE_POLICY_ERROR);
    fief_release(o);
    return o != NULL;
}

static bool create_item(stress_keys *k, unsigned *rng) {
    fief_object_t *owner = next_random(rng) % 5 == 0 ? NULL : random_object(k, k->owner_class, rng);
    fief_property_key_t keys[3] = {k->value, k->group, k->owner};
    fief_value_t values[3] = {vi(next_random(rng) % 100), vi(next_random(rng) % 8), link_to(k, owner)};
    fief_release(owner);
    fief_object_t *o = fief_object_create(k->realm, k->item_class, keys, values, 3, FIEF_UPDATE_POLICY_ERROR);
    fief_release(o);
    return o != NULL;
}

/* One random operation (in a write transaction). */
static bool random_op(stress_keys *k, unsigned *rng) {
    unsigned op = next_random(rng) % 20;
    if (op < 4) return create_item(k, rng);
    if (op == 4) return create_owner(k, rng);
    if (op == 5) {
        /* A linked object deleted: links to it become null, lists lose it. */
        size_t owners = t_count_class(k->realm, k->owner_class);
        if (owners < 8) return create_owner(k, rng);
        fief_object_t *o = random_object(k, k->owner_class, rng);
        bool ok = !o || fief_object_delete(o);
        fief_release(o);
        return ok;
    }
    if (op == 6) {
        fief_property_key_t p = k->score;
        fief_object_t *o = random_object(k, k->owner_class, rng);
        bool ok = !o || fief_object_set_value(o, p, vi(next_random(rng) % 100));
        fief_release(o);
        return ok;
    }
    fief_object_t *item = random_object(k, k->item_class, rng);
    if (!item) return create_item(k, rng);
    bool ok = true;
    if (op < 9) {
        ok = fief_object_delete(item);
    } else if (op < 12) {
        ok = fief_object_set_value(item, k->value, vi(next_random(rng) % 100));
    } else if (op == 12) {
        ok = fief_object_set_value(item, k->group, vi(next_random(rng) % 8));
    } else if (op < 15) {
        fief_object_t *owner = next_random(rng) % 4 == 0 ? NULL : random_object(k, k->owner_class, rng);
        ok = fief_object_set_value(item, k->owner, link_to(k, owner));
        fief_release(owner);
    } else if (op < 17) {
        fief_list_t *tags = fief_object_get_list(item, k->tags);
        fief_object_t *owner = random_object(k, k->owner_class, rng);
        fief_value_t v = link_to(k, owner);
        ok = tags && (!owner || fief_list_append(tags, &v, 1));
        fief_release(owner);
        fief_release(tags);
    } else if (op == 17) {
        fief_list_t *tags = fief_object_get_list(item, k->tags);
        size_t n = 0;
        ok = tags && fief_list_count(tags, &n) && (n == 0 || fief_list_remove(tags, next_random(rng) % n));
        fief_release(tags);
    } else {
        fief_map_t *meta = fief_object_get_map(item, k->meta);
        char key[16];
        snprintf(key, sizeof key, "k%u", next_random(rng) % 4);
        ok = meta && fief_map_set(meta, t_str(key), vi(next_random(rng)));
        fief_release(meta);
    }
    fief_release(item);
    return ok;
}

/* `commits` commits of one to four random operations (0: until killed).
 * Returns false on an unexpected failure. */
static bool write_randomly(const char *path, unsigned seed, int commits) {
    fief_realm_t *r = open_stress(path);
    if (!r) return false;
    stress_keys k;
    bool ok = load_keys(&k, r);
    unsigned rng = seed;
    for (int c = 0; ok && (commits == 0 || c < commits); c++) {
        ok = fief_realm_begin_write(r);
        int ops = 1 + (int)(next_random(&rng) % 4);
        for (int i = 0; ok && i < ops; i++) ok = random_op(&k, &rng);
        ok = ok && fief_realm_commit(r);
    }
    if (!ok) {
        fief_error_t e;
        if (fief_get_last_error(&e)) fprintf(stderr, "writer %u: %s\n", seed, e.message ? e.message : "?");
    }
    fief_release(r);
    return ok;
}

/* The first objects: 12 owners, 40 items. */
static void populate(const char *path) {
    fief_realm_t *r = open_stress(path);
    R(r);
    stress_keys k;
    E(load_keys(&k, r));
    unsigned rng = 7;
    E(fief_realm_begin_write(r));
    for (int i = 0; i < 12; i++) E(create_owner(&k, &rng));
    for (int i = 0; i < 40; i++) E(create_item(&k, &rng));
    E(fief_realm_commit(r));
    fief_release(r);
}

/* The end of the writing: an owner named "END". */
static bool write_end(const char *path) {
    fief_realm_t *r = open_stress(path);
    if (!r) return false;
    stress_keys k;
    bool ok = load_keys(&k, r) && fief_realm_begin_write(r);
    fief_property_key_t keys[2] = {k.name, k.score};
    fief_value_t values[2] = {vs("END"), vi(0)};
    fief_object_t *o = ok ? fief_object_create(r, k.owner_class, keys, values, 2, FIEF_UPDATE_POLICY_ERROR) : NULL;
    ok = o && fief_realm_commit(r);
    fief_release(o);
    fief_release(r);
    return ok;
}

/* ---- observing ------------------------------------------------------------ */

#define WATCHES 4

/* One observed results: the rows (keys and `value`s) as of its last call. */
typedef struct {
    const char *what;
    fief_results_t *results;
    fief_property_key_t value;
    fief_object_key_t *keys;
    int64_t *values;
    size_t count;
    int calls, updates, problems;
    size_t deletions, insertions, modifications;
} watch_t;

static void watch_problem(watch_t *w, const char *detail) {
    if (w->problems++ < 5) fprintf(stderr, "[%d] %s: %s\n", (int)getpid(), w->what, detail);
}

/* The rows of `results` now: keys and values (new arrays). */
static bool read_rows(watch_t *w, fief_object_key_t **keys, int64_t **values, size_t *count) {
    if (!fief_results_count(w->results, count)) return false;
    *keys = malloc((*count + 1) * sizeof **keys);
    *values = malloc((*count + 1) * sizeof **values);
    size_t got = 0;
    if (!fief_results_get_keys(w->results, 0, *count, *keys, &got) || got != *count) return false;
    for (size_t i = 0; i < *count; i++) {
        fief_value_t v;
        if (!fief_results_get_values(w->results, i, &w->value, 1, &v) || v.type != FIEF_TYPE_INT) return false;
        (*values)[i] = v.u.integer;
    }
    return true;
}

static bool contains(const size_t *sorted, size_t n, size_t x) {
    for (size_t i = 0; i < n; i++)
        if (sorted[i] == x) return true;
    return false;
}

static void on_watch(void *userdata, const fief_collection_changes_t *changes) {
    watch_t *w = userdata;
    w->calls++;
    bool initial = false, failed = true;
    if (!fief_collection_changes_get_flags(changes, &initial, NULL, NULL) ||
        !fief_collection_changes_get_error(changes, &failed, NULL) || failed) {
        watch_problem(w, "unreadable change set or an error");
        return;
    }
    fief_object_key_t *fresh_keys = NULL;
    int64_t *fresh_values = NULL;
    size_t fresh = 0;
    if (!read_rows(w, &fresh_keys, &fresh_values, &fresh)) {
        watch_problem(w, "rows unreadable in the callback");
        free(fresh_keys);
        free(fresh_values);
        return;
    }
    if (!initial) {
        w->updates++;
        size_t nd = 0, ni = 0, nm = 0, nmv = 0;
        fief_collection_changes_get_counts(changes, &nd, &ni, &nm, &nmv);
        size_t cap = w->count + fresh + 1;
        size_t *del = malloc(cap * sizeof *del), *ins = malloc(cap * sizeof *ins);
        size_t *mod = malloc(cap * sizeof *mod), *mod_new = malloc(cap * sizeof *mod_new);
        fief_collection_changes_get_indices(changes, cap, del, ins, mod, mod_new, NULL, NULL);
        w->deletions += nd;
        w->insertions += ni;
        w->modifications += nm;
        /* Old rows without the deleted ones, each with its old index. */
        size_t *kept_old = malloc(cap * sizeof *kept_old);
        size_t kept = 0;
        bool sane = nd <= w->count && ni <= fresh && nm <= w->count;
        for (size_t i = 0; sane && i < w->count; i++)
            if (!contains(del, nd, i)) kept_old[kept++] = i;
        /* Then the insertions at their new indices: the rest, in order, must
         * be the fresh rows not inserted. */
        if (sane && kept + ni != fresh) sane = false;
        size_t next = 0;
        for (size_t j = 0; sane && j < fresh; j++) {
            if (contains(ins, ni, j)) continue;
            size_t old = kept_old[next++];
            if (w->keys[old] != fresh_keys[j]) {
                char d[160];
                snprintf(d, sizeof d, "row %zu: object %lld after the change set, %lld read fresh", j,
                         (long long)w->keys[old], (long long)fresh_keys[j]);
                watch_problem(w, d);
                sane = false;
                break;
            }
            if (w->values[old] != fresh_values[j] && !contains(mod_new, nm, j)) {
                char d[160];
                snprintf(d, sizeof d, "row %zu (object %lld): value %lld became %lld, not a modification", j,
                         (long long)fresh_keys[j], (long long)w->values[old], (long long)fresh_values[j]);
                watch_problem(w, d);
            }
        }
        if (!sane && w->problems == 0) watch_problem(w, "the change set does not turn the old rows into the new");
        if (!sane) w->problems++;
        free(del);
        free(ins);
        free(mod);
        free(mod_new);
        free(kept_old);
    }
    free(w->keys);
    free(w->values);
    w->keys = fresh_keys;
    w->values = fresh_values;
    w->count = fresh;
}

typedef struct {
    fief_realm_t *realm;
    stress_keys k;
    watch_t watches[WATCHES];
    fief_notification_token_t *tokens[WATCHES];
    fief_results_t *end;
} observer_t;

static bool observer_open(observer_t *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->realm = open_stress(path);
    if (!o->realm || !load_keys(&o->k, o->realm)) return false;
    fief_results_t *items = fief_realm_get_objects(o->realm, o->k.item_class);
    fief_results_t *owners = fief_realm_get_objects(o->realm, o->k.owner_class);
    if (!items || !owners) return false;
    fief_sort_descriptor_t asc = {"value", true}, desc = {"value", false};
    const char *group = "group";
    fief_results_t *sorted_desc = fief_results_sort(items, &desc, 1);
    o->watches[0] = (watch_t){.what = "filtered through a link", .results = fief_results_filter(items, "owner.score > 50", NULL, 0)};
    o->watches[1] = (watch_t){.what = "sorted", .results = fief_results_sort(items, &asc, 1)};
    o->watches[2] = (watch_t){.what = "sorted and limited", .results = sorted_desc ? fief_results_limit(sorted_desc, 10) : NULL};
    o->watches[3] = (watch_t){.what = "distinct", .results = fief_results_distinct(items, &group, 1)};
    o->end = fief_results_filter(owners, "name == 'END'", NULL, 0);
    fief_release(sorted_desc);
    fief_release(items);
    fief_release(owners);
    if (!o->end) return false;
    for (int i = 0; i < WATCHES; i++) {
        o->watches[i].value = o->k.value;
        if (!o->watches[i].results) return false;
        o->tokens[i] = fief_results_add_notification_callback(o->watches[i].results, NULL, 0, on_watch, &o->watches[i], NULL);
        if (!o->tokens[i]) return false;
    }
    return true;
}

/* Whether every watch's rows are the rows its results have now. */
static bool observer_settled(observer_t *o) {
    for (int i = 0; i < WATCHES; i++) {
        watch_t *w = &o->watches[i];
        fief_object_key_t *keys = NULL;
        int64_t *values = NULL;
        size_t count = 0;
        bool same = w->calls > 0 && read_rows(w, &keys, &values, &count) && count == w->count &&
                    (count == 0 || memcmp(keys, w->keys, count * sizeof *keys) == 0);
        free(keys);
        free(values);
        if (!same) return false;
    }
    return true;
}

/* Deliver as a host does (poll the fd, bounded) until `done()` holds and
 * the watches show the results as they are, or the deadline. */
static bool observe_until(observer_t *o, bool (*done)(observer_t *), double seconds) {
    int fd = -1;
    if (!fief_realm_get_notification_fd(o->realm, &fd)) return false;
    double deadline = t_now() + seconds;
    while (t_now() < deadline) {
        t_fd_readable(fd, 200);
        if (!fief_realm_deliver_notifications(o->realm, NULL)) return false;
        if (done(o) && observer_settled(o)) return true;
    }
    return false;
}

static bool end_written(observer_t *o) {
    size_t n = 0;
    return fief_results_count(o->end, &n) && n > 0;
}

static int observer_problems(observer_t *o) {
    int problems = 0;
    for (int i = 0; i < WATCHES; i++) problems += o->watches[i].problems;
    return problems;
}

static void observer_close(observer_t *o) {
    for (int i = 0; i < WATCHES; i++) {
        fief_release(o->tokens[i]);
        fief_release(o->watches[i].results);
        free(o->watches[i].keys);
        free(o->watches[i].values);
    }
    fief_release(o->end);
    fief_release(o->realm);
}

/* ---- children --------------------------------------------------------------- */

static int child_writer_main(const char *path, unsigned seed, int commits) {
    alarm(170);
    return write_randomly(path, seed, commits) ? 0 : 3;
}

/* Observe until "END", then exit 0 when every change set was exact and
 * each results had updates. */
static int child_observer_main(const char *path) {
    alarm(170);
    observer_t o;
    if (!observer_open(&o, path)) return 2;
    bool ended = observe_until(&o, end_written, 160);
    int problems = observer_problems(&o);
    int quiet = 0;
    for (int i = 0; i < WATCHES; i++) {
        fprintf(stderr, "[%d] %s: %d calls, %zu deletions, %zu insertions, %zu modifications\n", (int)getpid(),
                o.watches[i].what, o.watches[i].calls, o.watches[i].deletions, o.watches[i].insertions,
                o.watches[i].modifications);
        if (o.watches[i].updates == 0) quiet++;
    }
    observer_close(&o);
    if (!ended) return 4;
    return problems ? 5 : quiet ? 6 : 0;
}

static pid_t spawn_self(const char *a, const char *b, const char *c, const char *d) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return -1;
    self[n] = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, a, b, c, d, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int wait_exit(pid_t pid) {
    int status = 0;
    if (pid <= 0 || waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- tests ------------------------------------------------------------------ */

typedef struct {
    const char *path;
    unsigned seed;
    int commits;
    bool ok;
} writer_args;

static void *writer_thread(void *arg) {
    writer_args *a = arg;
    a->ok = write_randomly(a->path, a->seed, a->commits);
    return NULL;
}

static int finished_writers;
static pthread_mutex_t finished_lock = PTHREAD_MUTEX_INITIALIZER;

static void *process_writer_thread(void *arg) {
    writer_args *a = arg;
    char seed[16], commits[16];
    snprintf(seed, sizeof seed, "%u", a->seed);
    snprintf(commits, sizeof commits, "%d", a->commits);
    pid_t pid = spawn_self("--writer", a->path, seed, commits);
    a->ok = wait_exit(pid) == 0;
    return NULL;
}

static void *then_count(void *(*fn)(void *), void *arg) {
    fn(arg);
    pthread_mutex_lock(&finished_lock);
    finished_writers++;
    pthread_mutex_unlock(&finished_lock);
    return NULL;
}

static void *thread_writer_counted(void *arg) { return then_count(writer_thread, arg); }
static void *process_writer_counted(void *arg) { return then_count(process_writer_thread, arg); }

static bool all_writers_done(observer_t *o) {
    (void)o;
    pthread_mutex_lock(&finished_lock);
    bool done = finished_writers == 4;
    pthread_mutex_unlock(&finished_lock);
    return done;
}

TEST(two_threads_and_two_processes_write_while_four_results_are_observed) {
    const char *path = t_path("stress.fief");
    populate(path);
    observer_t o;
    R(observer_open(&o, path));
    finished_writers = 0;
    writer_args args[4] = {{path, 11, 400, false}, {path, 12, 400, false}, {path, 13, 400, false}, {path, 14, 400, false}};
    pthread_t threads[4];
    E(pthread_create(&threads[0], NULL, thread_writer_counted, &args[0]) == 0);
    E(pthread_create(&threads[1], NULL, thread_writer_counted, &args[1]) == 0);
    E(pthread_create(&threads[2], NULL, process_writer_counted, &args[2]) == 0);
    E(pthread_create(&threads[3], NULL, process_writer_counted, &args[3]) == 0);
    E(observe_until(&o, all_writers_done, 170));
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        E(args[i].ok);
    }
    for (int i = 0; i < WATCHES; i++) {
        watch_t *w = &o.watches[i];
        fprintf(stderr, "%s: %d calls, %zu deletions, %zu insertions, %zu modifications\n", w->what, w->calls,
                w->deletions, w->insertions, w->modifications);
        EQI(w->problems, 0);
        E(w->updates > 0);
    }
    /* Every kind of change came through. */
    E(o.watches[1].deletions > 0 && o.watches[1].insertions > 0 && o.watches[1].modifications > 0);
    observer_close(&o);
}

TEST(a_writer_killed_mid_commit_leaves_observers_in_other_processes_exact) {
    const char *path = t_path("crash.fief");
    populate(path);
    pid_t observers[2] = {spawn_self("--observe", path, NULL, NULL), spawn_self("--observe", path, NULL, NULL)};
    E(observers[0] > 0 && observers[1] > 0);
    fief_realm_t *r = open_stress(path);
    R(r);
    unsigned rng = 99;
    for (int round = 0; round < 5; round++) {
        char seed[16];
        snprintf(seed, sizeof seed, "%d", 100 + round);
        uint64_t before = t_version(r);
        pid_t writer = spawn_self("--writer", path, seed, "0");
        E(writer > 0);
        /* Let it commit a while (20 to 60 commits), then kill it wherever
         * it is: in a commit, between two, in a write. */
        int fd = -1;
        E(fief_realm_get_notification_fd(r, &fd));
        double deadline = t_now() + 60;
        uint64_t wanted = before + 20 + next_random(&rng) % 40;
        while (t_version(r) < wanted && t_now() < deadline) {
            t_fd_readable(fd, 20);
            E(fief_realm_refresh(r, NULL));
        }
        E(t_version(r) >= wanted);
        struct timespec pause = {0, (long)(next_random(&rng) % 3000) * 1000L};
        nanosleep(&pause, NULL);
        E(kill(writer, SIGKILL) == 0);
        int status = 0;
        E(waitpid(writer, &status, 0) == writer);
        E(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    }
    /* A new writer's commits reach the observers, then the end. */
    EQI(wait_exit(spawn_self("--writer", path, "200", "60")), 0);
    E(write_end(path));
    EQI(wait_exit(observers[0]), 0);
    EQI(wait_exit(observers[1]), 0);
    fief_release(r);
}

/* Open with Item's `value` removed (schema version 1: a migration that
 * drops the column), and bump the first item's group in a commit. */
static int child_drop_value_main(const char *path) {
    alarm(60);
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Owner";
    classes[0].num_properties = 2;
    classes[1].name = "Item";
    classes[1].num_properties = 4;
    fief_property_info_t owner[2] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("score", FIEF_TYPE_INT, 0)};
    fief_property_info_t item[4] = {t_prop_info("group", FIEF_TYPE_INT, 0),
                                    t_prop_info("owner", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
                                    t_prop_info("tags", FIEF_TYPE_LINK, 0), t_prop_info("meta", FIEF_TYPE_INT, 0)};
    item[1].link_target = "Owner";
    item[2].link_target = "Owner";
    item[2].collection_type = FIEF_COLLECTION_LIST;
    item[3].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *props[2] = {owner, item};
    fief_schema_t *schema = fief_schema_new(classes, 2, props);
    fief_realm_t *r = schema ? t_open(path, schema, 1) : NULL;
    fief_release(schema);
    if (!r) return 2;
    fief_class_key_t items = t_class(r, "Item");
    fief_property_key_t group = t_prop(r, "Item", "group");
    fief_results_t *all = fief_realm_get_objects(r, items);
    bool ok = all && fief_realm_begin_write(r);
    fief_object_t *first = ok ? fief_results_get_object(all, 0) : NULL;
    ok = first && fief_object_set_value(first, group, vi(t_get_int(first, group) + 1)) && fief_realm_commit(r);
    fief_release(first);
    fief_release(all);
    fief_release(r);
    return ok ? 0 : 3;
}

typedef struct {
    int calls, errors, updates;
    int32_t code;
    char message[256];
} error_record_t;

static void on_error_watch(void *userdata, const fief_collection_changes_t *changes) {
    error_record_t *rec = userdata;
    rec->calls++;
    bool failed = false, initial = false;
    fief_error_t error;
    memset(&error, 0, sizeof error);
    E(fief_collection_changes_get_error(changes, &failed, &error));
    E(fief_collection_changes_get_flags(changes, &initial, NULL, NULL));
    if (failed) {
        rec->errors++;
        rec->code = error.code;
        snprintf(rec->message, sizeof rec->message, "%s", error.message ? error.message : "");
    } else if (!initial) {
        rec->updates++;
    }
}

/* Deliver until `r` reads version `target` and `rec` has `calls` calls. */
static void deliver_to(fief_realm_t *r, uint64_t target, const error_record_t *rec, int calls) {
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    double deadline = t_now() + 60;
    while ((t_version(r) < target || rec->calls < calls) && t_now() < deadline) {
        t_fd_readable(fd, 200);
        E(fief_realm_deliver_notifications(r, NULL));
    }
    E(t_version(r) >= target);
}

static uint64_t newest(const char *path) {
    fief_realm_t *r = t_open(path, NULL, 0);
    uint64_t version = r ? t_version(r) : 0;
    fief_release(r);
    return version;
}

TEST(results_whose_property_another_process_removed_are_told_the_error_once) {
    const char *path = t_path("error.fief");
    populate(path);
    fief_realm_t *r = open_stress(path);
    R(r);
    fief_results_t *items = fief_realm_get_objects(r, t_class(r, "Item"));
    R(items);
    fief_results_t *filtered = fief_results_filter(items, "value > 50", NULL, 0);
    R(filtered);
    error_record_t by_value = {0}, every = {0};
    fief_notification_token_t *t1 = fief_results_add_notification_callback(filtered, NULL, 0, on_error_watch, &by_value, NULL);
    fief_notification_token_t *t2 = fief_results_add_notification_callback(items, NULL, 0, on_error_watch, &every, NULL);
    R(t1 && t2);
    deliver_to(r, t_version(r), &by_value, 1);
    deliver_to(r, t_version(r), &every, 1);
    /* The migration (and its commit) in another process. */
    EQI(t_run_self("--drop-value", path, NULL), 0);
    deliver_to(r, newest(path), &by_value, 2);
    EQI(by_value.calls, 2);
    EQI(by_value.errors, 1);
    EQI(by_value.code, FIEF_ERR_INVALIDATED_RESULTS);
    E(strstr(by_value.message, "property 'Item.value'") != NULL);
    /* Later commits: nothing more for the failed results; the others go on. */
    EQI(t_run_self("--drop-value", path, NULL), 0);
    deliver_to(r, newest(path), &every, every.calls + 1);
    E(every.updates >= 1);
    EQI(every.errors, 0);
    EQI(by_value.calls, 2);
    fief_release(t1);
    fief_release(t2);
    fief_release(filtered);
    fief_release(items);
    fief_release(r);
}

static const t_case cases[] = {
    T(two_threads_and_two_processes_write_while_four_results_are_observed),
    T(a_writer_killed_mid_commit_leaves_observers_in_other_processes_exact),
    T(results_whose_property_another_process_removed_are_told_the_error_once),
};

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--writer") == 0)
        return child_writer_main(argv[2], (unsigned)atoi(argv[3]), atoi(argv[4]));
    if (argc == 3 && strcmp(argv[1], "--observe") == 0) return child_observer_main(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--drop-value") == 0) return child_drop_value_main(argv[2]);
    return T_MAIN(argc, argv, cases);
}
