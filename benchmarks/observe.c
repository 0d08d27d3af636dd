/* observe.c - the notification benchmarks (issue 22), #included by bench.c.
 * Ratios within Fief, same run (docs/design.md, "Notifications"):
 *
 *   notify_latency    commit to callback, one observer in this process and
 *                     one in another (this program run again), each over
 *                     OBS_COMMITS 1-object commits: median and p99, each
 *                     divided by the median time of the commit itself
 *                     (targets: median <= 1x in-process, <= 3x
 *                     cross-process; p99 reported)
 *   changeset_sorted  the change set of "age > 20 SORT(name)" over N
 *                     objects after 1 object changes (and after 10,000
 *                     change): the larger of its commit-to-callback time
 *                     and the CPU time the process's other threads (the
 *                     notification worker) spent from the commit to the
 *                     callback, divided by the time of that query and
 *                     sort on a fresh results handle (targets 0.05 and
 *                     0.5).  The worker starts at the commit while the
 *                     committing thread still ends it, so the latency
 *                     alone can hide the work behind the commit's end.
 *   commit_observed   a 1-object commit with 10 observers registered (3
 *                     results, a list of the 6 objects the commits change,
 *                     6 objects) divided by the same commit with none
 *                     (target 1.3)
 *   observed_file     the file's size under a steady load of 1-object
 *                     commits (OBS_FILE_COMMITS) while an observer on
 *                     another thread takes OBS_SLOW_MS per callback: the
 *                     size at start, largest, at the end, after each
 *                     tenth, and the growth over the last half (reported;
 *                     bounded means the last half adds nothing)
 *
 * Latencies run from the end of fief_realm_commit to the start of the
 * callback (CLOCK_MONOTONIC, comparable across processes); the observing
 * thread waits on the realm's notification fd and then calls
 * fief_realm_deliver_notifications, as a host's event loop does. */

#include <poll.h>
#include <sys/syscall.h>
#include <pthread.h>

enum { OOP_NOTIFY_LATENCY, OOP_CHANGESET_SORTED, OOP_COMMIT_OBSERVED, OOP_OBSERVED_FILE, NUM_OOPS };
static const char *const OOP_NAMES[NUM_OOPS] = {"notify_latency", "changeset_sorted", "commit_observed",
                                                "observed_file"};
#define OBS_COMMITS 1000
#define OBS_SLOW_MS 20
#define OBS_MANY 10000
#define OBS_FILE_COMMITS 50000

/* The benchmark's class: Item {name string, age int, score int}. */
typedef struct {
    fief_realm_t *realm;
    fief_class_key_t cls;
    fief_property_key_t name, age, score, friends;
    char path[4200];
} ObsRealm;

static void obs_open(ObsRealm *o, const char *path) {
    fief_property_info_t props[4];
    memset(props, 0, sizeof props);
    props[0].name = "name"; props[0].type = FIEF_TYPE_STRING;
    props[1].name = "age"; props[1].type = FIEF_TYPE_INT;
    props[2].name = "score"; props[2].type = FIEF_TYPE_INT;
    props[3].name = "friends"; props[3].type = FIEF_TYPE_LINK; props[3].link_target = "Item";
    props[3].collection_type = FIEF_COLLECTION_LIST;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Item";
    cls.num_properties = 4;
    const fief_property_info_t *const class_props[1] = {props};
    snprintf(o->path, sizeof o->path, "%s", path);
    o->realm = bench_realm_open(path, &cls, 1, class_props);
    const char *const names[4] = {"name", "age", "score", "friends"};
    fief_property_key_t keys[4];
    o->cls = bench_class_keys(o->realm, "Item", names, keys, 4);
    o->name = keys[0];
    o->age = keys[1];
    o->score = keys[2];
    o->friends = keys[3];
}

/* A name of 8 letters from `seed`. */
static void obs_name(uint64_t seed, char out[8]) {
    for (int i = 0; i < 8; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        out[i] = (char)('a' + (seed >> 33) % 26);
    }
}

/* `count` items (ages i % 100, names from i + salt), their keys into `keys`. */
static void obs_fill(ObsRealm *o, size_t count, uint64_t salt, fief_object_key_t *keys) {
    fief_value_t *values = malloc(count * 3 * sizeof *values);
    char *names = malloc(count * 8 + 1);
    CHECK(values && names, "out of memory");
    for (size_t i = 0; i < count; i++) {
        obs_name(i + salt, names + i * 8);
        values[3 * i] = value_string(names + i * 8, 8);
        values[3 * i + 1] = value_int((int64_t)(i % 100));
        values[3 * i + 2] = value_int(0);
    }
    const fief_property_key_t props[3] = {o->name, o->age, o->score};
    FB(fief_realm_begin_write(o->realm));
    FB(fief_object_create_many(o->realm, o->cls, props, 3, values, count, FIEF_UPDATE_POLICY_ERROR, keys));
    FB(fief_realm_commit(o->realm));
    free(values);
    free(names);
}

/* Set property `prop` of object `key` (inside a write). */
static void obs_set(ObsRealm *o, fief_object_key_t key, fief_property_key_t prop, fief_value_t value) {
    fief_object_t *object;
    FH(object, fief_object_get(o->realm, o->cls, key));
    FB(fief_object_set_value(object, prop, value));
    FB(fief_release(object));
}

/* A callback's probe: calls, and when the last one began. */
typedef struct {
    int calls;
    double at_ms;
    int write_fd; /* the cross-process child: where to send the time */
} ObsProbe;

static void obs_on_changes(void *userdata, const fief_collection_changes_t *changes) {
    (void)changes;
    ObsProbe *p = userdata;
    p->at_ms = now_ms();
    p->calls++;
}

static void obs_on_object(void *userdata, const fief_object_changes_t *changes) {
    (void)changes;
    ObsProbe *p = userdata;
    p->at_ms = now_ms();
    p->calls++;
}

/* Deliver on this thread until `probe` had more than `before` calls. */
static void obs_deliver_until(fief_realm_t *realm, ObsProbe *probe, int before) {
    int fd = -1;
    FB(fief_realm_get_notification_fd(realm, &fd));
    double deadline = now_ms() + 60000;
    while (probe->calls <= before) {
        CHECK(now_ms() < deadline, "observe: no callback within 60 s (%d calls)", probe->calls);
        struct pollfd pfd = {fd, POLLIN, 0};
        poll(&pfd, 1, 1000);
        FB(fief_realm_deliver_notifications(realm, NULL));
    }
}

/* Set property `prop` of object `key` to `value`, in a write of its own;
 * returns the time of begin_write ... commit. */
static double obs_commit_one(ObsRealm *o, fief_object_key_t key, fief_property_key_t prop, fief_value_t value) {
    double t0 = now_ms();
    FB(fief_realm_begin_write(o->realm));
    obs_set(o, key, prop, value);
    FB(fief_realm_commit(o->realm));
    return now_ms() - t0;
}

static double obs_percentile(double *v, int n, double p) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

static double obs_median(double *v, int n) { return obs_percentile(v, n, 0.5); }


/* The cross-process observer: this program run as `--observe-child PATH FD`.
 * Sends the time of each callback (a double) on FD; ends when FD closes. */
static void obs_child_callback(void *userdata, const fief_collection_changes_t *changes) {
    (void)changes;
    ObsProbe *p = userdata;
    double at = now_ms();
    p->calls++;
    if (write(p->write_fd, &at, sizeof at) != (ssize_t)sizeof at) _exit(0); /* the parent went */
}

static int observe_child_main(const char *path, int write_fd) {
    ObsRealm o;
    obs_open(&o, path);
    fief_results_t *all;
    FH(all, fief_realm_get_objects(o.realm, o.cls));
    ObsProbe probe = {0, 0, write_fd};
    fief_notification_token_t *token;
    FH(token, fief_results_add_notification_callback(all, NULL, 0, obs_child_callback, &probe, NULL));
    int fd = -1;
    FB(fief_realm_get_notification_fd(o.realm, &fd));
    for (;;) {
        struct pollfd pfd[2] = {{fd, POLLIN, 0}, {write_fd, 0, 0}};
        poll(pfd, 2, 1000);
        if (pfd[1].revents & (POLLERR | POLLHUP)) break;
        FB(fief_realm_deliver_notifications(o.realm, NULL));
    }
    fief_release(token);
    fief_release(all);
    fief_release(o.realm);
    return 0;
}

typedef struct {
    double commit_ms, in_median, in_p99, cross_median, cross_p99;
} LatencyResult;

static LatencyResult obs_notify_latency(int commits) {
    ObsRealm o;
    char path[4200];
    snprintf(path, sizeof path, "%s/observe-latency.realm", g_tmpdir);
    obs_open(&o, path);
    fief_object_key_t key;
    obs_fill(&o, 1, 0, &key);

    int pipe_fds[2];
    CHECK(pipe(pipe_fds) == 0, "pipe: %s", strerror(errno));
    pid_t child = fork();
    CHECK(child >= 0, "fork: %s", strerror(errno));
    if (child == 0) {
        close(pipe_fds[0]);
        char fd_text[16];
        snprintf(fd_text, sizeof fd_text, "%d", pipe_fds[1]);
        execl("/proc/self/exe", "fief-bench", "--observe-child", path, fd_text, (char *)NULL);
        _exit(127);
    }
    close(pipe_fds[1]);
    /* The child's initial call: it observes from here on. */
    double at;
    CHECK(read(pipe_fds[0], &at, sizeof at) == (ssize_t)sizeof at, "observe: the child observer did not start");

    fief_results_t *all;
    FH(all, fief_realm_get_objects(o.realm, o.cls));
    ObsProbe probe = {0, 0, -1};
    fief_notification_token_t *token;
    FH(token, fief_results_add_notification_callback(all, NULL, 0, obs_on_changes, &probe, NULL));
    obs_deliver_until(o.realm, &probe, 0);

    double *commit = malloc((size_t)commits * sizeof *commit);
    double *in = malloc((size_t)commits * sizeof *in);
    double *cross = malloc((size_t)commits * sizeof *cross);
    CHECK(commit && in && cross, "out of memory");
    for (int i = 0; i < commits; i++) {
        int before = probe.calls;
        commit[i] = obs_commit_one(&o, key, o.age, value_int(i + 1));
        double end = now_ms();
        obs_deliver_until(o.realm, &probe, before);
        in[i] = probe.at_ms - end;
        CHECK(read(pipe_fds[0], &at, sizeof at) == (ssize_t)sizeof at, "observe: the child observer ended");
        cross[i] = at - end;
    }
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "observe: the child observer failed (%d)", status);
    LatencyResult r;
    r.commit_ms = obs_median(commit, commits);
    r.in_p99 = obs_percentile(in, commits, 0.99);
    r.in_median = obs_median(in, commits);
    r.cross_p99 = obs_percentile(cross, commits, 0.99);
    r.cross_median = obs_median(cross, commits);
    free(commit);
    free(in);
    free(cross);
    FB(fief_release(token));
    FB(fief_release(all));
    bench_realm_close_and_delete(o.realm, o.path);
    return r;
}

typedef struct {
    double scratch_ms, one_ms, many_ms;
    double one_latency_ms, many_latency_ms, one_cpu_ms, many_cpu_ms;
} SortedResult;

/* CPU time (ms) the threads of this process other than the calling one
 * have run (/proc/self/task/<tid>/schedstat); 0 where /proc has none. */
static double obs_other_threads_cpu_ms(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    long self = (long)syscall(SYS_gettid);
    double total_ns = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || atol(e->d_name) == self) continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        double ns = 0;
        if (fscanf(f, "%lf", &ns) == 1) total_ns += ns;
        fclose(f);
    }
    closedir(d);
    return total_ns / 1e6;
}

/* Query and sort on a fresh results handle, every row counted.  The query's
 * text differs each round (an always-true bound), so that no cache of
 * evaluated queries answers it. */
static double obs_scratch(ObsRealm *o, fief_results_t *all, size_t expected, int round) {
    char query[64];
    snprintf(query, sizeof query, "age > 20 AND age < %d SORT(name ASC)", 1000 + round);
    double t0 = now_ms();
    fief_results_t *r;
    FH(r, fief_results_filter(all, query, NULL, 0));
    size_t count = 0;
    FB(fief_results_count(r, &count));
    fief_object_key_t first;
    FB(fief_results_get_key(r, 0, &first));
    double t = now_ms() - t0;
    CHECK(count == expected, "changeset_sorted: %zu rows, expected %zu", count, expected);
    FB(fief_release(r));
    (void)o;
    return t;
}

static SortedResult obs_changeset_sorted(size_t n, int rounds) {
    ObsRealm o;
    char path[4200];
    snprintf(path, sizeof path, "%s/observe-sorted.realm", g_tmpdir);
    obs_open(&o, path);
    fief_object_key_t *keys = malloc(n * sizeof *keys);
    CHECK(keys, "out of memory");
    obs_fill(&o, n, 7, keys);
    size_t expected = 0;
    for (size_t i = 0; i < n; i++) expected += i % 100 > 20;
    fief_results_t *all, *sorted;
    FH(all, fief_realm_get_objects(o.realm, o.cls));
    FH(sorted, fief_results_filter(all, "age > 20 SORT(name ASC)", NULL, 0));
    ObsProbe probe = {0, 0, -1};
    fief_notification_token_t *token;
    FH(token, fief_results_add_notification_callback(sorted, NULL, 0, obs_on_changes, &probe, NULL));
    obs_deliver_until(o.realm, &probe, 0);

    double *scratch = malloc((size_t)rounds * sizeof *scratch);
    double *one = malloc((size_t)rounds * sizeof *one);
    double *many = malloc((size_t)rounds * sizeof *many);
    double *timings = malloc(4 * (size_t)rounds * sizeof *timings); /* latencies and CPU times, 1 then many */
    CHECK(scratch && one && many && timings, "out of memory");
    int many_count = (int)(n < OBS_MANY ? n : OBS_MANY);
    fief_value_t *names = malloc((size_t)many_count * sizeof *names);
    char *text = malloc((size_t)many_count * 8);
    CHECK(names && text, "out of memory");
    for (int r = 0; r < rounds; r++) {
        scratch[r] = obs_scratch(&o, all, expected, r);
        /* One object renamed (it moves in the sort). */
        char name[8];
        obs_name((uint64_t)r * 7919 + 1000003, name);
        int before = probe.calls;
        double cpu = obs_other_threads_cpu_ms();
        obs_commit_one(&o, keys[((size_t)r * 100 + 50) % n], o.name, value_string(name, 8)); /* age 50: in the results */
        double end = now_ms();
        obs_deliver_until(o.realm, &probe, before);
        timings[r] = probe.at_ms - end;
        timings[rounds + r] = obs_other_threads_cpu_ms() - cpu;
        one[r] = timings[r] > timings[rounds + r] ? timings[r] : timings[rounds + r];
        /* OBS_MANY objects renamed in one commit. */
        FB(fief_realm_begin_write(o.realm));
        for (int i = 0; i < many_count; i++) {
            obs_name((uint64_t)(r + 1) * 1000003 + (uint64_t)i, text + i * 8);
            names[i] = value_string(text + i * 8, 8);
            size_t k = ((size_t)i * 9973 + (size_t)r) % n;
            obs_set(&o, keys[k], o.name, names[i]);
        }
        before = probe.calls;
        cpu = obs_other_threads_cpu_ms();
        FB(fief_realm_commit(o.realm));
        end = now_ms();
        obs_deliver_until(o.realm, &probe, before);
        timings[2 * rounds + r] = probe.at_ms - end;
        timings[3 * rounds + r] = obs_other_threads_cpu_ms() - cpu;
        many[r] = timings[2 * rounds + r] > timings[3 * rounds + r] ? timings[2 * rounds + r] : timings[3 * rounds + r];
    }
    size_t count = 0;
    FB(fief_results_count(sorted, &count));
    CHECK(count == expected, "changeset_sorted: the observed results have %zu rows, expected %zu", count, expected);
    SortedResult result = {obs_median(scratch, rounds), obs_median(one, rounds), obs_median(many, rounds),
                           obs_median(timings, rounds), obs_median(timings + 2 * rounds, rounds),
                           obs_median(timings + rounds, rounds), obs_median(timings + 3 * rounds, rounds)};
    free(timings);
    free(scratch);
    free(one);
    free(many);
    free(names);
    free(text);
    FB(fief_release(token));
    FB(fief_release(sorted));
    FB(fief_release(all));
    free(keys);
    bench_realm_close_and_delete(o.realm, o.path);
    return result;
}

typedef struct {
    double observed_ms, bare_ms;
} ObservedResult;

static ObservedResult obs_commit_observed(size_t n, int commits) {
    ObsRealm o;
    char path[4200];
    snprintf(path, sizeof path, "%s/observe-commit.realm", g_tmpdir);
    obs_open(&o, path);
    fief_object_key_t *keys = malloc(n * sizeof *keys);
    CHECK(keys, "out of memory");
    obs_fill(&o, n, 11, keys);
    /* The last item's friends: the six objects the commits change. */
    fief_object_t *owner;
    fief_list_t *friends;
    FH(owner, fief_object_get(o.realm, o.cls, keys[n - 1]));
    FH(friends, fief_object_get_list(owner, o.friends));
    FB(fief_realm_begin_write(o.realm));
    for (int i = 0; i < 6; i++) {
        fief_value_t link;
        memset(&link, 0, sizeof link);
        link.type = FIEF_TYPE_LINK;
        link.u.link.class_key = o.cls;
        link.u.link.object_key = keys[(size_t)i * 101 % n];
        FB(fief_list_append(friends, &link, 1));
    }
    FB(fief_realm_commit(o.realm));
    double *bare = malloc((size_t)commits * sizeof *bare);
    double *observed = malloc((size_t)commits * sizeof *observed);
    CHECK(bare && observed, "out of memory");
    /* None: the same commits, alternated in blocks with the observed ones below. */
    fief_results_t *all;
    FH(all, fief_realm_get_objects(o.realm, o.cls));
    const char *const queries[3] = {"TRUEPREDICATE", "age > 50", "age < 10 SORT(name ASC)"};
    fief_results_t *results[3];
    ObsProbe probes[10];
    memset(probes, 0, sizeof probes);
    fief_notification_token_t *tokens[10];
    fief_object_t *objects[6];
    int half = commits / 2;
    for (int block = 0; block < 2; block++) {
        /* Block 0: none, then observed; block 1: observed, then none. */
        for (int phase = 0; phase < 2; phase++) {
            int with = (phase == block);
            if (with) {
                for (int i = 0; i < 3; i++) {
                    FH(results[i], fief_results_filter(all, queries[i], NULL, 0));
                    FH(tokens[i], fief_results_add_notification_callback(results[i], NULL, 0, obs_on_changes,
                                                                         &probes[i], NULL));
                }
                FH(tokens[3], fief_list_add_notification_callback(friends, NULL, 0, obs_on_changes, &probes[3], NULL));
                for (int i = 0; i < 6; i++) {
                    FH(objects[i], fief_object_get(o.realm, o.cls, keys[(size_t)i * 101 % n]));
                    FH(tokens[4 + i], fief_object_add_notification_callback(objects[i], NULL, 0, obs_on_object,
                                                                            &probes[4 + i], NULL));
                }
                obs_deliver_until(o.realm, &probes[0], 0);
            }
            for (int i = 0; i < half / 2; i++) {
                int slot = block * (half / 2) + i;
                /* Each commit changes one observed object (the first results' row). */
                int before = probes[0].calls;
                double t = obs_commit_one(&o, keys[(size_t)(i % 6) * 101 % n], o.score,
                                          value_int(block * 100000 + phase * 10000 + i + 1));
                if (with) {
                    observed[slot] = t;
                    obs_deliver_until(o.realm, &probes[0], before);
                } else {
                    bare[slot] = t;
                }
            }
            if (with) {
                for (int i = 0; i < 10; i++) FB(fief_release(tokens[i]));
                for (int i = 0; i < 3; i++) FB(fief_release(results[i]));
                for (int i = 0; i < 6; i++) FB(fief_release(objects[i]));
                memset(probes, 0, sizeof probes);
            }
        }
    }
    FB(fief_release(friends));
    FB(fief_release(owner));
    ObservedResult r = {obs_median(observed, half), obs_median(bare, half)};
    free(bare);
    free(observed);
    FB(fief_release(all));
    free(keys);
    bench_realm_close_and_delete(o.realm, o.path);
    return r;
}

/* The slow observer: its own realm on its own thread. */
typedef struct {
    const char *path;
    volatile int stop;
    int calls;
} SlowObserver;

static void obs_slow_callback(void *userdata, const fief_collection_changes_t *changes) {
    (void)changes;
    SlowObserver *s = userdata;
    s->calls++;
    struct timespec pause = {0, OBS_SLOW_MS * 1000000L};
    nanosleep(&pause, NULL);
}

static void *obs_slow_thread(void *arg) {
    SlowObserver *s = arg;
    ObsRealm o;
    obs_open(&o, s->path);
    fief_results_t *all;
    FH(all, fief_realm_get_objects(o.realm, o.cls));
    fief_notification_token_t *token;
    FH(token, fief_results_add_notification_callback(all, NULL, 0, obs_slow_callback, s, NULL));
    int fd = -1;
    FB(fief_realm_get_notification_fd(o.realm, &fd));
    while (!s->stop) {
        struct pollfd pfd = {fd, POLLIN, 0};
        poll(&pfd, 1, 100);
        FB(fief_realm_deliver_notifications(o.realm, NULL));
    }
    FB(fief_release(token));
    FB(fief_release(all));
    FB(fief_release(o.realm));
    return NULL;
}

typedef struct {
    long long start_bytes, max_bytes, end_bytes;
    int commits, slow_calls;
    long long tenths[10]; /* the size after each tenth of the commits */
} FileResult;

static long long obs_file_size(const char *path) {
    struct stat st;
    CHECK(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
    return (long long)st.st_size;
}

static FileResult obs_observed_file(size_t n, int commits) {
    ObsRealm o;
    char path[4200];
    snprintf(path, sizeof path, "%s/observe-file.realm", g_tmpdir);
    obs_open(&o, path);
    fief_object_key_t *keys = malloc(n * sizeof *keys);
    CHECK(keys, "out of memory");
    obs_fill(&o, n, 13, keys);
    SlowObserver slow = {path, 0, 0};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, obs_slow_thread, &slow) == 0, "pthread_create");
    FileResult r;
    memset(&r, 0, sizeof r);
    r.start_bytes = obs_file_size(path);
    r.commits = commits;
    r.max_bytes = r.start_bytes;
    for (int i = 0; i < commits; i++) {
        obs_commit_one(&o, keys[(size_t)i * 31 % n], o.score, value_int(i + 1));
        if (i % 50 == 0) {
            long long size = obs_file_size(path);
            if (size > r.max_bytes) r.max_bytes = size;
        }
        if (commits >= 10 && (i + 1) % (commits / 10) == 0 && (i + 1) / (commits / 10) <= 10)
            r.tenths[(i + 1) / (commits / 10) - 1] = obs_file_size(path);
    }
    slow.stop = 1;
    pthread_join(thread, NULL);
    r.end_bytes = obs_file_size(path);
    if (r.end_bytes > r.max_bytes) r.max_bytes = r.end_bytes;
    r.slow_calls = slow.calls;
    CHECK(slow.calls > 0, "observed_file: the slow observer was never called");
    free(keys);
    bench_realm_close_and_delete(o.realm, o.path);
    return r;
}

static void run_observe(int check_only, size_t n) {
    const char *env = getenv("FIEF_BENCH_OBSERVE");
    if (env && strcmp(env, "0") == 0) return;
    const char *ops_env = getenv("FIEF_BENCH_OPS");
    int enabled[NUM_OOPS], any = 0;
    for (int op = 0; op < NUM_OOPS; op++) any |= enabled[op] = op_named(ops_env, OOP_NAMES[op]);
    if (!any) return;
    int commits = check_only ? 20 : OBS_COMMITS;
    int rounds = check_only ? 1 : 11;
    char summary[1024] = "";
    size_t off = 0;
    int met = 0, compared = 0;
#define OBS_TARGET(name, ratio, target)                                                                     \
    do {                                                                                                    \
        int ok_ = (ratio) <= (target);                                                                      \
        met += ok_;                                                                                         \
        compared++;                                                                                         \
        off += (size_t)snprintf(summary + off, sizeof summary - off, " %s %.3f%s%.2f %s;", (name), (ratio), \
                                ok_ ? "<=" : ">", (double)(target), ok_ ? "MET" : "MISSED");               \
    } while (0)
    if (!check_only) printf("%-26s %10s %12s %12s %10s\n", "observe op", "N", "fief_ms", "base_ms", "ratio");
    if (enabled[OOP_NOTIFY_LATENCY]) {
        LatencyResult r = obs_notify_latency(commits);
        if (check_only) {
            printf("check %-14s ok  (commit %.3f ms, in-process %.3f ms, cross-process %.3f ms)\n",
                   OOP_NAMES[OOP_NOTIFY_LATENCY], r.commit_ms, r.in_median, r.cross_median);
        } else {
            printf("%-26s %10d %12.3f %12.3f %10.3f\n", "notify_latency in median", commits, r.in_median,
                   r.commit_ms, r.in_median / r.commit_ms);
            printf("%-26s %10d %12.3f %12.3f %10.3f\n", "notify_latency in p99", commits, r.in_p99, r.commit_ms,
                   r.in_p99 / r.commit_ms);
            printf("%-26s %10d %12.3f %12.3f %10.3f\n", "notify_latency cross median", commits, r.cross_median,
                   r.commit_ms, r.cross_median / r.commit_ms);
            printf("%-26s %10d %12.3f %12.3f %10.3f\n", "notify_latency cross p99", commits, r.cross_p99,
                   r.commit_ms, r.cross_p99 / r.commit_ms);
            OBS_TARGET("notify_latency_in", r.in_median / r.commit_ms, 1.0);
            OBS_TARGET("notify_latency_cross", r.cross_median / r.commit_ms, 3.0);
        }
    }
    if (enabled[OOP_CHANGESET_SORTED]) {
        SortedResult r = obs_changeset_sorted(n, rounds);
        if (check_only) {
            printf("check %-14s ok  (scratch %.3f ms, 1 changed %.3f ms, %d changed %.3f ms)\n",
                   OOP_NAMES[OOP_CHANGESET_SORTED], r.scratch_ms, r.one_ms, OBS_MANY, r.many_ms);
        } else {
            printf("%-26s %10zu %12.3f %12.3f %10.3f\n", "changeset_sorted 1", n, r.one_ms, r.scratch_ms,
                   r.one_ms / r.scratch_ms);
            printf("%-26s %10zu %12.3f %12.3f %10.3f\n", "changeset_sorted 10000", n, r.many_ms, r.scratch_ms,
                   r.many_ms / r.scratch_ms);
            printf("  (medians: 1 changed latency %.3f ms, worker CPU %.3f ms; 10000 changed latency %.3f ms, worker CPU %.3f ms)\n",
                   r.one_latency_ms, r.one_cpu_ms, r.many_latency_ms, r.many_cpu_ms);
            OBS_TARGET("changeset_sorted_1", r.one_ms / r.scratch_ms, 0.05);
            OBS_TARGET("changeset_sorted_10000", r.many_ms / r.scratch_ms, 0.5);
        }
    }
    if (enabled[OOP_COMMIT_OBSERVED]) {
        ObservedResult r = obs_commit_observed(n, commits);
        if (check_only) {
            printf("check %-14s ok  (observed %.3f ms, none %.3f ms)\n", OOP_NAMES[OOP_COMMIT_OBSERVED],
                   r.observed_ms, r.bare_ms);
        } else {
            printf("%-26s %10zu %12.3f %12.3f %10.3f\n", "commit_observed", n, r.observed_ms, r.bare_ms,
                   r.observed_ms / r.bare_ms);
            OBS_TARGET("commit_observed", r.observed_ms / r.bare_ms, 1.3);
        }
    }
    if (enabled[OOP_OBSERVED_FILE]) {
        FileResult r = obs_observed_file(n, check_only ? 50 : OBS_FILE_COMMITS);
        if (check_only) {
            printf("check %-14s ok  (%d commits: %lld -> max %lld bytes)\n", OOP_NAMES[OOP_OBSERVED_FILE], r.commits,
                   r.start_bytes, r.max_bytes);
        } else {
            printf("%-26s %10zu %12.3f %12.3f %10.3f  (MiB: max, start; end %.2f, last half %+.2f; %d commits, "
                   "%d slow calls; after each tenth",
                   "observed_file", n, mib(r.max_bytes), mib(r.start_bytes), (double)r.max_bytes / (double)r.start_bytes,
                   mib(r.end_bytes), mib(r.end_bytes) - mib(r.tenths[4]), r.commits, r.slow_calls);
            for (int t = 0; t < 10; t++) printf(" %.2f", mib(r.tenths[t]));
            printf(")\n");
        }
    }
#undef OBS_TARGET
    if (check_only) return;
    if (off) summary[off - 1] = 0;
    printf("observe targets: %d/%d met:%s\n", met, compared, summary);
}
