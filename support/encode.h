/* support/encode.h: base64 (RFC 4648, standard alphabet, '=' padding, as
 * Python's base64.b64encode) and SHA-256 (FIPS 180-4, as hashlib.sha256),
 * both by Nettle.  Private. */
#ifndef LSIMP_SUPPORT_ENCODE_H
#define LSIMP_SUPPORT_ENCODE_H

#include "support/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Appends the base64 of `data` to `out`. */
void lsimp_base64_encode(lsimp_strbuf *out, const void *data, size_t size);

/* Appends the bytes the base64 `text` (`len` bytes, the standard
 * alphabet, '=' padding) encodes to `out`; false when it is not base64. */
bool lsimp_base64_decode(lsimp_strbuf *out, const char *text, size_t len);

void lsimp_sha256(const void *data, size_t size, uint8_t digest[32]);

#endif
