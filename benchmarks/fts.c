/* Full-text search: 100,000 short texts (3 to 7 words of a fixed
 * vocabulary of 3,000 made-up words, deterministic pseudo-random, common
 * words more frequent), then a mix of one-word, two-word (AND) and prefix
 * searches, each counting its matches.
 *
 * Fief: class Doc {text: string, FIEF_PROPERTY_FULLTEXT_INDEXED}; a search
 * is fief_results_filter(all, "text TEXT $0") + fief_results_count.
 * SQLite: an FTS5 table as a competent user sets it up for boolean word
 * and prefix searches (prefix indexes for 2 and 3 letters, detail=none:
 * no positions, which only phrase and NEAR queries need); a search is
 * SELECT count(*) FROM docs WHERE docs MATCH ?, prepared once.
 *
 * Ops: fts_insert (untargeted: the cost of writing the indexed texts, one
 * transaction per side) and fts (targeted).  #included by bench.c after
 * run_graph; run_fts is called next to run_graph in main. */

#define FTS_DOCS 100000
#define FTS_VOCAB 3000
#define FTS_COMMON 100      /* the first words, picked far more often */
#define FTS_QUERIES 1200    /* a third each: one word, two words, a prefix */
#define FTS_WORD_MAX 16

enum { FOP_INSERT, FOP_SEARCH, NUM_FOPS };
static const char *const FOP_NAMES[NUM_FOPS] = {"fts_insert", "fts"};
static const int FOP_ELEMENTS[NUM_FOPS] = {FTS_DOCS, FTS_QUERIES};
/* fts_insert has no target (< 0): it shows what the index costs writes. */
static const double FTARGETS[NUM_FOPS] = {-1, 0.5};

typedef struct {
    char words[FTS_VOCAB][FTS_WORD_MAX];
    char *texts[FTS_DOCS];
    /* Per word, the documents holding it (ascending, once each). */
    int *postings[FTS_VOCAB];
    int num_postings[FTS_VOCAB];
    char queries[FTS_QUERIES][2 * FTS_WORD_MAX + 2];
    size_t expected[FTS_QUERIES];
    size_t expected_total;
} FtsData;

/* Word i: two or three syllables (consonant + vowel) named by i's digits. */
static void fts_word(int i, char *out) {
    static const char consonants[] = "bcdfghjklmnprstvz";
    static const char vowels[] = "aeiou";
    int syllables[3] = {i % 85, (i / 85) % 85, (i * 7 + 3) % 85};
    int count = i < FTS_VOCAB / 2 ? 2 : 3;
    int o = 0;
    for (int s = 0; s < count; s++) {
        out[o++] = consonants[syllables[s] / 5];
        out[o++] = vowels[syllables[s] % 5];
    }
    out[o] = 0;
}

static int fts_pick_word(void) {
    /* 30% of the words from the common ones. */
    return splitmix64() % 100 < 30 ? (int)(splitmix64() % FTS_COMMON) : (int)(splitmix64() % FTS_VOCAB);
}

static size_t fts_intersection(const int *a, int na, const int *b, int nb) {
    size_t n = 0;
    int i = 0, j = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) i++;
        else if (a[i] > b[j]) j++;
        else { n++; i++; j++; }
    }
    return n;
}

static void make_fts_data(FtsData *fd) {
    g_rng = 0xF75u;
    for (int w = 0; w < FTS_VOCAB; w++) fts_word(w, fd->words[w]);
    /* The texts, and which words each holds. */
    static int doc_words[FTS_DOCS][7];
    static int doc_len[FTS_DOCS];
    int capacity[FTS_VOCAB];
    memset(fd->num_postings, 0, sizeof fd->num_postings);
    for (int w = 0; w < FTS_VOCAB; w++) {
        capacity[w] = 64;
        fd->postings[w] = malloc(sizeof(int) * 64);
        CHECK(fd->postings[w], "fts: out of memory");
    }
    for (int d = 0; d < FTS_DOCS; d++) {
        int len = 3 + (int)(splitmix64() % 5);
        char buf[7 * (FTS_WORD_MAX + 1)];
        size_t o = 0;
        doc_len[d] = len;
        for (int k = 0; k < len; k++) {
            int w = fts_pick_word();
            doc_words[d][k] = w;
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", k ? " " : "", fd->words[w]);
            int n = fd->num_postings[w];
            if (n > 0 && fd->postings[w][n - 1] == d) continue; /* twice in one text */
            if (n == capacity[w]) {
                capacity[w] *= 2;
                fd->postings[w] = realloc(fd->postings[w], sizeof(int) * (size_t)capacity[w]);
                CHECK(fd->postings[w], "fts: out of memory");
            }
            fd->postings[w][fd->num_postings[w]++] = d;
        }
        fd->texts[d] = strdup(buf);
        CHECK(fd->texts[d], "fts: out of memory");
    }
    /* The searches and their counts, from the postings. */
    static unsigned stamp[FTS_DOCS];
    memset(stamp, 0, sizeof stamp);
    fd->expected_total = 0;
    for (int q = 0; q < FTS_QUERIES; q++) {
        size_t count = 0;
        if (q % 3 == 0) {
            int w = fts_pick_word();
            snprintf(fd->queries[q], sizeof fd->queries[q], "%s", fd->words[w]);
            count = (size_t)fd->num_postings[w];
        } else if (q % 3 == 1) {
            /* Two words of one text (so that something matches). */
            int d = (int)(splitmix64() % FTS_DOCS);
            int a = doc_words[d][splitmix64() % (uint64_t)doc_len[d]];
            int b = doc_words[d][splitmix64() % (uint64_t)doc_len[d]];
            if (a == b) b = (a + 1) % FTS_VOCAB;
            snprintf(fd->queries[q], sizeof fd->queries[q], "%s %s", fd->words[a], fd->words[b]);
            count = fts_intersection(fd->postings[a], fd->num_postings[a], fd->postings[b], fd->num_postings[b]);
        } else {
            /* The first 2 or 3 letters of a word. */
            int w = (int)(splitmix64() % FTS_VOCAB);
            int letters = 2 + (int)(splitmix64() % 2);
            snprintf(fd->queries[q], sizeof fd->queries[q], "%.*s*", letters, fd->words[w]);
            for (int v = 0; v < FTS_VOCAB; v++) {
                if (strncmp(fd->words[v], fd->queries[q], (size_t)letters) != 0) continue;
                for (int i = 0; i < fd->num_postings[v]; i++) {
                    int d = fd->postings[v][i];
                    if (stamp[d] != (unsigned)q + 1) { stamp[d] = (unsigned)q + 1; count++; }
                }
            }
        }
        fd->expected[q] = count;
        fd->expected_total += count;
    }
}

typedef struct {
    char path[8192];
    fief_realm_t *realm;
    fief_class_key_t cls;
    fief_property_key_t p_text;
} FtsFief;

static void fts_fief_open(FtsFief *g, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    fief_property_info_t prop;
    memset(&prop, 0, sizeof prop);
    prop.name = "text";
    prop.type = FIEF_TYPE_STRING;
    prop.flags = FIEF_PROPERTY_FULLTEXT_INDEXED;
    fief_class_info_t doc;
    memset(&doc, 0, sizeof doc);
    doc.name = "Doc";
    doc.num_properties = 1;
    const fief_property_info_t *const props[1] = {&prop};
    g->realm = bench_realm_open(path, &doc, 1, props);
    const char *const names[1] = {"text"};
    g->cls = bench_class_keys(g->realm, "Doc", names, &g->p_text, 1);
}

static void fts_fief_close(FtsFief *g) {
    bench_realm_close_and_delete(g->realm, g->path);
}

/* Insert every text in one transaction (one bulk create). */
static NOINLINE double fts_fief_insert(FtsFief *g, const FtsData *fd) {
    static fief_value_t values[FTS_DOCS];
    for (int d = 0; d < FTS_DOCS; d++) {
        values[d] = value_string(fd->texts[d], strlen(fd->texts[d]));
    }
    double t0 = now_ms();
    FB(fief_realm_begin_write(g->realm));
    FB(fief_object_create_many(g->realm, g->cls, &g->p_text, 1, values, FTS_DOCS, FIEF_UPDATE_POLICY_ERROR, NULL));
    FB(fief_realm_commit(g->realm));
    double t = now_ms() - t0;
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->cls));
    size_t n = 0;
    FB(fief_results_count(all, &n));
    FB(fief_release(all));
    CHECK(n == FTS_DOCS, "fief fts_insert: %zu documents", n);
    return t;
}

/* Every search, counted. */
static NOINLINE double fts_fief_search(FtsFief *g, const FtsData *fd, int check) {
    fief_results_t *all;
    FH(all, fief_realm_get_objects(g->realm, g->cls));
    size_t total = 0;
    double t0 = now_ms();
    for (int q = 0; q < FTS_QUERIES; q++) {
        fief_value_t v = value_string(fd->queries[q], strlen(fd->queries[q]));
        fief_query_arg_t arg = {1, false, &v};
        fief_results_t *found;
        FH(found, fief_results_filter(all, "text TEXT $0", &arg, 1));
        size_t n = 0;
        FB(fief_results_count(found, &n));
        FB(fief_release(found));
        if (check) CHECK(n == fd->expected[q], "fief fts: '%s' matched %zu, expected %zu", fd->queries[q], n, fd->expected[q]);
        total += n;
    }
    double t = now_ms() - t0;
    FB(fief_release(all));
    CHECK(total == fd->expected_total, "fief fts: %zu matches in all, expected %zu", total, fd->expected_total);
    return t;
}

typedef struct {
    char path[8192];
    sqlite3 *db;
    sqlite3_stmt *count;
} FtsSql;

static void fts_sql_open(FtsSql *g, const char *path) {
    snprintf(g->path, sizeof g->path, "%s", path);
    g->db = sql_open_wal(path);
    Sql s = sql_on(g->db);
    sql_exec(&s, "CREATE VIRTUAL TABLE docs USING fts5(text, prefix='2 3', detail=none)");
    g->count = sql_prep(&s, "SELECT count(*) FROM docs WHERE docs MATCH ?");
}

static void fts_sql_close(FtsSql *g) {
    sql_close_and_delete_db(g->db, g->path, &g->count, 1);
}

static NOINLINE double fts_sql_insert(FtsSql *g, const FtsData *fd) {
    Sql s = sql_on(g->db);
    sqlite3_stmt *ins = sql_prep(&s, "INSERT INTO docs(rowid, text) VALUES (?, ?)");
    double t0 = now_ms();
    sql_exec(&s, "BEGIN");
    for (int d = 0; d < FTS_DOCS; d++) {
        SQ(g->db, sqlite3_bind_int64(ins, 1, d + 1), SQLITE_OK);
        SQ(g->db, sqlite3_bind_text(ins, 2, fd->texts[d], -1, SQLITE_STATIC), SQLITE_OK);
        sql_step_done(&s, ins);
    }
    sql_exec(&s, "COMMIT");
    double t = now_ms() - t0;
    sqlite3_finalize(ins);
    sqlite3_stmt *all = sql_prep(&s, "SELECT count(*) FROM docs");
    int64_t n = sql_scalar(&s, all);
    sqlite3_finalize(all);
    CHECK(n == FTS_DOCS, "sqlite fts_insert: %lld documents", (long long)n);
    return t;
}

static NOINLINE double fts_sql_search(FtsSql *g, const FtsData *fd, int check) {
    size_t total = 0;
    double t0 = now_ms();
    for (int q = 0; q < FTS_QUERIES; q++) {
        SQ(g->db, sqlite3_bind_text(g->count, 1, fd->queries[q], -1, SQLITE_STATIC), SQLITE_OK);
        SQ(g->db, sqlite3_step(g->count), SQLITE_ROW);
        size_t n = (size_t)sqlite3_column_int64(g->count, 0);
        SQ(g->db, sqlite3_step(g->count), SQLITE_DONE);
        SQ(g->db, sqlite3_reset(g->count), SQLITE_OK);
        if (check) CHECK(n == fd->expected[q], "sqlite fts: '%s' matched %zu, expected %zu", fd->queries[q], n, fd->expected[q]);
        total += n;
    }
    double t = now_ms() - t0;
    CHECK(total == fd->expected_total, "sqlite fts: %zu matches in all, expected %zu", total, fd->expected_total);
    return t;
}

/* The full-text ops: warm-up + ROUNDS rounds (one in check mode), each on
 * fresh databases; prints a table and "fts targets: ...".  Runs when
 * FIEF_BENCH_OPS is unset or names fts or fts_insert. */
static void run_fts(int check_only, const char *ops_env) {
    int enabled[NUM_FOPS];
    int any = 0;
    for (int op = 0; op < NUM_FOPS; op++) any |= enabled[op] = op_named(ops_env, FOP_NAMES[op]);
    if (!any) return;
    static FtsData fd;
    static double times[2][NUM_FOPS][ROUNDS];
    make_fts_data(&fd);
    int total = check_only ? 1 : ROUNDS + 1;
    for (int r = 0; r < total; r++) {
        static FtsFief ff;
        FtsSql fs;
        char p[8192];
        snprintf(p, sizeof p, "%s/fts-fief-%d.realm", g_tmpdir, r);
        fts_fief_open(&ff, p);
        snprintf(p, sizeof p, "%s/fts-sqlite-%d.db", g_tmpdir, r);
        fts_sql_open(&fs, p);
        double t[2][NUM_FOPS];
        for (int op = 0; op < NUM_FOPS; op++) {
            /* The searches need the texts: inserted whichever ops run. */
            for (int side = 0; side < 2; side++) {
                int fief_side = (r % 2 == 0) ? side == 0 : side == 1;
                double v;
                if (op == FOP_INSERT) v = fief_side ? fts_fief_insert(&ff, &fd) : fts_sql_insert(&fs, &fd);
                else if (enabled[op]) v = fief_side ? fts_fief_search(&ff, &fd, check_only) : fts_sql_search(&fs, &fd, check_only);
                else v = 0;
                t[fief_side ? 0 : 1][op] = v;
            }
            if (!enabled[op]) {
                if (check_only) printf("check %-14s skipped (FIEF_BENCH_OPS)\n", FOP_NAMES[op]);
                continue;
            }
            if (check_only) printf("check %-14s ok  (fief %.3f ms, sqlite %.3f ms)\n", FOP_NAMES[op], t[0][op], t[1][op]);
            else if (r > 0) { times[0][op][r - 1] = t[0][op]; times[1][op][r - 1] = t[1][op]; }
            else fprintf(stderr, "bench: warm-up %-14s fief %10.3f ms  sqlite %10.3f ms\n", FOP_NAMES[op], t[0][op], t[1][op]);
        }
        fts_fief_close(&ff);
        fts_sql_close(&fs);
    }
    for (int d = 0; d < FTS_DOCS; d++) free(fd.texts[d]);
    for (int w = 0; w < FTS_VOCAB; w++) free(fd.postings[w]);
    if (check_only) return;
    printf("%-14s %10s %14s %14s %10s\n", "fts op", "elements", "fief_ms", "sqlite_ms", "fief/sqlite");
    int met = 0, compared = 0;
    char summary[512] = "";
    size_t off = 0;
    for (int op = 0; op < NUM_FOPS; op++) {
        if (!enabled[op]) {
            printf("%-14s %10d %14s %14s %10s\n", FOP_NAMES[op], FOP_ELEMENTS[op], "skipped", "skipped", "n/a");
            continue;
        }
        double mf = median(times[0][op], ROUNDS), ms = median(times[1][op], ROUNDS);
        double ratio = ms > 0 ? mf / ms : 0;
        printf("%-14s %10d %14.3f %14.3f %10.3f\n", FOP_NAMES[op], FOP_ELEMENTS[op], mf, ms, ratio);
        if (FTARGETS[op] < 0) {
            off += (size_t)snprintf(summary + off, sizeof summary - off, " %s %.3f (no target);", FOP_NAMES[op], ratio);
            continue;
        }
        int ok = ratio <= FTARGETS[op];
        met += ok;
        compared++;
        off += (size_t)snprintf(summary + off, sizeof summary - off, " %s %.3f%s%.2f %s;", FOP_NAMES[op], ratio,
                                ok ? "<=" : ">", FTARGETS[op], ok ? "MET" : "MISSED");
    }
    if (off) summary[off - 1] = 0;
    printf("fts targets: %d/%d met:%s\n", met, compared, summary);
}
