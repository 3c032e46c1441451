/*
 * results/src/escape.h — the one escape of each output format the publisher writes. Every
 * string that did not come from this code (a profile's device, vendor, driver, backend, unit,
 * test names and reasons, file paths, the estimator's notes) reaches an output only through
 * the function of that output's format:
 *
 *     ff_pub_esc_html(sb, s)   HTML text and double-quoted attribute values
 *     ff_pub_esc_xml(sb, s)    SVG (XML 1.0) text and double-quoted attribute values
 *     ff_pub_esc_md(sb, s)     Markdown inline text: a table cell, a list item, a link's text
 *     ff_pub_esc_md_code(sb, s) a Markdown code span, backticks and all
 *     ff_pub_esc_url(sb, s)    a relative link target (percent-encoding)
 *     ff_pub_esc_csv(sb, s)    one CSV field (RFC 4180), safe to open in a spreadsheet
 *     ff_pub_esc_term(sb, s)   a line of text for a terminal
 *     ff_pub_json_text(s)      a JSON string for json-c, which quotes it
 *
 * All of them read s as UTF-8: a byte that starts no valid sequence (and an encoded surrogate
 * or overlong form) becomes U+FFFD, so every output is valid UTF-8. The text formats also drop
 * control characters (U+0000-U+001F but the tab and newline each format keeps, U+007F-U+009F)
 * and the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069),
 * which would reorder what a reader sees around the text. s NULL writes nothing.
 */
#ifndef FF_PUB_ESCAPE_H
#define FF_PUB_ESCAPE_H

#include <json-c/json.h>

#include "sb.h"

/* & < > " ' as references; tab and newline kept. */
void ff_pub_esc_html(struct ff_pub_sb *b, const char *s);
/* The same as HTML (the page carries the SVGs inline), and U+FFFE/U+FFFF, which XML 1.0 does
 * not allow, become U+FFFD. */
void ff_pub_esc_xml(struct ff_pub_sb *b, const char *s);
/* The text of one cell of a table row: newlines and tabs become spaces; \ ` * _ [ ] ~ | are
 * backslash-escaped (an underscore between two letters or digits opens no emphasis and is
 * left alone), & < > written as references (no raw HTML, no entity from data); a leading
 * # - + = (a heading, a list item, a setext line) backslash-escaped. */
void ff_pub_esc_md(struct ff_pub_sb *b, const char *s);
/* s as one code span: fenced with one backtick more than its longest run of backticks, newlines
 * as spaces. */
void ff_pub_esc_md_code(struct ff_pub_sb *b, const char *s);
/* Every byte outside A-Z a-z 0-9 - . _ ~ / percent-encoded. */
void ff_pub_esc_url(struct ff_pub_sb *b, const char *s);
/* A field that a spreadsheet shows as text: quoted when it holds , " CR or LF (" doubled);
 * a leading = + - @ tab or CR (a formula) prefixed with ', unless the whole field is a plain
 * decimal number ("-2.5", "1e-3"). Control characters other than tab, CR and LF dropped. */
void ff_pub_esc_csv(struct ff_pub_sb *b, const char *s);
/* Text for a terminal (`flopfit bench`'s table): every control character dropped, the tab,
 * CR and newline as spaces, so a driver's words can neither send an escape sequence nor break
 * a line of the table. */
void ff_pub_esc_term(struct ff_pub_sb *b, const char *s);
/* A new json-c string of s with invalid UTF-8 replaced (json-c escapes quotes and control
 * characters as \" and \u00XX itself); NULL for s NULL or out of memory. */
json_object *ff_pub_json_text(const char *s);

#endif
