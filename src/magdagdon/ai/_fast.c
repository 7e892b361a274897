/*
 * The strong player's inner loop in C: the learned afterstate value and the best next
 * afterstate of every roll (the work of one chance node of the one-roll expectimax).
 *
 * This is an optional accelerator of magdagdon.ai.features.LinearValue and of
 * magdagdon.ai.strong.Evaluator.roll_values: the pure-Python code is the reference, and
 * every value computed here is bit for bit the same double (the same operations in the
 * same order, built without floating-point contraction), so a player plays the same moves
 * with and without it. See magdagdon/ai/fast.py for the Python side.
 *
 * Square codes of a line key: a number v is v - 1 (0-5), a RUIN is 6, an empty square is
 * 7 + the index of its allowed mask (17 masks are possible: no value, all values, and the
 * 15 runs of one to three consecutive values; an allowed mask is an intersection of runs
 * v-1..v+1).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

#define EMPTY 0
#define RUIN 7
#define ALL_VALUES 63
#define NCODES 24
#define TABLE_SIZE (NCODES * NCODES * NCODES * NCODES)
#define NROLLS 126
#define NPARAMS 30
#define NLINE_WEIGHTS 25

/* params layout (built by fast.py) */
#define P_FREE 0
#define P_TIGHT 1 /* 1..4: tight by mask size 0 (dead) .. 3 */
#define P_VALUE_SUM 5
#define P_FRONTIER 6
#define P_UNPLACEABLE 7
#define P_ONE_SQUARE 8
#define P_EMPTY 9
#define P_EMPTY2 10
#define P_POWERS 11
#define P_POWERS_EMPTY 12
#define P_BIAS 13
#define P_RUIN_PENALTY 14
#define P_EMPTY_IS 14 /* + k for k = 1..15 */

/* The layouts as the module states them (magdagdon.ai.fast checks its packing against them
   when it loads): the params in P_* order, and the line weights (kinds straight, four,
   two_pairs; a line needing k = 1..4 more numbers; then the same counted by ways; then an
   open line that can make no bonus). */
static const char PARAM_NAMES[] =
    "free dead tight1 tight2 tight3 allowed_value_sum frontier values_unplaceable "
    "values_one_square empty empty_squared powers_left powers_left_x_empty bias ruin_penalty "
    "empty_is_1 empty_is_2 empty_is_3 empty_is_4 empty_is_5 empty_is_6 empty_is_7 empty_is_8 "
    "empty_is_9 empty_is_10 empty_is_11 empty_is_12 empty_is_13 empty_is_14 empty_is_15";
static const char LINE_WEIGHT_NAMES[] =
    "straight_need1 straight_need2 straight_need3 straight_need4 "
    "four_need1 four_need2 four_need3 four_need4 "
    "two_pairs_need1 two_pairs_need2 two_pairs_need3 two_pairs_need4 "
    "straight_need1_ways straight_need2_ways straight_need3_ways straight_need4_ways "
    "four_need1_ways four_need2_ways four_need3_ways four_need4_ways "
    "two_pairs_need1_ways two_pairs_need2_ways two_pairs_need3_ways two_pairs_need4_ways "
    "open_line_no_bonus";

static const int LINES[8][4] = {
    {0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15},
    {0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15},
};

static int near_mask[8];   /* near_mask[v]: values v-1..v+1 as bits v-1 */
static int mask_code[64];  /* allowed mask -> square code (7..23), -1 if impossible */
static int code_mask[NCODES];
static int mask_size[64];
static int mask_sum[64];
static int neigh_list[16][4];
static int neigh_count[16];
/* per roll (in combinations_with_replacement order): its distinct sub-multisets as codes */
static int roll_subs[NROLLS][15];
static int roll_nsubs[NROLLS];

static unsigned int
neighbours(unsigned int m)
{
    return ((m << 4) | (m >> 4) | ((m & ~0x8888u) << 1) | ((m & ~0x1111u) >> 1)) & 0xFFFFu;
}

static int
multiset_code(const int *values, int k)
{
    int sorted[4];
    for (int i = 0; i < k; i++) {
        int v = values[i];
        int j = i;
        while (j > 0 && sorted[j - 1] > v) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = v;
    }
    int code = 0;
    for (int i = 0; i < k; i++)
        code = code * 7 + sorted[i];
    return code;
}

static void
init_tables(void)
{
    for (int v = 1; v <= 6; v++) {
        int m = 0;
        for (int w = v - 1; w <= v + 1; w++)
            if (w >= 1 && w <= 6)
                m |= 1 << (w - 1);
        near_mask[v] = m;
    }
    for (int m = 0; m < 64; m++) {
        mask_code[m] = -1;
        mask_size[m] = __builtin_popcount(m);
        int s = 0;
        for (int v = 0; v < 6; v++)
            if (m >> v & 1)
                s += v + 1;
        mask_sum[m] = s;
    }
    int next = 7;
    mask_code[0] = next;
    code_mask[next++] = 0;
    mask_code[ALL_VALUES] = next;
    code_mask[next++] = ALL_VALUES;
    for (int a = 1; a <= 6; a++)
        for (int b = a; b <= 6 && b - a <= 2; b++) {
            int m = ((1 << (b - a + 1)) - 1) << (a - 1);
            mask_code[m] = next;
            code_mask[next++] = m;
        }
    for (int sq = 0; sq < 16; sq++) {
        int r = sq / 4, c = sq % 4, n = 0;
        if (r > 0) neigh_list[sq][n++] = sq - 4;
        if (r < 3) neigh_list[sq][n++] = sq + 4;
        if (c > 0) neigh_list[sq][n++] = sq - 1;
        if (c < 3) neigh_list[sq][n++] = sq + 1;
        neigh_count[sq] = n;
    }
    int r = 0;
    for (int a = 1; a <= 6; a++)
        for (int b = a; b <= 6; b++)
            for (int c = b; c <= 6; c++)
                for (int d = c; d <= 6; d++, r++) {
                    int roll[4] = {a, b, c, d};
                    int n = 0;
                    for (int subset = 1; subset < 16; subset++) {
                        int vals[4], k = 0;
                        for (int i = 0; i < 4; i++)
                            if (subset >> i & 1)
                                vals[k++] = roll[i];
                        int code = multiset_code(vals, k);
                        int seen = 0;
                        for (int j = 0; j < n; j++)
                            if (roll_subs[r][j] == code)
                                seen = 1;
                        if (!seen)
                            roll_subs[r][n++] = code;
                    }
                    roll_nsubs[r] = n;
                }
}

static int
square_code(int cell, int allowed)
{
    if (cell == RUIN)
        return 6;
    if (cell == EMPTY)
        return mask_code[allowed];
    return cell - 1;
}

/* The patterns of a bonus (straights, fours, two pairs with neighbours within 1). */
static int straights[12][4], nstraights;
static int fours[6][4];
static int two_pairs[30][4], ntwo_pairs;

static void
init_patterns(void)
{
    nstraights = 0;
    for (int start = 1; start <= 6; start++)
        for (int step = 1; step >= -1; step -= 2)
            if (start + 3 * step >= 1 && start + 3 * step <= 6) {
                for (int i = 0; i < 4; i++)
                    straights[nstraights][i] = start + step * i;
                nstraights++;
            }
    for (int v = 1; v <= 6; v++)
        for (int i = 0; i < 4; i++)
            fours[v - 1][i] = v;
    ntwo_pairs = 0;
    for (int a = 1; a <= 5; a++)
        for (int bits = 0; bits < 16; bits++) {
            if (__builtin_popcount(bits) != 2)
                continue;
            for (int i = 0; i < 4; i++)
                two_pairs[ntwo_pairs][i] = (bits >> i & 1) ? a + 1 : a;
            ntwo_pairs++;
        }
}

static int
count_ways(const int *codes, int (*patterns)[4], int n)
{
    int ways = 0;
    for (int p = 0; p < n; p++) {
        int ok = 1;
        for (int i = 0; i < 4 && ok; i++) {
            int c = codes[i], v = patterns[p][i];
            if (c >= 7)
                ok = code_mask[c] >> (v - 1) & 1;
            else
                ok = c + 1 == v;
        }
        ways += ok;
    }
    return ways;
}

/* The value of one line, as LinearValue._line_value computes it. */
static double
line_value(const int *codes, const double *w, const int *bonus)
{
    int points = 0, need = 0, ruin = 0;
    for (int i = 0; i < 4; i++) {
        if (codes[i] < 6)
            points += codes[i] + 1;
        else if (codes[i] == 6)
            ruin = 1;
        else
            need++;
    }
    if (ruin)
        return (double)points;
    if (!need) {
        int v[4];
        for (int i = 0; i < 4; i++)
            v[i] = codes[i] + 1;
        int up = 1, down = 1;
        for (int i = 1; i < 4; i++) {
            up &= v[i] == v[i - 1] + 1;
            down &= v[i] == v[i - 1] - 1;
        }
        if (up || down)
            return (double)(points + bonus[0]);
        if (v[0] == v[1] && v[1] == v[2] && v[2] == v[3])
            return (double)(points + bonus[1]);
        int counts[7] = {0}, pairs = 0, other = 0;
        for (int i = 0; i < 4; i++)
            counts[v[i]]++;
        for (int x = 1; x <= 6; x++) {
            if (counts[x] == 2)
                pairs++;
            else if (counts[x])
                other++;
        }
        if (pairs == 2 && !other)
            return (double)(points + bonus[2]);
        return (double)points;
    }
    double s = 0.0;
    int any = 0;
    int ways[3] = {
        count_ways(codes, straights, nstraights),
        count_ways(codes, fours, 6),
        count_ways(codes, two_pairs, ntwo_pairs),
    };
    for (int kind = 0; kind < 3; kind++) {
        if (ways[kind]) {
            s += w[kind * 4 + need - 1] * 1.0;
            s += w[12 + kind * 4 + need - 1] * (double)ways[kind];
            any = 1;
        }
    }
    if (!any)
        s += w[24] * 1.0;
    return (double)points + s;
}

static int
get_doubles(Py_buffer *view, Py_ssize_t count, const char *what)
{
    if (view->len != (Py_ssize_t)(count * sizeof(double))) {
        PyErr_Format(PyExc_ValueError, "%s: %zd doubles expected", what, count);
        return -1;
    }
    return 0;
}

static PyObject *
fast_line_table(PyObject *self, PyObject *args)
{
    Py_buffer wv;
    int bonus[3];
    if (!PyArg_ParseTuple(args, "y*iii", &wv, &bonus[0], &bonus[1], &bonus[2]))
        return NULL;
    if (get_doubles(&wv, NLINE_WEIGHTS, "line weights") < 0) {
        PyBuffer_Release(&wv);
        return NULL;
    }
    const double *w = (const double *)wv.buf;
    PyObject *out = PyBytes_FromStringAndSize(NULL, TABLE_SIZE * sizeof(double));
    if (out == NULL) {
        PyBuffer_Release(&wv);
        return NULL;
    }
    double *table = (double *)PyBytes_AS_STRING(out);
    int codes[4];
    for (int i = 0; i < TABLE_SIZE; i++) {
        int x = i;
        for (int j = 3; j >= 0; j--) {
            codes[j] = x % NCODES;
            x /= NCODES;
        }
        table[i] = line_value(codes, w, bonus);
    }
    PyBuffer_Release(&wv);
    return out;
}

/* The values a die may take on square sq: within 1 of every number beside it. */
static inline int
allowed_mask(const unsigned char *cells, int sq)
{
    int m = ALL_VALUES;
    for (int i = 0; i < neigh_count[sq]; i++) {
        int v = cells[neigh_list[sq][i]];
        if (v != EMPTY && v != RUIN)
            m &= near_mask[v];
    }
    return m;
}

/* The learned value of a board, as LinearValue.__call__ computes it. */
static double
board_value(const unsigned char *cells, int powers, const double *table, const double *p)
{
    int allowed[16];
    for (int sq = 0; sq < 16; sq++)
        allowed[sq] = cells[sq] == EMPTY ? allowed_mask(cells, sq) : -1;
    double value = 0.0;
    for (int l = 0; l < 8; l++) {
        int idx = 0;
        for (int i = 0; i < 4; i++) {
            int sq = LINES[l][i];
            idx = idx * NCODES + square_code(cells[sq], allowed[sq]);
        }
        value += table[idx];
    }
    int empty = 0, ruins = 0, frontier = 0;
    double rest = 0.0;
    int squares_for[6] = {0};
    for (int sq = 0; sq < 16; sq++) {
        int m = allowed[sq];
        if (m < 0) {
            if (cells[sq] == RUIN)
                ruins++;
            continue;
        }
        empty++;
        if (m == ALL_VALUES) {
            rest += p[P_FREE];
            continue;
        }
        int size = mask_size[m];
        rest += p[P_TIGHT + size];
        if (size) {
            rest += p[P_VALUE_SUM] * (double)mask_sum[m] / (double)size;
            frontier++;
            for (int v = 0; v < 6; v++)
                if (m >> v & 1)
                    squares_for[v]++;
        }
    }
    value -= (double)(ruins * (int)p[P_RUIN_PENALTY]);
    if (!empty)
        return value;
    if (frontier) {
        int none = 0, one = 0;
        for (int v = 0; v < 6; v++) {
            none += squares_for[v] == 0;
            one += squares_for[v] == 1;
        }
        rest += p[P_FRONTIER] * (double)frontier;
        rest += p[P_UNPLACEABLE] * (double)none + p[P_ONE_SQUARE] * (double)one;
    }
    double e = (double)empty;
    rest += p[P_EMPTY] * e + p[P_EMPTY2] * e * e / 16.0;
    rest += p[P_POWERS] * (double)powers + p[P_POWERS_EMPTY] * (double)powers * e / 16.0;
    if (empty < 16)
        rest += p[P_EMPTY_IS + empty];
    return value + rest + p[P_BIAS];
}

static int
parse_model(Py_buffer *tv, Py_buffer *pv)
{
    if (get_doubles(tv, TABLE_SIZE, "line table") < 0 || get_doubles(pv, NPARAMS, "params") < 0)
        return -1;
    return 0;
}

static int
parse_cells(Py_buffer *cv, const unsigned char **cells)
{
    if (cv->len != 16) {
        PyErr_SetString(PyExc_ValueError, "16 squares expected");
        return -1;
    }
    const unsigned char *c = (const unsigned char *)cv->buf;
    for (int sq = 0; sq < 16; sq++)
        if (c[sq] > RUIN) {
            PyErr_Format(PyExc_ValueError, "square %d holds %d", sq, (int)c[sq]);
            return -1;
        }
    *cells = c;
    return 0;
}

/* Release a call's board, line table and params. */
static void
release(Py_buffer *cv, Py_buffer *tv, Py_buffer *pv)
{
    PyBuffer_Release(cv);
    PyBuffer_Release(tv);
    PyBuffer_Release(pv);
}

static PyObject *
fast_value(PyObject *self, PyObject *args)
{
    Py_buffer cv, tv, pv;
    int powers;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*iy*y*", &cv, &powers, &tv, &pv))
        return NULL;
    PyObject *out = NULL;
    if (parse_cells(&cv, &cells) == 0 && parse_model(&tv, &pv) == 0)
        out = PyFloat_FromDouble(
            board_value(cells, powers, (const double *)tv.buf, (const double *)pv.buf));
    release(&cv, &tv, &pv);
    return out;
}

/* The squares of `s` joined (through `s`) to `seed`. */
static unsigned int
flood(unsigned int seed, unsigned int s)
{
    unsigned int r = seed & s, prev;
    do {
        prev = r;
        r |= neighbours(r) & s;
    } while (r != prev);
    return r;
}

struct search {
    unsigned char child[16];
    int squares[4];
    int values[4];
    int k;
    int required;
    int powers;
    int minimum;
    int exact_empty; /* children with 1..exact_empty empty squares get their exact value */
    int allowed0[16];
    const double *table;
    const double *params;
    const float *nt; /* an n-tuple network's weights, or NULL: the linear value */
    int nt_masked;
    long nt_stride; /* 0: one network; else networks by powers left, `nt_stride` floats each */
    double power_a, power_b; /* one network: a power held is worth power_a + power_b * empty / 16 */
    double best[2401];
    long work;
};

static double nt_learned(const unsigned char *cells, int powers, const float *w, int masked,
                         double pa, double pb, long stride);

static double exact_value(const unsigned char *cells, int minimum, const double *table,
                          const double *params);

static int
count_empty(const unsigned char *cells)
{
    int e = 0;
    for (int sq = 0; sq < 16; sq++)
        e += cells[sq] == EMPTY;
    return e;
}

/* The value of a next afterstate: exact near the end of the game (powers 0), else learned. */
static double
child_value(const unsigned char *child, const struct search *s)
{
    if (s->exact_empty) {
        int e = count_empty(child);
        if (e && e <= s->exact_empty)
            return exact_value(child, s->minimum, s->table, s->params);
    }
    if (s->nt != NULL)
        return nt_learned(child, s->powers, s->nt, s->nt_masked, s->power_a, s->power_b,
                          s->nt_stride);
    return board_value(child, s->powers, s->table, s->params);
}

static void
assign(struct search *s, int i)
{
    if (i == s->k) {
        s->work++;
        if (s->k < s->required)
            return;
        double v = child_value(s->child, s);
        int code = multiset_code(s->values, s->k);
        if (v > s->best[code])
            s->best[code] = v;
        return;
    }
    int sq = s->squares[i];
    int m = s->allowed0[sq];
    for (int j = 0; j < i; j++) {
        int other = s->squares[j];
        for (int n = 0; n < neigh_count[sq]; n++)
            if (neigh_list[sq][n] == other)
                m &= near_mask[s->values[j]];
    }
    for (int v = 1; v <= 6; v++) {
        if (!(m >> (v - 1) & 1))
            continue;
        s->values[i] = v;
        s->child[sq] = (unsigned char)v;
        assign(s, i + 1);
    }
    s->child[sq] = EMPTY;
}

/* Calls visit(ctx, k, squares) for every set of kmin..4 of the ne empty squares `empties`
   (in increasing order) whose every part is joined to the numbers (the squares of the bits of
   `numbers`), or, on a board with no number, which is joined up: smaller sets first, each in
   increasing square order. */
typedef void (*set_visit)(void *ctx, int k, const int *squares);

static void
joined_sets(const int *empties, int ne, unsigned int numbers, int kmin, set_visit visit,
            void *ctx)
{
    unsigned int touching = neighbours(numbers);
    int idx[4], squares[4];
    for (int k = kmin; k <= 4 && k <= ne; k++) {
        for (int i = 0; i < k; i++)
            idx[i] = i;
        for (;;) {
            unsigned int set = 0;
            for (int i = 0; i < k; i++)
                set |= 1u << empties[idx[i]];
            unsigned int joined =
                numbers ? flood(touching, set) : flood(set & (~set + 1u), set);
            if (joined == set) {
                for (int i = 0; i < k; i++)
                    squares[i] = empties[idx[i]];
                visit(ctx, k, squares);
            }
            int i = k - 1;
            while (i >= 0 && idx[i] == ne - k + i)
                i--;
            if (i < 0)
                break;
            idx[i]++;
            for (int j = i + 1; j < k; j++)
                idx[j] = idx[j - 1] + 1;
        }
    }
}

static void
expand_set(void *ctx, int k, const int *squares)
{
    struct search *s = ctx;
    s->k = k;
    memcpy(s->squares, squares, sizeof(int) * (size_t)k);
    assign(s, 0);
}

/* Fill s->best: per multiset of dice values, the best value of a next afterstate staging
   exactly those values (at least s->required of them); s->child holds the board. */
static void
expand(struct search *s)
{
    const unsigned char *cells = s->child;
    for (int i = 0; i < 2401; i++)
        s->best[i] = -INFINITY;
    unsigned int numbers = 0;
    int empties[16], ne = 0;
    for (int sq = 0; sq < 16; sq++) {
        if (cells[sq] == EMPTY)
            empties[ne++] = sq;
        else if (cells[sq] != RUIN)
            numbers |= 1u << sq;
    }
    for (int sq = 0; sq < 16; sq++)
        s->allowed0[sq] = allowed_mask(cells, sq);
    joined_sets(empties, ne, numbers, 1, expand_set, s);
}

static double
roll_top(const struct search *s, int r)
{
    double top = -INFINITY;
    for (int j = 0; j < roll_nsubs[r]; j++) {
        double b = s->best[roll_subs[r][j]];
        if (b > top)
            top = b;
    }
    return top;
}

static double roll_probability[NROLLS];

static void
init_probabilities(void)
{
    int r = 0;
    for (int a = 1; a <= 6; a++)
        for (int b = a; b <= 6; b++)
            for (int c = b; c <= 6; c++)
                for (int d = c; d <= 6; d++, r++) {
                    int v[4] = {a, b, c, d}, counts[7] = {0};
                    for (int i = 0; i < 4; i++)
                        counts[v[i]]++;
                    int ways = 24;
                    for (int x = 1; x <= 6; x++)
                        for (int f = 2; f <= counts[x]; f++)
                            ways /= f;
                    roll_probability[r] = (double)ways / 1296.0;
                }
}

/* A cache of exact values: they depend only on the board and the minimum, not on the
   weights. A slot holds one board; a newer board takes it (the values do not change). */
#define CACHE_BITS 18
#define CACHE_SIZE (1u << CACHE_BITS)
static unsigned long long *cache_keys;
static double *cache_values;

static unsigned long long
board_key(const unsigned char *cells, int minimum)
{
    unsigned long long key = (unsigned long long)minimum;
    for (int sq = 0; sq < 16; sq++)
        key = key << 3 | cells[sq];
    return key + 1; /* never 0, the empty slot */
}

/* The expected final score (before power penalties) of a board with no power left, every
   turn played to the end: Evaluator.value of the Python code on such a board. */
static double
exact_value(const unsigned char *cells, int minimum, const double *table, const double *params)
{
    int e = count_empty(cells);
    if (!e)
        return board_value(cells, 0, table, params);
    unsigned long long key = board_key(cells, minimum);
    unsigned int slot = (unsigned int)((key * 0x9E3779B97F4A7C15ull) >> (64 - CACHE_BITS));
    if (cache_keys != NULL && cache_keys[slot] == key)
        return cache_values[slot];
    struct search *s = PyMem_RawMalloc(sizeof(struct search));
    if (s == NULL)
        return NAN;
    memcpy(s->child, cells, 16);
    s->minimum = minimum;
    s->required = minimum < e ? minimum : e;
    s->powers = 0;
    s->exact_empty = 16;
    s->table = table;
    s->params = params;
    s->nt = NULL;
    s->nt_stride = 0;
    s->work = 0;
    expand(s);
    double ruin = NAN, total = 0.0;
    for (int r = 0; r < NROLLS; r++) {
        double top = roll_top(s, r);
        if (top == -INFINITY) {
            if (isnan(ruin)) {
                ruin = -INFINITY;
                unsigned char child[16];
                memcpy(child, cells, 16);
                for (int sq = 0; sq < 16; sq++) {
                    if (cells[sq] != EMPTY)
                        continue;
                    child[sq] = RUIN;
                    double v = e > 1 ? exact_value(child, minimum, table, params)
                                     : board_value(child, 0, table, params);
                    if (v > ruin)
                        ruin = v;
                    child[sq] = EMPTY;
                }
            }
            top = ruin;
        }
        total += roll_probability[r] * top;
    }
    PyMem_RawFree(s);
    if (cache_keys != NULL && !isnan(total)) { /* NaN: out of memory below, not a value */
        cache_keys[slot] = key;
        cache_values[slot] = total;
    }
    return total;
}

static PyObject *
fast_exact(PyObject *self, PyObject *args)
{
    Py_buffer cv, tv, pv;
    int minimum;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*iy*y*", &cv, &minimum, &tv, &pv))
        return NULL;
    PyObject *out = NULL;
    if (parse_cells(&cv, &cells) == 0 && parse_model(&tv, &pv) == 0) {
        if (minimum < 1 || minimum > 4)
            PyErr_SetString(PyExc_ValueError, "the minimum is 1 to 4 dice");
        else if (count_empty(cells) > 4)
            PyErr_SetString(PyExc_ValueError, "at most 4 empty squares are searched exactly");
        else {
            double v = exact_value(cells, minimum, (const double *)tv.buf,
                                   (const double *)pv.buf);
            out = isnan(v) ? PyErr_NoMemory() : PyFloat_FromDouble(v);
        }
    }
    release(&cv, &tv, &pv);
    return out;
}

static PyObject *
fast_best_rolls(PyObject *self, PyObject *args)
{
    Py_buffer cv, tv, pv;
    int powers, required, minimum = 0, exact_empty = 0;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*iiy*y*|ii", &cv, &powers, &required, &tv, &pv, &minimum,
                          &exact_empty))
        return NULL;
    if (parse_cells(&cv, &cells) < 0 || parse_model(&tv, &pv) < 0) {
        release(&cv, &tv, &pv);
        return NULL;
    }
    if (exact_empty && (powers || minimum < 1 || minimum > 4 || exact_empty > 4)) {
        PyErr_SetString(PyExc_ValueError,
                        "exact leaves need no power left, a minimum of 1 to 4 and at most 4 "
                        "empty squares");
        release(&cv, &tv, &pv);
        return NULL;
    }
    struct search *s = PyMem_Malloc(sizeof(struct search));
    if (s == NULL) {
        release(&cv, &tv, &pv);
        return PyErr_NoMemory();
    }
    memcpy(s->child, cells, 16);
    s->required = required;
    s->powers = powers;
    s->minimum = minimum;
    s->exact_empty = exact_empty;
    s->table = (const double *)tv.buf;
    s->params = (const double *)pv.buf;
    s->nt = NULL;
    s->nt_stride = 0;
    s->work = 0;
    expand(s);
    PyObject *tops = PyTuple_New(NROLLS);
    if (tops != NULL) {
        for (int r = 0; r < NROLLS; r++) {
            PyObject *f = PyFloat_FromDouble(roll_top(s, r));
            if (f == NULL) {
                Py_CLEAR(tops);
                break;
            }
            PyTuple_SET_ITEM(tops, r, f);
        }
    }
    long work = s->work;
    PyMem_Free(s);
    release(&cv, &tv, &pv);
    if (tops == NULL)
        return NULL;
    return Py_BuildValue("(Nl)", tops, work);
}

/*
 * The n-tuple network (magdagdon.ai.ntuple is its Python reference): the value of an
 * afterstate as a sum of weights read from shared tables. Each tuple (a shape of squares) is
 * read under the 8 symmetries of the square, a square giving its code (0 empty, 1-6, 7 RUIN)
 * as one base-8 digit of the index; then a bias by the number of empty squares. The sum is a
 * double accumulated in a fixed order, so the Python reference gives the same bits. A full
 * board's value is 0: it is the expected change of the score still to come.
 */
#define NT_TUPLES 7
#define NT_SYMS 8
#define NT_BIAS (5 * 4096 + 2 * 262144)
#define NT_SIZE (NT_BIAS + 17)
/* A masked network also reads the outer and the inner row with 24 codes a square (the line
   table's: an empty square coded by the values it allows), in a table of 24**4 each. */
#define NT_MASKED_TABLE (NCODES * NCODES * NCODES * NCODES)
#define NT_SIZE_MASKED (NT_BIAS + 2 * NT_MASKED_TABLE + 17)
#define NT_MAX_READS (NT_TUPLES * NT_SYMS + 2 * NT_SYMS + 1)

static const int NT_SHAPES[NT_TUPLES][6] = {
    {0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 4, 5}, {1, 2, 5, 6}, {5, 6, 9, 10},
    {0, 1, 2, 4, 5, 6}, {4, 5, 6, 8, 9, 10},
};
static const int NT_LENGTH[NT_TUPLES] = {4, 4, 4, 4, 4, 6, 6};
static const int NT_OFFSET[NT_TUPLES] = {0, 4096, 8192, 12288, 16384, 20480, 20480 + 262144};
static int nt_squares[NT_TUPLES][NT_SYMS][6];

/* Square sq under symmetry s: a mirror (s & 4), then s & 3 quarter turns. */
static int
nt_symmetry(int sq, int s)
{
    int r = sq / 4, c = sq % 4;
    if (s & 4)
        c = 3 - c;
    for (int t = 0; t < (s & 3); t++) {
        int r2 = c, c2 = 3 - r;
        r = r2;
        c = c2;
    }
    return 4 * r + c;
}

static void
init_ntuple(void)
{
    for (int t = 0; t < NT_TUPLES; t++)
        for (int s = 0; s < NT_SYMS; s++)
            for (int i = 0; i < NT_LENGTH[t]; i++)
                nt_squares[t][s][i] = nt_symmetry(NT_SHAPES[t][i], s);
}

static inline long
nt_index(const unsigned char *cells, int t, int s)
{
    long idx = 0;
    for (int i = 0; i < NT_LENGTH[t]; i++)
        idx = idx * 8 + cells[nt_squares[t][s][i]];
    return NT_OFFSET[t] + idx;
}

/* The weights a board reads, in the order they are summed; their number. */
static int
nt_reads(const unsigned char *cells, int masked, long *idx)
{
    int n = 0;
    for (int t = 0; t < NT_TUPLES; t++)
        for (int s = 0; s < NT_SYMS; s++)
            idx[n++] = nt_index(cells, t, s);
    long bias = NT_BIAS;
    if (masked) {
        int code[16];
        for (int sq = 0; sq < 16; sq++)
            code[sq] = square_code(cells[sq], cells[sq] == EMPTY ? allowed_mask(cells, sq) : 0);
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < NT_SYMS; s++) {
                long x = 0;
                for (int i = 0; i < 4; i++)
                    x = x * NCODES + code[nt_squares[t][s][i]];
                idx[n++] = NT_BIAS + t * NT_MASKED_TABLE + x;
            }
        bias = NT_BIAS + 2 * NT_MASKED_TABLE;
    }
    idx[n++] = bias + count_empty(cells);
    return n;
}

/* The network's value of a board: the expected change of its score still to come. */
static double
nt_value(const unsigned char *cells, const float *w, int masked)
{
    if (!count_empty(cells))
        return 0.0;
    long idx[NT_MAX_READS];
    int n = nt_reads(cells, masked, idx);
    double acc = 0.0;
    for (int i = 0; i < n; i++)
        acc += (double)w[idx[i]];
    return acc;
}

/* The points of a line (its bonus if it is full of numbers), as quick_score counts them. */
static int
line_points(const unsigned char *cells, int l)
{
    int v[4], points = 0, numbers = 0;
    for (int i = 0; i < 4; i++) {
        v[i] = cells[LINES[l][i]];
        if (v[i] != EMPTY && v[i] != RUIN) {
            points += v[i];
            numbers++;
        }
    }
    if (numbers < 4)
        return points;
    int up = 1, down = 1;
    for (int i = 1; i < 4; i++) {
        up &= v[i] == v[i - 1] + 1;
        down &= v[i] == v[i - 1] - 1;
    }
    if (up || down)
        return points + 60;
    if (v[0] == v[1] && v[1] == v[2] && v[2] == v[3])
        return points + 40;
    int counts[7] = {0}, pairs = 0, other = 0;
    for (int i = 0; i < 4; i++)
        counts[v[i]]++;
    for (int x = 1; x <= 6; x++) {
        if (counts[x] == 2)
            pairs++;
        else if (counts[x])
            other++;
    }
    return pairs == 2 && !other ? points + 20 : points;
}

/* The board's score without power penalties (quick_score). */
static int
board_score(const unsigned char *cells)
{
    int total = 0;
    for (int l = 0; l < 8; l++)
        total += line_points(cells, l);
    for (int sq = 0; sq < 16; sq++)
        total -= cells[sq] == RUIN ? 15 : 0;
    return total;
}

/* The learned value of an afterstate by the network: its score plus the network's value
   plus what the powers held are worth (NTupleValue.__call__). */
static double
nt_learned(const unsigned char *cells, int powers, const float *w, int masked, double pa,
           double pb, long stride)
{
    int empty = count_empty(cells);
    double score = (double)board_score(cells);
    if (!empty)
        return score;
    if (stride) /* a network per number of powers left: it knows what they are worth */
        return score + nt_value(cells, w + (long)powers * stride, masked);
    return score + nt_value(cells, w, masked) + (double)powers * (pa + pb * (double)empty / 16.0);
}

/* A network's layout by its size: 0 plain, 1 masked (-1 and an error: neither). */
static int
get_network(Py_buffer *view)
{
    if (view->len == (Py_ssize_t)(NT_SIZE * sizeof(float)))
        return 0;
    if (view->len == (Py_ssize_t)(NT_SIZE_MASKED * sizeof(float)))
        return 1;
    PyErr_Format(PyExc_ValueError, "network: %d or %d floats expected", NT_SIZE, NT_SIZE_MASKED);
    return -1;
}

/* A value's networks: one network, or 2 to 4 of the same layout, one per number of powers
   left, `powers` of which must be held. The layout (0 plain, 1 masked) and into *stride 0 or
   the size of a network; -1 and an error where the size or the powers do not fit. */
static int
get_networks(Py_buffer *view, int powers, long *stride)
{
    long n = (long)(view->len / (Py_ssize_t)sizeof(float));
    for (int k = 1; k <= 4; k++)
        for (int masked = 0; masked < 2; masked++) {
            long size = masked ? NT_SIZE_MASKED : NT_SIZE;
            if (n != k * size || view->len % (Py_ssize_t)sizeof(float))
                continue;
            if (k > 1 && (powers < 0 || powers >= k)) {
                PyErr_Format(PyExc_ValueError, "%d networks: 0 to %d powers left", k, k - 1);
                return -1;
            }
            *stride = k > 1 ? size : 0;
            return masked;
        }
    PyErr_Format(PyExc_ValueError, "networks: 1 to 4 of %d or %d floats expected", NT_SIZE,
                 NT_SIZE_MASKED);
    return -1;
}

static PyObject *
fast_nt_value(PyObject *self, PyObject *args)
{
    Py_buffer cv, wv;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*y*", &cv, &wv))
        return NULL;
    PyObject *out = NULL;
    int masked;
    if (parse_cells(&cv, &cells) == 0 && (masked = get_network(&wv)) >= 0)
        out = PyFloat_FromDouble(nt_value(cells, (const float *)wv.buf, masked));
    PyBuffer_Release(&cv);
    PyBuffer_Release(&wv);
    return out;
}

static PyObject *
fast_nt_learned(PyObject *self, PyObject *args)
{
    Py_buffer cv, wv;
    int powers;
    double pa, pb;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*iy*dd", &cv, &powers, &wv, &pa, &pb))
        return NULL;
    PyObject *out = NULL;
    int masked;
    long stride = 0;
    if (parse_cells(&cv, &cells) == 0 && (masked = get_networks(&wv, powers, &stride)) >= 0)
        out = PyFloat_FromDouble(
            nt_learned(cells, powers, (const float *)wv.buf, masked, pa, pb, stride));
    PyBuffer_Release(&cv);
    PyBuffer_Release(&wv);
    return out;
}

static PyObject *
fast_nt_best_rolls(PyObject *self, PyObject *args)
{
    Py_buffer cv, wv, tv, pv;
    int powers, required, minimum = 0, exact_empty = 0;
    double pa, pb;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*iiy*ddy*y*|ii", &cv, &powers, &required, &wv, &pa, &pb, &tv,
                          &pv, &minimum, &exact_empty))
        return NULL;
    PyObject *tops = NULL;
    long work = 0;
    int masked = 0;
    long stride = 0;
    if (parse_cells(&cv, &cells) < 0 || (masked = get_networks(&wv, powers, &stride)) < 0 ||
        parse_model(&tv, &pv) < 0)
        goto done;
    if (exact_empty && (powers || minimum < 1 || minimum > 4 || exact_empty > 4)) {
        PyErr_SetString(PyExc_ValueError,
                        "exact leaves need no power left, a minimum of 1 to 4 and at most 4 "
                        "empty squares");
        goto done;
    }
    struct search *s = PyMem_Malloc(sizeof(struct search));
    if (s == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(s->child, cells, 16);
    s->required = required;
    s->powers = powers;
    s->minimum = minimum;
    s->exact_empty = exact_empty;
    s->table = (const double *)tv.buf;
    s->params = (const double *)pv.buf;
    s->nt = (const float *)wv.buf;
    s->nt_masked = masked;
    s->nt_stride = stride;
    s->power_a = pa;
    s->power_b = pb;
    s->work = 0;
    expand(s);
    tops = PyTuple_New(NROLLS);
    if (tops != NULL) {
        for (int r = 0; r < NROLLS; r++) {
            PyObject *f = PyFloat_FromDouble(roll_top(s, r));
            if (f == NULL) {
                Py_CLEAR(tops);
                break;
            }
            PyTuple_SET_ITEM(tops, r, f);
        }
    }
    work = s->work;
    PyMem_Free(s);
done:
    PyBuffer_Release(&cv);
    PyBuffer_Release(&wv);
    PyBuffer_Release(&tv);
    PyBuffer_Release(&pv);
    if (tops == NULL)
        return NULL;
    return Py_BuildValue("(Nl)", tops, work);
}

/* ---- Self-play: the greedy player on the network, learning by TD(0) ---- */

struct play {
    unsigned char cells[16];
    unsigned char child[16];
    unsigned char best_child[16];
    int squares[4];
    int values[4];
    int k;
    int allowed0[16];
    int count[7];
    const float *w;
    int masked;
    double best;
    int found;
};

static unsigned long long
splitmix(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void
consider(struct play *p, const unsigned char *child)
{
    double v = (double)board_score(child) + nt_value(child, p->w, p->masked);
    if (!p->found || v > p->best) {
        p->found = 1;
        p->best = v;
        memcpy(p->best_child, child, 16);
    }
}

static void
play_assign(struct play *p, int i)
{
    if (i == p->k) {
        consider(p, p->child);
        return;
    }
    int sq = p->squares[i];
    int m = p->allowed0[sq];
    for (int j = 0; j < i; j++)
        for (int n = 0; n < neigh_count[sq]; n++)
            if (neigh_list[sq][n] == p->squares[j])
                m &= near_mask[p->values[j]];
    for (int v = 1; v <= 6; v++) {
        if (!p->count[v] || !(m >> (v - 1) & 1))
            continue;
        p->count[v]--;
        p->values[i] = v;
        p->child[sq] = (unsigned char)v;
        play_assign(p, i + 1);
        p->count[v]++;
    }
    p->child[sq] = EMPTY;
}

static void
play_set(void *ctx, int k, const int *squares)
{
    struct play *p = ctx;
    p->k = k;
    memcpy(p->squares, squares, sizeof(int) * (size_t)k);
    play_assign(p, 0);
}

/* The best afterstate of a roll (by score + value) into p->best_child: a staged set of at
   least `required` of the dice, or, when none can be placed, a RUIN. Returns 1 when the roll
   could be placed, 0 when it took a RUIN. */
static int
play_turn(struct play *p, const int *dice, int required)
{
    const unsigned char *cells = p->cells;
    memcpy(p->child, cells, 16);
    memset(p->count, 0, sizeof(p->count));
    for (int i = 0; i < 4; i++)
        p->count[dice[i]]++;
    p->found = 0;
    unsigned int numbers = 0;
    int empties[16], ne = 0;
    for (int sq = 0; sq < 16; sq++) {
        if (cells[sq] == EMPTY)
            empties[ne++] = sq;
        else if (cells[sq] != RUIN)
            numbers |= 1u << sq;
        p->allowed0[sq] = allowed_mask(cells, sq);
    }
    joined_sets(empties, ne, numbers, required, play_set, p);
    if (p->found)
        return 1;
    for (int i = 0; i < ne; i++) {
        p->child[empties[i]] = RUIN;
        consider(p, p->child);
        p->child[empties[i]] = EMPTY;
    }
    return 0;
}

static void
nt_update(const unsigned char *cells, float *w, int masked, double step)
{
    float d = (float)step;
    long idx[NT_MAX_READS];
    int n = nt_reads(cells, masked, idx);
    for (int i = 0; i < n; i++)
        w[idx[i]] += d;
}

/* Temporal coherence (Jaskowski 2018): each weight's step is scaled by |E| / A, the net
   error over the absolute error it has seen (1 before any). */
static inline void
tc_step(float *w, float *e, float *a, long i, double rate, double error)
{
    double scale = a[i] > 0.0f ? fabs((double)e[i]) / (double)a[i] : 1.0;
    w[i] += (float)(rate * scale * error);
    e[i] += (float)error;
    a[i] += (float)fabs(error);
}

static void
nt_update_tc(const unsigned char *cells, float *w, int masked, float *e, float *a, double rate,
             double error)
{
    long idx[NT_MAX_READS];
    int n = nt_reads(cells, masked, idx);
    for (int i = 0; i < n; i++)
        tc_step(w, e, a, idx[i], rate, error);
}

static PyObject *
fast_nt_train(PyObject *self, PyObject *args)
{
    Py_buffer wv, ev = {0}, av = {0};
    int minimum;
    long games, start, total;
    unsigned long long state;
    double alpha0, alpha1;
    int learn = 1;
    if (!PyArg_ParseTuple(args, "w*ilKddll|pw*w*", &wv, &minimum, &games, &state, &alpha0,
                          &alpha1, &start, &total, &learn, &ev, &av))
        return NULL;
    int tc = ev.buf != NULL && av.buf != NULL;
    int masked = get_network(&wv);
    if (masked < 0 || (ev.buf != NULL && ev.len != wv.len) ||
        (av.buf != NULL && av.len != wv.len) || minimum < 1 || minimum > 4 || total < 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a minimum of 1 to 4 dice and games to play");
        PyBuffer_Release(&wv);
        if (ev.buf != NULL)
            PyBuffer_Release(&ev);
        if (av.buf != NULL)
            PyBuffer_Release(&av);
        return NULL;
    }
    float *w = (float *)wv.buf;
    float *tc_e = (float *)ev.buf, *tc_a = (float *)av.buf;
    struct play *p = PyMem_Malloc(sizeof(struct play));
    if (p == NULL) {
        PyBuffer_Release(&wv);
        return PyErr_NoMemory();
    }
    p->w = w;
    p->masked = masked;
    int reads = NT_TUPLES * NT_SYMS + 1 + (masked ? 2 * NT_SYMS : 0);
    long long score_sum = 0, ruins = 0;
    Py_BEGIN_ALLOW_THREADS
    for (long g = 0; g < games; g++) {
        /* the step falls geometrically from alpha0 to alpha1 over the run's games */
        double alpha = alpha0 * pow(alpha1 / alpha0, (double)(start + g) / (double)total);
        double rate = alpha / (double)reads;
        memset(p->cells, EMPTY, 16);
        int first = 1, empty;
        while ((empty = count_empty(p->cells)) > 0) {
            int dice[4];
            for (int i = 0; i < 4; i++)
                dice[i] = 1 + (int)(((splitmix(&state) >> 32) * 6) >> 32);
            play_turn(p, dice, minimum < empty ? minimum : empty);
            if (learn && !first) {
                double target = p->best - (double)board_score(p->cells);
                double error = target - nt_value(p->cells, w, masked);
                if (tc)
                    nt_update_tc(p->cells, w, masked, tc_e, tc_a, rate, error);
                else
                    nt_update(p->cells, w, masked, rate * error);
            }
            first = 0;
            memcpy(p->cells, p->best_child, 16);
        }
        score_sum += board_score(p->cells);
        for (int sq = 0; sq < 16; sq++)
            ruins += p->cells[sq] == RUIN;
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(p);
    PyBuffer_Release(&wv);
    if (ev.buf != NULL)
        PyBuffer_Release(&ev);
    if (av.buf != NULL)
        PyBuffer_Release(&av);
    return Py_BuildValue("(KLL)", state, score_sum, ruins);
}

/* ---- Self-play with the Majda Powers: a network per number of powers left ---- */

static int roll_index4[7 * 7 * 7 * 7]; /* a roll of four dice's multiset code -> 0..125 */

static void
init_power_tables(void)
{
    int r = 0;
    for (int a = 1; a <= 6; a++)
        for (int b = a; b <= 6; b++)
            for (int c = b; c <= 6; c++)
                for (int d = c; d <= 6; d++) {
                    int roll[4] = {a, b, c, d};
                    roll_index4[multiset_code(roll, 4)] = r++;
                }
}

enum { OPT_PLACE = 0, OPT_ADJUST = 1, OPT_REROLL = 2 };

struct powered {
    struct play *p;
    const float *nets; /* powers + 1 networks of `size` floats: network k for k powers left */
    long size;
    int powers;        /* the difficulty's powers */
    int penalties[4];  /* the penalty of each power, in order of use */
    double margin;     /* what a power on a placeable roll must beat playing it as it is by */
    double top[NROLLS];
};

/* One way to play a roll. */
struct choice {
    int kind;               /* OPT_* */
    double value;           /* score + value of the afterstate (a REROLL: the mean over what the
                               dice may show), the power's penalty taken off */
    unsigned char child[16]; /* the afterstate (none for a REROLL) */
    int die, delta;         /* OPT_ADJUST: the die (index) and its change */
    int reroll;             /* OPT_REROLL: the dice rerolled (bit set of indices) */
    int placed;             /* OPT_PLACE: 1 the roll was placed, 0 it took a RUIN */
};

static inline const float *
net_of(const struct powered *pw, int left)
{
    return pw->nets + (long)left * pw->size;
}

/* The penalty of the next power when `left` remain. */
static inline int
next_cost(const struct powered *pw, int left)
{
    return pw->penalties[pw->powers - left];
}

/* The greedy player's choice for a roll with `left` powers left (the coach's options, each
   valued by score + the network of the powers it leaves):
   - the roll as it is: its best placement, or in MAGDAGDON its best RUIN;
   - with a power: each die changed by 1 (a die value and change once) whose roll can be
     placed, then its best placement; on a roll that could be placed as it is, only if it
     beats that by `margin`;
   - in MAGDAGDON, with a power: a REROLL of each set of dice (a kept set once), valued as
     the mean over what the rerolled dice may show of the best play of the new roll with one
     power fewer and no further power.
   Ties keep the earlier option (the roll as it is, then the changes die by die, -1 first,
   then the REROLLs by increasing bit set). */
static void
power_choice(struct powered *pw, const unsigned char *cells, const int *dice, int required,
             int left, struct choice *best)
{
    struct play *p = pw->p;
    memcpy(p->cells, cells, 16);
    p->w = net_of(pw, left);
    int placeable = play_turn(p, dice, required);
    best->kind = OPT_PLACE;
    best->value = p->best;
    memcpy(best->child, p->best_child, 16);
    best->placed = placeable;
    best->die = best->delta = best->reroll = 0;
    if (left <= 0)
        return;
    double as_is = p->best;
    double cost = (double)next_cost(pw, left);
    p->w = net_of(pw, left - 1);
    int seen[7][2];
    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < 4; i++)
        for (int s = 0; s < 2; s++) {
            int delta = s ? 1 : -1, v = dice[i] + delta;
            if (v < 1 || v > 6 || seen[dice[i]][s])
                continue;
            seen[dice[i]][s] = 1;
            int changed[4];
            memcpy(changed, dice, sizeof(changed));
            changed[i] = v;
            if (!play_turn(p, changed, required))
                continue;
            double value = p->best - cost;
            if (value > best->value && (!placeable || value > as_is + pw->margin)) {
                best->kind = OPT_ADJUST;
                best->value = value;
                memcpy(best->child, p->best_child, 16);
                best->die = i;
                best->delta = delta;
            }
        }
    if (placeable)
        return;
    for (int a = 1, r = 0; a <= 6; a++)
        for (int b = a; b <= 6; b++)
            for (int c = b; c <= 6; c++)
                for (int d = c; d <= 6; d++, r++) {
                    int roll[4] = {a, b, c, d};
                    play_turn(p, roll, required);
                    pw->top[r] = p->best;
                }
    int kept_seen[16], nkept = 0;
    for (int set = 1; set < 16; set++) {
        int kept[4], k = 0, n = 0;
        for (int i = 0; i < 4; i++)
            if (set >> i & 1)
                n++;
            else
                kept[k++] = dice[i];
        int code = multiset_code(kept, k) * 8 + k, dup = 0;
        for (int j = 0; j < nkept; j++)
            dup |= kept_seen[j] == code;
        if (dup)
            continue;
        kept_seen[nkept++] = code;
        /* every ordered outcome of the n rerolled dice, each of probability 6^-n */
        int outcomes = 1;
        for (int j = 0; j < n; j++)
            outcomes *= 6;
        double sum = 0.0;
        for (int o = 0; o < outcomes; o++) {
            int roll[4], x = o;
            memcpy(roll, kept, sizeof(int) * (size_t)k);
            for (int j = k; j < 4; j++, x /= 6)
                roll[j] = 1 + x % 6;
            sum += pw->top[roll_index4[multiset_code(roll, 4)]];
        }
        double value = sum / (double)outcomes - cost;
        if (value > best->value) {
            best->kind = OPT_REROLL;
            best->value = value;
            best->reroll = set;
        }
    }
}

static inline int
draw_die(unsigned long long *state)
{
    return 1 + (int)(((splitmix(state) >> 32) * 6) >> 32);
}

/* Parses networks, penalties and margin into pw (pw->p allocated); -1 with an error set. */
static int
parse_powered(struct powered *pw, Py_buffer *wv, int powers, PyObject *penalties, double margin)
{
    if (powers < 0 || powers > 3) {
        PyErr_SetString(PyExc_ValueError, "0 to 3 powers");
        return -1;
    }
    long n = (long)(wv->len / (Py_ssize_t)sizeof(float));
    if (n == (long)(powers + 1) * NT_SIZE)
        pw->size = NT_SIZE;
    else if (n == (long)(powers + 1) * NT_SIZE_MASKED)
        pw->size = NT_SIZE_MASKED;
    else {
        PyErr_Format(PyExc_ValueError, "networks: %d networks of %d or %d floats expected",
                     powers + 1, NT_SIZE, NT_SIZE_MASKED);
        return -1;
    }
    if (!PyTuple_Check(penalties) || PyTuple_GET_SIZE(penalties) != powers) {
        PyErr_SetString(PyExc_ValueError, "penalties: a tuple of one penalty a power");
        return -1;
    }
    memset(pw->penalties, 0, sizeof(pw->penalties));
    for (int i = 0; i < powers; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(penalties, i));
        if (v == -1 && PyErr_Occurred())
            return -1;
        pw->penalties[i] = (int)v;
    }
    pw->nets = (const float *)wv->buf;
    pw->powers = powers;
    pw->margin = margin;
    pw->p = PyMem_Malloc(sizeof(struct play));
    if (pw->p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    pw->p->masked = pw->size == NT_SIZE_MASKED;
    return 0;
}

static PyObject *
fast_nt_power_choice(PyObject *self, PyObject *args)
{
    Py_buffer cv, wv;
    int d[4], required, left, powers;
    double margin;
    PyObject *penalties;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*(iiii)iiy*iOd", &cv, &d[0], &d[1], &d[2], &d[3], &required,
                          &left, &wv, &powers, &penalties, &margin))
        return NULL;
    PyObject *out = NULL;
    struct powered *pw = PyMem_Malloc(sizeof(struct powered));
    if (pw == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    pw->p = NULL;
    if (parse_cells(&cv, &cells) < 0 || parse_powered(pw, &wv, powers, penalties, margin) < 0)
        goto done;
    int ok = required >= 1 && required <= 4 && left >= 0 && left <= powers;
    for (int i = 0; i < 4; i++)
        ok &= d[i] >= 1 && d[i] <= 6;
    if (!ok || count_empty(cells) < required) {
        PyErr_SetString(PyExc_ValueError,
                        "dice 1-6, 1-4 required (no more than empty), 0 to powers left");
        goto done;
    }
    struct choice c;
    power_choice(pw, cells, d, required, left, &c);
    out = Py_BuildValue("(idy#ii)", c.kind, c.value, (const char *)c.child,
                        (Py_ssize_t)(c.kind == OPT_REROLL ? 0 : 16),
                        c.kind == OPT_ADJUST ? c.die : c.kind == OPT_REROLL ? c.reroll : c.placed,
                        c.delta);
done:
    if (pw != NULL) {
        PyMem_Free(pw->p);
        PyMem_Free(pw);
    }
    PyBuffer_Release(&cv);
    PyBuffer_Release(&wv);
    return out;
}

static PyObject *
fast_nt_train_powers(PyObject *self, PyObject *args)
{
    Py_buffer wv;
    int minimum, powers;
    long games, start, total;
    unsigned long long state;
    double alpha0, alpha1, margin;
    int learn = 1;
    PyObject *penalties;
    if (!PyArg_ParseTuple(args, "w*iiOlKddlld|p", &wv, &minimum, &powers, &penalties, &games,
                          &state, &alpha0, &alpha1, &start, &total, &margin, &learn))
        return NULL;
    struct powered *pw = PyMem_Malloc(sizeof(struct powered));
    if (pw == NULL) {
        PyBuffer_Release(&wv);
        return PyErr_NoMemory();
    }
    pw->p = NULL;
    if (parse_powered(pw, &wv, powers, penalties, margin) < 0 || minimum < 1 || minimum > 4 ||
        total < 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a minimum of 1 to 4 dice and games to play");
        PyMem_Free(pw->p);
        PyMem_Free(pw);
        PyBuffer_Release(&wv);
        return NULL;
    }
    float *nets = (float *)wv.buf;
    int masked = pw->size == NT_SIZE_MASKED;
    int reads = NT_TUPLES * NT_SYMS + 1 + (masked ? 2 * NT_SYMS : 0);
    long long score_sum = 0, ruins = 0, used = 0;
    Py_BEGIN_ALLOW_THREADS
    for (long g = 0; g < games; g++) {
        double alpha = alpha0 * pow(alpha1 / alpha0, (double)(start + g) / (double)total);
        double rate = alpha / (double)reads;
        /* each game's rolls and REROLLs come from two streams of its own: two runs from the
           same state meet the same rolls, whatever powers they use */
        unsigned long long rolls = splitmix(&state), rerolls = splitmix(&state);
        unsigned char cells[16], before[16];
        memset(cells, EMPTY, 16);
        int left = powers, before_left = powers, first = 1, empty;
        long paid_game = 0;
        while ((empty = count_empty(cells)) > 0) {
            int dice[4];
            for (int i = 0; i < 4; i++)
                dice[i] = draw_die(&rolls);
            int required = minimum < empty ? minimum : empty;
            double paid = 0.0;
            struct choice c;
            for (;;) {
                power_choice(pw, cells, dice, required, left, &c);
                if (c.kind == OPT_PLACE)
                    break;
                paid += (double)next_cost(pw, left);
                paid_game += next_cost(pw, left);
                left--;
                used++;
                if (c.kind == OPT_ADJUST)
                    break;
                for (int i = 0; i < 4; i++)
                    if (c.reroll >> i & 1)
                        dice[i] = draw_die(&rerolls);
            }
            if (learn && !first) {
                double after = (double)board_score(c.child) +
                               nt_value(c.child, net_of(pw, left), masked) - paid;
                double target = after - (double)board_score(before);
                float *w = nets + (long)before_left * pw->size;
                double error = target - nt_value(before, w, masked);
                nt_update(before, w, masked, rate * error);
            }
            first = 0;
            memcpy(before, c.child, 16);
            memcpy(cells, c.child, 16);
            before_left = left;
        }
        score_sum += board_score(cells) - paid_game;
        for (int sq = 0; sq < 16; sq++)
            ruins += cells[sq] == RUIN;
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(pw->p);
    PyMem_Free(pw);
    PyBuffer_Release(&wv);
    return Py_BuildValue("(KLLL)", state, score_sum, ruins, used);
}

static PyObject *
fast_nt_best(PyObject *self, PyObject *args)
{
    Py_buffer cv, wv;
    int d[4], required;
    const unsigned char *cells;
    if (!PyArg_ParseTuple(args, "y*(iiii)iy*", &cv, &d[0], &d[1], &d[2], &d[3], &required, &wv))
        return NULL;
    PyObject *out = NULL;
    int masked;
    if (parse_cells(&cv, &cells) == 0 && (masked = get_network(&wv)) >= 0) {
        struct play *p = PyMem_Malloc(sizeof(struct play));
        if (p == NULL)
            out = PyErr_NoMemory();
        else {
            int ok = required >= 1 && required <= 4;
            for (int i = 0; i < 4; i++)
                ok &= d[i] >= 1 && d[i] <= 6;
            if (!ok || count_empty(cells) < required)
                PyErr_SetString(PyExc_ValueError, "dice 1-6 and 1-4 required, no more than empty");
            else {
                memcpy(p->cells, cells, 16);
                p->w = (const float *)wv.buf;
                p->masked = masked;
                play_turn(p, d, required);
                out = Py_BuildValue("(dy#)", p->best, (const char *)p->best_child,
                                    (Py_ssize_t)16);
            }
            PyMem_Free(p);
        }
    }
    PyBuffer_Release(&cv);
    PyBuffer_Release(&wv);
    return out;
}

static PyMethodDef methods[] = {
    {"line_table", fast_line_table, METH_VARARGS,
     "line_table(line_weights, straight, four, two_pairs) -> bytes: every line's value."},
    {"value", fast_value, METH_VARARGS,
     "value(cells, powers, table, params) -> float: the learned value of a board."},
    {"best_rolls", fast_best_rolls, METH_VARARGS,
     "best_rolls(cells, powers, required, table, params[, minimum, exact_empty]) -> (tops, "
     "work): per roll, the "
     "value of its best next afterstate (-inf if it cannot be placed); with minimum and "
     "exact_empty, next afterstates with 1..exact_empty empty squares get their exact value."},
    {"exact", fast_exact, METH_VARARGS,
     "exact(cells, minimum, table, params) -> float: the expected final score of a board "
     "with no power left, played exactly to the end."},
    {"nt_value", fast_nt_value, METH_VARARGS,
     "nt_value(cells, network) -> float: an n-tuple network's value of a board."},
    {"nt_learned", fast_nt_learned, METH_VARARGS,
     "nt_learned(cells, powers, network, power_a, power_b) -> float: score + value + powers "
     "(a network per number of powers left: score + that network's value)."},
    {"nt_best_rolls", fast_nt_best_rolls, METH_VARARGS,
     "nt_best_rolls(cells, powers, required, network, power_a, power_b, table, params[, "
     "minimum, exact_empty]) -> (tops, work): best_rolls with the network's learned value."},
    {"nt_best", fast_nt_best, METH_VARARGS,
     "nt_best(cells, dice, required, network) -> (value, board): the greedy afterstate."},
    {"nt_power_choice", fast_nt_power_choice, METH_VARARGS,
     "nt_power_choice(cells, dice, required, left, networks, powers, penalties, margin) -> "
     "(kind, value, board, a, delta): the greedy choice of a roll with powers (kind 0 "
     "as it is, a: placed; 1 a die changed, a: the die; 2 a REROLL, a: the dice's bit set)."},
    {"nt_train_powers", fast_nt_train_powers, METH_VARARGS,
     "nt_train_powers(networks, minimum, powers, penalties, games, state, alpha0, alpha1, "
     "start, total, margin[, learn]) -> (state, score_sum, ruins, powers_used): self-play "
     "with the powers, a network per number of powers left, changed in place by TD(0)."},
    {"nt_train", fast_nt_train, METH_VARARGS,
     "nt_train(network, minimum, games, state, alpha0, alpha1, start, total[, learn, e, a]) -> "
     "(state, score_sum, ruins): self-play games by TD(0), the network changed in place; with "
     "the buffers e and a (as large), temporal coherence steps."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fast",
    "The strong player's inner loop in C (see magdagdon.ai.fast).", -1, methods,
};

PyMODINIT_FUNC
PyInit__fast(void)
{
    init_tables();
    init_patterns();
    init_probabilities();
    init_ntuple();
    init_power_tables();
    cache_keys = PyMem_RawCalloc(CACHE_SIZE, sizeof(unsigned long long));
    cache_values = PyMem_RawCalloc(CACHE_SIZE, sizeof(double));
    if (cache_keys == NULL || cache_values == NULL)
        return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddStringConstant(m, "PARAMS", PARAM_NAMES) < 0 ||
        PyModule_AddStringConstant(m, "LINE_WEIGHTS", LINE_WEIGHT_NAMES) < 0 ||
        PyModule_AddIntConstant(m, "NPARAMS", NPARAMS) < 0 ||
        PyModule_AddIntConstant(m, "NLINE_WEIGHTS", NLINE_WEIGHTS) < 0 ||
        PyModule_AddIntConstant(m, "NROLLS", NROLLS) < 0 ||
        PyModule_AddIntConstant(m, "NT_SIZE", NT_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "NT_SIZE_MASKED", NT_SIZE_MASKED) < 0 ||
        PyModule_AddIntConstant(m, "EMPTY", EMPTY) < 0 ||
        PyModule_AddIntConstant(m, "RUIN", RUIN) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
