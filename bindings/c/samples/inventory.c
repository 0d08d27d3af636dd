/* inventory.c - string primary keys and upserts, doubles, booleans and
 * timestamps, deleting a query's results, and a frozen snapshot.
 *
 *   cc inventory.c $(pkg-config --cflags --libs fief) -o inventory */
#include <fief.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok, const char *what) {
    if (ok) return;
    fief_error_t e;
    if (fief_get_last_error(&e))
        fprintf(stderr, "%s failed: error %d: %s\n", what, (int)e.code, e.message);
    else
        fprintf(stderr, "%s failed\n", what);
    exit(1);
}

static fief_value_t val_str(const char *s) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_STRING;
    v.u.string.data = s;
    v.u.string.size = strlen(s);
    return v;
}
static fief_value_t val_int(int64_t x) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_INT;
    v.u.integer = x;
    return v;
}
static fief_value_t val_double(double x) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_DOUBLE;
    v.u.double_value = x;
    return v;
}
static fief_value_t val_bool(bool x) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_BOOL;
    v.u.boolean = x;
    return v;
}
static fief_value_t val_time(int64_t seconds) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_TIMESTAMP;
    v.u.timestamp.seconds = seconds;
    return v;
}

enum { SKU, NAME, QTY, PRICE, ACTIVE, ADDED, NPROPS };
static const char *const prop_names[NPROPS] = {"sku", "name", "qty", "price", "active", "added"};
static fief_class_key_t item;
static fief_property_key_t keys[NPROPS];

static void print_items(const char *title, const fief_results_t *r) {
    size_t n;
    check(fief_results_count(r, &n), "count");
    printf("%s (%zu):\n", title, n);
    for (size_t i = 0; i < n; i++) {
        fief_value_t v[NPROPS];
        check(fief_results_get_values(r, i, keys, NPROPS, v), "get_values");
        printf("  %.*s  %-8.*s qty %3lld  %7.2f  %s  added %lld\n", (int)v[SKU].u.string.size,
               v[SKU].u.string.data, (int)v[NAME].u.string.size, v[NAME].u.string.data,
               (long long)v[QTY].u.integer, v[PRICE].u.double_value, v[ACTIVE].u.boolean ? "on " : "off",
               (long long)v[ADDED].u.timestamp.seconds);
    }
}

int main(void) {
    fief_property_info_t props[NPROPS];
    memset(props, 0, sizeof props);
    const fief_type_t types[NPROPS] = {FIEF_TYPE_STRING, FIEF_TYPE_STRING, FIEF_TYPE_INT,
                                       FIEF_TYPE_DOUBLE, FIEF_TYPE_BOOL, FIEF_TYPE_TIMESTAMP};
    for (int i = 0; i < NPROPS; i++) {
        props[i].name = prop_names[i];
        props[i].type = types[i];
    }
    props[SKU].flags = FIEF_PROPERTY_PRIMARY_KEY;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Item";
    cls.num_properties = NPROPS;
    const fief_property_info_t *cp[1] = {props};
    fief_schema_t *schema = fief_schema_new(&cls, 1, cp);
    check(schema != NULL, "schema");

    fief_file_delete("inventory.fief", NULL);
    fief_config_t *config = fief_config_new();
    check(fief_config_set_path(config, "inventory.fief") && fief_config_set_schema(config, schema), "config");
    fief_realm_t *realm = fief_realm_open(config);
    check(realm != NULL, "open");

    fief_schema_t *rs = fief_realm_get_schema(realm);
    fief_class_info_t ci;
    size_t ci_index;
    bool found;
    check(rs && fief_schema_find_class(rs, "Item", &ci, &ci_index, &found) && found, "class");
    item = ci.key;
    for (int i = 0; i < NPROPS; i++) {
        fief_property_info_t pi;
        check(fief_schema_find_property(rs, ci_index, prop_names[i], &pi, &found) && found, prop_names[i]);
        keys[i] = pi.key;
    }
    fief_release(rs);

    uint64_t v0, v1;
    check(fief_realm_get_version(realm, &v0), "version");
    check(fief_realm_begin_write(realm), "begin_write");
    const struct { const char *sku, *name; int64_t qty; double price; bool active; int64_t added; } items[] = {
        {"A-100", "bolt", 250, 0.10, true, 1700000000},
        {"A-200", "nut", 0, 0.05, true, 1700000100},
        {"B-300", "gear", 12, 7.50, false, 1700000200},
        {"C-400", "spring", 0, 1.25, true, 1700000300},
    };
    for (size_t i = 0; i < 4; i++) {
        fief_value_t v[NPROPS] = {val_str(items[i].sku), val_str(items[i].name), val_int(items[i].qty),
                                  val_double(items[i].price), val_bool(items[i].active), val_time(items[i].added)};
        fief_object_t *o = fief_object_create(realm, item, keys, v, NPROPS, FIEF_UPDATE_POLICY_ERROR);
        check(o != NULL, "create");
        fief_release(o);
    }
    check(fief_realm_commit(realm), "commit");
    check(fief_realm_get_version(realm, &v1), "version");
    printf("commits so far: %llu\n", (unsigned long long)(v1 - v0));

    fief_results_t *all = fief_realm_get_objects(realm, item);
    check(all != NULL, "objects");
    fief_sort_descriptor_t by_sku = {"sku", true};
    fief_results_t *sorted = fief_results_sort(all, &by_sku, 1);
    check(sorted != NULL, "sort");
    print_items("Stock", sorted);

    /* A snapshot before the changes. */
    fief_realm_t *frozen = fief_realm_freeze(realm);
    check(frozen != NULL, "freeze");

    /* A duplicate SKU is an error; an upsert updates the existing item. */
    check(fief_realm_begin_write(realm), "begin_write");
    fief_property_key_t upd_keys[2] = {keys[SKU], keys[QTY]};
    fief_value_t upd[2] = {val_str("B-300"), val_int(20)};
    fief_object_t *dup = fief_object_create(realm, item, upd_keys, upd, 2, FIEF_UPDATE_POLICY_ERROR);
    fief_error_t err;
    if (!dup && fief_get_last_error(&err))
        printf("create B-300 again: error %d (duplicate primary key: %s)\n", (int)err.code,
               err.code == FIEF_ERR_DUPLICATE_PRIMARY_KEY ? "yes" : "no");
    fief_object_t *gear = fief_object_create(realm, item, upd_keys, upd, 2, FIEF_UPDATE_POLICY_MODIFIED);
    check(gear != NULL, "upsert");
    check(fief_object_set_value(gear, keys[ACTIVE], val_bool(true)), "activate");
    /* Restock the nut, then remove everything out of stock. */
    bool f;
    fief_object_t *nut = fief_object_find_by_primary_key(realm, item, val_str("A-200"), &f);
    check(nut != NULL, "find nut");
    check(fief_object_set_value(nut, keys[QTY], val_int(500)), "restock");
    fief_results_t *empty = fief_results_filter(all, "qty == 0", NULL, 0);
    check(empty != NULL, "filter");
    size_t n_empty;
    check(fief_results_count(empty, &n_empty), "count");
    printf("out of stock: %zu\n", n_empty);
    check(fief_results_delete_all(empty), "delete_all");
    check(fief_realm_commit(realm), "commit");
    print_items("Stock after restock and cleanup", sorted);

    /* Cheap active items: a filter with two arguments and an AND. */
    fief_value_t args_v[2] = {val_double(5.0), val_bool(true)};
    fief_query_arg_t args[2] = {{1, false, &args_v[0]}, {1, false, &args_v[1]}};
    fief_results_t *cheap = fief_results_filter(sorted, "price < $0 AND active == $1", args, 2);
    check(cheap != NULL, "filter cheap");
    print_items("Active and under 5.00", cheap);

    /* The frozen snapshot still shows the original stock. */
    fief_results_t *then = fief_results_resolve_in(sorted, frozen);
    check(then != NULL, "resolve_in");
    print_items("Snapshot taken before the changes", then);

    fief_release(then);
    fief_release(cheap);
    fief_release(empty);
    fief_release(nut);
    fief_release(gear);
    fief_release(frozen);
    fief_release(sorted);
    fief_release(all);
    fief_release(realm);
    fief_release(config);
    fief_release(schema);
    check(fief_file_delete("inventory.fief", NULL), "delete_files");
    return 0;
}
