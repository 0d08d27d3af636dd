/* Full-text search through the C ABI: FIEF_PROPERTY_FULLTEXT_INDEXED,
 * `TEXT` in fief_results_filter (literals and arguments, words, prefixes,
 * exclusions, combined with other predicates, through a link), liveness
 * and writes in a transaction, the schema flag read back, added and
 * removed, and the errors. */
#include "fief_test.h"

static fief_realm_t *R_;
static fief_class_key_t DOC, OWNER;
static fief_property_key_t P_N, P_TEXT, P_OWNER_NAME, P_OWNER_DOC;
/* The documents and their owners, as made (document i and its owner are "i + 1"). */
static fief_object_key_t DOC_KEYS[6], OWNER_KEYS[6];

/* Doc {n, text (full-text indexed, optional)}, Owner {name, doc -> Doc};
 * `indexed`: whether Doc.text has the flag. */
static fief_schema_t *schema(bool indexed) {
    fief_property_info_t doc[] = {
        t_prop_info("n", FIEF_TYPE_INT, 0),
        t_prop_info("text", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE | (indexed ? FIEF_PROPERTY_FULLTEXT_INDEXED : 0)),
    };
    fief_property_info_t owner[] = {
        t_prop_info("name", FIEF_TYPE_STRING, 0),
        t_prop_info("doc", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
    };
    owner[1].link_target = "Doc";
    fief_class_info_t c[2];
    memset(c, 0, sizeof c);
    c[0].name = "Doc";
    c[0].num_properties = 2;
    c[1].name = "Owner";
    c[1].num_properties = 2;
    const fief_property_info_t *pp[2] = {doc, owner};
    return fief_schema_new(c, 2, pp);
}

static const char *const TEXTS[] = {
    "The quick brown fox",        /* 1 */
    "A QUICK red Fox jumps",      /* 2 */
    "Café au lait, s'il vous plaît", /* 3 */
    "full-text search is fun",    /* 4 */
    NULL,                         /* 5: null */
    "quickly, quicker, quickest", /* 6 */
};
#define NDOCS 6

static void open_realm(const char *name, bool indexed) {
    fief_schema_t *s = schema(indexed);
    R(s);
    R_ = t_open(t_path(name), s, 0);
    fief_release(s);
    R(R_);
    DOC = t_class(R_, "Doc");
    OWNER = t_class(R_, "Owner");
    P_N = t_prop(R_, "Doc", "n");
    P_TEXT = t_prop(R_, "Doc", "text");
    P_OWNER_NAME = t_prop(R_, "Owner", "name");
    P_OWNER_DOC = t_prop(R_, "Owner", "doc");
}

static void fill(void) {
    fief_property_key_t keys[2] = {P_N, P_TEXT};
    fief_value_t vals[NDOCS * 2];
    for (int i = 0; i < NDOCS; i++) {
        vals[2 * i] = vi(i + 1);
        vals[2 * i + 1] = TEXTS[i] ? vs(TEXTS[i]) : vnull();
    }
    fief_object_key_t *made = DOC_KEYS;
    R(fief_realm_begin_write(R_));
    R(fief_object_create_many(R_, DOC, keys, 2, vals, NDOCS, FIEF_UPDATE_POLICY_ERROR, made));
    /* An owner per document: owner i links document i. */
    for (int i = 0; i < NDOCS; i++) {
        fief_property_key_t ok[2] = {P_OWNER_NAME, P_OWNER_DOC};
        fief_value_t ov[2] = {vs("owner"), vlink(DOC, made[i])};
        fief_object_t *o = fief_object_create(R_, OWNER, ok, ov, 2, FIEF_UPDATE_POLICY_ERROR);
        R(o);
        R(fief_object_get_key(o, &OWNER_KEYS[i]));
        fief_release(o);
    }
    R(fief_realm_commit(R_));
}

/* "1,3": the `n` of each Doc of `res`, or of each Owner's doc, in order. */
static const char *ns(const fief_results_t *res, bool owners) {
    static char buf[256];
    buf[0] = 0;
    size_t n = 0;
    if (!fief_results_count(res, &n)) return "<count failed>";
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        fief_object_key_t key = 0;
        if (!fief_results_get_key(res, i, &key)) return "<get_key failed>";
        int number = 0;
        for (int d = 0; d < NDOCS; d++)
            if ((owners ? OWNER_KEYS : DOC_KEYS)[d] == key) number = d + 1;
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", i ? "," : "", number);
    }
    return buf;
}

static void q(const char *file, int line, fief_class_key_t cls, const char *pred, const char *arg, const char *expected) {
    fief_results_t *all = fief_realm_get_objects(R_, cls);
    if (!all) {
        t_fail(file, line, pred, "(no results)");
        return;
    }
    fief_value_t v = arg ? vs(arg) : vnull();
    fief_query_arg_t qa = {1, false, &v};
    fief_results_t *res = fief_results_filter(all, pred, arg ? &qa : NULL, arg ? 1 : 0);
    fief_release(all);
    if (!res) {
        t_fail(file, line, pred, "(filter failed)");
        return;
    }
    const char *got = ns(res, cls == OWNER);
    if (strcmp(got, expected) != 0) {
        char d[600];
        snprintf(d, sizeof d, "(got [%s], expected [%s]; search %s)", got, expected, arg ? arg : "");
        t_fail(file, line, pred, d);
    }
    fief_release(res);
}
#define Q(pred, expected) q(__FILE__, __LINE__, DOC, pred, NULL, expected)
#define QA(pred, arg, expected) q(__FILE__, __LINE__, DOC, pred, arg, expected)
#define QO(pred, arg, expected) q(__FILE__, __LINE__, OWNER, pred, arg, expected)

TEST(search) {
    open_realm("search.fief", true);
    fill();
    /* Words (any case, accents ignored), prefixes, exclusions. */
    Q("text TEXT 'quick'", "1,2");
    Q("text TEXT 'QUICK fox'", "1,2");
    Q("text TEXT 'quick*'", "1,2,6");
    Q("text TEXT 'quick -red'", "1");
    Q("text TEXT 'cafe'", "3");
    Q("text TEXT 'CAFÉ plait'", "3");
    Q("text TEXT 'full text'", "4");
    Q("text TEXT '-quick'", "3,4,5,6");
    Q("text TEXT 'nothing'", "");
    QA("text TEXT $0", "fox jumps", "2");
    QA("text TEXT %@", "qui* -brown", "2,6");
    /* With other predicates. */
    Q("text TEXT 'quick' AND n > 1", "2");
    Q("text TEXT 'fun' OR n == 5", "4,5");
    Q("NOT text TEXT 'quick*'", "3,4,5");
    /* Through a link: the owners of the matching documents. */
    QO("doc.text TEXT $0", "quick fox", "1,2");
    QO("doc.text TEXT $0", "-quick", "3,4,5,6");
    /* Live, and uncommitted writes are searched. */
    fief_results_t *all = fief_realm_get_objects(R_, DOC);
    R(all);
    fief_value_t arg = vs("quick");
    fief_query_arg_t qa = {1, false, &arg};
    fief_results_t *quick = fief_results_filter(all, "text TEXT $0", &qa, 1);
    R(quick);
    EQU(t_count(quick), 2);
    R(fief_realm_begin_write(R_));
    fief_object_t *third = fief_results_get_object(all, 2);
    R(third);
    E(fief_object_set_value(third, P_TEXT, vs("quick thinking")));
    EQU(t_count(quick), 3);
    fief_object_t *first = fief_results_get_object(all, 0);
    R(first);
    E(fief_object_delete(first));
    EQU(t_count(quick), 2);
    R(fief_realm_commit(R_));
    EQU(t_count(quick), 2);
    Q("text TEXT 'cafe'", "");
    Q("text TEXT 'thinking'", "3");
    fief_release(first);
    fief_release(third);
    fief_release(quick);
    fief_release(all);
    fief_release(R_);
}

TEST(errors) {
    open_realm("errors.fief", true);
    fill();
    fief_results_t *all = fief_realm_get_objects(R_, DOC);
    R(all);
    EERRM(fief_results_filter(all, "n TEXT 'a'", NULL, 0), FIEF_ERR_QUERY_INVALID, "TEXT needs a full-text index: 'Doc.n' (int) has none");
    EERRM(fief_results_filter(all, "text TEXT ''", NULL, 0), FIEF_ERR_QUERY_INVALID, "it holds no word");
    EERRM(fief_results_filter(all, "text TEXT 'full-text'", NULL, 0), FIEF_ERR_QUERY_INVALID, "'full-text' is 2 words");
    EERRM(fief_results_filter(all, "text TEXT 'a -a'", NULL, 0), FIEF_ERR_QUERY_INVALID, "'a' is both searched for and excluded");
    fief_value_t five = vi(5);
    fief_query_arg_t qa = {1, false, &five};
    EERRM(fief_results_filter(all, "text TEXT $0", &qa, 1), FIEF_ERR_QUERY_ARGUMENT, "the search of TEXT (argument $0) must be a string");
    fief_value_t bad = vs("-ab*");
    qa.values = &bad;
    EERRM(fief_results_filter(all, "text TEXT $0", &qa, 1), FIEF_ERR_QUERY_ARGUMENT, "excludes a prefix");
    EERR(fief_results_filter(all, "text TEXT", NULL, 0), FIEF_ERR_QUERY_SYNTAX);
    fief_release(all);
    fief_release(R_);

    /* Only single string properties, not with a primary key or an index. */
    const uint32_t flags[3] = {FIEF_PROPERTY_FULLTEXT_INDEXED, FIEF_PROPERTY_FULLTEXT_INDEXED | FIEF_PROPERTY_PRIMARY_KEY,
                               FIEF_PROPERTY_FULLTEXT_INDEXED | FIEF_PROPERTY_INDEXED};
    const fief_type_t types[3] = {FIEF_TYPE_INT, FIEF_TYPE_STRING, FIEF_TYPE_STRING};
    const char *const messages[3] = {"property 'A.x' (int) cannot have a full-text index: only string properties can",
                                     "property 'A.x' cannot be both the primary key and full-text indexed",
                                     "property 'A.x' cannot be both indexed and full-text indexed: choose one"};
    for (int i = 0; i < 3; i++) {
        fief_property_info_t p = t_prop_info("x", types[i], flags[i]);
        fief_class_info_t c;
        memset(&c, 0, sizeof c);
        c.name = "A";
        c.num_properties = 1;
        const fief_property_info_t *pp[1] = {&p};
        EERRM(fief_schema_new(&c, 1, pp), FIEF_ERR_INVALID_SCHEMA, messages[i]);
    }
}

static uint32_t text_flags(void) {
    fief_schema_t *rs = fief_realm_get_schema(R_);
    fief_class_info_t ci;
    size_t cidx = 0;
    bool found = false;
    fief_property_info_t pi;
    memset(&pi, 0, sizeof pi);
    if (rs && fief_schema_find_class(rs, "Doc", &ci, &cidx, &found) && found) fief_schema_find_property(rs, cidx, "text", &pi, &found);
    fief_release(rs);
    return pi.flags;
}

TEST(schema_change_adds_and_removes_the_index) {
    open_realm("migrate.fief", false);
    fill();
    EQU(text_flags() & FIEF_PROPERTY_FULLTEXT_INDEXED, 0);
    fief_results_t *all = fief_realm_get_objects(R_, DOC);
    R(all);
    EERRM(fief_results_filter(all, "text TEXT 'quick'", NULL, 0), FIEF_ERR_QUERY_INVALID, "TEXT needs a full-text index");
    fief_release(all);
    E(fief_realm_close(R_));
    fief_release(R_);
    /* Added: built from the stored texts. */
    open_realm("migrate.fief", true);
    EQU(text_flags() & FIEF_PROPERTY_FULLTEXT_INDEXED, FIEF_PROPERTY_FULLTEXT_INDEXED);
    Q("text TEXT 'quick fox'", "1,2");
    E(fief_realm_close(R_));
    fief_release(R_);
    /* Removed. */
    open_realm("migrate.fief", false);
    EQU(text_flags() & FIEF_PROPERTY_FULLTEXT_INDEXED, 0);
    Q("text CONTAINS 'quick'", "1,6");
    E(fief_realm_close(R_));
    fief_release(R_);
}

static const t_case cases[] = {
    T(search), T(errors), T(schema_change_adds_and_removes_the_index),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
