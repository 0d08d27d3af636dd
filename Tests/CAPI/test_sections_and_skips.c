/* Sectioned results changes and commits without notifying, through the C
 * ABI: results sorted by value, sectioned by value / 10 (the host's ids),
 * each change set regrouped with fief_collection_changes_by_section
 * (sections inserted and deleted, rows by index path, a row that changed
 * section a deletion and an insertion, one section's changes alone); a
 * commit left out of one token's change sets and not another's; bad
 * inputs refused with a code.  Timeouts are liveness bounds, not timings. */
#include "fief_test.h"

#include <stdlib.h>

#define MAX_ROWS 64

typedef struct {
    int calls;
    bool initial;
    fief_realm_t *realm;
    const fief_results_t *results;
    const int64_t *only;       /* one section's changes alone, or NULL */
    int64_t ids[MAX_ROWS];     /* the section id of each row last seen */
    size_t rows;
    size_t counts[5];          /* deletions, insertions, modifications, sections inserted, deleted */
    fief_index_path_t del[MAX_ROWS], ins[MAX_ROWS], mod[MAX_ROWS];
    size_t sec_ins[MAX_ROWS], sec_del[MAX_ROWS];
    size_t plain_counts[3];    /* the results' own change set */
} seen_t;

/* The section id of every row of the results now: value / 10. */
static size_t section_ids(fief_realm_t *r, const fief_results_t *results, int64_t *ids) {
    size_t n = t_count(results);
    fief_property_key_t p = t_prop(r, "NoPk", "value");
    for (size_t i = 0; i < n && i < MAX_ROWS; i++) {
        fief_value_t v;
        E(fief_results_get_values(results, i, &p, 1, &v));
        ids[i] = v.u.integer / 10;
    }
    return n;
}

static void on_changes(void *userdata, const fief_collection_changes_t *changes) {
    seen_t *s = userdata;
    s->calls++;
    E(fief_collection_changes_get_flags(changes, &s->initial, NULL, NULL));
    E(fief_collection_changes_get_counts(changes, &s->plain_counts[0], &s->plain_counts[1], &s->plain_counts[2], NULL));
    int64_t now[MAX_ROWS];
    size_t rows = section_ids(s->realm, s->results, now);
    fief_section_changes_t *sc = fief_collection_changes_by_section(changes, s->ids, s->rows, now, rows, s->only);
    R(sc);
    E(fief_section_changes_get_counts(sc, &s->counts[0], &s->counts[1], &s->counts[2], &s->counts[3], &s->counts[4]));
    E(fief_section_changes_get_index_paths(sc, MAX_ROWS, s->del, s->ins, s->mod));
    E(fief_section_changes_get_sections(sc, MAX_ROWS, s->sec_ins, s->sec_del));
    E(fief_release(sc));
    memcpy(s->ids, now, sizeof now);
    s->rows = rows;
}

/* Deliver until the next callback comes. */
static void deliver_until_called(fief_realm_t *r, seen_t *s) { t_deliver_until(r, &s->calls, s->calls + 1); }

static fief_realm_t *open_nopk(const char *path) {
    fief_schema_t *schema = t_std_schema();
    fief_realm_t *r = t_open(path, schema, 0);
    fief_release(schema);
    return r;
}

static fief_object_t *create_value(fief_realm_t *r, int64_t value) {
    fief_property_key_t p = t_prop(r, "NoPk", "value");
    fief_value_t v = vi(value);
    return fief_object_create(r, t_class(r, "NoPk"), &p, &v, 1, FIEF_UPDATE_POLICY_ERROR);
}

static void set_value(fief_realm_t *r, fief_object_t *o, int64_t value) {
    E(fief_realm_begin_write(r));
    E(fief_object_set_value(o, t_prop(r, "NoPk", "value"), vi(value)));
    E(fief_realm_commit(r));
}

static fief_results_t *sorted_values(fief_realm_t *r) {
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "NoPk"));
    R(all);
    fief_sort_descriptor_t by_value = {"value", true};
    fief_results_t *sorted = fief_results_sort(all, &by_value, 1);
    R(sorted);
    fief_release(all);
    return sorted;
}

#define PATH_IS(p, s, i) do { EQU((p).section, (s)); EQU((p).item, (i)); } while (0)

TEST(sections_inserted_deleted_and_rows_by_index_path) {
    const char *path = t_path("sections.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    fief_object_t *o[4];
    int64_t start[4] = {1, 2, 11, 21}; /* sections 0: {1, 2}, 1: {11}, 2: {21} */
    E(fief_realm_begin_write(r));
    for (int i = 0; i < 4; i++) R(o[i] = create_value(r, start[i]));
    E(fief_realm_commit(r));
    fief_results_t *sorted = sorted_values(r);
    seen_t s = {0};
    s.realm = r;
    s.results = sorted;
    fief_notification_token_t *tok = fief_results_add_notification_callback(sorted, NULL, 0, on_changes, &s, NULL);
    R(tok);
    deliver_until_called(r, &s);
    E(s.initial);
    EQU(s.counts[0] + s.counts[1] + s.counts[2] + s.counts[3] + s.counts[4], 0);

    /* A row into an existing section: [1, 1] inserted. */
    E(fief_realm_begin_write(r));
    fief_object_t *added = create_value(r, 15);
    R(added);
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    EQU(s.counts[1], 1);
    PATH_IS(s.ins[0], 1, 1);
    EQU(s.counts[0] + s.counts[2] + s.counts[3] + s.counts[4], 0);

    /* A row changed in place: a modification at its old index path. */
    set_value(r, o[0], 0);
    deliver_until_called(r, &s);
    EQU(s.counts[2], 1);
    PATH_IS(s.mod[0], 0, 0);
    EQU(s.counts[0] + s.counts[1] + s.counts[3] + s.counts[4], 0);

    /* A row into a new section (3): section 3 inserted, the row with it. */
    set_value(r, o[1], 35); /* 0 | 11 15 | 21 | 35 */
    deliver_until_called(r, &s);
    EQU(s.counts[3], 1);
    EQU(s.sec_ins[0], 3);
    EQU(s.counts[0], 1);
    PATH_IS(s.del[0], 0, 1);
    EQU(s.counts[1], 1);
    PATH_IS(s.ins[0], 3, 0);

    /* Section 1 emptied: deleted as a whole, its rows not listed. */
    E(fief_realm_begin_write(r));
    E(fief_object_delete(o[2]));
    E(fief_object_delete(added));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    EQU(s.counts[4], 1);
    EQU(s.sec_del[0], 1);
    EQU(s.counts[0] + s.counts[1] + s.counts[2] + s.counts[3], 0);
    EQU(s.plain_counts[0], 2); /* the results' own change set has both rows */

    E(fief_release(tok));
    fief_release(added);
    for (int i = 0; i < 4; i++) fief_release(o[i]);
    fief_release(sorted);
    fief_release(r);
}

TEST(one_sections_changes_alone) {
    const char *path = t_path("one-section.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    fief_object_t *o[3];
    int64_t start[3] = {1, 11, 12};
    E(fief_realm_begin_write(r));
    for (int i = 0; i < 3; i++) R(o[i] = create_value(r, start[i]));
    E(fief_realm_commit(r));
    fief_results_t *sorted = sorted_values(r);
    int64_t only = 1;
    seen_t s = {0};
    s.realm = r;
    s.results = sorted;
    s.only = &only;
    fief_notification_token_t *tok = fief_results_add_notification_callback(sorted, NULL, 0, on_changes, &s, NULL);
    R(tok);
    deliver_until_called(r, &s);
    /* A change in section 0 is not section 1's. */
    set_value(r, o[0], 2);
    deliver_until_called(r, &s);
    EQU(s.counts[0] + s.counts[1] + s.counts[2] + s.counts[3] + s.counts[4], 0);
    /* One of section 1 modified: [1, 1]. */
    set_value(r, o[2], 13);
    deliver_until_called(r, &s);
    EQU(s.counts[2], 1);
    PATH_IS(s.mod[0], 1, 1);
    E(fief_release(tok));
    for (int i = 0; i < 3; i++) fief_release(o[i]);
    fief_release(sorted);
    fief_release(r);
}

/* Bad inputs to the regrouping, from inside a callback. */
static int bad_calls;
static void on_changes_bad(void *userdata, const fief_collection_changes_t *changes) {
    (void)userdata;
    bad_calls++;
    int64_t ids[1] = {0};
    bool initial = false;
    E(fief_collection_changes_get_flags(changes, &initial, NULL, NULL));
    if (initial) {
        /* An initial change set regroups to nothing. */
        fief_section_changes_t *sc = fief_collection_changes_by_section(changes, NULL, 0, NULL, 0, NULL);
        R(sc);
        size_t n = 1;
        E(fief_section_changes_get_counts(sc, &n, NULL, NULL, NULL, NULL));
        EQU(n, 0);
        E(fief_release(sc));
        EERR(fief_section_changes_get_counts(sc, &n, NULL, NULL, NULL, NULL), FIEF_ERR_INVALID_HANDLE);
        return;
    }
    /* An insertion at 1 with one new row given: refused. */
    EERR(fief_collection_changes_by_section(changes, ids, 1, ids, 1, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_collection_changes_by_section(changes, NULL, 1, ids, 1, NULL), FIEF_ERR_INVALID_ARGUMENT);
}

TEST(bad_inputs) {
    const char *path = t_path("bad.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    E(fief_realm_begin_write(r));
    fief_object_t *first = create_value(r, 1);
    R(first);
    E(fief_realm_commit(r));
    fief_results_t *sorted = sorted_values(r);
    seen_t s = {0};
    fief_notification_token_t *tok = fief_results_add_notification_callback(sorted, NULL, 0, on_changes_bad, &s, NULL);
    R(tok);
    int fd = -1;
    E(fief_realm_get_notification_fd(r, &fd));
    double deadline = t_now() + 60;
    while (bad_calls < 1 && t_now() < deadline) {
        t_fd_readable(fd, 1000);
        E(fief_realm_deliver_notifications(r, NULL));
    }
    E(fief_realm_begin_write(r));
    fief_object_t *second = create_value(r, 2);
    R(second);
    E(fief_realm_commit(r));
    while (bad_calls < 2 && t_now() < deadline) {
        t_fd_readable(fd, 1000);
        E(fief_realm_deliver_notifications(r, NULL));
    }
    EQI(bad_calls, 2);
    /* Not a change set; not a section change set. */
    EERR(fief_collection_changes_by_section(NULL, NULL, 0, NULL, 0, NULL), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_collection_changes_by_section((const fief_collection_changes_t *)sorted, NULL, 0, NULL, 0, NULL),
         FIEF_ERR_WRONG_HANDLE_TYPE);
    EERR(fief_section_changes_get_sections((const fief_section_changes_t *)sorted, 0, NULL, NULL),
         FIEF_ERR_WRONG_HANDLE_TYPE);

    /* Commit without notifying: bad tokens leave the write open. */
    fief_realm_t *other = open_nopk(path);
    R(other);
    fief_results_t *other_sorted = sorted_values(other);
    fief_notification_token_t *foreign = fief_results_add_notification_callback(other_sorted, NULL, 0, on_changes_bad, &s, NULL);
    R(foreign);
    E(fief_realm_begin_write(r));
    EERR(fief_realm_commit_without_notifying(r, &foreign, 1), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_realm_commit_without_notifying(r, NULL, 1), FIEF_ERR_INVALID_ARGUMENT);
    fief_notification_token_t *released = fief_results_add_notification_callback(sorted, NULL, 0, on_changes_bad, &s, NULL);
    E(fief_release(released));
    EERR(fief_realm_commit_without_notifying(r, &released, 1), FIEF_ERR_INVALID_HANDLE);
    bool writing = false;
    E(fief_realm_is_in_transaction(r, &writing));
    E(writing);
    E(fief_realm_commit_without_notifying(r, NULL, 0)); /* a plain commit */
    EERR(fief_realm_commit_without_notifying(r, &tok, 1), FIEF_ERR_NOT_IN_TRANSACTION);
    E(fief_release(foreign));
    E(fief_release(tok));
    fief_release(other_sorted);
    fief_release(other);
    fief_release(first);
    fief_release(second);
    fief_release(sorted);
    fief_release(r);
}

/* Plain results callbacks counting their calls and last insertions. */
typedef struct {
    int calls;
    size_t ins, del;
} plain_t;

static void on_plain(void *userdata, const fief_collection_changes_t *changes) {
    plain_t *p = userdata;
    p->calls++;
    E(fief_collection_changes_get_counts(changes, &p->del, &p->ins, NULL, NULL));
}

TEST(commit_without_notifying_skips_one_token) {
    const char *path = t_path("skip.fief");
    fief_realm_t *r = open_nopk(path);
    R(r);
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "NoPk"));
    R(all);
    plain_t skipped = {0}, told = {0};
    fief_notification_token_t *a = fief_results_add_notification_callback(all, NULL, 0, on_plain, &skipped, NULL);
    fief_notification_token_t *b = fief_results_add_notification_callback(all, NULL, 0, on_plain, &told, NULL);
    R(a);
    R(b);
    int fd = -1;
    E(fief_realm_get_notification_fd(r, &fd));
    double deadline = t_now() + 60;
    while ((skipped.calls < 1 || told.calls < 1) && t_now() < deadline) {
        t_fd_readable(fd, 1000);
        E(fief_realm_deliver_notifications(r, NULL));
    }
    /* Left out of a's change sets, not of b's. */
    E(fief_realm_begin_write(r));
    fief_object_t *o = create_value(r, 1);
    R(o);
    E(fief_realm_commit_without_notifying(r, &a, 1));
    while (told.calls < 2 && t_now() < deadline) {
        t_fd_readable(fd, 1000);
        E(fief_realm_deliver_notifications(r, NULL));
    }
    EQI(told.calls, 2);
    EQU(told.ins, 1);
    EQI(skipped.calls, 1);
    /* The next commit reaches both. */
    E(fief_realm_begin_write(r));
    E(fief_object_delete(o));
    E(fief_realm_commit(r));
    while ((told.calls < 3 || skipped.calls < 2) && t_now() < deadline) {
        t_fd_readable(fd, 1000);
        E(fief_realm_deliver_notifications(r, NULL));
    }
    EQI(told.calls, 3);
    EQI(skipped.calls, 2);
    EQU(skipped.del, 1);
    EQU(skipped.ins, 0);
    E(fief_release(a));
    E(fief_release(b));
    fief_release(o);
    fief_release(all);
    fief_release(r);
}

static const t_case cases[] = {
    T(sections_inserted_deleted_and_rows_by_index_path),
    T(one_sections_changes_alone),
    T(bad_inputs),
    T(commit_without_notifying_skips_one_token),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
