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
        fief_object_t *oa = fief_object_find_by_primary_key(r, ck, vi(a), &f1);
        fief_object_t *ob = fief_object_find_by_primary_key(r, ck, vi(b), &f2);
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
        fief_object_t *o = fief_object_find_by_primary_key(r, ck, vi(0), &found);
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
    fief_object_t *o = fief_object_find_by_primary_key(r, ck, vi(0), &found);
    R(o);
    EQI(t_get_int(o, t_prop(r, "Account", "balance")), START_BALANCE + (PROCS + THREADS) * INCREMENTS);
    fief_release(o);
    fief_release(r);
}

/* ---- frozen readers while a writer moves objects between lists ------------- */

#define OWNERS 5
#define ITEMS 40
#define MOVE_DURATION 3.0 /* seconds */

/* Item(id pk); Owner(id pk, items: list of Item). */
static fief_realm_t *open_owners(void) {
    fief_class_info_t c[2];
    memset(c, 0, sizeof c);
    c[0].name = "Item";
    c[0].num_properties = 1;
    c[1].name = "Owner";
    c[1].num_properties = 2;
    fief_property_info_t item[1] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY)};
    fief_property_info_t owner[2] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                     t_prop_info("items", FIEF_TYPE_LINK, 0)};
    owner[1].collection_type = FIEF_COLLECTION_LIST;
    owner[1].link_target = "Item";
    const fief_property_info_t *pp[2] = {item, owner};
    fief_schema_t *s = fief_schema_new(c, 2, pp);
    fief_realm_t *r = t_open(g_path, s, 0);
    fief_release(s);
    return r;
}

/* Item i starts in owner i % OWNERS's list. */
static bool init_owners(void) {
    fief_realm_t *r = open_owners();
    if (!r) return false;
    fief_class_key_t item_class = t_class(r, "Item"), owner_class = t_class(r, "Owner");
    fief_property_key_t item_id = t_prop(r, "Item", "id"), owner_id = t_prop(r, "Owner", "id"), items = t_prop(r, "Owner", "items");
    bool ok = fief_realm_begin_write(r);
    fief_list_t *lists[OWNERS] = {NULL};
    for (int o = 0; ok && o < OWNERS; o++) {
        fief_value_t id = vi(o);
        fief_object_t *owner = fief_object_create(r, owner_class, &owner_id, &id, 1, FIEF_UPDATE_POLICY_ERROR);
        lists[o] = owner ? fief_object_get_list(owner, items) : NULL;
        ok = lists[o] != NULL;
        fief_release(owner);
    }
    for (int i = 0; ok && i < ITEMS; i++) {
        fief_value_t id = vi(i);
        fief_object_key_t key = -1;
        ok = fief_object_create_many(r, item_class, &item_id, 1, &id, 1, FIEF_UPDATE_POLICY_ERROR, &key);
        fief_value_t link = vlink(item_class, key);
        ok = ok && fief_list_append(lists[i % OWNERS], &link, 1);
    }
    ok = ok && fief_realm_commit(r);
    for (int o = 0; o < OWNERS; o++) fief_release(lists[o]);
    fief_release(r);
    return ok;
}

/* Move one item from a random owner's list to a random place in another's,
 * one commit per move, until the deadline.  Returns 0 or the failing step. */
static int move_items(unsigned seed) {
    fief_realm_t *r = open_owners();
    if (!r) return 1;
    fief_class_key_t owner_class = t_class(r, "Owner");
    fief_property_key_t items = t_prop(r, "Owner", "items");
    fief_list_t *lists[OWNERS];
    for (int o = 0; o < OWNERS; o++) {
        bool found = false;
        fief_object_t *owner = fief_object_find_by_primary_key(r, owner_class, vi(o), &found);
        if (!owner) return 2;
        lists[o] = fief_object_get_list(owner, items);
        fief_release(owner);
        if (!lists[o]) return 3;
    }
    long moves = 0;
    while (t_now() < g_deadline || moves < 20) {
        if (!fief_realm_begin_write(r)) return 4;
        int from = rand_r(&seed) % OWNERS, to = rand_r(&seed) % OWNERS;
        size_t n = 0, m = 0;
        if (!fief_list_count(lists[from], &n)) return 5;
        if (n > 0 && from != to) {
            size_t at = (size_t)rand_r(&seed) % n;
            fief_value_t moved;
            if (!fief_list_get(lists[from], at, &moved) || !fief_list_remove(lists[from], at)) return 6;
            if (!fief_list_count(lists[to], &m) || !fief_list_insert(lists[to], (size_t)rand_r(&seed) % (m + 1), moved)) return 7;
        }
        if (!fief_realm_commit(r)) return 8;
        moves++;
    }
    for (int o = 0; o < OWNERS; o++) fief_release(lists[o]);
    fief_release(r);
    return 0;
}

static void *move_items_thread(void *arg) {
    *(int *)arg = move_items(7);
    return NULL;
}

typedef struct graph_stats {
    long checks;
    long broken; /* invariants that did not hold */
    long errors; /* calls that failed */
} graph_stats;

/* Through `r`: every item is in exactly one owner's list, and its backlinks
 * from Owner.items name that owner once. */
static void check_graph(fief_realm_t *r, graph_stats *st) {
    fief_class_key_t item_class = t_class(r, "Item"), owner_class = t_class(r, "Owner");
    fief_property_key_t items = t_prop(r, "Owner", "items"), owner_id = t_prop(r, "Owner", "id");
    int holder[ITEMS];
    for (int i = 0; i < ITEMS; i++) holder[i] = -1;
    fief_results_t *owners = fief_realm_get_objects(r, owner_class);
    size_t n_owners = 0;
    if (!owners || !fief_results_count(owners, &n_owners) || n_owners != OWNERS) {
        st->errors++;
        fief_release(owners);
        return;
    }
    size_t total = 0;
    for (size_t o = 0; o < n_owners; o++) {
        fief_object_t *owner = fief_results_get_object(owners, o);
        fief_list_t *list = owner ? fief_object_get_list(owner, items) : NULL;
        fief_value_t id;
        size_t size = 0;
        fief_value_t got[ITEMS];
        if (!list || !fief_object_get_value(owner, owner_id, &id) || !fief_list_count(list, &size) || size > ITEMS ||
            !fief_list_get_range(list, 0, size, got)) {
            st->errors++;
        } else {
            /* the counted results of the list agree with its size */
            fief_results_t *as_results = fief_list_to_results(list);
            size_t counted = 0;
            if (!as_results || !fief_results_count(as_results, &counted)) st->errors++;
            else if (counted != size) st->broken++;
            fief_release(as_results);
            for (size_t k = 0; k < size; k++) {
                fief_object_t *item = got[k].type == FIEF_TYPE_LINK ? fief_object_get(r, item_class, got[k].u.link.object_key) : NULL;
                fief_value_t item_id;
                if (!item || !fief_object_get_value(item, t_prop(r, "Item", "id"), &item_id)) {
                    st->errors++;
                } else if (item_id.u.integer < 0 || item_id.u.integer >= ITEMS || holder[item_id.u.integer] != -1) {
                    st->broken++; /* listed twice */
                } else {
                    holder[item_id.u.integer] = (int)id.u.integer;
                    size_t index = 0;
                    bool found = false;
                    if (!fief_list_index_of(list, got[k], &index, &found)) st->errors++;
                    else if (!found || index > k) st->broken++;
                }
                fief_release(item);
            }
            total += size;
        }
        fief_release(list);
        fief_release(owner);
    }
    fief_release(owners);
    if (total != ITEMS) st->broken++;
    /* backlinks: each item's from Owner.items is the one owner listing it */
    fief_results_t *all_items = fief_realm_get_objects(r, item_class);
    size_t n_items = 0;
    if (!all_items || !fief_results_count(all_items, &n_items) || n_items != ITEMS) st->errors++;
    for (size_t i = 0; all_items && i < n_items; i++) {
        fief_object_t *item = fief_results_get_object(all_items, i);
        fief_value_t item_id;
        fief_results_t *back = item ? fief_object_get_backlinks(item, owner_class, items) : NULL;
        size_t nb = 0;
        if (!back || !fief_object_get_value(item, t_prop(r, "Item", "id"), &item_id) || !fief_results_count(back, &nb)) {
            st->errors++;
        } else if (nb != 1) {
            st->broken++;
        } else {
            fief_value_t by;
            if (!fief_results_get_values(back, 0, &owner_id, 1, &by)) st->errors++;
            else if (item_id.u.integer < 0 || item_id.u.integer >= ITEMS || by.u.integer != holder[item_id.u.integer]) st->broken++;
        }
        fief_release(back);
        fief_release(item);
    }
    fief_release(all_items);
    st->checks++;
}

/* Refresh, let the writer commit, freeze (the frozen realm shares the live
 * one's snapshot, now behind), then check the graph through both. */
static void *frozen_graph_reader(void *arg) {
    graph_stats *st = arg;
    fief_realm_t *r = open_owners();
    if (!r) {
        st->errors++;
        return NULL;
    }
    fief_class_key_t owner_class = t_class(r, "Owner");
    for (int round = 0; t_now() < g_deadline || round < 3; round++) {
        if (!fief_realm_refresh(r, NULL) || t_count_class(r, owner_class) != OWNERS) {
            st->errors++;
            break;
        }
        usleep(2000);
        fief_realm_t *f = fief_realm_freeze(r);
        if (!f) {
            st->errors++;
            break;
        }
        if (round % 2) {
            check_graph(f, st);
            check_graph(r, st);
        } else {
            check_graph(r, st);
            check_graph(f, st);
        }
        fief_release(f);
    }
    fief_release(r);
    return NULL;
}

TEST(frozen_readers_while_a_writer_moves_list_items) {
    /* Freezing a realm behind the newest commit deadlocked its list reads. */
    g_path = t_path("owners.fief");
    R(init_owners());
    g_deadline = t_now() + MOVE_DURATION;
    fflush(NULL);
    pid_t writer = fork();
    R(writer >= 0);
    if (writer == 0) {
        alarm(40);
        _exit(move_items(42));
    }
    alarm(60);
    enum { READERS = 2 };
    pthread_t th[READERS], w;
    graph_stats st[READERS];
    memset(st, 0, sizeof st);
    int thread_writer_rc = -1;
    R(pthread_create(&w, NULL, move_items_thread, &thread_writer_rc) == 0);
    for (int i = 0; i < READERS; i++) R(pthread_create(&th[i], NULL, frozen_graph_reader, &st[i]) == 0);
    for (int i = 0; i < READERS; i++) pthread_join(th[i], NULL);
    pthread_join(w, NULL);
    int status = 0;
    waitpid(writer, &status, 0);
    alarm(0);
    E(WIFEXITED(status));
    EQI(WEXITSTATUS(status), 0);
    EQI(thread_writer_rc, 0);
    for (int i = 0; i < READERS; i++) {
        printf("reader %d: %ld checks, %ld broken, %ld errors\n", i, st[i].checks, st[i].broken, st[i].errors);
        EQI(st[i].broken, 0);
        EQI(st[i].errors, 0);
        E(st[i].checks >= 6);
    }
    /* and the final graph */
    fief_realm_t *r = open_owners();
    R(r);
    graph_stats fin = {0, 0, 0};
    check_graph(r, &fin);
    EQI(fin.broken, 0);
    EQI(fin.errors, 0);
    fief_release(r);
}

static const t_case cases[] = {T(readers_and_writer), T(two_process_writers), T(frozen_readers_while_a_writer_moves_list_items)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
