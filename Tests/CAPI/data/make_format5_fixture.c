/* Writes format5_fulltext_sets.fief (see ../format5_data.h): run once,
 * built against the format-5 library (commit 9886c58), to make the fixture;
 * not part of the build (the current library writes format 6).
 *
 *   cc -I include -I Tests/CAPI Tests/CAPI/data/make_format5_fixture.c \
 *      -L build/lib -lfief -llmdb -o /tmp/make_format5_fixture
 *   LD_LIBRARY_PATH=build/lib /tmp/make_format5_fixture /tmp/f5.fief \
 *      Tests/CAPI/data/format5_fulltext_sets.fief
 *
 * The library writes every document and bag; the documents' later changes
 * are made by the library too, but the full-text index is then put back as
 * it was before them (raw LMDB), which is what a library older than
 * full-text search leaves: it writes texts without knowing the index.
 * The result is compacted with mdb_env_copy2. */
#include "format5_data.h"

#include <lmdb.h>
#include <stdlib.h>
#include <unistd.h>

static void fail(const char *what) {
    fief_error_t e;
    if (fief_get_last_error(&e)) fprintf(stderr, "%s: %s\n", what, e.message);
    else fprintf(stderr, "%s\n", what);
    exit(1);
}
#define CHECK(x) do { if (!(x)) fail(#x); } while (0)
#define MDB(x) do { int rc_ = (x); if (rc_) { fprintf(stderr, "%s: %s\n", #x, mdb_strerror(rc_)); exit(1); } } while (0)

static fief_property_info_t prop(const char *name, fief_type_t type, uint32_t flags) {
    fief_property_info_t p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.type = type;
    p.flags = flags;
    return p;
}

static fief_realm_t *open_realm(const char *path) {
    fief_property_info_t doc[] = {prop("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                  prop("text", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE | FIEF_PROPERTY_FULLTEXT_INDEXED)};
    fief_property_info_t bag[] = {prop("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                  prop("values", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE)};
    bag[1].collection_type = FIEF_COLLECTION_SET;
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Doc";
    classes[0].num_properties = 2;
    classes[1].name = "Bag";
    classes[1].num_properties = 2;
    const fief_property_info_t *props[2] = {doc, bag};
    fief_schema_t *schema = fief_schema_new(classes, 2, props);
    CHECK(schema);
    fief_config_t *config = fief_config_new();
    CHECK(config && fief_config_set_path(config, path) && fief_config_set_schema(config, schema));
    fief_realm_t *realm = fief_realm_open(config);
    CHECK(realm);
    fief_release(config);
    fief_release(schema);
    return realm;
}

/* The entries of the full-text index (c1.t2: Doc is class 1, text property 2). */
typedef struct { char token[64]; size_t size; int64_t object; } posting;
static posting *postings;
static size_t num_postings;

static void with_index(const char *path, int restore) {
    MDB_env *env;
    MDB(mdb_env_create(&env));
    MDB(mdb_env_set_maxdbs(env, 64));
    MDB(mdb_env_set_mapsize(env, 1ull << 30));
    MDB(mdb_env_open(env, path, MDB_NOSUBDIR, 0644));
    MDB_txn *txn;
    MDB(mdb_txn_begin(env, NULL, restore ? 0 : MDB_RDONLY, &txn));
    MDB_dbi dbi;
    MDB(mdb_dbi_open(txn, "c1.t2", MDB_DUPSORT, &dbi));
    if (!restore) {
        MDB_cursor *cursor;
        MDB(mdb_cursor_open(txn, dbi, &cursor));
        MDB_val k, v;
        postings = calloc(20 * F5_DOCS, sizeof *postings);
        int rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST);
        while (rc == 0) {
            CHECK(k.mv_size < sizeof postings->token && v.mv_size == 8 && num_postings < 20 * F5_DOCS);
            memcpy(postings[num_postings].token, k.mv_data, k.mv_size);
            postings[num_postings].size = k.mv_size;
            memcpy(&postings[num_postings].object, v.mv_data, 8);
            num_postings++;
            rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
        }
        mdb_cursor_close(cursor);
        mdb_txn_abort(txn);
    } else {
        MDB(mdb_drop(txn, dbi, 0));
        for (size_t i = 0; i < num_postings; i++) {
            MDB_val k = {postings[i].size, postings[i].token}, v = {8, &postings[i].object};
            MDB(mdb_put(txn, dbi, &k, &v, 0));
        }
        MDB(mdb_txn_commit(txn));
    }
    mdb_env_close(env);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s WORK.fief OUT.fief\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    unlink(path);
    char text[256];
    /* Generation 0, indexed. */
    fief_realm_t *realm = open_realm(path);
    fief_schema_t *schema = fief_realm_get_schema(realm);
    fief_class_info_t info;
    bool found = false;
    CHECK(fief_schema_find_class(schema, "Doc", &info, NULL, &found) && found && info.key == 1);
    fief_class_key_t doc = info.key;
    CHECK(fief_schema_find_class(schema, "Bag", &info, NULL, &found) && found);
    fief_class_key_t bag = info.key;
    fief_release(schema);
    fief_property_key_t doc_props[2] = {1, 2}, bag_id = 1, bag_values = 2;
    CHECK(fief_realm_begin_write(realm));
    for (int i = 0; i < F5_DOCS; i++) {
        f5_text(i, 0, text, sizeof text);
        fief_value_t values[2] = {f5_int(i), f5_string(text)};
        fief_object_t *o = fief_object_create(realm, doc, doc_props, values, 2, FIEF_UPDATE_POLICY_ERROR);
        CHECK(o);
        fief_release(o);
    }
    for (int b = 0; b < F5_BAGS; b++) {
        fief_value_t id = f5_int(b);
        fief_object_t *o = fief_object_create(realm, bag, &bag_id, &id, 1, FIEF_UPDATE_POLICY_ERROR);
        CHECK(o);
        fief_set_t *set = fief_object_get_set(o, bag_values);
        CHECK(set);
        fief_value_t values[F5_MAX_BAG];
        int n = f5_bag(b, values);
        for (int i = 0; i < n; i++) CHECK(fief_set_insert(set, values[i], NULL));
        size_t size = 0;
        CHECK(fief_set_count(set, &size) && (int)size == F5_SIZE_5[b]);
        fief_release(set);
        fief_release(o);
    }
    CHECK(fief_realm_commit(realm));
    CHECK(fief_realm_close(realm));
    fief_release(realm);
    with_index(path, 0);

    /* Generation 1, by "an older library". */
    realm = open_realm(path);
    CHECK(fief_realm_begin_write(realm));
    for (int i = 0; i < F5_DOCS; i++) {
        if (!F5_CHANGED(i) && !F5_DELETED(i)) continue;
        fief_object_t *o = fief_object_get(realm, doc, i);
        CHECK(o);
        if (F5_DELETED(i)) {
            CHECK(fief_object_delete(o));
        } else {
            f5_text(i, 1, text, sizeof text);
            CHECK(fief_object_set_value(o, doc_props[1], f5_string(text)));
        }
        fief_release(o);
    }
    for (int i = F5_DOCS; i < F5_DOCS + F5_ADDED; i++) {
        f5_text(i, 1, text, sizeof text);
        fief_value_t values[2] = {f5_int(i), f5_string(text)};
        fief_object_t *o = fief_object_create(realm, doc, doc_props, values, 2, FIEF_UPDATE_POLICY_ERROR);
        CHECK(o);
        fief_release(o);
    }
    CHECK(fief_realm_commit(realm));
    CHECK(fief_realm_close(realm));
    fief_release(realm);
    with_index(path, 1);

    /* Compacted. */
    MDB_env *env;
    MDB(mdb_env_create(&env));
    MDB(mdb_env_set_maxdbs(env, 64));
    MDB(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644));
    unlink(argv[2]);
    MDB(mdb_env_copy2(env, argv[2], MDB_CP_COMPACT));
    mdb_env_close(env);
    printf("%s: %zu postings of generation 0 kept\n", argv[2], num_postings);
    return 0;
}
