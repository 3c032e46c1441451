/* tests/fuzz/fuzz_jschema.c — the JSON Schema validator of `flopfit results submit`
 * (results/src/jschema.h): the input as an instance of the embedded profile schema, then as a
 * schema that a fixed profile-like instance is checked against. */
#include <json-c/json.h>

#include "fuzz.h"
#include "jschema.h"

static json_object *parse(const uint8_t *data, size_t size)
{
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return NULL;
    json_object *o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    json_tokener_free(tok);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    json_object *in = parse(data, size);
    if (!in)
        return 0;
    json_object *schema = json_tokener_parse(ff_profile_schema_text(NULL));
    struct ff_jschema_error e;
    (void)ff_jschema_validate(schema, in, &e);
    json_object *fixed = json_tokener_parse(
        "{\"schema\":\"flopfit.profile\",\"schema_version\":\"1.1\",\"device\":{\"name\":\"x\"},"
        "\"tests\":[{\"family\":\"matmul\",\"name\":\"matmul\",\"status\":\"ok\",\"value\":1.5,"
        "\"shape\":{\"m\":1,\"n\":2,\"k\":3},\"a/b~c\":null}]}");
    (void)ff_jschema_validate(in, fixed, &e);
    (void)ff_jschema_validate(in, in, &e);
    json_object_put(fixed);
    json_object_put(schema);
    json_object_put(in);
    return 0;
}
