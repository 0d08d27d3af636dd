/* List, set and map notifications through the C ABI: the initial call,
 * then what commits of this realm, of another thread and of another
 * process did (positions for lists and sets, keys for maps); the owner's
 * deletion; key paths; registrations refused with a code, the caller
 * keeping `userdata`.  Timeouts are liveness bounds, not timings.
 *
 * Child processes are this program run again (`test_collection_notifications
 * --append PATH VALUE`: VALUE appended to the first Owner's `nums` and set
 * under key "k<VALUE>" of its `scores`). */
#include "fief_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_ROWS 32

/* Item(name); Owner(nums: list of int, items: list of Item, tags: set of
 * string, scores: map of int, any: mixed). */
static fief_schema_t *owner_schema(void) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Item";
    classes[0].num_properties = 1;
    classes[1].name = "Owner";
    classes[1].num_properties = 5;
    fief_property_info_t item[1] = {t_prop_info("name", FIEF_TYPE_STRING, 0)};
    fief_property_info_t owner[5] = {t_prop_info("nums", FIEF_TYPE_INT, 0), t_prop_info("items", FIEF_TYPE_LINK, 0),
                                     t_prop_info("tags", FIEF_TYPE_STRING, 0), t_prop_info("scores", FIEF_TYPE_INT, 0),
                                     t_prop_info("any", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    owner[0].collection_type = FIEF_COLLECTION_LIST;
    owner[1].collection_type = FIEF_COLLECTION_LIST;
    owner[1].link_target = "Item";
    owner[2].collection_type = FIEF_COLLECTION_SET;
    owner[3].collection_type = FIEF_COLLECTION_MAP;
    const fief_property_info_t *props[2] = {item, owner};
    return fief_schema_new(classes, 2, props);
}

static fief_realm_t *open_owner(const char *path) {
    fief_schema_t *s = owner_schema();
    fief_realm_t *r = t_open(path, s, 0);
    fief_release(s);
    return r;
}

/* What the callbacks saw last. */
typedef struct {
    int calls, frees;
    bool initial, cleared, root_deleted;
    size_t counts[4];
    size_t del[MAX_ROWS], ins[MAX_ROWS], mod[MAX_ROWS], from[MAX_ROWS], to[MAX_ROWS];
    char keys[3][MAX_ROWS][16]; /* maps: deleted, inserted, modified keys */
} seen_t;

static void on_changes(void *userdata, const fief_collection_changes_t *changes) {
    seen_t *s = userdata;
    s->calls++;
    E(fief_collection_changes_get_flags(changes, &s->initial, &s->cleared, &s->root_deleted));
    E(fief_collection_changes_get_counts(changes, &s->counts[0], &s->counts[1], &s->counts[2], &s->counts[3]));
    E(fief_collection_changes_get_indices(changes, MAX_ROWS, s->del, s->ins, s->mod, NULL, s->from, s->to));
    bool failed = true;
    E(fief_collection_changes_get_error(changes, &failed, NULL));
    E(!failed);
}

static void on_map_changes(void *userdata, const fief_map_changes_t *changes) {
    seen_t *s = userdata;
    s->calls++;
    E(fief_map_changes_get_flags(changes, &s->initial, &s->cleared, &s->root_deleted));
    E(fief_map_changes_get_counts(changes, &s->counts[0], &s->counts[1], &s->counts[2]));
    fief_string_t keys[3][MAX_ROWS];
    E(fief_map_changes_get_keys(changes, MAX_ROWS, keys[0], keys[1], keys[2]));
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < s->counts[k] && i < MAX_ROWS; i++) {
            size_t n = keys[k][i].size < 15 ? keys[k][i].size : 15;
            memcpy(s->keys[k][i], keys[k][i].data, n);
            s->keys[k][i][n] = 0;
        }
    }
    bool failed = true;
    E(fief_map_changes_get_error(changes, &failed, NULL));
    E(!failed);
}

static void count_free(void *userdata) { ((seen_t *)userdata)->frees++; }

/* Deliver until the next callback comes. */
static void deliver_until_called(fief_realm_t *r, seen_t *s) { t_deliver_until(r, &s->calls, s->calls + 1); }

/* Deliver until `s` has been called `calls` times at least (several
 * notifiers: each is run by the worker on its own, so one's call says
 * nothing of another's). */
static void deliver_until_calls(fief_realm_t *r, seen_t *s, int calls) { t_deliver_until(r, &s->calls, calls); }

static fief_object_t *first_owner(fief_realm_t *r) {
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "Owner"));
    if (!all) return NULL;
    fief_object_t *o = fief_results_get_object(all, 0);
    fief_release(all);
    return o;
}

/* Append `value` to the first owner's nums and set scores["k<value>"]. */
static bool append_value(fief_realm_t *r, int64_t value) {
    fief_object_t *o = first_owner(r);
    if (!o) return false;
    fief_list_t *nums = fief_object_get_list(o, t_prop(r, "Owner", "nums"));
    fief_map_t *scores = fief_object_get_map(o, t_prop(r, "Owner", "scores"));
    char key[32];
    snprintf(key, sizeof key, "k%lld", (long long)value);
    fief_value_t v = vi(value);
    bool ok = nums && scores && fief_realm_begin_write(r) && fief_list_append(nums, &v, 1) &&
              fief_map_set(scores, (fief_string_t){key, strlen(key)}, v) && fief_realm_commit(r);
    fief_release(nums);
    fief_release(scores);
    fief_release(o);
    return ok;
}

static int child_append_main(const char *path, int64_t value) {
    alarm(60);
    fief_realm_t *r = open_owner(path);
    if (!r) return 2;
    if (!append_value(r, value)) return 3;
    fief_release(r);
    return 0;
}

typedef struct {
    const char *path;
    int64_t value;
} append_args;

static void *append_on_thread(void *arg) {
    append_args *a = arg;
    fief_realm_t *r = open_owner(a->path);
    if (!r) return NULL;
    E(append_value(r, a->value));
    fief_release(r);
    return NULL;
}

/* An owner with nums [0 1 2], items [a b], tags {x}, scores {a: 1}. */
static fief_object_t *make_owner(fief_realm_t *r) {
    E(fief_realm_begin_write(r));
    fief_object_t *o = fief_object_create(r, t_class(r, "Owner"), NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR);
    R(o);
    fief_list_t *nums = fief_object_get_list(o, t_prop(r, "Owner", "nums"));
    fief_value_t v[3] = {vi(0), vi(1), vi(2)};
    E(fief_list_append(nums, v, 3));
    fief_list_t *items = fief_object_get_list(o, t_prop(r, "Owner", "items"));
    fief_property_key_t name = t_prop(r, "Item", "name");
    for (int i = 0; i < 2; i++) {
        fief_value_t n = vs(i == 0 ? "a" : "b");
        fief_object_t *item = fief_object_create(r, t_class(r, "Item"), &name, &n, 1, FIEF_UPDATE_POLICY_ERROR);
        fief_object_key_t key = 0;
        E(fief_object_get_key(item, &key));
        fief_value_t link = vlink(t_class(r, "Item"), key);
        E(fief_list_append(items, &link, 1));
        fief_release(item);
    }
    fief_set_t *tags = fief_object_get_set(o, t_prop(r, "Owner", "tags"));
    E(fief_set_insert(tags, vs("x"), NULL));
    fief_map_t *scores = fief_object_get_map(o, t_prop(r, "Owner", "scores"));
    E(fief_map_set(scores, (fief_string_t){"a", 1}, vi(1)));
    E(fief_realm_commit(r));
    fief_release(nums);
    fief_release(items);
    fief_release(tags);
    fief_release(scores);
    return o;
}

TEST(list_this_realm_another_thread_and_another_process) {
    const char *path = t_path("cn.fief");
    fief_realm_t *r = open_owner(path);
    R(r);
    fief_object_t *o = make_owner(r);
    fief_list_t *nums = fief_object_get_list(o, t_prop(r, "Owner", "nums"));
    R(nums);
    seen_t s = {0};
    fief_notification_token_t *tok = fief_list_add_notification_callback(nums, NULL, 0, on_changes, &s, count_free);
    R(tok);
    EQI(s.calls, 0);
    deliver_until_called(r, &s);
    E(s.initial);

    /* This realm: a move, then a removal. */
    E(fief_realm_begin_write(r));
    E(fief_list_move(nums, 0, 2));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    EQU(s.counts[3], 1);
    EQU(s.from[0], 0);
    EQU(s.to[0], 2);
    E(fief_realm_begin_write(r));
    E(fief_list_remove(nums, 1));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    EQU(s.counts[0], 1);
    EQU(s.del[0], 1);

    /* Another thread, then another process: an insertion at the end. */
    append_args a = {path, 7};
    t_run_thread(append_on_thread, &a);
    deliver_until_called(r, &s);
    EQU(s.counts[1], 1);
    EQU(s.ins[0], 2);
    EQI(t_run_self("--append", path, "8"), 0);
    deliver_until_called(r, &s);
    EQU(s.counts[1], 1);
    EQU(s.ins[0], 3);

    /* The owner deleted: every element deleted, root_deleted. */
    E(fief_realm_begin_write(r));
    E(fief_object_delete(o));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    E(s.root_deleted);
    EQU(s.counts[0], 4);

    E(fief_release(tok));
    EQI(s.frees, 1);
    fief_release(nums);
    fief_release(o);
    fief_release(r);
}

TEST(set_and_map_and_key_paths) {
    const char *path = t_path("cn.fief");
    fief_realm_t *r = open_owner(path);
    R(r);
    fief_object_t *o = make_owner(r);
    fief_set_t *tags = fief_object_get_set(o, t_prop(r, "Owner", "tags"));
    fief_map_t *scores = fief_object_get_map(o, t_prop(r, "Owner", "scores"));
    fief_list_t *items = fief_object_get_list(o, t_prop(r, "Owner", "items"));
    seen_t st = {0}, sm = {0}, si = {0};
    fief_notification_token_t *t1 = fief_set_add_notification_callback(tags, NULL, 0, on_changes, &st, NULL);
    fief_notification_token_t *t2 = fief_map_add_notification_callback(scores, NULL, 0, on_map_changes, &sm, NULL);
    const char *paths[1] = {"name"};
    fief_notification_token_t *t3 = fief_list_add_notification_callback(items, paths, 1, on_changes, &si, NULL);
    R(t1);
    R(t2);
    R(t3);
    deliver_until_calls(r, &st, 1);
    deliver_until_calls(r, &sm, 1);
    deliver_until_calls(r, &si, 1);
    E(st.initial && sm.initial && si.initial);

    E(fief_realm_begin_write(r));
    E(fief_set_insert(tags, vs("a"), NULL));
    E(fief_map_set(scores, (fief_string_t){"a", 1}, vi(10)));
    E(fief_map_set(scores, (fief_string_t){"b", 1}, vi(2)));
    fief_value_t link;
    E(fief_list_get(items, 1, &link));
    fief_object_t *item = fief_object_get(r, link.u.link.class_key, link.u.link.object_key);
    R(item);
    E(fief_object_set_value(item, t_prop(r, "Item", "name"), vs("B")));
    E(fief_realm_commit(r));
    deliver_until_calls(r, &st, 2);
    deliver_until_calls(r, &sm, 2);
    deliver_until_calls(r, &si, 2);
    EQU(st.counts[1], 1);
    EQU(st.ins[0], 0); /* "a" sorts before "x" */
    EQU(sm.counts[1], 1);
    E(strcmp(sm.keys[1][0], "b") == 0);
    EQU(sm.counts[2], 1);
    E(strcmp(sm.keys[2][0], "a") == 0);
    EQU(si.counts[2], 1);
    EQU(si.mod[0], 1);

    E(fief_realm_begin_write(r));
    E(fief_map_clear(scores));
    E(fief_realm_commit(r));
    deliver_until_called(r, &sm);
    EQU(sm.counts[0], 2);
    E(sm.cleared);

    fief_release(item);
    fief_release(t1);
    fief_release(t2);
    fief_release(t3);
    fief_release(tags);
    fief_release(scores);
    fief_release(items);
    fief_release(o);
    fief_release(r);
}

TEST(bad_inputs) {
    const char *path = t_path("cn.fief");
    fief_realm_t *r = open_owner(path);
    R(r);
    fief_object_t *o = make_owner(r);
    fief_list_t *nums = fief_object_get_list(o, t_prop(r, "Owner", "nums"));
    fief_list_t *items = fief_object_get_list(o, t_prop(r, "Owner", "items"));
    fief_map_t *scores = fief_object_get_map(o, t_prop(r, "Owner", "scores"));
    seen_t s = {0};
    EERR(fief_list_add_notification_callback(nums, NULL, 0, NULL, &s, count_free), FIEF_ERR_INVALID_ARGUMENT);
    const char *paths[1] = {"nope"};
    EERRM(fief_list_add_notification_callback(items, paths, 1, on_changes, &s, count_free), FIEF_ERR_NO_SUCH_PROPERTY, "nope");
    EERR(fief_list_add_notification_callback(nums, paths, 1, on_changes, &s, count_free), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_list_add_notification_callback(items, NULL, 1, on_changes, &s, count_free), FIEF_ERR_INVALID_ARGUMENT);
    /* Inside a write. */
    E(fief_realm_begin_write(r));
    EERR(fief_map_add_notification_callback(scores, NULL, 0, on_map_changes, &s, count_free), FIEF_ERR_ALREADY_IN_TRANSACTION);
    E(fief_realm_cancel(r));
    /* Frozen. */
    fief_realm_t *frozen = fief_realm_freeze(r);
    R(frozen);
    fief_list_t *frozen_nums = NULL;
    E(fief_list_resolve_in(nums, frozen, &frozen_nums));
    EERR(fief_list_add_notification_callback(frozen_nums, NULL, 0, on_changes, &s, count_free), FIEF_ERR_FROZEN);
    /* Wrong handles. */
    EERR(fief_set_add_notification_callback((fief_set_t *)nums, NULL, 0, on_changes, &s, count_free), FIEF_ERR_WRONG_HANDLE_TYPE);
    size_t n = 0;
    EERR(fief_map_changes_get_counts(NULL, &n, NULL, NULL), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_map_changes_get_counts((const fief_map_changes_t *)nums, &n, NULL, NULL), FIEF_ERR_WRONG_HANDLE_TYPE);
    /* A deleted owner. */
    E(fief_realm_begin_write(r));
    E(fief_object_delete(o));
    E(fief_realm_commit(r));
    EERR(fief_list_add_notification_callback(nums, NULL, 0, on_changes, &s, count_free), FIEF_ERR_INVALIDATED_OBJECT);
    EQI(s.frees, 0);
    fief_release(frozen_nums);
    fief_release(frozen);
    fief_release(nums);
    fief_release(items);
    fief_release(scores);
    fief_release(o);
    fief_release(r);
}

TEST(results_of_values_through_their_list) {
    const char *path = t_path("cn.fief");
    fief_realm_t *r = open_owner(path);
    R(r);
    fief_object_t *o = make_owner(r);
    fief_list_t *nums = fief_object_get_list(o, t_prop(r, "Owner", "nums"));
    fief_results_t *values = fief_list_to_results(nums);
    R(values);
    seen_t s = {0};
    fief_notification_token_t *tok = fief_results_add_notification_callback(values, NULL, 0, on_changes, &s, count_free);
    R(tok);
    deliver_until_called(r, &s);
    E(s.initial);
    E(fief_realm_begin_write(r));
    fief_value_t v = vi(9);
    E(fief_list_insert(nums, 1, v));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    EQU(s.counts[1], 1);
    EQU(s.ins[0], 1);
    /* Filtered results of values (nums: 0 9 1 2; rows 9 2): the change of their rows. */
    fief_results_t *filtered = fief_results_filter(values, "self > 1", NULL, 0);
    R(filtered);
    seen_t sf = {0};
    fief_notification_token_t *ftok = fief_results_add_notification_callback(filtered, NULL, 0, on_changes, &sf, count_free);
    R(ftok);
    deliver_until_called(r, &sf);
    E(sf.initial);
    E(fief_realm_begin_write(r));
    E(fief_list_append(nums, (fief_value_t[]){vi(5)}, 1)); /* rows 9 2 5 */
    E(fief_list_set(nums, 1, vi(0)));                       /* rows 2 5 */
    E(fief_realm_commit(r));
    deliver_until_called(r, &sf);
    EQU(sf.counts[0], 1);
    EQU(sf.del[0], 0);
    EQU(sf.counts[1], 1);
    EQU(sf.ins[0], 1);
    E(fief_release(ftok));
    EQI(sf.frees, 1);
    E(fief_release(tok));
    EQI(s.frees, 1);
    fief_release(filtered);
    fief_release(values);
    fief_release(nums);
    fief_release(o);
    fief_release(r);
}

/* A list nested in the mixed property `any`, and a map nested in it: the
 * list's own changes, a write inside the map a modification of the list's
 * element, the value holding the list replaced its root deleted. */
TEST(nested_list_and_map_in_a_mixed_value) {
    const char *path = t_path("cn.fief");
    fief_realm_t *r = open_owner(path);
    R(r);
    fief_object_t *o = make_owner(r);
    fief_property_key_t any = t_prop(r, "Owner", "any");
    fief_value_t list_value, map_value;
    memset(&list_value, 0, sizeof list_value);
    memset(&map_value, 0, sizeof map_value);
    list_value.type = FIEF_TYPE_LIST;
    map_value.type = FIEF_TYPE_MAP;
    E(fief_realm_begin_write(r));
    E(fief_object_set_value(o, any, list_value));
    E(fief_realm_commit(r));
    fief_list_t *nested = fief_object_get_list(o, any);
    R(nested);
    seen_t s = {0}, sm = {0};
    fief_notification_token_t *tok = fief_list_add_notification_callback(nested, NULL, 0, on_changes, &s, count_free);
    R(tok);
    deliver_until_called(r, &s);
    E(s.initial);

    E(fief_realm_begin_write(r));
    fief_value_t v[3] = {vi(1), vi(2), map_value};
    E(fief_list_append(nested, v, 3));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    EQU(s.counts[1], 3);
    EQU(s.ins[0], 0);
    EQU(s.ins[2], 2);

    fief_map_t *inner = fief_list_get_map(nested, 2);
    R(inner);
    fief_notification_token_t *mtok = fief_map_add_notification_callback(inner, NULL, 0, on_map_changes, &sm, NULL);
    R(mtok);
    deliver_until_called(r, &sm);
    E(sm.initial);
    E(fief_realm_begin_write(r));
    E(fief_map_set(inner, (fief_string_t){"k", 1}, vi(5)));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    EQU(s.counts[0], 0);
    EQU(s.counts[1], 0);
    EQU(s.counts[2], 1);
    EQU(s.mod[0], 2);
    EQI(sm.calls, 2);
    EQU(sm.counts[1], 1);
    E(strcmp(sm.keys[1][0], "k") == 0);

    /* The list replaced by a value: both collections are gone. */
    E(fief_realm_begin_write(r));
    E(fief_object_set_value(o, any, vi(7)));
    E(fief_realm_commit(r));
    deliver_until_called(r, &s);
    E(s.root_deleted);
    EQU(s.counts[0], 3);
    EQI(sm.calls, 3);
    E(sm.root_deleted);
    EQU(sm.counts[0], 1);
    /* Gone, it cannot be registered again. */
    EERR(fief_list_add_notification_callback(nested, NULL, 0, on_changes, &s, NULL), FIEF_ERR_INVALIDATED_OBJECT);

    E(fief_release(tok));
    EQI(s.frees, 1);
    fief_release(mtok);
    fief_release(inner);
    fief_release(nested);
    fief_release(o);
    fief_release(r);
}

static const t_case cases[] = {
    T(nested_list_and_map_in_a_mixed_value),
    T(results_of_values_through_their_list),
    T(list_this_realm_another_thread_and_another_process),
    T(set_and_map_and_key_paths),
    T(bad_inputs),
};

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--append") == 0) return child_append_main(argv[2], atoll(argv[3]));
    return T_MAIN(argc, argv, cases);
}
