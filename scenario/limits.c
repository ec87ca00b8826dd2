/* scenario/limits.c: what a scenario file may hold, checked on its bytes
 * before libxml2 sees them.
 *
 * libxml2 2.9 checks an element's attributes for duplicates pairwise, so
 * 200,000 attributes on one element take minutes inside xmlParseStartTag2,
 * long before its tree exists; and it stops reading at a NUL byte after the
 * root element, so what follows would be ignored.  One linear pass over the
 * start tags refuses both, with the number of child elements and the
 * nesting depth, so every document libxml2 parses is small per element.
 * The pass knows just enough XML to find start tags (comments, CDATA,
 * processing instructions and quoted values are skipped); anything it does
 * not understand is left for libxml2 to report. */
#include "internal.h"

#include <string.h>

typedef struct scan {
  const char *path;
  const char *p, *end;
  long line;
  lsim_error *err;
} scan;

/* Moves past `c` bytes, counting lines. */
static void advance(scan *s, size_t c) {
  for (const char *stop = s->p + c; s->p < stop; s->p++)
    s->line += *s->p == '\n';
}

static bool starts(const scan *s, const char *prefix) {
  size_t n = strlen(prefix);
  return (size_t)(s->end - s->p) >= n && memcmp(s->p, prefix, n) == 0;
}

/* Moves past the next `terminator`; false (at the end) when there is none. */
static bool skip_past(scan *s, const char *terminator) {
  size_t n = strlen(terminator);
  for (; s->p + n <= s->end; advance(s, 1))
    if (memcmp(s->p, terminator, n) == 0) {
      advance(s, n);
      return true;
    }
  s->p = s->end;
  return false;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static void skip_space(scan *s) {
  while (s->p < s->end && is_space(*s->p))
    advance(s, 1);
}

/* An element's name as the messages show it: `<name>` when it is plain. */
typedef struct name {
  const char *text;
  int len;
} name;

static name element_name(scan *s) {
  const char *start = s->p;
  while (s->p < s->end && !is_space(*s->p) && *s->p != '>' && *s->p != '/')
    s->p++;
  name n = {start, (int)(s->p - start)};
  for (int i = 0; i < n.len && n.len <= 64; i++) {
    char c = n.text[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          strchr("_-.:", c)))
      n.len = 65;
  }
  if (n.len == 0 || n.len > 64)
    n = (name){"an element", -1};
  return n;
}

static int too_many(scan *s, name n, const char *what, long limit) {
  if (n.len < 0)
    return lsimp_input_fail(s->err, s->path, s->line,
                            "%s has more than %ld %s, the limit for an element of a scenario",
                            n.text, limit, what);
  return lsimp_input_fail(s->err, s->path, s->line,
                          "<%.*s> has more than %ld %s, the limit for an element of a scenario",
                          n.len, n.text, limit, what);
}

/* The attributes of a start tag, up to its end; `*open` is true unless it
 * ends with "/>".  Returns 1 when the tag is not understood (libxml2 will
 * say what is wrong with it). */
static int scan_attributes(scan *s, name n, bool *open) {
  for (long count = 0;;) {
    skip_space(s);
    if (s->p >= s->end)
      return 1;
    if (*s->p == '>' || starts(s, "/>")) {
      *open = *s->p == '>';
      advance(s, *open ? 1 : 2);
      return 0;
    }
    if (++count > LSIM_SCENARIO_MAX_ATTRIBUTES)
      return too_many(s, n, "attributes", LSIM_SCENARIO_MAX_ATTRIBUTES);
    while (s->p < s->end && !is_space(*s->p) && !strchr("=>/", *s->p))
      s->p++;
    skip_space(s);
    if (s->p >= s->end || *s->p != '=')
      return 1;
    advance(s, 1);
    skip_space(s);
    if (s->p >= s->end || (*s->p != '"' && *s->p != '\''))
      return 1;
    char quote[2] = {*s->p, '\0'};
    advance(s, 1);
    if (!skip_past(s, quote))
      return 1;
  }
}

int lsimp_scenario_check_limits(const char *path, const char *data, size_t size,
                                lsim_error *err) {
  scan s = {path, data, data + size, 1, err};
  const char *nul = memchr(data, '\0', size);
  if (nul) {
    s.end = nul;
    advance(&s, (size_t)(nul - data));
    return lsimp_input_fail(err, path, s.line,
                            "a NUL byte (at byte offset %zu): XML allows none, so this is not a "
                            "scenario file",
                            (size_t)(nul - data));
  }
  /* The open elements: how many children each has so far, and its name. */
  long children[LSIM_SCENARIO_MAX_DEPTH + 1] = {0};
  name names[LSIM_SCENARIO_MAX_DEPTH + 1];
  int depth = 0;
  while (s.p < s.end) {
    if (*s.p != '<') {
      advance(&s, 1);
      continue;
    }
    bool understood = true;
    if (starts(&s, "<!--"))
      understood = skip_past(&s, "-->");
    else if (starts(&s, "<![CDATA["))
      understood = skip_past(&s, "]]>");
    else if (starts(&s, "<?"))
      understood = skip_past(&s, "?>");
    else if (starts(&s, "<!") || starts(&s, "</")) {
      depth -= starts(&s, "</") && depth > 0;
      understood = skip_past(&s, ">");
    } else {
      advance(&s, 1);
      name n = element_name(&s);
      if (depth > 0 && ++children[depth] > LSIM_SCENARIO_MAX_CHILDREN)
        return too_many(&s, names[depth], "child elements", LSIM_SCENARIO_MAX_CHILDREN);
      bool open = false;
      int rc = scan_attributes(&s, n, &open);
      if (rc)
        return rc < 0 ? rc : LSIM_OK;
      if (open && depth == LSIM_SCENARIO_MAX_DEPTH)
        return lsimp_input_fail(err, path, s.line,
                                "elements nested deeper than %d, the limit for a scenario",
                                LSIM_SCENARIO_MAX_DEPTH);
      if (open) {
        depth++;
        children[depth] = 0;
        names[depth] = n;
      }
    }
    if (!understood)
      return LSIM_OK;
  }
  return LSIM_OK;
}
