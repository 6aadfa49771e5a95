/* `weir init DIR`: scaffold a small working project (a source with sample data, a
 * model, its config and a test) that passes `weir check` and `weir test`. Refuses to
 * overwrite existing files. */
#include "cli/cli.h"
#include "base/fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct TemplateFile {
    const char *path;
    const char *text;
} TemplateFile;

static const TemplateFile TEMPLATE[] = {
    {"weir.yml",
     "name: %s\n"
     "default_target: dev\n"
     "vars:\n"
     "  min_amount: 0\n"
     "targets:\n"
     "  dev:\n"
     "    runtime: native\n"
     "    state_dir: .weir/dev\n"},
    {"sources/shop.yml",
     "sources:\n"
     "  shop.orders:\n"
     "    connector: file\n"
     "    path: data/orders.jsonl\n"
     "    format: json\n"
     "    columns:\n"
     "      order_id: bigint\n"
     "      customer_id: bigint\n"
     "      amount: numeric(12,2)\n"
     "      created_at: timestamp\n"
     "    event_time: created_at\n"
     "    watermark_delay: 5s\n"},
    {"data/orders.jsonl",
     "{\"order_id\": 1, \"customer_id\": 42, \"amount\": 10.00, \"created_at\": \"2024-01-01 00:00:01\"}\n"
     "{\"order_id\": 2, \"customer_id\": 42, \"amount\": 18.00, \"created_at\": \"2024-01-01 00:00:02\"}\n"
     "{\"order_id\": 3, \"customer_id\": 7, \"amount\": 5.50, \"created_at\": \"2024-01-01 00:00:03\"}\n"},
    {"models/customer_spend.sql",
     "SELECT customer_id, COUNT(*) AS order_count, SUM(amount) AS total_spend\n"
     "FROM source('shop.orders')\n"
     "WHERE amount >= ${min_amount}\n"
     "GROUP BY customer_id\n"},
    {"models/schema.yml",
     "models:\n"
     "  customer_spend:\n"
     "    materialized: upsert\n"
     "    key: [customer_id]\n"
     "    sink:\n"
     "      connector: file\n"
     "      path: target/out/customer_spend.jsonl\n"
     "      format: changelog-json\n"},
    {"tests/customer_spend.yml",
     "tests:\n"
     "  - name: spend_accumulates\n"
     "    model: customer_spend\n"
     "    given:\n"
     "      - {order_id: 1, customer_id: 42, amount: 10, created_at: '2024-01-01 00:00:01'}\n"
     "      - {order_id: 2, customer_id: 42, amount: 18, created_at: '2024-01-01 00:00:02'}\n"
     "    expect:\n"
     "      - {op: insert, customer_id: 42, order_count: 1, total_spend: 10}\n"
     "      - {op: update, customer_id: 42, order_count: 2, total_spend: 28}\n"},
};

static const char *base_name(const char *dir)
{
    const char *end = dir + strlen(dir);
    while (end > dir && end[-1] == '/') end--;
    const char *start = end;
    while (start > dir && start[-1] != '/') start--;
    static char name[256];
    size_t n = (size_t)(end - start);
    if (n == 0 || n >= sizeof name) return "my_project";
    memcpy(name, start, n);
    name[n] = '\0';
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))) *c = '_';
    return name;
}

int cmd_init(const CliOptions *o)
{
    if (o->nargs != 1) {
        cli_error("usage: weir init DIR");
        return EXIT_USAGE;
    }
    const char *dir = o->args[0];
    char path[4096];
    size_t n = sizeof TEMPLATE / sizeof TEMPLATE[0];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, TEMPLATE[i].path);
        struct stat st;
        if (stat(path, &st) == 0) {
            cli_error("%s already exists; weir init never overwrites files", path);
            return EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, TEMPLATE[i].path);
        if (!fs_mkdirs_for(path)) {
            cli_error("cannot create directories for %s: %s", path, strerror(errno));
            return EXIT_RUNTIME;
        }
        FILE *f = fopen(path, "wx");
        if (!f) {
            cli_error("cannot create %s: %s", path, strerror(errno));
            return EXIT_RUNTIME;
        }
        if (i == 0) fprintf(f, TEMPLATE[i].text, base_name(dir));
        else fputs(TEMPLATE[i].text, f);
        if (fclose(f) != 0) {
            cli_error("cannot write %s: %s", path, strerror(errno));
            return EXIT_RUNTIME;
        }
    }
    printf("created project '%s' in %s\n", base_name(dir), dir);
    printf("next: cd %s && weir check && weir test && weir run\n", dir);
    return EXIT_OK;
}
