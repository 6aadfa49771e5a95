/* Unit tests for the YAML adapter (src/base/yaml.c): tree shape, 1-based positions,
 * scalar styles, duplicate keys, aliases, syntax errors, depth limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/yaml.h"

#include <stdlib.h>
#include <string.h>

typedef struct Fixture {
    Arena arena;
    DiagList dl;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    arena_init(&f->arena, 4096);
    diag_init(&f->dl);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    arena_fini(&f->arena);
    diag_fini(&f->dl);
    free(f);
    return 0;
}

static YNode *parse(Fixture *f, const char *text)
{
    return yaml_parse(&f->arena, "t.yml", text, strlen(text), &f->dl);
}

static void test_mapping_positions(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "name: shop\nvars:\n  min: 5\n  label: 'x y'\nlist:\n  - a\n  - [b, c]\n");
    assert_non_null(r);
    assert_int_equal(f->dl.count, 0);
    assert_int_equal(r->kind, YNODE_MAP);
    assert_int_equal(r->npairs, 3);
    assert_int_equal(r->pos.line, 1);
    assert_int_equal(r->pos.col, 1);
    assert_string_equal(r->pos.file, "t.yml");
    YNode *name = yaml_get(r, "name");
    assert_non_null(name);
    assert_string_equal(name->str, "shop");
    assert_int_equal(name->len, 4);
    assert_false(name->quoted);
    assert_int_equal(name->pos.line, 1);
    assert_int_equal(name->pos.col, 7);
    YNode *vars = yaml_get(r, "vars");
    assert_int_equal(vars->kind, YNODE_MAP);
    assert_int_equal(vars->pos.line, 3);
    assert_int_equal(vars->pos.col, 3);
    YNode *label = yaml_get(vars, "label");
    assert_true(label->quoted);
    assert_string_equal(label->str, "x y");
    assert_int_equal(label->pos.line, 4);
    assert_int_equal(label->pos.col, 10);
    /* keys keep positions too */
    assert_int_equal(vars->pairs[1].key->pos.line, 4);
    assert_int_equal(vars->pairs[1].key->pos.col, 3);
    YNode *list = yaml_get(r, "list");
    assert_int_equal(list->kind, YNODE_SEQ);
    assert_int_equal(list->nitems, 2);
    assert_int_equal(list->items[0]->pos.line, 6);
    assert_int_equal(list->items[0]->pos.col, 5);
    assert_int_equal(list->items[1]->kind, YNODE_SEQ);
    assert_int_equal(list->items[1]->nitems, 2);
    assert_string_equal(list->items[1]->items[1]->str, "c");
    assert_int_equal(list->items[1]->items[1]->pos.col, 9);
    assert_null(yaml_get(r, "absent"));
    assert_null(yaml_get(list, "name"));
}

static void test_scalars_and_null(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "a: ~\nb: null\nc:\nd: 'null'\ne: \"x\\ty\"\nf: |\n  line1\n  line2\ng: !!str 5\n");
    assert_non_null(r);
    assert_true(yaml_is_null(yaml_get(r, "a")));
    assert_true(yaml_is_null(yaml_get(r, "b")));
    assert_true(yaml_is_null(yaml_get(r, "c")));
    assert_false(yaml_is_null(yaml_get(r, "d")));
    assert_string_equal(yaml_get(r, "e")->str, "x\ty");
    assert_string_equal(yaml_get(r, "f")->str, "line1\nline2\n");
    assert_true(yaml_get(r, "f")->quoted);
    assert_true(yaml_get(r, "g")->quoted);
    assert_string_equal(yaml_kind_name(yaml_get(r, "a")), "null");
    assert_string_equal(yaml_kind_name(yaml_get(r, "d")), "a string");
    assert_string_equal(yaml_kind_name(r), "a mapping");
}

static void test_json_is_yaml(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "{\"min_amount\": 1, \"region\": \"eu\", \"xs\": [1, 2]}");
    assert_non_null(r);
    assert_int_equal(r->kind, YNODE_MAP);
    assert_string_equal(yaml_get(r, "min_amount")->str, "1");
    assert_false(yaml_get(r, "min_amount")->quoted);
    assert_true(yaml_get(r, "region")->quoted);
    assert_string_equal(yaml_kind_name(yaml_get(r, "xs")), "a list");
}

static void test_duplicate_key(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "a: 1\nb:\n  x: 1\n  x: 2\na: 3\n");
    assert_non_null(r); /* the tree is still returned; the first definition wins */
    assert_int_equal(f->dl.errors, 2);
    diag_sort(&f->dl);
    assert_string_equal(f->dl.items[0].code, "duplicate-key");
    assert_string_equal(f->dl.items[0].message, "duplicate key 'x'");
    assert_int_equal(f->dl.items[0].pos.line, 4);
    assert_int_equal(f->dl.items[0].pos.col, 3);
    assert_string_equal(f->dl.items[1].message, "duplicate key 'a'");
    assert_int_equal(f->dl.items[1].pos.line, 5);
    assert_int_equal(f->dl.items[1].pos.col, 1);
    assert_string_equal(yaml_get(r, "a")->str, "1");
    assert_int_equal(r->npairs, 2);
}

static void test_alias_rejected(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "base: &b {x: 1}\nother: *b\n");
    assert_null(r);
    assert_int_equal(f->dl.errors, 1);
    assert_string_equal(f->dl.items[0].code, "yaml-alias");
    assert_non_null(strstr(f->dl.items[0].message, "*b"));
    assert_int_equal(f->dl.items[0].pos.line, 2);
    assert_int_equal(f->dl.items[0].pos.col, 8);
}

static void test_syntax_error(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "a: 1\nb: [1, 2\nc: 3\n");
    assert_null(r);
    assert_int_equal(f->dl.errors, 1);
    const Diag *d = &f->dl.items[0];
    assert_string_equal(d->code, "yaml-syntax");
    assert_non_null(strstr(d->message, "invalid YAML: "));
    assert_non_null(strstr(d->message, "flow sequence"));
    assert_string_equal(d->pos.file, "t.yml");
    assert_true(d->pos.line >= 2);
    assert_true(d->pos.col >= 1);
}

static void test_tab_hint(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "a:\n\tb: 1\n");
    assert_null(r);
    assert_int_equal(f->dl.errors, 1);
    assert_string_equal(f->dl.items[0].code, "yaml-syntax");
    assert_int_equal(f->dl.items[0].pos.line, 2);
    assert_int_equal(f->dl.items[0].pos.col, 1);
    assert_non_null(f->dl.items[0].hint);
    assert_non_null(strstr(f->dl.items[0].hint, "tabs"));
}

static void test_bad_utf8(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "a: 1\nb: \xff\xfe\n");
    assert_null(r);
    assert_int_equal(f->dl.errors, 1);
    assert_string_equal(f->dl.items[0].code, "yaml-syntax");
    assert_int_equal(f->dl.items[0].pos.line, 2);
    assert_int_equal(f->dl.items[0].pos.col, 4);
}

static void test_empty_and_multi_document(void **state)
{
    Fixture *f = *state;
    assert_null(parse(f, ""));
    assert_null(parse(f, "# only a comment\n"));
    assert_int_equal(f->dl.count, 0);
    assert_null(parse(f, "a: 1\n---\nb: 2\n"));
    assert_int_equal(f->dl.errors, 1);
    assert_string_equal(f->dl.items[0].code, "yaml-multiple-documents");
    assert_int_equal(f->dl.items[0].pos.line, 2);
}

static void test_too_deep(void **state)
{
    Fixture *f = *state;
    char buf[1024];
    memset(buf, '[', 500);
    buf[500] = 0;
    assert_null(parse(f, buf));
    assert_int_equal(f->dl.errors, 1);
    assert_string_equal(f->dl.items[0].code, "yaml-too-deep");
}

static void test_utf8_columns(void **state)
{
    Fixture *f = *state;
    YNode *r = parse(f, "k: 'é'\nm: {é: [x, y]}\n");
    assert_non_null(r);
    YNode *m = yaml_get(r, "m");
    /* columns count characters: 'é' is one column */
    assert_int_equal(yaml_get(m, "é")->items[1]->pos.col, 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mapping_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scalars_and_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_is_yaml, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alias_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_syntax_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tab_hint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_and_multi_document, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_deep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_utf8_columns, setup, teardown),
    };
    return cmocka_run_group_tests_name("yaml", tests, NULL, NULL);
}
