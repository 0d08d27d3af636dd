/* Object notifications through the C ABI: another thread's and another
 * process's commits make the realm's fd readable and the delivery calls the
 * object's callback with the changed properties and their old and new
 * values; the observing realm's own commit gives no old values; key paths
 * filter, also through a list of links; a deletion is told once; bad inputs
 * are errors.  Timeouts are liveness bounds, not timings.
 *
 * Child processes are this program run again (`test_object_notifications
 * --set PATH AGE`: sets the age of the first Person to AGE). */
#include "fief_test.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Dog(name, age); Person(name, age, dogs: list of Dog). */
static fief_schema_t *people_schema(void) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Dog";
    classes[0].num_properties = 2;
    classes[1].name = "Person";
    classes[1].num_properties = 3;
    fief_property_info_t dog[2] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("age", FIEF_TYPE_INT, 0)};
    fief_property_info_t person[3] = {t_prop_info("name", FIEF_TYPE_STRING, 0), t_prop_info("age", FIEF_TYPE_INT, 0),
                                      t_prop_info("dogs", FIEF_TYPE_LINK, 0)};
    person[2].collection_type = FIEF_COLLECTION_LIST;
    person[2].link_target = "Dog";
    const fief_property_info_t *props[2] = {dog, person};
    return fief_schema_new(classes, 2, props);
}

static fief_realm_t *open_people(const char *path) {
    fief_schema_t *s = people_schema();
    fief_realm_t *r = t_open(path, s, 0);
    fief_release(s);
    return r;
}

/* The world: Ann (age 30) with dogs [Rex]. */
typedef struct {
    fief_realm_t *realm;
    fief_object_t *ann, *rex;
    fief_class_key_t person, dog;
    fief_property_key_t name, age, dogs, dog_name;
} world_t;

static void make_world(world_t *w, const char *path) {
    w->realm = open_people(path);
    R(w->realm);
    w->person = t_class(w->realm, "Person");
    w->dog = t_class(w->realm, "Dog");
    w->name = t_prop(w->realm, "Person", "name");
    w->age = t_prop(w->realm, "Person", "age");
    w->dogs = t_prop(w->realm, "Person", "dogs");
    w->dog_name = t_prop(w->realm, "Dog", "name");
    R(fief_realm_begin_write(w->realm));
    fief_value_t rex_values[1] = {vs("Rex")};
    w->rex = fief_object_create(w->realm, w->dog, &w->dog_name, rex_values, 1, FIEF_UPDATE_POLICY_ERROR);
    R(w->rex);
    fief_property_key_t keys[2] = {w->name, w->age};
    fief_value_t values[2] = {vs("Ann"), vi(30)};
    w->ann = fief_object_create(w->realm, w->person, keys, values, 2, FIEF_UPDATE_POLICY_ERROR);
    R(w->ann);
    fief_list_t *dogs = fief_object_get_list(w->ann, w->dogs);
    R(dogs);
    fief_object_key_t rex_key = 0;
    E(fief_object_get_key(w->rex, &rex_key));
    fief_value_t link = vlink(w->dog, rex_key);
    E(fief_list_append(dogs, &link, 1));
    fief_release(dogs);
    R(fief_realm_commit(w->realm));
}

static void free_world(world_t *w) {
    fief_release(w->ann);
    fief_release(w->rex);
    fief_release(w->realm);
}

/* Deliver to `r` as a host does (wait on its fd, bounded) until it reads
 * version `target`. */
static void deliver_until(fief_realm_t *r, uint64_t target) {
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    for (int rounds = 0; t_version(r) < target; rounds++) {
        R(rounds < 100 && t_fd_readable(fd, 10000));
        E(fief_realm_deliver_notifications(r, NULL));
    }
}

/* After the realm's own commit: wait for the worker's run (the fd,
 * bounded) and deliver, as a host's event loop does. */
static void deliver_next(fief_realm_t *r) {
    int fd = -1;
    R(fief_realm_get_notification_fd(r, &fd));
    R(t_fd_readable(fd, 10000));
    E(fief_realm_deliver_notifications(r, NULL));
}

/* What the object callback records. */
typedef struct {
    int calls;
    int frees;
    bool deleted;
    size_t count;
    fief_property_key_t properties[8];
    bool has_old[8], has_new[8];
    int64_t old_int[8], new_int[8];
    pthread_t thread;
    const fief_object_changes_t *kept; /* the handle, to check it dies after the call */
    fief_notification_token_t *release_self;
} object_record_t;

static void on_object_change(void *userdata, const fief_object_changes_t *changes) {
    object_record_t *rec = userdata;
    rec->calls++;
    rec->thread = pthread_self();
    rec->kept = changes;
    E(fief_object_changes_is_deleted(changes, &rec->deleted));
    E(fief_object_changes_get_count(changes, &rec->count));
    size_t written = 0;
    E(fief_object_changes_get_properties(changes, rec->properties, 8, &written));
    EQU(written, rec->count);
    for (size_t i = 0; i < written && i < 8; i++) {
        fief_value_t old, new;
        E(fief_object_changes_get_old_value(changes, rec->properties[i], &old, &rec->has_old[i]));
        E(fief_object_changes_get_new_value(changes, rec->properties[i], &new, &rec->has_new[i]));
        rec->old_int[i] = old.type == FIEF_TYPE_INT ? old.u.integer : -1;
        rec->new_int[i] = new.type == FIEF_TYPE_INT ? new.u.integer : -1;
    }
    if (rec->release_self) {
        E(fief_release(rec->release_self));
        rec->release_self = NULL;
    }
}

static void count_free(void *userdata) { ((object_record_t *)userdata)->frees++; }

typedef struct {
    const char *path;
    int64_t age;
    bool delete_it;
    const char *dog_name; /* sets Rex's name instead, when set */
} thread_write_args;

/* On its own realm: set the first Person's age, or delete it, or rename Rex. */
static void *write_on_thread(void *arg) {
    thread_write_args *a = arg;
    fief_realm_t *r = open_people(a->path);
    if (!r) return NULL;
    fief_object_t *o = fief_object_get(r, t_class(r, a->dog_name ? "Dog" : "Person"), 0);
    E(o != NULL);
    E(fief_realm_begin_write(r));
    if (a->dog_name) {
        fief_value_t v = vs(a->dog_name);
        E(fief_object_set_value(o, t_prop(r, "Dog", "name"), v));
    } else if (a->delete_it) {
        E(fief_object_delete(o));
    } else {
        fief_value_t v = vi(a->age);
        E(fief_object_set_value(o, t_prop(r, "Person", "age"), v));
    }
    E(fief_realm_commit(r));
    fief_release(o);
    fief_release(r);
    return NULL;
}

/* The newest version of the file at `path` (opens it). */
static uint64_t newest_version(const char *path) {
    fief_realm_t *r = open_people(path);
    uint64_t v = r ? t_version(r) : 0;
    fief_release(r);
    return v;
}

TEST(another_threads_change_is_told_with_old_and_new_values) {
    const char *path = t_path("o.fief");
    world_t w;
    make_world(&w, path);
    object_record_t rec = {0};
    fief_notification_token_t *tok = fief_object_add_notification_callback(w.ann, NULL, 0, on_object_change, &rec, count_free);
    R(tok);
    thread_write_args a = {path, 31, false, NULL};
    t_run_thread(write_on_thread, &a);
    deliver_until(w.realm, newest_version(path));
    EQI(rec.calls, 1);
    E(pthread_equal(rec.thread, pthread_self()));
    E(!rec.deleted);
    EQU(rec.count, 1);
    EQU(rec.properties[0], w.age);
    E(rec.has_old[0] && rec.has_new[0]);
    EQI(rec.old_int[0], 30);
    EQI(rec.new_int[0], 31);
    /* The change handle lived for the call only. */
    bool deleted = false;
    EERR(fief_object_changes_is_deleted(rec.kept, &deleted), FIEF_ERR_INVALID_HANDLE);
    E(fief_release(tok));
    EQI(rec.frees, 1);
    EERR(fief_release(tok), FIEF_ERR_INVALID_HANDLE);
    free_world(&w);
}

static int child_set_main(const char *path, int64_t age) {
    alarm(60);
    thread_write_args a = {path, age, false, NULL};
    write_on_thread(&a);
    return 0;
}

TEST(another_processs_change_is_told) {
    const char *path = t_path("p.fief");
    world_t w;
    make_world(&w, path);
    object_record_t rec = {0};
    fief_notification_token_t *tok = fief_object_add_notification_callback(w.ann, NULL, 0, on_object_change, &rec, NULL);
    R(tok);
    R(t_run_self("--set", path, "77") == 0);
    deliver_until(w.realm, newest_version(path));
    EQI(rec.calls, 1);
    EQU(rec.count, 1);
    EQU(rec.properties[0], w.age);
    EQI(rec.old_int[0], 30);
    EQI(rec.new_int[0], 77);
    E(fief_release(tok));
    free_world(&w);
}

TEST(own_commit_gives_no_old_value) {
    world_t w;
    make_world(&w, t_path("own.fief"));
    object_record_t rec = {0};
    fief_notification_token_t *tok = fief_object_add_notification_callback(w.ann, NULL, 0, on_object_change, &rec, NULL);
    R(tok);
    R(fief_realm_begin_write(w.realm));
    fief_value_t v = vi(42);
    E(fief_object_set_value(w.ann, w.age, v));
    R(fief_realm_commit(w.realm));
    EQI(rec.calls, 0); /* never inside the commit: the host's next delivery */
    deliver_next(w.realm);
    EQI(rec.calls, 1);
    EQU(rec.count, 1);
    E(!rec.has_old[0]);
    E(rec.has_new[0]);
    EQI(rec.new_int[0], 42);
    E(fief_release(tok));
    free_world(&w);
}

TEST(key_paths_filter_also_through_a_list) {
    const char *path = t_path("k.fief");
    world_t w;
    make_world(&w, path);
    object_record_t by_name = {0}, through_dogs = {0};
    const char *name_only[] = {"name"};
    const char *dog_names[] = {"dogs.name"};
    fief_notification_token_t *t1 = fief_object_add_notification_callback(w.ann, name_only, 1, on_object_change, &by_name, NULL);
    fief_notification_token_t *t2 = fief_object_add_notification_callback(w.ann, dog_names, 1, on_object_change, &through_dogs, NULL);
    R(t1 && t2);
    thread_write_args age = {path, 31, false, NULL};
    t_run_thread(write_on_thread, &age);
    thread_write_args rename = {path, 0, false, "Max"};
    t_run_thread(write_on_thread, &rename);
    deliver_until(w.realm, newest_version(path));
    EQI(by_name.calls, 0);
    EQI(through_dogs.calls, 1);
    EQU(through_dogs.count, 1);
    EQU(through_dogs.properties[0], w.dogs);
    E(!through_dogs.has_old[0] && !through_dogs.has_new[0]); /* a list has no values here */
    E(fief_release(t1));
    E(fief_release(t2));
    free_world(&w);
}

TEST(deletion_is_told_once_and_a_release_inside_the_call_works) {
    const char *path = t_path("d.fief");
    world_t w;
    make_world(&w, path);
    object_record_t rec = {0};
    fief_notification_token_t *tok = fief_object_add_notification_callback(w.ann, NULL, 0, on_object_change, &rec, count_free);
    R(tok);
    rec.release_self = tok;
    thread_write_args del = {path, 0, true, NULL};
    t_run_thread(write_on_thread, &del);
    deliver_until(w.realm, newest_version(path));
    EQI(rec.calls, 1);
    E(rec.deleted);
    EQU(rec.count, 0);
    EQI(rec.frees, 1);
    free_world(&w);
}

TEST(bad_inputs) {
    world_t w;
    make_world(&w, t_path("bad.fief"));
    object_record_t rec = {0};
    EERRM(fief_object_add_notification_callback(w.ann, NULL, 0, NULL, &rec, count_free) != NULL, FIEF_ERR_INVALID_ARGUMENT, "callback");
    const char *nope[] = {"nope"};
    EERRM(fief_object_add_notification_callback(w.ann, nope, 1, on_object_change, &rec, count_free) != NULL,
          FIEF_ERR_NO_SUCH_PROPERTY, "property 'nope' not found in object of type 'Person'");
    const char *deep[] = {"dogs.alsoNot"};
    EERRM(fief_object_add_notification_callback(w.ann, deep, 1, on_object_change, &rec, count_free) != NULL,
          FIEF_ERR_NO_SUCH_PROPERTY, "property 'alsoNot' not found in object of type 'Dog'");
    const char *null_path[] = {NULL};
    EERR(fief_object_add_notification_callback(w.ann, null_path, 1, on_object_change, &rec, count_free) != NULL, FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_add_notification_callback(w.ann, NULL, 2, on_object_change, &rec, count_free) != NULL, FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_object_add_notification_callback(NULL, NULL, 0, on_object_change, &rec, count_free) != NULL, FIEF_ERR_INVALID_HANDLE);
    EERR(fief_object_add_notification_callback((fief_object_t *)w.realm, NULL, 0, on_object_change, &rec, count_free) != NULL,
         FIEF_ERR_WRONG_HANDLE_TYPE);
    /* Inside a write transaction. */
    R(fief_realm_begin_write(w.realm));
    EERR(fief_object_add_notification_callback(w.ann, NULL, 0, on_object_change, &rec, count_free) != NULL, FIEF_ERR_ALREADY_IN_TRANSACTION);
    E(fief_realm_cancel(w.realm));
    /* A frozen object. */
    fief_realm_t *frozen = fief_realm_freeze(w.realm);
    R(frozen);
    fief_object_key_t key = 0;
    E(fief_object_get_key(w.ann, &key));
    fief_object_t *frozen_ann = fief_object_get(frozen, w.person, key);
    R(frozen_ann);
    EERR(fief_object_add_notification_callback(frozen_ann, NULL, 0, on_object_change, &rec, count_free) != NULL, FIEF_ERR_FROZEN);
    fief_release(frozen_ann);
    fief_release(frozen);
    /* A deleted object. */
    R(fief_realm_begin_write(w.realm));
    E(fief_object_delete(w.ann));
    R(fief_realm_commit(w.realm));
    EERR(fief_object_add_notification_callback(w.ann, NULL, 0, on_object_change, &rec, count_free) != NULL, FIEF_ERR_INVALIDATED_OBJECT);
    /* Failed registrations keep the userdata. */
    EQI(rec.frees, 0);
    /* The readers, without a live change handle. */
    bool b = false;
    size_t n = 0;
    fief_value_t v;
    EERR(fief_object_changes_is_deleted(NULL, &b), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_object_changes_get_count((const fief_object_changes_t *)w.realm, &n), FIEF_ERR_WRONG_HANDLE_TYPE);
    EERR(fief_object_changes_get_properties(NULL, NULL, 0, &n), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_object_changes_get_old_value(NULL, 1, &v, &b), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_object_changes_get_new_value(NULL, 1, &v, NULL), FIEF_ERR_INVALID_ARGUMENT);
    free_world(&w);
}

/* A property not changed is an error from the value readers. */
static void on_change_read_unchanged(void *userdata, const fief_object_changes_t *changes) {
    fief_property_key_t *unchanged = userdata;
    fief_value_t v;
    bool has = true;
    EERR(fief_object_changes_get_old_value(changes, *unchanged, &v, &has), FIEF_ERR_NO_SUCH_PROPERTY);
    EERR(fief_object_changes_get_properties(changes, NULL, 1, NULL), FIEF_ERR_INVALID_ARGUMENT);
    *unchanged = 0;
}

TEST(reading_a_property_not_changed_is_an_error) {
    world_t w;
    make_world(&w, t_path("u.fief"));
    fief_property_key_t unchanged = w.name;
    fief_notification_token_t *tok = fief_object_add_notification_callback(w.ann, NULL, 0, on_change_read_unchanged, &unchanged, NULL);
    R(tok);
    R(fief_realm_begin_write(w.realm));
    fief_value_t v = vi(1);
    E(fief_object_set_value(w.ann, w.age, v));
    R(fief_realm_commit(w.realm));
    deliver_next(w.realm);
    EQU(unchanged, 0);
    E(fief_release(tok));
    free_world(&w);
}

static const t_case cases[] = {
    T(another_threads_change_is_told_with_old_and_new_values),
    T(another_processs_change_is_told),
    T(own_commit_gives_no_old_value),
    T(key_paths_filter_also_through_a_list),
    T(deletion_is_told_once_and_a_release_inside_the_call_works),
    T(bad_inputs),
    T(reading_a_property_not_changed_is_an_error),
};

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--set") == 0) return child_set_main(argv[2], atoll(argv[3]));
    return T_MAIN(argc, argv, cases);
}
