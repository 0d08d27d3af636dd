/* people.c - a realm file with a schema; create, read, update, delete and
 * query objects (a filter with $0 arguments, multi-key sorting).
 *
 *   cc people.c $(pkg-config --cflags --libs fief) -o people */
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

static fief_value_t int_value(int64_t x) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_INT;
    v.u.integer = x;
    return v;
}

static fief_value_t string_value(const char *s) {
    fief_value_t v;
    memset(&v, 0, sizeof v);
    if (!s) return v; /* FIEF_TYPE_NULL */
    v.type = FIEF_TYPE_STRING;
    v.u.string.data = s;
    v.u.string.size = strlen(s);
    return v;
}

/* Keys of class Person and its properties. */
static fief_class_key_t person;
static fief_property_key_t p_id, p_name, p_age, p_email;

static void load_keys(fief_realm_t *realm) {
    fief_schema_t *s = fief_realm_get_schema(realm);
    check(s != NULL, "fief_realm_get_schema");
    fief_class_info_t ci;
    size_t index;
    bool found;
    check(fief_schema_find_class(s, "Person", &ci, &index, &found) && found, "find class Person");
    person = ci.key;
    const char *names[4] = {"id", "name", "age", "email"};
    fief_property_key_t *keys[4] = {&p_id, &p_name, &p_age, &p_email};
    for (int i = 0; i < 4; i++) {
        fief_property_info_t pi;
        check(fief_schema_find_property(s, index, names[i], &pi, &found) && found, names[i]);
        *keys[i] = pi.key;
    }
    fief_release(s);
}

static void print_results(const char *title, const fief_results_t *results) {
    size_t n;
    check(fief_results_count(results, &n), "fief_results_count");
    printf("%s (%zu):\n", title, n);
    fief_property_key_t props[4] = {p_id, p_name, p_age, p_email};
    for (size_t i = 0; i < n; i++) {
        fief_value_t v[4];
        check(fief_results_get_values(results, i, props, 4, v), "fief_results_get_values");
        printf("  #%lld %-6.*s age %lld  %.*s\n", (long long)v[0].u.integer, (int)v[1].u.string.size,
               v[1].u.string.data, (long long)v[2].u.integer,
               v[3].type == FIEF_TYPE_NULL ? 9 : (int)v[3].u.string.size,
               v[3].type == FIEF_TYPE_NULL ? "(no mail)" : v[3].u.string.data);
    }
}

int main(void) {
    /* Schema: Person { id: int (primary key), name: string (indexed),
     *                  age: int, email: string? } */
    fief_property_info_t props[4];
    memset(props, 0, sizeof props);
    props[0].name = "id";
    props[0].type = FIEF_TYPE_INT;
    props[0].flags = FIEF_PROPERTY_PRIMARY_KEY;
    props[1].name = "name";
    props[1].type = FIEF_TYPE_STRING;
    props[1].flags = FIEF_PROPERTY_INDEXED;
    props[2].name = "age";
    props[2].type = FIEF_TYPE_INT;
    props[3].name = "email";
    props[3].type = FIEF_TYPE_STRING;
    props[3].flags = FIEF_PROPERTY_NULLABLE;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Person";
    cls.num_properties = 4;
    const fief_property_info_t *class_props[1] = {props};
    fief_schema_t *schema = fief_schema_new(&cls, 1, class_props);
    check(schema != NULL, "fief_schema_new");

    fief_file_delete("people.fief", NULL); /* start afresh */
    fief_config_t *config = fief_config_new();
    check(config != NULL, "fief_config_new");
    check(fief_config_set_path(config, "people.fief"), "set_path");
    check(fief_config_set_schema(config, schema), "set_schema");
    check(fief_config_set_schema_version(config, 1), "set_schema_version");
    fief_realm_t *realm = fief_realm_open(config);
    check(realm != NULL, "fief_realm_open");
    load_keys(realm);

    /* Create five people in one transaction. */
    struct { int64_t id; const char *name; int64_t age; const char *email; } rows[] = {
        {1, "Ada", 36, "ada@example.org"},
        {2, "Brian", 29, NULL},
        {3, "Chloe", 41, "chloe@example.org"},
        {4, "Dmitri", 29, "dmitri@example.org"},
        {5, "Emma", 52, NULL},
    };
    fief_property_key_t keys[4] = {p_id, p_name, p_age, p_email};
    fief_value_t values[5 * 4];
    for (int i = 0; i < 5; i++) {
        values[4 * i + 0] = int_value(rows[i].id);
        values[4 * i + 1] = string_value(rows[i].name);
        values[4 * i + 2] = int_value(rows[i].age);
        values[4 * i + 3] = string_value(rows[i].email);
    }
    check(fief_realm_begin_write(realm), "begin_write");
    check(fief_object_create_many(realm, person, keys, 4, values, 5, FIEF_UPDATE_POLICY_ERROR, NULL),
          "create_many");
    check(fief_realm_commit(realm), "commit");

    fief_results_t *all = fief_realm_get_objects(realm, person);
    check(all != NULL, "get_objects");
    print_results("Everyone", all);

    /* Read one object by primary key. */
    bool found;
    fief_object_t *chloe = fief_object_find_by_primary_key(realm, person, int_value(3), &found);
    check(chloe != NULL, "find #3");
    fief_value_t name, age;
    check(fief_object_get_value(chloe, p_name, &name) && fief_object_get_value(chloe, p_age, &age), "read #3");
    printf("Found #3: %.*s, %lld\n", (int)name.u.string.size, name.u.string.data, (long long)age.u.integer);

    /* Query: age >= $0, sorted by age descending then name. */
    fief_value_t min_age = int_value(30);
    fief_query_arg_t arg = {1, false, &min_age};
    fief_results_t *adults = fief_results_filter(all, "age >= $0", &arg, 1);
    check(adults != NULL, "filter");
    fief_sort_descriptor_t by_age[2] = {{"age", false}, {"name", true}};
    fief_results_t *sorted = fief_results_sort(adults, by_age, 2);
    check(sorted != NULL, "sort");
    print_results("Age >= 30, oldest first", sorted);

    /* Update: Chloe has a birthday, Brian gets an email address.  The results
     * are live: they follow the change. */
    check(fief_realm_begin_write(realm), "begin_write");
    check(fief_object_set_value(chloe, p_age, int_value(42)), "set age");
    fief_object_t *brian = fief_object_find_by_primary_key(realm, person, int_value(2), &found);
    check(brian != NULL, "find #2");
    check(fief_object_set_value(brian, p_email, string_value("brian@example.org")), "set email");
    check(fief_realm_commit(realm), "commit");
    print_results("Age >= 30 after the update", sorted);

    /* Delete: Emma leaves. */
    fief_object_t *emma = fief_object_find_by_primary_key(realm, person, int_value(5), &found);
    check(emma != NULL, "find #5");
    check(fief_realm_begin_write(realm), "begin_write");
    check(fief_object_delete(emma), "delete");
    check(fief_realm_commit(realm), "commit");
    printf("Emma still valid: %s\n", fief_object_is_valid(emma) ? "yes" : "no");

    /* A string query with %@ and a two-key sort over everyone. */
    fief_value_t letter = string_value("d");
    fief_query_arg_t larg = {1, false, &letter};
    fief_results_t *named = fief_results_filter(all, "name CONTAINS[c] %@ OR email == nil", &larg, 1);
    check(named != NULL, "filter by name");
    fief_sort_descriptor_t by_name = {"name", false};
    fief_results_t *named_sorted = fief_results_sort(named, &by_name, 1);
    check(named_sorted != NULL, "sort by name");
    print_results("Name contains 'd' (any case) or no mail, Z-A", named_sorted);
    print_results("Everyone now", all);

    fief_release(named_sorted);
    fief_release(named);
    fief_release(emma);
    fief_release(brian);
    fief_release(sorted);
    fief_release(adults);
    fief_release(chloe);
    fief_release(all);
    fief_release(realm);
    fief_release(config);
    fief_release(schema);
    check(fief_file_delete("people.fief", NULL), "delete_files");
    return 0;
}
