/* cli/junit.h: JUnit XML reports (libxml2's writer) for check and matrix. */
#ifndef LOWERSIM_CLI_JUNIT_H
#define LOWERSIM_CLI_JUNIT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct junit junit;

/* Starts `path` with one <testsuite>; NULL when the file cannot be made. */
junit *junit_open(const char *path, const char *suite, size_t tests, size_t failures,
                  size_t skipped, double seconds);

/* A <property> of the suite (name="jax": the JAX version a run models);
 * only before the first case. */
void junit_property(junit *j, const char *name, const char *value);

/* One <testcase>; `seconds` < 0 leaves the time out; `failure` and
 * `skipped` (messages) may be NULL; `jax` (may be NULL) becomes the case's
 * <properties><property name="jax" value="..."/></properties>. */
void junit_case(junit *j, const char *classname, const char *name, double seconds,
                const char *failure, const char *skipped, const char *jax);

/* Ends and frees the report; true when all of it was written. */
bool junit_close(junit *j);

#endif
