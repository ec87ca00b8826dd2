/* cli/options.c: the one option parser, over getopt_long. */
#include "options.h"
#include "cli.h"

#include "lowersim/alloc.h"

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

enum { HELP = 1, VERSION = 2 };

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

int cli_parse(const char *command, int argc, char **argv, const cli_option *options,
              size_t num_options, void (*help)(void), cli_args *args) {
  struct option *longs = lsim_calloc(num_options + 3, sizeof *longs);
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
  optind = 0; /* glibc: start afresh, whatever an earlier parse left */
  opterr = 0;
  int code = 0, c;
  char why[128], name[80];
  while (!code && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
    const cli_option *o = option_of(c, options, num_options);
    if (c == HELP || c == 'h') {
      help();
      code = -1;
    } else if (c == VERSION) {
      printf("lowersim %s\n", LOWERSIM_VERSION);
      code = -1;
    } else if (c == ':' || c == '?') {
      const cli_option *bad = option_of(optopt, options, num_options);
      const char *given = argv[optind - 1];
      if (bad)
        option_text(bad, optopt, name, sizeof name);
      if (c == ':' && bad)
        code = cli_usage_error(command, "%s needs a value (see --help)", name);
      else if (optopt && optopt < 256)
        code = cli_usage_error(command, "unknown option '-%c' (see --help)", optopt);
      else if (matching(given, longs) > 1)
        code = cli_usage_error(command, "ambiguous option '%s' (see --help)", given);
      else
        code = cli_usage_error(command, "unknown option '%s' (see --help)", given);
    } else if (o) {
      const char *wrong = set_value(o, optarg, why, sizeof why);
      option_text(o, c, name, sizeof name);
      if (wrong)
        code = cli_usage_error(command, "%s %s, not '%s'", name, wrong, optarg);
    }
  }
  free(longs);
  free(shorts);
  args->operands = argv + optind;
  args->num_operands = argc - optind;
  return code;
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
