/*
 * tests/estimate/test_parse.c — the typed option parsers of ff_util.h that `flopfit estimate`
 * uses: what each accepts, what it refuses, that a refusal names the option, the bad value and
 * what is accepted, and that *out is left alone on failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "ff_util.h"

#define expect_names(err, opt, value, accepted)                                                    \
    cr_expect(strstr((err), (opt)) && strstr((err), "'" value "'") && strstr((err), (accepted)),   \
              "message: %s", (err))

Test(parse, i64_accepts_whole_numbers)
{
    char err[256];
    int64_t v = 0;
    cr_assert_eq(ff_parse_i64("--batch", "4096", 1, 1 << 20, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 4096);
    cr_assert_eq(ff_parse_i64("--batch", "1e6", 1, 1 << 20, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 1000000);
    cr_assert_eq(ff_parse_i64("--seq", "1.5e3", 1, 1 << 20, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 1500);
    cr_assert_eq(ff_parse_i64("--zero", "0", 0, 3, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 0);
    cr_assert_eq(ff_parse_i64("--zero", "3", 0, 3, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 3);
    cr_assert_eq(ff_parse_i64("--n", "-5", -10, 10, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, -5);
    cr_assert_eq(ff_parse_i64("--n", "9223372036854775807", 0, INT64_MAX, &v, err, sizeof(err)),
                 FF_OK);
    cr_expect_eq(v, INT64_MAX);
}

Test(parse, i64_refuses_and_names_the_option)
{
    char err[256];
    int64_t v = 77;
    cr_expect_eq(ff_parse_i64("--batch", "0", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    expect_names(err, "--batch", "0", "a whole number from 1 to 1024");
    cr_expect_eq(ff_parse_i64("--batch", "1025", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    expect_names(err, "--batch", "1025", "from 1 to 1024");
    cr_expect_eq(ff_parse_i64("--batch", "abc", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    expect_names(err, "--batch", "abc", "from 1 to 1024");
    cr_expect_eq(ff_parse_i64("--tp", "3.5", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    expect_names(err, "--tp", "3.5", "whole number");
    cr_expect_eq(ff_parse_i64("--seq", "1e40", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_parse_i64("--seq", "1e400", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_parse_i64("--seq", "inf", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_parse_i64("--seq", "nan", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_parse_i64("--seq", "12x", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_parse_i64("--seq", "", 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect_eq(ff_parse_i64("--seq", NULL, 1, 1024, &v, err, sizeof(err)), FF_ERR_INVALID);
    /* Past int64_t both ways: strtoll saturates, the real path must not convert 2^63. */
    cr_expect_eq(ff_parse_i64("--gpus", "99999999999999999999", 1, INT64_MAX, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect_eq(ff_parse_i64("--gpus", "9.3e18", 1, INT64_MAX, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect_eq(v, 77, "out untouched on failure");
    /* A NULL message buffer is allowed. */
    cr_expect_eq(ff_parse_i64("--batch", "x", 1, 2, &v, NULL, 0), FF_ERR_INVALID);
}

Test(parse, double_above_excludes_its_minimum)
{
    char err[256];
    double v = 0;
    cr_assert_eq(ff_parse_double_above("--mfu", "0.4", 0, 1, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 0.4);
    cr_assert_eq(ff_parse_double_above("--mfu", "1", 0, 1, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 1.0);
    cr_assert_eq(ff_parse_double_above("--params", "7e9", 0, 1e15, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 7e9);
    cr_assert_eq(ff_parse_double_above("--mfu", "1e-9", 0, 1, &v, err, sizeof(err)), FF_OK);
    v = 5;
    cr_expect_eq(ff_parse_double_above("--mfu", "0", 0, 1, &v, err, sizeof(err)), FF_ERR_INVALID);
    expect_names(err, "--mfu", "0", "a number greater than 0 and at most 1");
    cr_expect_eq(ff_parse_double_above("--mfu", "1.5", 0, 1, &v, err, sizeof(err)), FF_ERR_INVALID);
    expect_names(err, "--mfu", "1.5", "greater than 0 and at most 1");
    cr_expect_eq(ff_parse_double_above("--mfu", "-0.1", 0, 1, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect_eq(ff_parse_double_above("--price", "nan", 0, 1e5, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    expect_names(err, "--price", "nan", "greater than 0");
    cr_expect_eq(ff_parse_double_above("--price", "inf", 0, 1e5, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect_eq(ff_parse_double_above("--price", "3$", 0, 1e5, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect_eq(ff_parse_double_above("--price", "", 0, 1e5, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    cr_expect_eq(v, 5.0, "out untouched on failure");
}

/* The closed-range parser bench uses keeps its meaning: min itself is accepted. */
Test(parse, double_keeps_a_closed_minimum)
{
    char err[256];
    double v = 0;
    cr_assert_eq(ff_parse_double("--overhead-gib", "0", 0, 1e4, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 0.0);
    cr_expect_eq(ff_parse_double("--overhead-gib", "-1", 0, 1e4, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    expect_names(err, "--overhead-gib", "-1", "a number from 0 to 10000");
}

Test(parse, onoff)
{
    char err[256];
    static const char *const on[] = {"on", "true", "1"}, *const off[] = {"off", "false", "0"};
    for (size_t i = 0; i < 3; i++) {
        bool v = false;
        cr_expect_eq(ff_parse_onoff("--flash-attention", on[i], &v, err, sizeof(err)), FF_OK);
        cr_expect(v, "%s", on[i]);
        v = true;
        cr_expect_eq(ff_parse_onoff("--flash-attention", off[i], &v, err, sizeof(err)), FF_OK);
        cr_expect(!v, "%s", off[i]);
    }
    bool v = true;
    cr_expect_eq(ff_parse_onoff("--flash-attention", "maybe", &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    expect_names(err, "--flash-attention", "maybe", "expected on or off");
    cr_expect(!strstr(err, "true"), "aliases are not listed: %s", err);
    cr_expect_eq(ff_parse_onoff("--flash-attention", "ON", &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(v, "out untouched on failure");
}

Test(parse, choice_lists_the_names_but_not_the_aliases)
{
    static const struct ff_choice opt[] = {
        {"adamw", 0, false},
        {"adam", 0, true},
        {"adamw8bit", 1, false},
        {"sgd", 2, false},
    };
    char err[256];
    int v = -1;
    cr_assert_eq(ff_parse_choice("--optimizer", "adam", opt, 4, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 0);
    cr_assert_eq(ff_parse_choice("--optimizer", "sgd", opt, 4, &v, err, sizeof(err)), FF_OK);
    cr_expect_eq(v, 2);
    cr_expect_eq(ff_parse_choice("--optimizer", "lion", opt, 4, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    expect_names(err, "--optimizer", "lion", "expected adamw, adamw8bit or sgd");
    cr_expect_eq(v, 2, "out untouched on failure");
    /* One and two names read naturally. */
    cr_expect_eq(ff_parse_choice("--x", "b", opt, 1, &v, err, sizeof(err)), FF_ERR_INVALID);
    cr_expect(strstr(err, "expected adamw") && !strstr(err, " or "), "%s", err);
    static const struct ff_choice two[] = {{"all", 1, false}, {"qv", 0, false}};
    cr_expect_eq(ff_parse_choice("--lora-targets", "", two, 2, &v, err, sizeof(err)),
                 FF_ERR_INVALID);
    expect_names(err, "--lora-targets", "", "expected all or qv");
    /* A short buffer is cut, never overrun. */
    char tiny[8];
    cr_expect_eq(ff_parse_choice("--lora-targets", "zz", two, 2, &v, tiny, sizeof(tiny)),
                 FF_ERR_INVALID);
    cr_expect_eq(strlen(tiny), sizeof(tiny) - 1);
}

#include <getopt.h>

static const struct option test_opts[] = {
    {"precision", required_argument, NULL, 1},
    {"prompt", required_argument, NULL, 2},
    {"serve", no_argument, NULL, 3},
    {NULL, 0, NULL, 0},
};

Test(parse, unknown_option_names_the_closest_known_one)
{
    char err[256];
    cr_assert_eq(ff_unknown_option(err, sizeof(err), "--presicion", test_opts), FF_ERR_INVALID);
    cr_expect_str_eq(err, "unknown option '--presicion'; did you mean '--precision'?");
    ff_unknown_option(err, sizeof(err), "--sreve=1", test_opts);
    cr_expect_str_eq(err, "unknown option '--sreve'; did you mean '--serve'?");
    ff_unknown_option(err, sizeof(err), "--PROMT", test_opts);
    cr_expect_str_eq(err, "unknown option '--PROMT'; did you mean '--prompt'?");
    ff_unknown_option(err, sizeof(err), "--frobnicate", test_opts);
    cr_expect_str_eq(err, "unknown option '--frobnicate' (see --help)");
    ff_unknown_option(err, sizeof(err), "-x", test_opts);
    cr_expect_str_eq(err, "unknown option '-x' (see --help)", "short options get no guess");
}

Test(parse, closest_word_within_two_edits)
{
    const char *words[] = {"devices", "bench", "tune", "estimate", "results"};
    cr_expect_str_eq(ff_closest_word("bnech", words, 5), "bench");
    cr_expect_str_eq(ff_closest_word("estimat", words, 5), "estimate");
    cr_expect_str_eq(ff_closest_word("RESULT", words, 5), "results");
    cr_expect_null(ff_closest_word("bzzzz", words, 5), "four edits away");
    cr_expect_null(ff_closest_word("", words, 5));
    cr_expect_eq(ff_edit_distance("kitten", "sitting"), 3);
    cr_expect_eq(ff_edit_distance("presicion", "precision"), 2);
}

/* ff_msgf, the message formatter of the fixed-size buffers: a text that fits is whole; one that
 * does not ends in "...", cut before a whole UTF-8 character. */
Test(parse, messages_cut_say_so)
{
    char buf[12];
    cr_expect(ff_msgf(buf, sizeof(buf), "%s: %d", "ab", 7));
    cr_expect_str_eq(buf, "ab: 7");
    cr_expect_not(ff_msgf(buf, sizeof(buf), "%s: %s", "device", "out of memory"));
    cr_expect_str_eq(buf, "device: ...");
    /* "é" is two bytes; a cut that would split it drops it whole. */
    cr_expect_not(ff_msgf(buf, sizeof(buf), "%s", "abcdefg\xc3\xa9xyz"));
    cr_expect_str_eq(buf, "abcdefg...");
    char three[3];
    cr_expect_not(ff_msgf(three, sizeof(three), "%s", "abcdef"));
    cr_expect_str_eq(three, "ab");
    cr_expect_not(ff_msgf(NULL, 4, "x"));
}
