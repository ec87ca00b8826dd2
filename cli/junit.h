/* cli/junit.h: JUnit XML reports (libxml2's writer) for check and matrix.
 *
 * The report is made in memory and written through cli/output.c.  Text
 * that XML cannot carry (control characters, bytes that are not UTF-8, as
 * file names and modules may hold) is written as `\xNN`, so the report is
 * always well-formed. */
#ifndef LOWERSIM_CLI_JUNIT_H
#define LOWERSIM_CLI_JUNIT_H

#include "output.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct junit junit;

/* A report with one <testsuite>; NULL when out of memory. */
junit *junit_open(const char *suite, size_t tests, size_t failures, size_t skipped,
                  double seconds);

/* A <property> of the suite (name="jax": the JAX version a run models);
 * only before the first case. */
void junit_property(junit *j, const char *name, const char *value);

/* One <testcase>; `seconds` < 0 leaves the time out; `failure` and
 * `skipped` (messages) may be NULL; `jax` (may be NULL) becomes the case's
 * <properties><property name="jax" value="..."/></properties>. */
void junit_case(junit *j, const char *classname, const char *name, double seconds,
                const char *failure, const char *skipped, const char *jax);

/* Ends the report, writes it to `path` (cli_write_file) and frees it.
 * Returns 0, or 2 with the reason printed (`j` NULL: out of memory). */
int junit_close(junit *j, const char *command, const char *path, const cli_inputs *inputs);

/* `s` with what XML 1.0 cannot carry written as `\xNN` (owned; NULL when
 * out of memory). */
char *junit_xml_text(const char *s);

#endif
