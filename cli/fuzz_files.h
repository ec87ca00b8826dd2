/* cli/fuzz_files.h: the fuzzer's cases for the files the command writes and
 * the folders it walks (lowersim fuzz mixes them into its iterations).
 *
 * An output case writes a text through cli/output.c to a target of a random
 * kind (a new file, an old one with some mode, a symbolic link to a file or
 * to nothing, a 200-odd-character name, a folder, the command's own input,
 * a path in a missing folder) and checks the outcome: the text in place,
 * the mode kept (0666 less the umask when new), a link still a link, a
 * refused target untouched, no temporary left.  A folder case builds a
 * random tree of scenario files, other files, FIFOs named *.xml, links to
 * files, to folders above and beside, and to nothing, and checks that
 * cli/walk.c lists every regular *.xml file once and nothing else. */
#ifndef LOWERSIM_CLI_FUZZ_FILES_H
#define LOWERSIM_CLI_FUZZ_FILES_H

#include "fuzz/fuzz.h"

#include <stdbool.h>
#include <stddef.h>

/* Each runs in a fresh folder below `scratch` and removes it.  Returns 0
 * when the case holds, 1 with `detail` (one line) when it does not, 2 when
 * it could not be set up (the reason in `detail`). */
int cli_fuzz_output_case(lsim_fuzz_rng *rng, const char *scratch, const char *text, size_t size,
                         char *detail, size_t detail_size);
int cli_fuzz_folder_case(lsim_fuzz_rng *rng, const char *scratch, const char *text, size_t size,
                         char *detail, size_t detail_size);

/* Removes `path` and, for a folder, everything in it (links not followed). */
void cli_fuzz_remove_tree(const char *path);

#endif
