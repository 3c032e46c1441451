/*
 * results/src/sb.h — a growing text buffer for the publisher's writers (escape.h appends text
 * from outside, escaped for each output format). A failed allocation is remembered (`failed`)
 * instead of being checked after every append: a writer appends freely and looks once at the
 * end.
 */
#ifndef FF_PUB_SB_H
#define FF_PUB_SB_H

#include <stdbool.h>
#include <stddef.h>

#include "ff_util.h"

struct ff_pub_sb {
    char *s;     /* NUL-terminated text, NULL until the first append */
    size_t len;  /* bytes, the NUL not counted */
    size_t cap;  /* bytes allocated */
    bool failed; /* an allocation failed: the text is cut short */
};

void ff_pub_sb_init(struct ff_pub_sb *b);
/* Free the text; the buffer is empty and usable again. */
void ff_pub_sb_finish(struct ff_pub_sb *b);
void ff_pub_sb_puts(struct ff_pub_sb *b, const char *s);
/* n bytes of s, as they are. */
void ff_pub_sb_putn(struct ff_pub_sb *b, const char *s, size_t n);
FF_PRINTF(2, 3) void ff_pub_sb_printf(struct ff_pub_sb *b, const char *fmt, ...);
/* JSON text from json-c's pretty printer, with every empty array and object written [] and {}
 * whichever json-c made it (0.16, Debian 12, opens them on one line and closes them on the next;
 * 0.17 on, Debian 13, keep them on one), so the output is the same on both. */
void ff_pub_sb_json(struct ff_pub_sb *b, const char *text);
/* The text so far; "" when nothing was appended. */
const char *ff_pub_sb_str(const struct ff_pub_sb *b);
/* FF_ERR_NO_MEMORY when an append failed, else 0. */
int ff_pub_sb_status(const struct ff_pub_sb *b);

#endif
