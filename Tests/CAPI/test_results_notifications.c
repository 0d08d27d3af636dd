/* Results notifications through the C ABI: the initial call, then the rows
 * deleted, inserted and modified by commits of this realm, of another
 * thread and of another process; sorted results; key paths (an unknown one
 * named in the error); the change handle valid during the callback only;
 * registrations refused with a code and the caller keeping `userdata`.
 * Timeouts are liveness bounds, not timings.
 *
 * Child processes are this program run again (`test_results_notifications
 * --insert PATH VALUE`: one NoPk object with `value`). */
#include "fief_test.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>


#define MAX_ROWS 64

/* What the callbacks saw: the last change set, copied out. */
typedef struct {
    int calls;
    int frees;
    bool initial;
    size_t counts[4]; /* deletions, insertions, modifications, moves */
    size_t del[MAX_ROWS], ins[MAX_ROWS], mod[MAX_ROWS], mod_new[MAX_ROWS];
    size_t ranges[4];
    fief_index_range_t del_ranges[MAX_ROWS];
    const fief_collection_changes_t *kept; /* the handle, used after the call */
    size_t rows_in_call;                    /* the results' count read inside the call */
    const fief_results_t *results;
} seen_t;

static void on_changes(void *userdata, const fief_collection_changes_t *changes) {
    seen_t *s = userdata;
    s->calls++;
    s->kept = changes;
    bool cleared = true, root = true;
    E(fief_collection_changes_get_flags(changes, &s->initial, &cleared, &root));
    E(!cleared && !root);
    E(fief_collection_changes_get_counts(changes, &s->counts[0], &s->counts[1], &s->counts[2], &s->counts[3]));
    E(fief_collection_changes_get_indices(changes, MAX_ROWS, s->del, s->ins, s->mod, s->mod_new, NULL, NULL));
    E(fief_collection_changes_get_num_ranges(changes, &s->ranges[0], &s->ranges[1], &s->ranges[2], &s->ranges[3]));
    E(fief_collection_changes_get_ranges(changes, MAX_ROWS, s->del_ranges, NULL, NULL, NULL));
    bool failed = true;
    E(fief_collection_changes_get_error(changes, &failed, NULL));
    E(!failed);
    if (s->results) s->rows_in_call = t_count(s->results);
}

static void count_free(void *userdata) { ((seen_t *)userdata)->frees++; }

/* Deliver until the next callback comes. */
static void deliver_until_called(fief_realm_t *r, seen_t *s) { t_deliver_until(r, &s->calls, s->calls + 1); }

static fief_realm_t *open_nopk(const char *path) {
    fief_schema_t *schema = t_std_schema();
    fief_realm_t *r = t_open(path, schema, 0);
    fief_release(schema);
    return r;
}

static bool insert_value(fief_realm_t *r, int64_t value) {
    fief_property_key_t p = t_prop(r, "NoPk", "value");
    fief_value_t v = vi(value);
    if (!fief_realm_begin_write(r)) return false;
    fief_object_t *o = fief_object_create(r, t_class(r, "NoPk"), &p, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    if (!o) return false;
    fief_release(o);
    return fief_realm_commit(r);
}

/* Set `property` of the object at `index` of `results` (in a write). */
static void set_at(fief_realm_t *r, const fief_results_t *results, size_t index, const char *property, fief_value_t v) {
    E(fief_realm_begin_write(r));
    fief_object_t *o = fief_results_get_object(results, index);
    R(o);
    E(fief_object_set_value(o, t_prop(r, "NoPk", property), v));
    fief_release(o);
    E(fief_realm_commit(r));
}

static int child_insert_main(const char *path, int64_t value) {
    alarm(60);
    fief_realm_t *r = open_nopk(path);
    if (!r) return 2;
    if (!insert_value(r, value)) return 3;
    fief_release(r);
    return 0;
}

typedef struct {
    const char *path;
    int64_t value;
} insert_args;

static void *insert_on_thread(void *arg) {
    insert_args *a = arg;
    fief_realm_t *r = open_nopk(a->path);
    if (!r) return NULL;
    E(insert_value(r, a->value));
    fief_release(r);
    return NULL;
}

TEST(initial_then_this_realms_and_another_threads_and_another_processes_commits) {
    const char *path = t_path("rn.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    for (int i = 0; i < 4; i++) E(insert_value(r, i * 10)); /* 0 10 20 30 */
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "NoPk"));
    R(all);
    fief_results_t *res = fief_results_filter(all, "value >= 10", NULL, 0);
    R(res);
    seen_t s = {0};
    s.results = res;
    fief_notification_token_t *tok = fief_results_add_notification_callback(res, NULL, 0, on_changes, &s, count_free);
    R(tok);
    EQI(s.calls, 0); /* nothing before the host delivers */
    deliver_until_called(r, &s);
    E(s.initial);
    EQU(s.counts[0] + s.counts[1] + s.counts[2] + s.counts[3], 0);
    EQU(s.rows_in_call, 3);

    /* This realm's commit: an insertion at the end. */
    E(insert_value(r, 50));
    deliver_until_called(r, &s);
    E(!s.initial);
    EQU(s.counts[1], 1);
    EQU(s.ins[0], 3);
    EQU(s.rows_in_call, 4);
    /* Outside the filter, then leaving it: a deletion (ranges too). */
    set_at(r, res, 0, "value", vi(1));
    deliver_until_called(r, &s);
    EQU(s.counts[0], 1);
    EQU(s.del[0], 0);
    EQU(s.ranges[0], 1);
    EQU(s.del_ranges[0].from, 0);
    EQU(s.del_ranges[0].to, 1);
    /* A modification, old and new index. */
    set_at(r, res, 1, "label", vs("x"));
    deliver_until_called(r, &s);
    EQU(s.counts[2], 1);
    EQU(s.mod[0], 1);
    EQU(s.mod_new[0], 1);

    /* Another thread. */
    insert_args a = {path, 60};
    t_run_thread(insert_on_thread, &a);
    deliver_until_called(r, &s);
    EQU(s.counts[1], 1);
    EQU(s.ins[0], 3);

    /* Another process. */
    EQI(t_run_self("--insert", path, "70"), 0);
    deliver_until_called(r, &s);
    EQU(s.counts[1], 1);
    EQU(s.ins[0], 4);
    EQU(s.rows_in_call, 5);

    /* The handle of a finished call is gone: a code, not a crash. */
    size_t n = 0;
    EERR(fief_collection_changes_get_counts(s.kept, &n, NULL, NULL, NULL), FIEF_ERR_INVALID_HANDLE);

    E(fief_release(tok));
    EQI(s.frees, 1);
    fief_release(res);
    fief_release(all);
    fief_release(r);
}

TEST(sorted_results_and_several_commits_in_one_delivery) {
    const char *path = t_path("rn.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    for (int i = 0; i < 4; i++) E(insert_value(r, i * 10));
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "NoPk"));
    fief_sort_descriptor_t desc = {"value", false};
    fief_results_t *sorted = fief_results_sort(all, &desc, 1);
    R(sorted);
    seen_t s = {0};
    fief_notification_token_t *tok = fief_results_add_notification_callback(sorted, NULL, 0, on_changes, &s, NULL);
    R(tok);
    deliver_until_called(r, &s);
    E(s.initial);
    /* 30 20 10 0: the last becomes the first; then a new middle one.  Two
     * commits through another realm of the file (a write through `r` would
     * deliver what is pending first, as RealmSwift's beginWrite). */
    fief_realm_t *writer = open_nopk(path);
    R(writer);
    fief_results_t *writer_sorted = fief_results_resolve_in(sorted, writer);
    R(writer_sorted);
    set_at(writer, writer_sorted, 3, "value", vi(100));
    E(insert_value(writer, 15));
    fief_release(writer_sorted);
    fief_release(writer);
    deliver_until_called(r, &s);
    if (s.counts[1] == 1) {
        /* The worker ran between the two commits: the second comes next. */
        deliver_until_called(r, &s);
    } else {
        EQU(s.counts[0], 1);
        EQU(s.del[0], 3);
        EQU(s.counts[1], 2);
        EQU(s.ins[0], 0);
        EQU(s.ins[1], 3);
    }
    EQU(t_count(sorted), 5);
    fief_release(tok);
    fief_release(sorted);
    fief_release(all);
    fief_release(r);
}

TEST(key_paths) {
    const char *path = t_path("rn.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    for (int i = 0; i < 2; i++) E(insert_value(r, i));
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "NoPk"));
    seen_t s = {0};
    const char *label[] = {"label"};
    fief_notification_token_t *tok = fief_results_add_notification_callback(all, label, 1, on_changes, &s, NULL);
    R(tok);
    deliver_until_called(r, &s);
    /* `value` is not watched: only the label write is a modification. */
    set_at(r, all, 0, "value", vi(5));
    set_at(r, all, 1, "label", vs("y"));
    deliver_until_called(r, &s);
    EQU(s.counts[2], 1);
    EQU(s.mod[0], 1);
    fief_release(tok);

    seen_t bad = {0};
    const char *nope[] = {"label", "nope"};
    EERRM(fief_results_add_notification_callback(all, nope, 2, on_changes, &bad, count_free), FIEF_ERR_NO_SUCH_PROPERTY, "'nope'");
    const char *through[] = {"value.x"};
    EERRM(fief_results_add_notification_callback(all, through, 1, on_changes, &bad, count_free), FIEF_ERR_INVALID_ARGUMENT, "not a link");
    const char *null_path[] = {NULL};
    EERR(fief_results_add_notification_callback(all, null_path, 1, on_changes, &bad, count_free), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_add_notification_callback(all, NULL, 1, on_changes, &bad, count_free), FIEF_ERR_INVALID_ARGUMENT);
    EQI(bad.frees, 0); /* failed registrations leave userdata to the caller */
    fief_release(all);
    fief_release(r);
}

TEST(bad_inputs) {
    const char *path = t_path("rn.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "NoPk"));
    seen_t s = {0};
    EERR(fief_results_add_notification_callback(all, NULL, 0, NULL, &s, count_free), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_add_notification_callback(NULL, NULL, 0, on_changes, &s, count_free), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_results_add_notification_callback((fief_results_t *)r, NULL, 0, on_changes, &s, count_free), FIEF_ERR_WRONG_HANDLE_TYPE);
    /* Inside a write transaction, as RealmSwift. */
    E(fief_realm_begin_write(r));
    EERR(fief_results_add_notification_callback(all, NULL, 0, on_changes, &s, count_free), FIEF_ERR_ALREADY_IN_TRANSACTION);
    E(fief_realm_cancel(r));
    /* Frozen results never change. */
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen);
    fief_results_t *frozen_all = fief_results_resolve_in(all, frozen);
    R(frozen_all);
    EERR(fief_results_add_notification_callback(frozen_all, NULL, 0, on_changes, &s, count_free), FIEF_ERR_FROZEN);
    EQI(s.frees, 0);
    /* Readers refuse what is not a change set. */
    size_t n = 0;
    EERR(fief_collection_changes_get_counts(NULL, &n, NULL, NULL, NULL), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_collection_changes_get_counts((const fief_collection_changes_t *)all, &n, NULL, NULL, NULL), FIEF_ERR_WRONG_HANDLE_TYPE);
    /* A released token is not a handle any more. */
    fief_notification_token_t *tok = fief_results_add_notification_callback(all, NULL, 0, on_changes, &s, count_free);
    R(tok);
    E(fief_release(tok));
    EQI(s.frees, 1);
    EERR(fief_release(tok), FIEF_ERR_INVALID_HANDLE);
    fief_release(frozen_all);
    fief_release(frozen);
    fief_release(all);
    fief_release(r);
}

static const t_case cases[] = {
    T(initial_then_this_realms_and_another_threads_and_another_processes_commits),
    T(sorted_results_and_several_commits_in_one_delivery),
    T(key_paths),
    T(bad_inputs),
};

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--insert") == 0) return child_insert_main(argv[2], atoll(argv[3]));
    return T_MAIN(argc, argv, cases);
}
