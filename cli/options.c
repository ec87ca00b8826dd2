/* cli/options.c: the one option parser, over getopt_long. */
#include "options.h"
#include "output.h"
#include "cli.h"

#include "lowersim/alloc.h"
#include "lowersim/jax_profile.h"
#include "lowersim/scenario_kind.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out) {
  if (!text || !*text)
    return false;
  uint64_t v = 0;
  for (const char *c = text; *c; c++) {
    if (*c < '0' || *c > '9')
      return false;
    unsigned d = (unsigned)(*c - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
  }
  if (v < min || v > max)
    return false;
  *out = v;
  return true;
}

static size_t digits(const char *c) {
  size_t n = 0;
  while (c[n] >= '0' && c[n] <= '9')
    n++;
  return n;
}

bool cli_parse_double(const char *text, double min, double max, double *out) {
  if (!text)
    return false;
  const char *c = text;
  size_t whole = digits(c), fraction = 0;
  c += whole;
  if (*c == '.')
    c++, fraction = digits(c), c += fraction;
  if (whole + fraction == 0)
    return false;
  if (*c == 'e' || *c == 'E') {
    c++;
    c += *c == '+' || *c == '-';
    size_t exponent = digits(c);
    if (!exponent)
      return false;
    c += exponent;
  }
  if (*c)
    return false;
  double v = strtod(text, NULL);
  if (!isfinite(v) || v < min || v > max)
    return false;
  *out = v;
  return true;
}

/* --- Typos -------------------------------------------------------------------------- */

enum { MAX_SUGGESTED = 64 }; /* longer names are not typos of anything */

/* The optimal string alignment distance of a[0..n) and b[0..m): insertions,
 * deletions, substitutions and transpositions of adjacent characters. */
static size_t distance(const char *a, size_t n, const char *b, size_t m) {
  size_t d[MAX_SUGGESTED + 1][MAX_SUGGESTED + 1];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best)
        best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best)
        best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

/* cli_suggest on the first `n` bytes of `given`. */
static const char *suggest_n(const char *given, size_t n, const char *const *names, size_t count) {
  size_t limit = n / 3 ? n / 3 : 1, best_d = limit + 1;
  const char *best = NULL;
  bool tie = false;
  for (size_t i = 0; n <= MAX_SUGGESTED && i < count; i++) {
    size_t m = strlen(names[i]);
    if (m > MAX_SUGGESTED)
      continue;
    size_t d = distance(given, n, names[i], m);
    if (d && d < best_d)
      best_d = d, best = names[i], tie = false;
    else if (d && d == best_d && best)
      tie = true;
  }
  return tie ? NULL : best;
}

const char *cli_suggest(const char *given, const char *const *names, size_t count) {
  return suggest_n(given, strlen(given), names, count);
}

int cli_typo_error(const char *command, const char *what, const char *given,
                   const char *const *names, size_t count) {
  bool option = given[0] == '-';
  const char *word = given + strspn(given, "-");
  const char *near = suggest_n(word, option ? strcspn(word, "=") : strlen(word), names, count);
  const char *space = command ? " " : "", *name = command ? command : "";
  fprintf(stderr, "lowersim%s%s: unknown %s '%s'", space, name, what, given);
  if (near)
    fprintf(stderr, " (did you mean '%s%s'?)", option ? "--" : "", near);
  fprintf(stderr, "\nTry 'lowersim%s%s --help'.\n", space, name);
  return 2;
}

const char *cli_suggest_value(const char *given, cli_values values) {
  enum { MAX_VALUES = 64 };
  const char *names[MAX_VALUES];
  size_t n = 0;
  while (n < MAX_VALUES && (names[n] = values(n)))
    n++;
  return cli_suggest(given, names, n);
}

int cli_value_error(const char *command, const char *option, const char *wrong,
                    const char *value, cli_values values) {
  const char *near = cli_suggest_value(value, values);
  if (near)
    return cli_usage_error(command, "%s%s%s, not '%s' (did you mean '%s'?)", option ? option : "",
                           option ? " " : "", wrong, value, near);
  return cli_usage_error(command, "%s%s%s, not '%s'", option ? option : "", option ? " " : "",
                         wrong, value);
}

/* --- Values ------------------------------------------------------------------------- */

const char *cli_jax_values(size_t i) {
  size_t profiles = lsim_jax_profile_count();
  if (i < profiles)
    return lsim_jax_profile_at(i)->name;
  const lsim_jax_alias *alias = lsim_jax_alias_at(i - profiles);
  return alias ? alias->name : NULL;
}

const char *cli_element_values(size_t i) {
  const lsim_scenario_kind *kind = lsim_scenario_kind_at(i);
  return kind ? lsim_scenario_kind_element(kind) : NULL;
}

const char *cli_colour_values(size_t i) {
  static const char *const modes[] = {[CLI_COLOUR_AUTO] = "auto", [CLI_COLOUR_ALWAYS] = "always",
                                      [CLI_COLOUR_NEVER] = "never"};
  return i < 3 ? modes[i] : NULL;
}

/* --- --help's list of options, and --options's ------------------------------------- */

enum { HELP_WIDTH = 79, HELP_COLUMN = 26 };

/* `text` from column `at` (the cursor there), wrapped at HELP_WIDTH with
 * continuation lines indented to HELP_COLUMN. */
static void wrap(const char *text, size_t at) {
  for (const char *c = text; *c;) {
    size_t word = strcspn(c, " ");
    if (at > HELP_COLUMN && at + 1 + word > HELP_WIDTH) {
      printf("\n%*s", HELP_COLUMN, "");
      at = HELP_COLUMN;
    } else if (at > HELP_COLUMN) {
      putchar(' ');
      at++;
    }
    printf("%.*s", (int)word, c);
    at += word;
    c += word;
    c += strspn(c, " ");
  }
}

/* One option: `  -x, --name ARG   help (one of: a, b)`, the help wrapped. */
static void print_option(char short_name, const char *name, const char *arg, const char *help,
                         cli_values values) {
  char head[128];
  snprintf(head, sizeof head, "  %c%c%c --%s%s%s", short_name ? '-' : ' ',
           short_name ? short_name : ' ', short_name ? ',' : ' ', name, arg ? " " : "",
           arg ? arg : "");
  size_t at = strlen(head);
  fputs(head, stdout);
  if (at + 2 > HELP_COLUMN)
    printf("\n%*s", HELP_COLUMN, "");
  else
    printf("%*s", (int)(HELP_COLUMN - at), "");
  char line[1024];
  size_t k = (size_t)snprintf(line, sizeof line, "%s", help ? help : "");
  for (size_t i = 0; values && values(i) && k < sizeof line; i++)
    k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", i ? ", " : k ? " (one of: " : "(one of: ",
                          values(i));
  if (values && values(0) && k < sizeof line)
    snprintf(line + k, sizeof line - k, ")");
  wrap(line, HELP_COLUMN);
  putchar('\n');
}

static void print_options(const cli_option *options, size_t n) {
  printf("\noptions:\n");
  for (size_t i = 0; i < n; i++)
    print_option(options[i].short_name, options[i].name, options[i].arg, options[i].help,
                 options[i].values);
  print_option(0, "color", "WHEN", "colour: auto colours a terminal unless NO_COLOR is set and "
               "not empty or TERM is dumb", cli_colour_values);
  print_option('h', "help", NULL, "this help", NULL);
  print_option(0, "version", NULL, "lowersim's version", NULL);
}

static bool describing;

void cli_describe_options(bool on) { describing = on; }

static void describe_one(const char *name, bool takes, cli_values values) {
  printf("--%s%s", name, takes ? "=" : "");
  for (size_t i = 0; values && values(i); i++)
    printf(" %s", values(i));
  putchar('\n');
}

/* cli_describe_options's lines for `options` and the built-in ones. */
static void describe(const cli_option *options, size_t n) {
  describing = false;
  for (size_t i = 0; i < n; i++)
    describe_one(options[i].name, options[i].kind != CLI_FLAG, options[i].values);
  describe_one("help", false, NULL);
  describe_one("version", false, NULL);
  describe_one("color", true, cli_colour_values);
}

/* --- Parsing ------------------------------------------------------------------------ */

/* What is wrong with `value` for `o`, or NULL. */
static const char *set_value(const cli_option *o, const char *value, char *why, size_t size) {
  switch (o->kind) {
  case CLI_FLAG: *(bool *)o->out = true; return NULL;
  case CLI_STRING: *(const char **)o->out = value; return NULL;
  case CLI_U64:
    if (cli_parse_u64(value, o->min, o->max, o->out))
      return NULL;
    snprintf(why, size, "takes an integer from %" PRIu64 " to %" PRIu64, o->min, o->max);
    return why;
  case CLI_DOUBLE:
    if (cli_parse_double(value, o->min_real, o->max_real, o->out))
      return NULL;
    snprintf(why, size, "takes a number from %g to %g", o->min_real, o->max_real);
    return why;
  case CLI_CUSTOM: return o->parse(value, o->out);
  }
  return "cannot be parsed";
}

/* The option of a getopt_long result: long options return 256 + index. */
static const cli_option *option_of(int c, const cli_option *options, size_t n) {
  if (c >= 256 && (size_t)(c - 256) < n)
    return &options[c - 256];
  for (size_t i = 0; i < n; i++)
    if (options[i].short_name && options[i].short_name == c)
      return &options[i];
  return NULL;
}

/* How an option is written in a message: --name, or -x given alone. */
static void option_text(const cli_option *o, int c, char *buf, size_t size) {
  if (c < 256 && o->short_name)
    snprintf(buf, size, "-%c", o->short_name);
  else
    snprintf(buf, size, "--%s", o->name);
}

enum { HELP = 1, VERSION = 2, COLOUR = 3 };

/* --color=WHEN into the process's colour mode; NULL, or what is wrong. */
static const char *set_colour(const char *value) {
  for (int m = 0; m < 3; m++)
    if (strcmp(value, cli_colour_values((size_t)m)) == 0) {
      cli_set_colour((cli_colour)m);
      return NULL;
    }
  return "takes always, never or auto";
}

/* How many long options `given` ("--abbrev[=value]") abbreviates. */
static int matching(const char *given, const struct option *longs) {
  if (strncmp(given, "--", 2) != 0)
    return 0;
  size_t n = strcspn(given + 2, "=");
  int count = 0;
  for (const struct option *o = longs; o->name; o++)
    count += strncmp(o->name, given + 2, n) == 0;
  return count;
}

/* `NAME WRONG, not 'VALUE'`, with the value nearest to the first
 * comma-separated item of VALUE that is not among the option's values. */
static int wrong_value(const char *command, const cli_option *o, const char *name,
                       const char *wrong, const char *value) {
  char item[MAX_SUGGESTED + 1];
  const char *near = NULL;
  for (const char *c = value; o->values && !near && *c;) {
    size_t n = strcspn(c, ",");
    bool known = false;
    for (size_t i = 0; !known && o->values(i); i++)
      known = strlen(o->values(i)) == n && strncmp(o->values(i), c, n) == 0;
    if (!known && n <= MAX_SUGGESTED) {
      memcpy(item, c, n);
      item[n] = '\0';
      near = cli_suggest_value(item, o->values);
    }
    c += n + (c[n] == ',');
  }
  if (near)
    return cli_usage_error(command, "%s %s, not '%s' (did you mean '%s'?)", name, wrong, value,
                           near);
  return cli_usage_error(command, "%s %s, not '%s'", name, wrong, value);
}

/* An unknown long option, with the nearest of `longs` (NULL-terminated). */
static int unknown_option(const char *command, const char *given, const struct option *longs) {
  size_t n = 0;
  while (longs[n].name)
    n++;
  const char **names = lsim_malloc_array(n ? n : 1, sizeof *names);
  for (size_t i = 0; names && i < n; i++)
    names[i] = longs[i].name;
  int code = cli_typo_error(command, "option", given, names, names ? n : 0);
  free(names);
  return code;
}

/* The rows marked CLI_OUTPUT that are given, claimed (output.h). */
static int claim_outputs(const char *command, const cli_option *options, size_t num_options) {
  size_t n = 0;
  for (size_t i = 0; i < num_options; i++)
    n += options[i].output;
  cli_claim *claims = lsim_calloc(n ? n : 1, sizeof *claims);
  char(*names)[80] = lsim_calloc(n ? n : 1, sizeof *names);
  int code = claims && names ? 0 : cli_usage_error(command, "out of memory");
  for (size_t i = 0, k = 0; !code && i < num_options; i++) {
    const cli_option *o = &options[i];
    if (!o->output)
      continue;
    snprintf(names[k], sizeof names[k], "--%s", o->name);
    claims[k].option = names[k];
    claims[k++].path = o->kind == CLI_FLAG ? (*(bool *)o->out ? "-" : NULL)
                                           : *(const char **)o->out;
  }
  if (!code)
    code = cli_claim_outputs(command, claims, n);
  free(claims);
  free(names);
  return code;
}

int cli_parse(const char *command, int argc, char **argv, const cli_option *options,
              size_t num_options, void (*help)(void), cli_args *args) {
  if (describing) {
    describe(options, num_options);
    *args = (cli_args){argv + argc, 0};
    return -1;
  }
  struct option *longs = lsim_calloc(num_options + 4, sizeof *longs);
  char *shorts = lsim_malloc(2 * num_options + 4);
  if (!longs || !shorts) {
    free(longs);
    free(shorts);
    return cli_usage_error(command, "out of memory");
  }
  size_t k = 0;
  shorts[k++] = ':'; /* a missing value is reported as ':' */
  shorts[k++] = 'h';
  for (size_t i = 0; i < num_options; i++) {
    bool takes = options[i].kind != CLI_FLAG;
    longs[i] = (struct option){options[i].name, takes ? required_argument : no_argument, NULL,
                               256 + (int)i};
    if (options[i].short_name) {
      shorts[k++] = options[i].short_name;
      if (takes)
        shorts[k++] = ':';
    }
  }
  shorts[k] = '\0';
  longs[num_options] = (struct option){"help", no_argument, NULL, HELP};
  longs[num_options + 1] = (struct option){"version", no_argument, NULL, VERSION};
  longs[num_options + 2] = (struct option){"color", required_argument, NULL, COLOUR};
  optind = 0; /* glibc: start afresh, whatever an earlier parse left */
  opterr = 0;
  int code = 0, c;
  char why[128], name[80];
  while (!code && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
    const cli_option *o = option_of(c, options, num_options);
    if (c == HELP || c == 'h') {
      help();
      print_options(options, num_options);
      code = -1;
    } else if (c == VERSION) {
      printf("lowersim %s\n", LOWERSIM_VERSION);
      code = -1;
    } else if (c == COLOUR) {
      const char *wrong = set_colour(optarg);
      if (wrong)
        code = cli_value_error(command, "--color", wrong, optarg, cli_colour_values);
    } else if (c == ':' || c == '?') {
      const cli_option *bad = option_of(optopt, options, num_options);
      const char *given = argv[optind - 1];
      if (bad)
        option_text(bad, optopt, name, sizeof name);
      if (c == ':' && bad)
        code = cli_usage_error(command, "%s needs a value (see --help)", name);
      else if (c == ':' && optopt == COLOUR)
        code = cli_usage_error(command, "--color needs a value: always, never or auto");
      else if (optopt && optopt < 256)
        code = cli_typo_error(command, "option", (char[]){'-', (char)optopt, '\0'}, NULL, 0);
      else if (matching(given, longs) > 1)
        code = cli_usage_error(command, "ambiguous option '%s' (see --help)", given);
      else
        code = unknown_option(command, given, longs);
    } else if (o) {
      const char *wrong = set_value(o, optarg, why, sizeof why);
      option_text(o, c, name, sizeof name);
      if (wrong)
        code = wrong_value(command, o, name, wrong, optarg);
    }
  }
  free(longs);
  free(shorts);
  args->operands = argv + optind;
  args->num_operands = argc - optind;
  return code ? code : claim_outputs(command, options, num_options);
}

char **cli_split(const char *text, char sep, size_t *count) {
  size_t len = strlen(text), n = 1;
  for (const char *c = text; *c; c++)
    n += *c == sep;
  if (n > (SIZE_MAX - len - 1) / sizeof(char *))
    return NULL;
  char **items = lsim_malloc(n * sizeof *items + len + 1);
  if (!items)
    return NULL;
  char *copy = (char *)(items + n);
  memcpy(copy, text, len + 1);
  *count = 0;
  for (char *item = copy;;) {
    items[(*count)++] = item;
    char *end = strchr(item, sep);
    if (!end)
      break;
    *end = '\0';
    item = end + 1;
  }
  return items;
}

int cli_parse_options(const char *command, int argc, char **argv, const cli_option *options,
                      size_t num_options, void (*help)(void)) {
  cli_args args;
  int code = cli_parse(command, argc, argv, options, num_options, help, &args);
  if (!code && args.num_operands)
    code = cli_usage_error(command, "unexpected argument '%s' (see --help)", args.operands[0]);
  return code;
}
