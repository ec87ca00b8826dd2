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

/* A report with one <testsuite> valid against the junit-10 schema that
 * Jenkins' xunit and GitLab read (testdata/schema/junit-10.xsd): the
 * counts (`errors`: cases that could not run, invalid input), `time` (left
 * out when `seconds` < 0), the `timestamp` (now, UTC) and the `hostname`.
 * NULL when out of memory. */
junit *junit_open(const char *suite, size_t tests, size_t failures, size_t errors,
                  size_t skipped, double seconds);

/* A <property> of the suite (name="jax": the JAX version a run models);
 * only before the first case. */
void junit_property(junit *j, const char *name, const char *value);

/* One <testcase>. */
typedef struct junit_result {
  const char *classname; /* dotted, as a class name (junit_classname) */
  const char *name;
  double seconds;         /* < 0: no time */
  const char *failure;    /* a wrong outcome: <failure message=its first line>all of it</failure> */
  const char *error;      /* the case could not run (invalid input): <error> likewise */
  const char *skipped;    /* why it was skipped: <skipped message=.../> */
  const char *system_out; /* <system-out> (the case's file, JAX version, difference) */
} junit_result;
void junit_case(junit *j, const junit_result *r);

/* `prefix` and the folder of `path` as a dotted class name
 * ("lowersim.check" and "testdata/conformance/x.xml" give
 * "lowersim.check.testdata.conformance"; owned, NULL when out of memory). */
char *junit_classname(const char *prefix, const char *path);

/* Marks the report as failed for want of memory (the caller could not
 * build a case's text): junit_close then writes nothing and says so. */
void junit_out_of_memory(junit *j);

/* Ends the report, writes it to `path` (cli_write_file) and frees it.
 * Returns 0, or 2 with the reason printed (`j` NULL: out of memory). */
int junit_close(junit *j, const char *command, const char *path, const cli_inputs *inputs);

/* `s` with what XML 1.0 cannot carry written as `\xNN` (owned; NULL when
 * out of memory). */
char *junit_xml_text(const char *s);

#endif
