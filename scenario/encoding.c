/* scenario/encoding.c: every scenario becomes UTF-8 before its limits are
 * checked and libxml2 parses it.
 *
 * limits.c finds start tags by their bytes, so a document in UTF-16, UTF-32,
 * EBCDIC or UTF-7 (whose `<` is not the byte 0x3C, or is `+ADw-`) passed
 * every cap unseen, and libxml2's pairwise check of attributes took 18.8 s
 * on 430 KB.  The encoding is detected as XML 1.0's Appendix F says (a byte
 * order mark, else the first four bytes of `<?xml`, then the declaration's
 * encoding="..."), and the document is converted by iconv, which lowersim
 * supports whole: once converted, no encoding hides markup from the limits.
 * An encoding iconv does not know is refused by name; a byte sequence that
 * is not the encoding's is refused with its line. */
#define _GNU_SOURCE /* memmem */
#include "internal.h"
#include "lowersim/alloc.h"
#include "support/raise.h"

#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The encoding="..." of the declaration that begins `head` (ASCII bytes),
 * into `name` ("" when there is none). */
static void declared(const char *head, size_t n, char *name, size_t cap) {
  name[0] = '\0';
  if (n < 5 || memcmp(head, "<?xml", 5) != 0)
    return;
  const char *end = memmem(head, n, "?>", 2);
  const char *at = memmem(head, end ? (size_t)(end - head) : n, "encoding", 8);
  if (!at)
    return;
  const char *p = at + 8, *stop = end ? end : head + n;
  while (p < stop && strchr(" \t\r\n", *p))
    p++;
  if (p >= stop || *p++ != '=')
    return;
  while (p < stop && strchr(" \t\r\n", *p))
    p++;
  if (p >= stop || (*p != '"' && *p != '\''))
    return;
  char quote = *p++;
  const char *close = memchr(p, quote, (size_t)(stop - p));
  if (close && (size_t)(close - p) < cap)
    memcpy(name, p, (size_t)(close - p)), name[close - p] = '\0';
}

static bool is_utf8_name(const char *name) {
  return !*name || !strcasecmp(name, "UTF-8") || !strcasecmp(name, "UTF8") ||
         !strcasecmp(name, "US-ASCII") || !strcasecmp(name, "ASCII");
}

/* `size` bytes from `from` (iconv's name) into owned UTF-8. */
static int convert(const char *path, const char *from, const char *data, size_t size,
                   char **out, size_t *out_size, lsim_error *err) {
  iconv_t cd = iconv_open("UTF-8", from);
  if (cd == (iconv_t)-1)
    return lsimp_input_fail(err, path, 1,
                            "the encoding '%s' is not supported (lowersim reads a scenario in any "
                            "encoding iconv knows; see `iconv -l`)",
                            from);
  size_t cap = size * 4 + 16; /* UTF-8 takes at most 4 bytes a byte in */
  char *buf = lsim_malloc(cap);
  if (!buf) {
    iconv_close(cd);
    return lsimp_fail_oom(err);
  }
  char *in = (char *)data, *o = buf;
  size_t left = size, room = cap - 1;
  int rc = LSIM_OK;
  if (iconv(cd, &in, &left, &o, &room) == (size_t)-1 ||
      iconv(cd, NULL, NULL, &o, &room) == (size_t)-1) {
    long line = 1;
    for (const char *q = buf; q < o; q++)
      line += *q == '\n';
    rc = errno == EINVAL
             ? lsimp_input_fail(err, path, line,
                                "the file ends inside a character of %s (byte offset %zu)", from,
                                size - left)
             : lsimp_input_fail(err, path, line, "the bytes at byte offset %zu are not valid %s",
                                size - left, from);
  }
  iconv_close(cd);
  if (rc) {
    free(buf);
    return rc;
  }
  *o = '\0';
  *out = buf;
  *out_size = (size_t)(o - buf);
  return LSIM_OK;
}

int lsimp_scenario_to_utf8(const char *path, const char *data, size_t size, char **out,
                           size_t *out_size, lsim_error *err) {
  *out = NULL;
  const unsigned char *b = (const unsigned char *)data;
  static const struct {
    const char *bytes;
    size_t n, skip;
    const char *encoding;
  } marks[] = {
      /* Byte order marks, then `<?` in each width and order (Appendix F). */
      {"\x00\x00\xFE\xFF", 4, 4, "UTF-32BE"}, {"\xFF\xFE\x00\x00", 4, 4, "UTF-32LE"},
      {"\xFE\xFF", 2, 2, "UTF-16BE"},         {"\xFF\xFE", 2, 2, "UTF-16LE"},
      {"\xEF\xBB\xBF", 3, 3, NULL},           {"\x00\x00\x00\x3C", 4, 0, "UTF-32BE"},
      {"\x3C\x00\x00\x00", 4, 0, "UTF-32LE"}, {"\x00\x3C\x00\x3F", 4, 0, "UTF-16BE"},
      {"\x3C\x00\x3F\x00", 4, 0, "UTF-16LE"}, {"\x4C\x6F\xA7\x94", 4, 0, "IBM037"},
      {"+ADw", 4, 0, "UTF-7"}, /* `<` as UTF-7 encoders that encode it write it */
  };
  for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
    if (size < marks[i].n || memcmp(b, marks[i].bytes, marks[i].n) != 0)
      continue;
    const char *from = marks[i].encoding;
    if (!from) /* UTF-8's mark: the declaration may still name another encoding */
      break;
    if (strcmp(from, "IBM037") == 0) {
      /* EBCDIC: the declaration, read in IBM037, names the code page. */
      char *head = NULL, name[64];
      size_t head_size;
      int rc = convert(path, from, data, size < 256 ? size : 256, &head, &head_size, err);
      if (rc && err->code == LSIM_E_NO_MEMORY)
        return rc;
      lsim_error_clear(err);
      declared(head ? head : "", head ? head_size : 0, name, sizeof name);
      free(head);
      if (*name)
        from = name;
      return convert(path, from, data, size, out, out_size, err);
    }
    return convert(path, from, data + marks[i].skip, size - marks[i].skip, out, out_size, err);
  }
  char name[64];
  size_t skip = size >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  declared(data + skip, size - skip < 512 ? size - skip : 512, name, sizeof name);
  if (is_utf8_name(name))
    return LSIM_OK; /* as it is: libxml2 checks that it is UTF-8, with the line */
  return convert(path, name, data + skip, size - skip, out, out_size, err);
}
