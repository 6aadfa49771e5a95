/* libpg_query adapter: parses a model's SQL with PostgreSQL's own grammar (libpg_query,
 * PostgreSQL 15) and translates the protobuf parse tree into weir's AST (ast.h).
 * This is the only file in weir that includes libpg_query headers.
 *
 * Translation rules: constructs weir binds map to their Ast kinds; every other
 * construct becomes AST_UNSUPPORTED with a human name and the nearest known position,
 * so the binder can reject it at the right place. Unknown protobuf node kinds are
 * never fatal.
 *
 * Positions: the parse tree's `location` fields are byte offsets. Some nodes have none
 * (SELECT, JOIN, subquery in FROM); for those we find the keyword that starts them in
 * the token stream of pg_query_scan (which skips comments and strings correctly).
 *
 * Stack: libpg_query serialises its tree recursively and protobuf-c unpacks it
 * recursively (about 2 KiB of stack per level of a left-deep operator chain), and such a
 * chain ("a + a + a ...") is as deep as it is long: ~4k terms overflow an 8 MiB stack.
 * The grammar itself is iterative, so the depth is bounded by the number of tokens that
 * can open a level (everything but names, literals and commas). We count those with the
 * scanner first and parse on the caller's stack when it has room for that bound (every
 * ordinary model: starting a thread per model would dominate loading a large project),
 * else on a helper thread whose stack is sized for it; absurdly complex texts are
 * refused with a message. */
#include "sql/ast.h"

#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef PgQuery__Node PNode;

/* Longest SQL text accepted; far beyond any hand-written model. */
#define SQL_MAX_LEN ((size_t)1 << 20)
/* Most depth-bearing tokens accepted (bounds the helper thread's stack reservation). */
#define MAX_LEVEL_TOKENS 100000
/* Helper thread stack: a base plus a budget per depth-bearing token (twice the measured
 * cost of libpg_query + protobuf-c + this file, with or without ASan). */
#define STACK_BASE ((size_t)16 << 20)
#define STACK_PER_TOKEN ((size_t)4096)
/* Texts this simple are parsed on the caller's stack when it has room for them. */
#define INLINE_MAX_LEVEL_TOKENS 1000
/* Room an inline parse leaves untouched on the caller's stack, besides its budget. */
#define INLINE_RESERVE ((size_t)1 << 20)

/* PostgreSQL constants not exported by libpg_query's headers. */
#define FRAMEOPTION_DEFAULTS 1058      /* RANGE UNBOUNDED PRECEDING AND CURRENT ROW */
#define INTERVAL_FULL_RANGE 0x7FFF     /* INTERVAL(p) without a field qualifier */

typedef struct Ctx {
    Arena *arena;
    const char *sql;
    /* Non-comment tokens of the text, in order (arena memory). */
    int *tstart, *tend;
    int ntok;
    /* Levels of expr/select_stmt/range_item being translated (every recursion of the
     * translation passes through one of them), and where the first level beyond
     * SQL_MAX_DEPTH was met (-2 when none). */
    int depth;
    int too_deep_loc;
} Ctx;

static Ast *expr(Ctx *c, const PNode *n, int near);
static Ast *select_stmt(Ctx *c, const PgQuery__SelectStmt *s, int near);
static Ast *range_item(Ctx *c, const PNode *n, int near);
static Ast *expr_node(Ctx *c, const PNode *n, int near);
static Ast *select_node(Ctx *c, const PgQuery__SelectStmt *s, int near);
static Ast *range_node(Ctx *c, const PNode *n, int near);
static Ast *sort_by(Ctx *c, const PNode *n, int near);
static Ast *window_def(Ctx *c, const PgQuery__WindowDef *w, int near);

/* ---- tokens ---------------------------------------------------------------- */

/* Tokens that never open a level of the parse tree. */
static bool flat_token(PgQuery__Token t)
{
    switch (t) {
    case PG_QUERY__TOKEN__IDENT:
    case PG_QUERY__TOKEN__UIDENT:
    case PG_QUERY__TOKEN__FCONST:
    case PG_QUERY__TOKEN__SCONST:
    case PG_QUERY__TOKEN__USCONST:
    case PG_QUERY__TOKEN__BCONST:
    case PG_QUERY__TOKEN__XCONST:
    case PG_QUERY__TOKEN__ICONST:
    case PG_QUERY__TOKEN__PARAM:
    case PG_QUERY__TOKEN__ASCII_44: /* , */
        return true;
    default:
        return false;
    }
}

/* protobuf-c allocates the unpacked trees from a scratch arena dropped as a whole: no
 * malloc per node and no walk to free them (a tenth of loading a large project). */
static void *pb_alloc(void *arena, size_t n)
{
    return arena_alloc_raw(arena, n ? n : 1);
}

static void pb_free(void *arena, void *p)
{
    (void)arena;
    (void)p;
}

/* Scans the text into c's token arrays (comments dropped). Returns the number of
 * tokens that may open a level of the parse tree, or 0 when the text does not scan
 * (the parser then stops at the same lexical error before building anything deep). */
static int load_tokens(Ctx *c)
{
    int levels = 0;
    c->ntok = 0;
    PgQueryScanResult sr = pg_query_scan(c->sql);
    Arena scratch;
    arena_init(&scratch, 32 * 1024);
    ProtobufCAllocator pb = {pb_alloc, pb_free, &scratch};
    if (!sr.error && sr.pbuf.data) {
        PgQuery__ScanResult *scan =
            pg_query__scan_result__unpack(&pb, sr.pbuf.len, (const uint8_t *)sr.pbuf.data);
        if (scan) {
            c->tstart = ARENA_ARRAY(c->arena, int, scan->n_tokens + 1);
            c->tend = ARENA_ARRAY(c->arena, int, scan->n_tokens + 1);
            for (size_t i = 0; i < scan->n_tokens; i++) {
                const PgQuery__ScanToken *t = scan->tokens[i];
                if (t->token == PG_QUERY__TOKEN__SQL_COMMENT || t->token == PG_QUERY__TOKEN__C_COMMENT)
                    continue;
                if (!flat_token(t->token)) levels++;
                c->tstart[c->ntok] = t->start;
                c->tend[c->ntok] = t->end;
                c->ntok++;
            }
        }
    }
    arena_fini(&scratch);
    pg_query_free_scan_result(sr);
    return levels;
}

/* Index of the first token starting at or after pos (ntok when none). */
static int tok_at(const Ctx *c, int pos)
{
    int lo = 0, hi = c->ntok;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (c->tstart[mid] < pos) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool tok_is(const Ctx *c, int i, const char *word)
{
    if (i < 0 || i >= c->ntok) return false;
    size_t len = (size_t)(c->tend[i] - c->tstart[i]);
    return strlen(word) == len && strncasecmp(c->sql + c->tstart[i], word, len) == 0;
}

static bool tok_in(const Ctx *c, int i, const char *const *words)
{
    for (; *words; words++)
        if (tok_is(c, i, *words)) return true;
    return false;
}

/* Start of the first token at or after pos, skipping whitespace and comments. */
static int first_token_from(const Ctx *c, int pos)
{
    int i = tok_at(c, pos);
    return i < c->ntok ? c->tstart[i] : pos;
}

/* Extend pos backwards over the tokens in words that immediately precede it; returns
 * the start of the earliest one (pos itself when none precede). */
static int extend_back(const Ctx *c, int pos, const char *const *words)
{
    if (pos < 0) return pos;
    int i = tok_at(c, pos);
    while (i > 0 && tok_in(c, i - 1, words)) i--;
    return i < c->ntok ? c->tstart[i] : pos;
}

/* Position of the SELECT / VALUES / TABLE keyword that begins a query whose first
 * located element is at anchor, or -1 when it cannot be found. Only keywords and
 * parenthesised groups (DISTINCT ON (...)) may lie in between. */
static int query_keyword_before(const Ctx *c, int anchor)
{
    static const char *const skip[] = {"distinct", "all", "on", "from", "(", NULL};
    static const char *const start[] = {"select", "values", "table", NULL};
    if (anchor < 0) return -1;
    int j = tok_at(c, anchor) - 1;
    while (j >= 0) {
        if (tok_in(c, j, start)) return c->tstart[j];
        if (tok_is(c, j, ")")) {
            int depth = 0;
            for (; j >= 0; j--) {
                if (tok_is(c, j, ")")) depth++;
                else if (tok_is(c, j, "(") && --depth == 0) break;
            }
            j--;
            continue;
        }
        if (!tok_in(c, j, skip)) return -1;
        j--;
    }
    return -1;
}

/* ---- small helpers --------------------------------------------------------- */

static Ast *node_new(Ctx *c, AstKind k, int loc)
{
    Ast *a = ARENA_NEW(c->arena, Ast);
    a->kind = k;
    a->loc = loc;
    return a;
}

/* The levels of the translation: a level beyond SQL_MAX_DEPTH is not translated (the
 * parse then fails at the first such node, `loc`), so the translation's own recursion
 * stays bounded too. */
static bool enter(Ctx *c, int loc)
{
    if (c->depth >= SQL_MAX_DEPTH) {
        if (c->too_deep_loc == -2) c->too_deep_loc = loc;
        return false;
    }
    c->depth++;
    return true;
}

static Ast *unsupported(Ctx *c, const char *what, int loc);
static int node_loc(const PNode *n);
static int pick_loc(int loc, int near);

static Ast *expr(Ctx *c, const PNode *n, int near)
{
    int loc = pick_loc(n ? node_loc(n) : -1, near);
    if (!enter(c, loc)) return unsupported(c, "too deep", loc);
    Ast *a = expr_node(c, n, near);
    c->depth--;
    return a;
}

static Ast *select_stmt(Ctx *c, const PgQuery__SelectStmt *s, int near)
{
    if (c->depth >= SQL_MAX_DEPTH) { /* where its SELECT keyword is */
        int anchor = s->n_target_list && s->target_list[0] ? node_loc(s->target_list[0]) : -1;
        int kw = query_keyword_before(c, anchor);
        near = kw >= 0 ? kw : pick_loc(anchor, near);
    }
    if (!enter(c, near)) return unsupported(c, "too deep", near);
    Ast *a = select_node(c, s, near);
    c->depth--;
    return a;
}

static Ast *range_item(Ctx *c, const PNode *n, int near)
{
    int loc = pick_loc(n ? node_loc(n) : -1, near);
    if (!enter(c, loc)) return unsupported(c, "too deep", loc);
    Ast *a = range_node(c, n, near);
    c->depth--;
    return a;
}

static Ast *unsupported(Ctx *c, const char *what, int loc)
{
    Ast *a = node_new(c, AST_UNSUPPORTED, loc);
    a->name = what;
    return a;
}

static const char *dup(Ctx *c, const char *s)
{
    return arena_strdup(c->arena, s ? s : "");
}

static bool has_str(const char *s)
{
    return s && *s;
}

static int pick_loc(int loc, int near)
{
    return loc >= 0 ? loc : near;
}

static const char *pstring(const PNode *n)
{
    return n && n->node_case == PG_QUERY__NODE__NODE_STRING && n->string ? n->string->sval : NULL;
}

/* Copies a list of String nodes; non-strings become "". */
static const char **str_list(Ctx *c, PNode *const *items, size_t n, int *out_n)
{
    *out_n = (int)n;
    if (n == 0) return NULL;
    const char **v = ARENA_ARRAY(c->arena, const char *, n);
    for (size_t i = 0; i < n; i++) v[i] = dup(c, pstring(items[i]));
    return v;
}

/* Last String of a qualified name (operator, function, type), or "". */
static const char *last_name(PNode *const *items, size_t n)
{
    const char *s = n ? pstring(items[n - 1]) : NULL;
    return s ? s : "";
}

static const ProtobufCFieldDescriptor *node_field(const PNode *n)
{
    if (!n || n->node_case == PG_QUERY__NODE__NODE__NOT_SET) return NULL;
    return protobuf_c_message_descriptor_get_field(&pg_query__node__descriptor, (unsigned)n->node_case);
}

/* Protobuf type name of a node ("RangeTableSample"), for unknown constructs. */
static const char *node_type_name(const PNode *n)
{
    const ProtobufCFieldDescriptor *f = node_field(n);
    if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE || !f->descriptor) return "unknown syntax";
    return ((const ProtobufCMessageDescriptor *)f->descriptor)->short_name;
}

/* The `location` field of any node that has one, else -1. */
static int node_loc(const PNode *n)
{
    const ProtobufCFieldDescriptor *f = node_field(n);
    if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE) return -1;
    const ProtobufCMessage *m = *(const ProtobufCMessage *const *)((const char *)n + f->offset);
    if (!m) return -1;
    const ProtobufCFieldDescriptor *lf = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "location");
    if (!lf || lf->type != PROTOBUF_C_TYPE_INT32) return -1;
    return *(const int32_t *)((const char *)m + lf->offset);
}

static AstList list_alloc(Ctx *c, size_t n)
{
    AstList l = {NULL, (int)n};
    if (n) l.items = ARENA_ARRAY(c->arena, Ast *, n);
    return l;
}

static AstList expr_list(Ctx *c, PNode *const *items, size_t n, int near)
{
    AstList l = list_alloc(c, n);
    for (size_t i = 0; i < n; i++) l.items[i] = expr(c, items[i], near);
    return l;
}

static AstList sort_list(Ctx *c, PNode *const *items, size_t n, int near)
{
    AstList l = list_alloc(c, n);
    for (size_t i = 0; i < n; i++) l.items[i] = sort_by(c, items[i], near);
    return l;
}

/* Leftmost source position of a range item (a join starts at its left operand). */
static int range_start(const Ast *a)
{
    while (a && a->kind == AST_JOIN && a->larg) a = a->larg;
    return a ? a->loc : -1;
}

/* ---- expressions ----------------------------------------------------------- */

static Ast *a_const(Ctx *c, const PgQuery__AConst *k, int near)
{
    int loc = pick_loc(k->location, near);
    Ast *a = node_new(c, AST_CONST, loc);
    if (k->isnull) {
        a->const_kind = AST_CONST_NULL;
        a->text = "NULL";
        return a;
    }
    switch (k->val_case) {
    case PG_QUERY__A__CONST__VAL_IVAL:
        a->const_kind = AST_CONST_INT;
        a->text = arena_printf(c->arena, "%d", k->ival ? (int)k->ival->ival : 0);
        return a;
    case PG_QUERY__A__CONST__VAL_FVAL:
        a->const_kind = AST_CONST_NUMBER;
        a->text = dup(c, k->fval ? k->fval->fval : "0");
        return a;
    case PG_QUERY__A__CONST__VAL_SVAL:
        a->const_kind = AST_CONST_STRING;
        a->text = dup(c, k->sval ? k->sval->sval : "");
        return a;
    case PG_QUERY__A__CONST__VAL_BOOLVAL:
        a->const_kind = AST_CONST_BOOL;
        a->text = k->boolval && k->boolval->boolval ? "true" : "false";
        return a;
    case PG_QUERY__A__CONST__VAL_BSVAL:
        return unsupported(c, "bit-string literal", loc);
    default:
        return unsupported(c, "constant", loc);
    }
}

/* Fills *out from a TypeName; returns NULL, or the name of what cannot be represented. */
static const char *type_name(Ctx *c, const PgQuery__TypeName *t, AstTypeName *out)
{
    memset(out, 0, sizeof *out);
    out->loc = t ? t->location : -1;
    if (!t || t->n_names == 0) return "type name";
    if (t->setof) return "SETOF type";
    if (t->pct_type) return "%TYPE reference";
    out->names = str_list(c, t->names, t->n_names, &out->nnames);
    out->is_array = t->n_array_bounds > 0;
    int mods[8];
    size_t nmods = t->n_typmods;
    if (nmods > 5) return "type modifiers";
    for (size_t i = 0; i < nmods; i++) {
        const PNode *m = t->typmods[i];
        if (!m || m->node_case != PG_QUERY__NODE__NODE_A_CONST || !m->a_const || m->a_const->isnull ||
            m->a_const->val_case != PG_QUERY__A__CONST__VAL_IVAL)
            return "type modifier that is not an integer constant";
        mods[i] = m->a_const->ival ? m->a_const->ival->ival : 0;
    }
    size_t first = 0;
    if (strcmp(last_name(t->names, t->n_names), "interval") == 0 && nmods > 0) {
        /* libpg_query puts the field mask first, then the seconds precision */
        out->interval_fields = mods[0] == INTERVAL_FULL_RANGE ? 0 : mods[0];
        first = 1;
    }
    if (nmods - first > 4) return "type modifiers";
    for (size_t i = first; i < nmods; i++) out->typmods[out->ntypmods++] = mods[i];
    return NULL;
}

static Ast *type_cast(Ctx *c, const PgQuery__TypeCast *tc, int near)
{
    /* `timestamp '...'` and INTERVAL literals have no cast location; the type's is the start */
    int loc = tc->location >= 0 ? tc->location : pick_loc(tc->type_name ? tc->type_name->location : -1, near);
    Ast *a = node_new(c, AST_TYPE_CAST, loc);
    const char *bad = type_name(c, tc->type_name, &a->type_name);
    if (bad) return unsupported(c, bad, pick_loc(a->type_name.loc, loc));
    a->expr = expr(c, tc->arg, loc);
    return a;
}

static bool is_like_escape(const PNode *n)
{
    return n && n->node_case == PG_QUERY__NODE__NODE_FUNC_CALL && n->func_call &&
           strcmp(last_name(n->func_call->funcname, n->func_call->n_funcname), "like_escape") == 0;
}

static Ast *a_expr(Ctx *c, const PgQuery__AExpr *e, int near)
{
    int loc = pick_loc(e->location, near);
    const char *op = last_name(e->name, e->n_name);
    Ast *a;
    switch (e->kind) {
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP:
        a = node_new(c, AST_OP, loc);
        a->name = dup(c, op);
        a->lexpr = e->lexpr ? expr(c, e->lexpr, loc) : NULL;
        a->rexpr = e->rexpr ? expr(c, e->rexpr, loc) : NULL;
        return a;
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ANY:
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL:
        a = node_new(c, AST_ARRAY_CMP, loc);
        a->name = dup(c, op);
        a->negated = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL;
        a->lexpr = e->lexpr ? expr(c, e->lexpr, loc) : NULL;
        a->rexpr = e->rexpr ? expr(c, e->rexpr, loc) : NULL;
        return a;
    case PG_QUERY__A__EXPR__KIND__AEXPR_DISTINCT:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT:
        a = node_new(c, AST_DISTINCT_FROM, loc);
        a->negated = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT;
        a->lexpr = expr(c, e->lexpr, loc);
        a->rexpr = expr(c, e->rexpr, loc);
        return a;
    case PG_QUERY__A__EXPR__KIND__AEXPR_NULLIF:
        a = node_new(c, AST_NULLIF, loc);
        a->lexpr = expr(c, e->lexpr, loc);
        a->rexpr = expr(c, e->rexpr, loc);
        return a;
    case PG_QUERY__A__EXPR__KIND__AEXPR_IN:
        a = node_new(c, AST_IN_LIST, loc);
        a->negated = strcmp(op, "<>") == 0;
        a->lexpr = expr(c, e->lexpr, loc);
        if (e->rexpr && e->rexpr->node_case == PG_QUERY__NODE__NODE_LIST && e->rexpr->list)
            a->args = expr_list(c, e->rexpr->list->items, e->rexpr->list->n_items, loc);
        else if (e->rexpr)
            a->args = expr_list(c, &e->rexpr, 1, loc);
        return a;
    case PG_QUERY__A__EXPR__KIND__AEXPR_LIKE:
    case PG_QUERY__A__EXPR__KIND__AEXPR_ILIKE: {
        bool ilike = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_ILIKE;
        if (is_like_escape(e->rexpr))
            return unsupported(c, ilike ? "ILIKE ... ESCAPE" : "LIKE ... ESCAPE", loc);
        a = node_new(c, AST_LIKE, loc);
        a->ilike = ilike;
        a->negated = op[0] == '!';
        a->lexpr = expr(c, e->lexpr, loc);
        a->rexpr = expr(c, e->rexpr, loc);
        return a;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_SIMILAR:
        return unsupported(c, "SIMILAR TO", loc);
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM: {
        const PNode *r = e->rexpr;
        if (!r || r->node_case != PG_QUERY__NODE__NODE_LIST || !r->list || r->list->n_items != 2)
            return unsupported(c, "BETWEEN", loc);
        a = node_new(c, AST_BETWEEN, loc);
        a->negated = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN ||
                     e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
        a->symmetric = e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM ||
                       e->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
        a->lexpr = expr(c, e->lexpr, loc);
        a->args = expr_list(c, r->list->items, 2, loc);
        return a;
    }
    default:
        return unsupported(c, "operator expression", loc);
    }
}

static Ast *bool_expr(Ctx *c, const PgQuery__BoolExpr *b, int near)
{
    int loc = pick_loc(b->location, near);
    if (b->boolop == PG_QUERY__BOOL_EXPR_TYPE__NOT_EXPR) {
        Ast *a = node_new(c, AST_NOT, loc);
        a->expr = b->n_args ? expr(c, b->args[0], loc) : unsupported(c, "NOT", loc);
        return a;
    }
    AstKind k;
    if (b->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR) k = AST_AND;
    else if (b->boolop == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR) k = AST_OR;
    else return unsupported(c, "boolean expression", loc);

    /* flatten nested lists of the same kind: a AND (b AND c) -> AND(a, b, c) */
    Ast **kids = ARENA_ARRAY(c->arena, Ast *, b->n_args + 1);
    size_t total = 0;
    for (size_t i = 0; i < b->n_args; i++) {
        kids[i] = expr(c, b->args[i], loc);
        total += kids[i]->kind == k ? (size_t)kids[i]->args.n : 1;
    }
    Ast *a = node_new(c, k, loc);
    a->args = list_alloc(c, total);
    int o = 0;
    for (size_t i = 0; i < b->n_args; i++) {
        if (kids[i]->kind == k)
            for (int j = 0; j < kids[i]->args.n; j++) a->args.items[o++] = kids[i]->args.items[j];
        else
            a->args.items[o++] = kids[i];
    }
    return a;
}

static Ast *window_def(Ctx *c, const PgQuery__WindowDef *w, int near)
{
    int loc = pick_loc(w->location, near);
    Ast *a = node_new(c, AST_WINDOW_DEF, loc);
    a->partition = expr_list(c, w->partition_clause, w->n_partition_clause, loc);
    a->order = sort_list(c, w->order_clause, w->n_order_clause, loc);
    a->has_frame = w->frame_options != FRAMEOPTION_DEFAULTS && w->frame_options != 0;
    a->frame_options = w->frame_options;
    if (w->start_offset) a->frame_start = expr(c, w->start_offset, loc);
    if (w->end_offset) a->frame_end = expr(c, w->end_offset, loc);
    if (has_str(w->name)) a->name = dup(c, w->name);
    if (has_str(w->refname)) a->refname = dup(c, w->refname);
    return a;
}

static Ast *func_call(Ctx *c, const PgQuery__FuncCall *f, int near)
{
    int loc = pick_loc(f->location, near);
    Ast *a = node_new(c, AST_FUNC_CALL, loc);
    a->names = str_list(c, f->funcname, f->n_funcname, &a->nnames);
    a->name = dup(c, last_name(f->funcname, f->n_funcname));
    a->args = expr_list(c, f->args, f->n_args, loc);
    a->agg_star = f->agg_star;
    a->agg_distinct = f->agg_distinct;
    a->func_variadic = f->func_variadic;
    if (f->agg_filter) a->agg_filter = expr(c, f->agg_filter, loc);
    a->agg_order = sort_list(c, f->agg_order, f->n_agg_order, loc);
    a->agg_within_group = f->agg_within_group;
    if (f->over) {
        /* OVER w arrives as a WindowDef named w; OVER (w ...) as one with refname w */
        a->over = window_def(c, f->over, loc);
        if (!a->over->refname && a->over->name) a->over->refname = a->over->name;
        a->over->name = NULL;
    }
    return a;
}

static Ast *case_expr(Ctx *c, const PgQuery__CaseExpr *ce, int near)
{
    int loc = pick_loc(ce->location, near);
    Ast *a = node_new(c, AST_CASE, loc);
    if (ce->arg) a->expr = expr(c, ce->arg, loc);
    a->whens = list_alloc(c, ce->n_args);
    for (size_t i = 0; i < ce->n_args; i++) {
        const PNode *w = ce->args[i];
        if (!w || w->node_case != PG_QUERY__NODE__NODE_CASE_WHEN || !w->case_when) {
            a->whens.items[i] = expr(c, w, loc);
            continue;
        }
        int wloc = pick_loc(w->case_when->location, loc);
        Ast *cw = node_new(c, AST_CASE_WHEN, wloc);
        cw->lexpr = expr(c, w->case_when->expr, wloc);
        cw->rexpr = expr(c, w->case_when->result, wloc);
        a->whens.items[i] = cw;
    }
    if (ce->defresult) a->else_expr = expr(c, ce->defresult, loc);
    return a;
}

static Ast *sub_link(Ctx *c, const PgQuery__SubLink *s, int near)
{
    int loc = pick_loc(s->location, near);
    AstSublinkKind k;
    switch (s->sub_link_type) {
    case PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK: k = AST_SUBLINK_EXISTS; break;
    case PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK: k = AST_SUBLINK_ANY; break;
    case PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK: k = AST_SUBLINK_ALL; break;
    case PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK: k = AST_SUBLINK_EXPR; break;
    case PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK: return unsupported(c, "ARRAY(subquery)", loc);
    case PG_QUERY__SUB_LINK_TYPE__ROWCOMPARE_SUBLINK: return unsupported(c, "row comparison with a subquery", loc);
    default: return unsupported(c, "subquery expression", loc);
    }
    Ast *a = node_new(c, AST_SUBLINK, loc);
    a->sublink = k;
    if (k == AST_SUBLINK_ANY || k == AST_SUBLINK_ALL) {
        a->sublink_op = dup(c, s->n_oper_name ? last_name(s->oper_name, s->n_oper_name) : "=");
        a->lexpr = expr(c, s->testexpr, loc);
    }
    const PNode *q = s->subselect;
    if (q && q->node_case == PG_QUERY__NODE__NODE_SELECT_STMT && q->select_stmt)
        a->subquery = select_stmt(c, q->select_stmt, loc);
    else
        a->subquery = unsupported(c, "subquery", loc);
    return a;
}

static const char *sql_value_function_name(PgQuery__SQLValueFunctionOp op)
{
    switch (op) {
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE: return "CURRENT_DATE (processing time)";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME_N: return "CURRENT_TIME (processing time)";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N: return "CURRENT_TIMESTAMP (processing time)";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME_N: return "LOCALTIME (processing time)";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N: return "LOCALTIMESTAMP (processing time)";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE: return "CURRENT_ROLE";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER: return "CURRENT_USER";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER: return "USER";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER: return "SESSION_USER";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: return "CURRENT_CATALOG";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA: return "CURRENT_SCHEMA";
    default: return "SQL value function";
    }
}

/* Human names of constructs that are always unsupported in expressions. */
static const struct {
    PgQuery__Node__NodeCase node_case;
    const char *name;
} unsupported_names[] = {
    {PG_QUERY__NODE__NODE_PARAM_REF, "$n parameters"},
    {PG_QUERY__NODE__NODE_A_INDIRECTION, "subscript or field selection"},
    {PG_QUERY__NODE__NODE_A_INDICES, "array subscript"},
    {PG_QUERY__NODE__NODE_A_ARRAY_EXPR, "ARRAY[...] constructor"},
    {PG_QUERY__NODE__NODE_ROW_EXPR, "ROW constructor"},
    {PG_QUERY__NODE__NODE_COLLATE_CLAUSE, "COLLATE"},
    {PG_QUERY__NODE__NODE_GROUPING_FUNC, "GROUPING()"},
    {PG_QUERY__NODE__NODE_XML_EXPR, "XML expression"},
    {PG_QUERY__NODE__NODE_XML_SERIALIZE, "XMLSERIALIZE"},
    {PG_QUERY__NODE__NODE_NAMED_ARG_EXPR, "named function argument"},
    {PG_QUERY__NODE__NODE_SET_TO_DEFAULT, "DEFAULT"},
    {PG_QUERY__NODE__NODE_CURRENT_OF_EXPR, "CURRENT OF"},
    {PG_QUERY__NODE__NODE_MULTI_ASSIGN_REF, "multiple-column assignment"},
    {PG_QUERY__NODE__NODE_SELECT_STMT, "subquery"},
    {PG_QUERY__NODE__NODE_LIST, "list"},
    {PG_QUERY__NODE__NODE_A_STAR, "*"},
    {PG_QUERY__NODE__NODE_GROUPING_SET, "GROUPING SETS"},
};

static Ast *column_ref(Ctx *c, const PgQuery__ColumnRef *cr, int near)
{
    int loc = pick_loc(cr->location, near);
    Ast *a = node_new(c, AST_COLUMN_REF, loc);
    size_t n = cr->n_fields;
    if (n && cr->fields[n - 1] && cr->fields[n - 1]->node_case == PG_QUERY__NODE__NODE_A_STAR) {
        a->star = true;
        n--;
    }
    for (size_t i = 0; i < n; i++)
        if (!pstring(cr->fields[i])) return unsupported(c, "column reference", loc);
    a->names = str_list(c, cr->fields, n, &a->nnames);
    return a;
}

static Ast *expr_node(Ctx *c, const PNode *n, int near)
{
    if (!n || n->node_case == PG_QUERY__NODE__NODE__NOT_SET) return unsupported(c, "empty expression", near);
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_COLUMN_REF: return column_ref(c, n->column_ref, near);
    case PG_QUERY__NODE__NODE_A_CONST: return a_const(c, n->a_const, near);
    case PG_QUERY__NODE__NODE_TYPE_CAST: return type_cast(c, n->type_cast, near);
    case PG_QUERY__NODE__NODE_A_EXPR: return a_expr(c, n->a_expr, near);
    case PG_QUERY__NODE__NODE_BOOL_EXPR: return bool_expr(c, n->bool_expr, near);
    case PG_QUERY__NODE__NODE_FUNC_CALL: return func_call(c, n->func_call, near);
    case PG_QUERY__NODE__NODE_GROUPING_FUNC: {
        const PgQuery__GroupingFunc *gf = n->grouping_func;
        Ast *a = node_new(c, AST_FUNC_CALL, pick_loc(gf->location, near));
        a->name = "grouping";
        a->names = ARENA_ARRAY(c->arena, const char *, 1);
        a->names[0] = "grouping";
        a->nnames = 1;
        a->grouping_func = true;
        a->args = expr_list(c, gf->args, gf->n_args, a->loc);
        return a;
    }
    case PG_QUERY__NODE__NODE_CASE_EXPR: return case_expr(c, n->case_expr, near);
    case PG_QUERY__NODE__NODE_SUB_LINK: return sub_link(c, n->sub_link, near);
    case PG_QUERY__NODE__NODE_NULL_TEST: {
        const PgQuery__NullTest *t = n->null_test;
        int loc = pick_loc(t->location, near);
        Ast *a = node_new(c, AST_NULL_TEST, loc);
        a->negated = t->nulltesttype == PG_QUERY__NULL_TEST_TYPE__IS_NOT_NULL;
        a->expr = expr(c, t->arg, loc);
        return a;
    }
    case PG_QUERY__NODE__NODE_BOOLEAN_TEST: {
        const PgQuery__BooleanTest *t = n->boolean_test;
        int loc = pick_loc(t->location, near);
        if (t->booltesttype < PG_QUERY__BOOL_TEST_TYPE__IS_TRUE ||
            t->booltesttype > PG_QUERY__BOOL_TEST_TYPE__IS_NOT_UNKNOWN)
            return unsupported(c, "boolean test", loc);
        Ast *a = node_new(c, AST_BOOL_TEST, loc);
        a->booltest = (int)t->booltesttype - PG_QUERY__BOOL_TEST_TYPE__IS_TRUE; /* BoolTestKind order */
        a->expr = expr(c, t->arg, loc);
        return a;
    }
    case PG_QUERY__NODE__NODE_COALESCE_EXPR: {
        const PgQuery__CoalesceExpr *e = n->coalesce_expr;
        int loc = pick_loc(e->location, near);
        Ast *a = node_new(c, AST_COALESCE, loc);
        a->args = expr_list(c, e->args, e->n_args, loc);
        return a;
    }
    case PG_QUERY__NODE__NODE_A_ARRAY_EXPR: {
        const PgQuery__AArrayExpr *e = n->a_array_expr;
        int loc = pick_loc(e->location, near);
        for (size_t i = 0; i < e->n_elements; i++)
            if (e->elements[i] && e->elements[i]->node_case == PG_QUERY__NODE__NODE_A_ARRAY_EXPR)
                return unsupported(c, "multidimensional ARRAY[...]", loc);
        Ast *a = node_new(c, AST_ARRAY, loc);
        a->args = expr_list(c, e->elements, e->n_elements, loc);
        return a;
    }
    case PG_QUERY__NODE__NODE_A_INDIRECTION: {
        const PgQuery__AIndirection *ind = n->a_indirection;
        int loc = pick_loc(node_loc(ind->arg), near);
        if (ind->n_indirection != 1 || !ind->indirection[0] ||
            ind->indirection[0]->node_case != PG_QUERY__NODE__NODE_A_INDICES)
            return unsupported(c, "field selection or several subscripts", loc);
        const PgQuery__AIndices *ix = ind->indirection[0]->a_indices;
        if (ix->is_slice || !ix->uidx) return unsupported(c, "array slice", loc);
        Ast *a = node_new(c, AST_SUBSCRIPT, loc);
        a->expr = expr(c, ind->arg, loc);
        a->lexpr = expr(c, ix->uidx, loc);
        return a;
    }
    case PG_QUERY__NODE__NODE_MIN_MAX_EXPR: {
        const PgQuery__MinMaxExpr *e = n->min_max_expr;
        int loc = pick_loc(e->location, near);
        Ast *a = node_new(c, AST_MIN_MAX, loc);
        a->is_greatest = e->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST;
        a->args = expr_list(c, e->args, e->n_args, loc);
        return a;
    }
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
        return unsupported(c, sql_value_function_name(n->sqlvalue_function->op),
                           pick_loc(n->sqlvalue_function->location, near));
    default:
        break;
    }
    int loc = pick_loc(node_loc(n), near);
    for (size_t i = 0; i < sizeof unsupported_names / sizeof unsupported_names[0]; i++)
        if (unsupported_names[i].node_case == n->node_case) return unsupported(c, unsupported_names[i].name, loc);
    return unsupported(c, node_type_name(n), loc);
}

static Ast *sort_by(Ctx *c, const PNode *n, int near)
{
    if (!n || n->node_case != PG_QUERY__NODE__NODE_SORT_BY || !n->sort_by) return expr(c, n, near);
    const PgQuery__SortBy *s = n->sort_by;
    Ast *e = expr(c, s->node, near);
    int loc = s->location >= 0 ? s->location : e->loc;
    if (s->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_USING) return unsupported(c, "ORDER BY ... USING", loc);
    Ast *a = node_new(c, AST_SORT_BY, loc);
    a->expr = e;
    a->desc = s->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
    a->nulls = s->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST  ? 1
               : s->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST ? 2
                                                                               : 0;
    return a;
}

/* ---- FROM items ------------------------------------------------------------ */

static void set_alias(Ctx *c, Ast *a, const PgQuery__Alias *al)
{
    if (!al) return;
    if (has_str(al->aliasname)) a->alias = dup(c, al->aliasname);
    a->alias_cols = str_list(c, al->colnames, al->n_colnames, &a->nalias_cols);
}

static Ast *range_var(Ctx *c, const PgQuery__RangeVar *r, int near)
{
    int loc = pick_loc(r->location, near);
    Ast *a = node_new(c, AST_RANGE_VAR, loc);
    if (has_str(r->catalogname))
        a->name = arena_printf(c->arena, "%s.%s.%s", r->catalogname, r->schemaname ? r->schemaname : "", r->relname);
    else if (has_str(r->schemaname))
        a->name = arena_printf(c->arena, "%s.%s", r->schemaname, r->relname ? r->relname : "");
    else
        a->name = dup(c, r->relname);
    set_alias(c, a, r->alias);
    return a;
}

static Ast *range_subselect(Ctx *c, const PgQuery__RangeSubselect *r, int near)
{
    static const char *const prefix[] = {"(", "lateral", NULL};
    const PNode *q = r->subquery;
    Ast *sub = q && q->node_case == PG_QUERY__NODE__NODE_SELECT_STMT && q->select_stmt
                   ? select_stmt(c, q->select_stmt, near)
                   : unsupported(c, "subquery", near);
    int loc = sub->loc >= 0 ? extend_back(c, sub->loc, prefix) : near;
    Ast *a = node_new(c, AST_RANGE_SUBSELECT, loc);
    a->lateral = r->lateral;
    a->subquery = sub;
    set_alias(c, a, r->alias);
    return a;
}

static Ast *range_function(Ctx *c, const PgQuery__RangeFunction *r, int near)
{
    const PNode *first = r->n_functions ? r->functions[0] : NULL;
    /* each entry is a List (function call, column definition list) */
    const PNode *fn = first && first->node_case == PG_QUERY__NODE__NODE_LIST && first->list && first->list->n_items
                          ? first->list->items[0]
                          : first;
    int loc = pick_loc(node_loc(fn), near);
    if (r->is_rowsfrom || r->n_functions > 1) return unsupported(c, "ROWS FROM (...)", loc);
    if (r->ordinality) return unsupported(c, "WITH ORDINALITY", loc);
    if (r->n_coldeflist ||
        (first && first->node_case == PG_QUERY__NODE__NODE_LIST && first->list && first->list->n_items > 1 &&
         first->list->items[1] && first->list->items[1]->node_case != PG_QUERY__NODE__NODE__NOT_SET))
        return unsupported(c, "column definition list", loc);
    Ast *f = expr(c, fn, loc);
    if (f->kind == AST_UNSUPPORTED) return f;
    if (f->kind != AST_FUNC_CALL) return unsupported(c, "expression used as a table function", loc);
    Ast *a = node_new(c, AST_RANGE_FUNCTION, f->loc);
    a->func = f;
    a->args = f->args;
    a->lateral = r->lateral;
    set_alias(c, a, r->alias);
    return a;
}

static Ast *join_expr(Ctx *c, const PgQuery__JoinExpr *j, int near)
{
    static const char *const join_words[] = {"join", "inner", "left", "right", "full", "outer",
                                             "cross", "natural", "(", NULL};
    Ast *l = range_item(c, j->larg, near);
    Ast *r = range_item(c, j->rarg, near);
    /* the join keyword ("LEFT JOIN") is the most useful place to point at */
    int rstart = range_start(r);
    int loc = rstart >= 0 ? extend_back(c, rstart, join_words) : range_start(l);
    if (loc >= 0 && rstart >= 0) {
        int i = tok_at(c, loc);
        while (i < c->ntok && c->tstart[i] < rstart && tok_is(c, i, "(")) i++;
        if (i < c->ntok && c->tstart[i] < rstart) loc = c->tstart[i];
    }
    loc = pick_loc(loc, near);
    Ast *a = node_new(c, AST_JOIN, loc);
    a->larg = l;
    a->rarg = r;
    a->natural = j->is_natural;
    a->using_cols = str_list(c, j->using_clause, j->n_using_clause, &a->nusing);
    if (j->quals) a->quals = expr(c, j->quals, loc);
    switch (j->jointype) {
    case PG_QUERY__JOIN_TYPE__JOIN_INNER:
        a->join_kind = !j->quals && !j->n_using_clause && !j->is_natural ? AST_JOIN_CROSS : AST_JOIN_INNER;
        break;
    case PG_QUERY__JOIN_TYPE__JOIN_LEFT: a->join_kind = AST_JOIN_LEFT; break;
    case PG_QUERY__JOIN_TYPE__JOIN_RIGHT: a->join_kind = AST_JOIN_RIGHT; break;
    case PG_QUERY__JOIN_TYPE__JOIN_FULL: a->join_kind = AST_JOIN_FULL; break;
    default: return unsupported(c, "join type", loc);
    }
    if (j->join_using_alias) return unsupported(c, "USING (...) AS alias", loc);
    set_alias(c, a, j->alias);
    return a;
}

static Ast *range_node(Ctx *c, const PNode *n, int near)
{
    if (!n) return unsupported(c, "FROM item", near);
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_RANGE_VAR: return range_var(c, n->range_var, near);
    case PG_QUERY__NODE__NODE_RANGE_SUBSELECT: return range_subselect(c, n->range_subselect, near);
    case PG_QUERY__NODE__NODE_RANGE_FUNCTION: return range_function(c, n->range_function, near);
    case PG_QUERY__NODE__NODE_JOIN_EXPR: return join_expr(c, n->join_expr, near);
    case PG_QUERY__NODE__NODE_RANGE_TABLE_SAMPLE: {
        int loc = n->range_table_sample->relation ? node_loc(n->range_table_sample->relation) : -1;
        return unsupported(c, "TABLESAMPLE", pick_loc(loc, near));
    }
    case PG_QUERY__NODE__NODE_RANGE_TABLE_FUNC: return unsupported(c, "XMLTABLE", pick_loc(node_loc(n), near));
    default: return unsupported(c, node_type_name(n), pick_loc(node_loc(n), near));
    }
}

/* ---- SELECT ---------------------------------------------------------------- */

static Ast *cte(Ctx *c, const PNode *n, int near)
{
    if (!n || n->node_case != PG_QUERY__NODE__NODE_COMMON_TABLE_EXPR || !n->common_table_expr)
        return unsupported(c, node_type_name(n), pick_loc(node_loc(n), near));
    const PgQuery__CommonTableExpr *ct = n->common_table_expr;
    int loc = pick_loc(ct->location, near);
    if (ct->search_clause) return unsupported(c, "SEARCH clause", loc);
    if (ct->cycle_clause) return unsupported(c, "CYCLE clause", loc);
    Ast *a = node_new(c, AST_CTE, loc);
    a->name = dup(c, ct->ctename);
    a->alias_cols = str_list(c, ct->aliascolnames, ct->n_aliascolnames, &a->nalias_cols);
    const PNode *q = ct->ctequery;
    if (q && q->node_case == PG_QUERY__NODE__NODE_SELECT_STMT && q->select_stmt)
        a->subquery = select_stmt(c, q->select_stmt, loc);
    else
        a->subquery = unsupported(c, "data-modifying statement in WITH", pick_loc(node_loc(q), loc));
    return a;
}

static const char *grouping_set_name(PgQuery__GroupingSetKind k)
{
    switch (k) {
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_ROLLUP: return "ROLLUP";
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_CUBE: return "CUBE";
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_EMPTY: return "GROUP BY ()";
    default: return "GROUPING SETS";
    }
}

/* A GROUP BY item that is a grouping set, or (inside one) a parenthesised list. */
static Ast *grouping_item(Ctx *c, const PNode *g, int near, bool inside)
{
    if (g && g->node_case == PG_QUERY__NODE__NODE_GROUPING_SET && g->grouping_set) {
        const PgQuery__GroupingSet *gs = g->grouping_set;
        Ast *a = node_new(c, AST_GROUPING_SET, pick_loc(gs->location, near));
        switch (gs->kind) {
        case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_ROLLUP: a->gset = AST_GSET_ROLLUP; break;
        case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_CUBE: a->gset = AST_GSET_CUBE; break;
        case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_EMPTY: a->gset = AST_GSET_EMPTY; break;
        case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_SETS: a->gset = AST_GSET_SETS; break;
        default: return unsupported(c, grouping_set_name(gs->kind), a->loc);
        }
        a->args = list_alloc(c, gs->n_content);
        for (size_t i = 0; i < gs->n_content; i++) a->args.items[i] = grouping_item(c, gs->content[i], a->loc, true);
        return a;
    }
    if (inside && g && g->node_case == PG_QUERY__NODE__NODE_ROW_EXPR && g->row_expr) {
        const PgQuery__RowExpr *r = g->row_expr;
        Ast *a = node_new(c, AST_GROUPING_SET, pick_loc(r->location, near));
        a->gset = AST_GSET_LIST;
        a->args = expr_list(c, r->args, r->n_args, a->loc);
        return a;
    }
    return expr(c, g, near);
}

static const char *locking_name(const PNode *n)
{
    if (!n || n->node_case != PG_QUERY__NODE__NODE_LOCKING_CLAUSE || !n->locking_clause) return "locking clause";
    switch (n->locking_clause->strength) {
    case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE: return "FOR KEY SHARE";
    case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORSHARE: return "FOR SHARE";
    case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE: return "FOR NO KEY UPDATE";
    default: return "FOR UPDATE";
    }
}

/* Where a simple SELECT starts: its SELECT/VALUES/TABLE (or WITH) keyword. */
static int simple_select_loc(Ctx *c, const Ast *a, const PgQuery__SelectStmt *s, int near)
{
    if (s->with_clause && s->with_clause->location >= 0) return s->with_clause->location;
    int anchor = -1;
    if (a->targets.n) anchor = a->targets.items[0]->loc;
    else if (a->from.n) anchor = range_start(a->from.items[0]);
    else if (s->n_values_lists && s->values_lists[0] && s->values_lists[0]->node_case == PG_QUERY__NODE__NODE_LIST &&
             s->values_lists[0]->list && s->values_lists[0]->list->n_items)
        anchor = node_loc(s->values_lists[0]->list->items[0]);
    int kw = query_keyword_before(c, anchor);
    if (kw >= 0) return kw;
    return anchor >= 0 ? anchor : near;
}

static Ast *select_node(Ctx *c, const PgQuery__SelectStmt *s, int near)
{
    Ast *a = node_new(c, AST_SELECT, near);
    switch (s->op) {
    case PG_QUERY__SET_OPERATION__SETOP_UNION: a->setop = AST_SETOP_UNION; break;
    case PG_QUERY__SET_OPERATION__SETOP_EXCEPT: a->setop = AST_SETOP_EXCEPT; break;
    case PG_QUERY__SET_OPERATION__SETOP_INTERSECT: a->setop = AST_SETOP_INTERSECT; break;
    default: a->setop = AST_SETOP_NONE; break;
    }
    if (s->with_clause) {
        int wloc = pick_loc(s->with_clause->location, near);
        a->recursive = s->with_clause->recursive;
        a->ctes = list_alloc(c, s->with_clause->n_ctes);
        for (size_t i = 0; i < s->with_clause->n_ctes; i++) a->ctes.items[i] = cte(c, s->with_clause->ctes[i], wloc);
    }
    if (a->setop != AST_SETOP_NONE) {
        a->setop_all = s->all;
        a->larg = s->larg ? select_stmt(c, s->larg, near) : unsupported(c, "set operation operand", near);
        a->rarg = s->rarg ? select_stmt(c, s->rarg, near) : unsupported(c, "set operation operand", near);
        a->loc = s->with_clause && s->with_clause->location >= 0 ? s->with_clause->location : a->larg->loc;
    } else {
        a->targets = list_alloc(c, s->n_target_list);
        for (size_t i = 0; i < s->n_target_list; i++) {
            const PNode *t = s->target_list[i];
            if (!t || t->node_case != PG_QUERY__NODE__NODE_RES_TARGET || !t->res_target) {
                a->targets.items[i] = expr(c, t, near);
                continue;
            }
            const PgQuery__ResTarget *rt = t->res_target;
            int tloc = pick_loc(rt->location, near);
            Ast *r = node_new(c, AST_RES_TARGET, tloc);
            if (has_str(rt->name)) r->name = dup(c, rt->name);
            r->expr = expr(c, rt->val, tloc);
            a->targets.items[i] = r;
        }
        a->from = list_alloc(c, s->n_from_clause);
        for (size_t i = 0; i < s->n_from_clause; i++) a->from.items[i] = range_item(c, s->from_clause[i], near);
        a->loc = simple_select_loc(c, a, s, near);
    }
    int loc = a->loc;

    if (s->n_distinct_clause == 1 &&
        (!s->distinct_clause[0] || s->distinct_clause[0]->node_case == PG_QUERY__NODE__NODE__NOT_SET))
        a->distinct = true;
    else
        a->distinct_on = expr_list(c, s->distinct_clause, s->n_distinct_clause, loc);
    if (s->where_clause) a->where = expr(c, s->where_clause, loc);
    a->group_by = list_alloc(c, s->n_group_clause);
    for (size_t i = 0; i < s->n_group_clause; i++) {
        a->group_by.items[i] = grouping_item(c, s->group_clause[i], loc, false);
    }
    if (s->having_clause) a->having = expr(c, s->having_clause, loc);
    a->windows = list_alloc(c, s->n_window_clause);
    for (size_t i = 0; i < s->n_window_clause; i++) {
        const PNode *w = s->window_clause[i];
        a->windows.items[i] = w && w->node_case == PG_QUERY__NODE__NODE_WINDOW_DEF && w->window_def
                                  ? window_def(c, w->window_def, loc)
                                  : expr(c, w, loc);
    }
    a->order_by = sort_list(c, s->sort_clause, s->n_sort_clause, loc);
    /* LIMIT ALL / LIMIT NULL mean no limit */
    const PNode *lc = s->limit_count;
    if (lc && !(lc->node_case == PG_QUERY__NODE__NODE_A_CONST && lc->a_const && lc->a_const->isnull))
        a->limit = expr(c, lc, loc);
    if (s->limit_offset) a->offset = expr(c, s->limit_offset, loc);

    if (s->n_values_lists) {
        a->nvalues = (int)s->n_values_lists;
        a->values = ARENA_ARRAY(c->arena, AstList, s->n_values_lists);
        for (size_t i = 0; i < s->n_values_lists; i++) {
            const PNode *row = s->values_lists[i];
            if (row && row->node_case == PG_QUERY__NODE__NODE_LIST && row->list)
                a->values[i] = expr_list(c, row->list->items, row->list->n_items, loc);
            else
                a->values[i] = expr_list(c, &s->values_lists[i], 1, loc);
        }
    }
    if (s->into_clause) return unsupported(c, "SELECT INTO", loc);
    if (s->n_locking_clause) return unsupported(c, locking_name(s->locking_clause[0]), loc);
    if (s->limit_option == PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_WITH_TIES)
        return unsupported(c, "FETCH FIRST ... WITH TIES", a->limit ? a->limit->loc : loc);
    return a;
}

/* ---- entry points ---------------------------------------------------------- */

static SqlParseResult fail(Arena *arena, const char *msg, int loc)
{
    SqlParseResult r = {NULL, false, arena_strdup(arena, msg), loc, NULL, NULL};
    return r;
}

static SqlParseResult too_deep(Arena *arena, int loc)
{
    SqlParseResult r = fail(arena, SQL_TOO_DEEP_MESSAGE, loc);
    r.code = "too-deep";
    r.hint = SQL_TOO_DEEP_HINT;
    return r;
}

/* PostgreSQL reports error positions in characters (1-based); convert to a byte offset. */
static int char_pos_to_byte(const char *sql, int cursorpos)
{
    if (cursorpos <= 0) return -1;
    int chars = cursorpos - 1;
    size_t i = 0;
    for (; sql[i] && chars > 0; i++)
        if (((unsigned char)sql[i] & 0xC0) != 0x80) {
            /* count a character at its lead byte; continuation bytes follow it */
            chars--;
        }
    while (sql[i] && ((unsigned char)sql[i] & 0xC0) == 0x80) i++;
    return (int)i;
}

static const char *statement_keyword(const Ctx *c, const PNode *stmt, int start)
{
    switch (stmt ? stmt->node_case : PG_QUERY__NODE__NODE__NOT_SET) {
    case PG_QUERY__NODE__NODE_INSERT_STMT: return "INSERT";
    case PG_QUERY__NODE__NODE_UPDATE_STMT: return "UPDATE";
    case PG_QUERY__NODE__NODE_DELETE_STMT: return "DELETE";
    case PG_QUERY__NODE__NODE_MERGE_STMT: return "MERGE";
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT: return "CREATE TABLE AS";
    case PG_QUERY__NODE__NODE_VIEW_STMT: return "CREATE VIEW";
    default: break;
    }
    int i = tok_at(c, start);
    if (i < c->ntok) {
        int len = c->tend[i] - c->tstart[i];
        if (len > 0 && len < 40) {
            char *w = arena_strndup(c->arena, c->sql + c->tstart[i], (size_t)len);
            for (char *p = w; *p; p++)
                if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
            return w;
        }
    }
    return node_type_name(stmt);
}

/* Parses c->sql (tokens already loaded) on the current thread. */
static SqlParseResult parse_here(Ctx *c)
{
    SqlParseResult res = {NULL, false, NULL, -1, NULL, NULL};
    PgQueryProtobufParseResult pr = pg_query_parse_protobuf(c->sql);
    if (pr.error) {
        res = fail(c->arena, pr.error->message ? pr.error->message : "syntax error",
                   char_pos_to_byte(c->sql, pr.error->cursorpos));
        pg_query_free_protobuf_parse_result(pr);
        return res;
    }
    Arena scratch;
    arena_init(&scratch, 32 * 1024); /* below malloc's mmap threshold: reused, not mapped per parse */
    ProtobufCAllocator pb = {pb_alloc, pb_free, &scratch};
    PgQuery__ParseResult *tree =
        pg_query__parse_result__unpack(&pb, pr.parse_tree.len, (const uint8_t *)pr.parse_tree.data);
    pg_query_free_protobuf_parse_result(pr);
    if (!tree) {
        arena_fini(&scratch);
        return fail(c->arena, "internal error: cannot decode the parse tree", -1);
    }

    if (tree->n_stmts != 1 || !tree->stmts[0]) {
        int loc = tree->n_stmts > 1 && tree->stmts[1] ? first_token_from(c, tree->stmts[1]->stmt_location)
                                                      : first_token_from(c, 0);
        res = fail(c->arena, "expected a single SELECT statement", loc);
    } else {
        const PgQuery__RawStmt *raw = tree->stmts[0];
        int start = first_token_from(c, raw->stmt_location);
        const PNode *st = raw->stmt;
        if (!st || st->node_case != PG_QUERY__NODE__NODE_SELECT_STMT || !st->select_stmt) {
            const char *kw = statement_keyword(c, st, start);
            res = fail(c->arena, arena_printf(c->arena, "only SELECT is allowed in a model; found %s", kw), start);
        } else {
            res.stmt = select_stmt(c, st->select_stmt, start);
            res.ok = true;
            res.error_loc = -1;
            if (c->too_deep_loc != -2) res = too_deep(c->arena, c->too_deep_loc);
        }
    }
    arena_fini(&scratch); /* the tree; the AST holds copies of what it needs */
    return res;
}

/* libpg_query's protobuf serialisation costs time quadratic in the tree's depth (each
 * level sizes its whole subtree again): a 60,000-term chain takes a minute. Its JSON
 * output is linear, so a text that may be deep is first parsed to JSON and refused when
 * the JSON nests more than JSON_LEVELS_PER_LEVEL times SQL_MAX_DEPTH: one level of the
 * translation is 2 (an operand) to 5 (a select-list item) levels of JSON, so such a text
 * would exceed the limit in the translation as well, and anything shallower costs the
 * protobuf path at most a few thousand levels. The error points at the first node found
 * beyond that depth. Returns false when the text may go on to parse_here. */
#define JSON_LEVELS_PER_LEVEL 8

static bool refuse_by_json(Ctx *c, SqlParseResult *res)
{
    PgQueryParseResult pr = pg_query_parse(c->sql);
    bool refused = false;
    if (!pr.error && pr.parse_tree) {
        const int limit = JSON_LEVELS_PER_LEVEL * (SQL_MAX_DEPTH + 10);
        int depth = 0, loc = -2;
        bool in_str = false;
        for (const char *s = pr.parse_tree; *s && loc == -2; s++) {
            if (in_str) {
                if (*s == '\\' && s[1]) s++;
                else if (*s == '"') in_str = false;
            } else if (*s == '"') {
                if (depth > limit && strncmp(s, "\"location\":", 11) == 0) loc = atoi(s + 11);
                else in_str = true;
            } else if (*s == '{' || *s == '[') {
                depth++;
            } else if (*s == '}' || *s == ']') {
                depth--;
            }
        }
        if (loc != -2) {
            *res = too_deep(c->arena, loc);
            refused = true;
        }
    }
    pg_query_free_parse_result(pr);
    return refused;
}

typedef struct ParseJob {
    Ctx *ctx;
    bool may_be_deep;
    SqlParseResult res;
} ParseJob;

static void *parse_thread(void *arg)
{
    ParseJob *job = arg;
    if (!job->may_be_deep || !refuse_by_json(job->ctx, &job->res)) job->res = parse_here(job->ctx);
    return NULL;
}

/* Bytes of stack left below this frame on the current thread (0 when unknown). The
 * stack's lowest address is looked up once per thread: for the main thread glibc reads
 * /proc/self/maps to find it. */
static size_t stack_room(void)
{
    static _Thread_local char *stack_lo;
    static _Thread_local bool looked_up;
    if (!looked_up) {
        looked_up = true;
        pthread_attr_t attr;
        void *lo = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &lo, &size) == 0) stack_lo = lo;
            pthread_attr_destroy(&attr);
        }
    }
    char here;
    uintptr_t sp = (uintptr_t)&here, lo = (uintptr_t)stack_lo;
    return lo && sp > lo ? (size_t)(sp - lo) : 0;
}

/* Flink's window table functions, TABLE(TUMBLE(TABLE rel, DESCRIPTOR(t), size)) (also
 * HOP, SESSION, CUMULATE), are not PostgreSQL syntax: the outer TABLE( and its closing
 * parenthesis and the TABLE before the relation are blanked out in a copy of the text,
 * which leaves weir's TUMBLE(rel, DESCRIPTOR(t), size) with every position unchanged.
 * Returns true when the text was rewritten (c->sql is then the copy). */
static bool rewrite_flink_windows(Ctx *c)
{
    static const char *const fns[] = {"tumble", "hop", "session", "cumulate", NULL};
    char *rw = NULL;
    for (int i = 0; i + 3 < c->ntok; i++) {
        if (!tok_is(c, i, "table") || !tok_is(c, i + 1, "(") || !tok_in(c, i + 2, fns) || !tok_is(c, i + 3, "("))
            continue;
        int depth = 0, close = -1;
        for (int k = i + 1; k < c->ntok && close < 0; k++) {
            if (tok_is(c, k, "(")) depth++;
            else if (tok_is(c, k, ")") && --depth == 0) close = k;
        }
        if (close < 0) continue;
        if (!rw) {
            size_t len = strlen(c->sql);
            rw = arena_alloc(c->arena, len + 1);
            memcpy(rw, c->sql, len + 1);
        }
        int blank[3] = {i, i + 1, close};
        for (int k = 0; k < 3; k++) memset(rw + c->tstart[blank[k]], ' ', (size_t)(c->tend[blank[k]] - c->tstart[blank[k]]));
        if (tok_is(c, i + 4, "table"))
            memset(rw + c->tstart[i + 4], ' ', (size_t)(c->tend[i + 4] - c->tstart[i + 4]));
    }
    if (!rw) return false;
    c->sql = rw;
    return true;
}

SqlParseResult sql_parse(Arena *arena, const char *sql)
{
    if (!sql) sql = "";
    size_t len = strlen(sql);
    if (len > SQL_MAX_LEN)
        return fail(arena, arena_printf(arena, "SQL text is too long (%zu bytes; the limit is %zu)", len, SQL_MAX_LEN),
                    -1);
    Ctx c = {arena, sql, NULL, NULL, 0, 0, -2};
    int levels = load_tokens(&c);
    if (levels <= MAX_LEVEL_TOKENS && rewrite_flink_windows(&c)) levels = load_tokens(&c);
    if (levels > MAX_LEVEL_TOKENS)
        return fail(arena,
                    arena_printf(arena, "SQL text is too complex (%d operators, keywords and brackets; "
                                        "the limit is %d)", levels, MAX_LEVEL_TOKENS),
                    -1);
    size_t need = (size_t)levels * STACK_PER_TOKEN;
    if (levels <= INLINE_MAX_LEVEL_TOKENS && stack_room() >= need + INLINE_RESERVE)
        return parse_here(&c);
    /* a text with at most SQL_MAX_DEPTH level tokens cannot nest deeper */
    ParseJob job = {&c, levels > SQL_MAX_DEPTH, {NULL, false, NULL, -1, NULL, NULL}};
    pthread_attr_t attr;
    pthread_t th;
    bool started = false;
    if (pthread_attr_init(&attr) == 0) {
        if (pthread_attr_setstacksize(&attr, STACK_BASE + need) == 0 &&
            pthread_create(&th, &attr, parse_thread, &job) == 0)
            started = true;
        pthread_attr_destroy(&attr);
    }
    if (started) {
        pthread_join(th, NULL);
        return job.res;
    }
    if (levels <= INLINE_MAX_LEVEL_TOKENS) return parse_here(&c);
    return fail(arena, "cannot start the SQL parser thread", -1);
}

const char *ast_kind_name(AstKind k)
{
    static const char *const names[] = {
        [AST_SELECT] = "SELECT",
        [AST_RES_TARGET] = "select-list item",
        [AST_COLUMN_REF] = "column reference",
        [AST_CONST] = "constant",
        [AST_TYPE_CAST] = "type cast",
        [AST_OP] = "operator",
        [AST_AND] = "AND",
        [AST_OR] = "OR",
        [AST_NOT] = "NOT",
        [AST_IN_LIST] = "IN list",
        [AST_BETWEEN] = "BETWEEN",
        [AST_LIKE] = "LIKE",
        [AST_DISTINCT_FROM] = "IS DISTINCT FROM",
        [AST_NULLIF] = "NULLIF",
        [AST_ARRAY] = "ARRAY[...] constructor",
        [AST_SUBSCRIPT] = "array subscript",
        [AST_ARRAY_CMP] = "ANY/ALL (array)",
        [AST_NULL_TEST] = "IS NULL",
        [AST_BOOL_TEST] = "IS TRUE/FALSE/UNKNOWN",
        [AST_FUNC_CALL] = "function call",
        [AST_CASE] = "CASE",
        [AST_CASE_WHEN] = "WHEN clause",
        [AST_COALESCE] = "COALESCE",
        [AST_MIN_MAX] = "GREATEST/LEAST",
        [AST_SUBLINK] = "subquery expression",
        [AST_STAR] = "*",
        [AST_RANGE_VAR] = "table reference",
        [AST_RANGE_SUBSELECT] = "subquery in FROM",
        [AST_RANGE_FUNCTION] = "table function",
        [AST_JOIN] = "JOIN",
        [AST_CTE] = "WITH query",
        [AST_SORT_BY] = "ORDER BY item",
        [AST_WINDOW_DEF] = "window definition",
        [AST_UNSUPPORTED] = "unsupported construct",
        [AST_GROUPING_SET] = "grouping set",
    };
    if ((unsigned)k >= sizeof names / sizeof names[0] || !names[k]) return "unknown AST node";
    return names[k];
}
