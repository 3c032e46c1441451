/*
 * estimate/util/content_hash.c — the content hash of a profile's measured part (results/SCHEMA.md
 * "content_hash"): SHA-256, through OpenSSL's libcrypto EVP interface, of the plain json-c text
 * of {"device": <device>, "tests": <tests>}.
 *
 * json-c keeps the text a number was read from and prints it back unchanged, and keeps an
 * object's keys in file order, so the hash of a file read back equals the hash of the tree it
 * was written from, however the file was indented.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "ff_json.h"
#include "ff_util.h"

int ff_json_content_hash(json_object *device, json_object *tests, char *out, size_t n)
{
    if (n < FF_JSON_HASH_MAX)
        return FF_ERR_INVALID;
    out[0] = 0;
    json_object *m = json_object_new_object();
    if (!m)
        return FF_ERR_NO_MEMORY;
    /* the pair borrows both values: one reference each, dropped with m */
    json_object_object_add(m, "device", json_object_get(device));
    json_object_object_add(m, "tests", json_object_get(tests));
    size_t len = 0;
    const char *text = json_object_to_json_string_length(m, JSON_C_TO_STRING_PLAIN, &len);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    int ok = text && EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) == 1 && mdlen == 32;
    json_object_put(m);
    if (!ok)
        return FF_ERR_NO_MEMORY;
    memcpy(out, "sha256:", 7);
    for (unsigned int i = 0; i < mdlen; i++)
        snprintf(out + 7 + 2 * i, 3, "%02x", md[i]);
    return FF_OK;
}
