/* What reading results costs inside a results callback (docs/design.md,
 * "Notifications", slice 2): the worker evaluates the results and the
 * delivery hands its rows over, so counting and reading every key in the
 * callback should cost what reading an evaluated array costs, not an
 * evaluation.  N objects (age = i % 100); results "age < 50", and the same
 * sorted by name; each round commits a change to one object, delivers, and
 * times, inside the callback, fief_results_count plus fief_results_get_keys
 * of every row; beside it, the same reads on a fresh results handle (which
 * evaluates).  Prints medians in milliseconds.  Times only; the tests check
 * the change sets.  Built and run by benchmarks/notify. */
#include "fief.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void check(bool ok, const char *what) {
    if (ok) return;
    fief_error_t e;
    fief_get_last_error(&e);
    fprintf(stderr, "%s failed: %s\n", what, e.message ? e.message : "?");
    exit(1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

typedef struct {
    const fief_results_t *results;
    fief_object_key_t *keys;
    int calls;
    double read_ms;
} probe_t;

/* Count and read every key: what a table view's reload does. */
static double read_all(const fief_results_t *results, fief_object_key_t *keys) {
    double t0 = now_ms();
    size_t count = 0, got = 0;
    check(fief_results_count(results, &count), "fief_results_count");
    check(fief_results_get_keys(results, 0, count, keys, &got), "fief_results_get_keys");
    return now_ms() - t0;
}

static void on_changes(void *userdata, const fief_collection_changes_t *changes) {
    (void)changes;
    probe_t *p = userdata;
    p->calls++;
    p->read_ms = read_all(p->results, p->keys);
}

/* Deliver until a callback after the `before`th came (the realm's own
 * commit may have delivered it already). */
static void deliver_until_called(fief_realm_t *r, probe_t *p, int before) {
    int fd = -1;
    check(fief_realm_get_notification_fd(r, &fd), "fief_realm_get_notification_fd");
    double deadline = now_ms() + 60000;
    while (p->calls <= before && now_ms() < deadline) {
        struct pollfd pfd = {fd, POLLIN, 0};
        poll(&pfd, 1, 1000);
        check(fief_realm_deliver_notifications(r, NULL), "fief_realm_deliver_notifications");
    }
    if (p->calls <= before) {
        fprintf(stderr, "no delivery within 60 s\n");
        exit(1);
    }
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 100000;
    int rounds = argc > 2 ? atoi(argv[2]) : 11;
    char dir[] = "/tmp/fief-notify-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    char path[256];
    snprintf(path, sizeof path, "%s/n.fief", dir);

    fief_property_info_t props[2];
    memset(props, 0, sizeof props);
    props[0].name = "age";
    props[0].type = FIEF_TYPE_INT;
    props[1].name = "name";
    props[1].type = FIEF_TYPE_STRING;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Item";
    cls.num_properties = 2;
    const fief_property_info_t *all_props[1] = {props};
    fief_schema_t *schema = fief_schema_new(&cls, 1, all_props);
    check(schema != NULL, "fief_schema_new");
    fief_config_t *config = fief_config_new();
    check(fief_config_set_path(config, path), "fief_config_set_path");
    check(fief_config_set_schema(config, schema), "fief_config_set_schema");
    fief_realm_t *r = fief_realm_open(config);
    check(r != NULL, "fief_realm_open");
    fief_schema_t *stored = fief_realm_get_schema(r);
    check(stored != NULL, "fief_realm_get_schema");
    fief_class_info_t info;
    size_t class_index = 0;
    bool found = false;
    check(fief_schema_find_class(stored, "Item", &info, &class_index, &found) && found, "fief_schema_find_class");
    fief_class_key_t item = info.key;
    fief_property_key_t keys2[2];
    fief_property_info_t pinfo;
    check(fief_schema_find_property(stored, class_index, "age", &pinfo, &found) && found, "fief_schema_find_property");
    keys2[0] = pinfo.key;
    check(fief_schema_find_property(stored, class_index, "name", &pinfo, &found) && found, "fief_schema_find_property");
    keys2[1] = pinfo.key;
    fief_release(stored);

    fief_value_t *values = calloc(n * 2, sizeof *values);
    for (size_t i = 0; i < n; i++) {
        values[2 * i].type = FIEF_TYPE_INT;
        values[2 * i].u.integer = (int64_t)(i % 100);
        values[2 * i + 1].type = FIEF_TYPE_STRING;
        values[2 * i + 1].u.string.data = "item";
        values[2 * i + 1].u.string.size = 4;
    }
    fief_object_key_t *made = malloc(n * sizeof *made);
    check(fief_realm_begin_write(r), "fief_realm_begin_write");
    check(fief_object_create_many(r, item, keys2, 2, values, n, FIEF_UPDATE_POLICY_ERROR, made), "fief_object_create_many");
    check(fief_realm_commit(r), "fief_realm_commit");

    fief_results_t *everything = fief_realm_get_objects(r, item);
    const char *names[2] = {"filtered (age < 50)", "filtered, sorted by name"};
    fief_object_key_t *keys = malloc(n * sizeof *keys);
    double *in_callback = malloc((size_t)rounds * sizeof(double));
    double *evaluated = malloc((size_t)rounds * sizeof(double));
    printf("N = %zu, %d rounds (median ms)\n", n, rounds);
    for (int shape = 0; shape < 2; shape++) {
        fief_results_t *observed = fief_results_filter(everything, "age < 50", NULL, 0);
        if (shape == 1) {
            fief_sort_descriptor_t by_name = {"name", true};
            fief_results_t *sorted = fief_results_sort(observed, &by_name, 1);
            fief_release(observed);
            observed = sorted;
        }
        check(observed != NULL, "results");
        probe_t probe = {observed, keys, 0, 0};
        fief_notification_token_t *token = fief_results_add_notification_callback(observed, NULL, 0, on_changes, &probe, NULL);
        check(token != NULL, "fief_results_add_notification_callback");
        deliver_until_called(r, &probe, 0);
        for (int round = 0; round < rounds; round++) {
            int before = probe.calls;
            check(fief_realm_begin_write(r), "fief_realm_begin_write");
            fief_object_t *o = fief_object_get(r, item, made[(size_t)round * 2 % n]);
            check(o != NULL, "fief_object_get");
            fief_value_t name = {.type = FIEF_TYPE_STRING};
            char text[32];
            snprintf(text, sizeof text, "round %d", round);
            name.u.string.data = text;
            name.u.string.size = strlen(text);
            check(fief_object_set_value(o, keys2[1], name), "fief_object_set_value");
            fief_release(o);
            check(fief_realm_commit(r), "fief_realm_commit");
            deliver_until_called(r, &probe, before);
            in_callback[round] = probe.read_ms;
            /* The same reads on a fresh handle: an evaluation. */
            fief_results_t *fresh = fief_results_filter(everything, "age < 50", NULL, 0);
            if (shape == 1) {
                fief_sort_descriptor_t by_name = {"name", true};
                fief_results_t *sorted = fief_results_sort(fresh, &by_name, 1);
                fief_release(fresh);
                fresh = sorted;
            }
            evaluated[round] = read_all(fresh, keys);
            fief_release(fresh);
        }
        printf("%-26s  read in the callback %8.3f   fresh results (evaluating) %8.3f\n", names[shape],
               median(in_callback, rounds), median(evaluated, rounds));
        fief_release(token);
        fief_release(observed);
    }
    fief_release(everything);
    fief_release(r);
    fief_release(config);
    fief_release(schema);
    fief_file_delete(path, NULL);
    rmdir(dir);
    return 0;
}
