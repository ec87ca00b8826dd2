/* cli/json.h: the --json output of every command: one JSON object on one
 * line, written as it goes (no tree in memory), strings escaped as RFC 8259
 * asks (control characters as \u00XX) and always valid UTF-8: UTF-8 in,
 * UTF-8 out, and each byte that is not part of a UTF-8 sequence (a file
 * name or a port's output in another encoding, a surrogate, an overlong
 * form) becomes U+FFFD.  The object's shape is
 * testdata/schema/output.schema.json. */
#ifndef LOWERSIM_CLI_JSON_H
#define LOWERSIM_CLI_JSON_H

#include "lowersim/error.h"
#include "lowersim/jax_profile.h"
#include "lowersim/runtime.h"
#include "lowersim/scenario.h"
#include "lowersim/scenario_run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The schema's name and version, the first member of every object. */
#define CLI_JSON_SCHEMA "lowersim-output/1"

typedef struct cli_json {
  FILE *f;
  int depth;
  bool first[64]; /* per open container: no member written yet */
} cli_json;

/* The length of the UTF-8 sequence of two to four bytes at `p` (`n` bytes
 * left) and its code point in *cp, or 0 when there is none there (ASCII, a
 * stray byte, an overlong form, a surrogate, past U+10FFFF, cut short). */
size_t cli_utf8_sequence(const char *p, size_t n, uint32_t *cp);

/* Every function takes `key` for a member of an object, NULL for an item
 * of an array. */
void cli_json_open_object(cli_json *j, const char *key);
void cli_json_close_object(cli_json *j);
void cli_json_open_array(cli_json *j, const char *key);
void cli_json_close_array(cli_json *j);
void cli_json_string(cli_json *j, const char *key, const char *value); /* NULL: null */
void cli_json_string_n(cli_json *j, const char *key, const char *value, size_t len);
void cli_json_int(cli_json *j, const char *key, long long value);
void cli_json_number(cli_json *j, const char *key, double value);
void cli_json_bool(cli_json *j, const char *key, bool value);

/* Opens the top object on `f` with its envelope: "schema", "command",
 * "lowersim" (the version). */
void cli_json_begin(cli_json *j, FILE *f, const char *command);
/* Closes the top object and ends the line. */
void cli_json_end(cli_json *j);

/* "jax": the version profile {name, commit, date} (NULL: the default). */
void cli_json_profile(cli_json *j, const char *key, const lsim_jax_profile *p);
/* A status kind's name: "ok", "jax_error", "invalid_input", "no_memory", "lowersim_bug". */
const char *cli_json_kind(lsim_kind k);
/* "error": {code, status, kind, class, message} of `err`. */
void cli_json_error(cli_json *j, const char *key, const lsim_error *err);
/* "warnings": [{category, text}] of the runtime (NULL: an empty list). */
void cli_json_warnings(cli_json *j, const char *key, const lsim_runtime *rt);

/* The exit code of a status under --json: 0, 2 for invalid input, else 1. */
int cli_json_exit_code(int rc);

/* `text` (already JSON) as the member's value. */
void cli_json_raw(cli_json *j, const char *key, const char *text);

/* The members a lowering's result has in `lower`, `explain` and `check`
 * (json.h's schema: "lowering"): "file", "scenario" (its name or null),
 * "jax" (the profile), "outcome" ("module", "error" or "invalid"), then
 * "module" (the text) or "error", and "warnings". `s` and `rt` may be NULL
 * (the file did not read); `module` NULL when `rc` is not 0. */
void cli_json_lowering(cli_json *j, const char *file, const lsim_scenario *s,
                       const lsim_jax_profile *profile, int rc, const lsim_error *err,
                       const char *module, const lsim_runtime *rt);

#endif
