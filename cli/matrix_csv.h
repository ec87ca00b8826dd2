/* cli/matrix_csv.h: the matrix's CSV: one row per case, written by `matrix
 * --csv` and read back by `matrix --merge`.
 *
 * Format 2 (format 1, the header first, had no metadata and is refused with
 * a message saying so): line 1 is the shard's metadata,
 *
 *   # lowersim matrix CSV 2: lowersim=V jax=PROFILE platforms=P+Q max-len=K
 *     features=F+G limit=L|- shard=I/N cases=LO..HI total=T
 *
 * (one line: the run's identity, which shard of how many, and the cases
 * [LO, HI) it holds of the matrix's T), line 2 the header, then one row per
 * case.  The reader is as strict as the scenario reader: every metadata
 * field in that order and consistent (T is the size of the matrix the
 * fields describe, LO..HI is shard I/N of it cut by --limit L), then rows of
 * 8 fields, each checked (a decimal index, the next of LO..HI; a known
 * feature and one of its variants; 1 to MATRIX_MAX_LEN distinct valid
 * platform names joined by '+'; "-" or a backend; "cpu" and the optional
 * backends in order; "OK" or a status name; 16 hexadecimal digits for OK
 * and "-" otherwise), each row the case its index names in the matrix of the
 * metadata, every row ending with a newline, the last row case HI-1; the
 * first problem is a `PATH:LINE: what is wrong` message.  Reading is linear
 * in the size. */
#ifndef LOWERSIM_CLI_MATRIX_CSV_H
#define LOWERSIM_CLI_MATRIX_CSV_H

#include "matrix.h"
#include "lowersim/runtime.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MATRIX_CSV_HEADER "index,feature,variant,platforms,backend,runtime,outcome,module_hash\n"
#define MATRIX_CSV_MAX_LINE 2048 /* bytes of a line; the longest written is under 1,400 */
#define MATRIX_CSV_FORMAT 2
#define MATRIX_CSV_META_PREFIX "# lowersim matrix CSV "

/* A shard's metadata (line 1). */
typedef struct matrix_csv_meta {
  matrix_spec spec;        /* platforms (into `names`), max_len, features, profile; finished */
  char names[MATRIX_MAX_PLATFORMS][LSIM_PLATFORM_NAME_MAX + 1];
  char lowersim[32];       /* the version of the lowersim that wrote it */
  uint64_t limit;          /* 0: none */
  uint64_t shard, shards;  /* shard I of N */
  uint64_t first, end;     /* its cases [first, end) */
} matrix_csv_meta;

/* The metadata of shard `shard`/`shards` of `spec` (finished), cut by
 * `limit` (0: none), written by this lowersim. */
void matrix_csv_meta_init(matrix_csv_meta *m, const matrix_spec *spec, uint64_t shard,
                          uint64_t shards, uint64_t limit);

/* Line 1 and the header. */
void matrix_csv_write_meta(FILE *f, const matrix_csv_meta *m);

/* The first field of the run's identity in which `a` and `b` differ
 * ("lowersim", "jax", "platforms", "max-len", "features", "limit",
 * "shards"), with both values as written; NULL when they are shards of
 * one run. */
const char *matrix_csv_meta_differ(const matrix_csv_meta *a, const matrix_csv_meta *b,
                                   char *va, char *vb, size_t size);

/* Writes the row of case `c`. */
void matrix_csv_write_row(FILE *f, const matrix_case *c, const matrix_outcome *o);

/* A row read back: the case (its tuple borrowed from the reader, valid
 * until the next row) and its outcome. */
typedef struct matrix_row {
  matrix_case c;
  matrix_outcome o;
} matrix_row;

typedef struct matrix_csv_reader matrix_csv_reader;

/* Reads `f` (borrowed), named `path` in messages.  NULL when out of memory. */
matrix_csv_reader *matrix_csv_reader_create(const char *path, FILE *f);
void matrix_csv_reader_destroy(matrix_csv_reader *r);

/* Reads the metadata and the header: 0, or -1 when they are not valid
 * (matrix_csv_error says why).  matrix_csv_next calls it first when needed. */
int matrix_csv_begin(matrix_csv_reader *r);

/* The metadata, after matrix_csv_begin returned 0 (borrowed). */
const matrix_csv_meta *matrix_csv_metadata(const matrix_csv_reader *r);

/* The next row: 1 with `*row`, 0 at the end of the file, -1 when the file is
 * not a valid matrix CSV (matrix_csv_error says why). */
int matrix_csv_next(matrix_csv_reader *r, matrix_row *row);

/* `PATH:LINE: what is wrong` after matrix_csv_next returned -1. */
const char *matrix_csv_error(const matrix_csv_reader *r);

#endif
