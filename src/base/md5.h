/* MD5 message digest (RFC 1321), for the md5() SQL function. */
#ifndef WEIR_BASE_MD5_H
#define WEIR_BASE_MD5_H

#include <stddef.h>
#include <stdint.h>

/* The 16-byte digest of n bytes at data. */
void md5_digest(const void *data, size_t n, uint8_t out[16]);
/* The digest as 32 lower-case hexadecimal digits and a NUL (33 bytes at hex). */
void md5_hex(const void *data, size_t n, char hex[33]);

#endif
