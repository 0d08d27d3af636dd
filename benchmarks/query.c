/*
 * query.c - the query workloads of issue 7, Fief vs SQLite.  #included by
 * bench.c (after run_graph) and run by run_query next to run_graph: each op
 * is a query (or many) counted with fief_results_count on Fief's side and
 * `SELECT count(...)` on SQLite's, on data built once before the rounds
 * (the queries only read).  Every run checks both engines' counts against
 * the count computed from the generated data.
 *
 *   idx_eq     `name == $0` on an indexed string, IDX_LOOKUPS lookups over
 *              IDX_OBJECTS objects (N in check mode; its own pair of
 *              databases); SQLite: an index on person(name).  The insert
 *              that builds it is the untargeted row idx_insert (timed once).
 *   link_eq    `owner.name == $0` over Q_DOGS dogs, LINK_LOOKUPS lookups;
 *              SQLite: a join, indexes on person(name) and dog(owner).
 *   link_eq_iter  the same lookups, each result iterated (every dog's key
 *              read, fief_results_get_keys in batches of 1,024 as the
 *              bindings iterate); SQLite: the join's dog ids read.
 *   list_avg   `dogs.@avg.age > 5` over Q_PEOPLE people with Q_DOGS_EACH
 *              dogs each; SQLite: the join table person_dogs.
 *   any_list   `ANY scores > $0` over Q_PLAYERS objects with lists of 0-8
 *              ints, ANY_QUERIES thresholds; SQLite: a child table
 *              scores(owner, position, value) with an index on value.
 *
 * Where SQLite has several natural forms of a query, the warm-up round (or
 * check mode's one run) times each and keeps the fastest, as prefix_iter
 * does, so SQLite's figure is its best honest one.
 */

#define IDX_OBJECTS 1000000
#define IDX_LOOKUPS 10000
#define Q_PEOPLE 10000
#define Q_DOGS_EACH 10
#define Q_DOGS (Q_PEOPLE * Q_DOGS_EACH)
#define Q_OWNER_NAMES 1000 /* people share names: about 10 people, 100 dogs per name */
#define LINK_LOOKUPS 1000
#define LIST_AVG_LIMIT 5
#define Q_PLAYERS 100000
#define Q_SCORES_MAX 8 /* a player's list holds 0..8 scores */
#define Q_SCORE_RANGE 1000
#define ANY_QUERIES 10

enum { QOP_IDX_INSERT, QOP_IDX_EQ, QOP_LINK_EQ, QOP_LINK_EQ_ITER, QOP_LIST_AVG, QOP_ANY_LIST, NUM_QOPS };
static const char *const QOP_NAMES[NUM_QOPS] = {"idx_insert", "idx_eq", "link_eq", "link_eq_iter", "list_avg",
                                                "any_list"};
/* Targets for Fief/SQLite time; idx_insert (building idx_eq's data, timed
 * once) and link_eq_iter (issue 21 asks it to get faster, names no ratio)
 * have none. */
static const double QTARGETS[NUM_QOPS] = {0, 0.5, 0.5, 0, 0.5, 0.5};
static const char *const QNOTES[NUM_QOPS] = {"  (timed once, untargeted)", "", "", "  (untargeted)", "", ""};

/* The fastest of several SQL forms, chosen by timing each once (checked). */
typedef struct {
    const char *const *forms;
    size_t count;
    sqlite3_stmt *chosen;
} SqlChoice;

/* ---------------------------------- data -------------------------------- */

/* The string of name number j: "n" then 7 letters, a bijection of j (odd
 * multiplier coprime with 26^7), so names are distinct and in no order. */
static void query_name(uint32_t j, char out[8]) {
    uint64_t x = ((uint64_t)j * 4294967291ull) % 8031810176ull; /* 26^7 */
    out[0] = 'n';
    for (int k = 7; k >= 1; k--) { out[k] = (char)('a' + x % 26); x /= 26; }
}

typedef struct {
    size_t n;              /* objects */
    uint32_t distinct;     /* names drawn from 0..distinct-1 */
    uint32_t *name_of;     /* n */
    uint32_t *count_of;    /* distinct: objects per name */
    uint32_t lookups[IDX_LOOKUPS];
    int64_t expected;      /* sum of the lookups' counts */
} IdxData;

static void make_idx_data(IdxData *x, size_t n) {
    uint64_t saved = g_rng;
    g_rng = 0x696478ull;
    x->n = n;
    x->distinct = (uint32_t)(n / 4 > 0 ? n / 4 : 1);
    x->name_of = malloc(n * sizeof *x->name_of);
    x->count_of = calloc(x->distinct, sizeof *x->count_of);
    CHECK(x->name_of && x->count_of, "out of memory");
    for (size_t i = 0; i < n; i++) {
        x->name_of[i] = (uint32_t)(splitmix64() % x->distinct);
        x->count_of[x->name_of[i]]++;
    }
    x->expected = 0;
    for (int i = 0; i < IDX_LOOKUPS; i++) {
        /* one in 8 looks up a name no object has */
        uint64_t r = splitmix64();
        x->lookups[i] = r % 8 == 0 ? x->distinct + (uint32_t)(r >> 8) % 1000 : (uint32_t)((r >> 8) % x->distinct);
        if (x->lookups[i] < x->distinct) x->expected += x->count_of[x->lookups[i]];
    }
    g_rng = saved;
}

typedef struct {
    uint32_t person_name[Q_PEOPLE];
    uint32_t people_named[Q_OWNER_NAMES];
    int32_t list_dog[Q_DOGS];  /* person p's dogs: [p * EACH, (p + 1) * EACH) */
    int32_t dog_owner[Q_DOGS];
    int32_t dog_age[Q_DOGS];   /* 0..10 */
    uint32_t link_lookups[LINK_LOOKUPS];
    int64_t link_expected;     /* sum of the dogs each lookup counts */
    int64_t link_id_expected;  /* sum over the lookups of their dogs' indexes + 1 (SQLite's ids) */
    int64_t avg_expected;      /* people whose dogs' average age > LIST_AVG_LIMIT */
    uint8_t scores_len[Q_PLAYERS];
    int16_t scores[Q_PLAYERS][Q_SCORES_MAX];
    int32_t any_limits[ANY_QUERIES];
    int64_t any_expected;      /* sum over the thresholds of the players with a score above */
} QueryData;

static void make_query_data(QueryData *q) {
    uint64_t saved = g_rng;
    g_rng = 0x7175657279ull;
    memset(q->people_named, 0, sizeof q->people_named);
    for (int p = 0; p < Q_PEOPLE; p++) {
        q->person_name[p] = (uint32_t)(splitmix64() % Q_OWNER_NAMES);
        q->people_named[q->person_name[p]]++;
    }
    /* every dog in exactly one list, its owner's; the lists in no key order */
    for (int i = 0; i < Q_DOGS; i++) q->list_dog[i] = i;
    for (int i = Q_DOGS - 1; i > 0; i--) {
        int j = (int)(splitmix64() % (uint64_t)(i + 1));
        int32_t t = q->list_dog[i];
        q->list_dog[i] = q->list_dog[j];
        q->list_dog[j] = t;
    }
    for (int i = 0; i < Q_DOGS; i++) {
        q->dog_owner[q->list_dog[i]] = i / Q_DOGS_EACH;
        q->dog_age[i] = (int32_t)(splitmix64() % 11);
    }
    q->link_expected = 0;
    for (int i = 0; i < LINK_LOOKUPS; i++) {
        q->link_lookups[i] = (uint32_t)(splitmix64() % Q_OWNER_NAMES);
        q->link_expected += (int64_t)q->people_named[q->link_lookups[i]] * Q_DOGS_EACH;
    }
    static int64_t id_sum_of_name[Q_OWNER_NAMES];
    memset(id_sum_of_name, 0, sizeof id_sum_of_name);
    for (int i = 0; i < Q_DOGS; i++) id_sum_of_name[q->person_name[q->dog_owner[i]]] += i + 1;
    q->link_id_expected = 0;
    for (int i = 0; i < LINK_LOOKUPS; i++) q->link_id_expected += id_sum_of_name[q->link_lookups[i]];
    q->avg_expected = 0;
    for (int p = 0; p < Q_PEOPLE; p++) {
        int sum = 0;
        for (int k = 0; k < Q_DOGS_EACH; k++) sum += q->dog_age[q->list_dog[p * Q_DOGS_EACH + k]];
        if (sum > LIST_AVG_LIMIT * Q_DOGS_EACH) q->avg_expected++; /* average > limit, exactly */
    }
    for (int i = 0; i < Q_PLAYERS; i++) {
        q->scores_len[i] = (uint8_t)(splitmix64() % (Q_SCORES_MAX + 1));
        for (int k = 0; k < q->scores_len[i]; k++) q->scores[i][k] = (int16_t)(splitmix64() % Q_SCORE_RANGE);
    }
    q->any_expected = 0;
    for (int t = 0; t < ANY_QUERIES; t++) {
        q->any_limits[t] = (int32_t)((2 * t + 1) * Q_SCORE_RANGE / (2 * ANY_QUERIES)); /* 50, 150, ..., 950 */
        for (int i = 0; i < Q_PLAYERS; i++) {
            for (int k = 0; k < q->scores_len[i]; k++) {
                if (q->scores[i][k] > q->any_limits[t]) { q->any_expected++; break; }
            }
        }
    }
    g_rng = saved;
}

/* ---------------------------------- Fief -------------------------------- */

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t cls;
    fief_property_key_t p_name, p_age;
} IdxFief;

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t person_cls, dog_cls, player_cls;
    fief_property_key_t p_person_name, p_person_dogs, p_dog_name, p_dog_age, p_dog_owner, p_scores;
    int64_t link_key_expected; /* link_eq_iter: sum over the lookups of their dogs' object keys */
} QueryFief;

/* Opens idx_eq's realm and inserts its objects (create_many, batches of
 * 100,000, one transaction); returns the insert's time. */
static double idx_fief_build(IdxFief *g, const IdxData *x, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t props[2];
    memset(props, 0, sizeof props);
    props[0].name = "name"; props[0].type = FIEF_TYPE_STRING; props[0].flags = FIEF_PROPERTY_INDEXED;
    props[1].name = "age";  props[1].type = FIEF_TYPE_INT;
    fief_class_info_t cls;
    memset(&cls, 0, sizeof cls);
    cls.name = "Person";
    cls.num_properties = 2;
    const fief_property_info_t *const class_props[1] = {props};
    g->realm = bench_realm_open(path, &cls, 1, class_props);
    const char *const names[2] = {"name", "age"};
    fief_property_key_t keys[2];
    g->cls = bench_class_keys(g->realm, "Person", names, keys, 2);
    g->p_name = keys[0];
    g->p_age = keys[1];
    enum { BATCH = 100000 };
    fief_value_t *values = malloc((size_t)BATCH * 2 * sizeof *values);
    char *text = malloc((size_t)BATCH * 8);
    CHECK(values && text, "out of memory");
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    for (size_t first = 0; first < x->n; first += BATCH) {
        size_t rows = x->n - first < BATCH ? x->n - first : BATCH;
        for (size_t r = 0; r < rows; r++) {
            query_name(x->name_of[first + r], text + r * 8);
            values[2 * r] = value_string(text + r * 8, 8);
            values[2 * r + 1] = value_int((int64_t)((first + r) % 90));
        }
        const fief_property_key_t pk[2] = {g->p_name, g->p_age};
        FB(fief_object_create_many(g->realm, g->cls, pk, 2, values, rows, FIEF_UPDATE_POLICY_ERROR, NULL));
    }
    FB(fief_realm_commit(g->realm));
    double t = now_ms() - t0;
    free(values);
    free(text);
    return t;
}

/* The people, their dogs (each linking its owner, listed in its owner's
 * `dogs`) and the players, in one realm. */
static void query_fief_build(QueryFief *g, const QueryData *q, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t person[2], dog[3], player[1];
    memset(person, 0, sizeof person);
    memset(dog, 0, sizeof dog);
    memset(player, 0, sizeof player);
    person[0].name = "name"; person[0].type = FIEF_TYPE_STRING; person[0].flags = FIEF_PROPERTY_INDEXED;
    person[1].name = "dogs"; person[1].type = FIEF_TYPE_LINK; person[1].link_target = "Dog";
    person[1].collection_type = FIEF_COLLECTION_LIST;
    dog[0].name = "name";  dog[0].type = FIEF_TYPE_STRING;
    dog[1].name = "age";   dog[1].type = FIEF_TYPE_INT;
    dog[2].name = "owner"; dog[2].type = FIEF_TYPE_LINK; dog[2].link_target = "Person"; dog[2].flags = FIEF_PROPERTY_NULLABLE;
    player[0].name = "scores"; player[0].type = FIEF_TYPE_INT; player[0].collection_type = FIEF_COLLECTION_LIST;
    fief_class_info_t classes[3];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Person"; classes[0].num_properties = 2;
    classes[1].name = "Dog";    classes[1].num_properties = 3;
    classes[2].name = "Player"; classes[2].num_properties = 1;
    const fief_property_info_t *const class_props[3] = {person, dog, player};
    g->realm = bench_realm_open(path, classes, 3, class_props);
    const char *const pnames[2] = {"name", "dogs"};
    fief_property_key_t keys[3];
    g->person_cls = bench_class_keys(g->realm, "Person", pnames, keys, 2);
    g->p_person_name = keys[0];
    g->p_person_dogs = keys[1];
    const char *const dnames[3] = {"name", "age", "owner"};
    g->dog_cls = bench_class_keys(g->realm, "Dog", dnames, keys, 3);
    g->p_dog_name = keys[0];
    g->p_dog_age = keys[1];
    g->p_dog_owner = keys[2];
    const char *const snames[1] = {"scores"};
    g->player_cls = bench_class_keys(g->realm, "Player", snames, keys, 1);
    g->p_scores = keys[0];

    static fief_object_key_t people[Q_PEOPLE], dogs[Q_DOGS];
    static char text[Q_PEOPLE * 8];
    fief_value_t *values = malloc((size_t)Q_DOGS * 3 * sizeof *values);
    CHECK(values, "out of memory");
    FB(fief_realm_begin_write(g->realm));
    for (int p = 0; p < Q_PEOPLE; p++) {
        query_name(q->person_name[p], text + p * 8);
        values[p] = value_string(text + p * 8, 8);
    }
    FB(fief_object_create_many(g->realm, g->person_cls, &g->p_person_name, 1, values, Q_PEOPLE,
                               FIEF_UPDATE_POLICY_ERROR, people));
    for (int i = 0; i < Q_DOGS; i++) {
        values[3 * i] = value_string("dog", 3);
        values[3 * i + 1] = value_int(q->dog_age[i]);
        memset(&values[3 * i + 2], 0, sizeof values[0]);
        values[3 * i + 2].type = FIEF_TYPE_LINK;
        values[3 * i + 2].u.link.class_key = g->person_cls;
        values[3 * i + 2].u.link.object_key = people[q->dog_owner[i]];
    }
    const fief_property_key_t dk[3] = {g->p_dog_name, g->p_dog_age, g->p_dog_owner};
    FB(fief_object_create_many(g->realm, g->dog_cls, dk, 3, values, Q_DOGS, FIEF_UPDATE_POLICY_ERROR, dogs));
    static int64_t key_sum_of_name[Q_OWNER_NAMES];
    memset(key_sum_of_name, 0, sizeof key_sum_of_name);
    for (int i = 0; i < Q_DOGS; i++) key_sum_of_name[q->person_name[q->dog_owner[i]]] += dogs[i];
    g->link_key_expected = 0;
    for (int i = 0; i < LINK_LOOKUPS; i++) g->link_key_expected += key_sum_of_name[q->link_lookups[i]];
    for (int p = 0; p < Q_PEOPLE; p++) {
        fief_value_t elems[Q_DOGS_EACH];
        memset(elems, 0, sizeof elems);
        for (int k = 0; k < Q_DOGS_EACH; k++) {
            elems[k].type = FIEF_TYPE_LINK;
            elems[k].u.link.class_key = g->dog_cls;
            elems[k].u.link.object_key = dogs[q->list_dog[p * Q_DOGS_EACH + k]];
        }
        fief_object_t *o;
        FH(o, fief_object_get(g->realm, g->person_cls, people[p]));
        fief_list_t *l;
        FH(l, fief_object_get_list(o, g->p_person_dogs));
        FB(fief_list_append(l, elems, Q_DOGS_EACH));
        FB(fief_release(l));
        FB(fief_release(o));
    }
    for (int i = 0; i < Q_PLAYERS; i++) {
        fief_object_t *o;
        FH(o, fief_object_create(g->realm, g->player_cls, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR));
        if (q->scores_len[i]) {
            fief_value_t elems[Q_SCORES_MAX];
            for (int k = 0; k < q->scores_len[i]; k++) elems[k] = value_int(q->scores[i][k]);
            fief_list_t *l;
            FH(l, fief_object_get_list(o, g->p_scores));
            FB(fief_list_append(l, elems, q->scores_len[i]));
            FB(fief_release(l));
        }
        FB(fief_release(o));
    }
    FB(fief_realm_commit(g->realm));
    free(values);
}

/* The count of the objects of `cls` matching `predicate` with one argument. */
static size_t q_fief_count(fief_results_t *all, const char *predicate, const fief_value_t *arg) {
    fief_query_arg_t qa = {.count = 1, .is_list = false, .values = arg};
    fief_results_t *res;
    FH(res, fief_results_filter(all, predicate, &qa, 1));
    size_t c = 0;
    FB(fief_results_count(res, &c));
    FB(fief_release(res));
    return c;
}

/* The time of `num_lookups` counts of `predicate` over the objects of `cls`,
 * $0 being each of the names numbered `lookups`; their sum in `*sum`. */
static double q_fief_name_lookups(fief_realm_t *realm, fief_class_key_t cls, const char *predicate,
                                  const uint32_t *lookups, int num_lookups, int64_t *sum) {
    char name[8];
    *sum = 0;
    double t0 = now_ms();
    fief_results_t *all;
    FH(all, fief_realm_get_objects(realm, cls));
    for (int i = 0; i < num_lookups; i++) {
        query_name(lookups[i], name);
        fief_value_t arg = value_string(name, 8);
        *sum += (int64_t)q_fief_count(all, predicate, &arg);
    }
    FB(fief_release(all));
    return now_ms() - t0;
}

static NOINLINE double query_fief_idx_eq(IdxFief *g, const IdxData *x) {
    int64_t sum;
    double t = q_fief_name_lookups(g->realm, g->cls, "name == $0", x->lookups, IDX_LOOKUPS, &sum);
    CHECK(sum == x->expected, "fief idx_eq: %lld objects found, expected %lld", (long long)sum, (long long)x->expected);
    return t;
}

static NOINLINE double query_fief_link_eq(QueryFief *g, const QueryData *q) {
    int64_t sum;
    double t = q_fief_name_lookups(g->realm, g->dog_cls, "owner.name == $0", q->link_lookups, LINK_LOOKUPS, &sum);
    CHECK(sum == q->link_expected, "fief link_eq: %lld dogs found, expected %lld", (long long)sum,
          (long long)q->link_expected);
    return t;
}

/* link_eq's lookups, each result iterated as the Swift overlay and the
 * Python package iterate: fief_results_get_keys in batches of 1,024 until
 * a batch comes back short (no count first). */
static NOINLINE double query_fief_link_eq_iter(QueryFief *g, const QueryData *q) {
    char name[8];
    int64_t found = 0, key_sum = 0;
    double t0 = now_ms();
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->dog_cls));
    for (int i = 0; i < LINK_LOOKUPS; i++) {
        query_name(q->link_lookups[i], name);
        fief_value_t arg = value_string(name, 8);
        fief_query_arg_t qa = {.count = 1, .is_list = false, .values = &arg};
        fief_results_t *res;
        FH(res, fief_results_filter(all, "owner.name == $0", &qa, 1));
        fief_object_key_t keys[1024];
        size_t start = 0, got = 0;
        do {
            FB(fief_results_get_keys(res, start, 1024, keys, &got));
            for (size_t k = 0; k < got; k++) key_sum += keys[k];
            start += got;
        } while (got == 1024);
        found += (int64_t)start;
        FB(fief_release(res));
    }
    FB(fief_release(all));
    double t = now_ms() - t0;
    CHECK(found == q->link_expected && key_sum == g->link_key_expected,
          "fief link_eq_iter: %lld dogs found (key sum %lld), expected %lld (%lld)", (long long)found,
          (long long)key_sum, (long long)q->link_expected, (long long)g->link_key_expected);
    return t;
}

static NOINLINE double query_fief_list_avg(QueryFief *g, const QueryData *q) {
    double t0 = now_ms();
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->person_cls));
    fief_value_t arg = value_int(LIST_AVG_LIMIT);
    size_t c = q_fief_count(all, "dogs.@avg.age > $0", &arg);
    FB(fief_release(all));
    double t = now_ms() - t0;
    CHECK((int64_t)c == q->avg_expected, "fief list_avg: %zu people, expected %lld", c, (long long)q->avg_expected);
    return t;
}

static NOINLINE double query_fief_any_list(QueryFief *g, const QueryData *q) {
    int64_t sum = 0;
    double t0 = now_ms();
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->player_cls));
    for (int t = 0; t < ANY_QUERIES; t++) {
        fief_value_t arg = value_int(q->any_limits[t]);
        sum += (int64_t)q_fief_count(all, "ANY scores > $0", &arg);
    }
    FB(fief_release(all));
    double t = now_ms() - t0;
    CHECK(sum == q->any_expected, "fief any_list: %lld players found, expected %lld", (long long)sum,
          (long long)q->any_expected);
    return t;
}

/* --------------------------------- SQLite ------------------------------- */

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *count_name;
} IdxSql;

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *link_eq, *link_eq_iter;
    SqlChoice list_avg, any_list;
} QuerySql;

/* idx_eq's table, with the index on name made before the rows (so it is
 * maintained by the insert, as Fief's is); returns the insert's time. */
static double idx_sql_build(IdxSql *g, const IdxData *x, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    sql_exec(&s, "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)");
    sql_exec(&s, "CREATE INDEX person_name ON person(name)");
    sqlite3_stmt *st = sql_prep(&s, "INSERT INTO person(id, name, age) VALUES (?, ?, ?)");
    char name[8];
    double t0 = now_ms();
    sql_exec(&s, "BEGIN");
    for (size_t i = 0; i < x->n; i++) {
        query_name(x->name_of[i], name);
        SQ(g->db, sqlite3_bind_int64(st, 1, (sqlite3_int64)i + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_text(st, 2, name, 8, SQLITE_TRANSIENT), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(st, 3, (sqlite3_int64)(i % 90)), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sql_exec(&s, "COMMIT");
    double t = now_ms() - t0;
    sqlite3_finalize(st);
    g->count_name = sql_prep(&s, "SELECT count(*) FROM person WHERE name = ?");
    return t;
}

static void query_sql_build(QuerySql *g, const QueryData *q, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    /* The indexes a competent user makes for these queries: person(name)
     * for lookups by name, dog(owner) for an owner's dogs (the join of
     * link_eq), person_dogs keyed by (person, position) for a person's list
     * (list_avg's grouping), with an index on dog for the way back, and
     * scores keyed by (owner, position) with an index on value (any_list:
     * a range of values, covering the owner). */
    sql_create_people_and_dogs(&s);
    sql_exec(&s, "CREATE TABLE player(id INTEGER PRIMARY KEY)");
    sql_exec(&s, "CREATE TABLE scores(owner INTEGER NOT NULL REFERENCES player(id), position INTEGER NOT NULL, "
                 "value INTEGER NOT NULL, PRIMARY KEY(owner, position)) WITHOUT ROWID");
    sql_exec(&s, "CREATE INDEX scores_value ON scores(value)");
    char name[8];
    sql_exec(&s, "BEGIN");
    sqlite3_stmt *st = sql_prep(&s, "INSERT INTO person(id, name) VALUES (?, ?)");
    for (int p = 0; p < Q_PEOPLE; p++) {
        query_name(q->person_name[p], name);
        SQ(g->db, sqlite3_bind_int64(st, 1, p + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_text(st, 2, name, 8, SQLITE_TRANSIENT), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    st = sql_prep(&s, "INSERT INTO dog(id, name, age, owner) VALUES (?, 'dog', ?, ?)");
    for (int i = 0; i < Q_DOGS; i++) {
        SQ(g->db, sqlite3_bind_int64(st, 1, i + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(st, 2, q->dog_age[i]), SQLITE_OK);
        SQ(g->db, sqlite3_bind_int64(st, 3, q->dog_owner[i] + 1), SQLITE_OK);
        sql_step_done(&s, st);
    }
    sqlite3_finalize(st);
    st = sql_prep(&s, "INSERT INTO person_dogs(person, position, dog) VALUES (?, ?, ?)");
    for (int p = 0; p < Q_PEOPLE; p++) {
        for (int k = 0; k < Q_DOGS_EACH; k++) {
            SQ(g->db, sqlite3_bind_int64(st, 1, p + 1), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(st, 2, k), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(st, 3, q->list_dog[p * Q_DOGS_EACH + k] + 1), SQLITE_OK);
            sql_step_done(&s, st);
        }
    }
    sqlite3_finalize(st);
    sqlite3_stmt *pl = sql_prep(&s, "INSERT INTO player(id) VALUES (?)");
    st = sql_prep(&s, "INSERT INTO scores(owner, position, value) VALUES (?, ?, ?)");
    for (int i = 0; i < Q_PLAYERS; i++) {
        SQ(g->db, sqlite3_bind_int64(pl, 1, i + 1), SQLITE_OK);
        sql_step_done(&s, pl);
        for (int k = 0; k < q->scores_len[i]; k++) {
            SQ(g->db, sqlite3_bind_int64(st, 1, i + 1), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(st, 2, k), SQLITE_OK);
            SQ(g->db, sqlite3_bind_int64(st, 3, q->scores[i][k]), SQLITE_OK);
            sql_step_done(&s, st);
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(pl);
    sql_exec(&s, "COMMIT");
    sql_exec(&s, "ANALYZE");
    g->link_eq = sql_prep(&s, "SELECT count(*) FROM dog JOIN person ON dog.owner = person.id WHERE person.name = ?");
    g->link_eq_iter = sql_prep(&s, "SELECT dog.id FROM dog JOIN person ON dog.owner = person.id WHERE person.name = ?");
}

static const char *const LIST_AVG_FORMS[] = {
    "SELECT count(*) FROM (SELECT 1 FROM person_dogs JOIN dog ON dog.id = person_dogs.dog "
    "GROUP BY person_dogs.person HAVING avg(dog.age) > ?)",
    "SELECT count(*) FROM person WHERE (SELECT avg(dog.age) FROM person_dogs JOIN dog ON dog.id = person_dogs.dog "
    "WHERE person_dogs.person = person.id) > ?",
};
static const char *const ANY_LIST_FORMS[] = {
    "SELECT count(DISTINCT owner) FROM scores WHERE value > ?",
    "SELECT count(*) FROM player WHERE EXISTS (SELECT 1 FROM scores WHERE scores.owner = player.id AND scores.value > ?)",
};

static int64_t q_sql_count(sqlite3 *db, sqlite3_stmt *st, int64_t arg) {
    SQ(db, sqlite3_bind_int64(st, 1, arg), SQLITE_OK);
    Sql s = sql_on(db);
    return sql_scalar(&s, st);
}

/* SQLite's side of q_fief_name_lookups: `count` run with each name bound. */
static double q_sql_name_lookups(sqlite3 *db, sqlite3_stmt *count, const uint32_t *lookups, int num_lookups,
                                 int64_t *sum) {
    char name[8];
    *sum = 0;
    Sql s = sql_on(db);
    double t0 = now_ms();
    for (int i = 0; i < num_lookups; i++) {
        query_name(lookups[i], name);
        SQ(db, sqlite3_bind_text(count, 1, name, 8, SQLITE_TRANSIENT), SQLITE_OK);
        *sum += sql_scalar(&s, count);
    }
    return now_ms() - t0;
}

static NOINLINE double query_sql_idx_eq(IdxSql *g, const IdxData *x) {
    int64_t sum;
    double t = q_sql_name_lookups(g->db, g->count_name, x->lookups, IDX_LOOKUPS, &sum);
    CHECK(sum == x->expected, "sqlite idx_eq: %lld objects found, expected %lld", (long long)sum, (long long)x->expected);
    return t;
}

static NOINLINE double query_sql_link_eq(QuerySql *g, const QueryData *q) {
    int64_t sum;
    double t = q_sql_name_lookups(g->db, g->link_eq, q->link_lookups, LINK_LOOKUPS, &sum);
    CHECK(sum == q->link_expected, "sqlite link_eq: %lld dogs found, expected %lld", (long long)sum,
          (long long)q->link_expected);
    return t;
}

static NOINLINE double query_sql_link_eq_iter(QuerySql *g, const QueryData *q) {
    char name[8];
    int64_t found = 0, id_sum = 0;
    double t0 = now_ms();
    for (int i = 0; i < LINK_LOOKUPS; i++) {
        query_name(q->link_lookups[i], name);
        SQ(g->db, sqlite3_bind_text(g->link_eq_iter, 1, name, 8, SQLITE_TRANSIENT), SQLITE_OK);
        int rc;
        while ((rc = sqlite3_step(g->link_eq_iter)) == SQLITE_ROW) {
            id_sum += sqlite3_column_int64(g->link_eq_iter, 0);
            found++;
        }
        CHECK(rc == SQLITE_DONE, "sqlite link_eq_iter: %s", sqlite3_errmsg(g->db));
        SQ(g->db, sqlite3_reset(g->link_eq_iter), SQLITE_OK);
    }
    double t = now_ms() - t0;
    CHECK(found == q->link_expected && id_sum == q->link_id_expected,
          "sqlite link_eq_iter: %lld dogs found (id sum %lld), expected %lld (%lld)", (long long)found,
          (long long)id_sum, (long long)q->link_expected, (long long)q->link_id_expected);
    return t;
}

static double sql_list_avg_run(QuerySql *g, sqlite3_stmt *st, const QueryData *q) {
    double t0 = now_ms();
    int64_t c = q_sql_count(g->db, st, LIST_AVG_LIMIT);
    double t = now_ms() - t0;
    CHECK(c == q->avg_expected, "sqlite list_avg (%s): %lld people, expected %lld", sqlite3_sql(st), (long long)c,
          (long long)q->avg_expected);
    return t;
}

static double sql_any_list_run(QuerySql *g, sqlite3_stmt *st, const QueryData *q) {
    int64_t sum = 0;
    double t0 = now_ms();
    for (int t = 0; t < ANY_QUERIES; t++) sum += q_sql_count(g->db, st, q->any_limits[t]);
    double t = now_ms() - t0;
    CHECK(sum == q->any_expected, "sqlite any_list (%s): %lld players found, expected %lld", sqlite3_sql(st),
          (long long)sum, (long long)q->any_expected);
    return t;
}

/* The statement of `choice`: on first use, each form timed (and checked)
 * by `run`, the fastest kept. */
static sqlite3_stmt *sql_choose(QuerySql *g, SqlChoice *choice, const QueryData *q, const char *op,
                                double (*run)(QuerySql *, sqlite3_stmt *, const QueryData *)) {
    if (choice->chosen) return choice->chosen;
    Sql s = sql_on(g->db);
    double best = 0;
    for (size_t k = 0; k < choice->count; k++) {
        sqlite3_stmt *st = sql_prep(&s, choice->forms[k]);
        double t = run(g, st, q);
        fprintf(stderr, "bench: sqlite %s candidate %.3f ms: %s\n", op, t, choice->forms[k]);
        if (!choice->chosen || t < best) {
            if (choice->chosen) sqlite3_finalize(choice->chosen);
            choice->chosen = st;
            best = t;
        } else {
            sqlite3_finalize(st);
        }
    }
    fprintf(stderr, "bench: sqlite %s query: %s\n", op, sqlite3_sql(choice->chosen));
    return choice->chosen;
}

static NOINLINE double query_sql_list_avg(QuerySql *g, const QueryData *q) {
    return sql_list_avg_run(g, sql_choose(g, &g->list_avg, q, "list_avg", sql_list_avg_run), q);
}

static NOINLINE double query_sql_any_list(QuerySql *g, const QueryData *q) {
    return sql_any_list_run(g, sql_choose(g, &g->any_list, q, "any_list", sql_any_list_run), q);
}

/* ---------------------------------- runs -------------------------------- */

/* The query ops: the data built once (idx_eq's at IDX_OBJECTS objects, or
 * `n` in check mode), then warm-up + ROUNDS rounds (one run in check
 * mode); prints a third table.  The ops run are those FIEF_BENCH_OPS names
 * (all when it is unset); FIEF_BENCH_QUERY=0 skips them all.  `repeat`:
 * each op runs that many times in a row (profiling; the last time counts). */
static void run_query(int check_only, size_t n, int repeat) {
    const char *env = getenv("FIEF_BENCH_QUERY");
    if (env && strcmp(env, "0") == 0) return;
    const char *ops_env = getenv("FIEF_BENCH_OPS");
    int enabled[NUM_QOPS], any_idx = 0, any_graph = 0;
    for (int op = 0; op < NUM_QOPS; op++) enabled[op] = op_named(ops_env, QOP_NAMES[op]);
    if (enabled[QOP_IDX_EQ]) enabled[QOP_IDX_INSERT] = 1;
    any_idx = enabled[QOP_IDX_INSERT];
    any_graph = enabled[QOP_LINK_EQ] || enabled[QOP_LINK_EQ_ITER] || enabled[QOP_LIST_AVG] || enabled[QOP_ANY_LIST];
    if (!any_idx && !any_graph) return;

    static IdxData x;
    static QueryData q;
    static IdxFief xf;
    static QueryFief qf;
    IdxSql xs;
    QuerySql qs;
    memset(&xs, 0, sizeof xs);
    memset(&qs, 0, sizeof qs);
    qs.list_avg.forms = LIST_AVG_FORMS;
    qs.list_avg.count = sizeof LIST_AVG_FORMS / sizeof LIST_AVG_FORMS[0];
    qs.any_list.forms = ANY_LIST_FORMS;
    qs.any_list.count = sizeof ANY_LIST_FORMS / sizeof ANY_LIST_FORMS[0];
    size_t idx_n = check_only ? n : IDX_OBJECTS;
    static double times[2][NUM_QOPS][ROUNDS];
    char p[8192];
    if (any_idx) {
        make_idx_data(&x, idx_n);
        fprintf(stderr, "bench: query data: %zu indexed objects\n", idx_n);
        snprintf(p, sizeof p, "%s/query-idx-fief.realm", g_tmpdir);
        double tf = idx_fief_build(&xf, &x, p);
        snprintf(p, sizeof p, "%s/query-idx-sqlite.db", g_tmpdir);
        double ts = idx_sql_build(&xs, &x, p);
        for (int r = 0; r < ROUNDS; r++) { times[0][QOP_IDX_INSERT][r] = tf; times[1][QOP_IDX_INSERT][r] = ts; }
        if (check_only) printf("check %-14s ok  (fief %.3f ms, sqlite %.3f ms)\n", QOP_NAMES[QOP_IDX_INSERT], tf, ts);
    }
    if (any_graph) {
        make_query_data(&q);
        snprintf(p, sizeof p, "%s/query-fief.realm", g_tmpdir);
        query_fief_build(&qf, &q, p);
        snprintf(p, sizeof p, "%s/query-sqlite.db", g_tmpdir);
        query_sql_build(&qs, &q, p);
    }
    int total = check_only ? 1 : ROUNDS + 1;
    for (int r = 0; r < total; r++) {
        for (int op = QOP_IDX_EQ; op < NUM_QOPS; op++) {
            if (!enabled[op]) {
                if (check_only && r == 0) printf("check %-14s skipped (FIEF_BENCH_OPS)\n", QOP_NAMES[op]);
                continue;
            }
            double t[2] = {0, 0};
            for (int k = repeat > 1 ? repeat : 1; k > 0; k--) {
                for (int side = 0; side < 2; side++) {
                    int fief_side = (r % 2 == 0) ? side == 0 : side == 1;
                    double v;
                    switch (op) {
                    case QOP_IDX_EQ: v = fief_side ? query_fief_idx_eq(&xf, &x) : query_sql_idx_eq(&xs, &x); break;
                    case QOP_LINK_EQ: v = fief_side ? query_fief_link_eq(&qf, &q) : query_sql_link_eq(&qs, &q); break;
                    case QOP_LINK_EQ_ITER: v = fief_side ? query_fief_link_eq_iter(&qf, &q) : query_sql_link_eq_iter(&qs, &q); break;
                    case QOP_LIST_AVG: v = fief_side ? query_fief_list_avg(&qf, &q) : query_sql_list_avg(&qs, &q); break;
                    default: v = fief_side ? query_fief_any_list(&qf, &q) : query_sql_any_list(&qs, &q); break;
                    }
                    t[fief_side ? 0 : 1] = v;
                }
            }
            if (check_only) printf("check %-14s ok  (fief %.3f ms, sqlite %.3f ms)\n", QOP_NAMES[op], t[0], t[1]);
            else if (r > 0) { times[0][op][r - 1] = t[0]; times[1][op][r - 1] = t[1]; }
            else fprintf(stderr, "bench: warm-up %-14s fief %10.3f ms  sqlite %10.3f ms\n", QOP_NAMES[op], t[0], t[1]);
        }
    }
    if (any_idx) {
        bench_realm_close_and_delete(xf.realm, xf.path);
        sql_close_and_delete_db(xs.db, xs.path, &xs.count_name, 1);
        free(x.name_of);
        free(x.count_of);
    }
    if (any_graph) {
        bench_realm_close_and_delete(qf.realm, qf.path);
        sqlite3_stmt *const stmts[] = {qs.link_eq, qs.link_eq_iter, qs.list_avg.chosen, qs.any_list.chosen};
        sql_close_and_delete_db(qs.db, qs.path, stmts, 4);
    }
    if (check_only) return;
    const size_t objects[NUM_QOPS] = {idx_n, idx_n, Q_DOGS, Q_DOGS, Q_PEOPLE, Q_PLAYERS};
    printf("%-14s %10s %14s %14s %10s\n", "query op", "objects", "fief_ms", "sqlite_ms", "fief/sqlite");
    int met = 0, compared = 0;
    char summary[1024] = "";
    size_t off = 0;
    for (int op = 0; op < NUM_QOPS; op++) {
        if (!enabled[op]) {
            printf("%-14s %10zu %14s %14s %10s\n", QOP_NAMES[op], objects[op], "skipped", "skipped", "n/a");
            continue;
        }
        double mf = median(times[0][op], ROUNDS), ms = median(times[1][op], ROUNDS);
        double ratio = ms > 0 ? mf / ms : 0;
        printf("%-14s %10zu %14.3f %14.3f %10.3f%s\n", QOP_NAMES[op], objects[op], mf, ms, ratio, QNOTES[op]);
        if (QTARGETS[op] <= 0) continue;
        int ok = ratio <= QTARGETS[op];
        met += ok;
        compared++;
        off += (size_t)snprintf(summary + off, sizeof summary - off, " %s %.3f%s%.2f %s;", QOP_NAMES[op], ratio,
                                ok ? "<=" : ">", QTARGETS[op], ok ? "MET" : "MISSED");
    }
    if (off) summary[off - 1] = 0;
    printf("query targets: %d/%d met:%s\n", met, compared, summary);
}
