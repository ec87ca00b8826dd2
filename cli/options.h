/* cli/options.h: the one option parser of every subcommand (getopt_long).
 *
 * A subcommand describes its options in a table; cli_parse gives each the
 * same grammar: `--name value`, `--name=value`, a short `-x value`,
 * unambiguous abbreviations of long names, `--` ending the options, `-` as
 * an operand (standard input or output), `--help`/`-h`, `--version` and
 * `--color=always|never|auto` on every subcommand.  Numbers are parsed
 * strictly (decimal digits only, or a plain decimal fraction, within the
 * option's range); every error is one line `lowersim COMMAND: ...` and exit
 * code 2, an unknown option with the nearest one suggested and `Try
 * 'lowersim COMMAND --help'.` on a second line. */
#ifndef LOWERSIM_CLI_OPTIONS_H
#define LOWERSIM_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cli_kind {
  CLI_FLAG,   /* bool *: set to true */
  CLI_STRING, /* const char **: the value (borrowed from argv) */
  CLI_U64,    /* uint64_t *, within [min, max] */
  CLI_DOUBLE, /* double *, finite, within [min_real, max_real] */
  CLI_CUSTOM  /* parse(value, out): NULL, or what is wrong with the value */
} cli_kind;

/* The values an option accepts, from the table that decides them (the
 * profiles, the kinds, the matrix's features): the i-th, or NULL past the
 * end.  Completion offers them; messages suggest the nearest. */
typedef const char *(*cli_values)(size_t i);

typedef struct cli_option {
  const char *name;  /* long name, without "--" */
  char short_name;   /* 0: none */
  cli_kind kind;
  void *out;
  cli_values values; /* NULL: any value (a path, a number, a list) */
  const char *arg;   /* the value in --help (VERSION, OUT.xml); NULL for a flag */
  const char *help;  /* one line on it for --help */
  uint64_t min, max;          /* CLI_U64 */
  double min_real, max_real;  /* CLI_DOUBLE */
  const char *(*parse)(const char *value, void *out); /* CLI_CUSTOM */
  bool output; /* CLI_OUTPUT: a file the command writes (a flag: standard output) */
} cli_option;

/* Table rows; each may end with CLI_HELP(ARG, TEXT), what --help and the
 * man page say of the option. */
#define CLI_OPT_FLAG(n, s, p, ...)                                                            \
  {.name = (n), .short_name = (s), .kind = CLI_FLAG, .out = (p), __VA_ARGS__}
#define CLI_OPT_STRING(n, s, p, ...)                                                          \
  {.name = (n), .short_name = (s), .kind = CLI_STRING, .out = (p), __VA_ARGS__}
#define CLI_OPT_U64(n, s, p, lo, hi, ...)                                                     \
  {.name = (n), .short_name = (s), .kind = CLI_U64, .out = (p), .min = (lo), .max = (hi),     \
   __VA_ARGS__}
#define CLI_OPT_DOUBLE(n, s, p, lo, hi, ...)                                                  \
  {.name = (n), .short_name = (s), .kind = CLI_DOUBLE, .out = (p), .min_real = (lo),          \
   .max_real = (hi), __VA_ARGS__}
#define CLI_OPT_CUSTOM(n, s, fn, p, ...)                                                      \
  {.name = (n), .short_name = (s), .kind = CLI_CUSTOM, .out = (p), .parse = (fn), __VA_ARGS__}
/* The option's value as --help names it (NULL for a flag) and one line on
 * it (wrapped by --help); its values, when it has a list, are added. */
#define CLI_HELP(a, h) .arg = (a), .help = (h)
/* Marks a row as one of the command's outputs: a CLI_STRING's value is a
 * path it writes ("-": standard output), a CLI_FLAG set means standard
 * output.  cli_parse claims them all (cli_claim_outputs) once the options
 * are read, so two outputs naming one file are refused whatever the
 * command, before anything is written. */
#define CLI_OUTPUT .output = true
/* A string among `v`'s values (checked by the command, which may take more:
 * --jax takes commit prefixes). */
#define CLI_OPT_CHOICE(n, s, p, v, ...)                                                       \
  {.name = (n), .short_name = (s), .kind = CLI_STRING, .out = (p), .values = (v), __VA_ARGS__}
/* A custom value made of `v`'s values (--features a,b). */
#define CLI_OPT_CUSTOM_OF(n, s, fn, p, v, ...)                                                \
  {.name = (n), .short_name = (s), .kind = CLI_CUSTOM, .out = (p), .parse = (fn), .values = (v), \
   __VA_ARGS__}

/* Values of options every command shares: the JAX releases lowersim takes by
 * name (the profiles, then the aliases), the equation elements (the table of
 * kinds), --color's. */
const char *cli_jax_values(size_t i);
const char *cli_element_values(size_t i);
const char *cli_colour_values(size_t i);

/* cli_suggest among the values of `values`. */
const char *cli_suggest_value(const char *given, cli_values values);

/* A value not among `values`: `lowersim COMMAND: OPTION WRONG, not 'VALUE'`
 * and ` (did you mean 'NAME'?)` when one is close; returns 2.  OPTION NULL:
 * an argument. */
int cli_value_error(const char *command, const char *option, const char *wrong,
                    const char *value, cli_values values);

/* The parse of a subcommand's arguments (argv[0] is the subcommand). */
typedef struct cli_args {
  char **operands; /* what is not an option, in order (into argv) */
  int num_operands;
} cli_args;

/* Parses argv against `options`; `help` prints the subcommand's usage and
 * description, and --help then lists the options from the table (their
 * help texts and values, the common --color, --help and --version last).
 * Returns 0 to go on (operands in `*args`), -1 when --help or --version was
 * answered (exit 0), or the exit code of a usage error (2, printed).
 * The options marked CLI_OUTPUT are claimed (cli_claim_outputs): two that
 * name one file are a usage error (2).
 * Under cli_describe_options, prints the options instead and returns -1. */
int cli_parse(const char *command, int argc, char **argv, const cli_option *options,
              size_t num_options, void (*help)(void), cli_args *args);

/* cli_parse for a subcommand that takes no operands (one is a usage
 * error): -1, 0 or the exit code as cli_parse returns them. */
int cli_parse_options(const char *command, int argc, char **argv, const cli_option *options,
                      size_t num_options, void (*help)(void));

/* The name among `names` closest to `given` by Damerau-Levenshtein distance
 * (adjacent transpositions count one), when it is close enough to be a typo
 * of it: at most a third of `given`'s length away, at least one; NULL
 * otherwise (the first of equally close names wins). */
const char *cli_suggest(const char *given, const char *const *names, size_t count);

/* A typo: `lowersim[ COMMAND]: unknown WHAT 'GIVEN'` with `(did you mean
 * 'NAME'?)` when one of `names` is close to GIVEN (cli_suggest; for an
 * option, GIVEN without its leading dashes and `=value`, and NAME written
 * with two dashes), then `Try 'lowersim[ COMMAND] --help'.`, on stderr;
 * returns 2.  COMMAND NULL: the command itself was mistyped. */
int cli_typo_error(const char *command, const char *what, const char *given,
                   const char *const *names, size_t count);

/* The next cli_parse (of whichever command runs) prints its table on
 * standard output instead of parsing, one option a line: `--NAME` for a
 * flag, `--NAME=` for an option that takes a value, followed by the values
 * it accepts, each after a space, when it has a list (the built-in --help,
 * --version and --color included).  `lowersim --options COMMAND` is this,
 * for the completion (tools/gen_completion.sh). */
void cli_describe_options(bool on);

/* Strict numbers: decimal digits only (no sign, space or base prefix),
 * within [min, max]; a decimal fraction (digits, one point, an optional
 * exponent; no inf, nan or hexadecimal), finite, within [min, max]. */
bool cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);
bool cli_parse_double(const char *text, double min, double max, double *out);

/* `text` split at each `sep`, empty items kept: one allocation holding the
 * array and the items (free it); NULL when out of memory. */
char **cli_split(const char *text, char sep, size_t *count);

#endif
