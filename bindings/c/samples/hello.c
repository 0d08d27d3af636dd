/* hello.c - the smallest Fief program: open an in-memory realm with a
 * one-class schema, create an object, read it back.
 *
 *   cc hello.c $(pkg-config --cflags --libs fief) -o hello */
#include <fief.h>

#include <stdio.h>
#include <string.h>

static int fail(const char *what) {
    fief_error_t e;
    if (fief_get_last_error(&e))
        fprintf(stderr, "%s failed: error %d: %s\n", what, (int)e.code, e.message);
    else
        fprintf(stderr, "%s failed\n", what);
    return 1;
}

int main(void) {
    printf("Fief %s\n", fief_version_string());

    /* Schema: class Greeting { text: string } */
    fief_property_info_t props[1];
    memset(props, 0, sizeof props);
    props[0].name = "text";
    props[0].type = FIEF_TYPE_STRING;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Greeting";
    cls.num_properties = 1;
    const fief_property_info_t *class_props[1] = {props};
    fief_schema_t *schema = fief_schema_new(&cls, 1, class_props);
    if (!schema) return fail("fief_schema_new");

    fief_config_t *config = fief_config_new();
    if (!fief_config_set_in_memory_identifier(config, "hello") || !fief_config_set_schema(config, schema))
        return fail("config");
    fief_realm_t *realm = fief_realm_open(config);
    if (!realm) return fail("fief_realm_open");

    /* Keys from the realm's schema. */
    fief_schema_t *rs = fief_realm_get_schema(realm);
    fief_class_info_t ci;
    fief_property_info_t pi;
    size_t ci_index;
    bool found;
    if (!rs || !fief_schema_find_class(rs, "Greeting", &ci, &ci_index, &found) || !found ||
        !fief_schema_find_property(rs, ci_index, "text", &pi, &found) || !found)
        return fail("schema lookup");

    fief_value_t v;
    memset(&v, 0, sizeof v);
    v.type = FIEF_TYPE_STRING;
    v.u.string.data = "Hello, Fief!";
    v.u.string.size = strlen(v.u.string.data);
    if (!fief_realm_begin_write(realm)) return fail("begin_write");
    fief_object_t *obj = fief_object_create(realm, ci.key, &pi.key, &v, 1, FIEF_UPDATE_POLICY_ERROR);
    if (!obj || !fief_realm_commit(realm)) return fail("create");

    fief_value_t out;
    if (!fief_object_get_value(obj, pi.key, &out)) return fail("get_value");
    printf("%.*s\n", (int)out.u.string.size, out.u.string.data);

    fief_release(obj);
    fief_release(rs);
    fief_release(realm);
    fief_release(config);
    fief_release(schema);
    return 0;
}
