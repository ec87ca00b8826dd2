/* cli/matrix_csv.h: the matrix's CSV: one row per case, written by `matrix
 * --csv` and read back by `matrix --merge`.
 *
 * The reader is as strict as the scenario reader: the header exactly, then
 * rows of 8 fields, each checked (a contiguous decimal index, a known
 * feature and one of its variants, 1 to MATRIX_MAX_LEN distinct valid
 * platform names joined by '+', "-" or a backend, "cpu" and the optional
 * backends in order, "OK" or a status name, 16 hexadecimal digits for OK
 * and "-" otherwise), every row ending with a newline; the first problem is
 * a `PATH:LINE: what is wrong` message.  Reading is linear in the size. */
#ifndef LOWERSIM_CLI_MATRIX_CSV_H
#define LOWERSIM_CLI_MATRIX_CSV_H

#include "matrix.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MATRIX_CSV_HEADER "index,feature,variant,platforms,backend,runtime,outcome,module_hash\n"
#define MATRIX_CSV_MAX_LINE 1024 /* bytes of a row; the longest written is under 500 */

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

/* The next row: 1 with `*row`, 0 at the end of the file, -1 when the file is
 * not a valid matrix CSV (matrix_csv_error says why). */
int matrix_csv_next(matrix_csv_reader *r, matrix_row *row);

/* `PATH:LINE: what is wrong` after matrix_csv_next returned -1. */
const char *matrix_csv_error(const matrix_csv_reader *r);

#endif
