/* cli/json.c: --json's writer (json.h). */
#include "json.h"

#include "lowersim/version.h"

#include <math.h>
#include <string.h>

static void member(cli_json *j, const char *key) {
  if (j->depth > 0) {
    if (!j->first[j->depth - 1])
      fputc(',', j->f);
    j->first[j->depth - 1] = false;
  }
  if (key) {
    cli_json_string_n(&(cli_json){.f = j->f}, NULL, key, strlen(key));
    fputc(':', j->f);
  }
}

static void open_container(cli_json *j, const char *key, char c) {
  member(j, key);
  fputc(c, j->f);
  if (j->depth < (int)(sizeof j->first / sizeof j->first[0]))
    j->first[j->depth] = true;
  j->depth++;
}

void cli_json_open_object(cli_json *j, const char *key) { open_container(j, key, '{'); }
void cli_json_open_array(cli_json *j, const char *key) { open_container(j, key, '['); }

void cli_json_close_object(cli_json *j) {
  fputc('}', j->f);
  j->depth--;
}

void cli_json_close_array(cli_json *j) {
  fputc(']', j->f);
  j->depth--;
}

size_t cli_utf8_sequence(const char *p, size_t n, uint32_t *cp) {
  const unsigned char *u = (const unsigned char *)p;
  size_t len = u[0] >= 0xc2 && u[0] <= 0xdf ? 2 : u[0] >= 0xe0 && u[0] <= 0xef ? 3
               : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
  if (!len || len > n)
    return 0;
  uint32_t c = u[0] & (0x7f >> len);
  for (size_t i = 1; i < len; i++) {
    if ((u[i] & 0xc0) != 0x80)
      return 0;
    c = c << 6 | (u[i] & 0x3f);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return 0;
  *cp = c;
  return len;
}

void cli_json_string_n(cli_json *j, const char *key, const char *value, size_t len) {
  member(j, key);
  fputc('"', j->f);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)value[i];
    uint32_t cp;
    size_t n = c >= 0x80 ? cli_utf8_sequence(value + i, len - i, &cp) : 1;
    if (n > 1) {
      fwrite(value + i, 1, n, j->f);
      i += n - 1;
    } else if (n == 0)
      fputs("\xef\xbf\xbd", j->f); /* U+FFFD for a byte that is not UTF-8 */
    else if (c == '"' || c == '\\')
      fprintf(j->f, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", j->f);
    else if (c == '\t')
      fputs("\\t", j->f);
    else if (c < 0x20 || c == 0x7f)
      fprintf(j->f, "\\u%04x", c);
    else
      fputc(c, j->f);
  }
  fputc('"', j->f);
}

void cli_json_string(cli_json *j, const char *key, const char *value) {
  if (!value) {
    member(j, key);
    fputs("null", j->f);
    return;
  }
  cli_json_string_n(j, key, value, strlen(value));
}

void cli_json_int(cli_json *j, const char *key, long long value) {
  member(j, key);
  fprintf(j->f, "%lld", value);
}

void cli_json_number(cli_json *j, const char *key, double value) {
  member(j, key);
  if (isfinite(value))
    fprintf(j->f, "%.6g", value);
  else
    fputs("null", j->f);
}

void cli_json_bool(cli_json *j, const char *key, bool value) {
  member(j, key);
  fputs(value ? "true" : "false", j->f);
}

void cli_json_begin(cli_json *j, FILE *f, const char *command) {
  *j = (cli_json){.f = f};
  cli_json_open_object(j, NULL);
  cli_json_string(j, "schema", CLI_JSON_SCHEMA);
  cli_json_string(j, "command", command);
  cli_json_string(j, "lowersim", lsim_version());
}

void cli_json_end(cli_json *j) {
  cli_json_close_object(j); /* the callers close what they open inside it */
  fputc('\n', j->f);
}

void cli_json_profile(cli_json *j, const char *key, const lsim_jax_profile *p) {
  p = lsim_jax_profile_or_default(p);
  cli_json_open_object(j, key);
  cli_json_string(j, "name", p->name);
  cli_json_string(j, "commit", p->commit);
  cli_json_string(j, "date", p->date);
  cli_json_close_object(j);
}

const char *cli_json_kind(lsim_kind k) {
  switch (k) {
  case LSIM_KIND_OK:
    return "ok";
  case LSIM_KIND_JAX_ERROR:
    return "jax_error";
  case LSIM_KIND_INVALID_INPUT:
    return "invalid_input";
  case LSIM_KIND_NO_MEMORY:
    return "no_memory";
  case LSIM_KIND_LOWERSIM_BUG:
    break;
  }
  return "lowersim_bug";
}

void cli_json_error(cli_json *j, const char *key, const lsim_error *err) {
  cli_json_open_object(j, key);
  const char *name = lsim_status_name(err->code);
  cli_json_string(j, "code", name ? name : "LSIM_E_UNKNOWN");
  cli_json_int(j, "status", err->code);
  cli_json_string(j, "kind", cli_json_kind(lsim_status_kind(err->code)));
  cli_json_string(j, "class", lsim_error_class(err));
  cli_json_string(j, "message", lsim_error_message(err));
  cli_json_close_object(j);
}

void cli_json_warnings(cli_json *j, const char *key, const lsim_runtime *rt) {
  cli_json_open_array(j, key);
  for (size_t i = 0; rt && i < lsim_runtime_warning_count(rt); i++) {
    cli_json_open_object(j, NULL);
    cli_json_string(j, "category", lsim_runtime_warning_category(rt, i));
    cli_json_string(j, "text", lsim_runtime_warning_at(rt, i));
    cli_json_close_object(j);
  }
  cli_json_close_array(j);
}

void cli_json_raw(cli_json *j, const char *key, const char *text) {
  member(j, key);
  fputs(text, j->f);
}

void cli_json_lowering(cli_json *j, const char *file, const lsim_scenario *s,
                       const lsim_jax_profile *profile, int rc, const lsim_error *err,
                       const char *module, const lsim_runtime *rt) {
  cli_json_string(j, "file", file);
  cli_json_string(j, "scenario", s ? s->name : NULL);
  cli_json_profile(j, "jax", s ? lsim_scenario_profile(s, profile) : profile);
  bool invalid = rc && lsim_status_kind(rc) == LSIM_KIND_INVALID_INPUT;
  cli_json_string(j, "outcome", !rc ? "module" : invalid ? "invalid" : "error");
  if (rc)
    cli_json_error(j, "error", err);
  else
    cli_json_string(j, "module", module);
  cli_json_warnings(j, "warnings", rt);
}

int cli_json_exit_code(int rc) {
  return !rc ? 0 : lsim_status_kind(rc) == LSIM_KIND_INVALID_INPUT ? 2 : 1;
}
