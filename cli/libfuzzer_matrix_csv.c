/* cli/libfuzzer_matrix_csv.c: the libFuzzer target of `matrix --merge`'s CSV
 * reader (cli/matrix_csv.c).  Bytes are read as a shard; every row the
 * reader accepts must be written back byte for byte by the writer (the
 * reader accepts exactly what the writer makes: the metadata line, the
 * header and the rows), and a refusal must be one
 * `<fuzz>:LINE: ...` line.  A broken invariant aborts (libFuzzer's crash). */
#define _DEFAULT_SOURCE /* fmemopen, open_memstream */
#include "matrix_csv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  FILE *in = fmemopen((void *)data, size, "r");
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  matrix_csv_reader *r = in && out ? matrix_csv_reader_create("<fuzz>", in) : NULL;
  if (!r)
    abort();
  matrix_row row;
  int rc = matrix_csv_begin(r);
  if (rc == 0) {
    matrix_csv_write_meta(out, matrix_csv_metadata(r));
    while ((rc = matrix_csv_next(r, &row)) > 0)
      matrix_csv_write_row(out, &row.c, &row.o);
  }
  fclose(out);
  if (rc == 0 && (len != size || memcmp(text, data, size) != 0)) {
    fprintf(stderr, "a shard read whole does not write back the same:\n%.*s\n---\n%s\n", (int)size,
            (const char *)data, text);
    abort();
  }
  const char *e = matrix_csv_error(r);
  if (rc < 0 && (strncmp(e, "<fuzz>:", 7) != 0 || strchr(e, '\n'))) {
    fprintf(stderr, "not a one-line `<fuzz>:LINE:` error: %s\n", e);
    abort();
  }
  matrix_csv_reader_destroy(r);
  fclose(in);
  free(text);
  return 0;
}
