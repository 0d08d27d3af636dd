/* tour.c - the README's C tour: a class, two objects, a query. */
#include <fief.h>
#include <stdio.h>

/* Every call returns NULL or false on failure; the reason is the last error. */
static int check(bool ok, const char *what) {
    fief_error_t error;
    if (ok) return 0;
    if (fief_get_last_error(&error)) fprintf(stderr, "%s: %s\n", what, error.message);
    return 1;
}

int main(void) {
    /* class Dog { id: int [primary key]; name: string; age: int } */
    fief_property_info_t dog[3] = {
        {.name = "id", .type = FIEF_TYPE_INT, .flags = FIEF_PROPERTY_PRIMARY_KEY},
        {.name = "name", .type = FIEF_TYPE_STRING},
        {.name = "age", .type = FIEF_TYPE_INT}};
    fief_class_info_t dog_class = {.name = "Dog", .num_properties = 3};
    const fief_property_info_t *properties[1] = {dog};
    fief_schema_t *schema = fief_schema_new(&dog_class, 1, properties);
    fief_config_t *config = fief_config_new();
    if (check(schema && fief_config_set_path(config, "tour.fief") &&
              fief_config_set_schema(config, schema), "config")) return 1;
    fief_realm_t *realm = fief_realm_open(config);
    if (check(realm != NULL, "open")) return 1;

    /* The keys of the class and its properties, as the file has them. */
    fief_schema_t *stored = fief_realm_get_schema(realm);
    size_t index;
    bool found;
    fief_property_key_t keys[3];
    for (int i = 0; i < 3; i++) {
        fief_property_info_t info;
        fief_schema_find_class(stored, "Dog", &dog_class, &index, &found);
        fief_schema_find_property(stored, index, dog[i].name, &info, &found);
        keys[i] = info.key;
    }

    /* One write transaction, two dogs (an existing id is updated). */
    fief_value_t rows[2][3] = {
        {{.type = FIEF_TYPE_INT, .u.integer = 1}, {.type = FIEF_TYPE_STRING, .u.string = {"Rex", 3}},
         {.type = FIEF_TYPE_INT, .u.integer = 3}},
        {{.type = FIEF_TYPE_INT, .u.integer = 2}, {.type = FIEF_TYPE_STRING, .u.string = {"Ace", 3}},
         {.type = FIEF_TYPE_INT, .u.integer = 1}}};
    if (check(fief_realm_begin_write(realm), "begin_write")) return 1;
    for (int i = 0; i < 2; i++)
        fief_release(fief_object_create(realm, dog_class.key, keys, rows[i], 3, FIEF_UPDATE_POLICY_MODIFIED));
    if (check(fief_realm_commit(realm), "commit")) return 1;

    /* Realm's query language, with an argument: the dogs younger than 2. */
    fief_value_t two = {.type = FIEF_TYPE_INT, .u.integer = 2};
    fief_query_arg_t argument = {1, false, &two};
    fief_results_t *all = fief_realm_get_objects(realm, dog_class.key);
    fief_results_t *young = fief_results_filter(all, "age < $0 SORT(name ASC)", &argument, 1);
    size_t count = 0;
    if (check(young && fief_results_count(young, &count), "query")) return 1;
    for (size_t i = 0; i < count; i++) {
        fief_object_t *puppy = fief_results_get_object(young, i);
        fief_value_t name;
        fief_object_get_value(puppy, keys[1], &name);
        printf("%.*s is young\n", (int)name.u.string.size, name.u.string.data);
        fief_release(puppy);
    }

    /* Every handle is given back with fief_release, in any order. */
    fief_release(young);
    fief_release(all);
    fief_release(stored);
    fief_release(realm);
    fief_release(config);
    fief_release(schema);
    return 0;
}
