/*
 * The engine's fast path in C: a game played by die-level action ids, chance as chance
 * (magdagdon.engine.encoding.EncodedGame without a stream), for reinforcement learning.
 *
 * The pure-Python engine is the reference: this module follows the same rules (R1-R17),
 * the same ids (encoding.py's table), the same observation layout, and the tests compare
 * both on many random positions (tests/rl/test_fast_game.py). See magdagdon/engine/fast.py
 * for the Python side. A square holds 0 (empty), 1-6 or 7 (RUIN), as board.py's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY 0
#define RUIN 7
#define FULL 0xFFFF
#define NOT_LEFT 0xEEEE
#define NOT_RIGHT 0x7777
#define TURN_ACTIONS 100

enum { ROLL = 0, PLACE = 1, MAGDAGDON = 2, OVER = 3 };

#define A_ROLL 0
#define A_STAGE 1
#define A_TAKE_BACK 97
#define A_TAKE_BACK_ALL 113
#define A_CONFIRM 114
#define A_DECREASE 115
#define A_INCREASE 121
#define A_REROLL 126
#define A_RUIN 142
#define NUM_ACTIONS 158

#define OBS_BOARD 0
#define OBS_STAGED 128
#define OBS_TRAY 224
#define OBS_POWERS 248
#define OBS_REQUIRED 252
#define OBS_PHASE 256
#define OBS_PENDING 260
#define OBS_TURN 264
#define OBS_DIFFICULTY 266
#define OBS_SIZE 269

typedef struct {
    unsigned char cells[16];
    int difficulty; /* 0 peaceful, 1 survival, 2 nightmare */
    int powers_used, turns, phase, required;
    int ndice, values[4], dcell[4]; /* dcell -1: in the tray */
    int staged[4], nstaged;          /* die indices in staging order */
    int turn_actions, pending, next_slot; /* pending: bit set of dice awaiting a REROLL */
} State;

static const int MINIMUM[3] = {2, 2, 3};
static const int NPOWERS[3] = {3, 1, 0};
static const int PENALTIES[3][3] = {{10, 20, 40}, {70, 0, 0}, {0, 0, 0}};

static inline int
nbrs(int m)
{
    return ((m << 4) & FULL) | (m >> 4) | ((m & NOT_RIGHT) << 1) | ((m & NOT_LEFT) >> 1);
}

static inline int
lowbit(int m)
{
    return __builtin_ctz((unsigned)m);
}

typedef struct {
    int empty, numbers, vm[8];
} Masks;

static void
board_masks(const State *s, Masks *m)
{
    memset(m, 0, sizeof *m);
    for (int sq = 0; sq < 16; sq++) {
        int v = s->cells[sq];
        if (v == EMPTY)
            m->empty |= 1 << sq;
        else if (v != RUIN) {
            m->numbers |= 1 << sq;
            m->vm[v] |= 1 << sq;
        }
    }
}

static inline void
place(Masks *m, int v, int sq)
{
    m->empty &= ~(1 << sq);
    m->numbers |= 1 << sq;
    m->vm[v] |= 1 << sq;
}

static void
position_masks(const State *s, Masks *m)
{
    board_masks(s, m);
    for (int k = 0; k < s->nstaged; k++) {
        int i = s->staged[k];
        place(m, s->values[i], s->dcell[i]);
    }
}

static inline int
legal_squares(const Masks *m, int v)
{
    if (!m->numbers)
        return m->empty; /* R3 */
    int far = m->numbers & ~(m->vm[v - 1] | m->vm[v] | m->vm[v + 1]);
    return m->empty & nbrs(m->numbers) & ~nbrs(far);
}

/* R4/R5: can `k` of the dice counted in cnt[1..6] be staged legally one by one? */
static int
can_place(const Masks *m, int *cnt, int k)
{
    if (k <= 0)
        return 1;
    if (__builtin_popcount((unsigned)m->empty) < k)
        return 0;
    for (int v = 1; v <= 6; v++) {
        if (!cnt[v])
            continue;
        int legal = legal_squares(m, v);
        if (!legal)
            continue;
        if (k == 1)
            return 1;
        cnt[v]--;
        while (legal) {
            int sq = lowbit(legal);
            legal &= legal - 1;
            Masks next = *m;
            place(&next, v, sq);
            if (can_place(&next, cnt, k - 1)) {
                cnt[v]++;
                return 1;
            }
        }
        cnt[v]++;
    }
    return 0;
}

static void
evaluate(State *s)
{
    Masks m;
    int cnt[8] = {0};
    board_masks(s, &m);
    for (int i = 0; i < s->ndice; i++)
        cnt[s->values[i]]++;
    s->phase = can_place(&m, cnt, s->required) ? PLACE : MAGDAGDON;
}

static int
dead_end(const State *s)
{
    int missing = s->required - s->nstaged;
    if (s->phase != PLACE || missing <= 0)
        return 0;
    Masks m;
    int cnt[8] = {0};
    position_masks(s, &m);
    for (int i = 0; i < s->ndice; i++)
        if (s->dcell[i] < 0)
            cnt[s->values[i]]++;
    return !can_place(&m, cnt, missing);
}

/* The tray dice in canonical order (by value, ties by index); returns how many. */
static int
tray_order(const State *s, int *order)
{
    int n = 0;
    for (int i = 0; i < s->ndice; i++) {
        if (s->dcell[i] >= 0)
            continue;
        int j = n++;
        while (j > 0 && s->values[order[j - 1]] > s->values[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return n;
}

static int
tray_die(const State *s, int v)
{
    for (int i = 0; i < s->ndice; i++)
        if (s->dcell[i] < 0 && s->values[i] == v)
            return i;
    return -1;
}

static void
end_turn(State *s)
{
    s->turn_actions = 0;
    s->turns++;
    s->ndice = 0;
    s->nstaged = 0;
    s->required = 0;
    s->pending = 0;
    int empty = 0;
    for (int sq = 0; sq < 16; sq++)
        empty += s->cells[sq] == EMPTY;
    s->phase = empty ? ROLL : OVER;
}

static void
take_back_all(State *s)
{
    for (int k = 0; k < s->nstaged; k++)
        s->dcell[s->staged[k]] = -1;
    s->nstaged = 0;
}

/* R6: take back die i; the later ones no longer legal follow. */
static void
unstage(State *s, int i)
{
    Masks m;
    int kept[4], nkept = 0;
    s->dcell[i] = -1;
    board_masks(s, &m);
    for (int k = 0; k < s->nstaged; k++) {
        int j = s->staged[k];
        if (j == i)
            continue;
        int v = s->values[j], sq = s->dcell[j];
        if (legal_squares(&m, v) >> sq & 1) {
            kept[nkept++] = j;
            place(&m, v, sq);
        }
        else
            s->dcell[j] = -1;
    }
    memcpy(s->staged, kept, sizeof kept);
    s->nstaged = nkept;
}

/* The die-level ids legal now (as encoding.legal_ids of the game; with a REROLL pending,
   none). out[NUM_ACTIONS]; returns how many. */
static int
legal(const State *s, unsigned char *out)
{
    memset(out, 0, NUM_ACTIONS);
    if (s->pending || s->phase == OVER)
        return 0;
    if (s->phase == ROLL) {
        out[A_ROLL] = 1;
        return 1;
    }
    int n = 0, powers = NPOWERS[s->difficulty] - s->powers_used > 0;
    int past = s->turn_actions >= TURN_ACTIONS;
    int is_dead = past ? dead_end(s) : 0;
    int seen = 0; /* values of the tray */
    for (int i = 0; i < s->ndice; i++)
        if (s->dcell[i] < 0)
            seen |= 1 << s->values[i];
    if (s->phase == PLACE) {
        Masks m;
        position_masks(s, &m);
        for (int v = 1; v <= 6; v++) {
            if (!(seen >> v & 1))
                continue;
            int squares = legal_squares(&m, v);
            while (squares) {
                int sq = lowbit(squares);
                squares &= squares - 1;
                if (past) { /* R17: no staging into a dead end */
                    State trial = *s;
                    int i = tray_die(&trial, v);
                    trial.dcell[i] = sq;
                    trial.staged[trial.nstaged++] = i;
                    if (dead_end(&trial))
                        continue;
                }
                out[A_STAGE + 16 * (v - 1) + sq] = 1;
                n++;
            }
        }
    }
    if (!past || is_dead) {
        for (int k = 0; k < s->nstaged; k++) {
            out[A_TAKE_BACK + s->dcell[s->staged[k]]] = 1;
            n++;
        }
        if (s->nstaged) {
            out[A_TAKE_BACK_ALL] = 1;
            n++;
        }
    }
    if (s->phase == PLACE && s->nstaged >= s->required) {
        out[A_CONFIRM] = 1;
        n++;
    }
    if (powers) {
        for (int v = 1; v <= 6; v++) {
            if (!(seen >> v & 1))
                continue;
            if (v > 1) {
                out[A_DECREASE + v - 1] = 1;
                n++;
            }
            if (v < 6) {
                out[A_INCREASE + v - 1] = 1;
                n++;
            }
        }
        int order[4], t = tray_order(s, order);
        for (int mask = 1; mask < 1 << t; mask++) {
            int ok = 1;
            for (int k = 1; k < t && ok; k++) /* of equal dice, the first ones */
                if ((mask >> k & 1) && !(mask >> (k - 1) & 1) &&
                    s->values[order[k]] == s->values[order[k - 1]])
                    ok = 0;
            if (ok) {
                out[A_REROLL + mask] = 1;
                n++;
            }
        }
    }
    if (s->phase == MAGDAGDON) {
        for (int sq = 0; sq < 16; sq++)
            if (s->cells[sq] == EMPTY) {
                out[A_RUIN + sq] = 1;
                n++;
            }
    }
    return n;
}

/* Apply a legal decision id (the caller checked it). */
static void
apply(State *s, int a)
{
    if (a >= A_STAGE && a < A_TAKE_BACK) {
        int v = (a - A_STAGE) / 16 + 1, sq = (a - A_STAGE) % 16, i = tray_die(s, v);
        s->dcell[i] = sq;
        s->staged[s->nstaged++] = i;
    }
    else if (a >= A_TAKE_BACK && a < A_TAKE_BACK_ALL) {
        for (int i = 0; i < s->ndice; i++)
            if (s->dcell[i] == a - A_TAKE_BACK) {
                unstage(s, i);
                break;
            }
    }
    else if (a == A_TAKE_BACK_ALL)
        take_back_all(s);
    else if (a == A_CONFIRM) {
        for (int k = 0; k < s->nstaged; k++) {
            int i = s->staged[k];
            s->cells[s->dcell[i]] = (unsigned char)s->values[i];
        }
        end_turn(s);
        return;
    }
    else if (a >= A_DECREASE && a < A_REROLL) {
        int up = a >= A_INCREASE, v = (a - A_DECREASE) % 6 + 1, i = tray_die(s, v);
        s->values[i] += up ? 1 : -1;
        s->powers_used++;
        evaluate(s);
    }
    else if (a > A_REROLL && a < A_RUIN) {
        int order[4], t = tray_order(s, order), mask = a - A_REROLL;
        s->pending = 0;
        for (int k = 0; k < t; k++)
            if (mask >> k & 1)
                s->pending |= 1 << order[k];
        return; /* the power is used when its dice are rolled (apply_chance) */
    }
    else if (a >= A_RUIN) {
        take_back_all(s);
        s->cells[a - A_RUIN] = RUIN;
        end_turn(s);
        return;
    }
    s->turn_actions++;
}

/* A chance node's dice: the ROLL's four, or the pending REROLL's, in die index order. */
static void
apply_chance(State *s, const int *values)
{
    if (s->pending) {
        int k = 0;
        for (int i = 0; i < s->ndice; i++)
            if (s->pending >> i & 1) {
                s->values[i] = values[k++];
                s->next_slot++;
            }
        s->pending = 0;
        s->powers_used++;
        evaluate(s);
        s->turn_actions++;
        return;
    }
    int empty = 0;
    for (int sq = 0; sq < 16; sq++)
        empty += s->cells[sq] == EMPTY;
    s->ndice = 4;
    for (int i = 0; i < 4; i++) {
        s->values[i] = values[i];
        s->dcell[i] = -1;
    }
    s->nstaged = 0;
    s->next_slot = 4;
    s->required = MINIMUM[s->difficulty] < empty ? MINIMUM[s->difficulty] : empty;
    evaluate(s);
    s->turn_actions = 1;
}

static int
chance_count(const State *s)
{
    if (s->pending)
        return __builtin_popcount((unsigned)s->pending);
    return s->phase == ROLL ? 4 : 0;
}

static int
line_score(const int *line)
{
    int sum = 0, complete = 1;
    for (int k = 0; k < 4; k++) {
        if (line[k] >= 1 && line[k] <= 6)
            sum += line[k];
        else
            complete = 0;
    }
    if (!complete)
        return sum;
    int up = 1, down = 1;
    for (int k = 0; k < 3; k++) {
        up &= line[k + 1] - line[k] == 1;
        down &= line[k + 1] - line[k] == -1;
    }
    if (up || down)
        return sum + 60;
    int counts[7] = {0}, pairs = 0;
    for (int k = 0; k < 4; k++)
        counts[line[k]]++;
    for (int v = 1; v <= 6; v++) {
        if (counts[v] == 4)
            return sum + 40;
        pairs += counts[v] == 2;
    }
    return sum + (pairs == 2 ? 20 : 0);
}

static int
score(const State *s)
{
    int total = 0, line[4];
    for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++)
            line[c] = s->cells[4 * r + c];
        total += line_score(line);
    }
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++)
            line[r] = s->cells[4 * r + c];
        total += line_score(line);
    }
    for (int sq = 0; sq < 16; sq++)
        total -= 15 * (s->cells[sq] == RUIN);
    int used = s->powers_used + (s->pending ? 1 : 0); /* a REROLL chosen is used */
    for (int k = 0; k < used; k++)
        total -= PENALTIES[s->difficulty][k];
    return total;
}

static void
observe(const State *s, float *obs)
{
    memset(obs, 0, OBS_SIZE * sizeof(float));
    for (int sq = 0; sq < 16; sq++)
        obs[OBS_BOARD + 16 * s->cells[sq] + sq] = 1.0f;
    for (int k = 0; k < s->nstaged; k++) {
        int i = s->staged[k];
        obs[OBS_STAGED + 16 * (s->values[i] - 1) + s->dcell[i]] = 1.0f;
    }
    int order[4], t = tray_order(s, order);
    for (int k = 0; k < t; k++) {
        obs[OBS_TRAY + 6 * k + s->values[order[k]] - 1] = 1.0f;
        if (s->pending >> order[k] & 1)
            obs[OBS_PENDING + k] = 1.0f;
    }
    obs[OBS_POWERS + NPOWERS[s->difficulty] - s->powers_used] = 1.0f;
    obs[OBS_REQUIRED + s->required] = 1.0f;
    obs[OBS_PHASE + s->phase] = 1.0f;
    int ta = s->turn_actions < TURN_ACTIONS ? s->turn_actions : TURN_ACTIONS;
    obs[OBS_TURN] = (float)((double)ta / TURN_ACTIONS);
    obs[OBS_TURN + 1] = s->turn_actions >= TURN_ACTIONS ? 1.0f : 0.0f;
    obs[OBS_DIFFICULTY + s->difficulty] = 1.0f;
}

/* --- turn level: every distinct legal staged set ------------------------------------ */

#define SEEN_SIZE (1 << 15)
static unsigned long long seen_keys[SEEN_SIZE];
static unsigned int seen_stamp[SEEN_SIZE];
static unsigned int stamp;

/* True the first time a set (its key: 3 bits of value per square) is met this search. */
static int
first_visit(unsigned long long key)
{
    unsigned long long h = key * 0x9E3779B97F4A7C15ULL;
    unsigned int i = (unsigned int)(h >> 49) & (SEEN_SIZE - 1);
    while (seen_stamp[i] == stamp) {
        if (seen_keys[i] == key)
            return 0;
        i = (i + 1) & (SEEN_SIZE - 1);
    }
    seen_stamp[i] = stamp;
    seen_keys[i] = key;
    return 1;
}

typedef struct {
    unsigned long long *keys;
    Py_ssize_t n, cap;
} Found;

static int
found_add(Found *f, unsigned long long key)
{
    if (f->n == f->cap) {
        Py_ssize_t cap = f->cap ? 2 * f->cap : 1024;
        unsigned long long *keys = PyMem_Realloc(f->keys, cap * sizeof *keys);
        if (keys == NULL)
            return -1;
        f->keys = keys;
        f->cap = cap;
    }
    f->keys[f->n++] = key;
    return 0;
}

/* R4: every set of dice legal staging reaches from `m`, once each; those of at least
   `required` dice recorded. */
static int
staged_sets(const Masks *m, int *cnt, int depth, int required, unsigned long long key, Found *f)
{
    if (depth >= required && depth > 0 && found_add(f, key) < 0)
        return -1;
    for (int v = 1; v <= 6; v++) {
        if (!cnt[v])
            continue;
        int legal = legal_squares(m, v);
        cnt[v]--;
        while (legal) {
            int sq = lowbit(legal);
            legal &= legal - 1;
            unsigned long long next = key | ((unsigned long long)v << (3 * sq));
            if (!first_visit(next))
                continue;
            Masks after = *m;
            place(&after, v, sq);
            if (staged_sets(&after, cnt, depth + 1, required, next, f) < 0) {
                cnt[v]++;
                return -1;
            }
        }
        cnt[v]++;
    }
    return 0;
}

/* The plan code of a set: each of the turn's dice, sorted, gets its square + 1 or 0; equal
   dice take their squares in increasing order (encoding.plan_code). */
static long
plan_code(const State *s, unsigned long long key)
{
    int sorted[4], used[4] = {0, 0, 0, 0};
    for (int i = 0; i < s->ndice; i++) {
        int j = i;
        while (j > 0 && sorted[j - 1] > s->values[i]) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = s->values[i];
    }
    long code = 0, power[4] = {1, 17, 289, 4913};
    for (int sq = 0; sq < 16; sq++) {
        int v = (int)(key >> (3 * sq) & 7);
        if (!v)
            continue;
        for (int k = 0; k < s->ndice; k++)
            if (!used[k] && sorted[k] == v) {
                used[k] = 1;
                code += (sq + 1) * power[k];
                break;
            }
    }
    return code;
}

static int
compare_codes(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* --- random games ------------------------------------------------------------------- */

static inline unsigned long long
next_random(unsigned long long *x)
{
    /* splitmix64 */
    unsigned long long z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int
below(unsigned long long *x, int n)
{
    return (int)((next_random(x) >> 11) % (unsigned long long)n);
}

static void
new_game(State *s, int difficulty)
{
    memset(s, 0, sizeof *s);
    s->difficulty = difficulty;
    s->phase = ROLL;
}

/* Play one game from `s` to its end: every chance node fair dice, every decision uniform
   among the legal ids. Returns the number of decisions. */
static long
play_random(State *s, unsigned long long *rng)
{
    unsigned char mask[NUM_ACTIONS];
    int ids[NUM_ACTIONS], values[4];
    long steps = 0;
    while (s->phase != OVER) {
        int n = chance_count(s);
        if (n) {
            for (int k = 0; k < n; k++)
                values[k] = below(rng, 6) + 1;
            apply_chance(s, values);
            continue;
        }
        legal(s, mask);
        int count = 0;
        for (int a = 0; a < NUM_ACTIONS; a++)
            if (mask[a])
                ids[count++] = a;
        apply(s, ids[below(rng, count)]);
        steps++;
    }
    return steps;
}

/* --- the Python type --------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD State s;
} FastGameObject;

static PyTypeObject FastGameType;

static PyObject *
fg_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    int difficulty;
    if (!PyArg_ParseTuple(args, "i", &difficulty))
        return NULL;
    if (difficulty < 0 || difficulty > 2) {
        PyErr_SetString(PyExc_ValueError, "difficulty is 0 (peaceful), 1 or 2");
        return NULL;
    }
    FastGameObject *self = (FastGameObject *)type->tp_alloc(type, 0);
    if (self != NULL)
        new_game(&self->s, difficulty);
    return (PyObject *)self;
}

static PyObject *
fg_clone(FastGameObject *self, PyObject *unused)
{
    FastGameObject *other = (FastGameObject *)FastGameType.tp_alloc(&FastGameType, 0);
    if (other != NULL)
        other->s = self->s;
    return (PyObject *)other;
}

static PyObject *
fg_legal_mask(FastGameObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_WRITABLE) < 0)
        return NULL;
    if (view.len != NUM_ACTIONS) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "the mask buffer takes NUM_ACTIONS bytes");
        return NULL;
    }
    int n = legal(&self->s, (unsigned char *)view.buf);
    PyBuffer_Release(&view);
    return PyLong_FromLong(n);
}

static PyObject *
fg_legal_actions(FastGameObject *self, PyObject *unused)
{
    unsigned char mask[NUM_ACTIONS];
    legal(&self->s, mask);
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    for (int a = 0; a < NUM_ACTIONS; a++) {
        if (!mask[a])
            continue;
        PyObject *id = PyLong_FromLong(a);
        if (id == NULL || PyList_Append(list, id) < 0) {
            Py_XDECREF(id);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(id);
    }
    return list;
}

static PyObject *
fg_apply(FastGameObject *self, PyObject *arg)
{
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred())
        return NULL;
    unsigned char mask[NUM_ACTIONS];
    legal(&self->s, mask);
    if (a < 0 || a >= NUM_ACTIONS || !mask[a] || a == A_ROLL) {
        PyErr_Format(PyExc_ValueError, "%ld is not a legal decision now", a);
        return NULL;
    }
    apply(&self->s, (int)a);
    Py_RETURN_NONE;
}

static PyObject *
fg_apply_chance(FastGameObject *self, PyObject *arg)
{
    int n = chance_count(&self->s), values[4];
    PyObject *seq = PySequence_Fast(arg, "the dice are a sequence");
    if (seq == NULL)
        return NULL;
    if (n == 0 || PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "this node takes %d dice", n);
        return NULL;
    }
    for (int k = 0; k < n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (v < 1 || v > 6) {
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a die shows 1-6");
            return NULL;
        }
        values[k] = (int)v;
    }
    Py_DECREF(seq);
    apply_chance(&self->s, values);
    Py_RETURN_NONE;
}

static PyObject *
fg_observe(FastGameObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_WRITABLE) < 0)
        return NULL;
    if (view.len != OBS_SIZE * (Py_ssize_t)sizeof(float)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "the observation buffer takes OBS_SIZE float32");
        return NULL;
    }
    observe(&self->s, (float *)view.buf);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyObject *
fg_score(FastGameObject *self, PyObject *unused)
{
    return PyLong_FromLong(score(&self->s));
}

static PyObject *
fg_chance_count(FastGameObject *self, PyObject *unused)
{
    return PyLong_FromLong(chance_count(&self->s));
}

static PyObject *
fg_phase(FastGameObject *self, PyObject *unused)
{
    return PyLong_FromLong(self->s.phase);
}

static PyObject *
fg_dead_end(FastGameObject *self, PyObject *unused)
{
    return PyBool_FromLong(dead_end(&self->s));
}

static PyObject *
fg_play_random(FastGameObject *self, PyObject *arg)
{
    unsigned long long rng = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(play_random(&self->s, &rng));
}

/* state: (cells, difficulty, phase, required, powers_used, turns, values, cells of the dice,
   staged, turn_actions, pending, next_slot) */
static PyObject *
fg_get_state(FastGameObject *self, PyObject *unused)
{
    State *s = &self->s;
    PyObject *values = PyTuple_New(s->ndice), *dcell = PyTuple_New(s->ndice);
    PyObject *staged = PyTuple_New(s->nstaged);
    if (values == NULL || dcell == NULL || staged == NULL)
        goto fail;
    for (int i = 0; i < s->ndice; i++) {
        PyTuple_SET_ITEM(values, i, PyLong_FromLong(s->values[i]));
        if (s->dcell[i] < 0)
            PyTuple_SET_ITEM(dcell, i, Py_NewRef(Py_None));
        else
            PyTuple_SET_ITEM(dcell, i, PyLong_FromLong(s->dcell[i]));
    }
    for (int k = 0; k < s->nstaged; k++)
        PyTuple_SET_ITEM(staged, k, PyLong_FromLong(s->staged[k]));
    return Py_BuildValue("(y#iiiiiNNNiii)", (const char *)s->cells, (Py_ssize_t)16,
                         s->difficulty, s->phase, s->required, s->powers_used, s->turns,
                         values, dcell, staged, s->turn_actions, s->pending, s->next_slot);
fail:
    Py_XDECREF(values);
    Py_XDECREF(dcell);
    Py_XDECREF(staged);
    return NULL;
}

static PyObject *
fg_set_state(FastGameObject *self, PyObject *args)
{
    State s;
    const char *cells;
    Py_ssize_t ncells;
    PyObject *values, *dcell, *staged;
    memset(&s, 0, sizeof s);
    if (!PyArg_ParseTuple(args, "y#iiiiiOOOiii", &cells, &ncells, &s.difficulty, &s.phase,
                          &s.required, &s.powers_used, &s.turns, &values, &dcell, &staged,
                          &s.turn_actions, &s.pending, &s.next_slot))
        return NULL;
    if (ncells != 16 || s.difficulty < 0 || s.difficulty > 2 || s.phase < 0 || s.phase > 3) {
        PyErr_SetString(PyExc_ValueError, "not a state");
        return NULL;
    }
    memcpy(s.cells, cells, 16);
    s.ndice = (int)PySequence_Size(values);
    s.nstaged = (int)PySequence_Size(staged);
    if (s.ndice < 0 || s.ndice > 4 || s.nstaged < 0 || s.nstaged > 4 ||
        PySequence_Size(dcell) != s.ndice) {
        PyErr_SetString(PyExc_ValueError, "not a state");
        return NULL;
    }
    for (int i = 0; i < s.ndice; i++) {
        PyObject *v = PySequence_GetItem(values, i), *c = PySequence_GetItem(dcell, i);
        if (v == NULL || c == NULL) {
            Py_XDECREF(v);
            Py_XDECREF(c);
            return NULL;
        }
        s.values[i] = (int)PyLong_AsLong(v);
        s.dcell[i] = c == Py_None ? -1 : (int)PyLong_AsLong(c);
        Py_DECREF(v);
        Py_DECREF(c);
    }
    for (int k = 0; k < s.nstaged; k++) {
        PyObject *v = PySequence_GetItem(staged, k);
        if (v == NULL)
            return NULL;
        s.staged[k] = (int)PyLong_AsLong(v);
        Py_DECREF(v);
    }
    if (PyErr_Occurred())
        return NULL;
    self->s = s;
    Py_RETURN_NONE;
}

/* plans() -> (codes, cells): in PLACE, every distinct legal staged set of the turn's dice
   (staged ones counted in the tray) as its plan code, increasing, and the board it makes,
   16 bytes each, concatenated. */
static PyObject *
fg_plans(FastGameObject *self, PyObject *unused)
{
    State *s = &self->s;
    Found f = {NULL, 0, 0};
    if (s->phase == PLACE && !s->pending) {
        Masks m;
        int cnt[8] = {0};
        board_masks(s, &m);
        for (int i = 0; i < s->ndice; i++)
            cnt[s->values[i]]++;
        if (++stamp == 0) { /* the stamps wrapped: forget them all */
            memset(seen_stamp, 0, sizeof seen_stamp);
            stamp = 1;
        }
        if (staged_sets(&m, cnt, 0, s->required, 0, &f) < 0) {
            PyMem_Free(f.keys);
            return PyErr_NoMemory();
        }
    }
    long *codes = PyMem_Malloc((f.n ? f.n : 1) * 2 * sizeof(long));
    if (codes == NULL) {
        PyMem_Free(f.keys);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < f.n; k++) {
        codes[2 * k] = plan_code(s, f.keys[k]);
        codes[2 * k + 1] = (long)k;
    }
    qsort(codes, f.n, 2 * sizeof(long), compare_codes);
    PyObject *list = PyList_New(f.n);
    PyObject *cells = PyBytes_FromStringAndSize(NULL, 16 * f.n);
    if (list == NULL || cells == NULL) {
        Py_XDECREF(list);
        Py_XDECREF(cells);
        PyMem_Free(f.keys);
        PyMem_Free(codes);
        return NULL;
    }
    char *out = PyBytes_AS_STRING(cells);
    for (Py_ssize_t k = 0; k < f.n; k++) {
        unsigned long long key = f.keys[codes[2 * k + 1]];
        PyList_SET_ITEM(list, k, PyLong_FromLong(codes[2 * k]));
        for (int sq = 0; sq < 16; sq++) {
            int v = (int)(key >> (3 * sq) & 7);
            out[16 * k + sq] = (char)(v ? v : s->cells[sq]);
        }
    }
    PyMem_Free(f.keys);
    PyMem_Free(codes);
    return Py_BuildValue("(NN)", list, cells);
}

/* apply_plan(code): stage the plan's set (one of plans()) and CONFIRM. */
static PyObject *
fg_apply_plan(FastGameObject *self, PyObject *arg)
{
    State *s = &self->s;
    long code = PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred())
        return NULL;
    if (s->phase != PLACE || s->pending || code <= 0 || code >= 83521) {
        PyErr_Format(PyExc_ValueError, "plan %ld is not legal now", code);
        return NULL;
    }
    int sorted[4];
    for (int i = 0; i < s->ndice; i++) {
        int j = i;
        while (j > 0 && sorted[j - 1] > s->values[i]) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = s->values[i];
    }
    take_back_all(s);
    for (int k = 0; k < s->ndice; k++, code /= 17)
        if (code % 17)
            s->cells[code % 17 - 1] = (unsigned char)sorted[k];
    end_turn(s);
    Py_RETURN_NONE;
}

static PyObject *
random_games(PyObject *module, PyObject *args)
{
    int difficulty;
    long games;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "ilK", &difficulty, &games, &seed))
        return NULL;
    if (difficulty < 0 || difficulty > 2 || games < 0) {
        PyErr_SetString(PyExc_ValueError, "difficulty 0-2 and games >= 0");
        return NULL;
    }
    PyObject *scores = PyList_New(games);
    if (scores == NULL)
        return NULL;
    long steps = 0;
    unsigned long long rng = seed;
    State s;
    for (long g = 0; g < games; g++) {
        new_game(&s, difficulty);
        steps += play_random(&s, &rng);
        PyList_SET_ITEM(scores, g, PyLong_FromLong(score(&s)));
    }
    return Py_BuildValue("(Nl)", scores, steps);
}

static PyMethodDef fg_methods[] = {
    {"clone", (PyCFunction)fg_clone, METH_NOARGS, "An independent copy."},
    {"legal_mask", (PyCFunction)fg_legal_mask, METH_O,
     "legal_mask(buffer): write the legal ids' mask (NUM_ACTIONS bytes); return how many."},
    {"legal_actions", (PyCFunction)fg_legal_actions, METH_NOARGS, "The legal ids, increasing."},
    {"apply", (PyCFunction)fg_apply, METH_O, "apply(id): a legal decision."},
    {"apply_chance", (PyCFunction)fg_apply_chance, METH_O,
     "apply_chance(values): the dice of the chance node, in die index order."},
    {"observe", (PyCFunction)fg_observe, METH_O,
     "observe(buffer): write the observation (OBS_SIZE float32)."},
    {"score", (PyCFunction)fg_score, METH_NOARGS, "The score now."},
    {"chance_count", (PyCFunction)fg_chance_count, METH_NOARGS,
     "The dice a chance node rolls now (0: a decision or the end)."},
    {"dead_end", (PyCFunction)fg_dead_end, METH_NOARGS, "R7."},
    {"phase", (PyCFunction)fg_phase, METH_NOARGS, "0 ROLL, 1 PLACE, 2 MAGDAGDON, 3 OVER."},
    {"play_random", (PyCFunction)fg_play_random, METH_O,
     "play_random(seed): play to the end at random; return the decisions made."},
    {"get_state", (PyCFunction)fg_get_state, METH_NOARGS, "The state as a tuple."},
    {"plans", (PyCFunction)fg_plans, METH_NOARGS,
     "plans() -> (codes, cells): every distinct legal staged set and the board it makes."},
    {"apply_plan", (PyCFunction)fg_apply_plan, METH_O,
     "apply_plan(code): stage a set of plans() and CONFIRM (the caller checked it)."},
    {"set_state", (PyCFunction)fg_set_state, METH_VARARGS, "Set the state from its tuple."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FastGameType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "magdagdon.engine._fastgame.FastGame",
    .tp_basicsize = sizeof(FastGameObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A game played by die-level ids, chance as chance (see fast.py).",
    .tp_new = fg_new,
    .tp_methods = fg_methods,
};

static PyMethodDef methods[] = {
    {"random_games", random_games, METH_VARARGS,
     "random_games(difficulty, games, seed) -> (scores, decisions): games played at random."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastgame",
    "The engine's fast path in C (see magdagdon.engine.fast).", -1, methods,
};

PyMODINIT_FUNC
PyInit__fastgame(void)
{
    if (PyType_Ready(&FastGameType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "FastGame", (PyObject *)&FastGameType) < 0 ||
        PyModule_AddIntConstant(m, "NUM_ACTIONS", NUM_ACTIONS) < 0 ||
        PyModule_AddIntConstant(m, "OBS_SIZE", OBS_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "TURN_ACTIONS", TURN_ACTIONS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
