/* cli/cmd_versions.c: `lowersim versions [A [B]]`: the JAX versions lowersim
 * models, every fact of one, or the facts that differ between two, each
 * with the JAX commit or tag that changed it.  Everything printed comes
 * from the profile and fact tables (lowersim/jax_profile.h). */
#include "json.h"
#include "options.h"
#include "cli.h"
#include "lowersim/jax_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void) {
  printf("usage: lowersim versions [VERSION [VERSION]] [--json]\n\n"
         "Without arguments, lists the JAX versions lowersim models (oldest first; the\n"
         "newest is the default of every command that lowers). With one version, prints\n"
         "every version-dependent fact of it; with two, every fact whose value differs\n"
         "between them, with the JAX commit or tag that changed it: a changelog of the\n"
         "lowering behaviour lowersim models. A version is named as jax.__version__ names\n"
         "it, or by a prefix of its commit (at least 7 hex digits).\n"
         "--json prints the same as one JSON object (testdata/schema/output.schema.json):\n"
         "\"default\", \"versions\" (each with its facts'\n"
         "values), \"aliases\" and \"facts\" (name, meaning, jax_code, its changes, and,\n"
         "for two versions, whether it differs).\n");
}

static void json_value(cli_json *j, const char *key, const lsim_jax_fact *f,
                       const lsim_jax_profile *p) {
  const void *v = lsim_jax_fact_value(f, p);
  switch (f->type) {
  case LSIM_JAX_FACT_STRING:
    cli_json_string(j, key, *(const char *const *)v);
    break;
  case LSIM_JAX_FACT_BOOL:
    cli_json_bool(j, key, *(const bool *)v);
    break;
  case LSIM_JAX_FACT_INT:
    cli_json_int(j, key, *(const int *)v);
    break;
  case LSIM_JAX_FACT_STRINGS: {
    const lsim_jax_strings *l = v;
    cli_json_open_array(j, key);
    for (size_t i = 0; i < l->count; i++)
      cli_json_string(j, NULL, l->items[i]);
    cli_json_close_array(j);
    break;
  }
  }
}

/* The profiles chosen (all when none is), their facts, and the fact rows. */
static int print_json(const lsim_jax_profile *const *chosen, int n) {
  size_t count = n ? (size_t)n : lsim_jax_profile_count();
  cli_json j;
  cli_json_begin(&j, stdout, "versions");
  cli_json_string(&j, "default", lsim_jax_profile_default()->name);
  cli_json_open_array(&j, "versions");
  for (size_t i = 0; i < count; i++) {
    const lsim_jax_profile *p = n ? chosen[i] : lsim_jax_profile_at(i);
    cli_json_open_object(&j, NULL);
    cli_json_string(&j, "name", p->name);
    cli_json_string(&j, "commit", p->commit);
    cli_json_string(&j, "date", p->date);
    cli_json_string(&j, "summary", p->summary);
    cli_json_open_object(&j, "facts");
    for (size_t k = 0; k < lsim_jax_fact_count(); k++) {
      const lsim_jax_fact *f = lsim_jax_fact_at(k);
      json_value(&j, f->name, f, p);
    }
    cli_json_close_object(&j);
    cli_json_close_object(&j);
  }
  cli_json_close_array(&j);
  cli_json_open_array(&j, "aliases");
  for (size_t i = 0; i < lsim_jax_alias_count(); i++) {
    const lsim_jax_alias *a = lsim_jax_alias_at(i);
    cli_json_open_object(&j, NULL);
    cli_json_string(&j, "name", a->name);
    cli_json_string(&j, "commit", a->commit);
    cli_json_string(&j, "lowers_as", a->profile->name);
    cli_json_string(&j, "why", a->why);
    cli_json_close_object(&j);
  }
  cli_json_close_array(&j);
  cli_json_open_array(&j, "facts");
  for (size_t k = 0; k < lsim_jax_fact_count(); k++) {
    const lsim_jax_fact *f = lsim_jax_fact_at(k);
    cli_json_open_object(&j, NULL);
    cli_json_string(&j, "name", f->name);
    cli_json_string(&j, "meaning", f->meaning);
    cli_json_string(&j, "jax_code", f->jax_code);
    cli_json_open_array(&j, "changes");
    for (size_t c = 0; c < lsim_jax_change_count(); c++) {
      const lsim_jax_change *ch = lsim_jax_change_at(c);
      if (strcmp(ch->fact, f->name) != 0)
        continue;
      cli_json_open_object(&j, NULL);
      cli_json_string(&j, "release", ch->release);
      cli_json_string(&j, "by", ch->by);
      cli_json_close_object(&j);
    }
    cli_json_close_array(&j);
    if (n == 2)
      cli_json_bool(&j, "differs", !lsim_jax_fact_equal(f, chosen[0], chosen[1]));
    cli_json_close_object(&j);
  }
  cli_json_close_array(&j);
  cli_json_end(&j);
  return 0;
}

static void print_value(const lsim_jax_fact *f, const lsim_jax_profile *p) {
  char *text = lsim_jax_fact_format(f, p);
  printf("  %-34s %s\n", p->name, text ? text : "(out of memory)");
  free(text);
}

/* The names one list has and the other lacks, as a Python list. */
static void print_missing(const char *label, const lsim_jax_strings *from,
                          const lsim_jax_strings *other) {
  size_t n = 0;
  for (size_t i = 0; i < from->count; i++)
    if (!lsim_jax_strings_contain(other, from->items[i]))
      printf("%s'%s'", n++ ? ", " : label, from->items[i]);
  if (n)
    printf("]\n");
}

static size_t profile_index(const lsim_jax_profile *p) {
  size_t i = 0;
  while (i < lsim_jax_profile_count() && lsim_jax_profile_at(i) != p)
    i++;
  return i;
}

static void print_difference(const lsim_jax_fact *f, const lsim_jax_profile *a,
                             const lsim_jax_profile *b) {
  printf("\n%s\n  %s\n", f->name, f->meaning);
  if (f->type == LSIM_JAX_FACT_STRINGS) {
    const lsim_jax_strings *la = lsim_jax_fact_value(f, a), *lb = lsim_jax_fact_value(f, b);
    char label[128];
    snprintf(label, sizeof label, "  only in %s: [", a->name);
    print_missing(label, la, lb);
    snprintf(label, sizeof label, "  only in %s: [", b->name);
    print_missing(label, lb, la);
    if (la->count == lb->count)
      printf("  (the same names in another order)\n");
  } else {
    print_value(f, a);
    print_value(f, b);
  }
  /* The changes between them: each column after the older up to the newer. */
  size_t ia = profile_index(a), ib = profile_index(b);
  for (size_t i = (ia < ib ? ia : ib) + 1; i <= (ia < ib ? ib : ia); i++) {
    const lsim_jax_change *ch = lsim_jax_change_find(f, lsim_jax_profile_at(i));
    if (ch)
      printf("  changed in %s by %s\n", ch->release, ch->by);
  }
  printf("  in JAX: %s\n", f->jax_code);
}

static int list_profiles(void) {
  printf("JAX versions lowersim models, oldest first (choose one with --jax VERSION or\n"
         "<scenario jax=\"VERSION\">; the newest is the default):\n");
  for (size_t i = 0; i < lsim_jax_profile_count(); i++) {
    const lsim_jax_profile *p = lsim_jax_profile_at(i);
    printf("  %-31s %s  %s%s\n      %s\n", p->name, p->commit, p->date,
           p == lsim_jax_profile_default() ? "  (default)" : "", p->summary);
  }
  for (size_t i = 0; i < lsim_jax_alias_count(); i++) {
    const lsim_jax_alias *a = lsim_jax_alias_at(i);
    printf("  %-31s %s  lowers as %s: %s\n", a->name, a->commit, a->profile->name, a->why);
  }
  printf("%zu version-dependent facts each: `lowersim versions A` prints them, `lowersim "
         "versions A B` those that differ.\n",
         lsim_jax_fact_count());
  return 0;
}

static int one_profile(const lsim_jax_profile *p) {
  printf("JAX %s (commit %s, %s): %s\n", p->name, p->commit, p->date, p->summary);
  for (size_t i = 0; i < lsim_jax_fact_count(); i++) {
    const lsim_jax_fact *f = lsim_jax_fact_at(i);
    char *text = lsim_jax_fact_format(f, p);
    printf("\n%s\n  %s\n  %s\n", f->name, f->meaning, text ? text : "(out of memory)");
    free(text);
  }
  return 0;
}

static int two_profiles(const lsim_jax_profile *a, const lsim_jax_profile *b) {
  printf("Behaviour that differs between JAX %s (%s) and JAX %s (%s):\n", a->name, a->commit,
         b->name, b->commit);
  size_t differ = 0;
  for (size_t i = 0; i < lsim_jax_fact_count(); i++) {
    const lsim_jax_fact *f = lsim_jax_fact_at(i);
    if (!lsim_jax_fact_equal(f, a, b)) {
      print_difference(f, a, b);
      differ++;
    }
  }
  printf("\n%zu of %zu facts differ.\n", differ, lsim_jax_fact_count());
  return 0;
}

int cmd_versions(int argc, char **argv) {
  const lsim_jax_profile *chosen[2] = {NULL, NULL};
  bool json = false;
  const cli_option options[] = {
      CLI_OPT_FLAG("json", 0, &json, CLI_OUTPUT, CLI_HELP(NULL, "the same as one JSON object"))};
  cli_args args;
  int code = cli_parse("versions", argc, argv, options, 1, help, &args);
  if (code)
    return code < 0 ? 0 : code;
  int n = args.num_operands;
  if (n > 2)
    return cli_usage_error("versions", "at most two versions (usage: lowersim versions [A [B]])");
  for (int i = 0; i < n; i++)
    if ((code = cli_parse_jax("versions", NULL, args.operands[i], &chosen[i])))
      return code;
  if (json)
    return print_json(chosen, n);
  if (n == 0)
    return list_profiles();
  return n == 1 ? one_profile(chosen[0]) : two_profiles(chosen[0], chosen[1]);
}
