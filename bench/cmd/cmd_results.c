/*
 * bench/cmd/cmd_results.c — `flopfit results`: many profiles into published tables and charts,
 * `--compare A B`, `--publish DIR` (the curated results/ folder) and `submit PROFILE`.
 * The work is the publisher's (results/src/results.h); this file parses options, prints and
 * picks the exit code.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "commands.h"
#include "results.h"
#include "run/paths.h"

#define EXIT_USAGE 2

static void usage(FILE *f)
{
    char formats[128] = "";
    for (const struct ff_pub_writer *w = ff_pub_writers(); w->name; w++)
        snprintf(formats + strlen(formats), sizeof(formats) - strlen(formats), "%s%s",
                 w == ff_pub_writers() ? "" : ", ", w->name);
    fprintf(
        f,
        "usage: flopfit results [PROFILE|DIR...] [options]\n"
        "       flopfit results --compare A B [--format md|csv|json]\n"
        "       flopfit results --publish DIR [--check]\n"
        "       flopfit results submit PROFILE [--results DIR]\n"
        "\n"
        "Publishes device profiles written by `flopfit bench`: a file, or every *.json under\n"
        "a folder (default: $XDG_DATA_HOME/flopfit/profiles). A malformed profile, or one of\n"
        "a schema version this flopfit does not know, is named and skipped. Repeated runs of\n"
        "one device under one key (vendor, device, device id, driver, backend, run kind and\n"
        "flopfit minor version) are one row: their median and spread.\n"
        "A format a device does not support reads `unsupported`, with the reason as a note.\n"
        "\n"
        "  --format NAME      %s (default: md)\n"
        "  --output PATH      write there instead of stdout, atomically; with html a folder:\n"
        "                     PATH/index.html and each chart as PATH/<chart>.svg; with\n"
        "                     sqlite the database file (required)\n"
        "  --html DIR         --format html --output DIR\n"
        "  --json             --format json (--list-columns too)\n"
        "  --sort COLUMN      sort rows by a column (default: fp32, the best first);\n"
        "                     --list-columns shows them\n"
        "  --reverse          the other order\n"
        "  --no-estimate      leave out the estimator's columns (serves, roofline points)\n"
        "  --compare A B      devices paired by key; per device and test the ratio of\n"
        "                     medians B/A, its 95%% bootstrap interval and a verdict (faster,\n"
        "                     slower: the interval excludes 1; else no change); A and B are\n"
        "                     profiles or folders\n"
        "  --fail-on-worse    with --compare: exit 1 when a test is slower (or less, or no\n"
        "                     longer ok)\n"
        "  --publish DIR      regenerate DIR/README.md and DIR/page/ (the HTML page and its\n"
        "                     charts) from every profile under DIR\n"
        "  --check            with --publish: write nothing, exit 1 when a file is not current\n"
        "  --list-columns     the table's columns, and exit\n"
        "  -h, --help         this text\n"
        "\n"
        "submit PROFILE checks a profile (valid against results/profile.schema.json, a\n"
        "standard or full bench run, complete, verified tests with their proof, figures within\n"
        "the device's physical limits, no host name or home path, its content_hash that of\n"
        "its device and tests and found in no profile under DIR yet) and copies it to\n"
        "DIR/<vendor>/<device>/<backend>-<driver>-<date>.json (DIR: --results, default\n"
        "./results; each name made of [a-z0-9._-]), printing its row of the table, ready for\n"
        "a pull request.\n"
        "\n"
        "Exit status: 0 done; 1 a profile was skipped (the rest is published), nothing\n"
        "could be read, a file is not current (--check) or a test got worse\n"
        "(--fail-on-worse); 2 bad usage, no profile given or found, or a profile submit\n"
        "refused.\n",
        formats);
}

static int usage_error(const char *msg)
{
    fprintf(stderr, "flopfit results: %s\n", msg);
    return EXIT_USAGE;
}

struct opts {
    const struct ff_pub_writer *writer;
    const char *output;
    const char *compare[2];
    const char *publish;
    bool check, fail_on_worse, list_columns;
    struct ff_pub_options res;
};

/* Trailing slashes off, so "results/" and "results" name files the same way. */
static char *trim_dir(char *s)
{
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = 0;
    return s;
}

/* Read paths into a finished set; prints what was skipped. 0, 1 (nothing readable) or 2. */
static int load(char *const *paths, size_t n, const char *base, const struct ff_pub_options *o,
                struct ff_pub_set **out)
{
    char err[1024];
    int rc = ff_pub_set_create(out);
    if (rc) {
        fprintf(stderr, "flopfit results: out of memory\n");
        return 1;
    }
    struct ff_pub_set *set = *out;
    if (base)
        snprintf(set->base, sizeof(set->base), "%s", base);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
            /* a path the user named that is not there is bad usage, not a bad profile */
            fprintf(stderr,
                    "flopfit results: %s: no such file or folder (expected a profile or "
                    "a folder of profiles)\n",
                    paths[i]);
            return EXIT_USAGE;
        }
        if ((rc = ff_pub_set_add(set, paths[i], err, sizeof(err))) != 0) {
            fprintf(stderr, "flopfit results: %s\n",
                    rc == FF_ERR_NO_MEMORY ? "out of memory" : err);
            return 1;
        }
    }
    for (size_t i = 0; i < set->n_skipped; i++)
        fprintf(stderr, "flopfit results: skipped %s\n", set->skipped[i].reason);
    if (set->n_found == 0) {
        fprintf(stderr, "flopfit results: no profile (*.json) in");
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s", paths[i]);
        fprintf(stderr, " (see --help)\n");
        return EXIT_USAGE;
    }
    if (set->n_runs == 0) {
        fprintf(stderr, "flopfit results: none of the %zu profile(s) could be read\n",
                set->n_found);
        return 1;
    }
    if ((rc = ff_pub_set_finish(set, o, err, sizeof(err))) != 0) {
        fprintf(stderr, "flopfit results: %s\n", err);
        return rc == FF_ERR_INVALID ? EXIT_USAGE : 1;
    }
    return 0;
}

static int emit(const char *text, const char *output)
{
    char err[1024];
    if (!output) {
        fputs(text, stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (ff_write_atomic(output, text, err, sizeof(err)) != 0) {
        fprintf(stderr, "flopfit results: %s\n", err);
        return 1;
    }
    return 0;
}

static int cmd_submit(int argc, char **argv)
{
    static const struct option subopts[] = {
        {"results", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char dir_buf[4096] = "results";
    const char *dir = dir_buf;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", subopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == 'r' && *optarg) {
            snprintf(dir_buf, sizeof(dir_buf), "%s", optarg);
            dir = trim_dir(dir_buf);
            continue;
        }
        if (c == 'r')
            return usage_error("invalid value '' for --results: expected a folder path");
        char msg[300];
        if (c == ':')
            snprintf(msg, sizeof(msg), "option %s needs a value (submit accepts --results DIR)",
                     argv[optind - 1]);
        else
            ff_unknown_option(msg, sizeof(msg), argv[optind - 1], subopts);
        return usage_error(msg);
    }
    if (argc - optind != 1)
        return usage_error("submit takes one profile: flopfit results submit PROFILE "
                           "[--results DIR]");
    char used[4400], err[1024];
    struct ff_pub_sb row;
    ff_pub_sb_init(&row);
    int rc = ff_pub_submit(argv[optind], dir, used, sizeof(used), &row, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "flopfit results: submit: %s\n", err);
        ff_pub_sb_finish(&row);
        /* a refused profile is bad input, like a bad option */
        return rc == FF_ERR_INVALID || rc == FF_ERR_UNSUPPORTED ? EXIT_USAGE : 1;
    }
    printf("filed %s\n\nits row of the table:\n\n%s\nnext: `flopfit results --publish %s`, "
           "then commit the profile with %s/README.md and %s/page/ and open a pull request\n",
           used, ff_pub_sb_str(&row), dir, dir, dir);
    ff_pub_sb_finish(&row);
    return 0;
}

enum {
    OPT_FORMAT = 256,
    OPT_OUTPUT,
    OPT_HTML,
    OPT_SORT,
    OPT_REVERSE,
    OPT_NO_ESTIMATE,
    OPT_COMPARE,
    OPT_FAIL_ON_WORSE,
    OPT_PUBLISH,
    OPT_CHECK,
    OPT_LIST_COLUMNS,
    OPT_JSON,
};

static const struct option long_opts[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"html", required_argument, NULL, OPT_HTML},
    {"sort", required_argument, NULL, OPT_SORT},
    {"reverse", no_argument, NULL, OPT_REVERSE},
    {"no-estimate", no_argument, NULL, OPT_NO_ESTIMATE},
    {"compare", no_argument, NULL, OPT_COMPARE},
    {"fail-on-worse", no_argument, NULL, OPT_FAIL_ON_WORSE},
    {"publish", required_argument, NULL, OPT_PUBLISH},
    {"check", no_argument, NULL, OPT_CHECK},
    {"list-columns", no_argument, NULL, OPT_LIST_COLUMNS},
    {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const struct option *ff_results_options(void)
{
    return long_opts;
}

static int bad_value(const char *opt, const char *v, const char *accepted)
{
    char err[768];
    ff_bad_value(err, sizeof(err), opt, v, accepted);
    fprintf(stderr, "flopfit results: %s\n", err);
    return EXIT_USAGE;
}

static int parse(int argc, char **argv, const char *const compare[2], struct opts *o)
{
    char names[256] = "";
    memset(o, 0, sizeof(*o));
    o->compare[0] = compare[0];
    o->compare[1] = compare[1];
    ff_pub_options_init(&o->res);
    o->writer = ff_pub_writers();
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        const char *opt = optind > 1 && optind - 1 < argc ? argv[optind - 1] : "?";
        switch (c) {
        case OPT_FORMAT:
            if (!(o->writer = ff_pub_writer_find(optarg))) {
                for (const struct ff_pub_writer *w = ff_pub_writers(); w->name; w++)
                    snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                             w == ff_pub_writers() ? "" : ", ", w->name);
                return bad_value("--format", optarg, names);
            }
            break;
        case OPT_HTML:
            o->writer = ff_pub_writer_find("html");
            /* fall through */
        case OPT_OUTPUT:
            if (!*optarg)
                return bad_value(c == OPT_HTML ? "--html" : "--output", optarg, "a path");
            o->output = trim_dir(optarg);
            break;
        case OPT_SORT:
            if (!ff_pub_column_find(optarg)) {
                size_t n;
                const struct ff_pub_column *cols = ff_pub_columns(&n);
                for (size_t i = 0; i < n; i++)
                    snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                             i ? ", " : "", cols[i].id);
                return bad_value("--sort", optarg, names);
            }
            o->res.sort = optarg;
            break;
        case OPT_REVERSE: o->res.reverse = true; break;
        case OPT_NO_ESTIMATE: o->res.estimate = false; break;
        case OPT_COMPARE:
            /* taken out of argv before getopt (compare_args); getopt never sees it */
            break;
        case OPT_FAIL_ON_WORSE: o->fail_on_worse = true; break;
        case OPT_PUBLISH:
            if (!*optarg)
                return bad_value("--publish", optarg, "a folder");
            o->publish = trim_dir(optarg);
            break;
        case OPT_CHECK: o->check = true; break;
        case OPT_LIST_COLUMNS: o->list_columns = true; break;
        case OPT_JSON: o->writer = ff_pub_writer_find("json"); break;
        case 'h': usage(stdout); return -1;
        case ':':
            fprintf(stderr, "flopfit results: option %s needs a value (see --help)\n", opt);
            return EXIT_USAGE;
        default: {
            char err[300];
            ff_unknown_option(err, sizeof(err), opt, long_opts);
            return usage_error(err);
        }
        }
    }
    if (o->check && !o->publish)
        return usage_error("--check goes with --publish DIR");
    if (o->fail_on_worse && !o->compare[0])
        return usage_error("--fail-on-worse goes with --compare A B");
    if ((o->compare[0] || o->publish) && optind < argc)
        return usage_error("--compare A B and --publish DIR take no other profiles");
    if (o->compare[0] && o->publish)
        return usage_error("--compare and --publish contradict");
    if (o->compare[0] && (strcmp(o->writer->name, "html") == 0 || !o->writer->table)) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "invalid value '%s' for --format with --compare: expected md, csv or json",
                 o->writer->name);
        return usage_error(msg);
    }
    if (o->writer->file && !o->output)
        return usage_error("--format sqlite writes a database file: it needs --output FILE "
                           "(results.db)");
    if (o->publish && (o->output || o->writer != ff_pub_writers()))
        return usage_error("--publish DIR writes DIR/README.md and DIR/page/: it takes no "
                           "--format, --output or --html");
    return 0;
}

static int run_compare(const struct opts *o)
{
    struct ff_pub_set *sides[2] = {NULL, NULL};
    int rc = 0;
    for (int s = 0; s < 2 && !rc; s++)
        rc = load((char *const *)&o->compare[s], 1, NULL, &o->res, &sides[s]);
    if (!rc) {
        struct ff_pub_sb out;
        size_t worse = 0;
        ff_pub_sb_init(&out);
        if (ff_pub_compare(sides[0], sides[1], o->writer->name, &out, &worse) != 0) {
            fprintf(stderr, "flopfit results: out of memory\n");
            rc = 1;
        } else {
            rc = emit(ff_pub_sb_str(&out), o->output);
            if (!rc && o->fail_on_worse && worse)
                rc = 1;
            if (!rc && (sides[0]->n_skipped || sides[1]->n_skipped))
                rc = 1;
        }
        ff_pub_sb_finish(&out);
    }
    ff_pub_set_destroy(&sides[0]);
    ff_pub_set_destroy(&sides[1]);
    return rc;
}

static int run_table(const struct opts *o, char **paths, size_t n)
{
    char dflt[4096], err[1024];
    char *dflt_list[1] = {dflt};
    if (o->publish) {
        snprintf(dflt, sizeof(dflt), "%s", o->publish);
        paths = dflt_list;
        n = 1;
    } else if (n == 0) {
        if (ff_bench_default_dir(dflt, sizeof(dflt), err, sizeof(err)) != 0) {
            fprintf(stderr, "flopfit results: no profiles given, and %s\n", err);
            return EXIT_USAGE;
        }
        paths = dflt_list;
        n = 1;
    }
    struct ff_pub_set *set = NULL;
    int rc = load(paths, n, o->publish, &o->res, &set);
    if (!rc && o->publish) {
        if (ff_pub_publish(set, o->publish, o->check, err, sizeof(err)) != 0) {
            fprintf(stderr, "flopfit results: %s%s\n", err,
                    o->check ? " (regenerate: flopfit results --publish DIR)" : "");
            rc = 1;
        }
    } else if (!rc && strcmp(o->writer->name, "html") == 0 && o->output) {
        if (ff_pub_html_dir(set, o->output, false, err, sizeof(err)) != 0) {
            fprintf(stderr, "flopfit results: %s\n", err);
            rc = 1;
        }
    } else if (!rc && o->writer->file) {
        if (o->writer->file(set, o->output, err, sizeof(err)) != 0) {
            fprintf(stderr, "flopfit results: %s\n", err);
            rc = 1;
        }
    } else if (!rc) {
        struct ff_pub_sb out;
        ff_pub_sb_init(&out);
        if (o->writer->table(set, &out) != 0) {
            fprintf(stderr, "flopfit results: out of memory\n");
            rc = 1;
        } else {
            rc = emit(ff_pub_sb_str(&out), o->output);
        }
        ff_pub_sb_finish(&out);
    }
    if (!rc && set->n_skipped)
        rc = 1;
    ff_pub_set_destroy(&set);
    return rc;
}

/*
 * --compare takes two values, which getopt cannot: it and its A and B are moved out of
 * argv (into o->compare) before the other options are parsed. Returns the new argc or -1.
 */
static int compare_args(int argc, char **argv, const char *compare[2])
{
    int w = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < argc)
                argv[w++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--compare") != 0) {
            argv[w++] = argv[i];
            continue;
        }
        if (compare[0] || i + 2 >= argc || argv[i + 1][0] == '-' || argv[i + 2][0] == '-')
            return -1;
        compare[0] = argv[i + 1];
        compare[1] = argv[i + 2];
        i += 2;
    }
    argv[w] = NULL;
    return w;
}

int ff_cmd_results(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "submit") == 0)
        return cmd_submit(argc - 1, argv + 1);
    struct opts o;
    const char *compare[2] = {NULL, NULL};
    argc = compare_args(argc, argv, compare);
    if (argc < 0)
        return usage_error("--compare takes two profiles or folders, once: --compare A B");
    int rc = parse(argc, argv, compare, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.list_columns) {
        size_t n;
        const struct ff_pub_column *cols = ff_pub_columns(&n);
        bool json = strcmp(o.writer->name, "json") == 0;
        struct json_object *a = json ? json_object_new_array() : NULL;
        for (size_t i = 0; i < n; i++) {
            if (!json) {
                printf("%-16s %s\n", cols[i].id, cols[i].title);
                continue;
            }
            struct json_object *c = json_object_new_object();
            json_object_object_add(c, "id", json_object_new_string(cols[i].id));
            json_object_object_add(c, "title", json_object_new_string(cols[i].title));
            json_object_array_add(a, c);
        }
        if (json) {
            struct json_object *root = json_object_new_object();
            json_object_object_add(root, "columns", a);
            printf("%s\n", json_object_to_json_string_ext(
                               root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
            json_object_put(root);
        }
        return 0;
    }
    if (o.compare[0])
        return run_compare(&o);
    return run_table(&o, argv + optind, (size_t)(argc - optind));
}
