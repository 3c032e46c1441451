/*
 * tests/results/profile_hash.c — `profile_hash FILE...`: the content hash libflopfit computes
 * for each profile (ff_profile_content_hash), one line each, for the tests that edit a profile
 * and must give it the hash of its new content (test_results.py, test_hostile_fs.py).
 */
#include <stdio.h>

#include <flopfit/profile.h>

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct ff_profile_doc *doc = NULL;
        char err[512], hash[FF_PROFILE_HASH_MAX];
        if (ff_profile_open(argv[i], &doc, err, sizeof(err)) != 0 ||
            ff_profile_content_hash(doc, hash) != 0) {
            fprintf(stderr, "profile_hash: %s\n", err);
            printf("-\n");
            rc = 1;
        } else {
            printf("%s\n", hash);
        }
        ff_profile_close(&doc);
    }
    return rc;
}
