/*
 * tests/results/jschema_check.c — `jschema_check SCHEMA FILE...`: each FILE against SCHEMA with
 * the validator of `flopfit results submit` (results/src/jschema.h), one line each:
 * "valid", "invalid <pointer> <what>", or "error <message>". For the Python cross-check with
 * python3-jsonschema (test_profile_schema.py). Exit 0 unless a file could not be read.
 */
#include <stdio.h>

#include <json-c/json.h>

#include <flopfit/status.h>

#include "jschema.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: jschema_check SCHEMA FILE...\n");
        return 2;
    }
    json_object *s = json_object_from_file(argv[1]);
    if (!s) {
        fprintf(stderr, "jschema_check: %s: not JSON\n", argv[1]);
        return 2;
    }
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        json_object *v = json_object_from_file(argv[i]);
        if (!v) {
            printf("error %s: not JSON\n", argv[i]);
            rc = 1;
            continue;
        }
        struct ff_jschema_error e;
        int r = ff_jschema_validate(s, v, &e);
        if (r == FF_OK)
            printf("valid\n");
        else if (r == FF_ERR_INVALID)
            printf("invalid %s %s\n", e.pointer[0] ? e.pointer : "/", e.what);
        else
            printf("error %s %s\n", e.pointer, e.what);
        json_object_put(v);
    }
    json_object_put(s);
    return rc;
}
